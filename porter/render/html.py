"""Render an assessment as one self-contained HTML file: inline CSS, inline SVG charts, a small script.

Everything from the scanned repository (paths, snippets, messages) goes through Jinja2 autoescaping, and a
Content-Security-Policy forbids every network load, so a report can be mailed or attached to CI safely. Chart
geometry is computed here and drawn by the template, so the output is byte-identical for the same input.

The page stays small on big repositories (flash-attention's 2,000 findings in 600 files): the verdict, effort
and counts fill the first screen; charts and tables are bounded (the worst kernels, the largest items, one
collapsed group per top-level directory); and each file's findings are not HTML at all but rows of one inline
JSON block (`<pre id="porter-data" hidden>`, text-escaped), built into the page by the script only when a reader
opens that file. Figures follow porter.render.figures: breakdowns add up to the totals shown above them.
"""
from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from porter.estimate import KERNEL_VERDICTS, VERDICT_MEANING, Assessment
from porter.model import ScanResult
from porter.model.assessment import FileRow, KernelRow, Range
from porter.model.totals import totals
from porter.render.figures import (KERNEL_DAYS_NOTE, narrowed_note, severity_rows, worst_first, count_rows, counts_of, directory_rows, files_line, others_line, plural, Row,
                                   shown_rows, source_of, unlisted_kernels)
from porter.estimate.wording import days_range, days_span, num, reads_zero
from porter.render.markdown import item_locations
from porter.render.safe import printable

CHART_WIDTH = 880  # two charts side by side on a 1920-px screen (the page is at most 1880 px wide)
LABEL_WIDTH = 190
ROW_HEIGHT = 26
MAX_DIR_ROWS = 14
MAX_MATRIX_KERNELS = 30  # the worst kernels in the verdict grid; the table below lists them all
MAX_KERNEL_ROWS = 40
MAX_ITEM_ROWS = 30  # the largest costed items as HTML; the rest are drawn from the inline data on request
SNIPPET_CHARS = 240
SEVERITY_ORDER = {"info": 0, "low": 1, "medium": 2, "high": 3, "blocker": 4}


@functools.lru_cache(maxsize=1)
def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("porter", "render/templates"),
        autoescape=select_autoescape(("html", "j2"), default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # every {{ value }} from the repository shows its control characters as escapes, as in the other formats
        finalize=lambda v: printable(v) if isinstance(v, str) and not isinstance(v, Markup) else v,
    )
    env.filters["num"] = num
    env.filters["days"] = days_range
    env.filters["span"] = days_span
    env.filters["plural"] = plural
    return env


def _nice_max(value: float) -> float:
    """A round axis maximum at or above value: four to six ticks of 1, 2, 2.5 or 5 × 10^n."""
    if value <= 0:
        return 1.0
    for exp in range(math.floor(math.log10(value)) - 1, math.floor(math.log10(value)) + 2):
        for m in (1, 2, 2.5, 5):
            step: float = m * 10 ** exp
            if math.ceil(value / step - 1e-9) <= 5:
                return step * max(4, math.ceil(value / step - 1e-9))
    return value


def _is_nice(step: float) -> bool:
    """1, 2, 2.5 or 5 × 10^n."""
    if step <= 0:
        return False
    mant = step / 10 ** math.floor(math.log10(step))
    return any(abs(mant - m) < 1e-9 for m in (1, 2, 2.5, 5))


@dataclass(frozen=True)
class ChartRow:
    """One bar of a range chart: its label (and the full one for the tooltip), the days it shows, its indent
    level and findings (None: a remainder row, which has no findings of its own)."""

    label: str
    full: str
    days: Range
    findings: int | None
    indent: int = 0


@dataclass(frozen=True)
class ItemRow:
    """A costed item as the page lists it: the item's fields, its share of the total hours, its locations."""

    id: str
    title: str
    path: str | None
    category: str
    count: int
    basis: str
    shown: Range  # its share of the total (P10-likely-P90), apportioned so the column adds up
    locations: list[str]
    own: Range = Range()  # its own range, as its basis works it out (the JSON report's items[].hours)


@dataclass(frozen=True)
class FileGroup:
    """The files under one top-level directory, with their findings, likely hours and worst severity."""

    name: str
    files: list[FileRow]
    findings: int
    hours: float
    worst: str


