"""Render an assessment for a terminal with rich: verdict, effort range, blockers, breakdowns, recommendations.

Every figure is in engineer-days except where a column says hours (the --explain table); breakdown rows are
apportioned so they add up to the total above them (porter.render.figures), and every table fits the console's
width (porter.render.layout).
"""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from porter.estimate import Assessment
from porter.estimate.verdict import VERDICT_MEANING
from porter.model import ScanResult
from porter.model.assessment import Range
from porter.model.totals import totals
from porter.render.figures import (narrowed_note, severity_rows, count_rows, counts_of, directory_rows, files_line, others_line, plural, shown_rows,
                                   source_of, unlisted_kernels, worst_first)
from porter.estimate.wording import days_range, days_span, effort_text, num, Points
from porter.render.layout import Col, fit_table
from porter.render.markdown import finding_index, item_locations
from porter.render.safe import literal, literal_name

VERDICT_STYLE = {"ready": "bold green", "mechanical": "bold cyan", "port": "bold yellow", "blocked": "bold white on red"}
KERNEL_STYLE = {"ok": "green", "check": "cyan", "retune": "yellow", "fix": "red", "rewrite": "bold red"}


def _rng(d: Points) -> str:
    return f"{num(d.low)}–{num(d.likely)}–{num(d.high)}"


def verdict_body(result: ScanResult, a: Assessment, top: int = 10) -> Group:
    """The verdict box: the verdict and what it means, the effort once, then what decides it (one hanging-indented
    bullet each). Further lines (an optional-work line, say) go after the effort line."""
    names = ", ".join(t.name for t in a.targets)
    head = Text.assemble((f" {a.verdict.upper()} ", VERDICT_STYLE[a.verdict]), "  ")
    # the port's progress; optional work; feature parity beyond the minimal port; retuning after it
    extras = [literal(x.text) for x in (a.handled, a.optional, a.parity, a.tuning) if x]
    if a.nothing_to_port:
        head.append(literal(a.headline))
        return Group(head, *extras)
    meaning = VERDICT_MEANING[a.verdict]
    head.append(literal(f"{meaning[0].upper()}{meaning[1:]}" + (f" for {names}." if len(a.targets) <= 2 else
                                                                  f" on {len(a.targets)} targets (table below).")))
    lines: list[Any] = [head, Text(f"Effort: {effort_text(_effort(a), a.hours)}"), *extras]
    bullets = Table.grid(padding=(0, 1))
    bullets.add_column(width=1)
    bullets.add_column()
    for r in a.deciding[:top]:
        what = plural(r.count, "kernel") if r.key.startswith("kernels:") else plural(r.count, "finding")
        bullets.add_row("•", Text.assemble(literal(f"{r.title} — {what} in {plural(r.files, 'file')}, e.g. "),
                                           literal_name(", ".join(r.examples[:2]))))
    if len(a.deciding) > top:
        bullets.add_row("•", f"and {len(a.deciding) - top} more of the same level (see below)")
    if a.deciding:
        lines.append(bullets)
    return Group(*lines)


