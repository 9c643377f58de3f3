"""Compile a rule's regular expression on a linear-time engine (RE2) whenever that engine means the same thing.

A backtracking engine (Python's `re`) can take exponential time on a pattern like `(a+)+$`, and nothing can
interrupt it: a repository rule would stall the scan. RE2 matches in time linear in the text, so every pattern
it can express runs on it. What it cannot express (look-around, back-references, possessive or atomic groups,
`\\Z`, verbose mode) is left to `re`, and `linear_problem` tells the rule loader so that only porter's own,
reviewed rules may use it. Where the engines differ in meaning the pattern is rewritten (`\\s` also matches the
vertical tab in Python) or left to `re` (`$` without the multiline flag also matches before a final newline in
Python).
"""
from __future__ import annotations

import functools
import re
from typing import Any

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
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif nxt == "S":
                if in_class:
                    return None
                out.append(f"[^{_SPACE}]")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                out.append("[^")
                i += 2
                continue
        elif ch == "$" and not multiline:
            return None  # Python's `$` also matches before a final newline; RE2's does not
        out.append(ch)
        i += 1
    return "".join(out)


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
def _compile(pattern: str, flags: tuple[str, ...], as_bytes: bool) -> Any:
    translated = _for_re2(pattern, flags) if _re2 is not None else None
    if translated is not None:
        inline = "".join(_RE2_INLINE[f] for f in flags if f in _RE2_INLINE)
        source = (f"(?{inline})" if inline else "") + translated
        try:
            return _Pattern(_re2.compile(source.encode() if as_bytes else source, _options()), pattern)
        except Exception:  # noqa: BLE001 - RE2 refuses it (look-around etc.): Python's engine, for porter's own rules
            pass
    f = 0
    for name in flags:
        f |= _FLAGS[name]
    return re.compile(pattern.encode() if as_bytes else pattern, f)


def compile_regex(pattern: str, flags: tuple[str, ...] = (), *, text: bool = False) -> Any:
    """A compiled pattern with `search`/`finditer`/`match` (on bytes; on str with text=True), RE2 where it can."""
    return _compile(pattern, tuple(flags), not text)


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
