"""Fit a terminal table to the width it has: drop the least important columns first, wrap the rest at words.

Every column has a priority (0 = always shown: the name and the verdict) and the narrowest width it is still
readable at. `fit_table` keeps the columns in priority order while their minimum widths (plus rich's borders and
padding) fit; the columns left out are named in the caption, so a reader knows a wider terminal shows more. Names
and locations wrap (`fold`) instead of being cut to "til…"; prose wraps at words.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

# rich's SIMPLE_HEAD box: one space of padding each side and one column separator per column
_PER_COLUMN = 3
_EDGE = 1


@dataclass(frozen=True)
class Col:
    header: str
    priority: int = 0  # 0 is never dropped; higher numbers go first when the width is short
    min_width: int = 0  # the narrowest it reads well at (default: the header's width)
    max_width: int | None = None
    justify: Literal["default", "left", "center", "right", "full"] = "left"
    wrap: str = "words"  # words: prose, takes the width left | fold: exactly min_width wide, long names break
    #                      anywhere instead of being cut | none: short values at their natural width
    style: str | None = None

    @property
    def floor(self) -> int:
        return max(self.min_width, len(self.header))


def fitting(cols: Sequence[Col], width: int) -> list[int]:
    """Indexes of the columns that fit `width`, most important first, in their original order."""
    order = sorted(range(len(cols)), key=lambda i: (cols[i].priority, i))
    keep: list[int] = []
    used = _EDGE
    for i in order:
        need = cols[i].floor + _PER_COLUMN
        if cols[i].priority == 0 or used + need <= width:
            keep.append(i)
            used += need
    return sorted(keep)


def fit_table(title: str, cols: Sequence[Col], rows: Sequence[Sequence[Any]], width: int,
              footer: Sequence[Any] | None = None) -> Table:
    """A rich Table of the columns that fit `width`; the caption names the columns a wider terminal would show.

    A column of short values (wrap "none": numbers, verdicts) is as wide as its longest value, so rich never has
    to crop one (`45.` for 45.2); a fold column (names, paths) takes the room left, up to its longest value, and
    breaks a long path after a `/` rather than inside a name."""
    natural = [_longest(c.header, [row[i] for row in rows] + ([footer[i]] if footer is not None else []))
               for i, c in enumerate(cols)]
    # what a column needs: a short-values column all of its longest value
    sized = [dataclasses.replace(c, min_width=max(c.min_width, natural[i])) if c.wrap == "none" else c
             for i, c in enumerate(cols)]
    keep = fitting(sized, width)
    # drawn: a short-values column exactly as wide as its longest value (its min_width only decides what fits)
    drawn = [dataclasses.replace(c, min_width=natural[i]) if c.wrap == "none" else c for i, c in enumerate(cols)]
    names = [_longest(c.header, [row[i] for row in rows], words=True) for i, c in enumerate(cols)]
    widths = _wrapped_widths(drawn, keep, natural, names, width)
    dropped = [c.header for i, c in enumerate(cols) if i not in keep]
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False,
              show_footer=footer is not None, caption_justify="left",
              caption=f"(wider terminal shows: {', '.join(dropped)})" if dropped else None)
    for i in keep:
        c = drawn[i]
        t.add_column(c.header, justify=c.justify, style=c.style, width=widths.get(i, c.floor),
                     max_width=c.max_width, no_wrap=c.wrap == "none", overflow="fold",
                     footer=footer[i] if footer is not None else "")
    for row in rows:
        t.add_row(*(_break_names(row[i], widths[i]) if i in widths else row[i] for i in keep))
    return t


def _wrapped_widths(cols: Sequence[Col], keep: list[int], natural: list[int], longest_names: list[int],
                    width: int) -> dict[int, int]:
    """The width of each kept column that wraps: its floor, then grown toward its longest value while the table
    fits `width` — names (fold) first, most important first, so a name or path stays whole; then prose (words)
    columns share what is left evenly — or shrunk toward the header when the columns that cannot wrap need the
    room (a name may break; a number must not be cut)."""
    fold = sorted((i for i in keep if cols[i].wrap == "fold"), key=lambda i: cols[i].priority)
    words = [i for i in keep if cols[i].wrap == "words"]
    widths = {i: cols[i].floor for i in fold + words}
    # a names column grows to its longest name (its lines break at spaces), a prose column to its longest line
    cap = {i: natural[i] if cols[i].wrap == "words" else longest_names[i] for i in widths}
    cap = {i: w if (most := cols[i].max_width) is None else min(w, most) for i, w in cap.items()}
    # what rich draws between the columns (this box, no outer edge): a space of padding each side and a separator
    spare = width - sum(cols[i].floor + _PER_COLUMN for i in keep) + _PER_COLUMN
    if spare < 0:
        for i in fold + words:
            give = min(-spare, max(0, widths[i] - max(len(cols[i].header), 8)))
            widths[i] -= give
            spare += give
        return widths
    for i in fold:
        grow = min(spare, max(0, cap[i] - widths[i]))
        widths[i] += grow
        spare -= grow
    growing = [i for i in words if cap[i] > widths[i]]
    while spare > 0 and growing:
        share = max(1, spare // len(growing))
        for i in growing:
            grow = min(share, spare, cap[i] - widths[i])
            widths[i] += grow
            spare -= grow
        growing = [i for i in growing if cap[i] > widths[i]]
    return widths


def _longest(header: str, cells: Sequence[Any], words: bool = False) -> int:
    """The widest line of the header and the cells (with `words`, the widest word), in terminal cells."""
    lines = [header] + [line for cell in cells if cell is not None
                        for line in (cell.plain if isinstance(cell, Text) else str(cell)).split("\n")]
    return max(cell_len(part) for line in lines for part in (line.split() if words else [line]) or [""])


def _break_names(cell: Any, width: int) -> Any:
    """A cell whose lines are longer than `width` broken at spaces, or after a `/` (a path's directories) in a word
    longer than the line, so rich's fold cuts a name only when a single name is wider than the column."""
    text = cell if isinstance(cell, Text) else Text(str(cell)) if isinstance(cell, str) else None
    if text is None or all(cell_len(line) <= width for line in text.plain.split("\n")):
        return cell
    pieces: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        cuts = _cuts(line.plain, width)
        pieces.extend(p for p in (line.divide(cuts) if cuts else [line]) if p.plain != " ")
    joined = Text("\n").join(pieces)
    return joined if isinstance(cell, Text) else joined.plain


def _cuts(plain: str, width: int) -> list[int]:
    """Offsets that break `plain` into lines of at most `width`: at the last space that fits (the space becomes a
    piece of its own, dropped), else after the last `/`, else nowhere (rich folds that one word)."""
    cuts: list[int] = []
    start = 0
    while len(plain) - start > width:
        space = plain.rfind(" ", start + 1, start + width + 1)
        slash = plain.rfind("/", start, start + width)
        if space > start:
            cuts += [space, space + 1]
            start = space + 1
        elif slash >= start:
            cuts.append(slash + 1)
            start = slash + 1
        else:
            nxt = plain.find(" ", start + width)
            if nxt < 0:
                break
            cuts += [nxt, nxt + 1]  # one word wider than the line: rich folds it; the rest still breaks at spaces
            start = nxt + 1
    return cuts
