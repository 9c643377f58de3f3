"""Turn a scan into a migration assessment: a verdict, an effort range in engineer-days, and where it comes from.

A pure function of its inputs: `assess(result, targets, model)` reads the findings and kernel verdicts of a
ScanResult, the rules' effort sizes and HIP equivalents, the CUDA-library map and the effort model, and returns an
`Assessment`. Every hour in it belongs to one costed item (a rule's hits in one file, a kernel, or a
repository-wide job such as replacing TensorRT-LLM), and every item lists the fingerprints of the findings behind
it, so each figure in a report can be traced back to lines of code.

Verdicts, worst first: blocked (depends on something with no ROCm equivalent until it is replaced), port (manual
porting or retuning), mechanical (hipify plus review), ready (a container or version change; also "nothing to
port" when there is no CUDA at all).
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Iterable, Mapping

from porter.estimate.effort_model import SIZES, EffortModel, Hours, load_effort_model
from porter.libraries import Library, load_libraries
from porter.model import Finding, Kernel, ScanResult, Severity
from porter.rules import Rule, RuleSet, load_rules
from porter.targets import Target, evaluate, applies

VERDICTS = ("ready", "mechanical", "port", "blocked")  # best to worst
KERNEL_VERDICTS = ("ok", "check", "retune", "fix", "rewrite")  # best to worst
CLASSES = ("free_with_hipify", "needs_engineer", "informational")
UNIT = "engineer-days"
# Knowledge-base library names (porter.kb) that are not ids of the library map.
_KB_LIBRARY_ALIASES = {"runtime": "cuda-runtime", "driver": "cuda-runtime", "rtc": "nvrtc", "cucomplex": "cuda-runtime"}
_RULE_ID = re.compile(r"^[A-Z]{3}[0-9]{3}$")
VERDICT_MEANING = {
    "ready": "runs after a container or version change",
    "mechanical": "hipify plus review",
    "port": "manual porting and retuning work",
    "blocked": "depends on something with no ROCm equivalent until it is replaced",
}


# ------------------------------------------------------------------------------------------------ data


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
            "days": _days(self.hours, model), "basis": self.basis, "findings": list(self.findings),
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
class Assessment:
    """What it takes to run a scanned repository on the selected AMD targets."""

    verdict: str
    nothing_to_port: bool
    headline: str
    reasons: tuple[Reason, ...]
    hours: Hours
    days: Hours
    targets: tuple[dict[str, Any], ...]
    items: tuple[Item, ...]
    breakdowns: dict[str, Any]
    recommendations: tuple[dict[str, Any], ...]
    assumptions: tuple[str, ...]
    model: EffortModel = field(compare=False)
    finding_item: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → item id
    finding_class: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → CLASSES entry

    @property
    def deciding(self) -> list[Reason]:
        return [r for r in self.reasons if r.level == self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "meaning": VERDICT_MEANING[self.verdict],
            "nothing_to_port": self.nothing_to_port,
            "headline": self.headline,
            "reasons": [r.to_dict(r.level == self.verdict) for r in self.reasons],
            "effort": {**self.days.to_dict(), "unit": UNIT, "hours": self.hours.to_dict()},
            "targets": list(self.targets),
            "breakdowns": self.breakdowns,
            "items": [i.to_dict(self.model) for i in self.items],
            "recommendations": list(self.recommendations),
            "assumptions": list(self.assumptions),
            "model": {"source": self.model.source, "override": self.model.override,
                      "hours_per_day": self.model.hours_per_day},
        }


# ------------------------------------------------------------------------------------------------ helpers


def _days(hours: Hours, model: EffortModel) -> dict[str, float]:
    """Unrounded-to-policy days for breakdown rows (one decimal), so small items stay visible."""
    per = model.hours_per_day
    return {"low": round(hours.low / per, 1), "likely": round(hours.likely / per, 1), "high": round(hours.high / per, 1)}


def _worst(values: Iterable[str], order: tuple[str, ...]) -> str | None:
    ranked = [order.index(v) for v in values if v in order]
    return order[max(ranked)] if ranked else None


def _data(f: Finding) -> dict[str, Any]:
    return dict(f.data)


def resolve_library(f: Finding, libraries: Mapping[str, Library]) -> Library | None:
    """The library-map entry a finding is about, from its `library` (or `library_id`) data, if any."""
    d = _data(f)
    for key in ("library_id", "library"):
        name = d.get(key)
        if not isinstance(name, str) or not name:
            continue
        name = _KB_LIBRARY_ALIASES.get(name, name)
        if name in libraries:
            return libraries[name]
        low = name.lower()
        for lib in libraries.values():
            if lib.id == low or lib.name.lower() == low:
                return lib
    return None


def _reason_rules(reasons: Any) -> set[str]:
    """Rule ids named in a kernel verdict's reasons (strings, or mappings with rule/id)."""
    out: set[str] = set()
    for r in reasons or ():
        if isinstance(r, str):
            text = r
        elif isinstance(r, Mapping):
            text = str(r.get("rule") or r.get("id") or "")
        else:
            continue
        m = re.match(r"[A-Z]{3}[0-9]{3}", text)
        if m:
            out.add(m.group(0))
    return out


