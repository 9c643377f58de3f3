"""Render a scan for a terminal with rich: totals by category and severity, the top files, kernels, skips.

Tables fit the console's width (porter.render.layout): at 80 columns the less important columns (launch counts,
locations, reasons) go before a kernel's name or its verdict does, and names wrap instead of being cut.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from porter.kernels.verdicts import RANK
from porter.model import ScanResult, Severity, Status
from porter.model.kernel import Kernel, TargetVerdict
from porter.model.totals import Totals
from porter.render.figures import plural
from porter.render.layout import Col, fit_table
from porter.render.safe import literal, literal_name

SEVERITY_STYLE = {
    Severity.INFO: "dim",
    Severity.LOW: "cyan",
    Severity.MEDIUM: "yellow",
    Severity.HIGH: "red",
    Severity.BLOCKER: "bold white on red",
}
STATUS_STYLE = {"open": "", "handled": "green", "cuda-only": "dim"}


def summary_line(result: ScanResult) -> str:
    """The scan's totals in one line, counted once (porter.model.totals) as every format counts them: findings by
    severity, files, kernels, launch sites, suppressed and skipped, then (when some finding is not open) each port
    status with its severities and the files with open findings."""
    from porter.estimate.counts import phrase
    from porter.model.totals import SEVERITIES, totals

    t = totals(result)
    sev = ", ".join(f"{n} {s}" for s in SEVERITIES if (n := t.severity(str(s))))
    # the files, kernels and launch sites counted and worded as every report counts them (porter.estimate.counts:
    # "launch sites", as assess's formats say, not "launches")
    line = (f"{plural(t.findings, 'finding')} ({sev or 'none'}); {phrase('files_scanned', t.files_scanned)}, "
            f"{phrase('files_with_findings', t.files_with_findings)}; "
            f"{plural(t.kernels, 'kernel')}, {plural(t.launches, 'launch site')}; "
            f"{t.suppressed} suppressed; {phrase('skipped', t.skipped)}")
    return line + port_status_note(result, t)


def port_status_note(result: ScanResult, t: Totals | None = None) -> str:
    """"; 7 open (2 high, 5 info), 32 handled (32 low), 10 cuda-only (10 info); 3 files with open findings" when
    port-awareness found ROCm work already done, else nothing (every finding is open: the line's severities and
    files with findings already say it)."""
    from porter.estimate.counts import phrase
    from porter.model.totals import status_phrase, totals

    t = t if t is not None else totals(result)
    if not t.handled and not t.cuda_only:
        return ""
    return f"; {status_phrase(t)}; {phrase('files_with_open_findings', t.files_with_open_findings)}"


def render(result: ScanResult, console: Console, verbose: bool = False, top: int = 10) -> None:
    width = console.width
    console.print(Text.assemble(("porter scan ", "bold"), literal_name(result.root, style="bold")))
    console.print(summary_line(result), markup=False)
    if result.findings:
        console.print(_category_table(result, width))
        console.print(_top_files(result, top, width))
    if verbose and result.findings:
        console.print(_findings_table(result, width))
    if result.kernels:
        console.print(_kernel_table(result, None if verbose else top, width))
    if result.skipped:
        shown = result.skipped[: None if verbose else top]
        rows = [[literal_name(s.path), literal(s.reason)] for s in shown]
        console.print(fit_table(f"Skipped files ({len(result.skipped)})",
                                [Col("path", 0, 16, wrap="fold"), Col("reason", 0, 20)], rows, width))


def _category_table(result: ScanResult, width: int = 120) -> Table:
    counts = Counter((f.category, f.severity) for f in result.findings)
    cats = sorted({c for c, _ in counts})
    sevs = list(reversed(Severity))
    cols = [Col("category", 0, 8, wrap="fold")]
    cols += [Col(str(s), 1, justify="right", wrap="none", style=SEVERITY_STYLE[s]) for s in sevs]
    cols.append(Col("total", 0, justify="right", wrap="none", style="bold"))
    rows = []
    for c in cats:
        row = [counts.get((c, s), 0) for s in sevs]
        rows.append([literal(c), *[str(v) if v else "" for v in row], str(sum(row))])
    per_sev = [sum(counts.get((c, s), 0) for c in cats) for s in sevs]
    footer = ["all", *[str(v) if v else "" for v in per_sev], str(sum(per_sev))]
    return fit_table("Findings by category and severity", cols, rows, width, footer=footer)


def _status_of(items: Iterable[object]) -> bool:
    """Whether a status column says anything (some finding or kernel is not simply open)."""
    return any(str(getattr(x, "status", "open")) != "open" for x in items)


def _status_cell(x: object) -> Text:
    s = str(getattr(x, "status", "open"))
    return Text(s, style=STATUS_STYLE.get(s, ""))


def _top_files(result: ScanResult, top: int, width: int = 120) -> Table:
    per = Counter(f.path for f in result.findings)
    worst: dict[str, Severity] = {}
    for f in result.findings:
        worst[f.path] = max(worst.get(f.path, Severity.INFO), f.severity)
    cols = [Col("file", 0, 20, wrap="fold"), Col("findings", 0, justify="right", wrap="none"), Col("worst", 0, 7, wrap="none")]
    rows = [[literal_name(path), str(n), Text(str(worst[path]), style=SEVERITY_STYLE[worst[path]])]
            for path, n in sorted(per.items(), key=lambda kv: (-worst[kv[0]], -kv[1], kv[0]))[:top]]
    return fit_table(f"Top files (of {len(per)})", cols, rows, width)


def _findings_table(result: ScanResult, width: int = 120) -> Table:
    status = _status_of(result.findings)
    cols = [Col("location", 0, 18, wrap="fold"), Col("rule", 1, 6, wrap="none"), Col("severity", 2, wrap="none"),
            Col("message", 0, 24)]
    if status:
        cols.insert(3, Col("status", 3, 9, wrap="none"))
    rows = []
    for f in result.findings:
        row = [literal_name(f"{f.path}:{f.line}:{f.column}"), literal(f.rule), Text(str(f.severity), style=SEVERITY_STYLE[f.severity])]
        if status:
            row.append(_status_cell(f))
        rows.append([*row, literal(f.message)])
    return fit_table("Findings", cols, rows, width)


VERDICT_STYLE = {"ok": "green", "check": "cyan", "retune": "yellow", "fix": "red", "rewrite": "bold white on red"}


def verdict_summary(per: dict[str, TargetVerdict], target_ids: list[str]) -> Text:
    """Every target's verdict in one cell, worst first, targets with the same verdict together: 'fix mi300x · ok
    mi355x'; one word when all agree."""
    groups: dict[str, list[str]] = {}
    for tid in target_ids:
        if tid in per:
            groups.setdefault(per[tid].verdict, []).append(tid)
    out = Text()
    for i, (v, tids) in enumerate(sorted(groups.items(), key=lambda kv: -RANK[kv[0]])):
        if i:
            out.append(" · ")
        out.append(v, style=VERDICT_STYLE.get(v, ""))
        if len(groups) > 1:
            out.append(" " + ", ".join(tids))
    return out


