"""`porter port`: the dual build written on fixtures/port-demo, a real CMake + Makefile CUDA project in a real git
repository: the exact lines it writes, idempotence, reversibility, port-awareness of the result (scan and history),
refusals (dirty tree, symlinks leading out), and the ported tree compiled with nvcc and hipcc."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import NEEDS, REPO, git, porter_here

FIXTURE = REPO / "fixtures" / "port-demo"


def fixture_repo(tmp_path: Path, name: str = "repo") -> Path:
    repo = tmp_path / name
    shutil.copytree(FIXTURE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "cuda")
    return repo


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def open_findings(repo: Path) -> list[tuple[str, str, int]]:
    r = porter_here("scan", str(repo), "--format", "json", "--no-cache")
    assert r.returncode == 0, r.stderr
    return sorted((f["rule"], f["path"], f["line"]) for f in json.loads(r.stdout)["findings"]
                  if f["status"] == "open" and f["severity"] != "info")


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """The fixture repository, its patch (stdout of `porter port`) and the tree after `--apply` and a commit."""
    tmp = tmp_path_factory.mktemp("port")
    repo = fixture_repo(tmp)
    before = snapshot(repo)
    open_before = open_findings(repo)
    r = porter_here("port", str(repo), "--summary", str(tmp / "summary.json"), "-o", str(tmp / "port.patch"))
    assert r.returncode == 0, r.stderr
    a = porter_here("port", str(repo), "--apply")
    assert a.returncode == 0, a.stderr
    after = snapshot(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "porter port")
    return {"repo": repo, "tmp": tmp, "before": before, "after": after, "patch": (tmp / "port.patch").read_bytes(),
            "summary": json.loads((tmp / "summary.json").read_text()), "stderr": r.stderr,
            "open_before": open_before}


def lines(data: bytes) -> list[str]:
    return data.decode().splitlines()


def test_port_writes_masks_ballots_lane_arithmetic_and_ptx(ported):
    warp = lines(ported["after"]["src/warp_ops.cuh"])
    assert warp[2:6] == ['#include "../porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */',
                         "#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))", "#include <cuda_runtime.h>",
                         "#endif"]
    assert "#define FULL_MASK ((lane_mask_t)~0ull)" in warp
    assert "  for (int offset = warpSize / 2; offset > 0; offset >>= 1)" in warp
    assert "    v += __shfl_down_sync(((lane_mask_t)~0ull), v, offset);" in warp
    assert ["  lane_mask_t votes = __ballot_sync(FULL_MASK, pred);", "  return __popcll(votes);"] == \
        warp[warp.index("  lane_mask_t votes = __ballot_sync(FULL_MASK, pred);"):][:2]
    i = warp.index('  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));')
    assert warp[i - 3:i + 2] == ["#if defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM)",
                                 "  lane = __lane_id();  /* porter port: plain HIP for PTX mov %laneid */", "#else",
                                 '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));', "#endif"]
    assert "  v = __ldg(reinterpret_cast<const float*>(p));  /* porter port: plain HIP for PTX ld.global.nc */" in warp
    assert "  r = __bitextract_u32(x, pos, len);  /* porter port: plain HIP for PTX bfe */" in warp
    kernels = lines(ported["after"]["src/kernels.cu"])
    assert "  int lane = threadIdx.x % warpSize;" in kernels
    assert "  int warp = threadIdx.x / warpSize;" in kernels
    assert "    v = lane < (blockDim.x + warpSize - 1) / warpSize ? partial[lane] : 0.0f;" in kernels
    assert "  __shared__ float partial[32];" in kernels  # an extent needs a constant: left as it is
    gemm = lines(ported["after"]["src/gemm.cu"])
    assert gemm[2:10] == ['#include "../porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */',
                          "#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))", "#include <cublas_v2.h>",
                          "#else", "#if __has_include(<hipblas/hipblas.h>)", "#include <hipblas/hipblas.h>", "#else",
                          "#include <hipblas.h>"]
    tc = lines(ported["after"]["src/tensor_core.cu"])  # two adjacent CUDA includes share one guard
    assert tc[2:8] == ["#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))", "#include <cuda_fp16.h>",
                       "#include <cuda_runtime.h>", "#else", "#include <hip/hip_fp16.h>", "#endif"]


def test_compat_header_holds_exactly_the_names_used(ported):
    header = lines(ported["after"]["porter_hip_compat.h"])
    defines = [l for l in header if l.startswith("#define ")]
    assert defines == [
        "#define __ballot_sync(mask, pred) (__ballot(pred) & (lane_mask_t)(mask))",
        "#define __shfl_down_sync(mask, ...) __shfl_down(__VA_ARGS__)",
        "#define CUBLAS_OP_N HIPBLAS_OP_N", "#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS",
        "#define cublasCreate hipblasCreate", "#define cublasDestroy hipblasDestroy",
        "#define cublasHandle_t hipblasHandle_t", "#define cublasSgemm hipblasSgemm", "#define cudaError_t hipError_t",
        "#define cudaFree hipFree", "#define cudaGetErrorString hipGetErrorString", "#define cudaMalloc hipMalloc",
        "#define cudaMemcpy hipMemcpy", "#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost",
        "#define cudaMemcpyHostToDevice hipMemcpyHostToDevice", "#define cudaMemset hipMemset",
        "#define cudaStreamCreate hipStreamCreate", "#define cudaStreamDestroy hipStreamDestroy",
        "#define cudaStreamSynchronize hipStreamSynchronize", "#define cudaStream_t hipStream_t",
        "#define cudaSuccess hipSuccess"]
    assert "   Copyright (c) 2024 Advanced Micro Devices, Inc." in header  # HIPIFY's MIT notice
    assert "typedef unsigned long long lane_mask_t;" in header and "typedef unsigned int lane_mask_t;" in header
    assert header[-3:] == ["#else", "typedef unsigned int lane_mask_t;",
                           "#endif  /* defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM) */"]


def test_build_files_get_a_rocm_branch(ported):
    cmake = lines(ported["after"]["CMakeLists.txt"])
    assert cmake[:12] == ["cmake_minimum_required(VERSION 3.18)",
                          'option(USE_ROCM "Build for AMD GPUs with HIP (porter port)" OFF)',
                          "project(port_demo LANGUAGES CXX)", "if(USE_ROCM)", "  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)",
                          '    set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942;gfx950")', "  endif()",
                          "  enable_language(HIP)", "  add_compile_definitions(USE_ROCM)", "else()",
                          "  enable_language(CUDA)", "endif()"]
    assert "  find_package(hipblas REQUIRED)" in cmake
    assert "  target_link_libraries(port_demo PRIVATE hip::host roc::hipblas)" in cmake
    assert "  set_source_files_properties(src/gemm.cu src/kernels.cu src/main.cu src/tensor_core.cu PROPERTIES " \
           "LANGUAGE HIP)" in cmake
    make = lines(ported["after"]["Makefile"])
    i = make.index("ifeq ($(USE_ROCM),1)")
    assert make[i:i + 8] == ["ifeq ($(USE_ROCM),1)", "export HIP_PLATFORM := amd", "NVCC := hipcc -DUSE_ROCM",
                             "NVCC_FLAGS := -O2 -std=c++17 --offload-arch=gfx90a --offload-arch=gfx942 "
                             "--offload-arch=gfx950", "PORTER_LIB_CUBLAS := -lhipblas", "else",
                             "PORTER_LIB_CUBLAS := -lcublas", "endif"]
    assert "\t$(NVCC) $(NVCC_FLAGS) -o $@ $(SRCS) $(PORTER_LIB_CUBLAS)" in make


def test_open_work_is_listed_with_its_finding(ported):
    s = ported["summary"]
    assert [(o["rule"], o["path"], o["line"]) for o in s["open_work"]] == [("DEV006", "src/tensor_core.cu", 11)]
    assert s["open_work"][0]["finding"] == "DEV006 src/tensor_core.cu:11"
    assert s["open_work"][0]["reason"].startswith("tensor-core PTX (mma/wgmma/ldmatrix): an MFMA rewrite, by hand")
    assert "  open src/tensor_core.cu:11 DEV006: tensor-core PTX" in ported["stderr"]
    assert s["summary"] == {"files": 9, "changes": len(s["changes"]), "open": 1}
    answered = sorted(c["finding"] for c in s["changes"] if c["finding"] and c["finding"].startswith("DEV"))
    assert answered == ["DEV001 src/warp_ops.cuh:20", "DEV001 src/warp_ops.cuh:26", "DEV001 src/warp_ops.cuh:32",
                        "DEV002 src/warp_ops.cuh:14", "DEV002 src/warp_ops.cuh:9", "DEV003 src/warp_ops.cuh:14",
                        "DEV011 src/kernels.cu:11", "DEV011 src/kernels.cu:12", "DEV011 src/kernels.cu:16",
                        "DEV011 src/warp_ops.cuh:8"]


def test_patch_equals_apply_and_reverses_byte_identical(ported, tmp_path):
    repo = fixture_repo(tmp_path, "again")
    patch = tmp_path / "p.patch"
    patch.write_bytes(ported["patch"])
    git(repo, "apply", str(patch))
    assert snapshot(repo) == ported["after"]
    git(repo, "apply", "-R", str(patch))
    assert snapshot(repo) == ported["before"]


def test_second_run_is_empty(ported):
    r = porter_here("port", str(ported["repo"]))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert r.stderr.splitlines()[0] == "porter port: 0 file(s), 0 change(s) (nothing to change); 1 open item(s)"


def test_scan_reads_the_port_as_handled_and_history_burns_down(ported):
    assert ported["open_before"] != []
    after = open_findings(ported["repo"])
    # Only the tensor-core PTX (open work) and the Makefile's top-level nvcc defaults stay open: the port's
    # `ifeq ($(USE_ROCM),1)` arm (line 8) and its `else` (line 11's -lcublas) are the two builds' sides.
    assert after == [("BLD004", "Makefile", 2), ("BLD005", "Makefile", 2), ("BLD007", "Makefile", 1),
                     ("DEV006", "src/tensor_core.cu", 16)]
    r = porter_here("history", str(ported["repo"]), "--format", "json", "--no-cache", "-q")
    assert r.returncode == 0, r.stderr
    points = json.loads(r.stdout)["points"]
    assert [p["subject"] for p in points] == ["cuda", "porter port"]
    assert points[1]["change"]["open_findings"] < -40
    assert points[1]["handled_findings"] > 40
    assert points[0]["handled_findings"] == 0


def test_apply_refuses_a_dirty_tree(tmp_path):
    repo = fixture_repo(tmp_path)
    (repo / "src" / "kernels.cu").write_bytes((repo / "src" / "kernels.cu").read_bytes() + b"// local edit\n")
    before = snapshot(repo)
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 2
    assert "uncommitted changes in src/kernels.cu" in r.stderr
    assert snapshot(repo) == before


def test_apply_refuses_outside_git(tmp_path):
    tree = tmp_path / "plain"
    shutil.copytree(FIXTURE, tree)
    r = porter_here("port", str(tree), "--apply")
    assert r.returncode == 2
    assert "--apply needs a git work tree" in r.stderr


def test_symlinks_cannot_lead_apply_outside(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.cu"
    victim.write_text("__global__ void k(unsigned* o) { o[0] = __ballot_sync(0xffffffff, 1); }\n")
    repo = fixture_repo(tmp_path)
    (repo / "ext").symlink_to(outside, target_is_directory=True)
    (repo / "src" / "linked.cu").symlink_to(victim)
    (repo / "src" / "inside_link.cuh").symlink_to(repo / "src" / "warp_ops.cuh")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links")
    r = porter_here("port", str(repo), "--apply", "--header", "ext/porter_hip_compat.h")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "ext/porter_hip_compat.h" in r.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["victim.cu"]
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "__global__ void k(unsigned* o) { o[0] = __ballot_sync(0xffffffff, 1); }\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.cu"]
    assert (repo / "src" / "linked.cu").is_symlink() and (repo / "src" / "inside_link.cuh").is_symlink()
    assert b"lane_mask_t votes" in (repo / "src" / "warp_ops.cuh").read_bytes()  # ported where it lies


def _tool(name: str) -> str | None:
    return shutil.which(name) or (f"/usr/local/cuda/bin/{name}" if os.access(f"/usr/local/cuda/bin/{name}", os.X_OK)
                                  else None)


@pytest.mark.slow
@pytest.mark.parametrize("compiler", ["nvcc", "hipcc"])
def test_ported_tree_compiles(ported, compiler):
    """Each unit of the ported tree with nvcc (CUDA build) and hipcc (gfx90a, the ROCm build); the cuBLAS unit
    fails for a library this machine lacks, named as such (Debian ships no hipBLAS; the CUDA 13 here no cuBLAS)."""
    from porter.port import verify

    if _tool(compiler) is None:
        pytest.skip(NEEDS[compiler])
    repo = ported["repo"]
    units = ["src/gemm.cu", "src/kernels.cu", "src/main.cu", "src/tensor_core.cu"]
    archs = () if compiler == "nvcc" else ("gfx90a",)
    found, _ = verify.compilers(archs, nvcc=compiler == "nvcc")
    labels = {label for label, _ in found}
    want = "nvcc" if compiler == "nvcc" else "hipcc gfx90a"
    if want not in labels:
        pytest.skip(f"{compiler} cannot compile for {'sm_80' if compiler == 'nvcc' else 'gfx90a'} here")
    results, _ = verify.verify_tree(repo, units, [], archs=archs, nvcc=compiler == "nvcc")
    mine = {r.path: r for r in results if r.compiler == want}
    assert [p for p, r in sorted(mine.items()) if r.status == "compiled"] == ["src/kernels.cu", "src/main.cu",
                                                                              "src/tensor_core.cu"]
    gemm = mine["src/gemm.cu"]
    assert gemm.cause == "environment"
    header = "cublas_v2.h" if compiler == "nvcc" else "hipblas.h"
    if f"{header}" not in (gemm.reason or ""):
        # A machine that has the library compiles the unit: then it must have compiled.
        assert gemm.status == "compiled"
    else:
        assert gemm.reason.startswith(f"{header} (cublas")


@pytest.mark.slow
def test_clang_device_only_for_gfx942(ported):
    from porter.port import verify

    found, missing = verify.compilers(("gfx942",), nvcc=False)
    if not any(label == "clang-device-only gfx942" for label, _ in found):
        pytest.skip(f"no clang for a device-only gfx942 build: {missing}")
    results, _ = verify.verify_tree(ported["repo"], ["src/kernels.cu"], [], archs=("gfx942",), nvcc=False)
    assert [(r.compiler, r.status) for r in results] == [("clang-device-only gfx942", "compiled")]


@pytest.mark.slow
def test_nvcc_sees_the_original_ptx(ported):
    """The CUDA build keeps its PTX: nvcc's preprocessed kernels unit still holds the laneid asm."""
    nvcc = _tool("nvcc")
    if nvcc is None:
        pytest.skip(NEEDS["nvcc"])
    r = subprocess.run([nvcc, "-E", "-std=c++17", "src/kernels.cu"],
                       cwd=ported["repo"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "mov.u32 %0, %%laneid;" in r.stdout
    assert "__lane_id()" not in r.stdout


def test_version_and_runtime_guard_tests_get_their_rocm_values(tmp_path):
    """`#ifdef __CUDA_RUNTIME_H__` / `#if CUDART_VERSION >= N` with no #else would drop code on ROCm (DEV010): the
    compat header defines them for the ROCm build, and the second run finds nothing to do."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\nint v() {\n  int r = 0;\n#ifdef __CUDA_RUNTIME_H__\n  r = 1;\n#endif\n"
           "#if CUDART_VERSION >= 9000\n  r += 2;\n#endif\n  return r;\n}\n")
    repo = make_repo(tmp_path / "r", {"ver.cu": src})
    r = porter_here("port", str(repo), "--apply", "--summary", str(tmp_path / "s.json"))
    assert r.returncode == 0, r.stderr
    header = lines((repo / "porter_hip_compat.h").read_bytes())
    assert header[header.index("#define CUDART_VERSION 11000") + 1] == "#define __CUDA_RUNTIME_H__ 1"
    changes = json.loads((tmp_path / "s.json").read_text())["changes"]
    assert sorted(c["finding"] for c in changes if c["kind"] == "macro") == ["DEV010 ver.cu:4", "DEV010 ver.cu:7"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    again = porter_here("port", str(repo))
    assert (again.returncode, again.stdout) == (0, "")


def test_runtime_guarded_helpers_survive_on_amd(tmp_path):
    """cuda-samples' helper_cuda.h defines checkCudaErrors under `#ifdef __DRIVER_TYPES_H__` and its runtime helpers
    under `#ifdef __CUDA_RUNTIME_H__`, the include guards of headers the port keeps for nvcc only (bench feedback
    04:08, 4 of 20 cuda-samples units): the compat header defines both for the ROCm build (DEV010's findings name
    them), so hipcc sees the helpers. fixtures/port-guards holds the pattern."""
    repo = tmp_path / "guards"
    shutil.copytree(REPO / "fixtures" / "port-guards", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "cuda")
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = lines((repo / "porter_hip_compat.h").read_bytes())
    assert [l for l in header if l.startswith("#define __")] == ["#define __CUDA_RUNTIME_H__ 1",
                                                                "#define __DRIVER_TYPES_H__ 1"]
    helper = lines((repo / "src" / "helper_check.h").read_bytes())
    assert helper[2] == '#include "../porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */'
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip(f"{NEEDS['hipcc']} (the port above was checked; the compile needs hipcc)")
    c = subprocess.run([hipcc, "--offload-arch=gfx90a", "-x", "hip", "-fsyntax-only", "main.cu"], cwd=repo / "src",
                       capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert (c.returncode, [l for l in c.stderr.splitlines() if "error" in l]) == (0, [])


def test_crlf_files_stay_crlf(tmp_path):
    """A file with Windows line ends gets the port's lines with Windows line ends too (and its PTX is still found)."""
    from tests.helpers import make_repo

    src = ('#include <cuda_runtime.h>\r\n__device__ unsigned lane() {\r\n  unsigned l;\r\n'
           '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));\r\n  return l;\r\n}\r\n')
    repo = make_repo(tmp_path / "r", {"lane.cu": src.encode()})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    out = (repo / "lane.cu").read_bytes()
    assert out.count(b"\r\n") == out.count(b"\n")
    assert b"  l = __lane_id();  /* porter port: plain HIP for PTX mov %laneid */\r\n#else\r\n" in out


@pytest.mark.slow
def test_verify_compiles_the_rocm_side_with_use_rocm(tmp_path):
    """A project's own `#ifdef USE_ROCM` compat (HeCBench attention-paged's cuda_compat.h) is the ROCm build's path:
    the ported build files define USE_ROCM (CMake add_compile_definitions, the Makefile's hipcc), and --verify compiles
    as they do, so the unit does not fall into the CUDA arm on AMD."""
    from porter.port import verify

    found, missing = verify.compilers(("gfx942",), nvcc=False)
    if not found:
        pytest.skip(f"no HIP compiler for gfx942: {missing}")
    (tmp_path / "compat.h").write_text("#pragma once\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#else\n"
                                       "#include <cuda_runtime.h>\n#endif\n")
    (tmp_path / "k.cu").write_text('#include "compat.h"\n__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n')
    results, _ = verify.verify_tree(tmp_path, ["k.cu"], [], archs=("gfx942",), nvcc=False)
    assert [(r.path, r.status) for r in results] == [("k.cu", "compiled")]


def test_a_cu_file_without_includes_gets_hips_runtime_on_amd(tmp_path):
    """nvcc includes cuda_runtime.h in every .cu file; HIP 5.2's hipcc includes nothing (cuda-samples'
    vectorAdd_kernel.cu: 'use of undeclared identifier blockDim'). The port adds HIP's runtime for a HIP compile
    only (not NVRTC's), once."""
    from tests.helpers import make_repo

    src = "// a kernel\nextern \"C\" __global__ void k(float* x) { x[threadIdx.x + blockIdx.x * blockDim.x] = 1.0f; }\n"
    repo = make_repo(tmp_path / "r", {"k.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert lines((repo / "k.cu").read_bytes())[:5] == [
        "// a kernel",
        "#if defined(__HIP__) && !defined(__HIP_PLATFORM_AMD__) && !defined(__HIPCC_RTC__)  /* porter port: nvcc's "
        "implicit runtime include */", "#include <hip/hip_runtime.h>", "#endif",
        'extern "C" __global__ void k(float* x) { x[threadIdx.x + blockIdx.x * blockDim.x] = 1.0f; }']
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    again = porter_here("port", str(repo))
    assert (again.returncode, again.stdout) == (0, "")
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip(NEEDS["hipcc"])
    c = subprocess.run([hipcc, "--offload-arch=gfx90a", "-x", "hip", "-fsyntax-only", "k.cu"], cwd=repo,
                       capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert [l for l in c.stderr.splitlines() if "error" in l] == []


def test_kernel_pointer_calls_get_a_casting_template(tmp_path):
    """cudaFuncSetAttribute(kernel, ...) is a template in CUDA; HIP 5's hipFuncSetAttribute takes const void*, to
    which a function pointer does not convert (causal-conv1d's port added the cast by hand): the compat header maps
    the name to a template that casts."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\n__global__ void k(float* x) { extern __shared__ float s[]; x[0] = s[0]; }\n"
           "void setup() {\n  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);\n}\n")
    repo = make_repo(tmp_path / "r", {"k.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = lines((repo / "porter_hip_compat.h").read_bytes())
    assert "#define cudaFuncSetAttribute porter_cudaFuncSetAttribute" in header
    assert "inline hipError_t porter_cudaFuncSetAttribute(T* f, hipFuncAttribute a, int v) {" in header
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip(NEEDS["hipcc"])
    c = subprocess.run([hipcc, "--offload-arch=gfx90a", "-x", "hip", "-fsyntax-only", "k.cu"], cwd=repo,
                       capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert [l for l in c.stderr.splitlines() if "error" in l] == []


def test_cuda_device_functions_hip_lacks_get_translates_shims(tmp_path):
    """umin and atomicInc_system exist in CUDA, not in HIP 5.2 (cuda-samples' bitonic.cu, systemWideAtomics.cu; API002
    names both, atomicInc_system from its `add` list): the compat header defines them for the ROCm build from the
    same shims translate uses (rules/kb/fixups.yaml)."""
    from tests.helpers import make_repo

    src = ("#include <cuda_runtime.h>\n__global__ void k(unsigned* x, unsigned a, unsigned b) {\n"
           "  x[0] = umin(a, b);\n  atomicInc_system(x, 4u);\n}\n")
    repo = make_repo(tmp_path / "r", {"k.cu": src})
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    header = lines((repo / "porter_hip_compat.h").read_bytes())
    assert "#define umin porter_umin" in header and "#define atomicInc_system porter_atomicInc_system" in header
    assert "__device__ inline unsigned int porter_atomicInc_system(unsigned int* address, unsigned int val) {" in header
    assert "__host__ __device__ inline unsigned int porter_umin(unsigned int a, unsigned int b) " \
           "{ return a < b ? a : b; }" in header
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "port")
    assert porter_here("port", str(repo)).stdout == ""
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip(NEEDS["hipcc"])
    c = subprocess.run([hipcc, "--offload-arch=gfx90a", "-x", "hip", "-fsyntax-only", "k.cu"], cwd=repo,
                       capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert [l for l in c.stderr.splitlines() if "error" in l] == []


def test_summary_on_stdout_still_writes_the_patch_to_its_file(tmp_path):
    repo = fixture_repo(tmp_path)
    alone = porter_here("port", str(repo), "-o", str(tmp_path / "alone.patch"))
    both = porter_here("port", str(repo), "--summary", "-", "-o", str(tmp_path / "both.patch"))
    assert (alone.returncode, both.returncode) == (0, 0), both.stderr
    assert (tmp_path / "both.patch").read_bytes() == (tmp_path / "alone.patch").read_bytes() != b""
    assert json.loads(both.stdout)["root"] == str(repo)


def _clock_tree(root: Path) -> None:
    """A unit that finds its header only through a Makefile's -I../common, and a header line CUDA 13's nvcc rejects
    in the original code (cudaDeviceProp::clockRate went in CUDA 13)."""
    (root / "common").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "common" / "lc.h").write_text(
        "#pragma once\n#include <cuda_runtime.h>\n"
        "inline int clock_khz(const cudaDeviceProp &p) { return p.clockRate; }\n")
    (root / "app" / "k.cu").write_text('#include "lc.h"\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n')


def test_an_nvcc_error_at_a_line_the_port_did_not_write_is_the_projects_own():
    """`porter port --verify` called nvcc's rejection of the unported code (CUDA 13 and clockRate) a porter defect
    (session-26 new user); nvcc's own `file(57): error:` is read for its place too."""
    from porter.port import verify
    from porter.port.model import FilePatch, PortPlan

    plan = PortPlan("/r", "porter_hip_compat.h", (FilePatch("common/lc.h", b"a\nb\nc\n", b"a\nB\nc\nd\n"),
                                                   FilePatch("porter_hip_compat.h", None, b"x\ny\n")), (), ())
    written = verify.written_lines(plan)
    assert written == {"common/lc.h": frozenset({2, 4}), "porter_hip_compat.h": frozenset({1, 2})}
    out = '/r/common/lc.h(3): error: class "cudaDeviceProp" has no member "clockRate"\n1 error detected\n'
    assert verify._first_error(out) == (out.splitlines()[0], "/r/common/lc.h", 3)
    assert verify.attribute(out.splitlines()[0], "/r/common/lc.h", 3, Path("/r"), [], "nvcc", written) == (
        "environment", "common/lc.h:3 is the project's own line, which the port did not change: this nvcc rejects "
        "the original code as well")
    assert verify.attribute(out.splitlines()[0], "/r/common/lc.h", 2, Path("/r"), [], "nvcc", written)[0] == "defect"


@pytest.mark.slow
def test_port_verify_finds_headers_a_makefile_puts_on_the_include_path(tmp_path):
    """0 of 6 units compiled, every one "porter defect" (`lc.h` not found): the Makefile's -I../common is read by no
    build description porter understands; verify gives every unit the tree's header directories, as translate
    --verify does."""
    from porter.port import verify

    found, missing = verify.compilers(("gfx942",), nvcc=False)
    if not found:
        pytest.skip(f"no HIP compiler for gfx942: {missing}")
    _clock_tree(tmp_path)
    paths = ["app/k.cu", "common/lc.h"]
    results, _ = verify.verify_tree(tmp_path, ["app/k.cu"], [], archs=("gfx942",), nvcc=False, paths=paths)
    assert [(r.path, r.status) for r in results] == [("app/k.cu", "failed")]  # HIP has no cudaDeviceProp: found
    assert "lc.h' file not found" not in (results[0].error or "")
    bare, _ = verify.verify_tree(tmp_path, ["app/k.cu"], [], archs=("gfx942",), nvcc=False)
    assert "'lc.h' file not found" in (bare[0].error or "")
