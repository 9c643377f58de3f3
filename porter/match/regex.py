"""Compile a rule's regular expression on a linear-time engine (RE2) whenever that engine means the same thing.

A backtracking engine (Python's `re`) can take exponential time on a pattern like `(a+)+$`, and nothing can
interrupt it: a repository rule would stall the scan. RE2 matches in time linear in the text, so every pattern
it can express runs on it. What it cannot express (look-around, back-references, possessive or atomic groups,
`\\Z`, verbose mode) is left to `re`, and `linear_problem` tells the rule loader so that only porter's own,
reviewed rules may use it. Where the engines differ in meaning the pattern is rewritten (`\\s` also matches the
vertical tab in Python) or left to `re` (`$` without the multiline flag also matches before a final newline in
Python).

A pattern left to `re` (porter's own rules only) runs under a time slice (_Backtracking): a search that backtracks
past it on one text raises Backtracked, which the rule engine turns into a finding saying the rule was not checked
to the end of the file, instead of one quadratic pattern taking the whole file's budget (and every other rule's
findings in that file with it).
"""
from __future__ import annotations

import functools
import re
import signal
import threading
from typing import Any, Callable, Iterator

try:  # an optional speed-and-safety dependency: without it every pattern runs on `re` (loader still checks)
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a declared dependency
    _re2 = None

_FLAGS = {"ignorecase": re.I, "multiline": re.M, "dotall": re.S}
_RE2_INLINE = {"ignorecase": "i", "multiline": "m", "dotall": "s"}


def _options():
    o = _re2.Options()
    o.log_errors = False  # a pattern RE2 refuses falls back to `re`; libre2 must not write to stderr
    return o


_SPACE = "\\t\\n\\x0b\\f\\r "  # Python's \\s on bytes and ASCII text; RE2's lacks the vertical tab


def _for_re2(pattern: str, flags: tuple[str, ...]) -> str | None:
    """`pattern` rewritten so RE2 means what `re` means, or None where that is not done (see the docstring)."""
    if "\\Z" in pattern or re.search(r"\(\?[aiLmsu]*x", pattern):
        return None
    multiline = "multiline" in flags or re.match(r"\(\?[a-z]*m", pattern) is not None
    out: list[str] = []
    for _, piece, kind, in_class in _pieces(pattern):
        if kind == "escape" and piece == "\\s":
            out.append(_SPACE if in_class else f"[{_SPACE}]")
        elif kind == "escape" and piece == "\\S":
            if in_class:
                return None
            out.append(f"[^{_SPACE}]")
        elif kind == "char" and piece == "$" and not in_class and not multiline:
            return None  # Python's `$` also matches before a final newline; RE2's does not
        else:
            out.append(piece)
    return "".join(out)


def _pieces(pattern: str, start: int = 0):
    """`pattern` from `start` as (index, text, kind, in_class): kind "escape" (a backslash and the character after
    it), "open" (the `[` or `[^` that starts a class), "close" (the `]` that ends it; one right after the opening
    is a literal) or "char"; `in_class` says whether the piece sits inside a class. The one reading of escapes and
    classes that rewriting for RE2, relaxing for the set search and finding a group's end share."""
    i, n, in_class, opened = start, len(pattern), False, False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            yield i, pattern[i:i + 2], "escape", in_class
            i, opened = i + 2, False
        elif in_class:
            if ch == "]" and not opened:
                in_class = False
                yield i, ch, "close", True
            else:
                yield i, ch, "char", True
            i, opened = i + 1, False
        elif ch == "[":
            text = "[^" if pattern[i + 1:i + 2] == "^" else "["
            yield i, text, "open", False
            i, in_class, opened = i + len(text), True, True
        else:
            yield i, ch, "char", False
            i += 1


class _Match:
    """An RE2 match with `re`'s interface: groups by str name, str keys in groupdict."""

    __slots__ = ("_m", "_names")

    def __init__(self, m, names: dict[str, int]):
        self._m, self._names = m, names

    def _index(self, group):
        return self._names[group] if isinstance(group, str) else group

    def group(self, *groups):
        if len(groups) > 1:
            return tuple(self._m.group(self._index(g)) for g in groups)
        return self._m.group(self._index(groups[0]) if groups else 0)

    __getitem__ = group

    def start(self, group=0):
        return self._m.start(self._index(group))

    def end(self, group=0):
        return self._m.end(self._index(group))

    def span(self, group=0):
        return self._m.span(self._index(group))

    def groups(self, default=None):
        return self._m.groups(default)

    def groupdict(self, default=None):
        return {name: self._m.group(i) if self._m.group(i) is not None else default for name, i in self._names.items()}


