"""Cost the work: turn the findings and kernels in scope into items of engineer-hours, each finding in at most one.

Three passes, each taking the findings the ones before left: kernels (their verdict on the hardest target, scaled
by size and complexity) take the device findings their verdicts name, in the kernel's body or in a `__device__`
helper it calls; repository-wide jobs of the effort model (replacing TensorRT-LLM, CI on ROCm) take the findings they
cover; what remains is costed per rule and file (or per rule, for repository-scoped rules).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from porter.estimate.effort_model import EffortModel, Hours
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS, KernelVerdicts, read_kernel
from porter.model import Finding, Kernel
from porter.targets import evaluate


@dataclass(frozen=True)
class Item:
    """One costed piece of work and the findings behind it."""

    id: str
    kind: str  # finding | kernel | one-off
    title: str
    category: str
    path: str | None  # None: repository-wide
    hours: Hours
    basis: str  # how the hours were computed, in words
    findings: tuple[str, ...] = ()  # fingerprints of the findings it costs or absorbs
    rule: str | None = None
    count: int = 0
    klass: str = "needs_engineer"

    def to_dict(self, model: EffortModel) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "category": self.category, "path": self.path,
            "rule": self.rule, "count": self.count, "class": self.klass, "hours": self.hours.to_dict(),
            "days": model.days_to_tenth(self.hours), "basis": self.basis, "findings": list(self.findings),
        }


@dataclass(frozen=True)
class KernelCost:
    """A costed kernel: its verdicts, the target that decides its cost, and the item that carries it."""

    verdicts: KernelVerdicts
    worst_target: str
    hours: Hours
    item: str  # the Item id
    lines: int
    findings: int  # findings written in the kernel's own body

    @property
    def kernel(self) -> Kernel:
        return self.verdicts.kernel

    @property
    def worst(self) -> str:
        return self.verdicts.targets[self.worst_target].verdict


@dataclass(frozen=True)
class Costing:
    """The items for one scope, in the order they were costed, and which item each finding went to."""

    items: tuple[Item, ...]
    finding_item: Mapping[str, str]  # fingerprint → item id
    kernels: tuple[KernelCost, ...]
    hours: Hours


def cost(inputs: Inputs, scope: Scope) -> Costing:
    """Every hour of work the scope's findings and the scan's kernels stand for."""
    items: list[Item] = []
    taken: dict[str, str] = {}  # fingerprint → item id
    kernels = _cost_kernels(inputs, scope, items, taken)
    _cost_one_offs(inputs, scope, items, taken)
    _cost_rules(inputs, scope, items, taken)
    total = Hours()
    for it in items:
        total = total + it.hours
    return Costing(tuple(items), taken, tuple(kernels), total)


def kernel_lines(k: Kernel) -> int:
    return max(1, k.end_line - k.line + 1)


def kernel_factor(k: Kernel, reasons: Iterable[str], model: EffortModel) -> tuple[float, float]:
    """(size, complexity) factors that scale a kernel verdict's hours: longer kernels and more reasons cost more."""
    size = model.kernels["size"]
    f_size = (kernel_lines(k) / size["reference_lines"]) ** size["exponent"]
    f_size = min(size["max_factor"], max(size["min_factor"], f_size))
    cx = model.kernels["complexity"]
    distinct = len(set(reasons))
    f_cx = 1 + cx["per_extra_reason"] * max(0, distinct - 1) + (cx["template"] if k.is_template else 0)
    return f_size, min(cx["max_factor"], f_cx)


def _cost_kernels(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str]) -> list[KernelCost]:
    model = inputs.model
    port_verdicts = set(model.verdict["port_kernel_verdicts"])
    absorb = model.kernels.get("absorb_findings", True)
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for f in scope.findings:
        by_path[f.path].append(f)
    out: list[KernelCost] = []
    for k in inputs.result.kernels:
        kv = read_kernel(k, scope.targets, model.kernels["unanalysed"])
        ranked = sorted(kv.targets.items(), key=lambda tv: (-KERNEL_VERDICTS.index(tv[1].verdict), tv[0]))
        worst_tid, worst = ranked[0]
        f_size, f_cx = kernel_factor(k, worst.reasons, model)
        hours = model.verdict_hours(worst.verdict).scale(f_size * f_cx)
        basis = [f"{worst.verdict} on {worst_tid} ({model.verdict_hours(worst.verdict).text()})",
                 f"× size {f_size:.2f} ({kernel_lines(k)} lines)", f"× complexity {f_cx:.2f}"]
        share = model.kernels["other_targets_share"]
        # A target that needs the same work for the same reasons (MI300X and MI325X are both gfx942) adds nothing.
        seen = {worst.work}
        for tid, v in ranked[1:]:
            if v.work in seen:
                continue
            seen.add(v.work)
            if v.verdict in port_verdicts:
                fs, fc = kernel_factor(k, v.reasons, model)
                hours = hours + model.verdict_hours(v.verdict).scale(fs * fc * share)
                basis.append(f"+ {share:g} × {v.verdict} on {tid}")
        # Findings the verdicts name (by rule id, or by line for a kernel check) are costed by the kernel, in a
        # helper as in its body: the verdict already counts the helper's facts. A helper that several kernels call
        # goes to the first of them.
        named = set().union(*(v.rules for v in kv.targets.values()))
        lines = set().union(*(v.lines for v in kv.targets.values() if v.verdict != "ok"))
        covered = [f for f in by_path.get(k.path, ()) if kv.covers(f)]
        item_id = f"kernel:{k.path}:{k.line}:{k.name}"
        takes = [f for f in covered if absorb and f.fingerprint not in taken
                 and (f.rule in named or (f.line in lines and f.category in ("device", "kernel")))]
        for f in takes:
            taken[f.fingerprint] = item_id
        items.append(Item(
            id=item_id, kind="kernel", title=f"Kernel {k.qualified_name}", category="kernel", path=k.path,
            hours=hours, basis=" ".join(basis), findings=tuple(sorted(f.fingerprint for f in takes)),
            count=1, klass="needs_engineer" if worst.verdict != "ok" else "free_with_hipify",
        ))
        in_body = sum(1 for f in covered if f.kernel == k.name)
        out.append(KernelCost(kv, worst_tid, hours, item_id, kernel_lines(k), in_body))
    return out


