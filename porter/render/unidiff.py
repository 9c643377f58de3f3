"""Unified diffs of byte texts (the patches `porter port` and `porter translate` write), in time near-linear in the
texts however many hunks they have.

difflib.unified_diff finds the longest matching block and recurses on both sides of it, which costs the text's
length for every hunk: a 151,000-line repository file with 1,000 places porter edits took `porter port` 140 s,
outside any budget (the scan and the plan run in budgeted workers; the patch is written in porter's own process).
Here the lines that occur once on each side and in the same order (patience diff's anchors, found by a longest
increasing subsequence) cut the texts into gaps, and only a gap is given to difflib; a gap too big for that is
one replaced block, a correct hunk if not the smallest. Where the edits are the small in-place ones porter makes,
the hunks are the ones difflib would write, in difflib's format.
"""
from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Iterator, Sequence

# Lines on the two sides of one gap difflib may compare (its cost grows with their product).
MAX_GAP_PRODUCT = 1_000_000

Opcode = tuple[str, int, int, int, int]


def lines(text: bytes) -> list[bytes]:
    """`text` cut into lines at LF only, each keeping its end, as git and patch read a file: bytes.splitlines also
    cuts at a lone CR (and VT, FF, FS, GS, RS), which made "\\ No newline at end of file" land inside a hunk and
    the patch one git apply rejects."""
    parts = text.split(b"\n")
    last = parts.pop()
    out = [p + b"\n" for p in parts]
    if last:
        out.append(last)
    return out


def _anchors(a: Sequence[bytes], b: Sequence[bytes], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines that occur once in a[alo:ahi] and once in b[blo:bhi], the longest chain increasing in
    both (patience sorting: O(u log u) for u such lines)."""
    seen_a: dict[bytes, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[bytes, int] = {}
    for j in range(blo, bhi):
        seen_b[b[j]] = -1 if b[j] in seen_b else j
    pairs = sorted((i, seen_b[line]) for line, i in seen_a.items() if i >= 0 and seen_b.get(line, -1) >= 0)
    tails: list[int] = []  # tails[k]: the smallest j ending an increasing chain of length k + 1
    tail_at: list[int] = []  # the pair index holding tails[k]
    back: list[int] = []  # each pair's predecessor in its chain
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        back.append(tail_at[k - 1] if k else -1)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k] = j
            tail_at[k] = n
    chain: list[tuple[int, int]] = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]


def _gap(a: Sequence[bytes], b: Sequence[bytes], alo: int, ahi: int, blo: int, bhi: int) -> Iterator[Opcode]:
    """The opcodes of one gap: its common ends equal, the middle compared by difflib when small enough."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        yield ("equal", alo, alo + 1, blo, blo + 1)
        alo, blo = alo + 1, blo + 1
    tail: list[Opcode] = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        tail.append(("equal", ahi - 1, ahi, bhi - 1, bhi))
        ahi, bhi = ahi - 1, bhi - 1
    if alo < ahi or blo < bhi:
        if alo == ahi:
            yield ("insert", alo, ahi, blo, bhi)
        elif blo == bhi:
            yield ("delete", alo, ahi, blo, bhi)
        elif (ahi - alo) * (bhi - blo) <= MAX_GAP_PRODUCT:
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi]).get_opcodes():
                yield (tag, alo + i1, alo + i2, blo + j1, blo + j2)
        else:
            yield ("replace", alo, ahi, blo, bhi)
    yield from reversed(tail)


def opcodes(a: Sequence[bytes], b: Sequence[bytes]) -> list[Opcode]:
    """difflib.SequenceMatcher.get_opcodes() of two line lists: equal runs merged, in order."""
    out: list[Opcode] = []
    i = j = 0
    raw: list[Opcode] = []
    for ai, bj in _anchors(a, b, 0, len(a), 0, len(b)):
        raw.extend(_gap(a, b, i, ai, j, bj))
        raw.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    raw.extend(_gap(a, b, i, len(a), j, len(b)))
    for op in raw:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if out and out[-1][0] == op[0] == "equal":
            out[-1] = ("equal", out[-1][1], op[2], out[-1][3], op[4])
        else:
            out.append(op)
    return out


def unified_diff(a: Sequence[bytes], b: Sequence[bytes], fromfile: bytes, tofile: bytes, n: int = 3) -> list[bytes]:
    """What list(difflib.diff_bytes(difflib.unified_diff, a, b, fromfile, tofile, n=n)) gives (lines that keep
    their ends; no dates), empty when the texts are equal."""
    out: list[bytes] = []
    for group in _grouped(opcodes(a, b), n):
        if not out:
            out += [b"--- " + fromfile + b"\n", b"+++ " + tofile + b"\n"]
        first, last = group[0], group[-1]
        out.append(b"@@ -" + _range(first[1], last[2]) + b" +" + _range(first[3], last[4]) + b" @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [b" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += [b"-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += [b"+" + line for line in b[j1:j2]]
    return out


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """difflib.SequenceMatcher.get_grouped_opcodes over given opcodes: hunks with up to `n` lines of context."""
    if not codes:
        return
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = (tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = (tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> bytes:
    """A hunk's line range as difflib writes it (`3,4`; a single line `3`; an empty range names the line before)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return b"%d" % beginning
    if not length:
        beginning -= 1
    return b"%d,%d" % (beginning, length)
