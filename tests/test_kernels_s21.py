"""CUDA kernel verdicts of issue 27 (session 21) on fixtures/kernels_s21 and fixtures/kernels: constants defined
per build by NVIDIA's own compiler macros (hip-clang compiles the other arm) and __launch_bounds__ minimum blocks
judged against CDNA's residency. Exact verdicts, check ids, lines and sizes, with near misses."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings
from porter.source import preprocessor

from conftest import FIXTURES
from kernels_s21_table import OK, TARGETS, analysed, every, verdicts


def test_a_constant_per_nvidia_compiler_arm_takes_the_value_hip_compiles():
    result = analysed("arms")
    shared = {k.name: k.facts.shared_memory.total_bytes for k in result.kernels}
    assert shared == {"read_spoiled": 32768, "tiled": 4096, "switched": None}
    got = verdicts(result)
    assert got["read_spoiled"] == OK and got["tiled"] == OK
    # near miss: a project switch (USE_ROCM) alone decides nothing, the value stays unknown
    assert got["switched"]["mi300x"][0] == "check"
    assert got["switched"]["mi300x"][1][0][:2] == ("lds-unknown", "check")

def test_nvidia_compiler_only_arms_by_line():
    data = (b"#ifdef __NVCC__\nA\n#else\nB\n#endif\n#if __CUDA_ARCH__ >= 800\nC\n#elif defined(USE_ROCM)\nD\n"
            b"#endif\n#ifdef USE_ROCM\nE\n#else\nF\n#endif\n#if CUDART_VERSION >= 12000\nG\n#endif\n")
    dirs = preprocessor.directives(data)
    code = [2, 4, 7, 9, 12, 14, 17]  # A .. G
    assert [n for n in code if preprocessor.nvidia_compiler_only(dirs, n)] == [2, 7, 17]

def test_launch_bounds_min_blocks_within_cdna_residency_is_ok():
    result = run(FIXTURES / "kernels" / "launch_bounds.cu", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    got = verdicts(result)
    assert got["narrow_bounded"] == OK  # (64, 4): 4 waves per SIMD
    assert got["crowded_bounded"] == every("retune", ("launch-bounds-min-blocks", "retune", ()))  # (128, 16)
