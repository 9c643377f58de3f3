"""bench/port's cuda-samples attribution: what counts as a missing system library (excluded from the rate) and what
as a toolchain or HIP 5.2 gap (judged, tagged), on the exact errors the session-12 run met."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench" / "port"))
_spec = importlib.util.spec_from_file_location("cuda_samples", REPO / "bench" / "port" / "cuda_samples.py")
CS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CS)


@pytest.mark.parametrize("header, library", [
    ("omp.h", "OpenMP (clang's omp.h: libomp-dev is not installed): omp.h"),
    ("hiprand_kernel.h", "a ROCm math library Debian does not package: hiprand_kernel.h"),
    ("thrust/device_ptr.h", "a ROCm math library Debian does not package: thrust/device_ptr.h"),
    ("EGL/egl.h", "OpenGL/GLUT/EGL (system GL libraries): EGL/egl.h"),
    ("cudaEGL.h", None),  # the CUDA toolkit's EGL interop header: HIP has none, the samples' finding predicts it
    ("hip/hip_gl_interop.h", None),  # HIP's own header (ROCm 6.0): a HIP 5.2 gap, not a system library
])
def test_only_libraries_the_machine_lacks_are_system_libraries(header, library):
    assert CS.system_library(header) == library


@pytest.mark.parametrize("error, gap", [
    ("main.cpp:58:10: fatal error: 'hip/hip_gl_interop.h' file not found",
     "hip/hip_gl_interop.h (ROCm 6.0: ROCm/clr 3a8e0dd1c)"),
    ("interval.cu:101:37: error: use of undeclared identifier 'hipLimitStackSize'",
     "hipLimitStackSize (HIP 5.3.0, HIPIFY's table)"),
    ("fatal error: error in backend: requested image instruction is not supported on this GPU",
     "gfx90a image sampling (clang 15's backend; clang 19/22 emit image_sample)"),
    ("simpleIPC.cu:245:19: error: no member named 'unifiedAddressing' in 'hipDeviceProp_t'",
     "hipDeviceProp_t member (HIP 6.0's hipDeviceProp_tR0600)"),
    ("/usr/include/hip/amd_detail/amd_hip_fp16.h:1520:21: error: use of undeclared identifier '__llvm_amdgcn_rcp_f16'",
     "HIP 5.2's headers under clang 22 (a builtin clang 22 dropped)"),
    ("x.cu:3:5: error: use of undeclared identifier 'hipMalloc'", None),  # HIP 5.2 has it: no gap
    ("simpleAttributes.cu:110:5: error: unknown type name 'cudaStreamAttrValue'", None),  # no HIP name at all
    ("FunctionPointers_kernels.cu:183:13: error: 'tex2D<unsigned char, nullptr>' is unavailable: The image/texture "
     "API not supported on the device", None),  # gfx942: no image instructions, not a gap
])
def test_gaps_are_tagged_from_the_error(error, gap):
    assert CS.hip_gap(error) == gap
