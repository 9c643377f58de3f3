"""Find what a translation leaves to do by hand: scan each translated file's output with porter's device rules.

A translation that converted every CUDA name reads "unconverted 0", yet inline PTX (`asm("mov.u32 %0, %%laneid;")`)
does not build for AMD, and `unsigned int votes = __ballot_sync(...)`, renamed or not, still drops lanes 32-63 of a
wave64 ballot. Names are the leftover analysis' job; this reads the *output* with the scanner's own rules of the
device category whose HIP equivalent is not a rename (inline PTX, 32-bit lane masks and ballot holders, warp-size
assumptions ...), so whatever the engine and the fix-ups already handled is not reported, and the rule data stays the
one definition of each problem.
"""
from __future__ import annotations

import functools
from typing import Iterable

from porter.match.base import SkipFile
from porter.match.engine import prepare_rules, run_rules
from porter.match.registry import MatchContext
from porter.model import Finding
from porter.rules import Rule, load_rules
from porter.source.parse import parse

CATEGORIES = ("device",)


@functools.lru_cache(maxsize=1)
def by_hand_rules() -> tuple[Rule, ...]:
    """The shipped device rules a translation cannot apply: their HIP equivalent is manual work, a replacement a
    person chooses, or nothing."""
    rules = tuple(r for r in load_rules().rules if r.category in CATEGORIES and "cuda" in r.languages
                  and (r.hip_equivalent or {}).get("kind") in ("manual", "replace", "none"))
    prepare_rules(rules)
    return rules


def left_by_hand(path: str, output: bytes, rules: Iterable[Rule] | None = None) -> tuple[Finding, ...]:
    """The findings of the by-hand rules in one translated file's output, sorted by line."""
    rules = tuple(by_hand_rules() if rules is None else rules)
    if not rules or not output:
        return ()
    try:
        found, _suppressed = run_rules(parse(path, "cuda", output, {}), rules, MatchContext())
    except SkipFile:
        return ()
    return tuple(sorted(found, key=lambda f: (f.line, f.column, f.rule)))
