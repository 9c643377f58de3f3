"""The portable fixes shared by `porter port` and translate (porter.translate.fixups), and the build-file branches
(porter.port.build), on exact inputs: what each writes and what each leaves alone."""
from __future__ import annotations

import pytest

from porter.port import build
from porter.translate import fixups
from porter.translate.buildfiles import load_tables
from tests.helpers import NEEDS, REPO, git, porter_here


@pytest.mark.parametrize("stmt, expected", [
    (b'  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));', ("mov %laneid", "lane = __lane_id();")),
    (b'asm("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p));', None),
    (b'asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(ptr + i));',
     ("ld.global.nc", "v = __ldg(reinterpret_cast<const unsigned int*>(ptr + i));")),
    (b'asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(x), "r"(s), "r"(n));',
     ("bfe", "r = __bitextract_u64(x, s, n);")),
    (b'asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(s), "r"(n));', None),  # sign-extending: by hand
    (b'asm volatile(\n  "{\\n"\n  ".reg .b32 %%rx;\\n"\n  ".reg .pred %%px;\\n"\n  "  elect.sync %%rx|%%px, %2;\\n"\n'
     b'  "@%%px mov.s32 %1, 1;\\n"\n  "  mov.s32 %0, %%rx;\\n"\n  "}\\n"\n  : "+r"(laneid), "+r"(pred)\n'
     b'  : "r"(0xFFFFFFFF));',
     ("elect.sync", "laneid = __ffsll(__ballot(1)) - 1; pred = (__lane_id() == (unsigned)laneid);")),
    (b'asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));', ("ex2", "y = exp2f(x);")),
    (b'asm("lg2.approx.f32 %0, %1;" : "=f"(y) : "f"(x * 2.0f));', ("lg2", "y = __log2f(x * 2.0f);")),
    (b'asm("popc.b64 %0, %1;" : "=r"(n) : "l"(m));', ("popc", "n = __popcll(m);")),
    (b'asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));', ("mov %smid", "sm = __smid();")),
    (b'asm("ex2.approx.f16x2 %0, %1;" : "=r"(y) : "r"(x));', None),  # packed half: by hand
    (b'asm("trap;");', ("trap", "__builtin_trap();")),
    (b'asm volatile("membar.gl;" ::: "memory");', ("membar", "__threadfence();")),
    (b'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+f"(a), '
     b'"+f"(b) : "r"(x), "r"(y));', None),
])
def test_plain_ptx(stmt, expected):
    assert fixups.plain_ptx(stmt) == expected


def test_asm_statement_only_when_it_stands_alone():
    data = b'void f() {\n  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(n));  // field\n}\n'
    at = data.index(b"asm")
    s, e = fixups.asm_statement(data, at)
    assert data[s:e] == b'  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(n));  // field'
    after_code = b'  if (x) asm("mov.u32 %0, %%laneid;" : "=r"(l));\n'
    assert fixups.asm_statement(after_code, after_code.index(b"asm")) is None
    in_macro = b'#define LANE(l) \\\n  asm("mov.u32 %0, %%laneid;" : "=r"(l));\n'
    assert fixups.asm_statement(in_macro, in_macro.index(b"asm")) is None


@pytest.mark.parametrize("line, hit, expected", [
    (b"  int lane = threadIdx.x % 32;", b"% 32", b"  int lane = threadIdx.x % warpSize;"),
    (b"  int lane = tid & 0x1f;", b"& 0x1f", b"  int lane = tid & (warpSize - 1);"),
    (b"  int warp = tid >> 5;", b">> 5", b"  int warp = tid / warpSize;"),
    (b"  int warps = (blockDim.x + 31) / 32;", b"/ 32", b"  int warps = (blockDim.x + warpSize - 1) / warpSize;"),
    (b"  for (int o = 16; o > 0; o /= 2)", b"16", b"  for (int o = warpSize / 2; o > 0; o /= 2)"),
    (b"  for (int o = 1; o < 32; o *= 2)", b"32", b"  for (int o = 1; o < warpSize; o *= 2)"),
    (b"  __shared__ float part[BLOCK / 32];", b"/ 32", None),  # an extent: needs a constant
    (b"  constexpr int kWarps = kThreads / 32;", b"/ 32", None),
    (b"#define WARP_SIZE 32", b"32", None),
    (b"  static constexpr int kWarpSize = 32;", b"32", None),
])
def test_warp_width_fix(line, hit, expected):
    at = line.rindex(hit)
    edits = fixups.warp_width_fix(line, at, at + len(hit))
    if expected is None:
        assert edits is None
        return
    out, pos = b"", 0
    for s, e, t in edits:
        out += line[pos:s] + t
        pos = e
    assert out + line[pos:] == expected


def test_masks_and_ballots():
    src = b"#define FULL 0xFFFFFFFFu\nunsigned m = __ballot_sync(FULL, p);\nx = __shfl_xor_sync(-1, x, 1);\n"
    call = src.index(b"__shfl_xor_sync")
    s, e, t = fixups.mask_argument_fix(src, call, "lane_mask_t")
    assert (src[s:e], t) == (b"-1", b"((lane_mask_t)~0ull)")
    assert fixups.mask_argument_fix(src, src.index(b"__ballot_sync"), "lane_mask_t") is None
    assert fixups.mask_argument_name(src, src.index(b"__ballot_sync")) == b"FULL"
    s, e, t = fixups.mask_define_fix(src, b"FULL", None)
    assert (src[s:e], t) == (b"0xFFFFFFFFu", b"~0ull")
    computed = b"x = __shfl_sync(mask & 0xffff, x, 0);"
    assert fixups.mask_argument_fix(computed, 4, "lane_mask_t") is None
    body = b"{ unsigned int v = __ballot_sync(m, p); int n = __popc(v) + __ffs(v) + __popc(w); }\n"
    at = body.index(b"unsigned int")
    edits = fixups.ballot_type_fix(body, at, at + len(b"unsigned int"), "lane_mask_t")
    assert [(body[s:e], t) for s, e, t in edits] == [(b"unsigned int", b"lane_mask_t"), (b"__popc", b"__popcll"),
                                                     (b"__ffs", b"__ffsll")]


def test_cmake_with_enable_language_and_plain_libraries():
    text = ("cmake_minimum_required(VERSION 3.20)\nproject(x CXX)\nenable_language(CUDA)\n"
            "add_library(k STATIC a.cu b.cpp)\ntarget_link_libraries(k cublas cudart nvToolsExt)\n")
    w = build.BuildWork("CMakeLists.txt", text)
    build.port_cmake(w, load_tables(), ("gfx942",))
    assert w.result() == (
        "cmake_minimum_required(VERSION 3.20)\n"
        'option(USE_ROCM "Build for AMD GPUs with HIP (porter port)" OFF)\n'
        "project(x CXX)\n"
        "if(USE_ROCM)\n  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n    set(CMAKE_HIP_ARCHITECTURES \"gfx942\")\n"
        "  endif()\n  enable_language(HIP)\n  add_compile_definitions(USE_ROCM)\nelse()\n  enable_language(CUDA)\nendif()\n"
        "add_library(k STATIC a.cu b.cpp)\n"
        "if(USE_ROCM)\n  target_link_libraries(k roc::hipblas hip::host nvToolsExt)\nelse()\n"
        "  target_link_libraries(k cublas cudart nvToolsExt)\nendif()\n"
        "\n# porter port: the CUDA sources compile as HIP in the ROCm build\nif(USE_ROCM)\n"
        "  set_source_files_properties(a.cu PROPERTIES LANGUAGE HIP)\nendif()\n")
    again = build.BuildWork("CMakeLists.txt", w.result())
    build.port_cmake(again, load_tables(), ("gfx942",))
    assert again.edits == []  # a ported file (USE_ROCM) is left alone


