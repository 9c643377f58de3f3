"""Second judge's blind guard verdicts for heldout43. The keys come from sample_guards_second.py: every one of the 20
sides of the first judge's guards.jsonl (all C/C++: HiOp 9, PIAFS 9, GX 2). Only the keys were read; `real`/`reason`
were dropped as each row was read. Each side is judged real or not real, as heldout39's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA back-end declarations the HIP arm twins, CUDA build definitions);
- not real: no CUDA-specific code at the lines (an #error, a raise, a fallback, a label string), ROCm code read as a
  CUDA side, the non-ROCm arm of a ROCm-only check, a CUDA-only feature the project gates off on ROCm with nothing
  for the ROCm path to replace, or a CUDA arm whose text the ROCm arm repeats verbatim (nothing at the lines is
  CUDA-only, so nothing is left to port).
The verdicts were written before the first judge's verdicts were opened, from the trees in /tmp/j43.

    python bench/judged/heldout43/sample_guards_second.py bench/judged/heldout43/guards.jsonl > bench/judged/heldout43/guard_keys_second.jsonl
    python bench/judged/heldout43/make_guards_second.py bench/judged/heldout43/guard_keys_second.jsonl > bench/judged/heldout43/guards_second.jsonl
"""
import json
import sys

PIAFS_SAME = ("the GPU_CUDA arm and the `#elif defined(GPU_HIP)` arm are the same text (PIAFS compiles one source "
              "with nvcc or hipcc); nothing at the lines is CUDA-only, so there is nothing for a ROCm arm to replace")
GPU_KERNEL = ("`#define GPU_KERNEL __global__` under `#ifdef GPU_CUDA`; the GPU_HIP arm defines the same macro the same "
              "way (`__global__` is HIP spelling too) and the #else makes it empty for the CPU build; ")
