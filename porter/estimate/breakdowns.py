"""Break the costed work down for a reader: by category, directory, kernel, library and file, and the hipify split.

Plain JSON-ready rows; each carries its hours and days, so a report can show where the estimate comes from.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import Any

from porter.estimate.cost import Costing, Item, KernelCost
from porter.estimate.effort_model import Hours
from porter.estimate.inputs import CLASSES, Inputs, Scope
from porter.estimate.kernel_verdicts import read_kernel
from porter.estimate.ranges import percentiles, spread
from porter.model import Finding, Severity

_LIBRARY_KIND_ORDER = ["none", "early-access", "port", "drop-in"]  # the hardest to replace first


def breakdowns(inputs: Inputs, scope: Scope, costing: Costing, targets=None) -> dict[str, Any]:
    """The rows for `scope` as `costing` costed it; kernel rows show the verdicts on every one of `targets` (default:
    the scope's), also when the headline costs one chip of several."""
    return {
        "by_category": _by_category(inputs, scope, costing),
        "by_directory": _by_directory(inputs, scope, costing),
        "by_kernel": [_kernel_row(inputs, kc, targets or scope.targets) for kc in costing.kernels],
        "by_library": _by_library(inputs, scope, costing),
        "by_file": _by_file(inputs, scope, costing),
        "hipify": _split(scope),
    }


def _share(items: tuple[Item, ...]) -> dict[str, Hours]:
    """Each finding's share of its item's hours (items split evenly over their findings)."""
    out: dict[str, Hours] = {}
    for it in items:
        if it.findings:
            part = it.hours.scale(1 / len(it.findings))
            for fp in it.findings:
                out[fp] = part
    return out


SHARE_STEP = 0.1  # days: breakdown shares are given to a tenth of a day


def apportion(weights: list[float], total: float, step: float = SHARE_STEP) -> list[float]:
    """`total` split in proportion to `weights`, each part a multiple of `step`, the parts summing exactly to
    `total` (largest remainder; ties to the earlier row). Rounded once, here."""
    units = round(total / step)
    w = sum(weights)
    if units <= 0 or w <= 0:
        return [0.0] * len(weights)
    exact = [units * x / w for x in weights]
    base = [int(e) for e in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - base[i]), i))
    for i in order[: units - sum(base)]:
        base[i] += 1
    return [round(b * step, 1) for b in base]


