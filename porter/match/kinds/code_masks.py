"""The `mask_parameter` pattern kind (porter.match.kinds.code): a warp intrinsic whose lane mask is a parameter of
the enclosing function declared with a 32-bit type (`unsigned mask`, `uint32_t m = 0xffffffff`, or a type the file
defines as 32 bits: MAGMA's `typedef unsigned shfl_mask_t;`)."""
from __future__ import annotations

import re
from typing import Iterable

import tree_sitter as ts

from porter.match.base import Hit, MatchContext
from porter.source.parse import Function, SourceFile
from porter.source.syntax import index

# 32-bit integer types a mask parameter may be declared with (`unsigned long` is 64 bits on LP64 and is not here).
_WORD32 = rb"(?:unsigned(?:[ \t]+int)?|uint32_t|std::uint32_t|uint32|u32|uint|int)"
_TYPEDEF32 = re.compile(rb"\btypedef[ \t]+(?:const[ \t]+)?" + _WORD32 + rb"[ \t]+(\w+)[ \t]*;")
_USING32 = re.compile(rb"\busing[ \t]+(\w+)[ \t]*=[ \t]*" + _WORD32 + rb"[ \t]*;")
_ANY_TYPEDEF = re.compile(rb"\btypedef\b[^;{}]*?\b(\w+)[ \t]*;|\busing[ \t]+(\w+)[ \t]*=[^;{}]*;")
_BUILTIN32 = frozenset({b"unsigned", b"unsigned int", b"uint32_t", b"std::uint32_t", b"uint32", b"u32", b"uint",
                        b"int"})
# The pattern opens with the literal `__` and looks behind it afterwards (`(?<![\w.>]__)`): `re` then skips ahead to
# each `__` in C, where a lookbehind first was tried at every byte of the file (~25x slower, 0.06 CPU-s of a
# FasterTransformer scan); the same matches.
_CALL = re.compile(rb"(?P<name>__(?<![\w.>]__)(?:(?:shfl(?:_up|_down|_xor)?|ballot|any|all|uni|match_any|match_all|"
                   rb"reduce_(?:add|min|max|and|or|xor))_sync|syncwarp))[ \t]*\([ \t\n]*(?P<mask>[A-Za-z_]\w*)"
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


_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration")


def _parameter_list(fn: Function) -> ts.Node | None:
    """The parameter list of a function definition, through the pointer/reference declarators of its return type."""
    d = fn.node.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    return d.child_by_field_name("parameters") if d is not None else None


def _shadowed(sf: SourceFile, fn: Function, name: bytes, before: int) -> bool:
    """Whether a local declaration of `name` between the function's start and byte `before`, in a block that holds
    `before`, hides the parameter there (`{ unsigned long long mask = ~0ull; __shfl_sync(mask, ...) }`)."""
    for d in index(sf).declarators:
        if d.start_byte >= before:
            break
        if d.start_byte < fn.start_byte:
            continue
        ident = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        if ident is None or ident.type != "identifier" or ident.text != name:
            continue
        block = d.parent.parent if d.parent is not None else None  # declarator -> declaration -> its block
        if block is not None and block.start_byte <= before < block.end_byte:
            return True
    return False


def _parameter_type(sf: SourceFile, name: bytes, before: int) -> bytes | None:
    """The declared type of `name` when, at byte `before`, it names a parameter of the enclosing function definition
    (the parsed tree's, SourceFile.enclosing), not a local declared in between; else None."""
    fn = sf.enclosing(before)
    params = _parameter_list(fn) if fn is not None else None
    if params is None:
        return None
    for p in params.named_children:
        if p.type not in _PARAMETERS:
            continue
        ident, typ = p.child_by_field_name("declarator"), p.child_by_field_name("type")
        if ident is None or typ is None or ident.type != "identifier" or ident.text != name:
            continue
        if _shadowed(sf, fn, name, before):
            return None
        return re.sub(rb"\s+", b" ", typ.text)
    return None


def match_mask_parameter(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    text = sf.code
    if b"_sync" not in text and b"__syncwarp" not in text:
        return
    types32: frozenset[bytes] | None = None
    for m in _CALL.finditer(text):
        mask = m.group("mask")
        if mask.isupper() or mask in (b"true", b"false"):
            continue  # an ALL-CAPS macro is a constant (DEV002/DEV030 read those)
        typ = _parameter_type(sf, mask, m.start())
        if typ is None:
            continue
        if types32 is None:
            types32 = _types32(text)
        if typ in types32:
            yield Hit(m.start("name"), m.end("name"), name=m.group("name").decode(),
                      values=(("mask", mask.decode()), ("type", typ.decode())))
