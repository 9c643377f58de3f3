"""Which identifier tokens a pattern cannot hit without, checked against the file's token index before its matcher
runs.

A file's identifier tokens are found once, in one regex pass over its code (`SourceFile.tokens`); a pattern whose
required tokens are all absent is skipped without walking the parse tree. Requirements are only stated where they
are exact, so skipping never loses a hit: `member_call: {method: sync, types: [grid_group], inits: [this_grid]}`
needs the token `sync` and one of `grid_group`/`this_grid` (the declared type's or initialiser's last name part is
itself a token of the code). A kind without a stated requirement always runs.
"""
from __future__ import annotations

import functools
import json

from porter.source.parse import SourceFile


def _member_call(spec: dict) -> tuple[frozenset[bytes], ...]:
    anchors = frozenset(n.encode() for n in (*spec.get("types", ()), *spec.get("inits", ())))
    return (frozenset({spec["method"].encode()}), anchors)


_REQUIREMENTS = {"member_call": _member_call}


@functools.lru_cache(maxsize=1024)
def _required(kind: str, spec_json: str) -> tuple[frozenset[bytes], ...]:
    return _REQUIREMENTS[kind](json.loads(spec_json))


def required_tokens(pattern: dict) -> tuple[frozenset[bytes], ...]:
    """Groups of tokens the pattern needs one of each (none: it states no requirement and always runs)."""
    return tuple(g for kind in sorted(_REQUIREMENTS.keys() & pattern.keys())
                 for g in _required(kind, json.dumps(pattern[kind], sort_keys=True)))


def has_tokens(groups: tuple[frozenset[bytes], ...], sf: SourceFile) -> bool:
    """Whether a code file has a token of every (non-empty) group."""
    toks = sf.tokens().keys()
    return not any(group and toks.isdisjoint(group) for group in groups)


def may_hit(pattern: dict, sf: SourceFile) -> bool:
    """False only when the file lacks every token of some group the pattern needs one of."""
    groups = required_tokens(pattern)
    return not groups or sf.language not in ("cuda", "python") or has_tokens(groups, sf)