def _reason_text(r: Any) -> str:
    if isinstance(r, str):
        return r
    if isinstance(r, Mapping):
        parts = [str(r.get(k)) for k in ("rule", "id") if r.get(k)]
        msg = r.get("message") or r.get("reason") or r.get("why") or ""
        return (" ".join(parts[:1]) + (": " if parts and msg else "") + str(msg)).strip() or str(dict(r))
    return str(r)


def _target_notes(f: Finding) -> dict[str, str]:
    """Per-target notes a rule attached under data['targets'] ({id: text} or {id: {note|message: text}})."""
    raw = _data(f).get("targets")
    out: dict[str, str] = {}
    if isinstance(raw, Mapping):
        for tid, v in raw.items():
            if isinstance(v, str):
                out[str(tid)] = v
            elif isinstance(v, Mapping):
                text = v.get("note") or v.get("message") or v.get("advice") or ""
                if text:
                    out[str(tid)] = str(text)
    return out


def _finding_text(f: Finding, rule: Rule | None) -> str:
    parts = [f.rule, f.message, rule.title if rule else ""]  # not the snippet: surrounding code is not the finding
    for k, v in f.data:
        if isinstance(v, (str, int, float)):
            parts.append(f"{k}={v}")
    return "\n".join(parts)


def _matches(alts: list[dict], f: Finding, rule: Rule | None, lib: Library | None) -> bool:
    for alt in alts:
        if "libraries" in alt and (lib is None or lib.id not in alt["libraries"]):
            continue
        if "categories" in alt and f.category not in alt["categories"]:
            continue
        if "rules" in alt and f.rule not in alt["rules"]:
            continue
        if "text" in alt and not re.search(alt["text"], _finding_text(f, rule)):
            continue
        return True
    return False


def _kernel_lines(k: Kernel) -> int:
    return max(1, k.end_line - k.line + 1)


def _kernel_key(k: Kernel) -> str:
    return f"{k.path}:{k.line}:{k.name}"


def _kernel_of(f: Finding, kernels_by_path: Mapping[str, list[Kernel]]) -> Kernel | None:
    if not f.kernel:
        return None
    for k in kernels_by_path.get(f.path, ()):
        if k.name == f.kernel and k.line <= f.line <= k.end_line:
            return k
    return None


def _fmt(h: Hours) -> str:
    def n(x):
        return f"{x:g}"
    return f"{n(round(h.low, 2))}–{n(round(h.likely, 2))}–{n(round(h.high, 2))} h"


# ------------------------------------------------------------------------------------------------ the core


@dataclass
class _Eval:
    """One evaluation for a set of targets: items, reasons, verdict, classes."""

    targets: list[Target]
    findings: list[Finding]  # applicable on at least one of `targets`
    not_applicable: list[Finding]
    items: list[Item]
    reasons: list[Reason]
    verdict: str
    kernel_rows: list[dict[str, Any]]
    classes: dict[str, str]  # fingerprint → class
    finding_item: dict[str, str]
    hours: Hours


class _Context:
    def __init__(self, result: ScanResult, model: EffortModel, rules: RuleSet, libraries: Mapping[str, Library]):
        self.result, self.model, self.rules, self.libraries = result, model, rules, libraries
        self.rule = {r.id: r for r in rules.rules}
        self.lib = {f.fingerprint + f.path + str(f.line): resolve_library(f, libraries) for f in result.findings}
        self.kernels_by_path: dict[str, list[Kernel]] = defaultdict(list)
        for k in result.kernels:
            self.kernels_by_path[k.path].append(k)

    def library(self, f: Finding) -> Library | None:
        return self.lib.get(f.fingerprint + f.path + str(f.line))

    def applies(self, f: Finding, target: Target) -> bool:
        rule = self.rule.get(f.rule)
        return applies(rule.targets if rule else (), target)

    def size(self, f: Finding) -> str:
        rule = self.rule.get(f.rule)
        size = (rule.effort.get("size") if rule else None) or "s"
        return size if size in SIZES else "s"

    def per(self, f: Finding) -> str:
        rule = self.rule.get(f.rule)
        return (rule.effort.get("per") if rule else None) or "hit"

    def klass(self, f: Finding) -> str:
        rule = self.rule.get(f.rule)
        lib = self.library(f)
        if self.blocks(f):
            return "needs_engineer"
        kind = rule.hip_equivalent.get("kind") if rule else "manual"
        if kind == "rename" and (lib is None or lib.kind == "drop-in"):
            return "free_with_hipify"
        if self.size(f) == "none":
            return "informational"
        return "needs_engineer"

    def blocks(self, f: Finding) -> bool:
        lib = self.library(f)
        return f.severity == Severity.BLOCKER or (lib is not None and lib.kind in self.model.verdict["blocked_library_kinds"])


