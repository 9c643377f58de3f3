"""porter.match.refine: dead preprocessor branches, private toolkit-header copies, one finding per spot."""
from __future__ import annotations

from porter.match.refine import dead_lines, private_toolkit_copy
from porter.pipeline import run, scan
from porter.settings import Settings
from porter.source.parse import parse


def _dead(text: str) -> list[int]:
    return sorted(dead_lines(parse("k.cu", "cuda", text.encode())))


def test_if_zero_body_and_else_of_if_one_are_dead():
    text = ("#if 0\n"          # 1
            "a\n"              # 2 dead
            "#else\n"          # 3
            "b\n"              # 4 live
            "#endif\n"         # 5
            "#if 1\n"          # 6
            "c\n"              # 7 live
            "#elif FOO\n"      # 8
            "d\n"              # 9 dead
            "#else\n"          # 10
            "e\n"              # 11 dead
            "#endif\n")        # 12
    assert _dead(text) == [2, 9, 11]


def test_nested_and_non_literal_conditions():
    text = ("#ifdef __CUDA_ARCH__\n"  # 1
            "a\n"                     # 2 live: not a literal
            "#if (0)\n"               # 3
            "#if FOO\n"               # 4 dead (outer dead)
            "b\n"                     # 5 dead
            "#else\n"                 # 6 dead
            "c\n"                     # 7 dead
            "#endif\n"                # 8 dead
            "#endif\n"                # 9
            "#else\n"                 # 10
            "d\n"                     # 11 live
            "#endif\n")
    assert _dead(text) == [4, 5, 6, 7, 8]


def test_private_cuda_h_copy_is_recognised_by_name_and_content():
    copy = b"/* Copyright 1993-2020 NVIDIA Corporation. */\n#define __cuda_cuda_h__\nCUresult cuInit(unsigned int);\n"
    assert private_toolkit_copy(parse("third_party/include/cuda.h", "cuda", copy))
    assert not private_toolkit_copy(parse("src/kernels.h", "cuda", copy))
    assert not private_toolkit_copy(parse("src/cuda.h", "cuda", b"#include <cuda_runtime.h>\nvoid f();\n"))


def test_private_cuda_h_copy_has_no_api_findings(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda.h").write_text(
        "/* Copyright NVIDIA Corporation */\n#define CUDA_VERSION 12040\nCUresult cuCtxCreate(CUcontext*, unsigned, CUdevice);\n"
        "CUresult cuTexRefSetArray(CUtexref, CUarray, unsigned);\n")
    (tmp_path / "use.cu").write_text("#include \"cuda.h\"\nvoid f() { cuTexRefSetArray(0, 0, 0); }\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert sorted({f.path for f in result.findings if f.category == "api"}) == ["use.cu"]


def test_wgmma_statement_is_one_dev007_finding_with_dev001_merged(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__device__ void f() {\n"
        "  asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
        "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(x));\n"
        "}\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule) for f in result.findings if f.rule.startswith("DEV"))
    assert got == [(2, "DEV007"), (3, "DEV001")]
    dev007 = next(f for f in result.findings if f.rule == "DEV007")
    assert dict(dev007.data)["also"].startswith("DEV001: Inline PTX assembly")


def test_api006_wins_over_lib001_on_one_include(tmp_path):
    (tmp_path / "k.cu").write_text("#include <cuda/atomic>\n#include <nvtx3/nvToolsExt.h>\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert sorted((f.line, f.rule) for f in result.findings) == [(1, "API006"), (2, "API005"), (2, "LIB001")]
    api006 = next(f for f in result.findings if f.rule == "API006")
    assert dict(api006.data)["also"].startswith("LIB001: libcu++ (CCCL) (cuda/atomic) → ROCm: libhipcxx")


FALLBACKS = """__device__ void f(float2& c, float2 a, float2 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  asm volatile("mul.f32x2 %0, %1, %2;" : "=l"(c) : "l"(a), "l"(b));
#else
  c.x = a.x * b.x;
#endif
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800))
  c.x = 1;
#else
  asm volatile("brkpt;\\n" ::);
#endif
#if __CUDA_ARCH__ >= 350 || defined(USE_AMD_ROCM)
  c.y = 2;
#endif
#ifdef USE_ROCM
  int lane = threadIdx.x % 32;
#else
  int lane2 = threadIdx.x % 32;
#endif
#if CUDA_VERSION >= 9000
  c.x = __shfl_sync(0xffffffffffffffffull, c.x, 0);
#else
  c.x = __shfl(c.x, 0);
#endif
}
#if __CUDA_ARCH__ >= 800
__global__ void k(float* x) { x[0] = 1; }
#else
__global__ void k(float* x) {}
#endif
"""


def test_fallbacks_rocm_branches_and_old_toolkit_code(tmp_path):
    (tmp_path / "k.cu").write_text(FALLBACKS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    # Line 2's test has a plain-C #else: HIP compiles that, so no DEV009; line 7's #else traps, so it stays. Line 12
    # names ROCm itself. Line 16 is inside #ifdef USE_ROCM (AMD-only: kept, and port-awareness reads it handled), line
    # 18 is the CUDA side. Line 20's version test falls back to __shfl (fine on HIP; a broadcast, so lines 16 and 18's 32s are no logical-warp group), and that fallback (line 23)
    # is no deprecated-API use.
    assert sorted((f.line, f.rule) for f in result.findings) == [
        (3, "DEV001"), (7, "DEV009"), (10, "DEV001"), (16, "DEV011"), (18, "DEV011"), (21, "API004"), (26, "DEV009"),
        (27, "KRN001"), (29, "KRN001")]  # line 26's #else is an empty kernel stub: broken on HIP
    statuses = {(f.line, f.rule): (str(f.status), f.handled_by) for f in run(tmp_path, Settings(jobs=1, cache_dir=None)).result.findings}
    assert statuses[(16, "DEV011")] == ("handled", "k.cu:15") and statuses[(18, "DEV011")] == ("handled", "k.cu:15")


def test_a_directive_is_a_hash_first_on_its_line():
    from porter.source.preprocessor import Arm, Group, preprocessed

    text = ("  #  if 0\n"            # 1: blanks before and after the hash
            "x = a # if 0\n"         # 2: a hash after code opens nothing
            "##if 0\n"               # 3: nor a doubled hash
            "\t#ifdef A  # if B\n"   # 4: one directive; the rest of the line is its condition
            "#endif\n"               # 5
            "#endif // x\n")         # 6
    sf = parse("k.cu", "cuda", text.encode())
    assert preprocessed(sf).groups == (Group((Arm("ifdef", "A  # if B", 4, 4, 4),), 5),
                                       Group((Arm("if", "0", 1, 1, 5),), 6))
    assert sorted(dead_lines(sf)) == [2, 3, 4, 5]


def test_plain_same_name_renames_read_info_and_caveats_stay_open(tmp_path):
    # hipify's renames are free work (bench/judged/README.md, "real"): a same-name function without a caveat is info;
    # the 64-bit-mask warp functions and the directed-rounding intrinsics HIP hides behind
    # OCML_BASIC_ROUNDED_OPERATIONS stay open; a plain cudaLaunchKernel is API001's rename, not KRN003's.
    (tmp_path / "a.cu").write_text(
        "#include <cuda_bf16.h>\n"                                                         # 1
        "__global__ void k(__nv_bfloat16* x, float* y, unsigned long long m) {\n"          # 2
        "  float v = __bfloat162float(x[threadIdx.x]);\n"                                  # 3 info
        "  v = __shfl_xor_sync(m, v, 1);\n"                                                # 4 low
        "  y[threadIdx.x] = __fdiv_rd(v, 3.0f);\n"                                         # 5 low
        "}\n"
        "void h(__nv_bfloat16* x, float* y, cudaLaunchConfig_t* c) {\n"                     # 7
        "  void* a[] = {&x, &y};\n"
        "  cudaLaunchKernel((void*)k, dim3(1), dim3(64), a, 0, 0);\n"                       # 9 API001 only
        "  cudaLaunchKernelEx(c, k, x, y, 0ull);\n"                                         # 10 KRN003 low
        "}\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule, str(f.severity), dict(f.data).get("advice", "")[:30])
                 for f in result.findings if f.rule in ("API004", "KRN003"))
    assert got == [(3, "API004", "info", "compare its behaviour with HIP"),
                   (4, "API004", "low", "same name in HIP with a 64-bit"),
                   (5, "API004", "low", "HIP declares the _rd/_ru/_rz f"),
                   (10, "KRN003", "low", "")]


def test_capability_tests_amd_answers_as_ampere_read_info(tmp_path):
    # PyTorch on ROCm reports (9, 4) on MI300X, (9, 5) on MI355X, (12, 5) on MI455X: a test those and Ampere (8, 0)
    # answer alike takes Ampere's path on AMD (info); `>= (9, 0)` takes Hopper's (open); an uncompared call stays open.
    (tmp_path / "caps.py").write_text(CAPS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity)) for f in sorted(result.findings, key=lambda f: f.line) if f.rule == "PYT001"]
    assert got == [(5, "info"), (7, "info"), (9, "medium"), (11, "info"), (12, "medium"), (14, "info")]
    note = dict(next(f for f in result.findings if f.rule == "PYT001" and f.line == 7).data)["amd_answers"]
    assert note == ("`get_device_capability()[0] == 10` is False on Ampere (8, 0) and on every AMD GPU ((9, 4), (9, 5), "
                    "(12, 5)): ROCm takes Ampere's path")


CAPS = """\
import torch


def pick(x):
    if torch.cuda.get_device_capability(x.device) < (8, 0):
        return "volta"
    if torch.cuda.get_device_capability()[0] == 10:
        return "sm100"
    if torch.cuda.get_device_capability() >= (9, 0):
        return "hopper"
    major = torch.cuda.get_device_capability()[0] >= 8
    cap = torch.cuda.get_device_capability()
    if (weight is None and
            torch.cuda.get_device_capability(
                x.device) < (8, 0)):
        return "old"
    return cap, major
"""


def test_deprecated_apis_hip_keeps_read_info(tmp_path):
    # CUDA deprecated them, hipify maps them to a HIP call HIP keeps: the port is a rename (info). No HIP name, or
    # the same name HIP itself deprecated (texture references), stays open.
    (tmp_path / "b.cu").write_text(
        "#include <cusparse.h>\n"
        "__global__ void k(float* p) { p[0] = 1.f; }\n"
        "void h(cusparseHandle_t hd) {\n"
        "  cudaFuncSetSharedMemConfig(k, cudaSharedMemBankSizeEightByte);\n"   # 4 info
        "  cudaThreadSynchronize();\n"                                          # 5 info
        "  cusparseAlgMode_t a = CUSPARSE_ALG0;\n"                              # 6 medium x2 (no HIP name)
        "  texture<float, 1> tex;\n"                                            # 7 medium (same name)
        "}\n"
        "__device__ float r(float v) { return __shfl_down(v, 1); }\n"          # 9 info (HIP's own shuffle)
        "cusparseStatus_t n(cusparseHandle_t hd) { return cusparseXcsrgemm2Nnz(hd); }\n"  # 10 info: hipSPARSE's
        "void t(textureReference* r) { cudaUnbindTexture(r); }\n"  # 11 medium   deprecation is CUDA-backend only
        "bsrsv2Info_t info;\n")  # 12 info: a cuSPARSE type CUDA 12.2 deprecated, which hipSPARSE keeps by that name
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "API003")
    assert got == [(4, "info"), (5, "info"), (6, "medium"), (6, "medium"), (7, "medium"), (9, "info"), (10, "info"),
                   (11, "medium"), (12, "info")]
    assert dict(next(f for f in result.findings if f.rule == "API003" and f.line == 12).data)["rename"] == (
        "plain: hipify maps it to bsrsv2Info_t, which HIP keeps")
    csr = next(f for f in result.findings if f.rule == "API003" and f.line == 10)
    assert dict(csr.data)["rename"] == "plain: hipify maps it to hipsparseXcsrgemm2Nnz, which HIP keeps"
    assert csr.message.endswith("hipify maps it to hipsparseXcsrgemm2Nnz (hipSPARSE 3.9.0 deprecates it for its "
                                "CUDA backend only).")
    assert dict(next(f for f in result.findings if f.rule == "API003" and f.line == 4).data)["rename"] == (
        "plain: hipify maps it to hipFuncSetSharedMemConfig, which HIP keeps")
    assert dict(next(f for f in result.findings if f.rule == "API003" and f.line == 9).data)["rename"] == (
        "plain: hipify maps it to __shfl_down, which HIP keeps")


def test_a_dropin_import_in_a_try_except_importerror_is_optional(tmp_path):
    (tmp_path / "trace.py").write_text(
        "import pynvml\n"                      # 1: a hard import: open
        "try:\n"                               # 2
        "    import xformers\n"                # 3: optional: info
        "except ModuleNotFoundError:\n"        # 4
        "    xformers = None\n"                # 5
        "try:\n"                               # 6
        "    import pynvml as nvml\n"          # 7: a handler for another error: open
        "except OSError:\n"                    # 8
        "    nvml = None\n"                    # 9
        "try:\n"                               # 10
        "    from apex.contrib import fast\n"  # 11: a bare except catches ImportError too: info
        "except:\n"                            # 12
        "    fast = None\n")                   # 13
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("optional")) for f in r.findings if f.rule == "LIB007"]
    assert got == [(1, "low", None), (3, "info", "imported in a try whose except catches ImportError (line 4)"),
                   (7, "low", None), (11, "info", "imported in a try whose except catches ImportError (line 12)")]


