"""Red team (session 21): N nested `#if` groups cost the preprocessor N steps, not N^2.

porter.source.preprocessor checked every arm of every group without `#else` for "holds only toolkit #includes" by
splitting the arm's whole body into lines, and an arm's body holds every group nested in it: 20,000 nested `#if A`
(240 KB) took the 30 s file budget and the file was skipped. The checks now read an arm's lines in place and stop
at the first that fails (the nested `#if`). The bound is on this process's CPU time, with a wide margin: 20,000
levels took 27.5 CPU-s before (1.4 s at 4,000: the square of the depth) and take well under one now."""
from __future__ import annotations

import time

from porter.source import preprocessor


def test_deeply_nested_groups_preprocess_in_linear_time():
    n = 20_000
    data = b"#if A\n" * n + b"__global__ void j(float* x) {}\n" + b"#endif\n" * n
    start = time.process_time()
    pp = preprocessor.preprocess(data)
    spent = time.process_time() - start
    assert len(pp.groups) == n and pp.toolkit_lines == frozenset()
    assert spent < 6, spent


def test_an_arm_of_toolkit_includes_only_is_still_found():
    data = (b"#if CCCL_VERSION >= 3004000\n\n#include <cuda/iterator>\n  #include <cub/cub.cuh>\n#endif\n"
            b"#ifdef X\n#include <cuda/iterator>\n#if Y\n#endif\n#endif\n"
            b"#if Z\n#else\n#pragma message(\"needs CUDA\")\n#endif\n"
            b"#if W\n#else\n  int x;\n#endif\n")
    pp = preprocessor.preprocess(data)
    # the includes-only group; not the one with a nested group, not the one whose #else only says "needs CUDA";
    # the arm before an #else with code
    assert sorted(pp.toolkit_lines) == [1, 15]
