"""Which literal text a regular expression cannot match without: the cheap prefilter in front of every regex pass.

`required_literals(r"cuda(?:Malloc|Free)\\s*\\(")` is ((b"cudamalloc", b"cudafree") ... case as written), meaning a
text containing neither string has no match, so the regex need not run over it. Built from Python's own regex
parser; anything it does not model (classes, back-references, negative look-arounds) simply requires nothing,
so the answer can be weaker than the truth but never stronger.
"""
from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as C, _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

_FLAG_I = 2  # re.IGNORECASE
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT} | ({C.POSSESSIVE_REPEAT} if hasattr(C, "POSSESSIVE_REPEAT") else set())


def required_literals(pattern: str, flags: tuple[str, ...] = ()) -> tuple[tuple[bytes, ...] | None, bool]:
    """(alternatives, fold): every match contains one of `alternatives` (lower-cased when `fold`); None: unknown."""
    tree = P.parse(pattern.encode())
    fold = "ignorecase" in flags or bool(tree.state.flags & _FLAG_I) or _any_ignorecase(tree)
    best = _required(tree, fold)
    if not best:
        return None, fold
    return tuple(sorted(best)), fold


def _any_ignorecase(items) -> bool:
    for op, av in items:
        if op is C.SUBPATTERN:
            if av[1] & _FLAG_I or _any_ignorecase(av[3]):
                return True
        elif op is C.BRANCH:
            if any(_any_ignorecase(alt) for alt in av[1]):
                return True
        elif op in _REPEATS:
            if _any_ignorecase(av[2]):
                return True
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if _any_ignorecase(av[1]):
                return True
        elif op is getattr(C, "ATOMIC_GROUP", None):
            if _any_ignorecase(av):
                return True
        elif op is C.GROUPREF_EXISTS:
            if _any_ignorecase(av[1]) or (av[2] is not None and _any_ignorecase(av[2])):
                return True
    return False


def _score(alts: frozenset[bytes]) -> tuple[int, int]:
    return (min(len(a) for a in alts), -len(alts))


def _required(items, fold: bool) -> frozenset[bytes] | None:
    """For a sequence: the strongest single requirement among its parts (a set of alternatives), or None."""
    candidates: list[frozenset[bytes]] = []
    run = bytearray()

    def flush() -> None:
        if run:
            lit = bytes(run)
            candidates.append(frozenset({lit.lower() if fold else lit}))
            run.clear()

    for op, av in items:
        if op is C.LITERAL:
            run.append(av)
            continue
        preceding = bytes(run).lower() if fold else bytes(run)  # the literal text right before this part
        flush()
        sub = None
        if op is C.SUBPATTERN:
            sub = _required(av[3], fold)
        elif op is C.BRANCH:
            alts = [_required(alt, fold) for alt in av[1]]
            if alts and all(alts):
                sub = frozenset().union(*alts)
            if preceding:
                # The literal text right before the branch, joined to how each alternative begins: Python's parser
                # takes a prefix all alternatives share out of them (`-arch|-gencode|-code` is `-` then
                # `arch|gencode|code`), which left a weak requirement (`code`) where `-code` holds.
                candidates.append(frozenset(preceding + _leading(alt, fold) for alt in av[1]))
        elif op in _REPEATS:
            if av[0] >= 1:
                sub = _required(av[2], fold)
        elif op is C.ASSERT:  # a positive look-ahead or look-behind still reads text that is there
            sub = _required(av[1], fold)
        elif op is getattr(C, "ATOMIC_GROUP", None):
            sub = _required(av, fold)
        if sub:
            candidates.append(sub)
    flush()
    candidates = [c for c in candidates if all(c)]  # an empty alternative is no requirement
    if not candidates:
        return None
    return max(candidates, key=_score)


def _leading(items, fold: bool) -> bytes:
    """The literal text every match of a sequence begins with (b"" when it may begin otherwise)."""
    out = bytearray()
    for op, av in items:
        if op is C.LITERAL:
            out.append(av)
            continue
        if op is C.SUBPATTERN and not out:
            return _leading(av[3], fold)
        break
    return bytes(out).lower() if fold else bytes(out)


class LiteralIndex:
    """Every required literal asked about so far, found in a text in one pass: `present(text)` is the set of them
    the text contains (exactly `{lit for lit in literals if lit in text}`).

    Each regex's prefilter used to search the whole file for each of its literals (~100 literals, each a full
    scan of every file); one RE2 set search over the bytes (Latin-1, so a byte is a character and matching is
    byte-exact) answers for all of them at once. Literals are added as patterns first ask (`add`), which
    rebuilds the set; after the first file the set stays the same. Without RE2 it falls back to `in`.
    """

    def __init__(self) -> None:
        self.literals: list[bytes] = []
        self._known: set[bytes] = set()
        self._set = None

    def add(self, lits) -> None:
        new = [lit for lit in lits if lit not in self._known]
        if new:
            self.literals.extend(new)
            self._known.update(new)
            self._set = None

    def present(self, text: bytes) -> frozenset[bytes]:
        if self._set is None:
            self._set = _compile_set(self.literals)
        if self._set is not False and text:
            found = self._set.Match(text)
            # Index 0 matches any byte: missing from a non-empty text's answer, the search failed (RE2 reports an
            # exhausted DFA budget as no match), and the plain answer is taken instead of losing hits.
            if found and min(found) == 0:
                return frozenset(self.literals[i - 1] for i in found if i)
        return frozenset(lit for lit in self.literals if lit in text)


def _compile_set(literals: list[bytes]):
    """An RE2 set of the literals (byte-exact), or False when RE2 is missing or refuses one of them."""
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a declared dependency
        return False
    try:
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.log_errors = False
        options.max_mem = 64 << 20
        found = re2.Set.SearchSet(options)
        if found.Add(b"(?s).") != 0:
            return False
        for i, lit in enumerate(literals, 1):
            if found.Add(re2.escape(lit)) != i:
                return False
        found.Compile()
        return found
    except Exception:  # noqa: BLE001 - never expected; the plain `in` answer is the same, only slower
        return False