def test_a_port_library_import_in_a_try_except_importerror_is_marked_optional_at_its_severity(tmp_path):
    (tmp_path / "gl.py").write_text(
        "import pycuda.driver\n"              # 1: a hard import: no mark
        "def probe():\n"                      # 2
        "    try:\n"                          # 3
        "        import pycuda.gl\n"          # 4: probed: optional, severity kept
        "    except (ImportError, ModuleNotFoundError):\n"  # 5
        "        return False\n"              # 6
        "    return True\n")                  # 7
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("optional")) for f in r.findings if f.rule == "LIB008"]
    assert got == [(1, "medium", None),
                   (4, "medium", "imported in a try whose except catches ImportError (line 5)")]


def test_ptx_in_a_device_pass_arm_whose_else_hip_compiles_reads_info(tmp_path):
    (tmp_path / "smem.cu").write_text(
        "__device__ unsigned smem_pointer(void* ptr) {\n"                    # 1
        "#if (!defined(__clang__) && defined(__CUDA_ARCH__))\n"              # 2
        "  return static_cast<unsigned>(__cvta_generic_to_shared(ptr));\n"   # 3
        "#elif defined(__CUDA_ARCH__)\n"                                     # 4
        "  unsigned p;\n"                                                    # 5
        "  asm(\"cvta.to.shared.u32 %0, %1;\" : \"=r\"(p) : \"r\"(0));\n"  # 6: HIP compiles line 9: info
        "  return p;\n"                                                      # 7
        "#else\n"                                                            # 8
        "  return 0;\n"                                                      # 9
        "#endif\n"                                                           # 10
        "}\n"                                                                # 11
        "__device__ unsigned lane() {\n"                                     # 12
        "#ifdef __CUDA_ARCH__\n"                                             # 13
        "  unsigned r;\n"                                                    # 14
        "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n"          # 15: the #else traps: open
        "  return r;\n"                                                      # 16
        "#else\n"                                                            # 17
        "  __trap();\n"                                                      # 18
        "#endif\n"                                                           # 19
        "}\n"                                                                # 20
        "__device__ unsigned lane2() {\n"                                    # 21
        "#ifdef __CUDA_ARCH__\n"                                             # 22
        "  unsigned r;\n"                                                    # 23
        "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n"          # 24: no #else: open (it vanishes)
        "  return r;\n"                                                      # 25
        "#endif\n"                                                           # 26
        "  return 0;\n"                                                      # 27
        "}\n")                                                               # 28
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("hip_compiles")) for f in r.findings if f.rule == "DEV001"]
    assert got == [(6, "info", "the #else at line 8 (HIP leaves __CUDA_ARCH__ undefined)"), (15, "high", None),
                   (24, "high", None)]


MESSAGES = """\
import logging
import torch

logger = logging.getLogger(__name__)
print(f"CUDA version: {torch.version.cuda}")
logging.warning(
    "Set TORCH_CUDA_ARCH_LIST for specific architectures."
)
logger.info("nvcc flags: -gencode arch=compute_90,code=sm_90")
os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
major = torch.version.cuda.split(".")[0]
error("TORCH_CUDA_ARCH_LIST")
"""


def test_a_python_message_call_only_shows_text(tmp_path):
    # heldout7: uccl's test banner printing torch.version.cuda (PYT002) and kaolin's setup.py warning that names
    # TORCH_CUDA_ARCH_LIST (BLD006) are messages; the assignment (10), the use (11) and an unknown bare `error()`
    # call (12) are not.
    (tmp_path / "setup.py").write_text(MESSAGES)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule) for f in result.findings if f.rule in ("PYT002", "BLD006"))
    assert got == [(10, "BLD006"), (11, "PYT002"), (12, "BLD006")]


SELF_TEST = """\
import torch


def quantize(x):
    return x.to(torch.float8_e4m3fn)


if __name__ == "__main__":
    kv = torch.randn(4, device="cuda")
    kv_fp8 = kv.to(torch.float8_e4m3fn)
"""
SCRIPT = """\
import torch

if __name__ == "__main__":
    kv_fp8 = torch.randn(4).to(torch.float8_e4m3fn)
"""


def test_a_library_modules_self_test_reads_info_a_scripts_main_stays(tmp_path):
    # heldout7: lightllm's Triton kernel modules end in a self-test casting to float8_e4m3fn (QNT004)
    (tmp_path / "kernel.py").write_text(SELF_TEST)
    (tmp_path / "script.py").write_text(SCRIPT)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, str(f.severity)) for f in result.findings if f.rule == "QNT004")
    assert got == [("kernel.py", 5, "medium"), ("kernel.py", 10, "info"), ("script.py", 4, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "QNT004" and f.line == 10).data)["self_test"]
    assert note == "in the module's `if __name__ == \"__main__\":` self-test (line 8), not library code"


UNPACKED = """\
import torch

try:
    major, _minor = torch.cuda.get_device_capability()
    has_sm_8_0 = major >= 8
except Exception:
    has_sm_8_0 = False

major, minor = torch.cuda.get_device_capability()
is_sm75 = major == 7 and minor == 5

cap_major, cap_minor = torch.cuda.get_device_capability()
if cap_major >= 9:
    BLOCK = 32

a, b = torch.cuda.get_device_capability()
print(a, b)
"""


def test_an_unpacked_capability_is_read_through_the_tests_of_its_names(tmp_path):
    # heldout7: TGI's `major, _minor = ...; has_sm_8_0 = major >= 8` and `is_sm75 = major == 7 and minor == 5` take
    # Ampere's answer on every AMD GPU (info); `>= 9` is Hopper's answer on MI300X (open); names passed on stay open.
    (tmp_path / "caps.py").write_text(UNPACKED)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity)) for f in sorted(result.findings, key=lambda f: f.line) if f.rule == "PYT001"]
    assert got == [(4, "info"), (9, "info"), (12, "medium"), (16, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "PYT001" and f.line == 9).data)["amd_answers"]
    assert note == ("`major == 7 and minor == 5`: the same on Ampere (8, 0) and on every AMD GPU ((9, 4), (9, 5), "
                    "(12, 5)): ROCm takes Ampere's path")


