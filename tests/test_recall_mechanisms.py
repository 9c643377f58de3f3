"""Exact-line tests for the recall mechanisms of session 14 (issue 27 class 8 and the heldout8 misses): the HIP
reachability of an #if arm (porter.source.preprocessor.hip_reaches), DEV037's redefinitions where HIP compiles
them, DEV038's 32-bit mask parameters, LIB014's CamelCase header names; API012's token-pasted names (session 18)."""
from __future__ import annotations

from pathlib import Path

import pytest

from porter.pipeline import scan
from porter.settings import Settings
from porter.source import preprocessor


def _lines(tree: Path, rule: str) -> list[tuple[str, int]]:
    result = scan(tree, Settings(jobs=1, cache_dir=None))
    return sorted((f.path, f.line) for f in result.findings if f.rule == rule)


@pytest.mark.parametrize("src, line, want", [
    (b"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600\n#else\nX\n#endif\n", 3, False),
    (b"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600\nX\n#else\nY\n#endif\n", 2, True),
    (b"#if __CUDA_ARCH__ < 600\nX\n#endif\n", 2, True),
    (b"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600\nX\n#endif\n", 2, False),
    (b"#ifdef __CUDA_ARCH__\nX\n#else\nY\n#endif\n", 4, True),
    (b"#ifndef __HIP_PLATFORM_AMD__\nX\n#endif\n", 2, False),
    (b"#if defined(USE_FOO)\nX\n#elif defined(__HIP_PLATFORM_AMD__)\nY\n#else\nZ\n#endif\n", 6, False),
    (b"#if defined(USE_FOO)\nX\n#else\nY\n#endif\nZ\n", 6, True),
])
def test_hip_reaches_reads_cuda_arch_undefined(src, line, want):
    assert preprocessor.hip_reaches(preprocessor.directives(src), line) is want


@pytest.mark.parametrize("release, want", [("7.2", False), ("4.3", True), (None, True)])
def test_hip_reaches_reads_hip_version_of_the_release(release, want):
    # CuPy's atomics.cuh: "Skip if ROCm 4.5+ as it implements the following atomic functions."
    src = b"#if !defined(__HIPCC__) || HIP_VERSION < 40400000\nX\n#endif\n"
    assert preprocessor.hip_reaches(preprocessor.directives(src), 2, release) is want


def test_dev037_reports_only_definitions_hip_compiles(tmp_path):
    (tmp_path / "a.cu").write_text(
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600\n"
        "static __inline__ __device__ double atomicAdd(double* a, double v) { return v; }\n"
        "#endif\n"
        "__device__ double atomicMax(double* a, double v)\n"
        "{ return v; }\n"
        "__device__ float atomicCAS(float* a, float c, float v) { return v; }\n"
        "#if !defined(__HIPCC__) || HIP_VERSION < 40400000\n"
        "__device__ float atomicMax(float* a, float v) { return v; }\n"
        "#endif\n")
    assert _lines(tmp_path, "DEV037") == [("a.cu", 4), ("a.cu", 6)]


def test_dev038_leaves_a_mask_type_chosen_per_build(tmp_path):
    # MAGMA's real header: the typedef is 64 bits in the HIP arm and 32 in the CUDA one, so the type was chosen.
    (tmp_path / "shuffle.cuh").write_text(
        "#ifdef MAGMA_HAVE_HIP\ntypedef unsigned long long shfl_mask_t;\n#else\ntypedef unsigned shfl_mask_t;\n#endif\n"
        "__device__ float f(float v, shfl_mask_t mask) { return __shfl_sync(mask, v, 0); }\n"
        "__device__ float g(float v, unsigned mask) {\n  return __shfl_sync(mask, v, 0);\n}\n")
    assert _lines(tmp_path, "DEV038") == [("shuffle.cuh", 8)]


def test_dev038_follows_the_parameter_not_a_later_local(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__device__ float f(float v, unsigned m) {\n"
        "  { unsigned long long m2 = ~0ull; v += __shfl_sync(m2, v, 1); }\n"
        "  return __ballot_sync(m, v > 0);\n"
        "}\n"
        "__device__ float g(float v) { return __shfl_sync(m, v, 0); }\n")
    assert _lines(tmp_path, "DEV038") == [("k.cu", 3)]


def test_lib014_splits_camel_case(tmp_path):
    (tmp_path / "dense").mkdir()
    (tmp_path / "dense" / "CUDAWrapper.hpp").write_text("#pragma once\n")
    (tmp_path / "dense" / "BarracudaWrapper.hpp").write_text("#pragma once\n")
    (tmp_path / "dense" / "MAGMAWrapper.cpp").write_text(
        '#include "MAGMAWrapper.hpp"\n#include "dense/CUDAWrapper.hpp"\n#include "BarracudaWrapper.hpp"\n')
    (tmp_path / "dense" / "MAGMAWrapper.hpp").write_text("#pragma once\n")
    assert _lines(tmp_path, "LIB014") == [("dense/MAGMAWrapper.cpp", 2)]


def test_api012_reads_the_paste_and_hip_aliases_from_real_headers(tmp_path):
    # Session 18: a prefix macro pastes `cudaPointerAttributes`; HIP's type is hipPointerAttribute_t, and no HIP
    # header declares `hipPointerAttributes`, so the ROCm twin's paste does not compile. `ErrorMemoryAllocation`
    # pastes to a name HIP keeps as an alias of hipErrorOutOfMemory, and `Stream_t` to HIP's own name.
    src = ("#define GPU_PREFIX(val) cuda##val\n"                                     # 1
           "using StreamType = GPU_PREFIX(Stream_t);\n"                              # 2
           "constexpr int kOom = GPU_PREFIX(ErrorMemoryAllocation);\n"               # 3
           "using PointerAttributes = GPU_PREFIX( PointerAttributes );\n"            # 4
           "// using Props = GPU_PREFIX(DeviceProp);\n"                               # 5 a comment
           "#define OTHER(val) cuda##val##_v2\n"                                     # 6 not a plain prefix paste
           "using Props = OTHER(DeviceProp);\n")                                     # 7
    (tmp_path / "gpu_runtime_api.hpp").write_text(src)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, f.message) for f in result.findings if f.rule == "API012"]
    assert got == [(4, "`GPU_PREFIX(...)` pastes cudaPointerAttributes here; HIP's name is hipPointerAttribute_t, and "
                       "HIP's headers (checked up to 5.2) do not declare the ROCm twin's paste hipPointerAttributes: "
                       "spell this name per vendor.")]


def test_hip_pasted_table_dates_match_the_local_headers():
    from porter.kb import hip_pastes

    pastes = hip_pastes()
    assert (pastes["cudaPointerAttributes"].pasted, pastes["cudaPointerAttributes"].first_hip) == (
        "hipPointerAttributes", "")
    assert (pastes["cudaErrorMemoryAllocation"].pasted, pastes["cudaErrorMemoryAllocation"].first_hip) == (
        "hipErrorMemoryAllocation", "5.2")
    assert "cudaStream_t" not in pastes  # HIP's name is the paste: nothing to record
    local = Path("/usr/include/hip/hip_version.h")
    if not local.exists():
        pytest.skip("needs Debian's HIP headers (libamdhip64-dev) in /usr/include/hip")
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "scripts" / "build_hip_names.py"
    spec = importlib.util.spec_from_file_location("build_hip_names", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    version, toks = mod.local_headers()
    assert [p.pasted for p in pastes.values() if (p.first_hip == version) != (p.pasted.encode() in toks)] == []
