"""Render an assessment as one self-contained HTML file: inline CSS, inline SVG charts, a small sorting script.

Everything from the scanned repository (paths, snippets, messages) goes through Jinja2 autoescaping, and a
Content-Security-Policy forbids every network load, so a report can be mailed or attached to CI safely. Chart
geometry is computed here and drawn by the template, so the output is byte-identical for the same input.
"""
from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from porter import __version__
from porter.estimate import KERNEL_VERDICTS, VERDICT_MEANING, Assessment
from porter.model import ScanResult
from porter.render.figures import days_range
from porter.render.safe import printable

CHART_WIDTH = 860
LABEL_WIDTH = 170
ROW_HEIGHT = 26
MAX_DIR_ROWS = 14


@functools.lru_cache(maxsize=1)
def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("porter", "render/templates"),
        autoescape=select_autoescape(("html", "j2"), default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # every {{ value }} from the repository shows its control characters as escapes, as in the other formats
        finalize=lambda v: printable(v) if isinstance(v, str) else v,
    )
    env.filters["num"] = lambda x: f"{x:g}"
    env.filters["h1"] = lambda x: f"{round(x, 1):g}"
    env.filters["days"] = days_range
    return env


def _nice_max(value: float) -> float:
    """A round axis maximum at or above value (1, 2, 2.5, 5 × 10^n)."""
    if value <= 0:
        return 1.0
    import math

    exp = 10 ** math.floor(math.log10(value))
    for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= m * exp:
            return m * exp
    return 10 * exp


def range_chart(rows: list[dict[str, Any]], label_key: str, title: str, indent_key: str | None = None) -> dict[str, Any]:
    """Horizontal bars of likely days with a low–high whisker per row; geometry for the template."""
    top = _nice_max(max((r["days"]["high"] for r in rows), default=0))
    plot = CHART_WIDTH - LABEL_WIDTH - 20
    bars = []
    for i, r in enumerate(rows):
        y = 10 + i * ROW_HEIGHT
        scale = plot / top
        indent = (r.get(indent_key, 0) if indent_key else 0)
        label = r[label_key]
        if indent_key:
            label = label.rsplit("/", 1)[-1] + "/" if indent else "(repository)"
        bars.append({
            "label": label, "full": r[label_key], "indent": indent * 10, "y": y,
            "x": LABEL_WIDTH, "w": max(1.0, round(r["days"]["likely"] * scale, 1)) if r["days"]["likely"] else 0,
            "lo": round(LABEL_WIDTH + r["days"]["low"] * scale, 1), "hi": round(LABEL_WIDTH + r["days"]["high"] * scale, 1),
            "days": r["days"], "findings": r.get("findings", 0),
        })
    ticks = [{"x": round(LABEL_WIDTH + plot * f, 1), "label": f"{top * f:g}"} for f in (0, 0.25, 0.5, 0.75, 1)]
    height = 10 + len(rows) * ROW_HEIGHT + 24
    return {"title": title, "bars": bars, "ticks": ticks, "width": CHART_WIDTH, "height": height,
            "axis_y": height - 20, "plot_top": 4}


def verdict_matrix(kernels: list[dict[str, Any]], tids: list[str]) -> dict[str, Any]:
    cell_w, cell_h, label_w = 78, 34, 250
    rows = sorted(kernels, key=lambda k: (-KERNEL_VERDICTS.index(k["worst"]), k["path"], k["line"]))
    cells = []
    for i, k in enumerate(rows):
        for j, tid in enumerate(tids):
            v = k["targets"][tid]
            cells.append({"x": label_w + j * cell_w, "y": 30 + i * cell_h, "verdict": v["verdict"],
                          "tip": f"{k['qualified_name']} on {tid}: {v['verdict']}"
                                 + (f" — {'; '.join(v['reasons'])}" if v["reasons"] else "")})
    labels = [{"y": 30 + i * cell_h + 12, "text": k["qualified_name"], "where": f"{k['path']}:{k['line']}"}
              for i, k in enumerate(rows)]
    heads = [{"x": label_w + j * cell_w + cell_w / 2, "text": tid} for j, tid in enumerate(tids)]
    height = 30 + len(rows) * cell_h + 40
    return {"cells": cells, "labels": labels, "heads": heads, "cell_w": cell_w - 4, "cell_h": cell_h - 4,
            "width": max(label_w + len(tids) * cell_w + 10, label_w + len(KERNEL_VERDICTS) * 86), "height": height,
            "legend_y": 30 + len(rows) * cell_h + 14}


def render(result: ScanResult, a: Assessment, explain: bool = False) -> str:
    d = a.to_dict()
    by = d["breakdowns"]
    index = {f.fingerprint: f for f in result.findings}
    per_file: dict[str, list] = defaultdict(list)
    for f in result.findings:
        per_file[f.path].append({
            "line": f.line, "rule": f.rule, "severity": str(f.severity), "message": printable(f.message), "snippet": printable(f.snippet),
            "klass": a.finding_class.get(f.fingerprint, "not costed"), "item": a.finding_item.get(f.fingerprint, ""),
            "replacement": f.replacement or "",
        })
    files = []
    for row in by["by_file"]:
        files.append({**row, "rows": per_file.get(row["path"], [])})
    dirs = [r for r in by["by_directory"] if r["depth"] <= 3][:MAX_DIR_ROWS]
    tids = [t["id"] for t in d["targets"]]
    items = []
    for it in d["items"]:
        if it["hours"]["high"] == 0:
            continue
        locs = [f"{index[fp].path}:{index[fp].line}" for fp in it["findings"] if fp in index]
        items.append({**it, "locations": locs})
    free_items = [it for it in d["items"] if it["hours"]["high"] == 0]
    ctx = {
        "root": result.root, "version": __version__, "a": d, "verdict": a.verdict,
        "meaning": VERDICT_MEANING[a.verdict], "deciding": [r for r in d["reasons"] if r["decides"]],
        "others": [r for r in d["reasons"] if not r["decides"]],
        "targets": d["targets"], "tids": tids, "split": by["hipify"], "summary": result.summary(),
        "cat_chart": range_chart(by["by_category"], "category", "Effort by category"),
        "dir_chart": range_chart(dirs, "path", "Effort by directory", indent_key="depth") if len(dirs) > 1 else None,
        "matrix": verdict_matrix(by["by_kernel"], tids) if by["by_kernel"] else None,
        "kernels": sorted(by["by_kernel"], key=lambda k: (-KERNEL_VERDICTS.index(k["worst"]), k["path"], k["line"])),
        "libraries": by["by_library"], "recommendations": d["recommendations"], "items": items,
        "free_items": len(free_items), "free_findings": sum(it["count"] for it in free_items),
        "files": files, "assumptions": d["assumptions"], "skipped": [s.to_dict() for s in result.skipped],
        "explain": explain,
    }
    return _env().get_template("assess.html.j2").render(**ctx)
