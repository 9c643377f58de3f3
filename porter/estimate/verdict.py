"""Decide the verdict (ready, mechanical, port or blocked) and the reasons behind it, from the findings and kernels.

Every finding in scope and every costed kernel pushes towards one level; findings of the same kind are grouped into
one `Reason`. The worst level any reason reaches is the verdict, and the reasons at that level decide it.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from porter.estimate.cost import KernelCost
from porter.estimate.effort_model import SIZES
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS
from porter.model import Finding

VERDICTS = ("ready", "mechanical", "port", "blocked")  # best to worst
VERDICT_MEANING = {
    "ready": "runs after a container or version change",
    "mechanical": "hipify plus review",
    "port": "manual porting and retuning work",
    "blocked": "depends on something with no ROCm equivalent until it is replaced",
}


@dataclass(frozen=True)
class Reason:
    """A fact that pushes the verdict to `level`; the reasons at the verdict's own level decide it."""

    level: str
    key: str
    title: str
    count: int
    files: int
    examples: tuple[str, ...]
    findings: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()  # the targets it holds on

    def to_dict(self, decides: bool) -> dict[str, Any]:
        return {
            "level": self.level, "key": self.key, "title": self.title, "count": self.count, "files": self.files,
            "examples": list(self.examples), "targets": list(self.targets), "decides": decides,
            "findings": list(self.findings),
        }


@dataclass(frozen=True)
class Decision:
    """The verdict for one scope and every reason, worst level first."""

    verdict: str
    reasons: tuple[Reason, ...]


def decide(inputs: Inputs, scope: Scope, kernels: Iterable[KernelCost]) -> Decision:
    reasons = _finding_reasons(inputs, scope) + _kernel_reasons(inputs, kernels)
    reasons.sort(key=lambda r: (-VERDICTS.index(r.level), -r.count, r.key))
    ranked = [VERDICTS.index(r.level) for r in reasons]
    return Decision(VERDICTS[max(ranked)] if ranked else "ready", tuple(reasons))


def _finding_reasons(inputs: Inputs, scope: Scope) -> list[Reason]:
    v = inputs.model.verdict
    min_size = SIZES.index(v["port_min_size"])
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    titles: dict[tuple[str, str], str] = {}
    for f in scope.findings:
        rule = inputs.rule(f)
        lib = inputs.library(f)
        rtitle = rule.title if rule else f.rule
        if inputs.blocks(f):
            if lib is not None and lib.kind in v["blocked_library_kinds"]:
                key = ("blocked", f"library:{lib.id}")
                titles[key] = f"{lib.name} has no ROCm equivalent"
            else:
                key = ("blocked", f"rule:{f.rule}")
                titles[key] = f"{f.rule} {rtitle}"
        elif lib is not None and lib.kind in v["port_library_kinds"]:
            key = ("port", f"library:{lib.id}")
            repl = ", ".join(lib.rocm) or "no counterpart"
            titles[key] = f"{lib.name} needs a port to {repl} ({lib.kind})"
        elif inputs.klass(f) == "needs_engineer" and SIZES.index(inputs.size(f)) >= min_size:
            key = ("port", f"rule:{f.rule}")
            titles[key] = f"{f.rule} {rtitle}"
        elif f.category in v["ready_categories"]:
            key = ("ready", f"rule:{f.rule}")
            titles[key] = f"{f.rule} {rtitle}"
        elif inputs.klass(f) == "free_with_hipify":
            key = ("mechanical", "hipify")
            titles[key] = "CUDA code that hipify translates"
        else:
            key = ("mechanical", "review")
            titles[key] = "small hand edits after hipify"
        groups[key].append(f)
    out: list[Reason] = []
    shown: set[str] = set()  # a spot named as an example once is not named again under another reason
    # in the order `decide` lists the reasons, so an earlier reason keeps its examples
    for key, fs in sorted(groups.items(), key=lambda kv: (-VERDICTS.index(kv[0][0]), -len(kv[1]), kv[0][1])):
        tids = sorted({t.id for f in fs for t in scope.targets if inputs.applies(f, t)})
        out.append(Reason(
            level=key[0], key=key[1], title=titles[key], count=len(fs), files=len({f.path for f in fs}),
            examples=examples(fs, shown), findings=tuple(sorted(f.fingerprint for f in fs)),
            targets=tuple(tids),
        ))
    return out


def examples(fs: list[Finding], shown: set[str], n: int = 3) -> tuple[str, ...]:
    """Up to `n` spots that show a reason best: the most severe and most certain findings first, one per file before
    a second from the same file, each `path:line` once, and none already named under an earlier reason (unless the
    reason has no other). `shown` collects the spots named."""
    ranked = sorted(fs, key=lambda f: (-f.severity, -f.confidence, f.path, f.line))
    locs = list(dict.fromkeys(f"{f.path}:{f.line}" for f in ranked))
    paths = {f"{f.path}:{f.line}": f.path for f in ranked}
    fresh = [x for x in locs if x not in shown] or locs
    picked: list[str] = []
    for x in fresh:  # one spot per file first
        if len(picked) < n and paths[x] not in {paths[p] for p in picked}:
            picked.append(x)
    for x in fresh:
        if len(picked) < n and x not in picked:
            picked.append(x)
    shown.update(picked)
    return tuple(picked)


def _kernel_reasons(inputs: Inputs, kernels: Iterable[KernelCost]) -> list[Reason]:
    """One reason for the kernels that need work on a target, one for those hipify suffices for."""
    port_verdicts = set(inputs.model.verdict["port_kernel_verdicts"])
    by_level: dict[str, list[KernelCost]] = defaultdict(list)
    for kc in kernels:
        by_level["port" if kc.worst in port_verdicts else "mechanical"].append(kc)
    out: list[Reason] = []
    for level, kcs in by_level.items():
        tids = sorted({tid for kc in kcs for tid, tv in kc.verdicts.targets.items()
                       if (tv.verdict in port_verdicts) == (level == "port")})
        counts: dict[str, int] = defaultdict(int)
        for kc in kcs:
            counts[kc.worst] += 1
        summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items(), key=lambda kv: -KERNEL_VERDICTS.index(kv[0])))
        title = (f"{len(kcs)} kernel{'' if len(kcs) == 1 else 's'} need{'s' if len(kcs) == 1 else ''} work on the target ({summary})" if level == "port"
                 else f"{len(kcs)} kernel{'' if len(kcs) == 1 else 's'} compile{'s' if len(kcs) == 1 else ''} after hipify ({summary})")
        out.append(Reason(
            level=level, key=f"kernels:{level}", title=title, count=len(kcs), files=len({kc.kernel.path for kc in kcs}),
            # the kernels that need the most work first: worst verdict, then hours
            examples=tuple(f"{kc.kernel.path}:{kc.kernel.line} {kc.kernel.name}" for kc in sorted(
                kcs, key=lambda kc: (-KERNEL_VERDICTS.index(kc.worst), -kc.hours.likely, kc.kernel.path, kc.kernel.line))[:3]),
            targets=tuple(tids),
        ))
    return out