def _kernel_verdicts(k: Kernel, targets: list[Target], model: EffortModel) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for t in targets:
        v = k.verdict_on(t.id)
        if v is not None and v.verdict in KERNEL_VERDICTS:
            # The details say why in words; the bare id when a detail carries no message.
            reasons = [f"{x.id}: {x.message}" if x.message else x.id for x in v.details]
            out[t.id] = {"verdict": v.verdict, "reasons": reasons, "ids": list(v.reasons),
                         "lines": {n for x in v.details for n in x.lines}, "analysed": True}
        else:
            out[t.id] = {"verdict": model.kernels["unanalysed"], "reasons": ["not analysed: no kernel analysis for this target"],
                         "ids": [], "lines": set(), "analysed": False}
    return out


def _kernel_factor(k: Kernel, reasons: Iterable[Any], model: EffortModel) -> tuple[float, float]:
    size = model.kernels["size"]
    f_size = (_kernel_lines(k) / size["reference_lines"]) ** size["exponent"]
    f_size = min(size["max_factor"], max(size["min_factor"], f_size))
    cx = model.kernels["complexity"]
    distinct = len({_reason_text(r) for r in reasons})
    f_cx = 1 + cx["per_extra_reason"] * max(0, distinct - 1) + (cx["template"] if k.is_template else 0)
    return f_size, min(cx["max_factor"], f_cx)


