"""How an effort range is written in words: one spelling for the assessment's headline and every report.

The effort model rounds days to half a day, so a job of a few hours has a low end of 0 days, which a buyer reads as
"possibly nothing to do"; `effort_text` writes such a job in hours with the days' high end as a ceiling. The
assessment's one-line headline (JSON, SARIF) and the console, Markdown and HTML reports all use these functions, so
every format says the same thing (porter.render.figures re-exports them for the renderers).
"""
from __future__ import annotations

from typing import Protocol

__all__ = ["Points", "days_range", "days_span", "effort_text", "num", "reads_zero"]


def num(x: float) -> str:
    """A figure as written in reports: at most one decimal, no trailing zero."""
    return f"{round(x, 1):g}"


class Points(Protocol):
    """A low–likely–high figure: porter.model.assessment.Range, or porter.estimate's Hours (the headline days)."""

    @property
    def low(self) -> float: ...
    @property
    def likely(self) -> float: ...
    @property
    def high(self) -> float: ...


def days_span(e: Points) -> str:
    """An effort range's days without the unit: '2.5–16.5', or 'at most 0.5' where the low end rounds down to 0
    for work that is there (high above 0): '0–0.5' reads as "possibly nothing to do" (docs/effort-model.md)."""
    if e.high == 0:
        return "0"
    if e.low == 0:
        return f"at most {num(e.high)}"
    return f"{num(e.low)}–{num(e.high)}"


def days_range(e: Points) -> str:
    """'2.5–16.5 engineer-days (likely 6)' from an effort range ('at most 1 engineer-day (likely 0.5)' where the
    low end rounds to 0; '0 engineer-days' for none)."""
    if e.high == 0:
        return "0 engineer-days"
    return f"{days_span(e)} engineer-day{'' if e.high == 1 and e.low == 0 else 's'} (likely {num(e.likely)})"


def reads_zero(days: Points, hours: Points) -> bool:
    """Whether the headline's days would show a low end of 0 for work that is above zero hours (the model rounds
    the low end down to half a day: a 2.7–4.2 hour job is 0–1 days), which a buyer reads as "possibly nothing"."""
    return days.low == 0 and hours.low > 0


def effort_text(days: Points, hours: Points) -> str:
    """The headline effort: days_range, or, where the days' low end reads 0 for work above zero hours, the hours
    with the days' high end as a ceiling: '2.7–4.2 hours (likely 3.3), at most 1 engineer-day' (the same numbers
    as the JSON's effort.hours and effort.high)."""
    if not reads_zero(days, hours):
        return days_range(days)
    return (f"{num(hours.low)}–{num(hours.high)} hours (likely {num(hours.likely)}), at most "
            f"{num(days.high)} engineer-day{'' if days.high == 1 else 's'}")
