"""Give every breakdown row its share of the figure above it, rounded once, so every format shows the same numbers.

An assessment keeps exact hours; reports show engineer-days to a tenth. Rounding each row on its own makes a table's
rows disagree with its total, and letting each renderer apportion on its own made the formats disagree with each
other (a kernel read 0.1 day apart in the console and in Markdown, which sorted the rows differently). Here each
breakdown row gets a `share`: its part of the headline range (directories; categories have breakdowns' own
`share_days`), of all kernels' days
(kernels) or of the total hours (items), apportioned by the largest-remainder method so the rows add up exactly to
the figure they divide. The rows' own `hours` and `days` stay what they are, each row costed on its own (a
"stand-alone" figure, which does not add up); renderers show the shares and never recompute them.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from porter.estimate.effort_model import Hours

STEP = 0.1
POINTS = ("low", "likely", "high")


def apportion(raw: Sequence[float], total: float, step: float = STEP) -> list[float]:
    """Parts proportional to `raw` that are multiples of `step` and sum exactly to `total` (itself rounded to
    `step`): largest-remainder rounding, ties to the earlier part. All-zero raw parts share nothing."""
    units = round(total / step)
    weight = sum(max(0.0, r) for r in raw)
    if not raw:
        return []
    if weight <= 0 or units <= 0:
        return [0.0] * len(raw)
    exact = [max(0.0, r) / weight * units for r in raw]
    floors = [math.floor(x) for x in exact]
    order = sorted(range(len(raw)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[: units - sum(floors)]:
        floors[i] += 1
    return [round(f * step, 10) for f in floors]


def apportion_points(rows: Sequence[dict[str, float]], total: dict[str, float], step: float = STEP) -> list[dict[str, float]]:
    """`apportion` for low, likely and high at once: row i's {low, likely, high} summing to `total`'s, and in
    order in every row. Each column is apportioned on its own, and a row whose share of the high column is
    smaller than its share of the likely one (the totals are P10/median/P90 of the sum, not sums of the rows'
    points) could read "likely 1.2, high 1.1"; `_ordered` moves single steps between rows so it cannot."""
    cols = {p: apportion([r[p] for r in rows], total[p], step) for p in POINTS}
    units = {p: [round(v / step) for v in cols[p]] for p in POINTS}
    _ordered(units["likely"], units["high"])  # raise a high below its likely, from rows with high to spare
    _ordered(units["low"], units["likely"], lower=True)  # lower a low above its likely, onto rows with room
    return [{p: round(units[p][i] * step, 10) for p in POINTS} for i in range(len(rows))]


def _ordered(below: list[int], above: list[int], lower: bool = False) -> None:
    """Make below[i] <= above[i] for every row, keeping both columns' sums: one step at a time, into the short row
    from the row with the most slack (`lower`: `below` gives up the step instead of `above` taking one). Ends
    whenever sum(below) <= sum(above), which the totals' order guarantees."""
    moving = below if lower else above
    for i in range(len(below)):
        while below[i] > above[i]:
            slack = [(above[j] - below[j], -j) for j in range(len(below)) if j != i and above[j] > below[j]]
            if not slack:
                return
            j = -max(slack)[1]
            if lower:
                moving[i] -= 1
                moving[j] += 1
            else:
                moving[i] += 1
                moving[j] -= 1


def ordered(rows: Sequence[dict[str, float]], step: float = STEP) -> list[dict[str, float]]:
    """Rows of {low, likely, high} (multiples of `step`) with low <= likely <= high in every row, each column's sum
    kept (see `_ordered`)."""
    units = {p: [round(r[p] / step) for r in rows] for p in POINTS}
    _ordered(units["likely"], units["high"])
    _ordered(units["low"], units["likely"], lower=True)
    return [{p: round(units[p][i] * step, 10) for p in POINTS} for i in range(len(rows))]


def _points(h: Hours | dict[str, float]) -> dict[str, float]:
    return {p: (h[p] if isinstance(h, dict) else getattr(h, p)) for p in POINTS}


def kernel_order(row: dict[str, Any]) -> tuple:
    """The one order kernel rows are apportioned (and listed) in: most likely hours first."""
    return (-row["hours"]["likely"], row["path"], row["line"])


def with_shares(rows: dict[str, Any], days: Hours, hours: Hours, items: Sequence[Any], hours_per_day: float) -> dict[str, Any]:
    """The breakdowns with a `share` on every category, directory and kernel row, and `totals`: the figures the
    shares add up to (headline days, all kernels' days, total hours) and each item's share of the hours."""
    headline = _points(days)
    out = dict(rows)
    # Categories carry their share already (breakdowns' `share_days`, each column split by the categories' PERT
    # means); split column by column, a row can read "likely 0.1, high 0": steps move between rows so none does.
    cats = rows["by_category"]
    if cats and all("share_days" in r for r in cats):
        out["by_category"] = [{**r, "share_days": s} for r, s in zip(cats, ordered([r["share_days"] for r in cats]))]
    out["by_directory"] = _directory_shares(rows["by_directory"], headline)
    kernels = sorted(rows["by_kernel"], key=kernel_order)
    kernel_days = {p: round(sum(k["hours"][p] for k in kernels) / hours_per_day, 1) for p in POINTS}
    out["by_kernel"] = [{**r, "share": s} for r, s in zip(kernels, apportion_points([r["hours"] for r in kernels], kernel_days))]
    total_hours = {p: round(getattr(hours, p), 1) for p in POINTS}
    costed = [it for it in items if it.hours.high > 0]
    out["totals"] = {
        "days": headline, "kernel_days": kernel_days, "hours": total_hours,
        "item_hours": {it.id: s for it, s in zip(costed, apportion_points([_points(it.hours) for it in costed], total_hours))},
    }
    return out


def _directory_shares(rows: Sequence[dict[str, Any]], headline: dict[str, float]) -> list[dict[str, Any]]:
    """Each directory's share of its parent's share (the root's is the headline), its subdirectories and what sits
    directly in it (`own_share`: its own files, and at the root the repository-wide jobs) adding up to it."""
    by_path = {r["path"]: r for r in rows}
    children: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["path"] != ".":
            children.setdefault(r["path"].rsplit("/", 1)[0] if "/" in r["path"] else ".", []).append(r)
    share: dict[str, dict[str, float]] = {}
    own: dict[str, dict[str, float]] = {}

    def walk(path: str, part: dict[str, float]) -> None:
        share[path] = part
        kids = sorted(children.get(path, []), key=lambda r: (-r["hours"]["likely"], r["path"]))
        node = by_path[path]["hours"]
        rest = {p: max(0.0, node[p] - sum(k["hours"][p] for k in kids)) for p in POINTS}
        parts = apportion_points([k["hours"] for k in kids] + [rest], part)
        own[path] = parts[-1]
        for k, kp in zip(kids, parts):
            walk(k["path"], kp)

    if "." in by_path:
        walk(".", headline)
    zero = {p: 0.0 for p in POINTS}
    return [{**r, "share": share.get(r["path"], zero), "own_share": own.get(r["path"], zero)} for r in rows]
