"""The `lane_mask` pattern kind (porter.match.kinds.code): a full 32-bit lane mask passed to a warp intrinsic,
written as a literal, as a constant expression of one (porter.kernels.constfold.full_mask_32) or through a name the
file defines as one."""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from porter.kernels.constfold import full_mask_32
from porter.match.base import Hit, MatchContext, per_object
from porter.match.kinds.code_regex import lane_mask_call, lane_mask_regex, may_run
from porter.source.parse import SourceFile


# Spellings of an all-lanes mask that is 32 bits wide in value or in type: 0xffffffff (any case or suffix: the value
# still names lanes 0-31 only), ~0 and ~0u, -1, 4294967295, UINT32_MAX, UINT_MAX, and -1 cast to a 32-bit type. HIP's
# *_sync intrinsics static_assert a 64-bit mask type, so even -1 (an int) fails to compile; ~0ull and -1ll are correct
# and not listed.
FULL_MASK = re.compile(
    rb"^\(*\s*(?:0[xX][fF]{8}[uUlL]*|~\s*0[uU]?|-\s*1|4294967295[uUlL]*|UINT32_MAX|UINT_MAX"
    rb"|(?:uint32_t|unsigned(?:\s+int)?|std::uint32_t)\s*\(\s*-\s*1\s*\)"
    rb"|static_cast\s*<\s*(?:uint32_t|unsigned(?:\s+int)?)\s*>\s*\(\s*-\s*1\s*\)"
    # a C-style cast to a 32-bit type: `(uint32_t)-1` (FlashMLA's SM100 backward), `(unsigned)~0u`,
    # `(unsigned int)0xffffffff`
    rb"|\(\s*(?:uint32_t|unsigned(?:\s+int)?|std::uint32_t)\s*\)\s*(?:-\s*1|~\s*0[uU]?|0[xX][fF]{8}[uUlL]*))\s*\)*$"
)


# A call's name must not follow a word character, `.` or `>` (a member or a longer name): lane_mask_regex's guard.
_AFTER_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.>")


# Each lane_mask pattern's regex, spelled once for the scan instead of once per file.
_lane_mask_source = per_object(lambda pattern: lane_mask_regex(pattern["lane_mask"]))
# What match_lane_mask searches with: the regex without its leading guard, which it checks itself. On `re` either
# way (the guard kept the whole regex there), but a regex that starts with the names lets `re` skip to their first
# characters, where one that starts with a look-behind is tried at every byte of the file.
_lane_mask_call_rx = per_object(lambda pattern: re.compile(lane_mask_call(pattern["lane_mask"]).encode()))


def match_lane_mask(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """A full 32-bit lane mask passed as the first argument of a warp intrinsic (`lane_mask: [__shfl_sync, ...]`),
    written as a literal or through a name the file defines as one (`#define FULL_MASK 0xffffffff`)."""
    source = _lane_mask_source(pattern)
    if not may_run(source, (), sf, sf.code, "code"):
        return ()
    return _lane_mask_hits(_lane_mask_call_rx(pattern), sf)


def _lane_mask_hits(rx, sf: SourceFile) -> Iterator[Hit]:
    """What `finditer` of the whole lane_mask regex finds: a match of `rx` whose start fails the guard is no match,
    and the search goes on from the next byte, as finditer's would."""
    code = sf.code
    mask_names = None
    pos = 0
    while True:
        m = rx.search(code, pos)
        if m is None:
            return
        start = m.start()
        if start and code[start - 1] in _AFTER_NAME:
            pos = start + 1
            continue
        pos = m.end()
        text = m.group("hit").strip()
        if not FULL_MASK.match(text):
            if mask_names is None:
                mask_names = full_mask_names(sf)  # only for a file with a call whose mask is not a literal
            # a constant expression of the full mask (`0xffffffff + 0`, `unsigned(0xffffffff)`), folded as the
            # kernel analysis folds it
            if text not in mask_names and not full_mask_32(text.decode("utf-8", "replace")):
                continue
        # The span runs from the intrinsic's name to the end of the mask, so the finding sits on the call's line.
        trail = len(m.group("hit")) - len(m.group("hit").rstrip())
        yield Hit(m.start("fn"), m.end("hit") - trail, name=m.group("fn").decode(),
                  values=(("mask", text.decode("utf-8", "replace")),))


_MASK_LITERAL = rb"\(*\s*(?:0[xX][fF]{8}[uUlL]*|~\s*0[uU]?|-\s*1|4294967295[uUlL]*|UINT32_MAX|UINT_MAX)\s*\)*"
# Anchored on the mask literal itself, so the search is linear in the file (a lazy `[^;]+?` per word was not).
_MASK_DEFINE = re.compile(rb"#[ \t]*define[ \t]+(\w+)[ \t]+" + _MASK_LITERAL + rb"[ \t]*$", re.M)
_MASK_VARIABLE = re.compile(rb"\b(\w+)\s*(?:=|\{)\s*" + _MASK_LITERAL + rb"\s*\}?\s*;")


# A 64-bit all-lanes value: a name the file also #defines as one (in another #if arm, per warp size or HIP version:
# `#if HYPRE_WARP_SIZE == 64 ... 0xFFFFFFFFFFFFFFFF #else ... 0xFFFFFFFF`) is chosen per target, not 32-bit.
_WIDE_MASK_DEFINE = re.compile(rb"#[ \t]*define[ \t]+(\w+)[ \t]+\(*\s*(?:0[xX][fF]{16}[uUlL]*|~\s*0[uU]?[lL]{2}|~\s*0[lL]{2}[uU]?"
                               rb"|UINT64_MAX|ULLONG_MAX)\s*\)*[ \t]*$", re.M)


def full_mask_names(sf: SourceFile) -> set[bytes]:
    """Names the file defines as a full 32-bit mask, by #define or by a (const) variable initialiser, and not also as
    a 64-bit one."""
    if "full_mask_names" not in sf.cache:
        out = {m.group(1) for m in _MASK_DEFINE.finditer(sf.code)}
        out -= {m.group(1) for m in _WIDE_MASK_DEFINE.finditer(sf.code)}
        out |= {m.group(1) for m in _MASK_VARIABLE.finditer(sf.code)}
        sf.cache["full_mask_names"] = out
    return sf.cache["full_mask_names"]