def test_triton_config_lists_dev014_where_32_warps_break_pyt013_info_elsewhere():
    # session 13: DEV014 keeps only the lists that reach 32 warps; the other lists with no AMD option are PYT013 at
    # info (no port item, a tuning hint), and where both hit one list DEV014 wins (rules/kb/precedence.yaml)
    from pathlib import Path

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "DEV014-nvidia-generation-tuning"
    result = scan(fixture, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule, str(f.severity)) for f in result.findings
                 if f.path == "configs.py" and f.rule in ("DEV014", "PYT013"))
    assert got == [(7, "PYT013", "info"), (22, "PYT013", "info"), (27, "PYT013", "info"), (32, "DEV014", "medium"),
                   (35, "PYT013", "info"), (49, "PYT013", "info"), (60, "DEV014", "medium")]


def test_a_kernel_string_cupy_compiles_is_no_port_item_but_a_pycuda_one_is(tmp_path):
    # CuPy's ROCm build compiles RawKernel/RawModule strings with hipRTC (PYT007 reads info, directly or through a
    # variable); PyCUDA has no ROCm build (open).
    (tmp_path / "k.py").write_text(
        "import cupy as cp\n"                                                              # 1
        "from pycuda.compiler import SourceModule\n"                                       # 2
        "k = cp.RawKernel(r'''\n"                                                          # 3
        "extern \"C\" __global__ void add(float* x) { x[threadIdx.x] += 1.0f; }\n"        # 4: info
        "''', 'add')\n"                                                                    # 5
        "m = SourceModule('''\n"                                                           # 6
        "__global__ void mul(float* x) { x[threadIdx.x] *= 2.0f; }\n"                     # 7: open
        "''')\n"                                                                           # 8
        "SRC = r'''\n"                                                                     # 9
        "extern \"C\" __global__ void sub(float* x) { x[threadIdx.x] -= 1.0f; }\n"        # 10: info
        "'''\n"                                                                            # 11
        "MOD = cp.RawModule(code=SRC)\n")                                                  # 12
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("rocm_compiles")) for f in r.findings if f.rule == "PYT007"]
    assert got == [(4, "info", "CuPy RawKernel: CuPy's ROCm build compiles the string with hipRTC"), (7, "medium", None),
                   (10, "info", "CuPy RawModule: CuPy's ROCm build compiles the string with hipRTC")]


def test_flags_a_makefile_filters_out_are_removed_not_passed(tmp_path):
    (tmp_path / "Makefile").write_text(
        "GPUFLAGS += --expt-extended-lambda -arch sm_80\n"                             # 1: passed to nvcc
        "TIDY := $(filter-out -fmad=false --expt-extended-lambda,$(GPUFLAGS))\n"      # 2: removed for clang-tidy
        "NVCC ?= nvcc\n")                                                               # 3
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert sorted((f.line, f.rule) for f in r.findings) == [(1, "BLD004"), (1, "BLD005"), (3, "BLD007")]


def test_a_port_library_import_that_only_probes_for_the_module_reads_info(tmp_path):
    # sigpy's config.py: `from cupy import cudnn` in a try only sets a flag (the name is used nowhere else): a probe,
    # info; conv.py's import of the same module, used by its code, stays open at its severity.
    (tmp_path / "config.py").write_text(
        "try:\n"                                    # 1
        "    from cupy import cudnn  # noqa\n"      # 2: a probe: info
        "    cudnn_enabled = True\n"                # 3
        "except ImportError:\n"                     # 4
        "    cudnn_enabled = False\n")              # 5
    (tmp_path / "conv.py").write_text(
        "try:\n"                                    # 1
        "    from cupy import cudnn\n"              # 2: used below: medium
        "except ImportError:\n"                     # 3
        "    cudnn = None\n"                        # 4
        "def conv(x):\n"                            # 5
        "    return cudnn.convolution_forward(x)\n")  # 6
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, str(f.severity), dict(f.data).get("probe")) for f in r.findings if f.rule == "LIB008")
    assert got == [("config.py", 2, "info", "`cudnn` is only imported to test that it exists"),
                   ("conv.py", 2, "medium", None)]


COOPERATIVE = """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void persistent(float* p) {
  p[0] = 0.f;
  cg::this_grid().sync();
}
__device__ void helper() { cg::this_grid().sync(); }
__device__ void middle() { helper(); }
__global__ void chevroned(float* p) { middle(); }
__global__ void direct(float* p) {
  cg::this_grid().sync();
}
void launch(float* p, cudaStream_t s) {
  void* args[] = {&p};
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent, 256, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaLaunchCooperativeKernel((void*)persistent, dim3(per_sm * sms), dim3(256), args, 0, s);
  chevroned<<<132, 256, 0, s>>>(p);
  direct <<<132, 256>>>(p);
}
void fixed(float* p, cudaStream_t s) {
  void* args[] = {&p};
  cudaLaunchCooperativeKernel((void*)persistent, dim3(132), dim3(256), args, 0, s);
}
"""


def test_grid_sync_under_a_cooperative_launch_reads_info_a_chevron_launched_one_stays(tmp_path):
    # heldout10 pplx, heldout8 sppark, heldout6 DeepEP (barrier, launched cooperatively) vs heldout8 hornet (<<<>>>);
    # heldout8 punica's occupancy-sized cooperative launch vs a fixed 132-block grid
    (tmp_path / "coop.cu").write_text(COOPERATIVE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "KRN004")
    assert got == [(5, "info"), (7, "medium"), (11, "medium"), (18, "info"), (24, "medium")]
    data = {f.line: dict(f.data) for f in result.findings if f.rule == "KRN004"}
    assert data[5]["cooperative"] == ("HIP's grid_group::sync works under hipLaunchCooperativeKernel, and this file "
                                      "launches persistent with no <<<>>>: the work is at the cooperative launch")
    assert data[18]["occupancy"] == ("launch sizes the grid from the occupancy API at run time: right for the AMD GPU "
                                     "that runs it")


OWN_NVFP4 = """\
from enum import Enum
import torch
import modelopt.torch.quantization as mtq
from tensorrt_llm.quantization import QuantAlgo


class DType(Enum):
    MXFP4 = 17
    NVFP4 = 18


MX_DTYPES = [DType.MXFP4, DType.NVFP4]
NVFP4_META_SCALE = 0.05


def scale(x):
    return x * NVFP4_META_SCALE


cfg = mtq.NVFP4_DEFAULT_CFG
algo = QuantAlgo.NVFP4
packed = torch.empty(4, dtype=torch.float4_e2m1fn_x2)
"""

def test_an_nvfp4_enum_member_definition_reads_info_its_uses_and_nvidias_names_stay(tmp_path):
    # heldout9 gemlite's `NVFP4 = 18` (judged a name); the old set's flashinfer NVFP4_SF_VEC_SIZE = 16 and heldout4
    # ao's NVFP4Linear use, judged real, stay open like every use
    (tmp_path / "dtypes.py").write_text(OWN_NVFP4)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "QNT003")
    assert got == [(9, "info"), (12, "high"), (13, "high"), (17, "high"), (20, "high"), (21, "high"), (22, "high")]
    note = dict(next(f for f in result.findings if f.rule == "QNT003" and f.line == 9).data)["own_name"]
    assert note == "defines a member of the project's DType with a number: a name, not NVIDIA's NVFP4 API"


FNUZ_TABLE = """\
import torch

RESOLUTION = {
    torch.float8_e4m3fn: 1e-3,
    torch.float8_e4m3fnuz: 1e-3,
}
BYTES = {torch.float8_e4m3fn: 1}
PAIRS = [(torch.float8_e5m2, 1), (torch.float8_e5m2fnuz, 1)]


def cast(x):
    return {"w": x.to(torch.float8_e4m3fn), "note": "fnuz later"}
"""


def test_ocp_fp8_in_a_table_that_lists_fnuz_reads_info(tmp_path):
    # heldout10 FlagGems' tolerance table, heldout9 gemlite's dtype map; a table without FNUZ and a cast stay open
    (tmp_path / "tables.py").write_text(FNUZ_TABLE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "QNT004")
    assert got == [(4, "info"), (7, "medium"), (8, "info"), (12, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "QNT004" and f.line == 4).data)["fnuz_too"]
    assert note == "the dictionary at line 3 lists the FNUZ dtypes too: a table that serves both encodings"


TOOLKIT_TESTS = """\
#include <cufft.h>
const char* name(cufftResult r) {
  switch (r) {
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 13
  case CUFFT_LICENSE_ERROR:
    return "license";
#endif
  default:
    return "other";
  }
}
#if CUDA_VERSION >= 9000
#pragma GCC diagnostic push
#endif
#if CUDA_VERSION >= 11000
__device__ void fast() { __nanosleep(10); }
#endif
#if CUDA_VERSION < 12000
int chunked = 1;
#endif
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < MIN_SM)
#warning "needs SM100: kernels are disabled for this architecture"
#endif
"""


def test_toolkit_tests_hip_answers_like_cuda_13_and_pragma_only_arms_are_not_port_items(tmp_path):
    # heldout10 finufft's legacy cuFFT enum arm (false under hipcc and under CUDA 13), heldout9 gloo's pragma push,
    # heldout4 torchao's #warning-only arch arm (line 21: no DEV009); a `>= 11000` arm HIP drops and a `< 12000` arm
    # HIP takes (libCEED) stay open
    (tmp_path / "k.cu").write_text(TOOLKIT_TESTS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule, str(f.severity)) for f in result.findings if f.rule in ("DEV010", "API002", "DEV009"))
    assert got == [(5, "API002", "info"), (15, "DEV010", "medium"), (16, "API002", "high"), (18, "DEV010", "medium")]
    note = dict(next(f for f in result.findings if f.rule == "API002" and f.line == 5).data)["old_toolkit"]
    assert note == "in the arm at line 4, which HIP skips as CUDA 13 does: code for older toolkits"