class _Pattern:
    """An RE2 pattern with `re`'s interface (search, match, fullmatch, finditer, findall, groupindex, pattern)."""

    __slots__ = ("_rx", "groupindex", "pattern", "flags", "groups")

    def __init__(self, rx, pattern):
        self._rx, self.pattern, self.flags, self.groups = rx, pattern, 0, rx.groups
        self.groupindex = {(k.decode() if isinstance(k, bytes) else k): v for k, v in rx.groupindex.items()}

    def _wrap(self, m):
        return None if m is None else _Match(m, self.groupindex)

    def search(self, text, *args):
        return self._wrap(self._rx.search(text, *args))

    def match(self, text, *args):
        return self._wrap(self._rx.match(text, *args))

    def fullmatch(self, text, *args):
        return self._wrap(self._rx.fullmatch(text, *args))

    def finditer(self, text, *args):
        names = self.groupindex
        return (_Match(m, names) for m in self._rx.finditer(text, *args))

    def findall(self, text, *args):
        return self._rx.findall(text, *args)


@functools.lru_cache(maxsize=4096)
def _on_re2(pattern: str, flags: tuple[str, ...], as_bytes: bool, latin1: bool = False) -> _Pattern | None:
    """`pattern` compiled on RE2, or None where it runs on `re` (see _for_re2; RE2 refuses look-around etc.)."""
    translated = _for_re2(pattern, flags) if _re2 is not None else None
    if translated is not None:
        inline = "".join(_RE2_INLINE[f] for f in flags if f in _RE2_INLINE)
        source = (f"(?{inline})" if inline else "") + translated
        try:
            options = _latin1_options() if latin1 else _options()
            return _Pattern(_re2.compile(source.encode() if as_bytes else source, options), pattern)
        except Exception:  # noqa: BLE001 - RE2 refuses it (look-around etc.): Python's engine, for porter's own rules
            pass
    return None


@functools.lru_cache(maxsize=4096)
def _compile(pattern: str, flags: tuple[str, ...], as_bytes: bool, latin1: bool = False) -> Any:
    on_re2 = _on_re2(pattern, flags, as_bytes, latin1)
    if on_re2 is not None:
        return on_re2
    f = 0
    for name in flags:
        f |= _FLAGS[name]
    return _Backtracking(re.compile(pattern.encode() if as_bytes else pattern, f))


# ------------------------------------------------------------------------------------- backtracking, in a time slice

# How long one backtracking pattern may search one text: a base plus a share per MiB (a linear pattern on `re`
# reads several MiB a second; a quadratic one on a 64 KB line took 5.5 s), never more than a cap, so that one
# pattern cannot take the file's whole budget (30 s by default) and with it the other rules' findings.
BACKTRACK_BASE_S = 2.0
BACKTRACK_PER_MIB_S = 4.0
BACKTRACK_MAX_S = 10.0


def backtrack_seconds(size: int) -> float:
    """The time slice of one backtracking search over a text of `size` characters or bytes."""
    return min(BACKTRACK_MAX_S, BACKTRACK_BASE_S + BACKTRACK_PER_MIB_S * size / (1 << 20))


class Backtracked(Exception):
    """A pattern on Python's backtracking engine ran past its time slice on one text; what it found before that
    point was handed out, what lies after it was not searched."""

    def __init__(self, pattern: str | bytes, seconds: float):
        super().__init__(f"a backtracking pattern ran past its {seconds:g} s slice")
        self.pattern = pattern
        self.seconds = seconds


class _Interrupted(Exception):
    """Raised by the alarm inside `re` (Python 3.11's `re` checks for signals while it matches)."""


class _Slice:
    """The one running slice: SIGALRM at its end interrupts `re` only while a match is armed; an alarm between two
    matches (a consumer's own code running) marks it expired for the next one."""

    active = False
    armed = False
    expired = False


def _alarm(signum: int, frame: Any) -> None:
    _Slice.expired = True
    if _Slice.armed:
        _Slice.armed = False
        raise _Interrupted


class _Sliced:
    """A time slice for the searches inside it. Where no timer can be used (not the main thread, a platform without
    setitimer, a real-time timer someone else set) or a slice is already running (a search nested in a finditer's
    consumer shares the outer slice), it does nothing."""

    __slots__ = ("seconds", "owner", "previous")

    def __init__(self, seconds: float):
        self.seconds, self.owner, self.previous = seconds, False, None

    def __enter__(self) -> None:
        if _Slice.active or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return
        if signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            return
        self.previous = signal.signal(signal.SIGALRM, _alarm)
        _Slice.active, _Slice.armed, _Slice.expired, self.owner = True, False, False, True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.owner:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _Slice.active = _Slice.armed = _Slice.expired = False
            signal.signal(signal.SIGALRM, self.previous)
            self.owner = False