def render(result: ScanResult, a: Assessment, console: Console, explain: bool = False, top: int = 10,
           about: Any = None) -> None:
    width = console.width
    title = Text.assemble(("porter assess ", "bold"), literal_name(result.root, style="bold"), "  ·  ",
                          literal(", ".join(t.name for t in a.targets)))
    console.print(title)
    if about is not None:
        console.print(literal(about.line(), style="dim"))
    console.print(Panel(verdict_body(result, a, top), title="Verdict", title_align="left",
                        border_style=VERDICT_STYLE[a.verdict].split()[-1]))
    if a.nothing_to_port:
        for line in a.assumptions[-3:]:
            console.print(literal(line, style="dim"))
        return
    if len(a.targets) > 1:
        cols = [Col("target", 0, 10, wrap="words"), Col("gfx", 2, 7, wrap="none"), Col("verdict", 0, 10, wrap="none"),
                Col("engineer-days", 0, 14, wrap="none"), Col("decided by", 3, 24)]
        rows = [[literal(tg.name), literal(tg.gfx), Text(tg.verdict, style=VERDICT_STYLE[tg.verdict]),
                 f"{days_span(tg.effort)} (likely {num(tg.effort.likely)})",
                 literal("; ".join(tg.deciding[:2]))] for tg in a.targets]
        console.print(fit_table("Per target", cols, rows, width))
    console.print(_counts_table(a, width))
    console.print(totals_table(result, a, width))
    console.print(_category_table(a, width))
    if len(a.breakdowns.by_directory) > 1:
        console.print(_directory_table(a, width, top))
    if a.breakdowns.by_kernel:
        console.print(_kernel_table(a, width, None if explain else top))
        unlisted = unlisted_kernels(result.kernels, a.breakdowns.by_kernel)
        if unlisted:
            console.print(literal(unlisted))
    libs = a.breakdowns.by_library
    if libs:
        cols = [Col("library", 0, 14, wrap="words"), Col("kind", 0, 12, wrap="none"), Col("ROCm", 1, 14),
                Col("findings", 2, justify="right", wrap="none"), Col("files", 3, justify="right", wrap="none")]
        rows = [[literal_name(lib.name), literal(lib.kind), literal(", ".join(lib.rocm) or "—"),
                 str(lib.findings), str(lib.files)] for lib in libs]
        console.print(fit_table("Libraries", cols, rows, width))
    recs = a.recommendations
    if recs:
        console.print(Text("Recommendations", style="bold"))
        for rec in recs:
            bullet = Table.grid(padding=(0, 1))
            bullet.add_column(width=1)
            bullet.add_column()
            bullet.add_row(Text("•", style="bold"), Text.assemble(literal(rec.title, style="bold"), literal(f" — {rec.text}")))
            console.print(bullet)
            for step in rec.plan:
                console.print(Padding(literal(f"plan: {step.title} — {days_range(step.days)}"), (0, 0, 0, 4)))
            for tid, facts in rec.targets.items():
                for fact in facts:
                    console.print(Padding(literal(f"{tid}: {fact}", style="dim"), (0, 0, 0, 4)))
    if explain:
        _explain(result, a, console)
    else:
        console.print(Text("Run with --explain for every costed item and the findings behind it.", style="dim"))


def _effort(a: Assessment) -> Range:
    """The headline days as every table shows them (Hours.to_dict's rounding)."""
    return Range.of(a.days.to_dict())


def _days_cells(days: Points) -> list[str]:
    return [num(days.low), num(days.likely), num(days.high)]


def _counts_table(a: Assessment, width: int) -> Group:
    """The counts, defined once (porter.estimate.counts), in the order and words of every format."""
    c = counts_of(a)
    cols = [Col("findings", 0, 30, wrap="words"), Col("", 0, justify="right", wrap="none")]
    rows = [[Text(("  " * depth) + label, style="bold" if label == "all findings" else ""), str(value)]
            for label, value, depth in count_rows(c)]
    free = f"; hipify translates {c.free_with_hipify / c.estimated * 100:.0f}% of the open findings in the estimate" \
        if c.estimated else ""
    return Group(fit_table("Counts", cols, rows, width), literal(f"{files_line(c)}; {others_line(c)}{free}"))


def totals_table(result: ScanResult, a: Assessment, width: int) -> Group:
    """The findings shown by port status and severity (porter.model.totals), the table every report prints."""
    t = totals(result)
    sevs, rows = severity_rows(t)
    cols = [Col("status", 0, 12, wrap="none"), *[Col(s, 0, justify="right", wrap="none") for s in sevs],
            Col("total", 0, justify="right", wrap="none")]
    body = [[Text(label, style="bold" if label == "all findings" else ""), *map(str, values), str(total)]
            for label, values, total in rows]
    note = narrowed_note(t, counts_of(a))
    table = fit_table("Findings by status and severity", cols, body, width)
    return Group(table, literal(note)) if note else Group(table)


def _category_table(a: Assessment, width: int) -> Table:
    """Categories in engineer-days: each row's share of the headline range (the model's `share`)."""
    effort = _effort(a)
    shown = shown_rows(a.breakdowns.by_category, effort)
    # 12: the longest category name ("quantization") on one line
    cols = [Col("category", 0, 12, wrap="fold"), Col("findings", 1, justify="right", wrap="none"),
            Col("low", 0, justify="right", wrap="none"), Col("likely", 0, justify="right", wrap="none"),
            Col("high", 0, justify="right", wrap="none")]
    rows = [[literal(r.label), str(source_of(r).findings), *_days_cells(r.days)] for r in shown]
    footer = ["total", str(counts_of(a).estimated), *_days_cells(effort)]
    return fit_table("Effort by category (engineer-days)", cols, rows, width, footer=footer)


