"""The history as Markdown: the headline, a sparkline of the open work, the projection, movers and a compact table."""
from __future__ import annotations

from porter.history.text import (change_text, days, headline, omitted, projection_text, signed, table_points,
                                 trend_line)
from porter.model.history import HistoryReport
from porter.render.safe import md_code, md_text


def render(doc: HistoryReport) -> str:
    from porter.history.report import about_line, heading

    out = [f"# {md_text(heading(doc))}", "", md_text(about_line(doc)), "", headline(doc), ""]
    if doc.points:
        out += [f"Open likely engineer-days: {md_code(trend_line(doc))}", "", projection_text(doc), ""]
    mv = doc.movers
    for title, rows in (("Reduced the open work the most (engineer-days)", mv.reduced),
                        ("Reduced the open findings the most", mv.reduced_open),
                        ("Added the most open work (engineer-days)", mv.added), ("Added the most open findings", mv.added_open)):
        if rows:
            out += [f"## {title}", "", "| commit | date | author | subject | likely days | open findings |",
                    "|---|---|---|---|---:|---:|"]
            out += [f"| {md_code(m.commit[:12])} | {m.date[:10]} | {md_text(m.author)} | "
                    f"{md_text(m.subject)} | {signed(m.effort_likely)} | {signed(m.open_findings)} |" for m in rows]
            out.append("")
    points, left_out = table_points(doc)
    targets = doc.target_ids
    if points:
        out += ["## Points", "", "| commit | date | open | handled | cuda-only | open work | change | "
                + " | ".join(f"kernels {md_text(t)}" for t in targets) + " | subject |",
                "|---|---|---:|---:|---:|---|---|" + "---:|" * len(targets) + "---|"]
        for p in points:
            kernels = " | ".join(str(p.open_kernels.get(t, 0)) for t in targets)
            out.append(f"| {md_code(p.commit[:12])} | {p.date[:10]} | {p.open_findings} | "
                       f"{p.handled_findings} | {p.cuda_only_findings} | {days(p.effort)} | "
                       f"{change_text(p)} | {kernels} | {md_text(p.subject)} |")
        note = omitted(doc, len(points), left_out, "; the JSON and CSV formats list every point.")
        if note:
            out += ["", note]
        out.append("")
    for n in doc.notices:
        out += [f"> {md_text(n)}", ""]
    return "\n".join(out).rstrip("\n") + "\n"
