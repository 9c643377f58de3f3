"""The history for a terminal: the headline, a sparkline of the open work, the projection, movers, a compact table."""
from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.table import Table

from porter.history.text import change_text, days, headline, projection_text, table_points, trend_line
from porter.render.safe import literal, literal_name


def render(doc: dict[str, Any], *, width: int = 120, terminal: bool = False) -> bytes:
    buf = io.StringIO()
    c = Console(file=buf, width=width, highlight=False, force_terminal=terminal, no_color=not terminal,
                color_system="auto" if terminal else None, legacy_windows=False)
    c.print(literal(headline(doc)))
    if doc["points"]:
        c.print(literal(f"open likely days  {trend_line(doc, min(60, max(10, width - 20)))}"))
        c.print(literal(projection_text(doc)))
    for title, key in (("reduced the most", "reduced"), ("added the most", "added")):
        for m in doc["movers"][key][:3]:
            c.print(literal(f"{title}: {m['commit'][:12]} {m['date'][:10]} {m['effort_likely']:+g} d "
                            f"{m['open_findings']:+d} open — ") + literal_name(m["subject"])
                    + literal(" (") + literal_name(m["author"]) + literal(")"))
    rows, left_out = table_points(doc, 15)
    if rows:
        targets = [t["id"] for t in doc["targets"]]
        table = Table(show_edge=False, pad_edge=False, box=None)
        names = ("commit", "date", "open", "handled", "cuda-only", "open work", "change",
                 *(f"kernels {t}" for t in targets))
        cells = [[p["commit"][:12], p["date"][:10], str(p["open_findings"]), str(p["handled_findings"]),
                  str(p["cuda_only_findings"]), days(p["effort"]), change_text(p),
                  *(str(p["open_kernels"].get(t, 0)) for t in targets)] for p in rows]
        # Every figure keeps its full width; the subject takes what is left and is cut with an ellipsis.
        widths = [max(len(n), *(len(r[i]) for r in cells)) for i, n in enumerate(names)]
        for n, w in zip(names, widths):
            table.add_column(n, justify="right" if n in ("open", "handled", "cuda-only") else "left",
                             min_width=w, no_wrap=True)
        table.add_column("subject", no_wrap=True, overflow="ellipsis",
                         max_width=max(12, width - sum(widths) - len(widths)))
        for p, r in zip(rows, cells):
            table.add_row(*r, literal_name(p["subject"]))
        c.print(table)
        if left_out:
            c.print(literal(f"{left_out} smaller move(s) not shown (--format json or csv lists every point)"))
    return buf.getvalue().encode("utf-8")