def _directory_table(a: Assessment, width: int, top: int) -> Table:
    """The directory tree two levels deep, rolled up; each level adds up to its parent (remainder rows say what
    sits directly in a directory)."""
    shown = directory_rows(a.breakdowns.by_directory, _effort(a), max_depth=2, limit=top)
    cols = [Col("directory", 0, 16, wrap="words"), Col("findings", 1, justify="right", wrap="none"),
            Col("low", 2, justify="right", wrap="none"), Col("likely", 0, justify="right", wrap="none"),
            Col("high", 2, justify="right", wrap="none")]
    rows = []
    for r in shown:
        label = ("  " * r.depth) + (r.label if r.source is None or r.label == "." else r.label.rsplit("/", 1)[-1] + "/")
        style = "dim" if r.source is None else ""
        rows.append([literal_name(label, style=style), str(r.source.findings) if r.source else "" if r.findings is None else str(r.findings), *_days_cells(r.days)])
    return fit_table("Effort by directory (rolled up; engineer-days)", cols, rows, width)


def _kernel_table(a: Assessment, width: int, limit: int | None) -> Table:
    """Kernels with their verdict per target, the worst reason and their days; the days column adds up to its
    total (the kernels beyond `limit` are one remainder row)."""
    kernels = worst_first(a.breakdowns.by_kernel)  # the order every format lists them, with the model's shares
    raw_total = a.breakdowns.totals.kernel_days
    shown = shown_rows(kernels, raw_total, limit, rest_label="{n} more kernels")
    tids = [tg.id for tg in a.targets]
    room = width - 4 - 10 * len(tids) - 21 - 7
    longest = max((len(x) for k in kernels for x in (k.qualified_name, f"{k.path}:{k.line}")), default=8)
    name_w = max(16, min(longest, max(24, room)))
    cols = [Col("kernel", 0, name_w, wrap="fold"), *(Col(t, 0, wrap="none") for t in tids),
            Col("top reason", 1, 18), Col("days", 0, justify="right", wrap="none")]
    rows = []
    for r in shown:
        k = r.source
        if k is None:
            rows.append([Text(r.label, style="dim"), *([""] * len(tids)), "", num(r.days.likely)])
            continue
        name = Text.assemble(literal_name(k.qualified_name), "\n", literal_name(f"{k.path}:{k.line}", style="dim"))
        rows.append([name, *(Text(k.targets[t].verdict, style=KERNEL_STYLE[k.targets[t].verdict]) for t in tids),
                     literal((k.deciding.reasons or ("",))[0]), num(r.days.likely)])
    footer = ["all kernels", *([""] * len(tids)), "", num(raw_total.likely)]
    return fit_table(f"Kernels ({len(kernels)}; engineer-days, likely, each kernel's own estimate)", cols, rows,
                     width, footer=footer)


def _explain(result: ScanResult, a: Assessment, console: Console) -> None:
    index = finding_index(result)
    items = [it for it in a.items if it.hours.high > 0 or it.findings]
    total = a.breakdowns.totals.hours
    shares = a.breakdowns.totals.item_hours
    parts = [shares.get(it.id, Range()) for it in items]
    longest = max((len(loc) for it in items for loc in item_locations(it, index)), default=10)
    # "own": the item's range alone (its basis); "share": its part of the total's P10-likely-P90, apportioned so the
    # column adds up to the total (porter.estimate.shares) - two different numbers, so each is named.
    cols = [Col("item", 0, 24), Col("category", 2, 10, wrap="none"), Col("own h", 2, 14, wrap="none"),
            Col("share h", 0, 14, wrap="none"), Col("basis", 3, 20),
            Col("findings", 1, min(32, max(10, longest)), wrap="fold")]
    rows = []
    for it, h in zip(items, parts):
        locs = item_locations(it, index)
        shown = ", ".join(locs[:4]) + (f" +{len(locs) - 4}" if len(locs) > 4 else "")
        rows.append([literal_name(it.title + (f" ({it.path})" if it.path else "")), literal(it.category),
                     _rng(it.hours), _rng(h), literal(it.basis), literal(shown)])
    footer = ["total", "", "", _rng(total), f"÷ {num(a.model.hours_per_day)} h per engineer-day", ""]
    console.print(fit_table("How the estimate adds up (hours: own range, share of the total)", cols, rows,
                            console.width, footer=footer))
    console.print(f"Total: {_rng(total)} hours = {days_range(_effort(a))}", markup=False)
    console.print(Text("Assumptions", style="bold"))
    for line in a.assumptions:
        console.print(literal(f"• {line}"))
