"""porter.source.parse_input.blank_numeric_runs: runs of 32+ numeric lines blanked in the parser's input, and the
RE2 search that lets files without a run skip the line-by-line pass."""
from __future__ import annotations

import random

from porter.source import parse_input
from porter.source.parse_input import blank_numeric_runs

# A file must reach 16 KiB and 256 commas before it is looked at: this prefix does both and is no numeric line.
PAD = b"int pad[] = {" + b"x," * 300 + b"};\n" + b"// " + b"-" * 16384 + b"\n"


def _line_pass(buf: bytes) -> bytes:
    """blank_numeric_runs without the RE2 search (the line-by-line pass alone)."""
    real = parse_input._numeric_run
    parse_input._numeric_run = lambda: None
    try:
        return blank_numeric_runs(buf)
    finally:
        parse_input._numeric_run = real


def test_a_run_of_32_numeric_lines_is_blanked_keeping_length_and_newlines():
    table = b"  0x1F, 2, -3.5e+2f,\r\n" * 32
    buf = PAD + table + b"};\n"
    out = blank_numeric_runs(buf)
    assert len(out) == len(buf)
    assert out[:len(PAD)] == PAD
    assert out[len(PAD):] == b" " * 21 + (b"\n" + b" " * 21) * 31 + b"\n};\n"  # each line with its CR


def test_31_lines_or_a_broken_run_stay_as_written():
    for table in (b"1, 2,\n" * 31, b"1, 2,\n" * 16 + b"f(1, 2);\n" + b"1, 2,\n" * 16, b"1, 2\n" * 40):
        buf = PAD + table
        assert blank_numeric_runs(buf) is buf


def test_the_search_agrees_with_the_line_pass_on_random_tables():
    rng = random.Random(26)
    pieces = [b"1,", b" 2 ,", b"0x1F,", b"-3.5e+2f,", b"7u,", b"\r", b"\n", b"a", b" ", b"\t", b"1", b",", b"\n\n"]
    blanked = 0
    for _ in range(400):
        noise = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 300)))
        table = b"1, 2, 3,\n" * rng.randint(0, 40)
        buf = PAD + noise + table + noise[::-1] + (b"" if rng.random() < 0.5 else b"4,")
        out = blank_numeric_runs(buf)
        assert out == _line_pass(buf)
        blanked += out != buf
    assert blanked == 82  # of 400: both outcomes were tried (a fixed seed)
