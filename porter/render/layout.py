"""Fit a terminal table to the width it has: drop the least important columns first, wrap the rest at words.

Every column has a priority (0 = always shown: the name and the verdict) and the narrowest width it is still
readable at. `fit_table` keeps the columns in priority order while their minimum widths (plus rich's borders and
padding) fit; the columns left out are named in the caption, so a reader knows a wider terminal shows more. Names
and locations wrap (`fold`) instead of being cut to "til…"; prose wraps at words.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from rich import box
from rich.table import Table

# rich's SIMPLE_HEAD box: one space of padding each side and one column separator per column
_PER_COLUMN = 3
_EDGE = 1


@dataclass(frozen=True)
class Col:
    header: str
    priority: int = 0  # 0 is never dropped; higher numbers go first when the width is short
    min_width: int = 0  # the narrowest it reads well at (default: the header's width)
    max_width: int | None = None
    justify: str = "left"
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
    """A rich Table of the columns that fit `width`; the caption names the columns a wider terminal would show."""
    keep = fitting(cols, width)
    dropped = [c.header for i, c in enumerate(cols) if i not in keep]
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False,
              show_footer=footer is not None, caption_justify="left",
              caption=f"(wider terminal shows: {', '.join(dropped)})" if dropped else None)
    for i in keep:
        c = cols[i]
        t.add_column(c.header, justify=c.justify, style=c.style, width=c.floor if c.wrap == "fold" else None,
                     max_width=c.max_width, no_wrap=c.wrap == "none", overflow="fold",
                     footer=footer[i] if footer is not None else "")
    for row in rows:
        t.add_row(*(row[i] for i in keep))
    return t
