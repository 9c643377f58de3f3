"""Second judge's blind guard verdicts for heldout31. The keys come from sample_guards_second.py: every one of the 25
sides of the first judge's guards.jsonl (24 C/C++, 1 Python). Only the keys were read; `real`/`reason` were dropped
as each row was read. Each side is judged real or not real, as heldout25/30's make_guards_second.py:
- real: port work the ROCm arm replaces, i.e. the ROCm build needs equivalent code at that CUDA side (CUDA
  includes/types/APIs, CUDA build definitions, nvcc-only flags that must not reach hipcc);
- not real: no CUDA code at the lines (a throw, #error or raise), the non-ROCm arm of a ROCm-only check, or a
  CUDA-only path the ROCm build does not need (it takes another route that works).
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout31/sample_guards_second.py bench/judged/heldout31/guards.jsonl > bench/judged/heldout31/guard_keys_second.jsonl
    python bench/judged/heldout31/make_guards_second.py bench/judged/heldout31/guard_keys_second.jsonl > bench/judged/heldout31/guards_second.jsonl
"""
import json
import sys

OPM = "OPM/opm-simulators"
L = "opm/simulators/linalg/"


def inc(what, hip):
    return (True, f"the CUDA arm includes {what}; the USE_HIP arm includes the hipified gpuistl_hip/ twin{hip} "
                  "that CMake generates (CONVERT_CUDA_TO_HIP), so the side is CUDA code the ROCm arm replaces")


def throw(fn):
    return (False, f"`OPM_THROW(std::logic_error, \"Error {fn} for rocsparse only supported when compiling with "
                   "hipcc\")`, the #else of `#ifdef __HIP__` in a hand-kept HIP file (gpubridge/rocm): the non-HIP arm "
                   "of a HIP-only check, a throw with no CUDA code")


