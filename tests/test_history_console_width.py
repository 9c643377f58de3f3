"""`porter history` on an 80-column log: every point's subject is readable, and no line is wider than the terminal.

The points table's figures take 79 of 80 columns, so the subject column used to get one character ("3 I" for
"Initial CUDA kernels", the header "kernels s"); there the subject now goes on its own line under the point."""
from __future__ import annotations

from porter.history import render_console
from porter.history.trend import movers, projection
from porter.model.assessment import Range
from porter.model.history import HistoryReport, Point, PointChange

SUBJECTS = ("Initial CUDA kernels", "Port axpy and scale to HIP", "Add extra kernel", "Port norm; build with HIP")
SHAPE = ((31, 1.0), (11, 0.5), (20, 0.5), (9, 0.5))


def report() -> HistoryReport:
    points: list[Point] = []
    for i, ((open_, likely), subject) in enumerate(zip(SHAPE, SUBJECTS)):
        prev = points[-1] if points else None
        change = None if prev is None else PointChange(open_ - prev.open_findings, 0, 0,
                                                       round(likely - prev.effort.likely, 2), {"mi355x": 0}, 0)
        points.append(Point(f"{i + 1}" * 40, f"2026-{9 + i:02d}-01T10:00:00+00:00", "Team", subject, False, 1, open_,
                            8, 0, Range(0.0, likely, likely + 0.5), "port", {"mi355x": 1}, (), 4, change))
    return HistoryReport.of({
        "about": {"name": "mig", "commit": points[-1].commit, "branch": "main", "version": "0", "date": None},
        "repository": "/r", "path": "", "every": "commit", "targets": [{"id": "mi355x", "name": "MI355X"}],
        "points": [p.to_dict() for p in points], "movers": movers(tuple(points)),
        "projection": projection(tuple(points)), "notices": []})


def table(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("commit "))
    end = next(n for n, line in enumerate(lines) if line.startswith("open days: "))
    return lines[start:end]


def test_at_80_columns_each_subject_has_its_own_line():
    text = render_console.render(report(), width=80).decode()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert table(text) == [
        "commit       date       open handled cuda-only open days change      kernels",
        "111111111111 2026-09-01   31       8         0 1 (0–1.5) start             1",
        "  Initial CUDA kernels",
        "222222222222 2026-10-01   11       8         0 0.5 (0–1) -20, -0.5 d       1",
        "  Port axpy and scale to HIP",
        "333333333333 2026-11-01   20       8         0 0.5 (0–1) +9, 0 d           1",
        "  Add extra kernel",
        "444444444444 2026-12-01    9       8         0 0.5 (0–1) -11, 0 d          1",
        "  Port norm; build with HIP",
    ]


def test_a_wide_terminal_keeps_the_subject_column():
    rows = table(render_console.render(report(), width=120).decode())
    assert rows[0].split() == ["commit", "date", "open", "handled", "cuda-only", "open", "days", "change", "kernels",
                               "subject"]
    assert [row.endswith(" " + s) for row, s in zip(rows[1:], SUBJECTS)] == [True] * 4 and len(rows) == 5


def test_a_terminal_at_80_columns_has_the_same_lines():
    text = render_console.render(report(), width=80, terminal=True).decode()
    import re
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "\n  Port axpy and scale to HIP\n" in plain
    assert max(len(line.rstrip()) for line in plain.splitlines()) <= 80


def test_a_mover_that_moved_no_day_reads_0_in_every_format():
    """'Port norm' removed 11 open findings and no engineer-day: console said '0 d', Markdown and HTML '+0'."""
    from porter.history import render_html, render_markdown

    doc = report()
    console = render_console.render(doc, width=120).decode()
    assert "reduced the most: 444444444444 2026-12-01 0 d -11 open — Port norm; build with HIP (Team)" in console
    assert "| `444444444444` | 2026-12-01 | Team | Port norm; build with HIP | 0 | -11 |" in render_markdown.render(doc)
    page = render_html.render(doc)
    assert '<td>Port norm; build with HIP</td><td class="n">0</td><td class="n">-11</td></tr>' in page
    assert "+0" not in page