CAPABILITY_RECORD = """\
import torch


def load(cached):
    current = torch.cuda.get_device_capability()
    if cached.get("device_capability") != current:
        return None
    return cached


def save():
    return {"device_capability": torch.cuda.get_device_capability(), "n": 1}


def pick():
    cap = torch.cuda.get_device_capability()
    if cap != (9, 0):
        return 64
    return 128


def tile():
    cap = torch.cuda.get_device_capability()
    key = cap
    return key
"""


def test_a_capability_only_recorded_or_compared_with_a_record_reads_info(tmp_path):
    # heldout6 unsloth's autotune cache: the capability is stored with the entry and compared on load; a test against
    # a literal and a capability passed on stay open
    (tmp_path / "cache.py").write_text(CAPABILITY_RECORD)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "PYT001")
    assert got == [(5, "info"), (12, "info"), (16, "medium"), (23, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "PYT001" and f.line == 5).data)["identity"]
    assert note == "the capability is only recorded or compared with a recorded one: each GPU answers for itself"


CAPABILITY_REPORT = """\
import json
import torch


def report(rows):
    return {"device": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)), "rows": rows}


def banner():
    cap = torch.cuda.get_device_capability(0)
    print(f"device cap {cap}")


def probe():
    major, minor = torch.cuda.get_device_capability(0)
    print(f"cc = {major}{minor} (sm_{major}{minor})")


def gate():
    major, minor = torch.cuda.get_device_capability(0)
    print(f"cc {major}.{minor}")
    if major >= 9:
        return "hopper"
    return "other"


def choose():
    cap = torch.cuda.get_device_capability(0)
    print(f"{'new' if cap >= (9, 0) else 'old'}")


def keep():
    return tuple(torch.cuda.get_device_capability(0))
"""


def test_a_capability_only_written_into_a_report_or_a_banner_reads_info(tmp_path):
    # heldout42: FlashRT's benchmarks keep list(get_device_capability()) in their JSON report, xkernels' GPU gates
    # print it in a banner, its archived probe prints the unpacked major/minor; a test of the unpacked major, an
    # f-string that compares it and a copy that is returned stay open
    (tmp_path / "bench.py").write_text(CAPABILITY_REPORT)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "PYT001")
    assert got == [(6, "info"), (10, "info"), (15, "info"), (20, "medium"), (28, "medium"), (33, "medium")]


CUDA_VERSION_REPORT = """\
import torch


def report(rows):
    return {"torch": torch.__version__, "cuda": torch.version.cuda, "rows": rows}


def banner():
    print(f"torch {torch.__version__} cuda {torch.version.cuda}")


def gate():
    if torch.version.cuda:
        return "cuda"
    return {"cuda": torch.version.cuda.split(".")}
"""


def test_the_cuda_version_only_written_into_a_report_or_a_banner_reads_info(tmp_path):
    # heldout42: FlashRT's benchmarks keep torch.version.cuda in their JSON report; a value made from it stays open
    # (the rule itself finds neither the banner's f-string nor the truth test)
    (tmp_path / "bench.py").write_text(CUDA_VERSION_REPORT)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "PYT002")
    assert got == [(5, "info"), (15, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "PYT002" and f.line == 5).data)["identity"]
    assert note == "torch.version.cuda is only recorded (a report's value or a printed banner): None on ROCm is what it records"


ENV_READS = """\
import os

nvcc_flags = os.getenv("NVCC_FLAGS", "")
meta = {"arch": os.environ.get("TORCH_CUDA_ARCH_LIST", None)}
cmake = ["-DTORCH_CUDA_ARCH_LIST=" + os.environ["TORCH_CUDA_ARCH_LIST"]]
os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
required = os.environ.get("TORCH_CUDA_ARCH_LIST")
meta["TORCH_CUDA_ARCH_LIST"] = os.environ.get("TORCH_CUDA_ARCH_LIST", None)
"""


def test_an_nvcc_variable_read_with_a_default_reads_info(tmp_path):
    # heldout9 dgSPARSE's NVCC_FLAGS, heldout8 punica's build metadata; heldout10 pplx's required read stays open
    (tmp_path / "setup.py").write_text(ENV_READS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD006")
    assert got == [(3, "info"), (4, "info"), (5, "low"), (6, "low"), (7, "low"), (8, "info"), (8, "info")]
    note = dict(next(f for f in result.findings if f.rule == "BLD006" and f.line == 3).data)["env_default"]
    assert note == 'read from the environment with the default "": the build runs without it'


DANGLING_ELSE = """\
__global__ void bins(unsigned* out, int key, bool multi) {
#if __CUDA_ARCH__ >= 700
  if (!multi) {
    out[key] = __match_any_sync(0xffffffffffffffffull, key);
  } else
#endif
  {
    atomicOr(&out[key], 1u);
  }
#if __CUDA_ARCH__ >= 700
  out[0] = __match_any_sync(0xffffffffffffffffull, key);
#endif
}
"""


def test_a_dangling_else_arm_empties_nothing_but_its_capability_test_stays(tmp_path):
    # heldout9 instant-ngp: the half2 atomics under `__CUDA_ARCH__ >= 600` end in `} else`, so the scalar block after
    # #endif is HIP's (DEV016 judged false there) while the silently false test skips a path AMD has (DEV009, real)
    (tmp_path / "k.cu").write_text(DANGLING_ELSE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule) for f in result.findings if f.rule in ("DEV009", "DEV016"))
    assert got == [(2, "DEV009"), (10, "DEV016")]


PROBED = """\
import torch


def storage(name):
    if name == "float4_e2m1fn":
        return torch.float4_e2m1fn_x2 if hasattr(torch, "float4_e2m1fn_x2") else torch.int8
    assert hasattr(torch, "float4_e2m1fn_x2")
    return torch.float4_e2m1fn_x2
"""


def test_a_dtype_taken_only_where_pytorch_has_it_reads_info(tmp_path):
    # heldout9 tilelang's storage dtype for float4_e2m1fn; the asserted one after it stays open
    (tmp_path / "dtypes.py").write_text(PROBED)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "QNT003")
    assert got == [(6, "info"), (8, "high")]
    note = dict(next(f for f in result.findings if f.rule == "QNT003" and f.line == 6).data)["probed"]
    assert note == "taken only where torch has it, else torch.int8"


INSPECT = """\
NVFLAGS = -arch=sm_86
build/sgemm: sgemm.cu
\tnvcc $(NVFLAGS) -arch=sm_86 -o $@ $<
sass: build/sgemm
\t@cuobjdump -arch sm_86 -sass -fun $(FUNCTION) build/sgemm | c++filt > build/cuobjdump.sass
"""


def test_an_arch_flag_given_to_an_inspection_tool_reads_info(tmp_path):
    # heldout5 SGEMM_CUDA's disassembly target; the build's own flags stay open
    (tmp_path / "Makefile").write_text(INSPECT)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD005")
    assert got == [(1, "low"), (3, "low"), (5, "info")]
    note = dict(next(f for f in result.findings if f.rule == "BLD005" and f.line == 5).data)["tool"]
    assert note == "an argument of cuobjdump, which inspects a build; it does not make one"


def test_a_header_rocm_keeps_says_keep_it_and_arch_flags_end_at_their_quote(tmp_path):
    # A new user's run: API005 advised "include <thrust/system_error.h> instead" of that very header, and BLD005's
    # name took the CMake string's closing `")` along with `-gencode arch=compute_30,code=sm_30`; a CMake escape
    # outside quotes (`code=\"sm_70\"`, valid CMake) made porter skip the whole file as malformed.
    (tmp_path / "t.cu").write_text("#include <thrust/system_error.h>\n#include <cuda_runtime.h>\n")
    (tmp_path / "CMakeLists.txt").write_text(
        'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -gencode arch=compute_30,code=sm_30")\n'
        'set(GENCODE -gencode=arch=compute_70,code=\\"sm_70,compute_70\\")\n')
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, f.rule, f.message.split(" targets")[0], f.replacement) for f in result.findings
                 if f.rule in ("API005", "BLD005"))
    assert got == [
        ("CMakeLists.txt", 1, "BLD005", "-gencode arch=compute_30,code=sm_30", "--offload-arch=gfx942 / gfx950"),
        ("CMakeLists.txt", 2, "BLD005", "-gencode=arch=compute_70,code=", "--offload-arch=gfx942 / gfx950"),
        ("t.cu", 1, "API005", "#include <thrust/system_error.h> (thrust): keep the include (rocThrust keeps Thrust's "
                              "include paths).", None),
        ("t.cu", 2, "API005", "#include <cuda_runtime.h> (runtime): include <hip/hip_runtime.h> instead.",
         "hip/hip_runtime.h"),
    ]