def _evaluate(ctx: _Context, targets: list[Target]) -> _Eval:
    model = ctx.model
    result = ctx.result
    applicable = [f for f in result.findings if any(ctx.applies(f, t) for t in targets)]
    not_applicable = [f for f in result.findings if not any(ctx.applies(f, t) for t in targets)]
    items: list[Item] = []
    absorbed: dict[str, str] = {}  # fingerprint → item id
    port_verdicts = set(model.verdict["port_kernel_verdicts"])

    # 1. kernels: their verdict on the hardest target, scaled by size and complexity; they absorb device findings
    kernel_rows: list[dict[str, Any]] = []
    by_kernel: dict[str, list[Finding]] = defaultdict(list)
    for f in applicable:
        k = _kernel_of(f, ctx.kernels_by_path)
        if k is not None:
            by_kernel[_kernel_key(k)].append(f)
    for k in result.kernels:
        verdicts = _kernel_verdicts(k, targets, model)
        ranked = sorted(verdicts.items(), key=lambda kv: (-KERNEL_VERDICTS.index(kv[1]["verdict"]), kv[0]))
        worst_tid, worst = ranked[0]
        f_size, f_cx = _kernel_factor(k, worst["reasons"], model)
        hours = model.verdict_hours(worst["verdict"]).scale(f_size * f_cx)
        basis = [f"{worst['verdict']} on {worst_tid} ({_fmt(model.verdict_hours(worst['verdict']))})",
                 f"× size {f_size:.2f} ({_kernel_lines(k)} lines)", f"× complexity {f_cx:.2f}"]
        share = model.kernels["other_targets_share"]
        # A target that needs the same work for the same reasons (MI300X and MI325X are both gfx942) adds nothing.
        seen = {_work_signature(worst)}
        for tid, v in ranked[1:]:
            if _work_signature(v) in seen:
                continue
            seen.add(_work_signature(v))
            if v["verdict"] in port_verdicts:
                fs, fc = _kernel_factor(k, v["reasons"], model)
                hours = hours + model.verdict_hours(v["verdict"]).scale(fs * fc * share)
                basis.append(f"+ {share:g} × {v['verdict']} on {tid}")
        # Findings the verdicts name (by rule id, or by line for a kernel check) are costed by the kernel.
        named = set().union(*(_reason_rules(v["ids"]) | _reason_rules(v["reasons"]) for v in verdicts.values()))
        lines = set().union(*(v["lines"] for v in verdicts.values() if v["verdict"] != "ok"))
        inside = by_kernel.get(_kernel_key(k), [])
        takes = [f for f in inside if model.kernels.get("absorb_findings", True)
                 and (f.rule in named or (f.line in lines and f.category in ("device", "kernel")))]
        item_id = f"kernel:{k.path}:{k.line}:{k.name}"
        for f in takes:
            absorbed[f.fingerprint] = item_id
        items.append(Item(
            id=item_id, kind="kernel", title=f"Kernel {k.qualified_name}", category="kernel", path=k.path,
            hours=hours, basis=" ".join(basis), findings=tuple(sorted(f.fingerprint for f in takes)),
            count=1, klass="needs_engineer" if worst["verdict"] != "ok" else "free_with_hipify",
        ))
        kernel_rows.append({
            "name": k.name, "qualified_name": k.qualified_name, "path": k.path, "line": k.line, "end_line": k.end_line,
            "lines": _kernel_lines(k), "is_template": k.is_template, "launches": len(result.launches_of(k)),
            "targets": {tid: {"verdict": v["verdict"], "reasons": [_reason_text(r) for r in v["reasons"]],
                              "ids": [_reason_text(r) for r in v["ids"]], "analysed": v["analysed"]}
                        for tid, v in verdicts.items()},
            "worst": worst["verdict"], "worst_target": worst_tid, "item": item_id,
            "hours": hours.to_dict(), "days": _days(hours, model),
            "findings": len(inside),
        })

    # 2. repository-wide jobs: triggered by any applicable finding, absorbing the ones not yet taken
    fired: dict[str, str] = {}
    for job in model.one_offs:
        if job.get("targets") and not any(any(evaluate(p, t) for p in job["targets"]) for t in targets):
            continue
        hits = [f for f in applicable if _matches(job["when"], f, ctx.rule.get(f.rule), ctx.library(f))]
        if not hits:
            continue
        cover = next((c for c in job.get("covered_by", []) if c in fired), None)
        item_id = fired[cover] if cover else f"one-off:{job['id']}"
        takes = [f for f in hits if job.get("absorbs") and f.fingerprint not in absorbed]
        for f in takes:
            absorbed[f.fingerprint] = item_id
        if cover:
            i = next(n for n, it in enumerate(items) if it.id == item_id)
            old = items[i]
            items[i] = Item(old.id, old.kind, old.title, old.category, old.path, old.hours,
                            old.basis + f"; includes '{job['title']}'",
                            tuple(sorted(set(old.findings) | {f.fingerprint for f in takes})), old.rule,
                            old.count + len(takes), old.klass)
            continue
        fired[job["id"]] = item_id
        items.append(Item(
            id=item_id, kind="one-off", title=job["title"], category=job["category"], path=None,
            hours=Hours.of(job["hours"]), basis=f"repository-wide job, {_fmt(Hours.of(job['hours']))}; "
            f"triggered by {len(hits)} finding(s)" + (f", absorbs {len(takes)}" if takes else ""),
            findings=tuple(sorted(f.fingerprint for f in takes)), count=len(takes),
        ))

    # 3. the remaining findings, per rule and file (repo-scoped rules: per rule)
    groups: dict[tuple[str, str | None], list[Finding]] = defaultdict(list)
    for f in applicable:
        if f.fingerprint in absorbed:
            continue
        groups[(f.rule, None if ctx.per(f) == "repo" else f.path)].append(f)
    for (rid, path), fs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        size, per = ctx.size(fs[0]), ctx.per(fs[0])
        unit = model.size(size)
        if per == "hit":
            units = 1 + (len(fs) - 1) * model.repeat_factor
            basis = f"{len(fs)} hit(s) × size {size} ({_fmt(unit)}), repeats × {model.repeat_factor:g}"
        elif per == "file":
            units = 1.0
            basis = f"once per file, size {size} ({_fmt(unit)})"
        elif per == "kernel":
            ks = {_kernel_key(k): k for f in fs if (k := _kernel_of(f, ctx.kernels_by_path)) is not None}
            outside = any(_kernel_of(f, ctx.kernels_by_path) is None for f in fs)
            units = sum(_kernel_factor(k, (), model)[0] for k in ks.values()) + (1 if outside else 0)
            basis = f"{len(ks)} kernel(s), size-scaled, + {int(outside)} outside kernels, size {size} ({_fmt(unit)})"
        else:
            units = 1.0
            basis = f"once per repository, size {size} ({_fmt(unit)})"
        rule = ctx.rule.get(rid)
        classes = {ctx.klass(f) for f in fs}
        klass = "needs_engineer" if "needs_engineer" in classes else sorted(classes)[0]
        items.append(Item(
            id=f"rule:{rid}:{path or '*'}", kind="finding", title=rule.title if rule else rid,
            category=fs[0].category, path=path, hours=unit.scale(units), basis=basis,
            findings=tuple(sorted(f.fingerprint for f in fs)), rule=rid, count=len(fs), klass=klass,
        ))
        for f in fs:
            absorbed.setdefault(f.fingerprint, items[-1].id)

    total = Hours()
    for it in items:
        total = total + it.hours
    classes = {f.fingerprint: ctx.klass(f) for f in applicable}
    reasons = _reasons(ctx, applicable, kernel_rows, targets)
    verdict = _worst((r.level for r in reasons), VERDICTS) or "ready"
    return _Eval(targets, applicable, not_applicable, items, reasons, verdict, kernel_rows, classes, absorbed, total)