V = {
    (OPM, L + "FlexibleSolver_impl.hpp", 63): inc("gpuistl/SolverAdapter.hpp (inside #if HAVE_CUDA)", ""),
    (OPM, L + "ISTLSolverRuntimeOptionProxy.hpp", 32): inc("gpuistl/ISTLSolverGPUISTL.hpp (#elif HAVE_CUDA)", ""),
    (OPM, L + "PreconditionerFactoryGPUIncludeWrapper.hpp", 35): inc(
        "the nine gpuistl/ preconditioner headers (GpuBlockPreconditioner, GpuDILU, GpuPressureTransferPolicy, "
        "OpmGpuILU0, GpuJac, GpuSeqILU0, PreconditionerAdapter, PreconditionerConvertFieldTypeAdapter, "
        "gpu_safe_call)", "s, header for header"),
    (OPM, L + "StandardPreconditioners_gpu_mpi.hpp", 36): inc(
        "the six gpuistl/ preconditioner headers (GpuDILU, GpuSeqILU0, GpuJac, OpmGpuILU0, GpuBlockPreconditioner, "
        "gpu_preconditioner_utils)", "s, header for header"),
    (OPM, L + "StandardPreconditioners_gpu_serial.hpp", 23): inc("gpuistl/detail/gpu_preconditioner_utils.hpp", ""),
    (OPM, L + "StandardPreconditioners_mpi.hpp", 28): inc(
        "gpuistl/PreconditionerCPUMatrixToGPUMatrix.hpp (inside #if HAVE_CUDA)", ""),
    (OPM, L + "StandardPreconditioners_serial.hpp", 28): inc(
        "gpuistl/PreconditionerCPUMatrixToGPUMatrix.hpp (inside #if HAVE_CUDA)", ""),
    (OPM, L + "getQuasiImpesWeights.hpp", 40): inc("gpuistl/detail/cpr_amg_operations.hpp (inside #if HAVE_CUDA)",
                                                    ""),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 324): throw("vmul"),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 352): throw("full_to_pressure_restriction"),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 380): throw("add_coarse_pressure_correction"),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 410): throw("prolongate_vector"),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 448): throw("residual"),
    (OPM, L + "gpubridge/rocm/hipKernels.cpp", 481): throw("spmv"),
    (OPM, L + "gpubridge/rocm/rocsparseWellContributions.cpp", 156): (False,
        "`OPM_THROW(std::logic_error, \"Error separate wellcontributions for rocsparse only supported when compiling "
        "with hipcc\")`, the #else of `#ifdef __HIP__` around the stdwell_apply launch in a hand-kept HIP file: the "
        "non-HIP arm of a HIP-only check, a throw with no CUDA code"),
    (OPM, L + "gpuistl/GpuSparseMatrixGeneric.cpp", 104): (False,
        "`cusparseCreateBsr(...)` under `#if !USE_HIP && CUDA_VERSION >= 12030`: the cuSPARSE generic-API BSR "
        "descriptor for blocked matrices (CUDA 12.3+). The HIP arm throws 'BSR format not supported for HIP', and "
        "the ROCm build does not need it: GpuSparseMatrixWrapper.hpp:73 makes HIP use the legacy GpuSparseMatrix "
        "for every matrix, so the generic blocked path is a CUDA-version feature the ROCm build routes around "
        "(hipSPARSE could supply one, but nothing in the ROCm build needs it to work)"),
    (OPM, L + "gpuistl/GpuSparseMatrixWrapper.hpp", 76): (False,
        "`using matrix_type = std::conditional_t<ForceLegacy, GpuSparseMatrix<T>, GpuSparseMatrixGeneric<T>>` in "
        "the #else of `#if USE_HIP || (!USE_HIP && CUDA_VERSION < 13000)`: a CUDA 13 choice of the generic cuSPARSE "
        "API; the HIP arm's legacy GpuSparseMatrix is a complete working path, so the side is a CUDA-version knob, "
        "not CUDA code the ROCm build must replace (no CUDA API at the lines)"),
    (OPM, L + "gpuistl/ISTLSolverGPUISTL.hpp", 33): inc(
        "gpuistl/GpuSparseMatrixWrapper.hpp, GpuVector.hpp and PinnedMemoryHolder.hpp", "s, header for header"),
    (OPM, L + "gpuistl/hypreinterface/HypreGpuTransfers.hpp", 31): inc(
        "gpuistl/GpuSparseMatrixWrapper.hpp and GpuVector.hpp (inside #if HAVE_CUDA)", "s"),
    (OPM, L + "gpuistl/hypreinterface/HypreSetup.hpp", 36): inc(
        "gpuistl/GpuSparseMatrixWrapper.hpp (inside #if HAVE_CUDA)", ""),
    (OPM, L + "is_gpu_operator.hpp", 27): inc("gpuistl/GpuVector.hpp (inside #if HAVE_CUDA)", ""),
    # ---- ac4k
    ("ac4k/ac4k_kernel", "setup.py", 275): (False,
        "`raise RuntimeError(f\"Unknown backend: {backend}\")`, the final else after the cuda and rocm arms of "
        "get_extensions (an unknown AC4K_BACKEND value): no CUDA build code at the line"),
    # ---- dsc
    ("nirw4nna/dsc", "dsc/include/dsc_dtype.h", 43): (True,
        "`using bf16 = __nv_bfloat16;` under `__NVCC__ && DSC_BF16`: the CUDA bfloat16 type; the `__HIPCC__ && "
        "DSC_BF16` arm supplies `__hip_bfloat16`"),
    ("nirw4nna/dsc", "dsc/include/dsc_dtype.h", 45): (False,
        "`using bf16 = u16;`, the final #else taken by host compilers (and builds without DSC_BF16) in both the "
        "CUDA and the HIP build: a plain storage type, no CUDA code"),
    ("nirw4nna/dsc", "dsc/include/gpu/dsc_gpu.h", 20): (True,
        "`#include \"platform/dsc_cuda_platform.h\"` under DSC_CUDA (cublas_v2.h, curand_kernel.h, cudaError/cuBLAS "
        "check macros); the DSC_HIP arm includes platform/dsc_hip_platform.h"),
}

out = []
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    real, reason = V[(k["project"], k["path"], k["first"])]
    out.append(dict(k, real=real, reason=reason))
assert len(out) == len(V) == 25, (len(out), len(V))
for r in out:
    print(json.dumps(r, sort_keys=True))
