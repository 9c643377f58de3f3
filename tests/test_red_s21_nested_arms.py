"""Red team (session 21): the `#if` arms around each definition cost one entry per directive, not one per level.

porter.kernels.constfold tells two definitions of one constant apart by the arms they sit in, and kept the whole
chain of arms (a tuple) for every directive: N nested `#if` cost N^2 entries, and 20,000 of them (240 KB) needed
more than the 2 GiB file cap (the file was skipped). Each chain is now a number (its innermost arm and the number of
the chain around it)."""
from __future__ import annotations

import tracemalloc

from porter.kernels.constfold import _arms_by_line


def test_nested_groups_number_their_chains_in_linear_memory():
    n = 4000  # 16M tuple entries before (~130 MB); a few hundred KB now
    data = b"#if A\n" * n + b"int x;\n" + b"#endif\n" * n
    tracemalloc.start()
    try:
        arm_at = _arms_by_line(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, peak
    # the line inside all n, inside n - 1 (the nth #if itself), inside one; past the last #endif none
    assert len({arm_at(n + 1), arm_at(n), arm_at(2), 0}) == 4 and arm_at(2 * n + 2) == 0


def test_same_arms_same_number_other_arms_another():
    data = (b"#ifndef GUARD\n#define GUARD\n"           # 1-2
            b"#ifdef USE_ROCM\nint a;\n#else\nint b;\n#endif\n"  # 3-7
            b"int c;\n"                                  # 8: back in the guard alone
            b"#ifdef USE_ROCM\nint d;\n#endif\n"         # 9-11: another group, another arm
            b"#endif\nint e;\n")                         # 12-13
    arm_at = _arms_by_line(data)
    assert arm_at(2) == arm_at(8) != arm_at(1)
    assert len({arm_at(2), arm_at(4), arm_at(6), arm_at(10)}) == 4
    assert arm_at(13) == arm_at(1)  # outside every group, as before the first directive
