"""False positives found on real code that need a repository (not one fixture file) to show: a project's own
headers, a library's internal includes, device code across files; and the HIP-header data API004 relies on."""
from __future__ import annotations

import re
from pathlib import Path

from porter.kb import hip_names
from porter.pipeline import scan
from porter.settings import Settings
from porter.source.includes import project_header

REPO = Path(__file__).resolve().parent.parent


def _rules(tmp_path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return sorted((f.path, f.line, f.rule) for f in result.findings if f.rule.startswith(("LIB", "API", "DEV")))


def test_project_header_resolution():
    files = frozenset({"src/cuda/utils.cuh", "ext/cutlass/include/cute/config.hpp",
                       "ext/cutlass/include/cute/arch/mma.hpp", "include/cuda/helpers.h"})
    assert project_header("src/k.cu", "cuda/utils.cuh", True, files)  # quoted, relative to the includer
    assert project_header("tests/t.cu", "cuda/helpers.h", True, files)  # quoted, anywhere in the repository
    assert project_header("ext/cutlass/include/cute/arch/mma.hpp", "cute/config.hpp", False, files)  # same tree
    assert not project_header("src/k.cu", "cute/config.hpp", False, files)  # a vendored copy is still a dependency
    assert not project_header("src/k.cu", "cuda/atomic", False, files)  # libcu++
    assert not project_header("src/k.cu", "cuda.h", False, frozenset({"src/cuda.h"}))  # <cuda.h>: the toolkit's


def test_own_cuda_headers_and_cute_internals_are_not_libraries(tmp_path):
    got = _rules(tmp_path, {
        "src/cuda/utils.cuh": "int g();\n",
        "src/k.cu": '#include "cuda/utils.cuh"\n#include <cute/tensor.hpp>\n',
        "ext/cutlass/include/cute/tensor.hpp": "#include <cute/config.hpp>\n",
        "ext/cutlass/include/cute/config.hpp": "int c();\n",
    })
    assert got == [("src/k.cu", 2, "LIB002")]


def test_host_cpu_asm_in_a_cpp_file_is_not_ptx_but_device_asm_in_a_header_is(tmp_path):
    got = _rules(tmp_path, {
        "cpu/simd.cpp": 'static void f() { __asm__ __volatile__("vsetvli t0, a0, e32, m1" ::: "memory"); }\n',
        "gpu/lane.cuh": '#define DEVICE __device__ __forceinline__\n'
                        'DEVICE unsigned lane() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }\n',
    })
    assert got == [("gpu/lane.cuh", 2, "DEV001")]


def test_hip_names_table_is_generated_from_real_headers():
    names = hip_names()
    # The warp *_sync intrinsics arrived with 64-bit masks in HIP 6.2; __nv_bfloat162 is HIP's __hip_bfloat162;
    # the SIMD-in-word helpers do not exist in HIP.
    assert (names["__shfl_xor_sync"].first_hip, names["__shfl_xor_sync"].state) == ("6.2", "declared")
    assert (names["__nv_bfloat162"].state, names["__nv_bfloat162"].hip_spelling) == ("renamed", "__hip_bfloat162")
    # cuda_bf16.h's alias nv_bfloat162 is the same type: renamed, not missing (AQLM's and punica's casts)
    assert (names["nv_bfloat162"].state, names["nv_bfloat162"].hip_spelling) == ("renamed", "__hip_bfloat162")
    assert [names[n].state for n in ("__vsub4", "__vcmpne4", "__vsubss4")] == ["missing"] * 3
    header = (REPO / "rules" / "kb" / "hip_names.tsv").read_text().splitlines()[0]
    assert header.startswith("# porter KB: first HIP version") and "scripts/build_hip_names.py" in header


def test_names_the_table_dates_to_the_local_hip_are_in_the_local_headers():
    local = Path("/usr/include/hip/hip_version.h")
    if not local.exists():
        import pytest

        pytest.skip("needs Debian's HIP headers (libamdhip64-dev) in /usr/include/hip")
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_hip_names", REPO / "scripts" / "build_hip_names.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    version, toks = mod.local_headers()
    dated = [n for n, h in hip_names().items() if h.first_hip == version]
    assert len(dated) > 40
    assert [n for n in dated if n.encode() not in toks] == []
    assert re.fullmatch(r"\d+\.\d+", version)


# ------------------------------------------------------------------------------------------- kernel verdicts


def _kernels(tmp_path, files: dict[str, str], targets=("mi300x",)):
    from porter.kernels.verdicts import analyse

    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return {k.name: k for k in analyse(result, list(targets)).kernels}


def test_shared_memory_from_a_header_constant_and_a_plain_struct(tmp_path):
    ks = _kernels(tmp_path, {
        "include/cfg.h": "#pragma once\n#define TILE 64\nconstexpr int kRows = 8;\n",
        "k.cu": '#include "include/cfg.h"\nstruct Pair { float a; int b; double c; };\n'
                "__global__ void k(float* x) {\n  __shared__ float s[TILE][kRows];\n  __shared__ Pair p[TILE];\n"
                "  x[0] = s[0][0] + p[0].a;\n}\n",
    })
    shared = ks["k"].facts.shared_memory
    assert [(a.name, a.bytes) for a in shared.arrays] == [("s", 2048), ("p", 1024)]
    assert shared.total_bytes == 3072 and ks["k"].facts.unknown == ()


def test_bare_syncwarp_and_launch_bounds_n_1_are_not_flagged(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        "__global__ void __launch_bounds__(256, 1) k(float* x) {\n  x[threadIdx.x] = 1.f;\n  __syncwarp();\n}\n"
        "__global__ void __launch_bounds__(256, 2) k2(float* x) {\n  x[threadIdx.x] = 1.f;\n}\n"
        "__global__ void __launch_bounds__(64, 2) k3(float* x) {\n  x[threadIdx.x] = 1.f;\n}\n"
        "__global__ void __launch_bounds__(256, 16) k4(float* x) {\n  x[threadIdx.x] = 1.f;\n}\n"
        "void run(float* x) { k<<<1, 256>>>(x); k2<<<1, 256>>>(x); k3<<<1, 64>>>(x); k4<<<1, 256>>>(x); }\n")})
    assert ks["k"].verdict_on("mi300x").verdict == "ok"
    # amdgpu_waves_per_eu(2) leaves 256 VGPRs, more than NVIDIA's 65536 / (2 x 256) = 128 registers: no tighter
    assert ks["k2"].verdict_on("mi300x").verdict == "ok"
    # 64-thread blocks with 2 (or 4) waves per SIMD are within CDNA's residency: a register cap, not a port item
    # (issue 27, session 21: the judged sets read (64, 4) ok); 16 waves per SIMD is beyond it
    assert ks["k3"].verdict_on("mi300x").verdict == "ok"
    assert ks["k4"].verdict_on("mi300x").reasons == ("launch-bounds-min-blocks",)