def test_makefile_calling_nvcc_in_the_recipe():
    text = "CFLAGS = -O3 -arch=sm_90 --use_fast_math\n\nmain: main.cu\n\tnvcc $(CFLAGS) -o main main.cu -lcufft\n"
    w = build.BuildWork("Makefile", text)
    build.port_make(w, load_tables(), ("gfx942", "gfx950"))
    assert w.result() == (
        "CFLAGS = -O3 -arch=sm_90 --use_fast_math\n"
        "\n# porter port: `make USE_ROCM=1` builds for AMD GPUs with hipcc (the .cu sources compile as HIP)\n"
        "ifeq ($(USE_ROCM),1)\nexport HIP_PLATFORM := amd\nNVCC := hipcc -DUSE_ROCM\n"
        "CFLAGS := -O3 --offload-arch=gfx942 --offload-arch=gfx950 -ffast-math\n"
        "PORTER_LIB_CUFFT := -lhipfft\nelse\nNVCC ?= nvcc\nPORTER_LIB_CUFFT := -lcufft\nendif\n"
        "\nmain: main.cu\n\t$(NVCC) $(CFLAGS) -o main main.cu $(PORTER_LIB_CUFFT)\n")


def test_nvcc_only_options_with_values_and_fp_modes_become_clangs():
    """A flag variable with no architecture option is still nvcc's when it holds nvcc-only options: ptxas and the
    host-compiler wrapper options meant nothing to clang (`clang: unknown argument`), -ftz=true is clang's
    -fgpu-flush-denormals-to-zero (session-26 new user, a microbenchmark suite's Makefile)."""
    text = ("NVCC = ${CUDA_INSTALL_PATH}/bin/nvcc\n"
            "NVFLAGS = -O2 --compiler-options -fno-strict-aliasing,-Wall --ptxas-options=-v -Xptxas -dlcm=ca -g\n"
            "NVCODE = -gencode=arch=compute_52,code=\\\"compute_52\\\" -ftz=true -prec-div=false "
            "--default-stream per-thread -res-usage\n"
            "HOSTFLAGS = -O2 -m64 -Wall\n"
            "k.o: k.cu\n\t${NVCC} ${NVCODE} ${NVFLAGS} -c $<\n")
    w = build.BuildWork("Makefile", text)
    build.port_make(w, load_tables(), ("gfx942",))
    block = w.result().split("ifeq ($(USE_ROCM),1)\n", 1)[1].split("endif\n", 1)[0].splitlines()
    assert block == ["export HIP_PLATFORM := amd", "NVCC := hipcc -DUSE_ROCM",
                     "NVFLAGS := -O2 -fno-strict-aliasing -Wall -g",
                     "NVCODE := --offload-arch=gfx942 -fgpu-flush-denormals-to-zero "
                     "-fno-hip-fp32-correctly-rounded-divide-sqrt -fgpu-default-stream=per-thread "
                     "-Rpass-analysis=kernel-resource-usage"]


def test_a_source_another_file_includes_is_not_a_unit(tmp_path):
    """HeCBench's main.cu does `#include "kernels.cu"`: kernels.cu alone lacks main.cu's macros, so --verify compiles
    it only as part of main.cu (compiled alone it failed on both vendors, an artefact, not the port)."""
    from porter.port.verify import units_of

    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "main.cu").write_text('#include "util.h"\n#include "kernels.cu"\nint main() {}\n')
    (tmp_path / "b" / "kernels.cu").write_text("__global__ void k(float* x) { x[0] = PI; }\n")
    (tmp_path / "b" / "other.cu").write_text("__global__ void j() {}\n")
    (tmp_path / "b" / "util.h").write_text("#define PI 3.14f\n")
    paths = ["b/kernels.cu", "b/main.cu", "b/other.cu", "b/util.h"]
    assert units_of(paths, set(), tmp_path) == ["b/main.cu", "b/other.cu"]


def test_cmake_cuda_standard_feature_gets_the_hip_one():
    """`target_compile_features(... cuda_std_17)` fails to configure when CUDA is not enabled (the ROCm build):
    cuda-samples' CMakeLists all carry it."""
    text = ("cmake_minimum_required(VERSION 3.20)\nproject(v LANGUAGES CXX CUDA)\nadd_executable(v v.cu)\n"
            "target_compile_features(v PRIVATE cxx_std_17 cuda_std_17)\n")
    w = build.BuildWork("CMakeLists.txt", text)
    build.port_cmake(w, load_tables(), ("gfx942",))
    out = w.result().splitlines()
    i = out.index("  target_compile_features(v PRIVATE cxx_std_17 hip_std_17)")
    assert out[i - 1:i + 4] == ["if(USE_ROCM)", "  target_compile_features(v PRIVATE cxx_std_17 hip_std_17)", "else()",
                                "  target_compile_features(v PRIVATE cxx_std_17 cuda_std_17)", "endif()"]


def test_asm_after_other_code_on_its_line():
    """graphB+'s `if (e) {printf(...); asm("trap;");}`: the statement alone, from its keyword to its `;`."""
    data = b'  if (e) {printf("x;\\n"); asm("trap;");}\n'
    at = data.index(b"asm(")
    assert fixups.asm_statement(data, at) is None
    s, e = fixups.asm_statement_in_line(data, at)
    assert data[s:e] == b'asm("trap;");'
    alone = b'  asm("trap;");\n'
    assert fixups.asm_statement_in_line(alone, alone.index(b"asm")) is None  # asm_statement's case
    in_macro = b'#define DIE(e) if (e) { asm("trap;"); } \\\n  else {}\n'
    assert fixups.asm_statement_in_line(in_macro, in_macro.index(b"asm")) is None


def test_operator_definition_spans_its_head_and_body():
    from porter.translate.fixups import operator_definition

    data = (b"}\ninline __host__ __device__\nvoid operator-=(int2 &a, int2 b) { a.x -= b.x; }\n"
            b"inline __host__ __device__ void operator+=(float4 &a, float4 b)\n{\n    a.x += b.x;\n}\nint x;\n")
    s, e = operator_definition(data, data.index(b"int2 &a"))
    assert data[s:e] == b"inline __host__ __device__\nvoid operator-=(int2 &a, int2 b) { a.x -= b.x; }"
    s, e = operator_definition(data, data.index(b"float4 &a"))
    assert data[s:e] == b"inline __host__ __device__ void operator+=(float4 &a, float4 b)\n{\n    a.x += b.x;\n}"


SAMPLES = REPO / "fixtures" / "port-samples"


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """fixtures/port-samples in a git repository: its patch, then the tree after --apply and a commit."""
    import shutil

    repo = tmp_path_factory.mktemp("samples") / "repo"
    shutil.copytree(SAMPLES, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "cuda")
    before = {p: (repo / p).read_bytes() for p in ("src/kernels.cu", "src/vecmath.h", "src/particles.h", "src/bisect.cu",
                                                   "src/sort.cu")}
    r = porter_here("port", str(repo))
    assert r.returncode == 0, r.stderr
    a = porter_here("port", str(repo), "--apply")
    assert a.returncode == 0, a.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "porter port")
    return {"repo": repo, "patch": r.stdout, "before": before, "stderr": r.stderr}


def text(repo, rel):
    return (repo / rel).read_text().splitlines()


ROCM = "#if defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM)"
CUDA_ONLY = "#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))"


def test_trap_after_other_code_gets_its_own_lines(samples):
    kernels = text(samples["repo"], "src/kernels.cu")
    i = kernels.index('    if (end != *tail) {printf("ERROR: head mismatch\\n");')
    assert kernels[i:i + 14] == [
        '    if (end != *tail) {printf("ERROR: head mismatch\\n");', ROCM,
        "    __builtin_trap();  /* porter port: plain HIP for PTX trap */", "#else", '    asm("trap;");', "#endif", "    }",
        "    if (end < 0)", ROCM, "    __builtin_trap();  /* porter port: plain HIP for PTX trap */", "#else",
        '    asm("trap;");', "#endif", "    p[threadIdx.x] = shifted(p[threadIdx.x], p[0]);"]


