"""porter.match.kinds.code_device reads shuffle macros only at lines holding `define` of a file naming `__shfl`:
the same matches as the plain whole-file search, on random macro text."""
from __future__ import annotations

import random

from porter.match.kinds import code_device
from porter.source.parse_input import line_matches


def test_shuffle_macros_read_at_define_lines_match_the_whole_file_search():
    rx = code_device._SHUFFLE_MACRO
    rng = random.Random(5)
    pieces = [b"#define ", b"S(", b"a,", b"\n", b")", b" __shfl_xor(a, b)", b"(", b"x", b" ",
              b"\t#  define W(v) __shfl(v)\n", b"__shfl"]
    found = 0
    for _ in range(5000):
        code = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        plain = [m.span() for m in rx.finditer(code)]
        read = [m.span() for m in (line_matches(rx, code, (b"define",)) if b"__shfl" in code else ())]
        assert read == plain
        found += len(plain)
    assert found == 1952  # a fixed seed: many macros were read
