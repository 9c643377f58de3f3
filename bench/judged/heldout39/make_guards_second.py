"""Second judge's blind guard verdicts for heldout39. The keys come from sample_guards_second.py: every one of the 22
sides of the first judge's guards.jsonl (10 C/C++, 12 Python). Only the keys were read; `real`/`reason` were dropped
as each row was read. Each side is judged real or not real, as heldout30's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA build definitions, nvcc-only flags that must not reach hipcc, the CUDA
  branch of a backend report whose ROCm branch reports the HIP side);
- not real: no CUDA code at the lines (an #error, a raise, a CPU/other-backend fallback, a label string), ROCm code
  read as a CUDA side, the non-ROCm arm of a ROCm-only check, or a CUDA-only feature the project gates off on ROCm
  with nothing for the ROCm path to replace.
The verdicts were written before the first judge's verdicts were opened, from the trees in /tmp/j39.

    python bench/judged/heldout39/sample_guards_second.py bench/judged/heldout39/guards.jsonl > bench/judged/heldout39/guard_keys_second.jsonl
    python bench/judged/heldout39/make_guards_second.py bench/judged/heldout39/guard_keys_second.jsonl > bench/judged/heldout39/guards_second.jsonl
"""
import json
import sys

V = {
    # ---- Dual-Compatibility-LOB
    ("Flawxd/Dual-Compatibility-LOB", "src/gpu_compat.h", 20): (True,
        "`#include <cuda_runtime.h>` in the #else of `#ifdef USE_HIP`; the USE_HIP arm includes hip/hip_runtime.h"),
    ("Flawxd/Dual-Compatibility-LOB", "src/gpu_compat.h", 41): (True,
        "the non-HIP arm of the gpu* name map (gpuError_t = cudaError_t, gpuMalloc = cudaMalloc, gpuMemcpy, "
        "gpuDeviceProp = cudaDeviceProp ...); the USE_HIP arm supplies the hip* twins the hipcc build uses"),
    # ---- SimpleTuner
    ("bghira/SimpleTuner", "simpletuner/helpers/training/quantisation/quanto_workarounds.py", 87): (False,
        "imports optimum-quanto's TinyGemmPackedTensor/TinyGemmWeightQBitsTensor under `torch.cuda.is_available() and "
        "torch.version.cuda`: quanto only builds tinygemm weights on a CUDA torch, so on ROCm these stay None and the "
        "isinstance workarounds that use them never match; a CUDA-only feature the project gates off on ROCm, with "
        "nothing for the ROCm path to replace"),
    ("bghira/SimpleTuner", "simpletuner/helpers/training/quantisation/quanto_workarounds.py", 97): (False,
        "under `torch.device('cuda').type == 'cuda' and torch.version.cuda`: imports quanto's CUDA extension and wraps "
        "torch.ops.quanto.gemm_f16f8_marlin to cast the activation dtype. Marlin fp8 is an NVIDIA-only quanto kernel "
        "that quanto does not use on ROCm, so this dtype patch has no ROCm counterpart to supply; the port work, if "
        "any, is in quanto, not here"),
    ("bghira/SimpleTuner", "simpletuner/simpletuner_sdk/server/services/system_status_service.py", 370): (False,
        "inside _get_rocm_gpu_utilisation: `if not rocm_smi:` then a search of /opt/rocm/bin/rocm-smi and "
        "/usr/bin/rocm-smi. The negated test is on the rocm-smi path, not a ROCm-vs-CUDA choice; the side is ROCm "
        "code, not CUDA"),
    ("bghira/SimpleTuner", "simpletuner/simpletuner_sdk/server/services/system_status_service.py", 375): (False,
        "`return None` when no rocm-smi binary is found, in the ROCm utilisation reader; no CUDA code"),
    # ---- pgs_solver
    ("flferretti/pgs_solver", "src/gpu_compat.h", 50): (True,
        "the CUDA arm (#else of PGS_USE_ROCM): cuda_runtime.h and cusparse.h includes and the CUDA/cuSPARSE backend "
        "names; the ROCm arm includes hip_runtime.h and rocsparse.h and maps the cuda*/cusparse* names"),
    # ---- QGEMM
    ("machinelv/QGEMM", "include/blas.h", 25): (True,
        "`cublasCreate(&handle)` under USE_CUDA in blas_init; the USE_HIP arm calls rocblas_create_handle"),
    ("machinelv/QGEMM", "include/blas.h", 39): (True,
        "`cublasDestroy(handle)` under USE_CUDA in blas_destroy; the USE_HIP arm calls rocblas_destroy_handle"),
    ("machinelv/QGEMM", "include/blas.h", 4): (True,
        "USE_CUDA includes cublas_v2.h, cuda_runtime.h, cutlass/cutlass.h and blas_handle_t = cublasHandle_t; the "
        "USE_HIP arm includes rocblas and uses rocblas_handle"),
    ("machinelv/QGEMM", "include/gemm.h", 10): (True,
        "the USE_CUDA-only declarations of the project's GEMM API: cutlass_gemm_test and cublas_gemm_test (CUTLASS/"
        "cuBLAS references) and GEMM_kernel_v1..v5, implemented only by the sm80/sm89 mma.sync/wmma/cp.async sources. "
        "There is no USE_HIP arm: a HIP build that includes gemm.h (tests/gemm_benchmark.cpp) gets none of them, so "
        "the ROCm side is missing (rocBLAS reference, MFMA GEMMs)"),
    ("machinelv/QGEMM", "include/gpu_lib.h", 2): (True,
        "the USE_CUDA arm: cuda_runtime/mma/cuda_fp16/fp8/bf16 includes, `namespace wmma = nvcuda::wmma`, the "
        "ldmatrix/mma.sync/cp.async/movmatrix PTX macros and LIB_CALL on cudaError_t; the #else arm supplies "
        "hip_runtime, hip_fp8/fp16, rocwmma and a hipError_t LIB_CALL (not the PTX macros)"),
    ("machinelv/QGEMM", "include/gpu_type.h", 3): (True,
        "USE_CUDA: cuda_fp16/cuda_fp8 includes, __FP8_TYPE = __nv_fp8_e4m3, __BF16_TYPE = __nv_bfloat16 and "
        "WARP_SIZE = 32; the #else arm supplies __hip_fp8_e4m3(_fnuz), __hip_bfloat16 and WAVE_SIZE 64/32"),
    ("machinelv/QGEMM", "tests/gemm_benchmark.cpp", 144): (False,
        "`print_results(\"cuBLAS\", config, vendor_time)` under USE_CUDA; the USE_HIP arm prints \"rocBLAS\". A "
        "label string, no CUDA code (the cuBLAS call itself is elsewhere in the file)"),
    # ---- sdnext
    ("vladmandic/sdnext", "installer.py", 720): (False,
        "in install_rocm_zluda's Windows ROCm arm: the else of `isinstance(rocm.environment, "
        "rocm.PythonPackageEnvironment)` checks python 3.12 and picks the ROCm 6.4.4 Windows torch wheels; ROCm "
        "code, not CUDA"),
    ("vladmandic/sdnext", "installer.py", 748): (False,
        "the final else of the Linux rocm.version chain in install_rocm_zluda: torch 2.4.1+rocm6.0 and warnings below "
        "ROCm 6.0; ROCm code, not CUDA"),
    ("vladmandic/sdnext", "installer.py", 865): (False,
        "`name = ''` in the final else of get_cuda_arch's cuda/rocm naming; no CUDA code"),
    ("vladmandic/sdnext", "installer.py", 904): (False,
        "`from modules import rocm` and the ROCm availability test under `if not is_cuda_available and not "
        "is_ipex_available and allow_rocm`: the ROCm detection path, not CUDA code"),
    ("vladmandic/sdnext", "installer.py", 922): (False,
        "the final else of check_torch's backend choice: macOS, DirectML or CPU-only torch; no CUDA code"),
    ("vladmandic/sdnext", "installer.py", 997): (True,
        "`torch_info.set(type='cuda', cuda=torch.version.cuda, cudnn=...)` under `elif torch.version.cuda and "
        "allow_cuda`: the CUDA branch of the backend report, twin of the `torch.version.hip` branch that sets "
        "type='rocm', hip=torch.version.hip (as heldout21/23's backend probes)"),
    ("vladmandic/sdnext", "modules/sdnq/kernel_wrappers.py", 18): (False,
        "`is_fp8_mm_supported = False` in the final else of the cuda/rocm backend chain: the fallback for other "
        "backends, no CUDA code"),
    ("vladmandic/sdnext", "modules/sdnq/kernel_wrappers.py", 34): (False,
        "`is_rdna2_and_older = False` in the else of `if devices.backend == \"rocm\"`: the non-ROCm arm of a "
        "ROCm-only check, no CUDA code"),
}

keys = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
seen = set()
for k in keys:
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]  # a key without a verdict is an error
    seen.add(key)
    print(json.dumps({**k, "real": real, "reason": reason}, sort_keys=True))
assert seen == set(V) and len(keys) == 22, set(V) - seen