V = {
    # ---- HiOp
    ("LLNL/hiop", "src/ExecBackends/ExecPoliciesRajaCudaImpl.hpp", 65): (True,
        "`#if defined(HIOP_USE_RAJA) && defined(HIOP_USE_CUDA)`: cuda.h and the RAJA CUDA policies (cuda_exec<128>, "
        "cuda_reduce, cuda_atomic, cuda_block/thread_x_loop, CudaKernel) for ExecPolicyRajaCuda; "
        "ExecPoliciesRajaHipImpl.hpp is the hand-kept HIP twin (hip_exec ...) the ROCm build uses"),
    ("LLNL/hiop", "src/ExecBackends/ExecSpace.hpp", 185): (True,
        "MemBackendCuda (the CUDA device memory back end type) under HIOP_USE_CUDA; the HIOP_USE_HIP arm right after "
        "declares its twin MemBackendHip"),
    ("LLNL/hiop", "src/ExecBackends/ExecSpace.hpp", 248): (True,
        "ExecPolicyCuda with its CUDA launch tuning (bl_sz_binary_search 16, bl_sz_vector_loop 256) under "
        "HIOP_USE_CUDA; the HIOP_USE_HIP arm declares ExecPolicyHip (num_blocks_vector/search)"),
    ("LLNL/hiop", "src/ExecBackends/ExecSpace.hpp", 278): (True,
        "the empty ExecPolicyRajaCuda tag under HIOP_USE_CUDA, which selects the RAJA CUDA policies; the HIOP_USE_HIP "
        "arm declares ExecPolicyRajaHip. A CUDA back-end declaration the HIP arm twins (as MemBackendCuda)"),
    ("LLNL/hiop", "src/ExecBackends/MemBackendUmpireImpl.hpp", 190): (True,
        "TransferImpl specialisations between MemBackendCuda and Umpire under HIOP_USE_CUDA: cudaMemcpy with "
        "cudaMemcpyDeviceToDevice/HostToDevice/DeviceToHost; the HIOP_USE_HIP block after it does the same with "
        "hipMemcpy"),
    ("LLNL/hiop", "src/LinAlg/hiopLinSolverCholCuSparse.cpp", 59): (True,
        "the whole cuSOLVER/cuSPARSE sparse Cholesky solver (cuda_runtime.h, cusparse.h, cusolverSp.h, "
        "cusolverSp_LOWLEVEL_PREVIEW.h, csrchol calls) under HIOP_USE_CUDA with no HIP arm: the GPU solver of the "
        "condensed sparse KKT system; a ROCm build has no counterpart, so the ROCm side is missing (hipSOLVER/"
        "rocSPARSE), as heldout39's gemm.h"),
    ("LLNL/hiop", "src/LinAlg/hiopLinSolverCholCuSparse.hpp", 61): (True,
        "the class declaration of the cuSPARSE Cholesky solver (cuda_runtime.h, cusparse.h, cusolverSp.h includes, "
        "cusparse/cusolver handles and descriptors) under HIOP_USE_CUDA, no HIP arm: the ROCm side is missing"),
    ("LLNL/hiop", "src/LinAlg/hiopMatrixSparseCsrCuda.cpp", 58): (True,
        "the CUDA CSR sparse matrix (cuSPARSE SpGEMM/geam, cudaMemcpy, the MatrixSparseCsrCudaKernels launches) under "
        "HIOP_USE_CUDA with no HIP twin: the GPU CSR matrix the condensed sparse path needs; the ROCm side is "
        "missing"),
    ("LLNL/hiop", "src/LinAlg/hiopMatrixSparseCsrCuda.hpp", 62): (True,
        "the hiopMatrixSparseCSRCUDA declaration (cuda_runtime.h, cusparse.h, cusparseHandle_t and cuSPARSE "
        "descriptors) under HIOP_USE_CUDA, no HIP arm: the ROCm side is missing"),
    # ---- PIAFS
    ("llnl/piafs", "src/PhysicalModels/Chemistry/gpu_chemistry.cu", 10): (False,
        "`#define GPU_KERNEL __global__` / `#define GPU_DEVICE __device__` under `#ifdef GPU_CUDA`; the GPU_HIP arm "
        "defines both identically; " + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/NavierStokes2DInitialize.c", 18): (False,
        "the GPU_CUDA arm includes the project's own GPU headers (gpu_runtime.h, gpu_flux_function.h, "
        "gpu_source_function.h, gpu_parabolic_function.h, gpu_upwind_function.h, gpu_cfl.h); " + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/NavierStokes2DInitialize.c", 177): (False,
        "picks GPUNavierStokes2DComputeCFL when GPUShouldUse() under GPU_CUDA; " + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/NavierStokes2DInitialize.c", 192): (False,
        "sets the GPU flux, parabolic, source and upwind function pointers when GPUShouldUse() under GPU_CUDA; " +
        PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/gpu_cfl.cu", 10): (False, GPU_KERNEL + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/gpu_flux.cu", 10): (False, GPU_KERNEL + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/gpu_parabolic.cu", 10): (False, GPU_KERNEL + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/gpu_source.cu", 8): (False, GPU_KERNEL + PIAFS_SAME),
    ("llnl/piafs", "src/PhysicalModels/NavierStokes2D/gpu_upwind.cu", 10): (False, GPU_KERNEL + PIAFS_SAME),
    # ---- GX
    ("stellfoundry/gx-ai", "include/gpu_defs.h", 7): (True,
        "the `#elif defined(__CUDACC__)` arm: cuComplex.h, cublas_v2.h, cuda_runtime.h, cusolverDn.h, cufft(Xt).h, "
        "nccl.h, cutensor.h, cub, GPU_SYMBOL and WARPSIZE 32; the __HIPCC__ arm supplies gpu_defs_hip.h (hip*/hipfft/"
        "hipsolver/rccl/hiptensor/hipcub and the cu* -> hip* name map) and WARPSIZE 64"),
    ("stellfoundry/gx-ai", "include/gpu_defs.h", 21): (False,
        "`#error message(\"UNKNOWN GPU ARCHITECTURE\")` in the final #else: no CUDA code"),
}

keys = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
seen = set()
for k in keys:
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]  # a key without a verdict is an error
    seen.add(key)
    print(json.dumps({**k, "real": real, "reason": reason}, sort_keys=True))
assert seen == set(V) and len(keys) == 20, set(V) - seen
