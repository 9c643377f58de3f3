"""The history as one self-contained HTML file: an inline SVG burndown (open likely engineer-days and handled
findings over time, the biggest movers marked, the projection drawn on), the movers and the point table.

No script, no external resource: the file opens anywhere and repository text (subjects, authors) is escaped.
"""
from __future__ import annotations

import datetime as dt
import html
from typing import Any

from porter.history.text import change_text, days, headline, omitted, projection_text, signed, table_points
from porter.model.history import HistoryReport
from porter.render.safe import printable

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 960, 340, 56, 56, 16, 56
STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1000px;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #d0d7de;padding:4px 6px;
text-align:left;vertical-align:top}td.d{white-space:nowrap}td.n{text-align:right}code{font:12px ui-monospace,monospace}
.open{stroke:#cf222e;fill:none;stroke-width:2}.handled{stroke:#1a7f37;fill:none;stroke-width:1.5;stroke-dasharray:5 3}
.proj{stroke:#cf222e;stroke-dasharray:2 4;fill:none}.axis{stroke:#8c959f}.grid{stroke:#eaeef2}
svg text{font:11px system-ui,sans-serif;fill:#57606a}svg text.tick{font-size:11.5px}.down{fill:#1a7f37}.up{fill:#cf222e}"""


def _t(value: Any) -> str:
    # Commit subjects and authors are the repository's text: control characters (ESC sequences) shown as escapes,
    # as every other format shows them, before HTML escaping.
    return html.escape(printable(str(value)), quote=True)


def _when(date: str) -> float:
    d = dt.datetime.fromisoformat(date)
    return (d if d.tzinfo else d.replace(tzinfo=dt.timezone.utc)).timestamp()


def _tick(v: float) -> str:
    return f"{round(v, 3):g}"


def _nice_step(v: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^n at or above v."""
    import math

    if v <= 0:
        return 1.0
    base: float = 10 ** math.floor(math.log10(v))  # an int at or above 1: the figures print as before
    return next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= v - 1e-12)


def date_ticks(x0: float, x1: float, most: int = 8) -> list[tuple[float, str]]:
    """Readable date ticks between two timestamps: whole days, weeks (Mondays), months or years, at most `most`."""
    start = dt.datetime.fromtimestamp(x0, dt.timezone.utc).date()
    end = dt.datetime.fromtimestamp(x1, dt.timezone.utc).date()
    days = (end - start).days
    if days <= most:
        marks = [start + dt.timedelta(days=i) for i in range(days + 1)]
    elif days <= 7 * most:
        first = start + dt.timedelta(days=(7 - start.weekday()) % 7)
        marks = [first + dt.timedelta(weeks=i) for i in range((end - first).days // 7 + 1)]
    else:
        months = [(y, m) for y in range(start.year, end.year + 1) for m in range(1, 13)
                  if (y, m) > (start.year, start.month) and (y, m) <= (end.year, end.month)]
        step = max(1, -(-len(months) // most))
        step = next(s for s in (1, 2, 3, 6, 12, step) if s >= step)
        marks = [dt.date(y, m, 1) for y, m in months if (m - 1) % step == 0]
    fmt = "%Y-%m-%d" if days <= 7 * most else "%Y-%m"
    ticks = [(dt.datetime(d.year, d.month, d.day, tzinfo=dt.timezone.utc).timestamp(), d.strftime(fmt)) for d in marks]
    return [(t, label) for t, label in ticks if x0 <= t <= x1][:most + 1]


def chart(doc: HistoryReport) -> str:
    points = doc.points
    if not points:
        return ""
    pr = doc.projection
    xs = [_when(p.date) for p in points]
    end_x = _when(pr.date) if pr.status == "projected" and pr.date else xs[-1]
    x0, x1 = min(xs), max(max(xs), end_x)
    span = (x1 - x0) or 1.0
    # axis tops of four round steps (1, 2, 2.5 or 5 × 10^n), so every tick reads as a round number
    top_days = 4 * _nice_step((max(p.effort.likely for p in points) or 1.0) / 4)
    top_handled = 4 * max(1, _nice_step((max(p.handled_findings for p in points) or 1) / 4))

    def x(t: float) -> float:
        return PAD_L + (t - x0) / span * (W - PAD_L - PAD_R)

    def y(v: float, top: float) -> float:
        return PAD_T + (1 - v / top) * (H - PAD_T - PAD_B)

    def path(values: list[float], top: float) -> str:
        # A step line: the open work stays as it was until the next commit changes it.
        out = []
        for i, (t, v) in enumerate(zip(xs, values)):
            if i:
                out.append(f"{x(t):.1f},{y(values[i - 1], top):.1f}")
            out.append(f"{x(t):.1f},{y(v, top):.1f}")
        return " ".join(out)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="100%" role="img" '
             f'aria-label="Open likely engineer-days and handled findings over time">']
    for k in range(5):
        v = top_days * k / 4
        parts.append(f'<line class="grid" x1="{PAD_L}" x2="{W - PAD_R}" y1="{y(v, top_days):.1f}" '
                     f'y2="{y(v, top_days):.1f}"/><text x="{PAD_L - 6}" y="{y(v, top_days) + 4:.1f}" '
                     f'text-anchor="end">{_tick(v)}</text>'
                     f'<text x="{W - PAD_R + 6}" y="{y(v, top_days) + 4:.1f}">{_tick(top_handled * k / 4)}</text>')
    parts.append(f'<line class="axis" x1="{PAD_L}" x2="{W - PAD_R}" y1="{H - PAD_B}" y2="{H - PAD_B}"/>')
    for t, label in date_ticks(x0, x1):
        parts.append(f'<line class="grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{PAD_T}" y2="{H - PAD_B}"/>'
                     f'<text class="tick" x="{x(t):.1f}" y="{H - PAD_B + 16}" text-anchor="middle">{_t(label)}</text>')
    # the legend: a sample of each line with what it shows and which axis it reads on
    lx, ly = PAD_L, H - 6
    for cls, text in (("open", "open likely engineer-days (left axis)"), ("handled", "handled findings (right axis)"),
                      *((("proj", "projection"),) if pr.status == "projected" else ())):
        parts.append(f'<line class="{cls}" x1="{lx}" x2="{lx + 24}" y1="{ly - 4}" y2="{ly - 4}"/>'
                     f'<text x="{lx + 30}" y="{ly}">{text}</text>')
        lx += 30 + 7 * len(text) + 24
    for cls, text in (("down", "reduced the most"), ("up", "added the most")):
        parts.append(f'<circle class="{cls}" cx="{lx + 5}" cy="{ly - 4}" r="5"/><text x="{lx + 14}" y="{ly}">{text}</text>')
        lx += 14 + 7 * len(text) + 24
    parts.append(f'<polyline class="open" points="{path([p.effort.likely for p in points], top_days)}"/>')
    parts.append(f'<polyline class="handled" points="{path([p.handled_findings for p in points], top_handled)}"/>')
    if pr.status == "projected":
        parts.append(f'<line class="proj" x1="{x(xs[-1]):.1f}" y1="{y(points[-1].effort.likely, top_days):.1f}" '
                     f'x2="{x(end_x):.1f}" y2="{y(0, top_days):.1f}"><title>projected completion {_t(pr.date or "")}'
                     f'</title></line>')
    by_commit = {p.commit: (t, p) for t, p in zip(xs, points)}
    for movers, cls in ((doc.movers.reduced, "down"), (doc.movers.added, "up")):
        for m in movers:
            t, p = by_commit[m.commit]
            parts.append(f'<circle class="{cls}" cx="{x(t):.1f}" cy="{y(p.effort.likely, top_days):.1f}" r="5">'
                         f'<title>{_t(m.commit[:12])} {_t(m.date[:10])} {signed(m.effort_likely)} d: '
                         f'{_t(m.subject)} ({_t(m.author)})</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def render(doc: HistoryReport) -> str:
    from porter.history.report import about_line, heading

    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_t(heading(doc))} · {_t(about_line(doc))}</title><style>{STYLE}</style></head><body>",
           f"<h1>{_t(heading(doc))}</h1>", f'<p class="about">{_t(about_line(doc))}</p>', f"<p>{_t(headline(doc))}</p>"]
    if doc.points:
        out += [chart(doc), f"<p>{_t(projection_text(doc))}</p>"]
    mv = doc.movers
    for title, rows in (("Reduced the open work the most (engineer-days)", mv.reduced),
                        ("Reduced the open findings the most", mv.reduced_open),
                        ("Added the most open work (engineer-days)", mv.added), ("Added the most open findings", mv.added_open)):
        if rows:
            out.append(f"<h2>{title}</h2><table><tr><th>commit</th><th>date</th><th>author</th><th>subject</th>"
                       "<th>likely days</th><th>open findings</th></tr>")
            out += [f'<tr><td><code>{_t(m.commit[:12])}</code></td><td class="d">{_t(m.date[:10])}</td>'
                    f'<td>{_t(m.author)}</td><td>{_t(m.subject)}</td><td class="n">{signed(m.effort_likely)}</td>'
                    f'<td class="n">{signed(m.open_findings)}</td></tr>' for m in rows]
            out.append("</table>")
    points, left_out = table_points(doc)
    targets = doc.target_ids
    if points:
        out.append("<h2>Points</h2><table><tr><th>commit</th><th>date</th><th>open</th><th>handled</th>"
                   "<th>cuda-only</th><th>open work</th><th>change</th>"
                   + "".join(f"<th>kernels {_t(t)}</th>" for t in targets) + "<th>subject</th></tr>")
        for p in points:
            out.append(f'<tr><td><code>{_t(p.commit[:12])}</code></td><td class="d">{_t(p.date[:10])}</td>'
                       f'<td class="n">{p.open_findings}</td><td class="n">{p.handled_findings}</td>'
                       f'<td class="n">{p.cuda_only_findings}</td><td>{_t(days(p.effort))}</td>'
                       f'<td>{_t(change_text(p))}</td>'
                       + "".join(f'<td class="n">{p.open_kernels.get(t, 0)}</td>' for t in targets)
                       + f'<td>{_t(p.subject)}</td></tr>')
        out.append("</table>")
        note = omitted(doc, len(points), left_out, "; the JSON and CSV formats list every point.")
        if note:
            out.append(f"<p>{note}</p>")
    out += [f"<blockquote>{_t(n)}</blockquote>" for n in doc.notices]
    out.append("</body></html>")
    return "\n".join(out) + "\n"
