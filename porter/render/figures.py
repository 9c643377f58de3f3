"""The figures a person reads, rounded once: displayed parts add up to the displayed total, in one unit per table.

An assessment keeps exact hours; reports show engineer-days. Rounding each row on its own makes a table's rows
disagree with its total (6.6 across categories, 6.7 at the directory root, 6.5 in the headline). Here the headline
figure is the one rounding (the effort model's `days`), and every breakdown under it is *apportioned*: its rows are
rounded to tenths by the largest-remainder method so they sum exactly to the figure above them. A breakdown that
does not cover the whole total (the top rows of a long list, a directory's own files next to its subdirectories)
shows the rest as a remainder row, so the column still adds up.

`plural` spells counts ("1 file", "3 files"); `days_range` is the one way an effort range is written.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

STEP = 0.1
POINTS = ("low", "likely", "high")


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 file', '2 files', '0 files' ('many' for irregular plurals: 'kernel(s)' never appears)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def num(x: float) -> str:
    """A figure as written in reports: at most one decimal, no trailing zero."""
    return f"{round(x, 1):g}"


def days_range(e: dict[str, Any]) -> str:
    """'2.5–16.5 engineer-days (likely 6)' from an effort mapping."""
    if e["high"] == 0:
        return "0 engineer-days"
    return f"{num(e['low'])}–{num(e['high'])} engineer-days (likely {num(e['likely'])})"


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


@dataclass(frozen=True)
class Row:
    """One displayed row: its label, the days shown (apportioned) and the source row it came from (None for a
    remainder row)."""

    label: str
    days: dict[str, float]
    source: dict[str, Any] | None = None
    depth: int = 0


def shown_rows(rows: Sequence[dict[str, Any]], total: dict[str, float], label: str, limit: int | None = None,
               rest_label: str = "{n} more", key: str = "hours") -> list[Row]:
    """`rows` (each with `key` = hours low/likely/high) as displayed days apportioned to `total`; beyond `limit`
    the others are one remainder row, so what is shown still sums to the total."""
    keep = list(rows) if limit is None or len(rows) <= limit else list(rows[:limit])
    rest = list(rows[len(keep):])
    raw = [r[key] for r in keep]
    if rest:
        raw.append({p: sum(r[key][p] for r in rest) for p in POINTS})
    parts = apportion_points(raw, total)
    out = [Row(str(r[label]), parts[i], r) for i, r in enumerate(keep)]
    if rest:
        out.append(Row(rest_label.format(n=len(rest)), parts[-1]))
    return out


def directory_rows(rows: Sequence[dict[str, Any]], total: dict[str, float], max_depth: int = 2,
                   limit: int | None = None) -> list[Row]:
    """The rolled-up directory tree (breakdowns' by_directory) to `max_depth`, each level apportioned inside its
    parent: a directory's subdirectories plus a remainder row for what sits directly in it (its own files, and at
    the root the repository-wide jobs) add up to the directory's figure. `limit` caps the rows per level."""
    by_path = {r["path"]: r for r in rows}
    children: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["path"] == ".":
            continue
        parent = r["path"].rsplit("/", 1)[0] if "/" in r["path"] else "."
        children.setdefault(parent, []).append(r)
    out: list[Row] = []

    def walk(path: str, shown: dict[str, float], depth: int) -> None:
        node = by_path[path]
        out.append(Row(path, shown, node, depth))
        kids = sorted(children.get(path, []), key=lambda r: (-r["hours"]["likely"], r["path"]))
        if depth >= max_depth or not kids:
            return
        keep = kids if limit is None else kids[:limit]
        raw = [k["hours"] for k in keep]
        others = {p: node["hours"][p] - sum(k["hours"][p] for k in keep) for p in POINTS}
        parts = apportion_points(raw + [others], shown)
        for k, part in zip(keep, parts):
            walk(k["path"], part, depth + 1)
        if any(parts[-1][p] for p in POINTS):
            more = len(kids) - len(keep)
            what = ("repository-wide jobs, top-level files" if path == "." else f"files directly in {path}/")
            out.append(Row(f"({what}" + (f", {plural(more, 'more directory', 'more directories')}" if more else "") + ")",
                           parts[-1], None, depth + 1))

    if "." in by_path:
        walk(".", {p: total[p] for p in POINTS}, 0)
    return out


def total_of(rows: Iterable[Row]) -> dict[str, float]:
    rows = list(rows)
    return {p: round(sum(r.days[p] for r in rows), 10) for p in POINTS}