def _kernel_table(result: ScanResult, limit: int | None, width: int = 120) -> Table:
    """Kernels with their verdict per target and the reason behind the worst one (kernel analysis, when it ran).
    One column per target while they fit; otherwise one verdict column naming the targets."""
    target_ids = [t for t in result.targets if any(k.verdict_on(t) for k in result.kernels)]
    status = _status_of(result.kernels)
    # Cut to `limit`, the kernels that need the most open work come first (worst verdict on any target, open before
    # handled, then in file order): the first ten of 77 in file order were all ok while 17 needed a fix.
    shown: Sequence[Kernel] = result.kernels[:limit]
    if limit is not None and len(result.kernels) > limit:
        def need(k: Kernel) -> tuple[int, int]:
            worst = max((RANK[v.verdict] for v in k.verdicts or () if v.target in target_ids), default=0)
            return (-worst if k.status is Status.OPEN else 0, 0 if k.status is Status.OPEN else 1)
        shown = sorted(result.kernels, key=need)[:limit]  # a stable sort: file order within each rank
    reasons = {id(k): _top_reason({v.target: v for v in k.verdicts or ()}, target_ids) for k in shown}
    # the name column as wide as the longest name and location, leaving the reason 18 columns when some kernel
    # has one; one column per target while that leaves the name 24, else one verdict cell naming the targets
    reason_w = 27 if any(reasons.values()) else 1
    want = max(max((len(x) for k in shown for x in (k.qualified_name, f"{k.path}:{k.line}")), default=8), 16)
    split_room = width - 4 - 10 * len(target_ids) - reason_w
    split = split_room >= min(want, 24)
    name_w = min(want, split_room) if split else max(16, min(want, width - 4 - 23 - reason_w))
    head = [Col("kernel", 0, name_w, wrap="fold")]
    per_target = [Col(tid, 0, wrap="none") for tid in target_ids]  # as wide as the id or its widest verdict
    tail = [Col("launches", 2, justify="right", wrap="none")]
    if status:
        tail.append(Col("status", 3, 9, wrap="none"))
    if target_ids and any(reasons.values()):
        tail.append(Col("top reason", 1, 18))
    verdict_cols = per_target if split else ([Col("verdict", 0, 20, wrap="fold")] if target_ids else [])
    cols = head + verdict_cols + tail
    rows = []
    for k in shown:
        per = {v.target: v for v in k.verdicts or ()}
        if split:
            cells = [Text(per[tid].verdict, style=VERDICT_STYLE.get(per[tid].verdict, "")) if tid in per else Text("")
                     for tid in target_ids]
        else:
            cells = [verdict_summary(per, target_ids)] if target_ids else []
        name = Text.assemble(literal_name(k.qualified_name), "\n", literal_name(f"{k.path}:{k.line}", style="dim"))
        row = [name, *cells, str(len(result.launches_of(k)))]
        if status:
            row.append(_status_cell(k))
        if target_ids and any(reasons.values()):
            row.append(literal(reasons[id(k)]))
        rows.append(row)
    more = len(result.kernels) - len(rows)
    title = f"Kernels ({len(result.kernels)}" + (f"; the {len(rows)} needing most work, -v for all" if more > 0 else "") + ")"
    return fit_table(title, cols, rows, width)


def _top_reason(per: dict[str, TargetVerdict], target_ids: list[str]) -> str:
    """The worst finding across targets, naming the targets it holds on when it does not hold on all of them."""
    best = None
    for tid in target_ids:
        for d in per[tid].details[:1] if tid in per else ():
            if best is None or RANK[d.verdict] > RANK[best.verdict]:
                best = d
    if best is None:
        return ""
    where = [tid for tid in target_ids if tid in per and best.id in per[tid].reasons]
    scope = "" if len(where) == len(target_ids) else f" [{', '.join(where)}]"
    return f"{best.id}: {best.message}{scope}"
