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
        return frozenset(n.encode() for n in self.kb.names)

    @functools.cached_property
    def libraries(self):
        from porter.libraries import load_libraries

        return load_libraries()


class SkipFile(Exception):
    """Raised by a matcher that cannot read its file (malformed JSON/YAML/TOML, a broken Dockerfile or CMake file):
    the scan records the file as skipped with this reason and keeps no findings for it, instead of crashing."""


Matcher = Callable[[dict, "SourceFile", MatchContext], Iterable[Hit]]