def _reasons(ctx: _Context, findings: list[Finding], kernel_rows: list[dict], targets: list[Target]) -> list[Reason]:
    model = ctx.model
    v = model.verdict
    min_size = SIZES.index(v["port_min_size"])
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    titles: dict[tuple[str, str], str] = {}
    for f in findings:
        rule = ctx.rule.get(f.rule)
        lib = ctx.library(f)
        rtitle = rule.title if rule else f.rule
        if ctx.blocks(f):
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
        elif ctx.klass(f) == "needs_engineer" and SIZES.index(ctx.size(f)) >= min_size:
            key = ("port", f"rule:{f.rule}")
            titles[key] = f"{f.rule} {rtitle}"
        elif f.category in v["ready_categories"]:
            key = ("ready", f"rule:{f.rule}")
            titles[key] = f"{f.rule} {rtitle}"
        elif ctx.klass(f) == "free_with_hipify":
            key = ("mechanical", "hipify")
            titles[key] = "CUDA code that hipify translates"
        else:
            key = ("mechanical", "review")
            titles[key] = "small hand edits after hipify"
        groups[key].append(f)
    out: list[Reason] = []
    for key, fs in groups.items():
        tids = sorted({t.id for f in fs for t in targets if ctx.applies(f, t)})
        out.append(Reason(
            level=key[0], key=key[1], title=titles[key], count=len(fs), files=len({f.path for f in fs}),
            examples=tuple(f"{f.path}:{f.line}" for f in fs[:3]), findings=tuple(sorted(f.fingerprint for f in fs)),
            targets=tuple(tids),
        ))
    port_verdicts = set(v["port_kernel_verdicts"])
    by_verdict: dict[str, list[dict]] = defaultdict(list)
    for row in kernel_rows:
        by_verdict["port" if row["worst"] in port_verdicts else "mechanical"].append(row)
    for level, rows in by_verdict.items():
        tids = sorted({tid for r in rows for tid, tv in r["targets"].items()
                       if (tv["verdict"] in port_verdicts) == (level == "port")})
        counts: dict[str, int] = defaultdict(int)
        for r in rows:
            counts[r["worst"]] += 1
        summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items(), key=lambda kv: -KERNEL_VERDICTS.index(kv[0])))
        title = (f"{len(rows)} kernel(s) need work on the target ({summary})" if level == "port"
                 else f"{len(rows)} kernel(s) compile after hipify ({summary})")
        out.append(Reason(
            level=level, key=f"kernels:{level}", title=title, count=len(rows), files=len({r["path"] for r in rows}),
            examples=tuple(f"{r['path']}:{r['line']} {r['name']}" for r in rows[:3]), targets=tuple(tids),
        ))
    out.sort(key=lambda r: (-VERDICTS.index(r.level), -r.count, r.key))
    return out


# ------------------------------------------------------------------------------------------------ breakdowns


def _share(items: list[Item], findings_of: dict[str, list[str]]) -> dict[str, Hours]:
    """Each finding's share of its item's hours (items split evenly over their findings)."""
    out: dict[str, Hours] = {}
    for it in items:
        fps = findings_of.get(it.id, [])
        if fps:
            part = it.hours.scale(1 / len(fps))
            for fp in fps:
                out[fp] = part
    return out


def _by_category(ev: _Eval, model: EffortModel) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    counts: dict[str, int] = defaultdict(int)
    for it in ev.items:
        hours[it.category] = hours[it.category] + it.hours
    for f in ev.findings:
        counts[f.category] += 1
    cats = sorted(set(hours) | set(counts), key=lambda c: (-hours[c].likely, c))
    return [{"category": c, "findings": counts[c], "hours": hours[c].to_dict(), "days": _days(hours[c], model)} for c in cats]


def _by_directory(ev: _Eval, model: EffortModel) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    findings: dict[str, int] = defaultdict(int)
    files: dict[str, set[str]] = defaultdict(set)

    def dirs(path: str | None) -> list[str]:
        if path is None:
            return ["."]
        parts = PurePosixPath(path).parts[:-1]
        return ["."] + ["/".join(parts[: i + 1]) for i in range(len(parts))]

    for it in ev.items:
        for d in dirs(it.path):
            hours[d] = hours[d] + it.hours
    for f in ev.findings:
        for d in dirs(f.path):
            findings[d] += 1
            files[d].add(f.path)
    out = []
    for d in sorted(set(hours) | set(findings), key=lambda d: (d != ".", d)):
        out.append({"path": d, "depth": 0 if d == "." else d.count("/") + 1, "findings": findings[d],
                    "files": len(files[d]), "hours": hours[d].to_dict(), "days": _days(hours[d], model)})
    return out


def _by_file(ev: _Eval, ctx: _Context, model: EffortModel) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    for it in ev.items:
        if it.path is not None:
            hours[it.path] = hours[it.path] + it.hours
    per: dict[str, list[Finding]] = defaultdict(list)
    for f in ev.findings:
        per[f.path].append(f)
    lines = {fr.path: fr.lines for fr in ctx.result.files}
    out = []
    for path in sorted(set(per) | set(hours)):
        fs = per.get(path, [])
        worst = max((f.severity for f in fs), default=Severity.INFO)
        out.append({
            "path": path, "lines": lines.get(path, 0), "findings": len(fs), "worst": str(worst),
            "free_with_hipify": sum(1 for f in fs if ev.classes[f.fingerprint] == "free_with_hipify"),
            "needs_engineer": sum(1 for f in fs if ev.classes[f.fingerprint] == "needs_engineer"),
            "kernels": len(ctx.kernels_by_path.get(path, ())),
            "hours": hours[path].to_dict(), "days": _days(hours[path], model),
        })
    return out