def _armed(call: Callable[..., Any], *args: Any) -> Any:
    """`call(*args)` with the running slice armed (unbounded when no slice runs)."""
    if not _Slice.active:
        return call(*args)
    if _Slice.expired:
        raise _Interrupted
    _Slice.armed = True
    try:
        return call(*args)
    finally:
        _Slice.armed = False


class _Backtracking:
    """A pattern on Python's `re` (look-around, back-references: porter's own rules only) with `re`'s interface,
    each search bounded by backtrack_seconds (see Backtracked)."""

    __slots__ = ("_rx", "pattern", "flags", "groups", "groupindex")

    def __init__(self, rx: re.Pattern[Any]):
        self._rx, self.pattern, self.flags, self.groups, self.groupindex = rx, rx.pattern, rx.flags, rx.groups, \
            rx.groupindex

    def _once(self, call: Callable[..., Any], text: Any, args: tuple[Any, ...]) -> Any:
        seconds = backtrack_seconds(len(text))
        with _Sliced(seconds):
            try:
                return _armed(call, text, *args)
            except _Interrupted:
                raise Backtracked(self.pattern, seconds) from None

    def search(self, text: Any, *args: Any) -> Any:
        return self._once(self._rx.search, text, args)

    def match(self, text: Any, *args: Any) -> Any:
        return self._once(self._rx.match, text, args)

    def fullmatch(self, text: Any, *args: Any) -> Any:
        return self._once(self._rx.fullmatch, text, args)

    def findall(self, text: Any, *args: Any) -> Any:
        return self._once(self._rx.findall, text, args)

    def finditer(self, text: Any, *args: Any) -> Iterator[Any]:
        """The matches one by one; the slice runs from the first to the last (the consumer's time between them
        counts too, which only makes the bound tighter)."""
        seconds = backtrack_seconds(len(text))
        with _Sliced(seconds):
            matches = self._rx.finditer(text, *args)
            while True:
                try:
                    m = _armed(next, matches, None)
                except _Interrupted:
                    raise Backtracked(self.pattern, seconds) from None
                if m is None:
                    return
                yield m


def compile_regex(pattern: str, flags: tuple[str, ...] = (), *, text: bool = False, latin1: bool = False) -> Any:
    """A compiled pattern with `search`/`finditer`/`match` (on bytes; on str with text=True), RE2 where it can.
    `latin1` (bytes only): RE2 reads each byte as one character, exactly as `re` reads bytes, instead of UTF-8
    (where a stray byte >= 0x80 matches no `.` or `[^...]`), for porter's own patterns that must mean what they
    meant on `re`."""
    return _compile(pattern, tuple(flags), not text, latin1 and not text)


def linear_problem(pattern: str, flags: tuple[str, ...] = ()) -> str | None:
    """Why `pattern` would not run on the linear-time engine (None: it does), for rules from outside porter."""
    if _re2 is None:
        return "the linear-time regex engine (google-re2) is not installed"
    translated = _for_re2(pattern, tuple(flags))
    if translated is None:
        return ("uses `$` without the multiline flag, `\\S` inside a class, `\\Z` or verbose mode, which only "
                "porter's own rules may use (add flags: [multiline] to anchor at line ends)")
    try:
        _re2.compile(translated, _options())
    except Exception as e:  # noqa: BLE001 - the engine's own reason
        why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        return f"not supported by the linear-time engine (RE2): {why}"
    return None


# ------------------------------------------------------------------------------------------------ many at once

