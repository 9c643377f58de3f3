"""What a burndown says: the biggest movers, the projected completion date from the recent burn rate, a sparkline.

The projection fits a least-squares line to the open likely engineer-days of the points in the last RECENT_DAYS
before the newest point, and reads where it reaches zero; the range comes from the slope ± one standard error.
There is no date when the trend is flat or rising (or the fall is within one standard error of flat), when too few
points fall in the window, or when nothing is open. Every date is relative to the newest commit, never to today,
so the output is the same whenever it is rendered.
"""
from __future__ import annotations

import datetime as dt
import math
from typing import Any, Callable, Iterable, Sequence

from porter.model.history import Point, PointChange

RECENT_DAYS = 90
MIN_POINTS = 3
MOVERS = 5
BARS = "▁▂▃▄▅▆▇█"


def when(point: Point) -> dt.datetime:
    return dt.datetime.fromisoformat(point.date).astimezone(dt.timezone.utc)


def movers(points: Sequence[Point], n: int = MOVERS) -> dict[str, list[dict[str, Any]]]:
    """The points that reduced and that added the most open work: by likely days (`reduced`, `added`) and by open
    findings (`reduced_open`, `added_open`). Both rankings: a commit that routes 234 CUDA spots through a compat
    header removes no estimated day of a kernel's retuning, yet it is the burndown's biggest step. Each list holds
    only the points that moved by its own measure, ties broken by the other."""
    moved = [(p, p.change) for p in points if p.change and (p.change.effort_likely or p.change.open_findings)]

    def entry(p: Point, c: PointChange) -> dict[str, Any]:
        return {"commit": p.commit, "date": p.date, "author": p.author, "subject": p.subject,
                "effort_likely": c.effort_likely, "open_findings": c.open_findings}

    def days(c: PointChange) -> float:
        return c.effort_likely

    def found(c: PointChange) -> float:
        return c.open_findings

    def ranked(first: Callable[[PointChange], float], second: Callable[[PointChange], float],
               sign: int) -> list[dict[str, Any]]:
        # Only what moved by the list's own measure: a commit that removed 118 open findings and no estimated day
        # is a findings mover, never the top of "reduced the open work the most (engineer-days)" with +0 days.
        pick = [(p, c) for p, c in moved if sign * first(c) > 0]
        pick.sort(key=lambda pc: (-sign * first(pc[1]), -sign * second(pc[1]), pc[0].date, pc[0].commit))
        return [entry(p, c) for p, c in pick[:n]]

    return {"reduced": ranked(days, found, -1), "added": ranked(days, found, 1),
            "reduced_open": ranked(found, days, -1), "added_open": ranked(found, days, 1)}


def projection(points: Sequence[Point], recent_days: int = RECENT_DAYS) -> dict[str, Any]:
    """When the open work reaches zero at the recent burn rate, with its uncertainty; a status says why not."""
    empty = {"status": "", "date": None, "earliest": None, "latest": None, "rate_per_week": None,
             "basis": None}
    if not points:
        return {**empty, "status": "no points"}
    last = points[-1]
    if last.effort.likely <= 0:
        return {**empty, "status": "done"}
    end = when(last)
    recent = [p for p in points if (end - when(p)).total_seconds() <= recent_days * 86400]
    xs = [(when(p) - end).total_seconds() / 86400 for p in recent]
    ys = [p.effort.likely for p in recent]
    basis = {"from": recent[0].date, "to": last.date, "points": len(recent), "days": recent_days}
    if len(recent) < MIN_POINTS or len(set(xs)) < 2:
        return {**empty, "status": "too few points", "basis": basis}
    slope, se = _fit(xs, ys)
    rate = round(slope * 7, 2)
    if slope >= 0 or slope + se >= 0:
        return {**empty, "status": "rising" if slope > 0 and slope - se > 0 else "flat", "rate_per_week": rate,
                "basis": basis}
    left = last.effort.likely

    def at(s: float) -> str:
        return (end + dt.timedelta(days=left / -s)).date().isoformat()

    return {"status": "projected", "date": at(slope), "earliest": at(slope - se), "latest": at(slope + se),
            "rate_per_week": rate, "basis": basis}


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and its standard error."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    if n <= 2:
        return slope, 0.0
    residual = sum((y - (my + slope * (x - mx))) ** 2 for x, y in zip(xs, ys))
    return slope, math.sqrt(residual / (n - 2) / sxx)


def sparkline(values: Iterable[float], width: int = 48) -> str:
    """The values as block characters, scaled from the smallest to the largest; at most `width` of them (the last
    value of each bin, so the end of the line is the newest state)."""
    values = list(values)
    if not values:
        return ""
    if len(values) > width:
        values = [values[min(len(values) - 1, math.ceil((i + 1) * len(values) / width) - 1)] for i in range(width)]
    lo, hi = min(values), max(values)
    if hi == lo:
        return BARS[0 if hi == 0 else 3] * len(values)
    return "".join(BARS[round((v - lo) / (hi - lo) * (len(BARS) - 1))] for v in values)
