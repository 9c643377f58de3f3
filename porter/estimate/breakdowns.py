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


def _by_category(inputs: Inputs, scope: Scope, costing: Costing) -> list[dict[str, Any]]:
    hours: dict[str, Hours] = defaultdict(Hours)
    counts: dict[str, int] = defaultdict(int)
    for it in costing.items:
        hours[it.category] = hours[it.category] + it.hours
    for f in scope.findings:
        counts[f.category] += 1
    cats = sorted(set(hours) | set(counts), key=lambda c: (-hours[c].likely, c))
    return [{"category": c, "findings": counts[c], "hours": hours[c].to_dict(),
             "days": inputs.model.days_to_tenth(hours[c])} for c in cats]


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