def test_project_vector_operators_are_kept_for_nvcc_only(samples):
    vec = text(samples["repo"], "src/vecmath.h")
    guard = CUDA_ONLY + "  /* porter port: HIP's vector types define this operator */"
    i = vec.index("inline __host__ __device__ void operator+=(float4 &a, float4 b)")
    assert vec[i - 1] == guard and vec[i + 7] == "#endif"
    assert vec[i + 8] == "inline __host__ __device__ void operator+=(float4 &a, float b)"  # scalar: not ambiguous
    assert vec[i + 8 - 1] == "#endif"
    j = vec.index("void operator-=(int2 &a, int2 b) { a.x -= b.x; a.y -= b.y; }")
    assert vec[j - 2:j + 2] == [guard, "inline __host__ __device__", "void operator-=(int2 &a, int2 b) "
                                "{ a.x -= b.x; a.y -= b.y; }", "#endif"]
    assert vec.count(guard) == 2


def test_coordinates_in_min_max_are_cast(samples):
    bisect = text(samples["repo"], "src/bisect.cu")
    assert "    unsigned int n = min(rem, (unsigned int)blockDim.x);" in bisect
    assert "    out[threadIdx.x] = max((unsigned int)threadIdx.x, n);" in bisect


def test_quoted_cuda_header_is_guarded_and_thrust_keeps_its_include(samples):
    particles = text(samples["repo"], "src/particles.h")
    assert particles[1:7] == ['#include "../porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm '
                              'build */', CUDA_ONLY, '#include "vector_functions.h"', "#else",
                              "#include <hip/hip_vector_types.h>", "#endif"]
    sort = text(samples["repo"], "src/sort.cu")
    assert sort[3:6] == ["#endif", "#include <thrust/copy.h>", "#include <thrust/device_vector.h>"]
    assert "copy.h>" not in "".join(l for l in sort if "thrust" not in l)  # no flat fallback invented
    # the thrust includes are rocThrust's as they are: no open item (LIB001) is left for them
    assert samples["stderr"].splitlines()[0] == ("porter port: 6 file(s), 17 change(s) (1 compat-header, 5 compat-include,"
                                                 " 2 coordinate-cast, 5 header, 2 ptx, 2 vector-operator); 0 open item(s)")


def test_samples_port_is_idempotent_and_reverses(samples, tmp_path):
    again = porter_here("port", str(samples["repo"]))
    assert (again.returncode, again.stdout) == (0, "")
    assert again.stderr.splitlines()[0] == "porter port: 0 file(s), 0 change(s) (nothing to change); 0 open item(s)"
    patch = tmp_path / "p.patch"
    patch.write_text(samples["patch"])
    git(samples["repo"], "apply", "-R", str(patch))
    assert {p: (samples["repo"] / p).read_bytes() for p in samples["before"]} == samples["before"]
    git(samples["repo"], "checkout", "-q", "--", ".")


@pytest.mark.slow
def test_samples_port_compiles_with_hipcc(samples):
    """The classes above were compile failures on gfx90a (bench/port); the ported files compile (rocThrust is not
    installed here, so sort.cu is not compiled)."""
    import os
    import shutil
    import subprocess

    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip(NEEDS["hipcc"])
    for unit in ("kernels.cu", "bisect.cu"):
        c = subprocess.run([hipcc, "--offload-arch=gfx90a", "--cuda-device-only", "-fsyntax-only", unit],
                           cwd=samples["repo"] / "src", capture_output=True, text=True,
                           env={**os.environ, "HIP_PLATFORM": "amd"})
        assert (unit, [l for l in c.stderr.splitlines() if "error" in l]) == (unit, [])


