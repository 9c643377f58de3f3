"""Render a scan for a terminal with rich: totals by category and severity, the top files, kernels, skips."""
from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table
from rich.text import Text

from porter.kernels.verdicts import RANK
from porter.model import ScanResult, Severity, Status
from porter.model.kernel import TargetVerdict
from porter.render.safe import literal, literal_name

SEVERITY_STYLE = {
    Severity.INFO: "dim",
    Severity.LOW: "cyan",
    Severity.MEDIUM: "yellow",
    Severity.HIGH: "red",
    Severity.BLOCKER: "bold white on red",
}


def summary_line(result: ScanResult) -> str:
    s = result.summary()
    sev = ", ".join(f"{v} {k}" for k, v in reversed(list(s["by_severity"].items())) if v)
    files = sum(1 for f in result.files if f.skipped is None)
    line = (f"{s['findings']} findings ({sev or 'none'}) in {files} files; "
            f"{s['kernels']} kernels, {s['launches']} launches; "
            f"{s['suppressed']} suppressed; {len(result.skipped)} skipped")
    return line + port_status_note(result)


def port_status_note(result: ScanResult) -> str:
    """"; 7 open, 32 handled, 10 cuda-only" when port-awareness found ROCm work already done, else nothing."""
    counts = {st: sum(1 for f in result.findings if f.status is st) for st in Status}
    if not counts[Status.HANDLED] and not counts[Status.CUDA_ONLY]:
        return ""
    return "; " + ", ".join(f"{n} {st}" for st, n in counts.items())


def render(result: ScanResult, console: Console, verbose: bool = False, top: int = 10) -> None:
    console.print(Text.assemble(("porter scan ", "bold"), literal_name(result.root, style="bold")))
    console.print(summary_line(result), markup=False)
    if result.findings:
        console.print(_category_table(result))
        console.print(_top_files(result, top))
    if verbose and result.findings:
        console.print(_findings_table(result))
    if result.kernels:
        console.print(_kernel_table(result, None if verbose else top))
    if result.skipped:
        t = Table(title=f"Skipped files ({len(result.skipped)})", title_justify="left")
        t.add_column("path")
        t.add_column("reason")
        for s in result.skipped[: None if verbose else top]:
            t.add_row(literal_name(s.path), literal(s.reason))
        console.print(t)


def _category_table(result: ScanResult) -> Table:
    counts = Counter((f.category, f.severity) for f in result.findings)
    cats = sorted({c for c, _ in counts})
    t = Table(title="Findings by category and severity", title_justify="left")
    t.add_column("category")
    for s in reversed(Severity):
        t.add_column(str(s), justify="right", style=SEVERITY_STYLE[s])
    t.add_column("total", justify="right", style="bold")
    for c in cats:
        row = [counts.get((c, s), 0) for s in reversed(Severity)]
        t.add_row(literal(c), *[str(v) if v else "" for v in row], str(sum(row)))
    return t


def _top_files(result: ScanResult, top: int) -> Table:
    per = Counter(f.path for f in result.findings)
    worst: dict[str, Severity] = {}
    for f in result.findings:
        worst[f.path] = max(worst.get(f.path, Severity.INFO), f.severity)
    t = Table(title=f"Top files (of {len(per)})", title_justify="left")
    t.add_column("file")
    t.add_column("findings", justify="right")
    t.add_column("worst")
    for path, n in sorted(per.items(), key=lambda kv: (-worst[kv[0]], -kv[1], kv[0]))[:top]:
        t.add_row(literal_name(path), str(n), Text(str(worst[path]), style=SEVERITY_STYLE[worst[path]]))
    return t


def _findings_table(result: ScanResult) -> Table:
    t = Table(title="Findings", title_justify="left")
    tagged = any(f.status is not Status.OPEN for f in result.findings)
    for col in ("location", "rule", "severity", *(("status",) if tagged else ()), "message"):
        t.add_column(col)
    for f in result.findings:
        status = (Text(str(f.status), style="" if f.status is Status.OPEN else "dim"),) if tagged else ()
        t.add_row(literal_name(f"{f.path}:{f.line}:{f.column}"), literal(f.rule), Text(str(f.severity), style=SEVERITY_STYLE[f.severity]),
                  *status, literal(f.message))
    return t


VERDICT_STYLE = {"ok": "green", "check": "cyan", "retune": "yellow", "fix": "red", "rewrite": "bold white on red"}


def _kernel_table(result: ScanResult, limit: int | None) -> Table:
    """Kernels with their verdict per target and the reason behind the worst one (kernel analysis, when it ran)."""
    target_ids = [t for t in result.targets if any(k.verdict_on(t) for k in result.kernels)]
    t = Table(title=f"Kernels ({len(result.kernels)})", title_justify="left")
    t.add_column("kernel", no_wrap=True)
    t.add_column("location", no_wrap=True)
    t.add_column("launches", justify="right", no_wrap=True)
    tagged = any(k.status is not Status.OPEN for k in result.kernels)
    if tagged:
        t.add_column("status", no_wrap=True)
    for tid in target_ids:
        t.add_column(tid, no_wrap=True, min_width=7)
    if target_ids:
        t.add_column("top reason", no_wrap=True, overflow="ellipsis", max_width=70)
    for k in result.kernels[:limit]:
        per = {v.target: v for v in k.verdicts or ()}
        cells = [Text(per[tid].verdict, style=VERDICT_STYLE.get(per[tid].verdict, "")) if tid in per else Text("")
                 for tid in target_ids]
        row = [literal_name(k.qualified_name), literal_name(f"{k.path}:{k.line}"), str(len(result.launches_of(k))),
               *((Text(str(k.status)),) if tagged else ()), *cells]
        if target_ids:
            row.append(literal(_top_reason(per, target_ids)))
        t.add_row(*row)
    return t


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