def test_capability_bounds_below_supported_nvidia_gpus_read_info(tmp_path):
    # AMD reports (9, 4), (9, 5), (12, 5); CUDA 13 supports Turing (7.5) on: a bound below that is answered alike by
    # every supported GPU (info); one inside the supported range picks an NVIDIA generation (open).
    (tmp_path / "ctx.cpp").write_text(
        "#include <cuda_runtime.h>\n"
        "int flags(const cudaDeviceProp& prop, const cudaDeviceProp* props) {\n"
        "  int a = 0;\n"
        "  if (prop.major*100 + prop.minor >= 600) a |= 1;\n"     # 4 info: true everywhere
        "  if ((props->major < 6) && a) a |= 2;\n"                 # 5 info: false everywhere
        "  if (prop.major >= 8) a |= 4;\n"                        # 6 medium: Turing false, Ampere true
        "  if (prop.major * 10 + prop.minor >= 90) a |= 8;\n"     # 7 medium: Hopper-only on NVIDIA
        "  if (prop.major == 9 && prop.minor == 0) a |= 16;\n"    # 8 medium x2
        "  return a;\n"
        "}\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "DEV013")
    assert got == [(4, "info"), (5, "info"), (6, "medium"), (7, "medium"), (8, "medium"), (8, "medium")]
    note = dict(next(f for f in result.findings if f.rule == "DEV013" and f.line == 4).data)["amd_answers"]
    assert note == ("`prop.major*100 + prop.minor >= 600` is True on every NVIDIA GPU CUDA 13 supports (Turing 7.5 on) "
                    "and on every AMD GPU ((9, 4), (9, 5), (12, 5)): ROCm takes their path")


def test_a_whole_capability_condition_answered_alike_reads_info_at_its_minor_test(tmp_path):
    # A `minor` test alone splits NVIDIA's GPUs (minor >= 5), but the `if` condition it sits in may not: NVIDIA's old
    # cutil emulation-device test and a pre-Maxwell ladder are False (or True) on every supported NVIDIA GPU and every
    # AMD GPU, so both fields read info; a Turing-only or Hopper-only condition stays open, and so does a condition
    # that also reads something else (its `major` test is still read alone, as before).
    (tmp_path / "pick.cpp").write_text(
        "#include <cuda_runtime.h>\n"
        "int pick(const cudaDeviceProp& prop, const cudaDeviceProp* props, int n) {\n"
        "  if (prop.major == 9999 && prop.minor == 9999) return 1;\n"             # 3 info x2: False everywhere
        "  if (props->major > 3 || (props->major == 3 && props->minor >= 5)) n += 2;\n"  # 4 info x3: True everywhere
        "  if (props->major != 7 || props->minor != 5) n += 4;\n"                 # 5 medium x2: Turing answers False
        "  if (prop.minor >= 5 && n) n += 8;\n"                                   # 6 medium: reads n too
        "  return n;\n"
        "}\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.message.split("`")[1], str(f.severity)) for f in result.findings if f.rule == "DEV013")
    assert got == [(3, "major", "info"), (3, "minor", "info"), (4, "major", "info"), (4, "major", "info"),
                   (4, "minor", "info"), (5, "major", "medium"), (5, "minor", "medium"), (6, "minor", "medium")]
    note = dict(next(f for f in result.findings if f.rule == "DEV013" and f.line == 3
                     and f.message.startswith("`minor`")).data)["amd_answers"]
    assert note == ("`prop.major == 9999 && prop.minor == 9999` is False on every NVIDIA GPU CUDA 13 supports "
                    "(Turing 7.5 on) and on every AMD GPU ((9, 4), (9, 5), (12, 5)): ROCm takes their path")


def test_a_warp_size_constant_of_a_host_function_that_launches_nothing_reads_info(tmp_path):
    # A host printer's layout constant is CPU-side data (info); a launcher's may size the grid (open); a device
    # function's and a file-scope one are the GPU's (open).
    (tmp_path / "g.cu").write_text(
        "#include <string>\n"
        "std::string dump(const unsigned* x, int n) {\n"
        "  constexpr int WARP_SIZE = 32;\n"                      # 3 info
        "  std::string s;\n"
        "  for (int i = 0; i < n; i += WARP_SIZE) s += std::to_string(x[i]);\n"
        "  return s;\n"
        "}\n"
        "__global__ void k(float* p) { p[threadIdx.x] = 0.f; }\n"
        "void launch(float* p, int rows) {\n"
        "  const int warp_size = 32;\n"                          # 10 medium: sizes a launch
        "  k<<<rows * warp_size / 128, 128>>>(p);\n"
        "}\n"
        "__device__ int lanes() { const int kWarpSize = 32; return kWarpSize; }\n"  # 13 medium
        "constexpr int kThreadsPerWarp = 32;\n")                 # 14 medium
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "DEV011")
    assert got == [(3, "info"), (10, "medium"), (13, "medium"), (14, "medium")]
    assert dict(next(f for f in result.findings if f.rule == "DEV011" and f.line == 3).data)["host_only"] == (
        "a constant of the host function dump, which launches no kernel: it describes data on the CPU side, not the "
        "wave the GPU runs")


def test_an_arch_test_whose_arm_only_defines_feature_macros_reads_info(tmp_path):
    # The arm chooses nothing itself: HIP leaves the macro undefined and the `#ifdef` sites decide (info). An arm with
    # code (a function-like macro, a declaration) stays open.
    (tmp_path / "common.cuh").write_text(
        "#pragma once\n"
        "#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000))\n"   # 2 info
        "// Blackwell features\n"
        "#define KU_ENABLE_SM100\n"
        "#define KU_TMEM_COLS 512\n"
        "#endif\n"
        "#if __CUDA_ARCH__ >= 900\n"                                  # 7 medium: a function-like macro
        "#define KU_FENCE() asm volatile(\"fence.proxy.async;\")\n"
        "#endif\n"
        "#if __CUDA_ARCH__ >= 800\n"                                  # 10 medium: code
        "#define KU_SM80\n"
        "__device__ inline int ku_level() { return 80; }\n"
        "#endif\n"
        "#if __CUDA_ARCH__ >= 700\n"                                  # 14 medium: HIP compiles the #error
        "#define KU_SM70\n"
        "#else\n"
        "#error needs Volta\n"
        "#endif\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "DEV009")
    assert got == [(2, "info"), (7, "medium"), (10, "medium"), (14, "medium")]
    assert dict(next(f for f in result.findings if f.rule == "DEV009" and f.line == 2).data)["defines_only"] == (
        "the arm only defines KU_ENABLE_SM100, KU_TMEM_COLS: HIP leaves them undefined, so the code testing them is "
        "where HIP's path is chosen")


def test_findings_behind_an_nvtx_profiling_switch_read_info(tmp_path):
    # Code and flags under an NVTX switch are an opt-in profiling build (info); the same under another switch, or
    # under a negated NVTX switch, stay open.
    (tmp_path / "prof.h").write_text(
        "#pragma once\n"
        "#if defined(APP_CUDA) && defined(APP_NVTX_ENABLED)\n"
        "#include <cuda_runtime_api.h>\n"
        "#if CUDART_VERSION >= 10000\n"                              # 4 info
        "#include <nvtx3/nvToolsExt.h>\n"
        "#else\n"
        "#error needs CUDA 10\n"
        "#endif\n"
        "#endif\n"
        "#ifdef APP_FAST\n"
        "#if CUDART_VERSION >= 11000\n"                              # 11 medium (its #else stops the build)
        "#define APP_GRAPHS 1\n"
        "#else\n"
        "#error needs CUDA 11\n"
        "#endif\n"
        "#endif\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX CUDA)\n"
        "if(APP_NVTX_ENABLED)\n"
        "  set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} -lineinfo\")\n"      # 3 info
        "else()\n"
        "  set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} --use_fast_math\")\n"  # 5 medium
        "endif()\n"
        "if(NOT USE_NVTX)\n"
        "  set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} -lineinfo\")\n"      # 8 medium
        "endif()\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, str(f.severity)) for f in result.findings if f.rule in ("DEV010", "BLD004"))
    assert got == [("CMakeLists.txt", 3, "info"), ("CMakeLists.txt", 3, "info"), ("CMakeLists.txt", 5, "medium"),
                   ("CMakeLists.txt", 5, "medium"), ("CMakeLists.txt", 8, "medium"), ("CMakeLists.txt", 8, "medium"),
                   ("prof.h", 4, "info"), ("prof.h", 11, "medium")]
    assert dict(next(f for f in result.findings if f.path == "prof.h" and f.line == 4).data)["optional"] == (
        "only built with the profiling switch APP_NVTX_ENABLED (line 2)")
    assert dict(next(f for f in result.findings if f.path == "CMakeLists.txt" and f.line == 3).data)["optional"] == (
        "only built with the profiling switch APP_NVTX_ENABLED (line 2)")


def test_architectures_set_in_each_arm_of_one_cmake_chain_are_one_choice(tmp_path):
    # The first arm's list stays open; later arms of the same chain (nested ladders too) read info. Two lists in
    # sequence, or in separate if() blocks, are two settings (open).
    (tmp_path / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX CUDA)\n"
        "if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.23)\n"
        "  set(CMAKE_CUDA_ARCHITECTURES all)\n"                   # 3 low
        "else()\n"
        "  if(NVCC_VERSION LESS 11.0)\n"
        "    set(CMAKE_CUDA_ARCHITECTURES 60;70)\n"               # 6 info
        "  else()\n"
        "    set(CMAKE_CUDA_ARCHITECTURES 70;80)\n"               # 8 info
        "  endif()\n"
        "endif()\n"
        "set_target_properties(a PROPERTIES CUDA_ARCHITECTURES 86)\n"   # 11 low
        "set_target_properties(b PROPERTIES CUDA_ARCHITECTURES 86)\n"   # 12 low
        "if(WITH_TESTS)\n"
        "  set_target_properties(t PROPERTIES CUDA_ARCHITECTURES 80)\n"  # 14 low
        "endif()\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD003")
    assert got == [(3, "low"), (6, "info"), (8, "info"), (11, "low"), (12, "low"), (14, "low")]
    assert dict(next(f for f in result.findings if f.rule == "BLD003" and f.line == 8).data)["same_choice"] == (
        "line 3, an earlier arm of the same if() chain, sets the architectures too: the port chooses them once")


def test_a_quiet_find_package_probe_reads_info(tmp_path):
    # QUIET without REQUIRED: ROCm's configure finds nothing and goes on (info); REQUIRED or a plain call stop it.
    (tmp_path / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX)\n"
        "find_package(CUDAToolkit QUIET)\n"                 # 2 info
        "find_package(\n"
        "  CUDAToolkit 12.0 QUIET REQUIRED)\n"              # 4 medium (the hit is the package name)
        "find_package(CUDA)\n"                              # 5 medium
        "if(CUDAToolkit_FOUND)\n"
        "  enable_language(CUDA)\n"
        "endif()\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD002")
    assert got == [(2, "info"), (4, "medium"), (5, "medium")]
    assert dict(next(f for f in result.findings if f.rule == "BLD002" and f.line == 2).data)["probe"] == (
        "a QUIET find_package without REQUIRED: on ROCm it finds nothing and the configure goes on; what uses the "
        "answer is reported where it is used")


REPORT_AND_INTROSPECTION = """\
#include <cstdio>
#include <string>
void report(FILE *note, cudaDeviceProp prop) {
  int cores;
  if (prop.major == 9) cores = 128;
  else if (prop.major == 8) cores = 64;
  fprintf(note, "cores: %d\\n", prop.multiProcessorCount * cores);
#if (CUDART_VERSION >= 3000)
  fprintf(note, "concurrent kernels: %d\\n", prop.concurrentKernels);
#endif
#if CUDART_VERSION >= 11000
  fprintf(note, "async engines\\n");
  prop.asyncEngineCount = 0;
#endif
}
int blocks(cudaDeviceProp prop) {
  int per_sm = 0;
  if (prop.major == 9) per_sm = 4;
  return per_sm * prop.multiProcessorCount;
}
std::string version() {
  std::string v = "unknown";
#if defined(__CUDACC_VER_MAJOR__) && defined(__CUDACC_VER_MINOR__)
  v = std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__);
#endif
#if defined(CUDART_VERSION)
  cudaDeviceReset();
#endif
  return v;
}
#if defined __CUDACC__ && __CUDA_ARCH__ >= 200
#  define __umul24(a, b) ((a) * (b))
#endif
#if __CUDA_ARCH__ >= 200
#  define my_mul(a, b) ((a) * (b))
#endif
__global__ void flag(int *f) {
#if (__CUDA_ARCH__ >= 600)
  atomicExch_block(f, 1);
#else
  atomicExch(f, 1);
#endif
}
void banner() {
  printf("nvcc %d.%d\n", __CUDACC_VER_MAJOR__,
         __CUDACC_VER_MINOR__);
}
"""


def test_report_lines_and_toolkit_introspection_are_no_port_items(tmp_path):
    # heldout14's classes: a toolkit test whose arm only prints (dropped, as a pragma-only arm is), a capability
    # ladder whose variable only feeds printed text (info, report_only; one feeding a grid size stays), a
    # defined()-only test of the compiler's version macros around code reading them (info, introspection, test and
    # reads; an arm that reads nothing stays), a redefinition of a device function HIP declares itself (info;
    # a project macro stays), and an API HIP lacks in a `__CUDA_ARCH__ >= N` arm whose #else HIP compiles (info).
    (tmp_path / "k.cu").write_text(REPORT_AND_INTROSPECTION)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted({(f.line, f.rule, str(f.severity)) for f in result.findings
                  if f.rule in ("DEV009", "DEV010", "DEV013", "API002")})
    assert got == [(5, "DEV013", "info"), (6, "DEV013", "info"), (11, "DEV010", "medium"), (18, "DEV013", "medium"),
                   (23, "DEV010", "info"), (24, "DEV010", "info"), (26, "DEV010", "medium"), (31, "DEV009", "info"),
                   (34, "DEV009", "medium"), (39, "API002", "info"), (46, "DEV010", "info"), (47, "DEV010", "info")]
    data = {(f.line, f.rule): dict(f.data) for f in result.findings}
    assert data[(5, "DEV013")]["report_only"] == (
        "the test only sets cores, which the file reads only in printed text: it changes a line of a report, not what "
        "the program computes")
    assert data[(23, "DEV010")]["introspection"] == (
        "the arm only exists to read __CUDACC_VER_MAJOR__, which HIP does not define; the code after it is the "
        "program's answer for a compiler that does not say")
    assert data[(24, "DEV010")]["introspection"] == (
        "reads __CUDACC_VER_MAJOR__ inside the arm that tests it is defined (line 23); HIP does not define it and "
        "never compiles this")
    assert data[(31, "DEV009")]["defines_only"] == (
        "the arm only redefines __umul24 as macros; HIP declares the same device function itself, so its own serve "
        "every use")
    assert data[(47, "DEV010")]["introspection"] == (
        "printed, not tested: the line reports the toolkit, it chooses no code")
    assert data[(39, "API002")]["hip_compiles"] == (
        "in a `__CUDA_ARCH__ >= N` arm: HIP leaves __CUDA_ARCH__ undefined and compiles the #else, which has code")


def test_windows_only_cmake_blocks_and_architectures_set_off_read_info(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX CUDA)\n"
        "if(CMAKE_CXX_COMPILER_ID STREQUAL \"MSVC\")\n"
        "  target_compile_options(a PRIVATE \"$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler /wd4503>\")\n"  # 3 info
        "elseif(UNIX)\n"
        "  target_compile_options(a PRIVATE \"$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler -Wall>\")\n"   # 5 medium
        "endif()\n"
        "if(WIN32 AND BUILD_TESTS)\n"
        "  target_compile_options(b PRIVATE \"$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/W4>\")\n"         # 8 info
        "endif()\n"
        "if(NOT MSVC)\n"
        "  target_compile_options(c PRIVATE \"$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wextra>\")\n"     # 11 medium
        "endif()\n"
        "if(MSVC OR MINGW_LIKE)\n"
        "  target_compile_options(d PRIVATE \"$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/W3>\")\n"         # 14 medium
        "endif()\n"
        "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n"                                                      # 16 info
        "  set(CMAKE_CUDA_ARCHITECTURES \"OFF\")\n"                                                       # 17 info
        "endif()\n"
        "set(CMAKE_CUDA_ARCHITECTURES 80)\n")                                                             # 19 low
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted({(f.line, f.rule, str(f.severity)) for f in result.findings if f.rule in ("BLD003", "BLD004")})
    assert got == [(3, "BLD004", "info"), (5, "BLD004", "medium"), (8, "BLD004", "info"), (11, "BLD004", "medium"),
                   (14, "BLD004", "medium"), (16, "BLD003", "info"), (17, "BLD003", "info"), (19, "BLD003", "low")]
    data = {(f.line, f.rule): dict(f.data) for f in result.findings}
    assert data[(3, "BLD004")]["windows_only"] == (
        "in a block only a Windows build takes (CMAKE_CXX_COMPILER_ID STREQUAL \"MSVC\", line 2): ROCm on Instinct "
        "GPUs builds on Linux")
    assert data[(17, "BLD003")]["no_architecture"] == (
        "sets the architectures to OFF: CMake passes no architecture flag, so no NVIDIA GPU is named here")


def test_nvidia_smi_in_a_function_that_also_runs_rocm_smi_reads_info(tmp_path):
    # heldout4 Liger-Kernel's get_platform(): nvidia-smi first, rocm-smi when it is missing (info); a function that
    # only runs nvidia-smi stays open though the file names rocm-smi elsewhere
    (tmp_path / "setup.py").write_text(
        "import subprocess\n"
        "def get_platform():\n"
        "    try:\n"
        "        subprocess.run([\"nvidia-smi\"], check=True)\n"      # 4 info
        "        return \"cuda\"\n"
        "    except FileNotFoundError:\n"
        "        subprocess.run([\"rocm-smi\"], check=True)\n"
        "        return \"rocm\"\n"
        "def has_nvlink():\n"
        "    return subprocess.run([\"nvidia-smi\", \"nvlink\", \"-s\"]).returncode == 0\n")  # 10 medium
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "PYT006")
    assert got == [(4, "info"), (10, "medium")]
    assert dict(next(f for f in result.findings if f.line == 4).data)["probes_rocm"] == (
        "the same function runs rocm-smi (line 7): a platform probe that answers for AMD")