def _cost_one_offs(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str]) -> None:
    """Repository-wide jobs: triggered by any finding in scope, taking the ones no kernel took."""
    fired: dict[str, str] = {}  # job id → item id
    for job in inputs.model.one_offs:
        if job.get("targets") and not any(any(evaluate(p, t) for p in job["targets"]) for t in scope.targets):
            continue
        hits = [f for f in scope.findings if inputs.matches(job["when"], f)]
        if not hits:
            continue
        cover = next((c for c in job.get("covered_by", []) if c in fired), None)
        item_id = fired[cover] if cover else f"one-off:{job['id']}"
        takes = [f for f in hits if job.get("absorbs") and f.fingerprint not in taken]
        for f in takes:
            taken[f.fingerprint] = item_id
        if cover:
            i = next(n for n, it in enumerate(items) if it.id == item_id)
            old = items[i]
            items[i] = replace(old, basis=old.basis + f"; includes '{job['title']}'",
                               findings=tuple(sorted(set(old.findings) | {f.fingerprint for f in takes})),
                               count=old.count + len(takes))
            continue
        fired[job["id"]] = item_id
        job_hours = Hours.of(job["hours"])
        items.append(Item(
            id=item_id, kind="one-off", title=job["title"], category=job["category"], path=None,
            hours=job_hours, basis=f"repository-wide job, {job_hours.text()}; "
            f"triggered by {len(hits)} finding(s)" + (f", absorbs {len(takes)}" if takes else ""),
            findings=tuple(sorted(f.fingerprint for f in takes)), count=len(takes),
        ))


def _cost_rules(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str]) -> None:
    """The findings left, per rule and file (repository-scoped rules: per rule)."""
    model = inputs.model
    groups: dict[tuple[str, str | None], list[Finding]] = defaultdict(list)
    for f in scope.findings:
        if f.fingerprint in taken:
            continue
        groups[(f.rule, None if inputs.per(f) == "repo" else f.path)].append(f)
    for (rid, path), fs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        size, per = inputs.size(fs[0]), inputs.per(fs[0])
        unit = model.size(size)
        if per == "hit":
            units = 1 + (len(fs) - 1) * model.repeat_factor
            basis = f"{len(fs)} hit(s) × size {size} ({unit.text()}), repeats × {model.repeat_factor:g}"
        elif per == "file":
            units = 1.0
            basis = f"once per file, size {size} ({unit.text()})"
        elif per == "kernel":
            ks = {(k.path, k.line, k.name): k for f in fs if (k := _enclosing_kernel(f, inputs)) is not None}
            outside = any(_enclosing_kernel(f, inputs) is None for f in fs)
            units = sum(kernel_factor(k, (), model)[0] for k in ks.values()) + (1 if outside else 0)
            basis = f"{len(ks)} kernel(s), size-scaled, + {int(outside)} outside kernels, size {size} ({unit.text()})"
        else:
            units = 1.0
            basis = f"once per repository, size {size} ({unit.text()})"
        rule = inputs.rules.get(rid)
        classes = {inputs.klass(f) for f in fs}
        klass = "needs_engineer" if "needs_engineer" in classes else sorted(classes)[0]
        items.append(Item(
            id=f"rule:{rid}:{path or '*'}", kind="finding", title=rule.title if rule else rid,
            category=fs[0].category, path=path, hours=unit.scale(units), basis=basis,
            findings=tuple(sorted(f.fingerprint for f in fs)), rule=rid, count=len(fs), klass=klass,
        ))
        for f in fs:
            taken.setdefault(f.fingerprint, items[-1].id)


def _enclosing_kernel(f: Finding, inputs: Inputs) -> Kernel | None:
    """The kernel whose own body a finding is written in (a rule counted per kernel counts these)."""
    if not f.kernel:
        return None
    for k in inputs.kernels_by_path.get(f.path, ()):
        if k.name == f.kernel and k.line <= f.line <= k.end_line:
            return k
    return None
