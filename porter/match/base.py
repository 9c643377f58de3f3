"""What every matcher returns (Hit) and what it may consult (MatchContext)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple

if TYPE_CHECKING:
    from porter.source.parse import SourceFile


class Hit(NamedTuple):
    """A matched byte span, with values the rule's message may use ({name}, {hip}, captures). Immutable; a named
    tuple rather than a frozen dataclass because matchers make one per hit, thousands per file, and a named tuple
    is built in half the time."""

    start: int
    end: int
    name: str = ""
    replacement: str | None = None
    values: tuple[tuple[str, Any], ...] = ()
    message: str | None = None  # a matcher that knows better than the rule's template (e.g. per-entry notes)


# A Hit from all six fields in order, `make_hit((start, end, name, replacement, values, message))`: what Hit's own
# __new__ builds, without its Python frame (for matchers that make thousands of hits per file).
make_hit = functools.partial(tuple.__new__, Hit)


def per_object(build: Callable[[Any], Any], limit: int = 65536) -> Callable[[Any], Any]:
    """`read(obj)`: what is read from a piece of rule data (a rule, a pattern object), worked out the first time the
    object is asked about: rule data lives for the whole scan, and each file asks about it again. Each entry keeps
    its object, so an id can never be another object's; at `limit` entries (objects made on the fly by tests,
    history walks or callers) the memo starts again. A closure, not an object with __call__: it is asked hundreds
    of times per file, and a plain function is called in about half the time."""
    known: dict[int, tuple[Any, Any]] = {}

    def read(obj: Any) -> Any:
        got = known.get(id(obj))
        if got is None or got[0] is not obj:
            if len(known) >= limit:
                known.clear()
            got = known[id(obj)] = (obj, build(obj))
        return got[1]

    return read


@dataclass
class MatchContext:
    """Shared, read-only data matchers may need; loaded lazily so a scan pays only for what its rules use."""

    kb_dir: Any = None
    extra: dict = field(default_factory=dict)
    # Answers matchers work out from the rule data and the knowledge base alone (the same for every file), kept
    # for the scan by the matcher that asks: {matcher's key: its memo}.
    memo: dict = field(default_factory=dict)

    @functools.cached_property
    def kb(self):
        from porter.kb import load_kb

        return load_kb(self.kb_dir)

    @functools.cached_property
    def kb_tokens(self) -> frozenset[bytes]:
        """Every knowledge-base name as bytes, to intersect with a file's token set in one step."""
        return frozenset(map(str.encode, self.kb.names))

    @functools.cached_property
    def libraries(self):
        from porter.libraries import load_libraries

        return load_libraries()


class SkipFile(Exception):
    """Raised by a matcher that cannot read its file (malformed JSON/YAML/TOML, a broken Dockerfile or CMake file):
    the scan records the file as skipped with this reason and keeps no findings for it, instead of crashing."""


Matcher = Callable[[dict, "SourceFile", MatchContext], Iterable[Hit]]