def test_plain_ptx_is_fix_and_mma_ptx_is_rewrite(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        '__global__ void plain(float* x) {\n  float v;\n  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(x));\n'
        "  x[1] = v;\n}\n"
        '__global__ void mma(float* x) {\n  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};" :: "f"(x[0]));\n}\n'
        '__global__ void amd(float* x) {\n  asm volatile("s_waitcnt vmcnt(0)" ::: "memory");\n}\n'
        "void run(float* x) { plain<<<1, 64>>>(x); mma<<<1, 64>>>(x); amd<<<1, 64>>>(x); }\n")})
    plain = ks["plain"].verdict_on("mi300x")
    assert (plain.verdict, plain.reasons) == ("fix", ("inline-ptx",))
    assert (ks["mma"].verdict_on("mi300x").verdict, ks["mma"].verdict_on("mi300x").reasons) == ("rewrite", ("inline-ptx-matrix",))
    assert ks["amd"].facts.inline_ptx.statements == 0 and ks["amd"].verdict_on("mi300x").verdict == "ok"


def test_explicit_width_32_shuffle_is_not_a_lane_assumption(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        "__global__ void k(float* x) {\n  float v = x[threadIdx.x];\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o, 32);\n  x[threadIdx.x] = v;\n}\n"
        "void run(float* x) { k<<<1, 64>>>(x); }\n")})
    assert ks["k"].facts.lane_assumptions == () and ks["k"].verdict_on("mi300x").verdict == "ok"


def test_harvested_constants_read_c_integer_literals():
    from porter.kernels.constfold import harvest_constants

    data = (b"#define MODE 0600\n#define BAD 09\n#define HEX 0x40u\nconstexpr int kTile = 128;\n#define TWICE 1\n#define TWICE 2\n"
            b"  const int threads = 32;\n")
    assert harvest_constants(data) == {"MODE": 0o600, "HEX": 64, "kTile": 128}