def test_an_arch_list_set_from_the_running_gpus_capability_reads_info(tmp_path):
    # heldout7 lightllm's set_cuda_arch (info); a list with NVIDIA numbers of its own stays open
    (tmp_path / "envs.py").write_text(
        "import os\n"
        "import torch\n"
        "def set_cuda_arch():\n"
        "    capability = torch.cuda.get_device_capability()\n"
        "    arch = f\"{capability[0]}.{capability[1]}\"\n"
        "    os.environ[\"TORCH_CUDA_ARCH_LIST\"] = f\"{arch}{'+PTX' if arch == '9.0' else ''}\"\n"   # 6 info
        "def set_fixed():\n"
        "    capability = torch.cuda.get_device_capability()\n"
        "    os.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"8.0;9.0\"\n")                                  # 9 open
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD006")
    assert got == [(6, "info"), (9, "low")]
    assert dict(next(f for f in result.findings if f.rule == "BLD006" and f.line == 6).data)["own_arch"] == (
        "set from the running GPU's own capability: it names no NVIDIA GPU, and ROCm's extension builder reads "
        "PYTORCH_ROCM_ARCH")


def test_a_capability_only_turned_into_a_label_reads_info(tmp_path):
    # heldout3 detectron2's collect_env: the capability joined into an "arch=" label (info); the same text compared
    # with a literal picks a path and stays open
    (tmp_path / "env.py").write_text(
        "import torch\n"
        "def names():\n"
        "    out = []\n"
        "    for k in range(torch.cuda.device_count()):\n"
        "        cap = \".\".join(str(x) for x in torch.cuda.get_device_capability(k))\n"   # 5 info
        "        out.append(torch.cuda.get_device_name(k) + f\" (arch={cap})\")\n"
        "    return out\n"
        "def fast():\n"
        "    cap = \".\".join(str(x) for x in torch.cuda.get_device_capability())\n"       # 9 medium
        "    return cap == \"9.0\"\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "PYT001")
    assert got == [(5, "info"), (9, "medium")]
    assert dict(next(f for f in result.findings if f.rule == "PYT001" and f.line == 5).data)["identity"] == (
        "the capability only becomes the text cap, which nothing compares: a label, each GPU answers for itself")


def _scan_data(tmp_path, rules):
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return result, sorted((f.path, f.line, f.rule, str(f.severity)) for f in result.findings if f.rule in rules)


def test_cmake_blocks_only_an_arm_host_takes_read_info(tmp_path):
    # heldout18 jetson-utils: the Jetson -gencode flags sit in if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64"), nested
    # tests included; ROCm runs on x86-64 hosts. NOT, OR-like alternations naming x86 and the x86 arm stay open.
    (tmp_path / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX CUDA)\n"
        "if(CMAKE_SYSTEM_PROCESSOR MATCHES \"aarch64\")\n"
        "  set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_53,code=sm_53)\n"           # 3 info
        "  if(CUDA_VERSION_MAJOR GREATER 9)\n"
        "    set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_72,code=sm_72)\n"         # 5 info
        "  endif()\n"
        "elseif(${CMAKE_SYSTEM_PROCESSOR} STREQUAL \"x86_64\")\n"
        "  set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_80,code=sm_80)\n"           # 8 open
        "endif()\n"
        "if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES \"aarch64\")\n"
        "  set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_86,code=sm_86)\n"           # 11 open
        "endif()\n"
        "if(CMAKE_SYSTEM_PROCESSOR MATCHES \"aarch64|x86_64\")\n"
        "  set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_90,code=sm_90)\n"           # 14 open
        "endif()\n"
        "if(CMAKE_HOST_SYSTEM_PROCESSOR STREQUAL \"arm64\" AND USE_TEGRA)\n"
        "  set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS}; -gencode arch=compute_87,code=sm_87)\n"           # 17 info
        "endif()\n")
    result, got = _scan_data(tmp_path, {"BLD005"})
    assert [(line, sev) for _, line, _, sev in got] == [(3, "info"), (5, "info"), (8, "low"), (11, "low"),
                                                        (14, "low"), (17, "info")]
    assert dict(next(f for f in result.findings if f.rule == "BLD005" and f.line == 5).data)["arm_host_only"] == (
        "in a block only a 64-bit Arm host takes (CMAKE_SYSTEM_PROCESSOR MATCHES \"aarch64\", line 2): NVIDIA's "
        "Jetson/Grace platforms; ROCm runs on x86-64 hosts")


