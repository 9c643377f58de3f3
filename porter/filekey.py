"""A C/C++/CUDA file's cache key names the repository facts that file can read, not all of them.

A file's scan result depends on its own bytes and on repository-wide facts (porter.pipeline.RepositoryFacts): the
qualifier macros, the repository's own headers, integer constants, the macros that stand for one build and the
constants with a value per build. Every one of them is read by name or through an include: a macro is rewritten
only where its name stands in the file, a constant folded only where the file names it, a build name decides only
a directive that names it, and the repository's headers matter only to the file's own `#include`s (whether each
resolves to a repository file, which porter.source.includes.project_header decides from the repository files of
the included file's name). So the key holds those parts alone, and adding a header or a constant anywhere else
leaves every other file's entry valid.

What the file names is known only from its bytes, which a git blob's cache hit never reads. So the scan keeps two
entries per file: under the file's own key (content, path, rules, porter's code), what it names (`uses_of`: the
runs of name bytes in it); under that key joined with the digest of the facts it names (FactsView.digest), the
result. A history walk keeps the same per blob (porter.history.points).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from porter.source.parse_input import SPELLING

try:  # an optional speed dependency (google-re2 is declared): without it each header name is searched alone
    import re2 as _re2
except ImportError:  # pragma: no cover
    _re2 = None

# Bytes that can be part of a name some fact is keyed by: C identifiers (with `$` and UTF-8) and file names (with
# `.`, `-`, `+`). Every occurrence of such a name in the file lies inside one run of them, so `name in` the runs
# joined by spaces is `name in data`.
_RUN_BYTES = (frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.-+")
              | frozenset(range(0x80, 0x100)))
_TO_RUNS = bytes(b if b in _RUN_BYTES else 0x20 for b in range(256))
_TO_WORDS = str.maketrans(".-+", "   ")  # a run's identifiers: what a constant is named by
_FILE_NAME = frozenset(_RUN_BYTES)


def uses_of(data: bytes) -> str:
    """What a file can read of the repository facts, as the cache stores it: each distinct run of name bytes in
    it, sorted and space-separated (latin-1, so any byte survives)."""
    return b" ".join(sorted(set(data.translate(_TO_RUNS).split()))).decode("latin-1")


def well_formed(entry: Any) -> TypeGuard[str]:
    """Whether a cache entry has the shape uses_of makes (else it is a miss)."""
    return isinstance(entry, str)


@dataclass
class FactsView:
    """The repository facts of one scan, ready to be cut down to what one file names."""

    macros: dict[str, str]
    headers: frozenset[str]
    constants: dict[str, int]
    build_names: tuple[frozenset[str], frozenset[str]]
    alternatives: dict[str, tuple[int, ...]]
    # by the name's latin-1 spelling (as uses_of spells the file's runs): constants and alternatives as
    # (name, value), headers as their paths
    _constants: dict[str, tuple[str, int]] = field(default_factory=dict, repr=False)
    _alternatives: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict, repr=False)
    _headers: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _odd_headers: list[str] = field(default_factory=list, repr=False)
    _header_set: Any = field(default=None, repr=False)  # see _named_headers; False: none to be had
    _header_names: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._constants = {_latin1(k): (k, v) for k, v in self.constants.items()}
        self._alternatives = {_latin1(k): (k, v) for k, v in self.alternatives.items()}
        for path in sorted(self.headers):
            name = _latin1(path.rsplit("/", 1)[-1])
            if name and all(ord(ch) in _FILE_NAME for ch in name):
                self._headers.setdefault(name, []).append(path)
            else:
                self._odd_headers.append(path)  # a name no run can hold: every file may include it

    def digest(self, uses: str) -> str:
        """The digest of the facts a file with `uses` (uses_of) can read: the macros and build names its bytes
        hold (as substrings, as the parser's macro rewriting and the build-side tests search), the constants it
        names as words, and the repository files named as it can include them (porter.source.includes.
        project_header decides an include by the files of the included file's name alone)."""
        words = set(uses.translate(_TO_WORDS).split())
        macros = sorted((n, b) for n, b in self.macros.items()
                        if _latin1(n.removesuffix("()").removesuffix(SPELLING)) in uses)
        headers = sorted(p for name in self._named_headers(uses) for p in self._headers[name])
        constants = _named(self._constants, words)
        alternatives = _named(self._alternatives, words)
        build = [sorted(n for n in names if _latin1(n) in uses) for names in self.build_names]
        basis = repr((macros, headers, self._odd_headers, constants, build, alternatives))
        return hashlib.sha256(basis.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def _named_headers(self, uses: str) -> list[str]:
        """The names of repository files (keys of _headers) that stand in `uses`, as substrings: found by one RE2
        set search of the file's runs for all of them (each name searched alone was a quarter of a warm scan of
        FasterTransformer's 765 files: 765 names in each file), else one search per name."""
        if self._header_set is None:
            self._header_names = sorted(self._headers)
            self._header_set = _literal_set(self._header_names) or False
        if self._header_set is not False:
            try:
                hits = self._header_set.Match(uses.encode("latin-1"))
            except Exception:  # noqa: BLE001 - never expected; then each name is searched alone
                hits = ()
            if 0 in hits:  # the sentinel `\A` matches every text: missing, the search did not finish
                return [self._header_names[i - 1] for i in hits if i]
        return [name for name in self._headers if name in uses]


# What an RE2 set of header names may take (a search that would need more reports failure: the names are then
# searched one by one).
_SET_MEMORY = 64 << 20


def _literal_set(names: list[str]) -> Any:
    """An RE2 set searching a latin-1 text for each of `names` as a literal anywhere in it (index i + 1 for
    names[i]; index 0 the sentinel, RE2's start of text), or None when RE2 is not there or will not take them."""
    if _re2 is None or not names:
        return None
    try:
        options = _re2.Options()
        options.log_errors = False
        options.encoding = _re2.Options.Encoding.LATIN1
        options.max_mem = _SET_MEMORY
        found = _re2.Set.SearchSet(options)
        for i, source in enumerate([rb"\A", *(re.escape(n.encode("latin-1")) for n in names)]):
            if found.Add(source) != i:
                return None
        found.Compile()
        return found
    except Exception:  # noqa: BLE001 - never expected (literals); then each name is searched alone
        return None


def _named(table: dict[str, tuple[str, Any]], words: set[str]) -> list[tuple[str, Any]]:
    """The entries of `table` whose name is one of `words`, sorted (walking the smaller of the two)."""
    if len(table) < len(words):
        return sorted(table[k] for k in table if k in words)
    return sorted(table[w] for w in words if w in table)


def _latin1(name: str) -> str:
    """`name` spelled as uses_of spells the file's words (its UTF-8 bytes read as latin-1)."""
    return name if name.isascii() else name.encode("utf-8", "surrogateescape").decode("latin-1")


def keyed(file_key: str, facts: str) -> str:
    """The key of a file's result: its own key joined with the digest of the facts it reads."""
    return "file-" + hashlib.sha256(f"{file_key}\0{facts}".encode()).hexdigest()
