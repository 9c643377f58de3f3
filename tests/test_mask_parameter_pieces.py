"""DEV038's parameter search (porter.match.kinds.code_masks) searches only the pieces of its window that hold the
mask's name, and gives exactly what the whole-window search it stands in for gave."""
from __future__ import annotations

import random
import re

from porter.match.kinds import code_masks

_TOKENS = [b"(", b")", b",", b";", b"{", b"}", b" ", b" ", b"\t", b"\n", b"=", b"const ", b"unsigned", b" int",
           b"std::", b"uint32_t", b"mask", b"m", b"ma", b"sk", b"return", b"case", b"x", b"0xff", b"+", b"*", b"_"]


def _decl(name: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"(?P<lead>[(,]?)[ \t\n]*(?:const[ \t]+)?(?P<type>(?:std::)?\w+(?:[ \t]+int)?)[ \t]+"
                      rb"(?:const[ \t]+)?" + re.escape(name) + rb"[ \t]*(?P<tail>=[^,();{}]*)?[ \t\n]*(?P<end>[,);=])")


def _whole_window(text: bytes, name: bytes, before: int) -> bytes | None:
    """_parameter_type as it was: the declaration regex tried at every byte of the window, braces counted per byte."""
    last = None
    for m in _decl(name).finditer(text, max(0, before - 8000), before):
        if m.group("type") in (b"return", b"else", b"case", b"goto"):
            continue
        last = m
    if last is None or not last.group("lead") or last.group("end") not in (b",", b")"):
        return None
    body = text.find(b"{", last.end(), before)
    if body < 0 or b";" in text[last.end():body].split(b")", 1)[-1]:
        return None
    depth = 0
    for ch in text[body:before]:
        if ch == 0x7B:
            depth += 1
        elif ch == 0x7D:
            depth -= 1
            if depth <= 0:
                return None
    return re.sub(rb"[ \t]+", b" ", last.group("type"))


def test_a_parameter_is_found_in_its_piece():
    text = b"__device__ int f(int a, unsigned const mask = 0xffffffff) {\n  int v = 0;\n  __shfl_sync(mask, v, 0);\n}\n"
    before = text.index(b"__shfl_sync")
    assert code_masks._parameter_type(text, b"mask", before) == b"unsigned"
    spans = [m.span() for m in code_masks._declarations(_decl(b"mask"), text, b"mask", 0, before)]
    assert spans == [(22, 57)] == [m.span() for m in _decl(b"mask").finditer(text, 0, before)]
    # A body closed before the call: the parameter is another function's.
    closed = text.replace(b"int v = 0;", b"} {")
    assert code_masks._parameter_type(closed, b"mask", closed.index(b"__shfl_sync")) is None


def test_the_pieces_find_the_whole_windows_matches_on_random_text():
    rng = random.Random(38)
    for _ in range(4000):
        text = b"".join(rng.choice(_TOKENS) for _ in range(rng.randint(0, 60)))
        for name in (b"mask", b"m", b"ma"):
            end = rng.randint(0, len(text))
            start = rng.randint(0, end)
            got = [m.span() for m in code_masks._declarations(_decl(name), text, name, start, end)]
            assert got == [m.span() for m in _decl(name).finditer(text, start, end)], (text, name, start, end)
            assert code_masks._parameter_type(text, name, end) == _whole_window(text, name, end), (text, name, end)


def test_a_window_past_8000_bytes_is_cut_where_it_was():
    head = b"void f(unsigned mask) {\n"
    text = head + b"  x = 1;\n" * 900 + b"  __shfl_sync(mask, x, 0);\n}\n"
    before = text.index(b"__shfl_sync")
    assert before > 8000
    assert code_masks._parameter_type(text, b"mask", before) is None is _whole_window(text, b"mask", before)
    assert code_masks._parameter_type(text, b"mask", 8000) == b"unsigned" == _whole_window(text, b"mask", 8000)