def test_driver_and_nvrtc_calls_get_translates_shims_and_casts(tmp_path):
    """cuda-samples' nvrtc_helper.h / helper_cuda_drvapi.h (6 NVRTC samples): HIPIFY's HIP names that HIP 5.2 lacks
    (hipDrvGetErrorString, hiprtcGetBitcodeSize) reach translate's shims through the CUDA name, and calls whose HIP
    signature differs get translate's casts and default arguments (rules/kb/fixups.yaml `calls`), valid for nvcc too.
    A second run changes nothing."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\n#include <cuda_runtime.h>\n#include <nvrtc.h>\n\n"
           "void build(nvrtcProgram prog, char** opts, int n, CUresult err) {\n  const char* text;\n"
           "  cuGetErrorString(err, &text);\n  nvrtcCompileProgram(prog, n, opts);\n  size_t size;\n"
           "  nvrtcGetCUBINSize(prog, &size);\n  float* host;\n  cudaHostAlloc(&host, 64, cudaHostAllocDefault);\n"
           "  cudaArray* arr;\n  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();\n"
           "  cudaMalloc3DArray(&arr, &desc, make_cudaExtent(4, 4, 4));\n  cudaStreamWaitEvent(0, 0);\n}\n")
    repo = make_repo(tmp_path / "r", {"drv.cpp": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    out = (repo / "drv.cpp").read_text().splitlines()
    assert out[10:21] == ["  const char* text;", "  cuGetErrorString(err, &text);",
                          "  nvrtcCompileProgram(prog, n, const_cast<const char**>(opts));", "  size_t size;",
                          "  nvrtcGetCUBINSize(prog, &size);", "  float* host;",
                          "  cudaHostAlloc(reinterpret_cast<void**>(&host), 64, cudaHostAllocDefault);",
                          "  cudaArray* arr;", "  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();",
                          "  cudaMalloc3DArray(&arr, &desc, make_cudaExtent(4, 4, 4), 0);",
                          "  cudaStreamWaitEvent(0, 0, 0);"]
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert "#define cuGetErrorString porter_hipDrvGetErrorString" in header
    assert "#define nvrtcGetCUBINSize porter_hiprtcGetBitcodeSize" in header
    assert "inline hipError_t porter_hipDrvGetErrorString(hipError_t error, const char** text) {" in header
    assert "inline hiprtcResult porter_hiprtcGetBitcodeSize(hiprtcProgram prog, size_t* size) " \
           "{ return hiprtcGetCodeSize(prog, size); }" in header
    assert header.count("#include <hip/hiprtc.h>") == 1
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    again = porter_here("port", str(repo))
    assert (again.returncode, again.stdout) == (0, "")


def test_cuda_h_guard_is_defined_for_the_rocm_build(tmp_path):
    """helper_cuda_drvapi.h defines findCudaDeviceDRV under `#ifdef __cuda_cuda_h__` (cuda.h's include guard), which
    the port keeps for nvcc only: the compat header defines it for the ROCm build, like __CUDA_RUNTIME_H__."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\n#ifdef __cuda_cuda_h__\ninline CUdevice first() {\n  CUdevice d;\n"
           "  cuDeviceGet(&d, 0);\n  return d;\n}\n#endif\n")
    repo = make_repo(tmp_path / "r", {"drv.h": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert [l for l in header if l.startswith("#define __")] == ["#define __cuda_cuda_h__ 1"]


def test_translate_takes_the_same_fixes_without_moving_lines(tmp_path):
    """translate's HIP fork of fixtures/port-samples: the trap becomes __builtin_trap() in place, the vector operator
    a template (HIP_vector_type's member wins the tie), the coordinate a cast; every line keeps its number."""
    out = tmp_path / "hip"
    r = porter_here("translate", str(SAMPLES), "-o", str(out))
    assert r.returncode == 0, r.stderr
    kernels = (out / "src" / "kernels.cu").read_text().splitlines()
    assert kernels[6:8] == ['    if (end != *tail) {printf("ERROR: head mismatch\\n"); __builtin_trap();  '
                            '/* porter: plain HIP for PTX trap */}',
                            "    if (end < 0) __builtin_trap();  /* porter: plain HIP for PTX trap */"]
    vec = (out / "src" / "vecmath.h").read_text().splitlines()
    assert vec[7] == "template <int porter_hip_member_wins = 0> inline __host__ __device__ void operator+=(float4 &a, float4 b)"
    assert vec[14] == "inline __host__ __device__ void operator+=(float4 &a, float b)"
    assert vec[21:23] == ["template <int porter_hip_member_wins = 0> inline __host__ __device__",
                          "void operator-=(int2 &a, int2 b) { a.x -= b.x; a.y -= b.y; }"]
    assert (out / "src" / "bisect.cu").read_text().splitlines()[4:6] == [
        "    unsigned int n = min(rem, (unsigned int)blockDim.x);", "    out[threadIdx.x] = max((unsigned int)threadIdx.x, n);"]
    assert (out / "src" / "particles.h").read_text().splitlines()[1] == '#include "hip/hip_vector_types.h"'
    for rel in ("src/kernels.cu", "src/vecmath.h", "src/bisect.cu"):
        assert len((out / rel).read_text().splitlines()) == len((SAMPLES / rel).read_text().splitlines())


def test_builtin_types_header_is_guarded(tmp_path):
    """cuda-samples' simpleDrvRuntime.cpp includes <builtin_types.h> (CUDA's umbrella of its type headers), which
    HIP does not have: the port keeps it for nvcc and the ROCm build takes hip/hip_runtime_api.h."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"drv.cpp": "#include <cuda.h>\n#include <builtin_types.h>\nint n(CUdevice d) "
                                                 "{ return (int)d; }\n"})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "drv.cpp").read_text().splitlines()[:7] == [
        '#include "porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */',
        CUDA_ONLY, "#include <cuda.h>", "#include <builtin_types.h>", "#else", "#include <hip/hip_runtime_api.h>",
        "#endif"]


def test_struct_tag_before_a_type_hip_typedefs_is_dropped(tmp_path):
    """cuda-samples' particles/particleSystem.h:138 `struct cudaGraphicsResource *r`: the compat header maps the name
    onto HIP's typedef hipGraphicsResource, which `struct` cannot name ("typedef 'hipGraphicsResource' cannot be
    referenced with a struct specifier"). C++ needs no `struct` there on either vendor; a second run is empty."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\n#include <cuda_gl_interop.h>\nclass P {\n"
           "    struct cudaGraphicsResource *m_res;   // exchange\n};\n")
    repo = make_repo(tmp_path / "r", {"p.h": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert "    cudaGraphicsResource *m_res;   // exchange" in (repo / "p.h").read_text().splitlines()
    assert "#define cudaGraphicsResource hipGraphicsResource" in (repo / "porter_hip_compat.h").read_text().splitlines()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


def test_register_keyword_is_deleted_by_port_and_translate(tmp_path):
    """HeCBench's ntt (main.cu:16, -std=c++17): hipcc rejects `register`, nvcc only warns (portbench 07:14). DEV021
    finds it; port and translate delete the keyword, which means nothing to either compiler."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\n__global__ void ntt(unsigned long long* out) {\n"
           "  register unsigned long long samples[8], s8[8];\n  samples[0] = s8[0] = threadIdx.x;\n"
           "  out[0] = samples[0];\n}\n")
    repo = make_repo(tmp_path / "r", {"main.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "main.cu").read_text().splitlines()[5] == "  unsigned long long samples[8], s8[8];"
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    t = make_repo(tmp_path / "t", {"main.cu": src})
    tr = porter_here("translate", str(t), "-o", str(tmp_path / "hip"))
    assert tr.returncode == 0, tr.stderr
    assert (tmp_path / "hip" / "main.cu").read_text().splitlines()[2] == "  unsigned long long samples[8], s8[8];"


def test_callback_convention_macro_is_defined_empty_for_rocm(tmp_path):
    """cuda-samples' simpleCallback.cu: `void CUDART_CB cb(...)` ("variable has incomplete type 'void'" on gfx90a: HIP
    on AMD defines no CUDART_CB). API002 names it; the compat header defines it empty for the ROCm build, translate
    renames it to the same empty helper, and a second port changes nothing."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\nvoid CUDART_CB done(cudaStream_t s, cudaError_t st, void* data);\n"
           "void go(cudaStream_t s) { cudaStreamAddCallback(s, done, 0, 0); }\n")
    repo = make_repo(tmp_path / "r", {"cb.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert header.index("#define porter_CUDART_CB") < header.index("#define CUDART_CB porter_CUDART_CB")
    assert "CUDART_CB" not in r.stderr  # answered, not open work
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    t = make_repo(tmp_path / "t", {"cb.cu": src})
    assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
    assert (tmp_path / "hip" / "cb.cu").read_text().splitlines()[2] == \
        "void porter_CUDART_CB done(hipStream_t s, hipError_t st, void* data);"


def test_a_name_with_no_hip_counterpart_is_not_mapped_to_none(tmp_path):
    """cuda-samples' vectorAddMMAP.cpp: CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED is deprecated with no
    HIP name (the finding's hip is the placeholder "none"); the port wrote `#define ... none` ("use of undeclared
    identifier 'none'"). It maps nothing and lists the name as open work with its API003 finding."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\nint vmm(CUdevice d) {\n  int v = 0;\n"
           "  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, d);\n  return v;\n}\n")
    repo = make_repo(tmp_path / "r", {"vmm.cpp": src})
    r = porter_here("port", str(repo), "--apply", "--summary", str(tmp_path / "s.json"))
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text()
    assert "none" not in header.split("*/", 1)[1] and "#define cuDeviceGetAttribute hipDeviceGetAttribute" in header
    import json

    open_work = json.loads((tmp_path / "s.json").read_text())["open_work"]
    # after --apply the item names the applied file's line (the compat include stands above it: session 27)
    assert [(o["path"], o["line"], o["rule"]) for o in open_work] == [("vmm.cpp", 7, "API003")]
    assert "CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED" in (repo / "vmm.cpp").read_text().splitlines()[6]


def test_overloads_the_renaming_merges_keep_one_for_rocm(tmp_path):
    """cuda-samples' helper_cuda.h defines _cudaGetErrorEnum(cudaError_t) and, under CUDA_DRIVER_API,
    _cudaGetErrorEnum(CUresult); HIP names both hipError_t ("redefinition of '_cudaGetErrorEnum'",
    streamOrderedAllocationIPC). The later overload is kept for nvcc only; a second run changes nothing."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\n#include <cuda_runtime.h>\n\n"
           "static const char *_cudaGetErrorEnum(cudaError_t error) {\n  return cudaGetErrorName(error);\n}\n\n"
           "static const char *_cudaGetErrorEnum(CUresult error) {\n  const char *ret = NULL;\n"
           "  cuGetErrorName(error, &ret);\n  return ret;\n}\n\nint size_of(cudaError_t e);\nint size_of(CUdevice d);\n")
    repo = make_repo(tmp_path / "r", {"helper.h": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    out = (repo / "helper.h").read_text().splitlines()
    assert out[9:18] == [
        "", CUDA_ONLY + "  /* porter port: the same function as an overload above once HIP names both types */",
        "static const char *_cudaGetErrorEnum(CUresult error) {", "  const char *ret = NULL;",
        "  cuGetErrorName(error, &ret);", "  return ret;", "}", "#endif", ""]
    assert out[18:] == ["int size_of(cudaError_t e);", "int size_of(CUdevice d);"]  # declarations, other types
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


def test_include_under_a_version_test_whose_else_only_complains_is_ported(tmp_path):
    """cuda-samples' threadFenceReduction.cu: `#if CUDART_VERSION >= 2020` / `#include "kernel.cuh"` / `#else` /
    `#pragma comment(user, ...)`. An `#else` holding only diagnostics is no HIP path, so the header's CUDA includes
    are open work the port guards (they read handled before: "'cooperative_groups.h' file not found")."""
    from tests.helpers import make_repo

    main = ('#include <cuda_runtime.h>\n#if CUDART_VERSION >= 2020\n#include "kernel.cuh"\n#else\n'
            '#pragma comment(user, "CUDA 2.2 is required")\n#endif\nint main() { return CUDART_VERSION; }\n')
    kernel = "#include <cooperative_groups.h>\n__global__ void k(int* p) { p[0] = 1; }\n"
    repo = make_repo(tmp_path / "r", {"main.cu": main, "kernel.cuh": kernel})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "kernel.cuh").read_text().splitlines()[:6] == [
        '#include "porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */', CUDA_ONLY,
        "#include <cooperative_groups.h>", "#else", "#include <hip/hip_cooperative_groups.h>", "#endif"]


def test_syncwarp_in_a_helper_no_kernel_reaches_gets_the_shim(tmp_path):
    """HeCBench's warpexchange warp_exchange.h: `WARP_SYNC` calls `__syncwarp(mask)` and is reached from a sibling
    folder's kernels through templates, so no kernel's facts list it and, with the default ROCm 7.0 (which has
    __syncwarp), no finding either; HIP 5.2 lacks it ("use of undeclared identifier '__syncwarp'", portbench). The
    device functions of a ported file give the compat header its warp shims too."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\n__device__ __forceinline__ void WARP_SYNC(unsigned int m) {\n"
           "  __syncwarp(m);\n}\n__device__ int lane() { return threadIdx.x % 32; }\n")
    repo = make_repo(tmp_path / "r", {"warp_exchange.h": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    i = header.index("#if HIP_VERSION < 60200000")
    assert header[i:i + 3] == ["#if HIP_VERSION < 60200000", "#define __syncwarp(...) __builtin_amdgcn_wave_barrier()",
                               "#endif"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


def test_cg_reduce_header_is_kept_for_nvcc_and_the_compat_header_defines_reduce(tmp_path):
    """cuda-samples' reductionMultiBlockCG.cu (and HeCBench's groupnorm): `#include <cooperative_groups/reduce.h>` and
    `cg::reduce(tile32, v, cg::plus<double>())`; HIP has neither before 7.13 ("'cooperative_groups/reduce.h' file not
    found"). The include is kept for nvcc, the compat header defines cooperative_groups::reduce on thread_block_tile
    (a shfl_xor butterfly: every lane gets the result, as in CUDA) with plus/less/greater/bit_* for HIP before 7.13,
    DEV008's `reduce` is answered, and a second run changes nothing."""
    from tests.helpers import make_repo

    src = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void sum(const double* x, double* out) {\n  cg::thread_block cta = cg::this_thread_block();\n"
           "  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);\n"
           "  double v = cg::reduce(tile32, x[cta.thread_rank()], cg::plus<double>());\n"
           "  if (tile32.thread_rank() == 0) out[0] = v;\n}\n")
    repo = make_repo(tmp_path / "r", {"red.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[-1].endswith("; 0 open item(s)")
    assert (repo / "red.cu").read_text().splitlines()[6:9] == [CUDA_ONLY, "#include <cooperative_groups/reduce.h>",
                                                               "#endif"]
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    i = header.index("/* cooperative_groups::reduce for HIP before 7.13 (porter port) */")
    assert header[i + 1:i + 4] == ["#include <hip/hip_cooperative_groups.h>", "#if HIP_VERSION < 71300000",
                                   "namespace cooperative_groups {"]
    assert header[i + 10:i + 14] == ["template <unsigned int N, class P, class T, class Op>",
                                     "__device__ T reduce(const thread_block_tile<N, P>& g, T v, Op op) {",
                                     "  for (unsigned int o = N / 2; o > 0; o /= 2) v = op(v, g.shfl_xor(v, o));",
                                     "  return v;"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    again = porter_here("port", str(repo))
    assert (again.stdout, again.stderr.splitlines()[-1]) == \
        ("", "porter port: 0 file(s), 0 change(s) (nothing to change); 0 open item(s)")


def test_struct_tags_of_cuda_types_keep_struct(tmp_path):
    """cuda-samples' matrixMulDynlinkJIT/cuda_drvapi_dynlink_cuda.h (included by a C file, cuda_drvapi_dynlink.c):
    `typedef struct CUctx_st *CUcontext;` names CUDA's struct tag, which HIPIFY maps to HIP's tag (ihipCtx_t), so
    `struct` stays (without it C, and C++ before the struct is declared, reject the line: the nvcc build broke)."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\ntypedef struct CUctx_st *CUcontext;\ntypedef struct CUstream_st *CUstream;\n"
           "struct cudaGraphicsResource *res;\n")
    repo = make_repo(tmp_path / "r", {"dynlink.h": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "dynlink.h").read_text().splitlines()[4:] == [
        "typedef struct CUctx_st *CUcontext;", "typedef struct CUstream_st *CUstream;", "cudaGraphicsResource *res;"]


def test_translate_replaces_cg_reduce_header_with_the_shim(tmp_path):
    """translate's HIP fork of the same kernel: the include becomes HIP's cooperative-groups header and
    porter_hip_compat.h (the same rules/kb/fixups.yaml shim as the port's) defines cooperative_groups::reduce."""
    from tests.helpers import make_repo

    src = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
           "__device__ int r(cg::thread_block_tile<32> t, int v) { return cg::reduce(t, v, cg::plus<int>()); }\n")
    repo = make_repo(tmp_path / "r", {"red.cu": src})
    out = tmp_path / "hip"
    tr = porter_here("translate", str(repo), "-o", str(out))
    assert tr.returncode == 0, tr.stderr
    assert (out / "red.cu").read_text().splitlines()[:4] == [
        '#include "porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */', "#include <hip/hip_runtime.h>",
        "#include <hip/hip_cooperative_groups.h>", "#include <hip/hip_cooperative_groups.h>"]
    header = (out / "porter_hip_compat.h").read_text().splitlines()
    assert "__device__ T reduce(const thread_block_tile<N, P>& g, T v, Op op) {" in header
    assert header[header.index("#if HIP_VERSION < 71300000") - 1].startswith("/* cooperative_groups/reduce.h: ")


def test_translate_makes_a_merged_overload_a_template_in_place(tmp_path):
    """translate's fork of helper_cuda.h's two _cudaGetErrorEnum overloads (both hipError_t): the later definition
    becomes a template on its own line (no line moves) and cuGetErrorName reaches translate's shim for
    hipDrvGetErrorName, which HIP 5.2 lacks."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\n#include <cuda_runtime.h>\n\n"
           "static const char *_cudaGetErrorEnum(cudaError_t error) {\n  return cudaGetErrorName(error);\n}\n\n"
           "static const char *_cudaGetErrorEnum(CUresult error) {\n  const char *ret = NULL;\n"
           "  cuGetErrorName(error, &ret);\n  return ret;\n}\n")
    repo = make_repo(tmp_path / "r", {"helper.h": src})
    out = tmp_path / "hip"
    tr = porter_here("translate", str(repo), "-o", str(out))
    assert tr.returncode == 0, tr.stderr
    lines = (out / "helper.h").read_text().splitlines()
    assert lines[4] == "static const char *_cudaGetErrorEnum(hipError_t error) {"
    assert lines[8:11] == ["template <int porter_merged_overload = 0> static const char *_cudaGetErrorEnum(hipError_t "
                           "error) {", "  const char *ret = NULL;", "  porter_hipDrvGetErrorName(error, &ret);"]
    assert len(lines) == len(src.splitlines()) + 1  # the compat include on top, nothing else moved


def test_integer_stored_through_a_cudeviceptr_is_cast(tmp_path):
    """cuda-samples' matrixMulDrv.cpp packs kernel arguments with `*(reinterpret_cast<CUdeviceptr *>(&buf[off])) =
    width;` (a size_t): CUdeviceptr is an integer, hipDeviceptr_t a pointer ("incompatible integer to pointer
    conversion"). The stored value gets `(CUdeviceptr)(...)`, the same store for nvcc; a second run changes nothing."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\nvoid pack(CUdeviceptr d, size_t width) {\n  char buf[64];\n  int off = 0;\n"
           "  *(reinterpret_cast<CUdeviceptr *>(&buf[off])) = d;\n"
           "  *(reinterpret_cast<CUdeviceptr *>(&buf[off + 8])) = width;\n}\n")
    repo = make_repo(tmp_path / "r", {"drv.cpp": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "drv.cpp").read_text().splitlines()[7:9] == [
        "  *(reinterpret_cast<CUdeviceptr *>(&buf[off])) = (CUdeviceptr)(d);",
        "  *(reinterpret_cast<CUdeviceptr *>(&buf[off + 8])) = (CUdeviceptr)(width);"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


def test_occupancy_call_with_a_null_callback_reaches_a_shim(tmp_path):
    """matrixMulDrv's cuOccupancyMaxPotentialBlockSize(&grid, &block, f, 0, smem, 0): HIPIFY's
    hipModuleOccupancyMaxPotentialBlockSize has no callback argument ("no matching function"); the compat header's
    porter_ overload takes it and refuses a real callback at run time."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\nint pick(CUfunction f) {\n  int grid = 0, block = 0;\n"
           "  cuOccupancyMaxPotentialBlockSize(&grid, &block, f, 0, 4096, 0);\n  return block;\n}\n")
    repo = make_repo(tmp_path / "r", {"occ.cpp": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert "#define cuOccupancyMaxPotentialBlockSize porter_hipModuleOccupancyMaxPotentialBlockSize" in header
    assert "        if (shared_for_block) return hipErrorNotSupported;".strip() in [h.strip() for h in header]


def test_translate_renames_a_cuda_struct_named_with_struct_and_drops_the_keyword(tmp_path):
    """cuda-samples' MC_EstimatePi*/src/test.cpp: `struct cudaDeviceProp deviceProperties;` — the builtin engine read
    the elaborated specifier as the project defining cudaDeviceProp (TRN014) and kept the CUDA name ("implicit
    instantiation of undefined member 'cudaDeviceProp'"). Only a struct with a body defines its name; `struct` goes
    before HIP typedef names (hipGraphicsResource), as in port, and stays before CUDA's `_st` tags."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\nint f(int device) {\n  struct cudaDeviceProp p;\n"
           "  cudaGetDeviceProperties(&p, device);\n  struct cudaGraphicsResource *r;\n  struct CUstream_st *s;\n"
           "  return p.major;\n}\nstruct cudaOwn { int x; };\n")
    repo = make_repo(tmp_path / "r", {"a.cpp": src})
    out = tmp_path / "hip"
    tr = porter_here("translate", str(repo), "-o", str(out))
    assert tr.returncode == 0, tr.stderr
    assert (out / "a.cpp").read_text().splitlines() == [
        "#include <hip/hip_runtime.h>", "int f(int device) {", "  hipDeviceProp_t p;",
        "  hipGetDeviceProperties(&p, device);", "  hipGraphicsResource *r;", "  struct ihipStream_t *s;",
        "  return p.major;", "}", "struct cudaOwn { int x; };"]


def test_translate_casts_an_integer_stored_through_a_device_pointer(tmp_path):
    """translate's fork of matrixMulDrv's argument packing: the same cast as port's, on hipDeviceptr_t."""
    from tests.helpers import make_repo

    src = ("#include <cuda.h>\nvoid pack(CUdeviceptr d, size_t width) {\n  char buf[64];\n"
           "  *(reinterpret_cast<CUdeviceptr *>(&buf[8])) = width;\n}\n")
    repo = make_repo(tmp_path / "r", {"drv.cpp": src})
    out = tmp_path / "hip"
    assert porter_here("translate", str(repo), "-o", str(out)).returncode == 0
    assert (out / "drv.cpp").read_text().splitlines()[3] == \
        "  *(reinterpret_cast<hipDeviceptr_t *>(&buf[8])) = (hipDeviceptr_t)(width);"


ROUNDING_SRC = ("#include <cuda_runtime.h>\n__global__ void widen(const float* x, float* lo, float* hi, double* d) {\n"
                "  int i = threadIdx.x;\n  lo[i] = __fadd_rd(x[i], 1.0f);\n  hi[i] = __fsqrt_ru(x[i]);\n"
                "  d[i] = __dmul_rz(d[i], 3.0);\n}\n")


def test_directed_rounding_intrinsics_get_shims(tmp_path):
    """cuda-samples' interval: `__fadd_rd` and the other directed-rounding intrinsics ("use of undeclared identifier
    '__fadd_rd'" on gfx90a: HIP declares them only under OCML_BASIC_ROUNDED_OPERATIONS, and Debian's ocml.bc lacks
    what they call). API004 names them; the compat header defines each used one from round-to-nearest arithmetic,
    after the helpers they share, translate renames them to the same helpers, and a second port changes nothing."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"interval.cu": ROUNDING_SRC})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[-1].endswith("; 0 open item(s)")
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    helpers = header.index("template <class T> __device__ inline T porter_dr_add(T a, T b, int dir) {")
    uses = [header.index(line) for line in (
        "__device__ inline double porter_dmul_rz(double a, double b) { return porter_dr_mul(a, b, 0); }",
        "__device__ inline float porter_fadd_rd(float a, float b) { return porter_dr_add(a, b, -1); }",
        "__device__ inline float porter_fsqrt_ru(float a) { return porter_dr_sqrt(a, 1); }")]
    assert helpers < min(uses) and uses == sorted(uses)
    assert [l for l in header if l.startswith("#define __")] == [
        "#define __dmul_rz porter_dmul_rz", "#define __fadd_rd porter_fadd_rd", "#define __fsqrt_ru porter_fsqrt_ru"]
    assert "porter_fadd_ru" not in "\n".join(header)  # only the names the project uses
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    t = make_repo(tmp_path / "t", {"interval.cu": ROUNDING_SRC})
    assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
    out = (tmp_path / "hip" / "interval.cu").read_text().splitlines()
    assert out[-4:] == ["  lo[i] = porter_fadd_rd(x[i], 1.0f);", "  hi[i] = porter_fsqrt_ru(x[i]);",
                        "  d[i] = porter_dmul_rz(d[i], 3.0);", "}"]


ROUNDING_CHECK = r"""
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
using std::fma; using std::nextafter; using std::sqrt;
#define __device__
#include "shims.h"
template <class T> static bool same(T a, T b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }
template <class T> static T fpu(int op, T a, T b, int mode) {
  volatile T x = a, y = b, r;
  std::fesetround(mode);
  switch (op) { case 0: r = x + y; break; case 1: r = x - y; break; case 2: r = x * y; break;
                case 3: r = x / y; break; case 4: r = sqrt(x); break; default: r = T(1) / x; }
  std::fesetround(FE_TONEAREST);
  return r;
}
#define PICK(P, T) static T P##_op(int op, T a, T b, int d) { \
  switch (op * 3 + d + 1) { \
    case 0: return porter_##P##add_rd(a, b); case 1: return porter_##P##add_rz(a, b); case 2: return porter_##P##add_ru(a, b); \
    case 3: return porter_##P##sub_rd(a, b); case 4: return porter_##P##sub_rz(a, b); case 5: return porter_##P##sub_ru(a, b); \
    case 6: return porter_##P##mul_rd(a, b); case 7: return porter_##P##mul_rz(a, b); case 8: return porter_##P##mul_ru(a, b); \
    case 9: return porter_##P##div_rd(a, b); case 10: return porter_##P##div_rz(a, b); case 11: return porter_##P##div_ru(a, b); \
    case 12: return porter_##P##sqrt_rd(a); case 13: return porter_##P##sqrt_rz(a); case 14: return porter_##P##sqrt_ru(a); \
    case 15: return porter_##P##rcp_rd(a); case 16: return porter_##P##rcp_rz(a); default: return porter_##P##rcp_ru(a); } }
PICK(f, float)
PICK(d, double)
int main() {
  std::mt19937_64 g(30);
  const int modes[3] = {FE_DOWNWARD, FE_TOWARDZERO, FE_UPWARD};
  const double special[] = {0.0, -0.0, 1.0, -1.0, 3.0, 0.1, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e-38, INFINITY, -INFINITY, NAN};
  long fbad = 0, dbad = 0, dnear = 0;
  for (int i = 0; i < 200000; ++i) {
    const int op = g() % 6, m = g() % 3;
    double v[2];
    for (double& x : v) {
      if (g() % 8 == 0) { x = special[g() % 14]; continue; }
      if (g() % 2) { x = (double)((long)(g() % 2000) - 1000) / (double)(1 + g() % 64); continue; }
      uint64_t u = g(); u = (u & 0x8000000000000000ull) | (u % 0x7ff0000000000000ull); std::memcpy(&x, &u, 8);
    }
    const float fa = op >= 4 ? std::fabs((float)v[0]) : (float)v[0], fb = (float)v[1];
    if (!same(fpu<float>(op, fa, fb, modes[m]), f_op(op, fa, fb, m - 1))) ++fbad;
    const double da = op >= 4 ? std::fabs(v[0]) : v[0], db = v[1];
    const double want = fpu<double>(op, da, db, modes[m]);
    if (!same(want, d_op(op, da, db, m - 1))) {
      const double tiny = 0x1p-916;  /* within 2^106 of the subnormal range: the documented limit */
      if (std::fabs(want) < tiny || std::fabs(da) < tiny || (op < 4 && std::fabs(db) < tiny)) ++dnear; else ++dbad;
    }
  }
  std::printf("%ld %ld %ld\n", fbad, dbad, dnear);
}
"""


def test_directed_rounding_helpers_round_as_the_fpu_does(tmp_path):
    """The compat header's directed-rounding helpers, compiled for the host (the same C++ with __device__ empty),
    against the host FPU under fesetround on 200,000 seeded operand pairs (specials, small rationals, random bit
    patterns): every float result agrees; a double one may differ only within 2^106 of the subnormal range (the limit
    rules/kb/fixups.yaml states)."""
    import shutil
    import subprocess

    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip(NEEDS["g++"])
    fix = fixups.load_fixups()
    used = [c for c, e in fix.shims.items() if e.get("requires") == "porter_directed_rounding"]
    assert len(used) == 36  # {add, sub, mul, div, sqrt, rcp} x {rd, ru, rz} x {float, double}
    (tmp_path / "shims.h").write_text("".join(fix.shims[c]["code"] for c in fix.shim_order(
        used + ["porter_directed_rounding"])))
    (tmp_path / "check.cpp").write_text(ROUNDING_CHECK)
    c = subprocess.run([gxx, "-std=c++17", "-O0", "-frounding-math", "check.cpp", "-o", "check"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    fbad, dbad, dnear = map(int, subprocess.run([str(tmp_path / "check")], capture_output=True, text=True,
                                                check=True).stdout.split())
    assert (fbad, dbad) == (0, 0) and dnear < 100


GL_SRC = ("#include <cuda_gl_interop.h>\n#include <cuda_runtime.h>\n"
          "cudaError_t share(struct cudaGraphicsResource** r, unsigned int pbo) {\n"
          "  return cudaGraphicsGLRegisterBuffer(r, pbo, cudaGraphicsMapFlagsWriteDiscard);\n}\n")


def test_gl_interop_header_falls_back_and_map_flags_become_register_flags(tmp_path):
    """cuda-samples' boxFilter.cpp, simpleCUDA2GL/main.cpp, ...: `<cuda_gl_interop.h>` maps to hip/hip_gl_interop.h,
    which ROCm 6.0 added ("file not found" with HIP 5.2, whose hip_runtime_api.h declares the GL interop API), and
    `cudaGraphicsGLRegisterBuffer(..., cudaGraphicsMapFlagsWriteDiscard)` passes a map flag HIP lacks ("use of
    undeclared identifier"). The ROCm include falls back under __has_include; the map flag becomes the register flag
    of the same value and meaning."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"gl.cpp": GL_SRC})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[-1].endswith("; 0 open item(s)")
    assert (repo / "gl.cpp").read_text().splitlines()[1:11] == [
        CUDA_ONLY, "#include <cuda_gl_interop.h>", "#include <cuda_runtime.h>", "#else",
        "#if __has_include(<hip/hip_gl_interop.h>)", "#include <hip/hip_gl_interop.h>", "#else",
        "#include <hip/hip_runtime_api.h>", "#endif", "#endif"]
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert "static const unsigned int porter_cudaGraphicsMapFlagsWriteDiscard = hipGraphicsRegisterFlagsWriteDiscard;" \
        in header
    assert "#define cudaGraphicsMapFlagsWriteDiscard porter_cudaGraphicsMapFlagsWriteDiscard" in header
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


def test_translate_takes_the_gl_interop_header_from_the_compat_header_with_its_fallback(tmp_path):
    """translate's HIP fork of the same file: `<hip/hip_gl_interop.h>` (ROCm 6.0) stopped HIP 5.2 at "file not found".
    The include line becomes a note (the file keeps its line numbers) and the compat header, included at the top,
    takes the header under __has_include with HIP 5's hip_runtime_api.h as the fallback, as port's include does."""
    from tests.helpers import make_repo

    t = make_repo(tmp_path / "t", {"gl.cpp": GL_SRC})
    assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
    assert (tmp_path / "hip" / "gl.cpp").read_text().splitlines()[:3] == [
        '#include "porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */',
        "/* porter: <hip/hip_gl_interop.h> from porter_hip_compat.h, <hip/hip_runtime_api.h> before ROCm 6.0 */",
        "#include <hip/hip_runtime.h>"]
    header = (tmp_path / "hip" / "porter_hip_compat.h").read_text().splitlines()
    at = header.index("#include <hip/hip_runtime.h>")
    assert header[at + 1:at + 6] == ["#if __has_include(<hip/hip_gl_interop.h>)", "#include <hip/hip_gl_interop.h>",
                                     "#else", "#include <hip/hip_runtime_api.h>", "#endif"]


EVENT_SRC = ("#include <cuda_runtime.h>\n\nint make(cudaEvent_t* a, cudaEvent_t* b) {\n  cudaEventCreate(a);\n"
             "  return cudaEventCreate(b, cudaEventDisableTiming | cudaEventInterprocess) == cudaSuccess;\n}\n")


def test_two_argument_event_create_becomes_the_with_flags_call(tmp_path):
    """cuda-samples' simpleIPC: `cudaEventCreate(&event, flags)` is CUDA's C++ overload of cudaEventCreateWithFlags;
    HIP has no two-argument hipEventCreate ("no matching function for call to 'hipEventCreate'"). Port writes the
    WithFlags call (CUDA's own name, mapped in the compat header), translate the HIP one; the one-argument call stays."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"ev.cu": EVENT_SRC})
    assert porter_here("port", str(repo), "--apply").returncode == 0
    assert (repo / "ev.cu").read_text().splitlines()[6:8] == [
        "  cudaEventCreate(a);",
        "  return cudaEventCreateWithFlags(b, cudaEventDisableTiming | cudaEventInterprocess) == cudaSuccess;"]
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert [l for l in header if "EventCreate" in l] == ["#define cudaEventCreate hipEventCreate",
                                                         "#define cudaEventCreateWithFlags hipEventCreateWithFlags"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    t = make_repo(tmp_path / "t", {"ev.cu": EVENT_SRC})
    assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
    assert (tmp_path / "hip" / "ev.cu").read_text().splitlines()[3:5] == [
        "  hipEventCreate(a);",
        "  return hipEventCreateWithFlags(b, hipEventDisableTiming | hipEventInterprocess) == hipSuccess;"]


LIMIT_SRC = ("#include <cuda_runtime.h>\n#include <cstdio>\n\nint setup() {\n"
             "  cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, 8192);\n"
             "  if (e != cudaSuccess) printf(\"%s\\n\", cudaGetErrorString(e));\n  return e == cudaSuccess;\n}\n")


def test_stack_size_limit_reaches_helpers_older_hip_can_compile(tmp_path):
    """cuda-samples' interval: `cudaDeviceSetLimit(cudaLimitStackSize, 8192)` ("use of undeclared identifier
    'hipLimitStackSize'" with HIP 5.2: HIPIFY's HIP names arrived in HIP 5.3). The compat header routes both names to
    translate's helpers: HIP's own names from HIP 5.3 on, and before it the stack-size value HIP 5.3 gave (0, as in
    CUDA) and an answer of hipErrorUnsupportedLimit (HIP 5.2 sets no limit). Translate writes the same helpers."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"limit.cu": LIMIT_SRC})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = (repo / "porter_hip_compat.h").read_text().splitlines()
    assert [l for l in header if l.startswith("#define cudaDeviceSetLimit") or "LimitStackSize" in l
            and not l.startswith("/*")] == [
        "static const hipLimit_t porter_hipLimitStackSize = hipLimitStackSize;",
        "static const hipLimit_t porter_hipLimitStackSize = (hipLimit_t)0;",
        "#define cudaDeviceSetLimit porter_hipDeviceSetLimit", "#define cudaLimitStackSize porter_hipLimitStackSize"]
    at = header.index("inline hipError_t porter_hipDeviceSetLimit(hipLimit_t limit, size_t value) {")
    assert header[at + 1:at + 9] == ["#if HIP_VERSION >= 50300000", "  return hipDeviceSetLimit(limit, value);", "#else",
                                     "  (void)limit;", "  (void)value;", "  return hipErrorUnsupportedLimit;", "#endif",
                                     "}"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    t = make_repo(tmp_path / "t", {"limit.cu": LIMIT_SRC})
    assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
    out = (tmp_path / "hip" / "limit.cu").read_text().splitlines()
    assert out[5] == "  hipError_t e = porter_hipDeviceSetLimit(porter_hipLimitStackSize, 8192);"



def test_translate_of_a_ported_tree_copies_ports_header_as_it_is(tmp_path):
    """`porter translate` on a tree `porter port` already changed: the port's compat header is written for both
    vendors, and translated its helper `porter_hipDeviceSetLimit`'s body `hipDeviceSetLimit(limit, value)` stayed
    right but `#define cudaDeviceSetLimit porter_hipDeviceSetLimit` became a define of the HIP name, so the helper
    called itself. The header is copied byte for byte; the sources are translated."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", {"limit.cu": LIMIT_SRC})
    assert porter_here("port", str(repo), "--apply").returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    r = porter_here("translate", str(repo), "-o", str(tmp_path / "hip"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "hip" / "porter_hip_compat.h").read_bytes() == (repo / "porter_hip_compat.h").read_bytes()
    assert "  hipError_t e = porter_hipDeviceSetLimit(porter_hipLimitStackSize, 8192);" in \
        (tmp_path / "hip" / "limit.cu").read_text().splitlines()
    header = (repo / "porter_hip_compat.h").read_bytes()
    r = porter_here("translate", str(repo), "--in-place")
    assert r.returncode == 0, r.stderr
    assert (repo / "porter_hip_compat.h").read_bytes() == header  # in place, translate's own header is not written over it
    assert "  hipError_t e = porter_hipDeviceSetLimit(porter_hipLimitStackSize, 8192);" in \
        (repo / "limit.cu").read_text().splitlines()

EGL_FILES = {"kernel.cu": "#include <EGL/egl.h>\n#include <cuda.h>\n#include \"common.h\"\n\n"
                          "__global__ void fill(int* p) { p[threadIdx.x] = 1; }\n",
             "common.h": "#pragma once\n#include \"cuda.h\"\n#include \"cudaEGL.h\"\n\nextern EGLStreamKHR g_stream;\n",
             "consumer.cpp": "#include \"cudaEGL.h\"\n#include \"common.h\"\n\nCUresult connect(CUeglStreamConnection* c) "
                             "{ return cuEGLStreamConsumerConnect(c, g_stream); }\n"}


def test_egl_interop_header_a_file_uses_nothing_of_is_kept_for_nvcc_only(tmp_path):
    """cuda-samples' EGLStream samples: eglstrm_common.h includes cudaEGL.h (CUDA's EGL interop, which HIP lacks) for
    the EGL types it pulls in and uses none of its names, so every unit including it stopped at "'cudaEGL.h' file not
    found", kernels too. The port keeps that include for nvcc and gives the ROCm build the EGL headers cudaEGL.h
    includes; a file that uses EGL interop (consumer.cpp) keeps its include, open work for API006 and API002."""
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "r", EGL_FILES)
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "common.h").read_text().splitlines()[5:12] == [
        CUDA_ONLY, '#include "cudaEGL.h"', "#else", "#include <EGL/egl.h>", "#include <EGL/eglext.h>", "#endif", ""]
    assert (repo / "consumer.cpp").read_text().splitlines()[1] == '#include "cudaEGL.h"'
    assert [l.split(" API")[0].strip() for l in r.stderr.splitlines() if l.strip().startswith("open ")] == [
        "open consumer.cpp:2", "open consumer.cpp:5"]  # the applied file's lines (its include is now line 2)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("compiler", ["nvcc", "hipcc"])
def test_rounding_and_gl_ports_compile_for_both_vendors(tmp_path, compiler):
    """The fixtures above, ported, compile (host and device) with nvcc (sm_80) and Debian's hipcc (gfx90a); translate's
    HIP fork of them with hipcc."""
    import os
    import shutil
    import subprocess

    from tests.helpers import make_repo

    path = shutil.which(compiler) or (f"/usr/local/bin/{compiler}" if os.access(f"/usr/local/bin/{compiler}", os.X_OK)
                                      else None)
    if path is None:
        pytest.skip(NEEDS[compiler])
    repo = make_repo(tmp_path / "r", {"interval.cu": ROUNDING_SRC, "gl.cpp": GL_SRC, "limit.cu": LIMIT_SRC,
                                      "ev.cu": EVENT_SRC, **{k: v for k, v in EGL_FILES.items() if k != "consumer.cpp"}})
    assert porter_here("port", str(repo), "--apply").returncode == 0
    arch = ["-arch=sm_80", "-x", "cu"] if compiler == "nvcc" else ["--offload-arch=gfx90a", "-x", "hip"]
    units = [(repo, u) for u in ("interval.cu", "gl.cpp", "limit.cu", "ev.cu", "kernel.cu")]
    if compiler == "hipcc":  # translate's HIP fork of the same files
        t = make_repo(tmp_path / "t", {"interval.cu": ROUNDING_SRC, "gl.cpp": GL_SRC, "limit.cu": LIMIT_SRC,
                                       "ev.cu": EVENT_SRC})
        assert porter_here("translate", str(t), "-o", str(tmp_path / "hip")).returncode == 0
        units += [(tmp_path / "hip", u) for u in ("interval.cu", "gl.cpp", "limit.cu", "ev.cu")]
    for where, unit in units:
        c = subprocess.run([path, *arch, "-std=c++17", "-w", "-c", unit, "-o", str(tmp_path / "u.o")], cwd=where,
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd",
                                                                "TMPDIR": str(tmp_path)})
        assert (where.name, unit, c.returncode, [l for l in c.stderr.splitlines() if "error" in l]) == (
            where.name, unit, 0, [])