def test_a_copy_of_cmakes_own_findcuda_module_reads_info(tmp_path):
    # heldout18 jetson-utils' cuda/FindCUDA/select_compute_arch.cmake: CMake's code, not the project's; the same
    # table in a project module of another name stays open
    text = ("# Synopsis:\n"
            "#   CUDA_SELECT_NVCC_ARCH_FLAGS(out_variable [target_CUDA_architectures])\n"
            "function(CUDA_SELECT_NVCC_ARCH_FLAGS out_variable)\n"
            "  set(CMAKE_CUDA_ARCHITECTURES 52 60 70)\n"                                                 # 4
            "endfunction()\n")
    (tmp_path / "cuda" / "FindCUDA").mkdir(parents=True)
    (tmp_path / "cuda" / "FindCUDA" / "select_compute_arch.cmake").write_text(text)
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "arch.cmake").write_text(text)
    result, got = _scan_data(tmp_path, {"BLD003"})
    assert got == [("cmake/arch.cmake", 4, "BLD003", "low"),
                   ("cuda/FindCUDA/select_compute_arch.cmake", 4, "BLD003", "info")]
    f = next(f for f in result.findings if f.rule == "BLD003" and f.path.startswith("cuda/"))
    assert dict(f.data)["cmake_module"] == ("a copy of CMake's own FindCUDA/select_compute_arch.cmake module: the "
                                            "project's calls of it are the port's items")


def test_files_with_no_gpu_code_read_dev011_and_dev021_info(tmp_path):
    # heldout18: stb_image.h's Huffman loop over code lengths 1..16 (no GPU code in the file) and ccminer's
    # neoscrypt-cpu.c `register` (a C source: C keeps the storage class). The same loop in a file with a kernel, and
    # `register` in a .cpp or in a .c holding device code, stay open.
    loop = "int f(int* n) {\n  int k = 0;\n  for (int j = 1; j <= 16; ++j) k += n[j];\n  return k;\n}\n"   # 3
    (tmp_path / "stb.h").write_text(loop)
    (tmp_path / "k.cuh").write_text(loop + "__global__ void g(int* n) { n[threadIdx.x] = f(n); }\n")
    reg = "static int h(int a) {\n  register int x = a;\n  return x;\n}\n"                                 # 2
    (tmp_path / "cpu.c").write_text(reg)
    (tmp_path / "cpu.cpp").write_text(reg)
    (tmp_path / "dev.c").write_text(reg + "__global__ void k(int* p) { p[0] = 1; }\n")
    result, got = _scan_data(tmp_path, {"DEV011", "DEV021"})
    assert got == [("cpu.c", 2, "DEV021", "info"), ("cpu.cpp", 2, "DEV021", "medium"),
                   ("dev.c", 2, "DEV021", "medium"), ("k.cuh", 3, "DEV011", "medium"),
                   ("stb.h", 3, "DEV011", "info")]
    data = {f.path: dict(f.data) for f in result.findings if f.rule in ("DEV011", "DEV021")}
    assert data["stb.h"]["host_only"] == ("the file holds no GPU code (no kernel, device function, thread or warp "
                                          "index): host code does not run in warps")
    assert data["cpu.c"]["c_source"] == ("a C source with no device code: the host C compiler builds it, and C keeps "
                                         "`register` (only C++17 removed it)")


_PTX_MACROS = (
    "#define LDMATRIX_X2(R0, R1, addr) \\\n"                                                                 # 1
    "  asm volatile(\"ldmatrix.sync.aligned.x2.m8n8.shared.b16 {%0, %1}, [%2];\\n\" "
    ": \"=r\"(R0), \"=r\"(R1) : \"r\"(addr))\n"
    "#define LDMATRIX_X2_T(R0, R1, addr) \\\n"                                                               # 3
    "  asm volatile(\"ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];\\n\" "
    ": \"=r\"(R0), \"=r\"(R1) : \"r\"(addr))\n"
    "#define CP_ASYNC_BULK_WAIT_GROUP(n) asm volatile(\"cp.async.bulk.wait_group %0;\\n\" ::\"n\"(n))\n"   # 5
    "__global__ void k(unsigned* s) {\n"
    "  unsigned r0, r1;\n"
    "  LDMATRIX_X2(r0, r1, s[0]);\n"
    "  s[1] = r0 + r1;\n"
    "}\n")


def test_ptx_in_macros_a_translation_unit_never_expands_reads_info(tmp_path):
    # heldout18 LeetCUDA: each hgemm file carries the shared block of LDMATRIX_* / CP_ASYNC_BULK_* macros and
    # expands a few; the bodies of the others never reach the compiler. A header's macros (its includers may expand
    # them), a file that includes an X-macro file after them, and a file that pastes tokens keep them open.
    (tmp_path / "gemm.cu").write_text(_PTX_MACROS + "#include \"utils.h\"\n")
    (tmp_path / "gemm.cuh").write_text(_PTX_MACROS)
    (tmp_path / "xmacro.cu").write_text(_PTX_MACROS + "#include \"ops.def\"\n")
    (tmp_path / "paste.cu").write_text(_PTX_MACROS + "#define CALL(x) LDMATRIX_##x\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, f.rule, str(f.severity)) for f in result.findings
                 if f.rule in ("DEV001", "DEV007") and f.path == "gemm.cu")
    assert got == [("gemm.cu", 2, "DEV001", "high"), ("gemm.cu", 4, "DEV001", "info"),
                   ("gemm.cu", 5, "DEV001", "info"), ("gemm.cu", 5, "DEV007", "info")]
    for other in ("gemm.cuh", "xmacro.cu", "paste.cu"):
        assert {str(f.severity) for f in result.findings if f.path == other and f.rule == "DEV001"} == {"high"}, other
    f = next(f for f in result.findings if f.path == "gemm.cu" and f.rule == "DEV007")
    assert dict(f.data)["unexpanded"] == ("in the definition of the macro CP_ASYNC_BULK_WAIT_GROUP (line 5), which "
                                          "this file never expands: the compiler never sees its body")


def test_a_files_own_definition_of_a_cuda_name_reads_info(tmp_path):
    # heldout18 ccminer's equi: `#define __ldca(ptr) *(ptr)` under `#if CUDART_VERSION < 8000 || !defined(__ldca)` is
    # the fallback itself; the use in the kernel stays a finding of its own
    (tmp_path / "equi.cu").write_text(
        "#if CUDART_VERSION < 8000 || !defined(__ldca)\n"
        "#define __ldca(ptr) *(ptr)\n"                                                     # 2 info
        "#endif\n"
        "__global__ void k(const float* p, float* q) {\n"
        "  q[0] = __ldca(p + 1);\n"                                                        # 5 open
        "}\n")
    result, got = _scan_data(tmp_path, {"DEV027"})
    assert got == [("equi.cu", 2, "DEV027", "info"), ("equi.cu", 5, "DEV027", "high")]
    assert dict(next(f for f in result.findings if f.rule == "DEV027" and f.line == 2).data)["own_definition"] == (
        "the file's own definition of __ldca: it supplies the name wherever this line is compiled")


def test_feature_define_arms_under_nested_tests_and_older_arch_arms_hip_takes(tmp_path):
    # heldout18 GenomeWorks' gw_config.hpp (an `#ifdef __CUDACC_VER_MAJOR__` arm of defines under a nested version
    # test) and ccminer's cuda_vectors.h (`#if __CUDA_ARCH__ < 320`: HIP takes the byte-copy arm, the #else is PTX).
    # An older arm that traps itself stays open.
    (tmp_path / "v.cuh").write_text(
        "#ifdef __CUDACC_VER_MAJOR__\n"                                                    # 1 info
        "#define GW_CUDA_BEFORE_XX_X 1\n"
        "#if (__CUDACC_VER_MAJOR__ == 10 && __CUDACC_VER_MINOR__ < 1)\n"
        "#define GW_CUDA_BEFORE_10_1\n"
        "#endif\n"
        "#endif\n"
        "#if __CUDA_ARCH__ < 320\n"                                                        # 7 info
        "static __device__ uint4 ldg(const uint4 *p) { return *p; }\n"
        "#else\n"
        "static __device__ uint4 ldg(const uint4 *p) { uint4 r; asm(\"ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\" "
        ": \"=r\"(r.x), \"=r\"(r.y), \"=r\"(r.z), \"=r\"(r.w) : \"l\"(p)); return r; }\n"
        "#endif\n"
        "#if __CUDA_ARCH__ < 350\n"                                                        # 12 open
        "static __device__ int m() { asm(\"trap;\"); return 0; }\n"
        "#else\n"
        "static __device__ int m() { int r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
        "#endif\n")
    result, got = _scan_data(tmp_path, {"DEV009", "DEV010"})
    assert got == [("v.cuh", 1, "DEV010", "info"), ("v.cuh", 7, "DEV009", "info"), ("v.cuh", 12, "DEV009", "medium")]
    data = {f.line: dict(f.data) for f in result.findings if f.rule in ("DEV009", "DEV010")}
    assert data[1]["defines_only"] == ("the arm only defines GW_CUDA_BEFORE_XX_X, GW_CUDA_BEFORE_10_1: HIP leaves "
                                       "them undefined, so the code testing them is where HIP's path is chosen")
    assert data[7]["hip_compiles"] == ("HIP leaves __CUDA_ARCH__ undefined (0), so it compiles the older-GPU arm at "
                                       "line 7, which works on HIP; the newer arm is a fast path")


