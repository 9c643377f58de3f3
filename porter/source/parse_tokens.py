"""A file's identifier tokens and their offsets in its code (porter.source.parse's `SourceFile.tokens`): the keys
found in one C pass, each token's offsets when first asked for."""
from __future__ import annotations

from porter.lazyre import lazy_regex


# Bytes >= 0x80 count as identifier characters (C++ allows Unicode identifiers), so `cudaMallocé` is not cudaMalloc.
# The first character's class comes first (the look-behind then checks the one before it), so the engine skips
# from candidate to candidate instead of trying the look-behind at every byte: 2x faster, the same tokens.
_ident = lazy_regex(rb"[A-Za-z_\x80-\xff](?<![A-Za-z0-9_$\x80-\xff].)[A-Za-z0-9_\x80-\xff]*")


# Bytes that continue an identifier, and the ones a token may not follow (`$` too: `a$b` holds the token `a` only).
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") | frozenset(range(0x80, 0x100))
_NOT_AFTER = _IDENT_BYTES | {ord("$")}
_DIGITS = frozenset(b"0123456789")
# Every byte that cannot be part of an identifier to a space, so bytes.split() yields the identifier-ish runs.
_TO_WORDS = bytes(b if b in _IDENT_BYTES else 0x20 for b in range(256))


class _Tokens(dict):
    """{token: offsets} whose keys are all known up front and whose offsets are found per token when first read:
    matchers ask the offsets of a few dozen tokens of the thousands a file has. Reading items() or values() finds
    them all."""

    __slots__ = ("_code", "_complete")

    def __init__(self, code: bytes, keys: dict):
        super().__init__(keys)
        self._code = code
        self._complete = False

    def __getitem__(self, tok: bytes) -> list[int]:
        offsets = dict.__getitem__(self, tok)
        if offsets is None:
            offsets = _token_offsets(self._code, tok)
            dict.__setitem__(self, tok, offsets)
        return offsets

    def get(self, tok, default=None):
        return self[tok] if tok in self else default

    def _fill(self) -> None:
        if not self._complete:
            dict.update(self, _regex_tokens(self._code))
            self._complete = True

    def items(self):
        self._fill()
        return dict.items(self)

    def values(self):
        self._fill()
        return dict.values(self)


def _token_offsets(code: bytes, tok: bytes) -> list[int]:
    """Where `tok` (a token of `code`) occurs as a whole token: what _ident().finditer finds for it."""
    out = []
    n, end = len(tok), len(code)
    at = code.find(tok)
    while at >= 0:
        after = at + n
        if (at == 0 or code[at - 1] not in _NOT_AFTER) and (after == end or code[after] not in _IDENT_BYTES):
            out.append(at)
        at = code.find(tok, after)
    return out


def _regex_tokens(code: bytes) -> dict[bytes, list[int]]:
    """Every token of `code` with all its offsets, by _ident() (the definition the faster paths must agree with)."""
    toks: dict[bytes, list[int]] = {}
    for m in _ident().finditer(code):
        toks.setdefault(m.group(), []).append(m.start())
    return toks


def file_tokens(code: bytes) -> dict[bytes, list[int]]:
    if b"$" in code:  # rare; the runs below would take `b` of `a$b` for a token
        return _regex_tokens(code)
    # The identifier-ish runs in C (translate + split) instead of a regex match per token; a run that starts with
    # a digit is a number, never a token, and no identifier starts inside a run.
    keys = dict.fromkeys(code.translate(_TO_WORDS).split())
    for k in [k for k in keys if k[0] in _DIGITS]:
        del keys[k]
    return _Tokens(code, keys)