def range_chart(rows: list[ChartRow], title: str) -> dict[str, Any]:
    """Horizontal bars of likely days with a low–high whisker per row. Geometry for the template."""
    top = _nice_max(max((r.days.high for r in rows), default=0))
    plot = CHART_WIDTH - LABEL_WIDTH - 20
    scale = plot / top
    bars = []
    for i, r in enumerate(rows):
        y = 10 + i * ROW_HEIGHT
        bars.append({
            "label": r.label, "full": r.full, "indent": r.indent * 10, "y": y, "x": LABEL_WIDTH,
            "w": max(1.0, round(r.days.likely * scale, 1)) if r.days.likely else 0,
            "lo": round(LABEL_WIDTH + r.days.low * scale, 1), "hi": round(LABEL_WIDTH + r.days.high * scale, 1),
            "days": r.days, "findings": r.findings,
        })
    n = 5 if _is_nice(top / 5) and not _is_nice(top / 4) else 4
    ticks = [{"x": round(LABEL_WIDTH + plot * i / n, 1), "label": f"{round(top * i / n, 10):g}"} for i in range(n + 1)]
    height = 10 + len(rows) * ROW_HEIGHT + 24
    return {"title": title, "bars": bars, "ticks": ticks, "width": CHART_WIDTH, "height": height,
            "axis_y": height - 20, "plot_top": 4}