def _relaxed(pattern: str) -> str | None:
    """`pattern` without the parts RE2 lacks, so that it matches wherever `pattern` does (and maybe elsewhere):
    look-arounds deleted (an assertion removed only widens what matches), a named back-reference `(?P=name)` made
    what its group matches (the text it repeats is such a text; "any text" when the group holds groups or
    back-references of its own, so a set search does not carry a may-match state to the end of every file). None
    when that is not done safely (a quantifier right after a removed part would change meaning, numbered
    back-references, conditionals)."""
    out: list[str] = []
    skip = 0  # the end of a part left out
    for i, piece, kind, in_class in _pieces(pattern):
        if i < skip:
            continue
        if kind == "escape" and not in_class and piece[1:2].isdigit():
            return None  # \1: a numbered back-reference
        head = pattern[i:i + 4]
        if kind == "char" and not in_class and head.startswith(("(?=", "(?!", "(?<=", "(?<!", "(?P=", "(?(")):
            if head.startswith("(?("):
                return None
            end = _group_end(pattern, i)
            if end is None or pattern[end:end + 1] in ("*", "+", "?", "{"):
                return None
            if head.startswith("(?P="):
                out.append(_referenced(pattern, pattern[i + 4:end - 1]))
            skip = end
            continue
        if kind == "char" and not in_class and piece == "{":
            bound = _REPEAT.match(pattern, i)
            if bound and max(int(b or 0) for b in bound.groups()) > _SET_MAX_REPEAT:
                # RE2 refuses a count above 1000 (`[^;{}]{0,2000}`, a scan capped so `re` stays fast), and a
                # large one it takes makes the set search's DFA a state per count wherever the repeated part
                # overlaps what follows: DEV039's `(?P<ptr>\w+)[^;{}]{0,1000}\)` alone took 0.46 CPU-s over
                # FasterTransformer's C++ code (the other 62 members 0.08). The unbounded repetition matches
                # wherever the bounded one does.
                low = int(bound.group(1))
                out.append(f"{{{low},}}" if low <= _SET_MAX_REPEAT else "*")
                skip = bound.end()
                continue
        out.append(piece)
    return "".join(out)


_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")
# Counts above this are unbounded in a set's members (_relaxed): well above the few-character counts rules use to
# spell a token (`[lL]{1,2}`, `\d{1,2}`, `[fF]{2}`), well below RE2's own limit of 1000.
_SET_MAX_REPEAT = 64


def _referenced(pattern: str, name: str) -> str:
    """What `(?P=name)` may match, relaxed: the body of group `name` of `pattern`, or any text."""
    opening = f"(?P<{name}>"
    for i, _, kind, in_class in _pieces(pattern):
        if kind == "char" and not in_class and pattern.startswith(opening, i):
            end = _group_end(pattern, i)
            body = _relaxed(pattern[i + len(opening):end - 1]) if end is not None else None
            if body is not None and "(" not in body and "\\" not in body.replace("\\w", "").replace("\\d", ""):
                return f"(?:{body})"
            break
    return "(?s:.*)"


def _group_end(pattern: str, start: int) -> int | None:
    """The index just past the group opening at `start` (escapes and classes respected), or None."""
    depth = 0
    for i, piece, kind, in_class in _pieces(pattern, start):
        if kind != "char" or in_class:
            continue
        if piece == "(":
            depth += 1
        elif piece == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


