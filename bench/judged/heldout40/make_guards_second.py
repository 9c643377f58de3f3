"""Second judge's blind guard verdicts for heldout40 (session 29, branch s29-j40). The keys come from
sample_guards_second.py: every one of the 21 sides of the first judge's guards.jsonl (all C/C++). Only the keys were
read (guard_keys_second.jsonl, regenerated with sample_guards_second.py and identical to the committed file);
`real`/`reason` were dropped as each row was read. Each side is judged real or not real, as heldout30/39's
make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs/intrinsics, CUDA build definitions such as a warp width, CUDA-only code that
  must not reach hipcc);
- not real: no CUDA code at the lines (a test tolerance, a label, a CPU or other-backend fallback such as a Vulkan
  stub, backend-selection flags), ROCm code read as a CUDA side, or portable code the ROCm arm merely respells.
The verdicts were written before the first judge's verdicts were opened, from the trees in /tmp/j40.

    python bench/judged/heldout40/sample_guards_second.py bench/judged/heldout40/guards.jsonl > bench/judged/heldout40/guard_keys_second.jsonl
    python bench/judged/heldout40/make_guards_second.py bench/judged/heldout40/guard_keys_second.jsonl > bench/judged/heldout40/guards_second.jsonl
"""
import json
import sys

TOL = ("a unit-test tolerance (WODEN's cmake_testing GPU-or-C tests): the #else of `#ifdef __HIPCC__` inside "
       "`#ifdef DOUBLE_PRECISION` sets the tighter tolerance for nvcc/CPU builds, the __HIPCC__ arm a looser one "
       "because 'AMD doesn't seem as accurate'; a number, no CUDA code, nothing a ROCm arm replaces")
