"""A burndown of a quiet repository (warp-ctc's shape: 56 points, 13 of them moved, one commit that ported 118
findings and no estimated day): the points table says how many unchanged points it leaves out, and the
engineer-days mover lists hold only commits that moved the engineer-days."""
from __future__ import annotations

from porter.history import render_console, render_html, render_markdown
from porter.history.text import omitted, table_points
from porter.history.trend import movers, projection
from porter.model.assessment import Range
from porter.model.history import HistoryReport, Point, PointChange


def point(i: int, open_: int, likely: float, prev: Point | None) -> Point:
    change = None if prev is None else PointChange(open_ - prev.open_findings, 0, 0,
                                                   round(likely - prev.effort.likely, 2), {"mi355x": 0}, 0)
    return Point(f"{i:040x}", f"2024-01-{i + 1:02d}T00:00:00+00:00", "a", f"commit {i}", False, 1, open_, 0, 0,
                 Range(0.0, likely, likely + 0.5), "mechanical", {"mi355x": 0}, (), 3, change)


def history() -> tuple[Point, ...]:
    # (open findings, likely days) per commit: a quiet stretch, a port that removes 118 findings and no day,
    # a commit that adds a day's work, then quiet again.
    shape = [(196, 0.5)] * 4 + [(78, 0.5), (78, 0.5), (80, 1.5), (80, 1.5), (80, 1.5)]
    out: list[Point] = []
    for i, (n, d) in enumerate(shape):
        out.append(point(i, n, d, out[-1] if out else None))
    return tuple(out)


def report(points: tuple[Point, ...]) -> HistoryReport:
    return HistoryReport.of({
        "about": {"name": "r", "commit": points[-1].commit, "branch": "main", "version": "0", "date": None},
        "repository": "/r", "path": "", "every": "commit", "targets": [{"id": "mi355x", "name": "MI355X"}],
        "points": [p.to_dict() for p in points], "movers": movers(points), "projection": projection(points),
        "notices": []})


def test_engineer_day_movers_are_only_commits_that_moved_engineer_days():
    m = movers(history())
    assert [(x["commit"][-1], x["effort_likely"], x["open_findings"]) for x in m["reduced"]] == []
    assert [(x["commit"][-1], x["effort_likely"], x["open_findings"]) for x in m["added"]] == [("6", 1.0, 2)]
    assert [(x["commit"][-1], x["effort_likely"], x["open_findings"]) for x in m["reduced_open"]] == [("4", 0.0, -118)]
    assert [(x["commit"][-1], x["effort_likely"], x["open_findings"]) for x in m["added_open"]] == [("6", 1.0, 2)]


def test_the_points_table_says_how_many_unchanged_points_it_leaves_out():
    doc = report(history())
    rows, left_out = table_points(doc)
    assert [p.commit[-1] for p in rows] == ["0", "4", "6", "8"] and left_out == 0
    assert omitted(doc, len(rows), left_out, ".") == "5 point(s) with no change not shown."
    assert omitted(doc, len(rows), 2, ".") == "3 point(s) with no change and 2 smaller move(s) not shown."
    md = render_markdown.render(doc)
    assert "\n5 point(s) with no change not shown; the JSON and CSV formats list every point.\n" in md
    assert "## Reduced the open work the most (engineer-days)" not in md  # no commit reduced a day
    assert "## Reduced the open findings the most" in md
    page = render_html.render(doc)
    assert "<p>5 point(s) with no change not shown; the JSON and CSV formats list every point.</p>" in page
    assert "<h2>Reduced the open work the most (engineer-days)</h2>" not in page
    text = render_console.render(doc).decode()
    assert "5 point(s) with no change not shown (--format json or csv lists every point)" in text.splitlines()