class RegexSet:
    """Which of many patterns can match somewhere in a text, answered for all of them by one pass (RE2's set
    search) instead of one search per pattern; a pattern the set says cannot match need not run at all.

    A pattern that runs on RE2 is searched as it runs (same source, same options), so the answer is exact. One
    that runs on Python's engine (look-around, back-references) is searched in a relaxed form that matches
    wherever it does (see _relaxed: also counts above _SET_MAX_REPEAT unbounded), byte by byte as `re` reads
    bytes (Latin-1); where it might match it runs as before. A pattern neither form fits is not in the set: it
    always runs. If a set search fails (RE2 reports an exhausted memory budget as no match), the answer is
    "unknown" and every pattern runs.
    """

    def __init__(self) -> None:
        self._sources: dict[str, list[bytes]] = {"utf8": [], "latin1": []}
        self._where: dict[tuple[str, tuple[str, ...]], tuple[str, int]] = {}
        # Per set, the (pattern, flags) at each index (index 0: the sentinel): a search's hits named without a walk
        # over every member (asked once per file and set).
        self._keys: dict[str, list[tuple[str, tuple[str, ...]] | None]] = {"utf8": [None], "latin1": [None]}
        # The (pattern, flags) in the set: `key in regexes.members`, asked per pattern and file, without a call.
        self.members = self._where.keys()
        self._sets: dict[str, Any] = {}
        self.version = object()  # a new one whenever a pattern is added (per-file answers are for one version)

    def add(self, pattern: str, flags: tuple[str, ...] = ()) -> None:
        key = (pattern, tuple(flags))
        if key in self._where or _re2 is None:
            return
        # Whether it runs on RE2, asked without compiling it on `re` where it does not: a rule's `re` pattern is
        # compiled where it first runs (~40 ms of every scan's start-up went to patterns most scans never run).
        native = _on_re2(pattern, key[1], True, False) is not None
        relaxed = pattern if native else _relaxed(pattern)
        translated = _for_re2(relaxed, key[1]) if relaxed is not None else None
        if translated is None:
            return
        inline = "".join(_RE2_INLINE[f] for f in key[1] if f in _RE2_INLINE)
        source = ((f"(?{inline})" if inline else "") + translated).encode()
        kind = "utf8" if native else "latin1"
        try:
            if not native:
                _re2.compile(source, _latin1_options())  # a relaxed form RE2 refuses: leave the pattern out
        except Exception:  # noqa: BLE001
            return
        self._sources[kind].append(source)
        self._where[key] = (kind, len(self._sources[kind]))  # index 0 of each set is the sentinel
        self._keys[kind].append(key)
        self._sets.pop(kind, None)
        self._sets.pop("both", None)
        self.version = object()

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def possible(self, text: bytes) -> frozenset[tuple[str, tuple[str, ...]]] | None:
        """The (pattern, flags) in the set that may match somewhere in `text`; None when a search failed."""
        if self._sources["utf8"] and self._sources["latin1"] and text.isascii():
            both = self._both()
            if both is not None:
                hits = both.Match(text)
                if 0 not in hits:
                    return None
                keys = self._keys["both"]
                return frozenset(keys[i] for i in hits if i)
        found: list[tuple[str, tuple[str, ...]]] = []
        for kind, sources in self._sources.items():
            if not sources:
                continue
            compiled = self._sets.get(kind)
            if compiled is None:
                compiled = self._sets[kind] = _compile_set(sources, kind)
            if compiled is False:
                return None
            hits = compiled.Match(text)
            if 0 not in hits:  # the sentinel `\A` matches every text: missing, the search did not finish
                return None
            keys = self._keys[kind]
            found.extend(keys[i] for i in hits if i)  # index 0, the sentinel, names no pattern
        return frozenset(found)

    def _both(self) -> Any:
        """One set of every member, searched byte by byte (Latin-1), for a text of ASCII bytes only: on such a text
        a pattern matches where it does under UTF-8 (a byte is a character under both; the two differ only on
        bytes from 0x80, which it holds none of), so one pass answers for both sets (two were a file's dearest
        searches after the parse: 0.15 CPU-s on cuda-samples, four per file, one per set and text). None if that
        set cannot be compiled (each member then searched in its own set)."""
        both = self._sets.get("both")
        if both is None:
            sources = self._sources["utf8"] + self._sources["latin1"]
            both = self._sets["both"] = _compile_set(sources, "latin1")
            self._keys["both"] = [None, *self._keys["utf8"][1:], *self._keys["latin1"][1:]]
        return both or None


def _latin1_options():
    o = _options()
    o.encoding = _re2.Options.Encoding.LATIN1
    return o


# Members per RE2 set. RE2 builds a set's DFA as the search meets new states, and states multiply with the members
# that can be part-way through a match at once (`\b\w*(?:[Tt]hreads|...)` is part-way at every word): the one set of
# all 62 cuda code patterns spent 0.25 CPU-s building states over cuda-samples' .cu/.cuh files (0.43 over
# FasterTransformer's C++ files) against 0.02 for a second search of the same texts. In sets of at most 16 each
# search is simpler; four searches cost 0.13 (0.26) in all.
_SET_MEMBERS = 16


class _Sets:
    """Sets of at most _SET_MEMBERS sources each, searched one after the other and answering as the one set of all
    of them: `Match` gives the indices (the sentinel 0 first, then 1.. in the order the sources were given), or no
    sentinel when any part's search did not finish."""

    __slots__ = ("_parts",)

    def __init__(self, parts: list[tuple[int, Any]]) -> None:
        self._parts = parts  # (index of the part's first source minus one, the part's set)

    def Match(self, text: bytes) -> list[int]:  # noqa: N802 - re2.Set's name, which callers ask for
        hits = [0]
        for offset, part in self._parts:
            found = part.Match(text)
            if 0 not in found:
                return []
            hits.extend(offset + i for i in found if i)
        return hits


def _compile_set(sources: list[bytes], kind: str):
    """The sources as _Sets (index 0: a sentinel `\\A` that every finished search matches), or False."""
    parts = []
    for start in range(0, len(sources), _SET_MEMBERS):
        part = _compile_part(sources[start:start + _SET_MEMBERS], kind)
        if part is False:
            return False
        parts.append((start, part))
    return _Sets(parts)


def _compile_part(sources: list[bytes], kind: str):
    try:
        options = _latin1_options() if kind == "latin1" else _options()
        options.max_mem = 64 << 20
        found = _re2.Set.SearchSet(options)
        for i, source in enumerate([rb"\A", *sources]):
            if found.Add(source) != i:
                return False
        found.Compile()
        return found
    except Exception:  # noqa: BLE001 - never expected (each source compiled alone); then every pattern runs
        return False
