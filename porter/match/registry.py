"""The registry of pattern kinds: each key a rule's pattern may use, mapped to the function that matches it.

A matcher is `fn(pattern: dict, source: SourceFile, ctx: MatchContext) -> Iterable[Hit]`. Adding a new kind of
pattern means writing one such function in a module here and listing it below; adding a rule needs no code.
"""
from __future__ import annotations

from porter.match.base import Hit, MatchContext, Matcher
from porter.match.kinds import binary, buildfiles, code, config, embedded, library, python

MATCHERS: dict[str, Matcher] = {
    **code.MATCHERS,
    **python.MATCHERS,
    **config.MATCHERS,
    **buildfiles.MATCHERS,
    **library.MATCHERS,
    **binary.MATCHERS,
    **embedded.MATCHERS,
}

__all__ = ["Hit", "MatchContext", "Matcher", "MATCHERS"]
