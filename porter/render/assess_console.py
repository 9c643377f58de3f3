"""Render an assessment for a terminal with rich: verdict, effort range, blockers, breakdowns, recommendations."""
from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from porter.estimate import Assessment
from porter.model import ScanResult
from porter.render.markdown import days_range, finding_index
from porter.render.safe import literal, literal_name

VERDICT_STYLE = {"ready": "bold green", "mechanical": "bold cyan", "port": "bold yellow", "blocked": "bold white on red"}
KERNEL_STYLE = {"ok": "green", "check": "cyan", "retune": "yellow", "fix": "red", "rewrite": "bold red"}


def render(result: ScanResult, a: Assessment, console: Console, explain: bool = False, top: int = 10) -> None:
    d = a.to_dict()
    title = Text.assemble(("porter assess ", "bold"), literal_name(result.root, style="bold"), "  ·  ",
                          literal(", ".join(t["name"] for t in d["targets"])))
    console.print(title)
    body = Text.assemble((f" {a.verdict.upper()} ", VERDICT_STYLE[a.verdict]), "  ", literal(a.headline))
    if not a.nothing_to_port:
        body.append(f"\nEffort: {days_range(d['effort'])}")
    for extra in (d["handled"], d["optional"]):
        if extra:
            body.append(literal("\n" + extra["text"]))
    deciding = a.deciding
    for r in deciding[:top]:
        body.append(literal(f"\n • {r.title} — {r.count} in {r.files} file(s), e.g. ")).append(
            literal_name(", ".join(r.examples[:2])))
    console.print(Panel(body, title="Verdict", title_align="left", border_style=VERDICT_STYLE[a.verdict].split()[-1]))
    if a.nothing_to_port:
        for line in d["assumptions"][-3:]:
            console.print(literal(line, style="dim"))
        return
    if len(d["targets"]) > 1:
        t = Table(title="Per target", title_justify="left")
        for col in ("target", "gfx", "verdict", "engineer-days"):
            t.add_column(col)
        for tg in d["targets"]:
            t.add_row(literal(tg["name"]), literal(tg["gfx"]), Text(tg["verdict"], style=VERDICT_STYLE[tg["verdict"]]), days_range(tg["effort"]))
        console.print(t)
    split = d["breakdowns"]["hipify"]
    console.print(
        f"Free with hipify: {split['free_with_hipify']['findings']} findings on {split['free_with_hipify']['lines']} lines · "
        f"needs an engineer: {split['needs_engineer']['findings']} findings on {split['needs_engineer']['lines']} lines "
        f"({split['free_share'] * 100:.0f}% of findings free; kernel verdicts are counted separately)", markup=False)
    t = Table(title="Effort by category (engineer-days)", title_justify="left")
    for col, just in (("category", "left"), ("findings", "right"), ("low", "right"), ("likely", "right"), ("high", "right")):
        t.add_column(col, justify=just)
    for row in d["breakdowns"]["by_category"]:
        t.add_row(literal(row["category"]), str(row["findings"]), *(f"{row['days'][k]:g}" for k in ("low", "likely", "high")))
    console.print(t)
    dirs = [r for r in d["breakdowns"]["by_directory"] if r["depth"] <= 2]
    if len(dirs) > 1:
        t = Table(title="Effort by directory (rolled up; engineer-days, likely)", title_justify="left")
        t.add_column("directory")
        t.add_column("findings", justify="right")
        t.add_column("likely", justify="right")
        for row in dirs[: top * 2]:
            t.add_row(literal_name("  " * row["depth"] + row["path"]), str(row["findings"]), f"{row['days']['likely']:g}")
        console.print(t)
    kernels = d["breakdowns"]["by_kernel"]
    if kernels:
        tids = [tg["id"] for tg in d["targets"]]
        t = Table(title=f"Kernels ({len(kernels)})", title_justify="left")
        t.add_column("kernel")
        t.add_column("location")
        for tid in tids:
            t.add_column(tid)
        t.add_column("top reason")
        t.add_column("likely h", justify="right")
        rows = sorted(kernels, key=lambda r: (-r["hours"]["likely"], r["path"], r["line"]))
        for k in rows[: None if explain else top]:
            worst = k["targets"][k["worst_target"]]
            t.add_row(literal_name(k["qualified_name"]), literal_name(f"{k['path']}:{k['line']}"),
                      *(Text(k["targets"][tid]["verdict"], style=KERNEL_STYLE[k["targets"][tid]["verdict"]]) for tid in tids),
                      literal((worst["reasons"] or [""])[0][:60]), f"{k['hours']['likely']:g}")
        console.print(t)
    libs = d["breakdowns"]["by_library"]
    if libs:
        t = Table(title="Libraries", title_justify="left")
        for col in ("library", "kind", "ROCm", "findings", "files"):
            t.add_column(col)
        for lib in libs:
            t.add_row(literal_name(lib["name"]), literal(lib["kind"]), literal(", ".join(lib["rocm"]) or "—"), str(lib["findings"]), str(lib["files"]))
        console.print(t)
    recs = d["recommendations"]
    if recs:
        console.print(Text("Recommendations", style="bold"))
        for rec in recs:
            console.print(Text.assemble(("• ", "bold"), literal(rec["title"], style="bold"), literal(f" — {rec['text']}")))
            for step in rec.get("plan", []):
                console.print(literal(f"    plan: {step['title']} ({step['days']['low']:g}–{step['days']['high']:g} "
                                   f"engineer-days, likely {step['days']['likely']:g})"))
            for tid, facts in rec["targets"].items():
                for fact in facts:
                    console.print(literal(f"    {tid}: {fact}", style="dim"))
    if explain:
        _explain(result, a, console)
    else:
        console.print(Text("Run with --explain for every costed item and the findings behind it.", style="dim"))


def _explain(result: ScanResult, a: Assessment, console: Console) -> None:
    d = a.to_dict()
    index = finding_index(result)
    t = Table(title="How the estimate adds up (hours low–likely–high)", title_justify="left", show_lines=False)
    for col in ("item", "category", "hours", "basis", "findings"):
        t.add_column(col, no_wrap=col == "hours")
    for it in d["items"]:
        if it["hours"]["high"] == 0 and not it["findings"]:
            continue
        locs = [f"{index[fp].path}:{index[fp].line}" for fp in it["findings"] if fp in index]
        shown = ", ".join(locs[:4]) + (f" +{len(locs) - 4}" if len(locs) > 4 else "")
        h = it["hours"]
        t.add_row(literal_name(it["title"] + (f" ({it['path']})" if it["path"] else "")), literal(it["category"]),
                  f"{h['low']:g}–{h['likely']:g}–{h['high']:g}", literal(it["basis"]), literal_name(shown))
    console.print(t)
    h = d["effort"]["hours"]
    console.print(f"Total: {h['low']:g}–{h['likely']:g}–{h['high']:g} hours = {days_range(d['effort'])}", markup=False)
    console.print(Text("Assumptions", style="bold"))
    for line in d["assumptions"]:
        console.print(literal(f"• {line}"))