def test_bounded_unknown_shared_memory_is_not_a_check(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        "template <typename T>\n__global__ void scalar(T* x) {\n  __shared__ T sval;\n  if (threadIdx.x == 0) sval = x[0];\n"
        "  __syncthreads();\n  x[threadIdx.x] += sval;\n}\n"
        "template <typename T, int N>\n__global__ void tile(T* x) {\n  __shared__ T buf[N];\n  x[0] = buf[0];\n}\n"
        "__global__ void reduce(float* x) {\n  typedef cub::BlockReduce<float, 256> BlockReduce;\n"
        "  __shared__ typename BlockReduce::TempStorage tmp;\n  x[0] = BlockReduce(tmp).Sum(x[threadIdx.x]);\n}\n"
        "void run(float* x) { scalar<<<1, 256>>>(x); reduce<<<1, 256>>>(x); }\n")})
    assert ks["scalar"].verdict_on("mi300x").verdict == "ok"
    assert ks["reduce"].verdict_on("mi300x").verdict == "ok"
    # N unknown, but CUDA compiles at most 48 KiB of static shared memory per block: within MI300X's 64 KiB
    tile = ks["tile"].verdict_on("mi300x")
    assert (tile.verdict, tile.reasons) == ("ok", ())


def test_occupancy_api_grid_is_not_sm_tuned_but_a_fixed_multiplier_is(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        "__global__ void a(float* x) { x[threadIdx.x] = 0; }\n__global__ void b(float* x) { x[threadIdx.x] = 0; }\n"
        "void run(float* x) {\n  int sms = 0, per_sm = 0;\n"
        "  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
        "  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a, 256, 0);\n"
        "  a<<<sms * per_sm, 256>>>(x);\n  b<<<sms * 4, 256>>>(x);\n}\n")})
    assert ks["a"].verdict_on("mi300x").verdict == "ok"
    assert ks["b"].verdict_on("mi300x").reasons == ("sm-count-grid",)


def test_occupancy_grid_through_a_variable_is_not_sm_tuned(tmp_path):
    """Learn-CUDA-Programming's grid: `n_blocks = min(per_sm * sms, ...)` carries the occupancy API's answer on; a
    fixed multiplier through a variable (`blocks = sms * 4`) is still NVIDIA's tuning."""
    ks = _kernels(tmp_path, {"k.cu": (
        "__global__ void a(float* x) { x[threadIdx.x] = 0; }\n__global__ void b(float* x) { x[threadIdx.x] = 0; }\n"
        "void run(float* x, int size) {\n  int sms = 0, per_sm = 0;\n"
        "  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
        "  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a, 256, 0);\n"
        "  int n_blocks = min(per_sm * sms, (size + 255) / 256);\n  int blocks = sms * 4;\n"
        "  a<<<n_blocks, 256>>>(x);\n  b<<<blocks, 256>>>(x);\n}\n")})
    assert ks["a"].verdict_on("mi300x").verdict == "ok"
    assert (ks["b"].verdict_on("mi300x").reasons, ks["b"].verdict_on("mi300x").details[0].lines) == (
        ("sm-count-grid",), (10,))


def test_griddepcontrol_is_a_fix_and_tma_descriptors_a_rewrite(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        '__global__ void pdl(float* x) {\n  asm volatile("griddepcontrol.wait;" ::: "memory");\n  x[0] = 1;\n}\n'
        "__global__ void desc(tma::cudaTmaDesc* d) {\n  d[threadIdx.x] = tma::cudaTmaDesc{};\n}\n"
        "void run(float* x, tma::cudaTmaDesc* d) { pdl<<<1, 64>>>(x); desc<<<1, 64>>>(d); }\n")})
    pdl = ks["pdl"].verdict_on("mi300x")
    assert (pdl.verdict, pdl.reasons) == ("fix", ("inline-ptx",))
    assert ks["desc"].verdict_on("mi300x").verdict == "rewrite"


def test_cutlass_types_in_a_kernel_body_are_a_fix(tmp_path):
    ks = _kernels(tmp_path, {"k.cu": (
        "template <class T>\n__global__ void reorder(T* out) {\n  using V = cutlass::Array<T, 8>;\n"
        "  reinterpret_cast<V*>(out)[threadIdx.x] = V{};\n}\nvoid run(float* x) { reorder<<<1, 256>>>(x); }\n")})
    k = ks["reorder"]
    assert k.facts.cuda_libraries == ("cutlass",)
    assert (k.verdict_on("mi300x").verdict, k.verdict_on("mi300x").reasons) == ("fix", ("cutlass-cute",))