def _by_library(ev: _Eval, ctx: _Context, model: EffortModel, share: dict[str, Hours]) -> list[dict[str, Any]]:
    per: dict[str, list[Finding]] = defaultdict(list)
    for f in ev.findings:
        lib = ctx.library(f)
        if lib is not None:
            per[lib.id].append(f)
    out = []
    order = list(ctx.libraries)
    for lid in sorted(per, key=lambda i: (["none", "early-access", "port", "drop-in"].index(ctx.libraries[i].kind), order.index(i))):
        lib = ctx.libraries[lid]
        fs = per[lid]
        hours = Hours()
        for f in fs:
            hours = hours + share.get(f.fingerprint, Hours())
        items = sorted({ev.finding_item[f.fingerprint] for f in fs if f.fingerprint in ev.finding_item})
        out.append({
            "id": lib.id, "name": lib.name, "kind": lib.kind, "rocm": list(lib.rocm), "note": lib.note,
            "findings": len(fs), "files": len({f.path for f in fs}), "hours": hours.to_dict(),
            "days": _days(hours, model), "items": items,
        })
    return out


def _split(ev: _Eval) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in CLASSES:
        fs = [f for f in ev.findings if ev.classes[f.fingerprint] == c]
        out[c] = {"findings": len(fs), "lines": len({(f.path, f.line) for f in fs}), "files": len({f.path for f in fs})}
    total = sum(v["findings"] for v in out.values())
    out["free_share"] = round(out["free_with_hipify"]["findings"] / total, 3) if total else 0.0
    return out


# ------------------------------------------------------------------------------------------------ advice


def _fields(t: Target) -> dict[str, Any]:
    d = {k: v for k, v in t.fields.items()}
    d.setdefault("name", t.name)
    d.setdefault("gfx", t.gfx)
    return d


