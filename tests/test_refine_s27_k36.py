"""porter.match.refine_preprocessor step 3a (session 27, helper k36): an arm that enables an optional CUDA feature -
its header, a type alias from it and the feature macros - under a toolkit test HIP cannot pass. Cause read on the
development set heldout36 (MPPI-Generic's `#if defined(CMAKE_USE_CUDA_BARRIERS) && defined(CUDART_VERSION) &&
CUDART_VERSION > 11000` / `#include <cuda/barrier>` / `using barrier = ...;` / `#define USE_CUDA_BARRIERS_ROLLOUT`,
whose `#ifdef` sites fall back to __syncthreads): the test, the include and the alias are no porting item."""
from __future__ import annotations

from porter.pipeline import scan
from porter.settings import Settings

SOURCE = (
    "#include <cuda_runtime.h>\n"
    "#if defined(USE_BARRIERS) && defined(CUDART_VERSION) && CUDART_VERSION > 11000\n"    # 2
    "#include <cuda/barrier>\n"                                                          # 3
    "using barrier = cuda::barrier<cuda::thread_scope_block>;\n"                         # 4
    "#define BARRIERS_ROLLOUT\n"
    "#endif\n"
    "__global__ void k(float* x) {\n"
    "  __shared__ float s[256];\n"
    "#ifdef BARRIERS_ROLLOUT\n"
    "  __shared__ barrier bar;\n"
    "#endif\n"
    "  s[threadIdx.x] = x[threadIdx.x];\n"
    "#ifdef BARRIERS_ROLLOUT\n"
    "  bar.arrive_and_wait();\n"
    "#else\n"
    "  __syncthreads();\n"
    "#endif\n"
    "  x[threadIdx.x] = s[255 - threadIdx.x];\n"
    "}\n")


def _open(tmp_path, source: str) -> list[tuple[int, str, str]]:
    (tmp_path / "k.cu").write_text(source)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return sorted({(f.line, f.rule, str(f.severity)) for f in result.findings if f.line in (2, 3, 4)})


def test_an_arm_enabling_a_feature_its_ifdef_sites_fall_back_from_reads_info(tmp_path):
    (tmp_path / "k.cu").write_text(SOURCE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted({(f.line, f.rule, str(f.severity)) for f in result.findings if f.line in (2, 3, 4)})
    assert got == [(2, "DEV010", "info"), (3, "API006", "info"), (4, "DEV012", "info")]
    data = {(f.line, f.rule): dict(f.data)["defines_only"] for f in result.findings if f.line in (2, 3, 4)}
    assert data[(2, "DEV010")] == ("the arm only defines BARRIERS_ROLLOUT (with the header and type barrier only code "
                                   "testing it uses): HIP leaves it undefined, so the code testing it is where HIP's "
                                   "path is chosen")
    assert data[(3, "API006")] == data[(4, "DEV012")] == (
        "in the arm of line 2, which HIP skips (it requires a toolkit macro hip-clang does not define); the arm "
        "enables BARRIERS_ROLLOUT, and the code testing it compiles its fallback on HIP")


def test_the_arm_stays_open_when_its_type_is_used_outside_the_feature_s_arms(tmp_path):
    """`barrier` used unguarded (line 10 without its #ifdef): HIP's build breaks there, the arm is work."""
    source = SOURCE.replace("#ifdef BARRIERS_ROLLOUT\n  __shared__ barrier bar;\n#endif\n",
                            "  __shared__ barrier bar;\n\n\n")
    assert _open(tmp_path, source) == [(2, "DEV010", "medium"), (3, "API006", "high"), (4, "DEV012", "high")]


def test_the_include_stays_open_when_hip_can_pass_the_test(tmp_path):
    """With no toolkit conjunct, `#if defined(USE_BARRIERS)` is a build switch a HIP build may set: the include and
    the alias keep their severity (the test names no toolkit macro, so there is no DEV010 either)."""
    source = SOURCE.replace("#if defined(USE_BARRIERS) && defined(CUDART_VERSION) && CUDART_VERSION > 11000",
                            "#if defined(USE_BARRIERS)")
    assert _open(tmp_path, source) == [(3, "API006", "high"), (4, "DEV012", "high")]
