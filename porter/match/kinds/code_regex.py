"""How code patterns' regexes and globs run (porter.match.kinds.code): on the linear-time engine, behind a literal
prefilter, and all of a language's declared regexes searched for in one pass per file."""
from __future__ import annotations

import fnmatch
import functools
import re
from typing import Iterable

from porter.match.prefilter import LiteralIndex, required_literals
from porter.match.regex import RegexSet, compile_regex as linear_regex
from porter.source.parse import SourceFile


def compile_regex(pattern: str, flags: tuple[str, ...] = ()):
    """A rule's pattern on bytes, on the linear-time engine where it can run (porter.match.regex)."""
    return linear_regex(pattern, tuple(flags))


@functools.lru_cache(maxsize=4096)
def _prefilter(pattern: str, flags: tuple[str, ...] = ()) -> tuple[frozenset[bytes] | None, bool]:
    try:
        lits, fold = required_literals(pattern, flags)
    except Exception:  # an analysis failure must never lose a hit: no prefilter
        return None, False
    if lits is None:
        return None, fold
    _LITERALS.add(lits)  # once per pattern: from then on every file is searched for these too
    return frozenset(lits), fold


def may_match(pattern: str, flags: tuple[str, ...], sf: SourceFile, text: bytes, key: str) -> bool:
    """Whether `text` (sf.code or sf.data, named by `key`) holds a literal every match of the regex needs."""
    lits, fold = _prefilter(pattern, flags)
    if lits is None:
        return True
    memo = sf.cache.get(("literals", key, fold))
    if memo is None or memo[0] != len(_LITERALS.literals):  # a pattern brought new literals: search again
        if fold:
            ck = "lower:" + key
            if ck not in sf.cache:
                sf.cache[ck] = text.lower()
            text = sf.cache[ck]
        memo = sf.cache[("literals", key, fold)] = (len(_LITERALS.literals), _LITERALS.present(text))
    return not memo[1].isdisjoint(lits)


# The literals of every regex prefilter, searched for in a file in one pass (shared by all regex patterns).
_LITERALS = LiteralIndex()
# The rules' regex patterns, searched for all at once per file (porter.match.regex.RegexSet), one set per language
# and text (code or data): a file is searched only for the patterns that can run on it; see register_regexes.
_REGEXES: dict[tuple[str, str], RegexSet] = {}


def register_regexes(patterns: Iterable[dict], languages: Iterable[str]) -> None:
    """Declare regex patterns (rule pattern objects) of rules for `languages` before the first file, so each file
    of those languages is searched for all of them in one pass and a pattern that cannot match there is not run.
    Undeclared patterns simply always run."""
    languages = tuple(languages)
    for pattern in patterns:
        if "regex" in pattern:
            key, regex, flags = ("code" if pattern.get("in", "code") == "code" else "data"), pattern["regex"], \
                tuple(pattern.get("flags", ()))
        elif "lane_mask" in pattern:
            key, regex, flags = "code", lane_mask_regex(pattern["lane_mask"]), ()
        else:
            continue
        for language in languages:
            _REGEXES.setdefault((language, key), RegexSet()).add(regex, flags)


def may_run(pattern: str, flags: tuple[str, ...], sf: SourceFile, text: bytes, key: str) -> bool:
    """Whether a regex may match in `text`, asked the cheapest way: a file's code is searched for all of its
    language's declared patterns anyway, so for those that answer alone decides (no literal pass over the code;
    the regex itself is exact, so a looser answer for a relaxed pattern only costs a search); raw bytes are first
    checked for literals, which spares most files the set search there."""
    regexes = _REGEXES.get((sf.language, key))
    known = (pattern, flags)
    if regexes is None or known not in regexes.members:
        return may_match(pattern, flags, sf, text, key)
    if key != "code" and not may_match(pattern, flags, sf, text, key):
        return False
    # The set's answer for the file, searched once per file and set version.
    memo = sf.cache.get(("regex_set", key))
    if memo is None or memo[0] is not regexes.version:
        memo = sf.cache[("regex_set", key)] = (regexes.version, regexes.possible(text))
    return memo[1] is None or known in memo[1]


def regex_gate(patterns: Iterable[dict]) -> tuple[tuple[str, frozenset[tuple[str, tuple[str, ...]]]], ...] | None:
    """For `regex` patterns (of one rule): per text they run on ("code" or "data"), the set of their
    (pattern, flags). See may_fire."""
    by_key: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
    for pattern in patterns:
        key = "code" if pattern.get("in", "code") == "code" else "data"
        by_key.setdefault(key, set()).add((pattern["regex"], tuple(pattern.get("flags", ()))))
    return tuple((key, frozenset(known)) for key, known in sorted(by_key.items())) or None


def may_fire(gate: tuple[tuple[str, frozenset[tuple[str, tuple[str, ...]]]], ...], sf: SourceFile) -> bool:
    """False only when none of a rule's regex patterns (their regex_gate) can match in the file, as the file's one
    set search (the same answer may_run gives each pattern) says: the engine then skips the rule whole, without a
    matcher call per pattern (a rule may hold a dozen, each asked of every file)."""
    for key, known in gate:
        regexes = _REGEXES.get((sf.language, key))
        if regexes is None or not regexes.members >= known:
            return True  # a pattern not declared for this language runs: may_run decides it
        memo = sf.cache.get(("regex_set", key))
        if memo is None or memo[0] is not regexes.version:
            memo = sf.cache[("regex_set", key)] = (regexes.version,
                                                   regexes.possible(sf.code if key == "code" else sf.data))
        if memo[1] is None or not memo[1].isdisjoint(known):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def any_glob(globs: tuple[str, ...]):
    """`matches(name)`: any(fnmatch.fnmatchcase(name, g) for g in globs), as one regex (each glob's translation
    is anchored at both ends, and a match is tried from the start) instead of one call per glob."""
    if not globs:
        return lambda name: False
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)).match


# A call's name must not follow a word character, `.` or `>` (a member or a longer name), as (?<![\w.>]) says.
_LANE_CALL_GUARD = r"(?<![\w.>])"


def lane_mask_regex(names: Iterable[str]) -> str:
    """The regex a lane_mask pattern runs: a call of one of `names` and its first argument (group `hit`)."""
    return _LANE_CALL_GUARD + lane_mask_call(names)


def lane_mask_call(names: Iterable[str]) -> str:
    arg = r"(?P<hit>[^,()]*(?:\([^()]*\)[^,()]*)*)"
    return r"(?P<fn>" + "|".join(re.escape(n) for n in names) + r")\s*\(" + arg + r"[,)]"
