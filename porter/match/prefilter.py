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
        flush()
        sub = None
        if op is C.SUBPATTERN:
            sub = _required(av[3], fold)
        elif op is C.BRANCH:
            alts = [_required(alt, fold) for alt in av[1]]
            if alts and all(alts):
                sub = frozenset().union(*alts)
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