def _short(text: str, chars: int) -> str:
    """A label that fits `chars` characters, cut in the middle (the full text is in the element's tooltip)."""
    return text if len(text) <= chars else text[: chars // 2 - 1] + "…" + text[-(chars - chars // 2):]


def verdict_matrix(kernels: list[KernelRow], tids: list[str]) -> dict[str, Any]:
    """The verdict grid of the worst kernels: a label column wide enough for names and locations (cut in the
    middle beyond 56 characters, whole in the tooltip), then one cell per target."""
    cell_w, cell_h = 78, 34
    rows = kernels[:MAX_MATRIX_KERNELS]
    longest = max((len(x) for k in rows for x in (k.qualified_name, f"{k.path}:{k.line}")), default=10)
    chars = min(longest, 56)
    label_w = max(160, int(chars * 7.2) + 16)
    cells = []
    for i, k in enumerate(rows):
        for j, tid in enumerate(tids):
            v = k.targets[tid]
            cells.append({"x": label_w + j * cell_w, "y": 30 + i * cell_h, "verdict": v.verdict,
                          "tip": f"{k.qualified_name} on {tid}: {v.verdict}"
                                 + (f" — {'; '.join(v.reasons)}" if v.reasons else "")})
    labels = [{"y": 30 + i * cell_h + 12, "text": _short(k.qualified_name, chars),
               "where": _short(f"{k.path}:{k.line}", chars), "full": f"{k.qualified_name} — {k.path}:{k.line}"}
              for i, k in enumerate(rows)]
    heads = [{"x": label_w + j * cell_w + cell_w / 2, "text": tid} for j, tid in enumerate(tids)]
    counts = {v: sum(1 for k in kernels if k.worst == v) for v in KERNEL_VERDICTS}
    legend = [{"verdict": v, "n": counts[v], "x": 4 + i * 96} for i, v in enumerate(KERNEL_VERDICTS)]
    height = 30 + len(rows) * cell_h + 40
    return {"cells": cells, "labels": labels, "heads": heads, "cell_w": cell_w - 4, "cell_h": cell_h - 4,
            "width": max(label_w + len(tids) * cell_w + 10, len(KERNEL_VERDICTS) * 96 + 10), "height": height,
            "legend_y": 30 + len(rows) * cell_h + 14, "legend": legend, "shown": len(rows), "total": len(kernels)}


def _text_escape(s: str) -> Markup:
    """JSON as element text: only &, < and > need escaping there (quotes stay one byte each)."""
    return Markup(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def page_data(result: ScanResult, a: Assessment, items: list[ItemRow]) -> str:
    """The inline data the script draws from: per file, its findings as compact rows with shared strings
    (messages, rules, item titles) stored once; and the costed items beyond the first MAX_ITEM_ROWS."""
    strings: dict[str, int] = {}

    def s(x: str) -> int:
        return strings.setdefault(x, len(strings))

    titles = {it.id: it.title + (f" ({it.path})" if it.path else "") for it in a.items}
    files: dict[str, list[list[Any]]] = defaultdict(list)
    for f in sorted(result.findings, key=lambda f: (f.path, f.line, f.column, f.rule)):
        snippet = printable(f.snippet)
        snippet = snippet if len(snippet) <= SNIPPET_CHARS else snippet[:SNIPPET_CHARS] + "…"
        files[printable(f.path)].append([f.line, s(f.rule), SEVERITY_ORDER[str(f.severity)], s(printable(f.message)), snippet,
                              s(a.finding_class.get(f.fingerprint, "not costed").replace("_", " ")),
                              s(titles.get(a.finding_item.get(f.fingerprint, ""), "")), s(str(f.status))])
    more = [[printable(it.title + (f" ({it.path})" if it.path else "")), it.category, it.count,
             num(it.shown.low), num(it.shown.likely), num(it.shown.high), printable(it.basis),
             printable(", ".join(it.locations[:3]) + (f" +{len(it.locations) - 3}" if len(it.locations) > 3 else ""))]
            for it in items[MAX_ITEM_ROWS:]]
    data = {"strings": list(strings), "severities": list(SEVERITY_ORDER), "files": files, "items": more}
    return json.dumps(_visible(data), ensure_ascii=False, separators=(",", ":"))


def _visible(value: Any) -> Any:
    """Every string of the inline data with its control, bidi and zero-width characters shown as escapes (the one
    pass for all of it: item titles carry paths too). It must happen before json.dumps: JSON would decode an escape
    written into its text back to the character."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(k): _visible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_visible(v) for v in value]
    return value


def _file_groups(by_file: Sequence[FileRow]) -> list[FileGroup]:
    """Files grouped by top-level directory (root files together), each group with its rolled-up figures;
    the groups with the most work first."""
    groups: dict[str, list[FileRow]] = defaultdict(list)
    for f in by_file:
        groups[f.path.split("/", 1)[0] + "/" if "/" in f.path else ""].append(f)
    out = []
    for key, files in groups.items():
        hours = sum(f.hours.likely for f in files)
        out.append(FileGroup(key or "(top-level files)", sorted(files, key=lambda r: (-r.hours.likely, r.path)),
                             sum(f.findings for f in files), hours,
                             max((f.worst for f in files), key=lambda w: SEVERITY_ORDER[w])))
    return sorted(out, key=lambda g: (-g.hours, g.name))


def render(result: ScanResult, a: Assessment, explain: bool = False, about: Any = None) -> str:
    if about is None:
        from porter.render.about import about as about_of

        about = about_of(result.root, use_git=False)
    by = a.breakdowns
    index = {f.fingerprint: f for f in result.findings}
    tids = [t.id for t in a.targets]
    effort = Range.of(a.days.to_dict())
    cats = shown_rows(by.by_category, effort)
    cat_rows = [ChartRow(r.label, r.label, r.days, source_of(r).findings) for r in cats]
    dir_rows = [ChartRow(("(repository)" if r.label == "." else r.label.rsplit("/", 1)[-1] + "/") if r.source else r.label,
                         r.label, r.days, r.source.findings if r.source else r.findings, r.depth)
                for r in directory_rows(by.by_directory, effort, max_depth=2, limit=6)][:MAX_DIR_ROWS]
    kernels = worst_first(by.by_kernel)
    ktotal = by.totals.kernel_days
    kshown: list[Row[KernelRow]] = shown_rows(kernels, ktotal, MAX_KERNEL_ROWS, rest_label="{n} more kernels")
    hours_total = by.totals.hours
    shares = by.totals.item_hours
    items = [ItemRow(it.id, it.title, it.path, it.category, it.count, it.basis, shares[it.id], item_locations(it, index),
                     Range(it.hours.low, it.hours.likely, it.hours.high))
             for it in a.items if it.hours.high > 0]
    free_items = [it for it in a.items if it.hours.high == 0]
    libraries = by.by_library
    c = counts_of(a)
    shown_totals = totals(result)
    ctx = {
        "root": result.root, "about": about, "version": about.version, "a": a, "effort": effort, "verdict": a.verdict,
        "kernel_days_note": KERNEL_DAYS_NOTE,
        "reads_zero": reads_zero(effort, a.hours),  # the big figure in hours, as wording.effort_text writes it
        "meaning": VERDICT_MEANING[a.verdict], "deciding": a.deciding,
        "others": [r for r in a.reasons if r.level != a.verdict],
        "targets": list(a.targets), "tids": tids, "counts": c, "count_rows": count_rows(c),
        "files_line": files_line(c), "others_line": others_line(c), "severity_table": severity_rows(shown_totals),
        "narrowed": narrowed_note(shown_totals, c),
        "free_share": round(100 * c.free_with_hipify / c.estimated) if c.estimated else None,
        "cat_chart": range_chart(cat_rows, "Effort by category"),
        "dir_chart": range_chart(dir_rows, "Effort by directory") if len(by.by_directory) > 1 else None,
        "matrix": verdict_matrix(kernels, tids) if kernels else None,
        "kernels": kshown, "kernel_total": ktotal, "kernels_unlisted": unlisted_kernels(result.kernels, by.by_kernel),
        "libraries": libraries, "recommendations": list(a.recommendations),
        "items": items[:MAX_ITEM_ROWS], "more_items": max(0, len(items) - MAX_ITEM_ROWS), "hours_total": hours_total,
        "free_items": len(free_items), "free_findings": sum(it.count for it in free_items),
        "groups": _file_groups(by.by_file), "files_total": len(by.by_file),
        "assumptions": list(a.assumptions), "skipped": list(result.skipped),
        "explain": explain, "data": _text_escape(page_data(result, a, items)),
    }
    return _env().get_template("assess.html.j2").render(**ctx)
