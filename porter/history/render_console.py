"""The history for a terminal: the headline, a sparkline of the open work, the projection, movers, a compact table."""
from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from porter.history.text import (compact_change, compact_days, headline, omitted, projection_text, signed, table_points,
                                 trend_line)
from porter.model.history import HistoryReport
from porter.render.safe import literal, literal_name


def render(doc: HistoryReport, *, width: int = 120, terminal: bool = False) -> bytes:
    buf = io.StringIO()
    c = Console(file=buf, width=width, highlight=False, force_terminal=terminal, no_color=not terminal,
                color_system="auto" if terminal else None, legacy_windows=False)
    from porter.history.report import about_line, heading

    c.print(literal(f"{heading(doc)} · {about_line(doc)}"))
    c.print(literal(headline(doc)))
    if doc.points:
        c.print(literal(f"open likely days  {trend_line(doc, min(60, max(10, width - 20)))}"))
        c.print(literal(projection_text(doc)))
    # The three biggest moves by engineer-days, then by open findings (each commit once).
    mv = doc.movers
    for title, lists in (("reduced the most", (mv.reduced, mv.reduced_open)), ("added the most", (mv.added, mv.added_open))):
        seen: set[str] = set()
        for movers in lists:
            for m in [m for m in movers if m.commit not in seen][:3]:
                seen.add(m.commit)
                c.print(literal(f"{title}: {m.commit[:12]} {m.date[:10]} {signed(m.effort_likely)} d "
                                f"{signed(m.open_findings)} open — ") + literal_name(m.subject)
                        + literal(" (") + literal_name(m.author) + literal(")"))
    rows, left_out = table_points(doc, 15)
    if rows:
        targets = doc.target_ids
        # Compact figures (one column for every target's open kernels, one space between columns) so the subject,
        # the only words in the table, keeps at least a third of a 120-column terminal.
        table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1, 0, 0), collapse_padding=True)
        names = ("commit", "date", "open", "handled", "cuda-only", "open days", "change", "kernels")
        cells = [[p.commit[:12], p.date[:10], str(p.open_findings), str(p.handled_findings),
                  str(p.cuda_only_findings), compact_days(p.effort), compact_change(p),
                  "/".join(str(p.open_kernels.get(t, 0)) for t in targets)] for p in rows]
        widths = [max(len(n), *(len(r[i]) for r in cells)) for i, n in enumerate(names)]
        for n, w in zip(names, widths):
            table.add_column(n, justify="left" if n in ("commit", "date", "change", "open days") else "right",
                             min_width=w, no_wrap=True)
        room = width - sum(widths) - len(widths) - 1
        if room >= 16:
            table.add_column("subject", no_wrap=True, overflow="ellipsis", max_width=room)
            for p, r in zip(rows, cells):
                table.add_row(*r, literal_name(p.subject))
            c.print(table)
        else:
            # Too narrow for a subject column (80 columns leave it one or two characters: "3 I" for "Initial CUDA
            # kernels"): each point's subject goes on its own indented line under the point's figures.
            for r in cells:
                table.add_row(*r)
            with c.capture() as cap:
                c.print(table)
            lines = cap.get().rstrip("\n").split("\n")
            c.print(Text.from_ansi(lines[0]))
            for line, p in zip(lines[1:], rows):
                c.print(Text.from_ansi(line))
                c.print(Text("  ") + literal_name(p.subject), no_wrap=True, overflow="ellipsis")
        c.print(literal(f"open days: likely (low–high) engineer-days; change: open findings, likely days; kernels: "
                        f"kernels not ok on {'/'.join(targets)}"))
        note = omitted(doc, len(rows), left_out, " (--format json or csv lists every point)")
        if note:
            c.print(literal(note))
    text = buf.getvalue()
    if not terminal:  # rich pads table rows to the column widths: plain text keeps no trailing blanks
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text.encode("utf-8")