def test_arms_the_files_own_integer_defines_rule_out_read_info(tmp_path):
    # heldout18 ccminer's groestl256: `#define MAXWELL_OR_FERMI 1`, then `#define USE_SHARED 1` inside its arm, and
    # the texture fetches in the `#else` of `#if USE_SHARED`: no compiler builds them as the file stands. A name
    # defined twice with different values, or #undef'd, decides nothing; the live texture fetch stays open.
    (tmp_path / "g.cu").write_text(
        "texture<unsigned int, 1, cudaReadModeElementType> t0;\n"
        "#define MAXWELL_OR_FERMI 1\n"
        "#if MAXWELL_OR_FERMI\n"
        "  #define USE_SHARED 1\n"
        "  #if USE_SHARED\n"
        "  #define T0(x) (tab[(x)])\n"
        "  #else\n"
        "  #define T0(x) tex1Dfetch(t0, x)\n"                                              # 8 info
        "  #endif\n"
        "#else\n"
        "  #define T0(x) tex1Dfetch(t0, (x) + 1)\n"                                        # 11 info
        "#endif\n"
        "#define MODE 1\n"
        "#if MODE\n"
        "#define T1(x) (tab[(x)])\n"
        "#else\n"
        "#define T1(x) tex1Dfetch(t0, x)\n"                                                # 17 open: MODE is 2 below
        "#endif\n"
        "#undef MODE\n"
        "#define MODE 2\n"
        "__global__ void k(unsigned* tab, unsigned* o) { o[0] = tex1Dfetch(t0, 3) + T0(1) + T1(2); }\n")  # 21 open
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "DEV020")
    assert got == [(8, "info"), (11, "info"), (17, "high"), (21, "high")]
    assert dict(next(f for f in result.findings if f.rule == "DEV020" and f.line == 8).data)["file_defines"] == (
        "in an arm the file's own `#define USE_SHARED` (line 4) rules out: no compiler builds it as the file stands")


def test_arms_of_a_files_jetson_switch_read_info(tmp_path):
    # heldout18 jetson-utils' gstBufferManager.cpp: `#ifdef ENABLE_NVMM` includes Tegra's nvbuf_utils.h (Jetson Linux
    # Multimedia API), so every ENABLE_NVMM arm of the file is Jetson-only code. A switch whose arms include only
    # headers every CUDA host has (another file), and a negated test, stay open.
    body = ("#include <cuda_runtime.h>\n"
            "#ifdef ENABLE_NVMM\n"
            "#include <nvbuf_utils.h>\n"
            "#include <cuda_egl_interop.h>\n"                                               # 4
            "#endif\n"
            "void f(CUgraphicsResource r) {\n"
            "#ifdef ENABLE_NVMM\n"
            "  cudaEglFrame frame;\n"                                                      # 8
            "  cudaGraphicsResourceGetMappedEglFrame(&frame, r, 0, 0);\n"
            "#endif\n"
            "#if !defined(ENABLE_NVMM)\n"
            "  cudaEglFrame other;\n"                                                      # 12
            "#endif\n"
            "}\n")
    (tmp_path / "jetson.cpp").write_text(body)
    (tmp_path / "desk.cpp").write_text(body.replace("#include <nvbuf_utils.h>\n", "#include <stdio.h>\n"))
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.path, f.line, f.rule, str(f.severity)) for f in result.findings
                 if f.rule in ("API002", "API006") and f.line in (4, 8, 12))
    assert got == [("desk.cpp", 4, "API006", "high"), ("desk.cpp", 8, "API002", "high"),
                   ("desk.cpp", 12, "API002", "high"), ("jetson.cpp", 4, "API006", "info"),
                   ("jetson.cpp", 8, "API002", "info"), ("jetson.cpp", 12, "API002", "high")]
    f = next(f for f in result.findings if f.path == "jetson.cpp" and f.line == 8 and f.rule == "API002")
    assert dict(f.data)["jetson_only"] == ("in the arm of ENABLE_NVMM (line 7), the file's Jetson switch (an arm of it "
                                           "includes the Jetson Linux Multimedia API): no ROCm host builds it")


def test_nvcc_flags_in_a_cuda_language_arm_beside_a_plain_arm_read_info(tmp_path):
    # Step 5t. HIP-language sources take a command's $<NOT:$<COMPILE_LANGUAGE:CUDA>> arm, so the nvcc spelling in its
    # CUDA arm never reaches them (CMake's FindThreads idiom), nor does a -Xcompiler prefix whose flag every language
    # gets; a CUDA arm beside a CXX-only arm (HIP gets neither) stays open, and so does a function variable that is
    # also read outside such an arm, and a top-level one.
    (tmp_path / "CMakeLists.txt").write_text(
        "function(protect T)\n"                                                                  # 1
        '  string(REPLACE "-pthread" "-Xcompiler -pthread" new_flags "${old}")\n'                # 2 info
        "  set_property(TARGET ${T} PROPERTY INTERFACE_COMPILE_OPTIONS\n"                        # 3
        '    "$<$<NOT:$<COMPILE_LANGUAGE:CUDA>>:${old}>'                                         # 4 info
        '$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${new_flags}>")\n'
        '  string(REPLACE "-fPIC" "-Xcompiler -fPIC" pic_flags "${old}")\n'                      # 5 open
        '  message(STATUS "${pic_flags}")\n'                                                      # 6
        '  target_compile_options(${T} PRIVATE "$<$<NOT:$<COMPILE_LANGUAGE:CUDA>>:-fPIC>'        # 7
        '$<$<COMPILE_LANGUAGE:CUDA>:${pic_flags}>")\n'
        "endfunction()\n"                                                                          # 8
        'string(REPLACE "-pthread" $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler >-pthread opts "${o}")\n'  # 9 info
        "target_compile_options(app PRIVATE\n"                                                     # 10
        "  $<$<COMPILE_LANGUAGE:CUDA>:\n"                                                          # 11
        "   -Xcompiler=-fno-omit-frame-pointer\n"                                                  # 12 open
        "  >\n"                                                                                    # 13
        "  $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)\n"                                  # 14
        'string(REPLACE "-pthread" "-Xcompiler -pthread" top_flags "${o}")\n'                     # 15 open
        'target_compile_options(app PRIVATE "$<$<NOT:$<COMPILE_LANGUAGE:CUDA>>:${o}>'            # 16
        '$<$<COMPILE_LANGUAGE:CUDA>:${top_flags}>")\n')
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "BLD004")
    assert got == [(2, "info"), (4, "info"), (5, "medium"), (9, "info"), (12, "medium"), (15, "medium")]
    data = {f.line: dict(f.data).get("language_pair") for f in result.findings if f.rule == "BLD004"}
    assert data[4] == ("in a $<COMPILE_LANGUAGE:CUDA> arm whose command gives every other language the plain flags "
                       "(the $<NOT:...> arm, line 4): a HIP-language source takes that arm and never sees the nvcc "
                       "spelling")
    assert data[2] == ("sets new_flags, which this function reads only in a $<COMPILE_LANGUAGE:CUDA> arm whose "
                       "command gives every other language the plain flags (the $<NOT:...> arm, line 4): a "
                       "HIP-language source takes that arm and never sees the nvcc spelling")
    assert data[9] == ("nvcc's -Xcompiler prefix in a $<COMPILE_LANGUAGE:CUDA> arm: every other language, HIP "
                       "included, gets the flag after it plainly")


ARCH_TESTS = """\
#if __CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)
__device__ double atomicAdd(double* address, double val);
#endif
#if __CUDA_ARCH__ == 500 || __CUDA_ARCH__ == 350
__device__ int maxwell(int x) { return x; }
#endif
#if __CUDA_ARCH__ >= 500 || !defined(__CUDA_ARCH__)
__device__ int modern(int x) { return x; }
#endif
#if __CUDA_ARCH__ >= 600
__device__ int native_double(int x) { return x; }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
__device__ int turing_only(int x) { return x; }
#endif
#if __CUDA_ARCH__ < 600
__device__ int hip_takes_this(int x) { return x; }
#endif
"""


def test_capability_tests_hip_answers_like_every_supported_gpu_are_not_port_items(tmp_path):
    # heldout24 SoftRas's `and` spelling and ccminer's Maxwell/Kepler arms (lines 1, 4) and the modern path with its
    # host pass (7) compile on HIP what Turing and newer compile: no DEV009. `>= 600` (heldout23 SeisSol's native
    # double atomicAdd, judged real) and `< 600` without `defined` (HIP reads 0 and takes the arm no current GPU
    # takes) stay. (Line 13's `defined && < N` shape is DEV009's own not_regex, older than this step.)
    (tmp_path / "k.cu").write_text(ARCH_TESTS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity)) for f in result.findings if f.rule == "DEV009")
    assert got == [(10, "medium"), (16, "medium")]