class _Fmt(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def _advise(fs: list[Finding], ctx: _Context, targets: list[Target]) -> dict[str, list[str]]:
    """Target facts for a group of findings: {target id: [sentences]} from the model's advice and rule notes."""
    out: dict[str, list[str]] = defaultdict(list)
    for topic in ctx.model.advice:
        if not any(_matches(topic["when"], f, ctx.rule.get(f.rule), ctx.library(f)) for f in fs):
            continue
        for t in targets:
            for case in topic["per_target"]:
                if evaluate(case["if"], t):
                    text = case["say"].format_map(_Fmt(_fields(t)))
                    if text not in out[t.id]:
                        out[t.id].append(text)
                    break
    for f in fs:
        for tid, note in _target_notes(f).items():
            if tid in {t.id for t in targets} and note not in out[tid]:
                out[tid].append(note)
    return {t.id: out[t.id] for t in targets if out.get(t.id)}


_KIND_ADVICE = {
    "drop-in": "drop-in: hipify renames the calls; link the ROCm library instead",
    "port": "a port: the ROCm counterpart has a different API or is a fork",
    "early-access": "early access: the ROCm counterpart exists but is not production-ready; plan a fallback",
    "none": "no ROCm equivalent: replace it",
}


def _recommendations(ev: _Eval, ctx: _Context, model: EffortModel) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    fp = {f.fingerprint: f for f in ev.findings}
    items = {it.id: it for it in ev.items}
    jobs = {j["id"]: j for j in model.one_offs}
    for r in ev.reasons:
        if r.level != "blocked":
            continue
        fs = [fp[x] for x in r.findings if x in fp]
        lib = ctx.libraries.get(r.key.split(":", 1)[1]) if r.key.startswith("library:") else None
        item_ids = sorted({ev.finding_item[f.fingerprint] for f in fs if f.fingerprint in ev.finding_item})
        plan = [{"item": i, "title": items[i].title, "days": _days(items[i].hours, model)}
                for i in item_ids if i.startswith("one-off:") and i in items]
        rule = ctx.rule.get(fs[0].rule) if fs else None
        text = lib.note if lib else (rule.docs.get("instead", "") if rule else "")
        if not text and plan:
            text = jobs.get(plan[0]["item"].split(":", 1)[1], {}).get("note", "")
        out.append({
            "id": f"blocker:{r.key}", "kind": "blocker", "title": r.title,
            "replacement": ", ".join(lib.rocm) if lib and lib.rocm else (fs[0].replacement if fs and fs[0].replacement else None),
            "library_kind": lib.kind if lib else None, "text": " ".join(text.split()), "plan": plan,
            "targets": _advise(fs, ctx, ev.targets), "findings": len(fs), "items": item_ids,
            "hours": _sum_items(items, item_ids).to_dict(),
        })
    seen_blockers = {r["id"].split(":", 2)[-1] for r in out if r["id"].startswith("blocker:library:")}
    per_lib: dict[str, list[Finding]] = defaultdict(list)
    for f in ev.findings:
        lib = ctx.library(f)
        if lib is not None and lib.id not in seen_blockers:
            per_lib[lib.id].append(f)
    order = list(ctx.libraries)
    for lid in sorted(per_lib, key=order.index):
        lib = ctx.libraries[lid]
        fs = per_lib[lid]
        item_ids = sorted({ev.finding_item[f.fingerprint] for f in fs if f.fingerprint in ev.finding_item})
        out.append({
            "id": f"library:{lid}", "kind": "library",
            "title": f"{lib.name} → {', '.join(lib.rocm) if lib.rocm else 'no ROCm counterpart'}",
            "replacement": ", ".join(lib.rocm) or None, "library_kind": lib.kind,
            "text": f"{_KIND_ADVICE[lib.kind][0].upper()}{_KIND_ADVICE[lib.kind][1:]}. {lib.note}",
            "plan": [{"item": i, "title": items[i].title, "days": _days(items[i].hours, model)}
                     for i in item_ids if i.startswith("one-off:") and i in items],
            "targets": _advise(fs, ctx, ev.targets), "findings": len(fs), "items": item_ids,
            "hours": _sum_items(items, item_ids).to_dict(),
        })
    # Topics (wavefront, LDS, FP8) whose target facts no blocker or library recommendation above already says.
    said = {text for r in out for texts in r["targets"].values() for text in texts}
    for topic in model.advice:
        fs = [f for f in ev.findings if _matches(topic["when"], f, ctx.rule.get(f.rule), ctx.library(f))]
        if not fs:
            continue
        facts: dict[str, list[str]] = {}
        for t in ev.targets:
            for case in topic["per_target"]:
                if evaluate(case["if"], t):
                    text = case["say"].format_map(_Fmt(_fields(t)))
                    if text not in said:
                        facts[t.id] = [text]
                    break
        if not facts:
            continue
        out.append({
            "id": f"topic:{topic['id']}", "kind": "topic", "title": _TOPIC_TITLES.get(topic["id"], topic["id"]),
            "replacement": None, "library_kind": None,
            "text": f"{len(fs)} finding(s) in {len({f.path for f in fs})} file(s) depend on this.", "plan": [],
            "targets": facts, "findings": len(fs),
            "items": sorted({ev.finding_item[f.fingerprint] for f in fs if f.fingerprint in ev.finding_item}),
            "hours": Hours().to_dict(),
        })
    return out


_TOPIC_TITLES = {
    "nvfp4": "NVFP4 / FP4 data on the target",
    "fp8": "FP8 formats on the target",
    "wavefront": "Wavefront size (warp-width assumptions)",
    "lds": "Shared memory (LDS) limits",
}


def _sum_items(items: Mapping[str, Item], ids: Iterable[str]) -> Hours:
    total = Hours()
    for i in ids:
        if i in items:
            total = total + items[i].hours
    return total


# ------------------------------------------------------------------------------------------------ assumptions


def _assumptions(ev: _Eval, ctx: _Context, model: EffortModel) -> list[str]:
    d = model.data
    sizes = ", ".join(f"{k} {_fmt(model.size(k))}" for k in SIZES if k != "none")
    kv = ", ".join(f"{k} {_fmt(model.verdict_hours(k))}" for k in KERNEL_VERDICTS)
    ks = d["kernels"]["size"]
    unanalysed = sum(1 for r in ev.kernel_rows if not all(t["analysed"] for t in r["targets"].values()))
    out = [
        f"Effort is in engineer-days of {model.hours_per_day:g} focused hours, for an engineer who knows CUDA and is new "
        f"to ROCm; ranges are low–likely–high and totals add the ranges of independent items (so the high end assumes "
        f"everything goes badly at once). Days are rounded to {model.round_days_to:g}.",
        f"Hours per unit of rule effort size: {sizes}. A rule counted per hit costs its size for the first hit in a "
        f"file and {model.repeat_factor:g}× for each further hit there (the same fix repeats).",
        f"Kernels cost their verdict on the hardest selected target ({kv}), scaled by length (×(lines/"
        f"{ks['reference_lines']:g})^{ks['exponent']:g}, clamped to {ks['min_factor']:g}–{ks['max_factor']:g}) and "
        f"complexity (+{d['kernels']['complexity']['per_extra_reason']:g} per extra reason, "
        f"+{d['kernels']['complexity']['template']:g} for templates); each further target needing retune/fix/rewrite adds "
        f"{d['kernels']['other_targets_share']:g}× its own cost. Device findings a kernel verdict names are costed by the kernel.",
        "Repository-wide jobs (replacing a serving stack, re-quantizing a checkpoint, CI on ROCm, validation on the "
        "target) are fixed ranges that absorb the findings they cover.",
        "Not included: performance work beyond reaching parity on the measured kernels, procurement and cluster "
        "setup, and work in code porter did not scan (skipped files, private dependencies).",
        f"Effort model: {model.source}" + (f", overridden by {model.override}" if model.override else "") + ".",
    ]
    if unanalysed:
        out.append(f"{unanalysed} kernel(s) had no kernel analysis for a selected target; they are costed as "
                   f"'{model.kernels['unanalysed']}'.")
    if ev.not_applicable:
        out.append(f"{len(ev.not_applicable)} finding(s) come from rules that do not apply to the selected target(s) and "
                   "are not costed.")
    if ctx.result.suppressed:
        out.append(f"{len(ctx.result.suppressed)} finding(s) suppressed in the source (porter: ignore) are not costed.")
    if ctx.result.skipped:
        out.append(f"{len(ctx.result.skipped)} file(s) could not be scanned (see 'skipped'); their work is not estimated.")
    pre = [t.name for t in ev.targets if t.pre_release]
    if pre:
        out.append(f"{', '.join(pre)}: pre-release profile; its facts may change.")
    return out


# ------------------------------------------------------------------------------------------------ entry point


def assess(
    result: ScanResult,
    targets: list[Target],
    model: EffortModel | None = None,
    rules: RuleSet | None = None,
    libraries: Mapping[str, Library] | None = None,
) -> Assessment:
    """Assess a scan for `targets` (at least one) with an effort model (default: the shipped one)."""
    if not targets:
        raise ValueError("assess needs at least one target")
    model = model or load_effort_model()
    rules = rules or result.rules or load_rules()
    libraries = libraries if libraries is not None else load_libraries()
    ctx = _Context(result, model, rules, libraries)
    ev = _evaluate(ctx, list(targets))
    per_target = []
    for t in targets:
        one = _evaluate(ctx, [t])
        per_target.append({
            "id": t.id, "name": t.name, "gfx": t.gfx, "pre_release": t.pre_release, "verdict": one.verdict,
            "effort": {**model.days(one.hours).to_dict(), "unit": UNIT},
            "deciding": [r.title for r in one.reasons if r.level == one.verdict],
        })
    nothing = not ev.findings and not result.kernels
    days = model.days(ev.hours)
    scanned = sum(1 for f in result.files if f.skipped is None)
    names = ", ".join(t.name for t in targets)
    if nothing:
        headline = (f"Nothing to port: no CUDA found in {scanned} scanned file(s)"
                    + (f" ({len(result.findings) - len(ev.findings)} finding(s) do not apply to {names})" if result.findings else "")
                    + ".")
        verdict = "ready"
    else:
        verdict = ev.verdict
        headline = (f"{verdict.capitalize()} ({VERDICT_MEANING[verdict]}): {days.low:g}–{days.high:g} engineer-days, "
                    f"likely {days.likely:g}, for {names}.")
    share = _share(ev.items, {it.id: list(it.findings) for it in ev.items})
    breakdowns = {
        "by_category": _by_category(ev, model),
        "by_directory": _by_directory(ev, model),
        "by_kernel": ev.kernel_rows,
        "by_library": _by_library(ev, ctx, model, share),
        "by_file": _by_file(ev, ctx, model),
        "hipify": _split(ev),
    }
    return Assessment(
        verdict=verdict,
        nothing_to_port=nothing,
        headline=headline,
        reasons=tuple(ev.reasons),
        hours=ev.hours,
        days=days,
        targets=tuple(per_target),
        items=tuple(sorted(ev.items, key=lambda i: (-i.hours.likely, i.id))),
        breakdowns=breakdowns,
        recommendations=tuple(_recommendations(ev, ctx, model)),
        assumptions=tuple(_assumptions(ev, ctx, model)),
        model=model,
        finding_item=dict(ev.finding_item),
        finding_class=dict(ev.classes),
    )


def attach(result: ScanResult, assessment: Assessment) -> ScanResult:
    """The scan with its assessment under `extra['assessment']`, so `to_dict` carries both."""
    import dataclasses

    return dataclasses.replace(result, extra={**result.extra, "assessment": assessment.to_dict()})


def _work_signature(verdict: dict) -> tuple:
    """What a kernel needs on one target, without the target: its verdict and the reasons behind it."""
    return verdict["verdict"], tuple(sorted(repr(r) for r in verdict.get("reasons", ())))


def run_assessment(path, opts, chosen, model, progress=None) -> tuple[ScanResult, "Assessment"]:
    """The whole `porter assess` pipeline for a path: scan, kernel analysis for the chosen targets, assessment.
    Returns the scan result (with the assessment attached, as JSON output needs it) and the assessment."""
    from porter.kernels.verdicts import analyse
    from porter.pipeline import scan

    result = analyse(scan(path, opts, progress=progress), [t.id for t in chosen])
    assessment = assess(result, chosen, model)  # with the rule set the scan used
    return attach(result, assessment), assessment
