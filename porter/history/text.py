"""Sentences and table rows every human-readable history format shares (console, Markdown, HTML)."""
from __future__ import annotations

from porter.history.trend import sparkline
from porter.model.assessment import Range
from porter.model.history import HistoryReport, Point

MAX_ROWS = 25


def days(effort: Range) -> str:
    return f"{effort.likely:g} d ({effort.low:g}–{effort.high:g})"


def signed(value: float) -> str:
    return f"{value:+g}" if value else "0"


def headline(doc: HistoryReport) -> str:
    points = doc.points
    if not points:
        return "No points."
    first, last = points[0], points[-1]
    span = f"{len(points)} point(s) from {first.date[:10]} to {last.date[:10]}"
    return (f"{span}: open work {days(first.effort)} → {days(last.effort)} engineer-days; "
            f"{last.open_findings} open, {last.handled_findings} handled, "
            f"{last.cuda_only_findings} cuda-only finding(s) now.")


def trend_line(doc: HistoryReport, width: int = 48) -> str:
    return sparkline([p.effort.likely for p in doc.points], width)


def projection_text(doc: HistoryReport) -> str:
    pr = doc.projection
    status = pr.status
    basis = pr.basis
    window = f"the last {basis.days} days ({basis.points} points)" if basis else ""
    rate = pr.rate_per_week if pr.rate_per_week is not None else 0.0  # set whenever the status is one below
    if status == "projected":
        return (f"Projected completion {pr.date} (range {pr.earliest} to {pr.latest}) at the burn rate of "
                f"{window}: {-rate:g} engineer-days a week.")
    if status == "done":
        return "No open work left."
    if status in ("flat", "rising"):
        return (f"No projected completion: the open work is {status} over {window}: "
                f"{signed(rate)} engineer-days a week.")
    return f"No projected completion: {status} in {window or 'the history'}."


def table_points(doc: HistoryReport, max_rows: int = MAX_ROWS) -> tuple[list[Point], int]:
    """The points worth a row: the first, every one that moved, the last; when too many moved, the largest moves
    (in date order). Also how many moving points were left out."""
    points = doc.points
    if not points:
        return [], 0
    moved = [i for i, p in enumerate(points) if p.change and p.change.size]
    keep = sorted({0, len(points) - 1, *moved})
    left_out = 0
    if len(keep) > max_rows:
        ranked = sorted(moved, key=lambda i: (-_size(points[i]), i))[:max_rows - 2]
        left_out = len(moved) - len(ranked)
        keep = sorted({0, len(points) - 1, *ranked})
    return [points[i] for i in keep], left_out


def omitted(doc: HistoryReport, shown: int, left_out: int, where: str) -> str:
    """The sentence under the points table saying which points it leaves out ("" when none): the points where
    nothing moved (a 56-point history of a quiet repository shows 13 rows) and the smaller moves beyond the table's
    rows. `where` says where every point is listed."""
    unchanged = len(doc.points) - shown - left_out
    parts = ([f"{unchanged} point(s) with no change"] if unchanged > 0 else []) + (
        [f"{left_out} smaller move(s)"] if left_out else [])
    return f"{' and '.join(parts)} not shown{where}" if parts else ""


def _size(p: Point) -> float:
    return p.change.size if p.change else 0.0


def change_text(p: Point) -> str:
    c = p.change
    if not c:
        return "start"
    return f"{signed(c.open_findings)} open, {signed(c.effort_likely)} d"


def compact_days(effort: Range) -> str:
    """'12.5 (10–15)': likely (low–high), for a narrow column."""
    return f"{effort.likely:g} ({effort.low:g}–{effort.high:g})"


def compact_change(p: Point) -> str:
    """'-234, -1.5 d': the change of open findings and likely days, for a narrow column."""
    c = p.change
    if not c:
        return "start"
    return f"{signed(c.open_findings)}, {signed(c.effort_likely)} d"
