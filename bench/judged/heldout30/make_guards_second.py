"""Second judge's blind guard verdicts for heldout30. The keys come from sample_guards_second.py: every one of the 12
sides of the first judge's guards.jsonl (6 C/C++, 6 Python). Only the keys were read; `real`/`reason` were dropped
as each row was read. Each side is judged real or not real, as heldout25's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA build definitions, nvcc-only flags that must not reach hipcc);
- not real: no CUDA code at the lines (an #error or a raise for a missing/unknown backend), the non-ROCm arm of a
  ROCm-only check, or CUDA-only knobs AMD has no use for.
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout30/sample_guards_second.py bench/judged/heldout30/guards.jsonl > bench/judged/heldout30/guard_keys_second.jsonl
    python bench/judged/heldout30/make_guards_second.py bench/judged/heldout30/guard_keys_second.jsonl > bench/judged/heldout30/guards_second.jsonl
"""
import json
import sys

V = {
    # ---- Splatt3R-SLAM
    ("Looong01/Splatt3R-SLAM", "setup.py", 131): (False,
        "`raise AssertionError(f\"Unhandled backend: {backend}\")`, the final else of the cuda/rocm/cpu backend "
        "chain; _detect_gpu_backend already validates the name, and the line holds no CUDA build code"),
    ("Looong01/Splatt3R-SLAM", "splatt3r_core/src/mast3r_src/dust3r/croco/models/curope/kernels.cu", 14): (True,
        "the CUDA arm's cuda.h/cuda_runtime.h includes and gpuError_t = cudaError_t, cudaSuccess, "
        "cudaGetLastError/cudaGetErrorString aliases; the USE_ROCM/__HIP_PLATFORM_AMD__ arm supplies the hip_runtime "
        "include and the hip* aliases that CHECK_KERNEL uses"),
    ("Looong01/Splatt3R-SLAM", "splatt3r_slam/backend/src/gn_kernels.cu", 10): (True,
        "`#include <cuda.h>` and `<cuda_runtime.h>`; the USE_ROCM arm includes hip/hip_runtime.h"),
    ("Looong01/Splatt3R-SLAM", "splatt3r_slam/backend/src/matching_kernels.cu", 6): (True,
        "cuda.h, cuda_runtime.h and cuda_fp16.h includes; the USE_ROCM arm includes hip_runtime.h and hip_fp16.h"),
    # ---- fastcann
    ("MAXNORM8650/fastcann", "setup.py", 134): (True,
        "`device_flags += [\"--use_fast_math\"]`, the non-ROCm arm of the is_rocm device-flag switch: an nvcc-only "
        "flag the project keeps away from hipcc, while the ROCm arm supplies its own device flags "
        "(--offload-arch per sanitized arch, -fno-gpu-rdc). Same pattern as heldout25's fused-ssim nvcc flags"),
    # ---- flashfast
    ("chanzhennan/flashfast", "setup.py", 236): (True,
        "`build_for_cuda()` in the non-HIP arm of `if IS_HIP_EXTENSION`: the CUDAExtension over attention.cu with "
        "nvcc flags and cutlass includes. The ROCm arm calls build_for_rocm (hipcc, CppExtension over hand-kept "
        ".hip sources, --offload-arch=gfx90a), though those .hip sources are missing from the repo"),
    ("chanzhennan/flashfast", "setup.py", 239): (True,
        "`build_for_cuda()` for BUILD_TARGET == \"cuda\"; the BUILD_TARGET == \"rocm\" arm calls build_for_rocm, "
        "the ROCm build definition"),
    # ---- kvcached
    ("ovg-project/kvcached", "csrc/inc/gpu_vmm.hpp", 125): (True,
        "the KVCACHED_USE_CUDA arm of gpu_vmm: CUresult/cudaError_t status types and wrappers over cuMemCreate, "
        "cuMemAddressReserve, cuMemMap, cuMemSetAccess, cuMemGetAllocationGranularity, cudaMemGetInfo etc.; the "
        "KVCACHED_USE_HIP arm supplies the hipMem* twins the ROCm build uses"),
    ("ovg-project/kvcached", "csrc/inc/gpu_vmm.hpp", 13): (True,
        "`#include <cuda.h>` and `<cuda_runtime.h>` under KVCACHED_USE_CUDA; the HIP arm includes "
        "hip/hip_runtime.h"),
    ("ovg-project/kvcached", "csrc/inc/gpu_vmm.hpp", 16): (False,
        "`#error \"kvcached requires one of KVCACHED_USE_HIP or KVCACHED_USE_CUDA.\"`, the fallback when neither "
        "backend is defined; no CUDA code"),
    ("ovg-project/kvcached", "setup.py", 58): (False,
        "`raise RuntimeError(\"Unable to determine GPU backend ...\")` when torch has neither hip nor cuda; no CUDA "
        "code"),
    ("ovg-project/kvcached", "setup.py", 92): (True,
        "the CUDA build: CUDAExtension linking libcuda for the cuMem* driver symbols, with nvcc args; the HIP arm "
        "supplies a CppExtension with -D__HIP_PLATFORM_AMD__ -DUSE_ROCM, linking amdhip64 (avoiding hipify)"),
}

used = set()
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]
    used.add(key)
    print(json.dumps(dict(k, real=real, reason=reason), sort_keys=True))
assert used == set(V), set(V) - used