def _by_category(inputs: Inputs, scope: Scope, costing: Costing) -> list[dict[str, Any]]:
    """Per category: `share_days`, its part of the headline (the headline's P10, likely and P90 days split by the
    categories' PERT means: the rows sum exactly to the headline), and `standalone_days`, the category's own
    P10–likely–P90 were it the whole port (these do not add up: ranges of independent items never do). `hours` and
    `days` are the plain sums of the items' low, likely and high."""
    model = inputs.model
    hours: dict[str, Hours] = defaultdict(Hours)
    items: dict[str, list[Item]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for it in costing.items:
        hours[it.category] = hours[it.category] + it.hours
        items[it.category].append(it)
    for f in scope.findings:
        counts[f.category] += 1
    cats = sorted(set(hours) | set(counts), key=lambda c: (-hours[c].likely, c))
    head = model.days(costing.hours)
    means = [spread(it.hours for it in items[c]).mean for c in cats]
    parts = {p: apportion(means, getattr(head, p)) for p in ("low", "likely", "high")}
    out = []
    for n, c in enumerate(cats):
        alone = percentiles(spread(it.hours for it in items[c]))
        out.append({"category": c, "findings": counts[c], "hours": hours[c].to_dict(),
                    "days": model.days_to_tenth(hours[c]),
                    "share_days": {p: parts[p][n] for p in ("low", "likely", "high")},
                    "standalone_hours": alone.to_dict(), "standalone_days": model.days_to_tenth(alone)})
    return out


def _by_directory(inputs: Inputs, scope: Scope, costing: Costing) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    findings: dict[str, int] = defaultdict(int)
    files: dict[str, set[str]] = defaultdict(set)

    def dirs(path: str | None) -> list[str]:
        if path is None:
            return ["."]
        parts = PurePosixPath(path).parts[:-1]
        return ["."] + ["/".join(parts[: i + 1]) for i in range(len(parts))]

    for it in costing.items:
        for d in dirs(it.path):
            hours[d] = hours[d] + it.hours
    for f in scope.findings:
        for d in dirs(f.path):
            findings[d] += 1
            files[d].add(f.path)
    out = []
    for d in sorted(set(hours) | set(findings), key=lambda d: (d != ".", d)):
        out.append({"path": d, "depth": 0 if d == "." else d.count("/") + 1, "findings": findings[d],
                    "files": len(files[d]), "hours": hours[d].to_dict(), "days": inputs.model.days_to_tenth(hours[d])})
    return out


def _kernel_row(inputs: Inputs, kc: KernelCost, targets) -> dict[str, Any]:
    k = kc.kernel
    verdicts = read_kernel(k, targets, inputs.model.kernels["unanalysed"], inputs.model.matrix_ptx_families)
    return {
        "name": k.name, "qualified_name": k.qualified_name, "path": k.path, "line": k.line, "end_line": k.end_line,
        "lines": kc.lines, "is_template": k.is_template, "launches": len(inputs.result.launches_of(k)),
        "targets": {tid: {"verdict": v.verdict, "reasons": list(v.reasons), "ids": list(v.ids), "analysed": v.analysed}
                    for tid, v in verdicts.targets.items()},
        "worst": kc.worst, "worst_target": kc.worst_target, "item": kc.item,
        "hours": kc.hours.to_dict(), "days": inputs.model.days_to_tenth(kc.hours),
        "findings": kc.findings,
    }


def _by_file(inputs: Inputs, scope: Scope, costing: Costing) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    for it in costing.items:
        if it.path is not None:
            hours[it.path] = hours[it.path] + it.hours
    per: dict[str, list[Finding]] = defaultdict(list)
    for f in scope.findings:
        per[f.path].append(f)
    lines = {fr.path: fr.lines for fr in inputs.result.files}
    out = []
    for path in sorted(set(per) | set(hours)):
        fs = per.get(path, [])
        worst = max((f.severity for f in fs), default=Severity.INFO)
        out.append({
            "path": path, "lines": lines.get(path, 0), "findings": len(fs), "worst": str(worst),
            "free_with_hipify": sum(1 for f in fs if scope.classes[f.fingerprint] == "free_with_hipify"),
            "needs_engineer": sum(1 for f in fs if scope.classes[f.fingerprint] == "needs_engineer"),
            "kernels": len(inputs.kernels_by_path.get(path, ())),
            "hours": hours[path].to_dict(), "days": inputs.model.days_to_tenth(hours[path]),
        })
    return out


def _by_library(inputs: Inputs, scope: Scope, costing: Costing) -> list[dict[str, Any]]:
    share = _share(costing.items)
    per: dict[str, list[Finding]] = defaultdict(list)
    for f in scope.findings:
        lib = inputs.library(f)
        if lib is not None:
            per[lib.id].append(f)
    out = []
    order = list(inputs.libraries)
    for lid in sorted(per, key=lambda i: (_LIBRARY_KIND_ORDER.index(inputs.libraries[i].kind), order.index(i))):
        lib = inputs.libraries[lid]
        fs = per[lid]
        hours = Hours()
        for f in fs:
            hours = hours + share.get(f.fingerprint, Hours())
        items = sorted({costing.finding_item[f.fingerprint] for f in fs if f.fingerprint in costing.finding_item})
        out.append({
            "id": lib.id, "name": lib.name, "kind": lib.kind, "rocm": list(lib.rocm), "note": lib.note,
            "findings": len(fs), "files": len({f.path for f in fs}), "hours": hours.to_dict(),
            "days": inputs.model.days_to_tenth(hours), "items": items,
        })
    return out


def _split(scope: Scope) -> dict[str, Any]:
    """How many findings hipify handles, an engineer must, or only inform, by findings, lines and files."""
    out: dict[str, Any] = {}
    for c in CLASSES:
        fs = [f for f in scope.findings if scope.classes[f.fingerprint] == c]
        out[c] = {"findings": len(fs), "lines": len({(f.path, f.line) for f in fs}), "files": len({f.path for f in fs})}
    total = sum(v["findings"] for v in out.values())
    out["free_share"] = round(out["free_with_hipify"]["findings"] / total, 3) if total else 0.0
    return out