W = "JLBLine/WODEN"
S = "cmake_testing/GPU_or_C_code/source_components/"
I = "PaCER-BLINK-Project/imager"
C = "cjolivier01/hm-cupano"
V = {
    # ---- WODEN
    (W, S + "calc_autos_common.c", 55): (False, "`double TOL = 1e-12;` " + TOL),
    (W, S + "calc_autos_multiants_common.c", 16): (False, "`double TOL = 1e-12;` " + TOL),
    (W, S + "calc_measurement_equation_common.c", 126): (False, "`double TOL = 1e-15;` " + TOL),
    (W, S + "calc_visi_common.c", 578): (False, "`frac_tol = 1e-12; abs_tol = 1e-11;` (POINT) " + TOL),
    (W, S + "calc_visi_common.c", 592): (False, "`frac_tol = 1e-11; abs_tol = 1e-11;` (GAUSSIAN) " + TOL),
    (W, S + "calc_visi_common.c", 606): (False, "`frac_tol = 1e-11; abs_tol = 1e-11;` (SHAPELET) " + TOL),
    (W, "include/gpu_macros.h", 31): (True,
        "the `#ifdef __NVCC__` arm: gpuError_t/gpuSuccess/gpuGetErrorString = cudaError_t/cudaSuccess/"
        "cudaGetErrorString and `#include <cuda_runtime.h>`; the #else arm includes hip/hip_runtime.h and maps "
        "the hip* names"),
    (W, "include/gpu_macros.h", 89): (True,
        "the `#ifdef __NVCC__` arm of the runtime map: cudaCheckErrors, <cuComplex.h>, gpuMalloc/gpuMemcpy/"
        "gpuStream*/gpuDeviceProp -> cuda*, gpuCreal/gpuCmul/... -> cuCreal/cuCmul; the #else arm supplies the "
        "hip* and hipC* twins the USE_HIP build uses"),
    # ---- imager
    (I, "apps/pacer_imager_main.cpp", 29): (False,
        "the #else of `#ifdef IMAGER_HIP`: <fftw3.h>, pacer_imager.h and gridding.hpp for the CPU imager; "
        "IMAGER_HIP selects the GPU imager class, so the other arm is the CPU/FFTW path, not CUDA code"),
    (I, "apps/pacer_imager_main.cpp", 512): (False,
        "the #else of `#ifdef IMAGER_HIP` in main: a debug printf and the CPU CPacerImager constructor; the CPU "
        "fallback, no CUDA code"),
    (I, "src/gpu/gpu_utils.cpp", 12): (True,
        "`#define WARPSIZE 32` under `#ifdef __NVCC__`, the warp width vector_sum_kernel sizes its shared partial "
        "sums with; the #else arm sets 64 for hipcc (right for wave64, wrong for wave32 gfx1250); a CUDA build "
        "definition the ROCm arm replaces"),
    (I, "src/gpu/gpu_utils.cpp", 38): (True,
        "`__syncwarp();` under `#ifdef __NVCC__` in vector_sum_kernel's first shuffle reduction: a CUDA warp-sync "
        "intrinsic that must not reach hipcc (not available there without the warp-sync builtins); the HIP path "
        "relies on __shfl_down's wavefront-wide execution instead"),
    (I, "src/gpu/gpu_utils.cpp", 53): (True,
        "`__syncwarp();` under `#ifdef __NVCC__` in vector_sum_kernel's second-stage reduction; as line 38"),
    (I, "src/gpu/gpu_utils.cpp", 114): (False,
        "the #else of `#ifdef __HIPCC__` in fft_shift_and_norm_y: the same FFT-shift swap with the division by "
        "fnorm written per component (tmp.x /= ..., tmp.y /= ...); plain arithmetic on a float2 that hipcc "
        "compiles unchanged, while the __HIPCC__ arm only respells it with HIP's vector operator/; no CUDA API, "
        "nothing the ROCm build needs replaced"),
    # ---- hm-cupano
    (C, "src/gpu/gpu_gl_interop.h", 23): (False,
        "the `#elif GPU_BACKEND_VULKAN` arm: constexpr flags and inline stubs named like the CUDA GL-interop API "
        "that all return cudaErrorNotSupported for the Vulkan CPU-shim backend; another backend's fallback, no CUDA "
        "code"),
    (C, "src/gpu/gpu_gl_interop.h", 58): (True,
        "the CUDA arm: `#include <cuda_gl_interop.h>`; the GPU_BACKEND_HIP arm includes hip/hip_gl_interop.h and "
        "maps the cudaGraphics*/cudaArray_t names to hip*"),
    (C, "src/gpu/gpu_runtime.h", 12): (False,
        "the `#elif defined(USE_VULKAN)` arm of the backend detection: GPU_BACKEND_HIP 0 / VULKAN 1 / CUDA 0; "
        "Vulkan backend selection, no CUDA code"),
    (C, "src/gpu/gpu_runtime.h", 16): (False,
        "the final #else of the backend detection: GPU_BACKEND_HIP 0 / VULKAN 0 / CUDA 1, three flag macros; the "
        "HIP arm selects itself by its own condition (USE_HIP, __HIP_PLATFORM_AMD__ or hip_runtime.h without "
        "cuda_fp16.h), and the CUDA includes/types sit in the later arm at 103-120; nothing here to replace"),
    (C, "src/gpu/gpu_runtime.h", 93): (False,
        "the `#elif GPU_BACKEND_VULKAN` arm: the vulkan_runtime_shim.h include, GPU_HAS_BF16 0 and a launch macro "
        "that calls the function on the CPU; another backend, no CUDA code"),
    (C, "src/gpu/gpu_runtime.h", 103): (True,
        "the GPU_BACKEND_CUDA arm: cuda_fp16.h, cuda_runtime.h, cuda_runtime_api.h, cuda_bf16.h with "
        "gpu_bfloat16 = __nv_bfloat16, and GPU_LAUNCH_KERNEL as <<<>>>; the HIP arm includes hip_fp16/"
        "hip_runtime/hip_bfloat16, maps the cuda* names and launches with hipLaunchKernelGGL"),
    # ---- Jacquard
    ("gpu-eda/Jacquard", "csrc/kernel_v1_impl.cuh", 11): (True,
        "`#include <cooperative_groups.h>` in the #else of `#if defined(__HIP_PLATFORM_AMD__)`, whose arm "
        "includes hip/hip_runtime.h and hip/hip_cooperative_groups.h for the grid sync"),
}

keys = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
seen = set()
for k in keys:
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]  # a key without a verdict is an error
    seen.add(key)
    print(json.dumps({**k, "real": real, "reason": reason}, sort_keys=True))
assert seen == set(V) and len(keys) == 21, set(V) - seen
