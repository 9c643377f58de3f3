"""The `mask_parameter` pattern kind (porter.match.kinds.code): a warp intrinsic whose lane mask is a parameter of
the enclosing function declared with a 32-bit type (`unsigned mask`, `uint32_t m = 0xffffffff`, or a type the file
defines as 32 bits: MAGMA's `typedef unsigned shfl_mask_t;`)."""
from __future__ import annotations

import re
from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile

# 32-bit integer types a mask parameter may be declared with (`unsigned long` is 64 bits on LP64 and is not here).
_WORD32 = rb"(?:unsigned(?:[ \t]+int)?|uint32_t|std::uint32_t|uint32|u32|uint|int)"
_TYPEDEF32 = re.compile(rb"\btypedef[ \t]+(?:const[ \t]+)?" + _WORD32 + rb"[ \t]+(\w+)[ \t]*;")
_USING32 = re.compile(rb"\busing[ \t]+(\w+)[ \t]*=[ \t]*" + _WORD32 + rb"[ \t]*;")
_ANY_TYPEDEF = re.compile(rb"\btypedef\b[^;{}]*?\b(\w+)[ \t]*;|\busing[ \t]+(\w+)[ \t]*=[^;{}]*;")
_BUILTIN32 = frozenset({b"unsigned", b"unsigned int", b"uint32_t", b"std::uint32_t", b"uint32", b"u32", b"uint",
                        b"int"})
_CALL = re.compile(rb"(?<![\w.>])(?P<name>__(?:shfl(?:_up|_down|_xor)?|ballot|any|all|uni|match_any|match_all|"
                   rb"reduce_(?:add|min|max|and|or|xor))_sync|__syncwarp)[ \t]*\([ \t\n]*(?P<mask>[A-Za-z_]\w*)"
                   rb"[ \t\n]*[,)]")


def _types32(text: bytes) -> frozenset[bytes]:
    """Type names the file defines only as 32-bit integers: a name also defined another way (a 64-bit typedef in
    the ROCm arm beside the 32-bit one) was chosen per build and is left out."""
    narrow = {m.group(1) for m in _TYPEDEF32.finditer(text)} | {m.group(1) for m in _USING32.finditer(text)}
    if not narrow:
        return _BUILTIN32
    defined: dict[bytes, int] = {}
    for m in _ANY_TYPEDEF.finditer(text):
        name = m.group(1) or m.group(2)
        defined[name] = defined.get(name, 0) + 1
    narrow = {n for n in narrow if defined.get(n, 0) == 1}
    return _BUILTIN32 | frozenset(narrow)


# A declaration match holds no `{` or `}` and a `;` only as its last byte (see _declarations).
_PIECE_END = re.compile(rb"[;{}]")
_NOT_BRACES = bytes(b for b in range(256) if b not in b"{}")


def _declarations(decl: re.Pattern[bytes], text: bytes, name: bytes, start: int, end: int) -> Iterable[re.Match[bytes]]:
    """`decl.finditer(text, start, end)`, searched only in the pieces of the window that hold `name`: a match of
    `decl` holds no `{` or `}` and a `;` only as its last byte, so its matches are those of each piece between such
    bytes (a piece ends after its `;`) searched alone, and a piece where `name` is not written holds none. The whole
    window was tried at every byte (`decl` opens with no literal): a third of a cold cuda-samples scan."""
    lo = start
    q = text.find(name, lo, end)
    while q >= 0:
        piece = max(lo, text.rfind(b";", lo, q) + 1, text.rfind(b"{", lo, q) + 1, text.rfind(b"}", lo, q) + 1)
        stop = _PIECE_END.search(text, q, end)
        lo = end if stop is None else stop.end() if stop.group() == b";" else stop.start()
        yield from decl.finditer(text, piece, lo)
        q = text.find(name, lo, end)


def _parameter_type(text: bytes, name: bytes, before: int) -> bytes | None:
    """The declared type of `name` when its last declaration before byte `before` is a parameter of the function
    whose body holds `before` (`(..., shfl_mask_t mask = SHFL_FULL_MASK)` then `{ ... }`), else None."""
    decl = re.compile(rb"(?P<lead>[(,]?)[ \t\n]*(?:const[ \t]+)?(?P<type>(?:std::)?\w+(?:[ \t]+int)?)[ \t]+"
                      rb"(?:const[ \t]+)?" + re.escape(name) + rb"[ \t]*(?P<tail>=[^,();{}]*)?[ \t\n]*(?P<end>[,);=])")
    last = None
    for m in _declarations(decl, text, name, max(0, before - 8000), before):
        if m.group("type") in (b"return", b"else", b"case", b"goto"):
            continue
        last = m
    if last is None or not last.group("lead") or last.group("end") not in (b",", b")"):
        return None
    # The call must be inside the body that follows that parameter list: braces never close below it.
    body = text.find(b"{", last.end(), before)
    if body < 0 or b";" in text[last.end():body].split(b")", 1)[-1]:
        return None
    depth = 0
    for ch in text[body:before].translate(None, _NOT_BRACES):
        if ch == 0x7B:
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return None
    return re.sub(rb"[ \t]+", b" ", last.group("type"))


def match_mask_parameter(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    text = sf.code
    if b"_sync" not in text and b"__syncwarp" not in text:
        return
    types32: frozenset[bytes] | None = None
    for m in _CALL.finditer(text):
        mask = m.group("mask")
        if mask.isupper() or mask in (b"true", b"false"):
            continue  # an ALL-CAPS macro is a constant (DEV002/DEV030 read those)
        typ = _parameter_type(text, mask, m.start())
        if typ is None:
            continue
        if types32 is None:
            types32 = _types32(text)
        if typ in types32:
            yield Hit(m.start("name"), m.end("name"), name=m.group("name").decode(),
                      values=(("mask", mask.decode()), ("type", typ.decode())))
