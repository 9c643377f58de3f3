"""Second judge's blind guard verdicts for heldout15: the 30 keys drawn by sample_guards_second.py, each judged real
(port work at that CUDA side, which the ROCm arm or a HIP port replaces: CUDA API, CUDA libraries, CUDA types, the
StarPU CUDA codelet fields) or not (ROCm/host arms the guard pattern reads as CUDA sides, project-only code with no
CUDA API). Written before the first judge's verdicts were opened.

    git show s18-h15:bench/judged/heldout15/guards.jsonl > /tmp/guards_first.jsonl
    python bench/judged/heldout15/sample_guards_second.py /tmp/guards_first.jsonl > /tmp/keys.jsonl
    python bench/judged/heldout15/make_guards_second.py /tmp/keys.jsonl > bench/judged/heldout15/guards_second.jsonl
"""
import json
import sys

V = {
    ("src/QMCWaveFunctions/detail/CUDA/matrix_update_helper.cu", 17): (True,
        "`#include <cuComplex.h>` in the #ifndef QMC_CUDA2HIP arm; the ROCm arm includes hip/hip_complex.h and ROCm/cuda2hip.h instead"),
    ("src/QMCWaveFunctions/detail/CUDA/delayed_update_helper.h", 19): (True,
        "`#include <cuda_runtime_api.h>` in the #ifndef QMC_CUDA2HIP arm; the ROCm arm includes hip/hip_runtime.h and the cuda2hip rename header"),
    ("src/QMCWaveFunctions/detail/CUDA/matrix_update_helper.hpp", 18): (True,
        "`#include <cuda_runtime_api.h>` in the #ifndef QMC_CUDA2HIP arm, replaced by hip/hip_runtime.h + ROCm/cuda2hip.h on ROCm"),
    ("src/ksp/pc/impls/pbjacobi/pbjacobi.c", 280): (False,
        "PetscBool isCuda set by PetscObjectTypeCompareAny against MATSEQAIJCUSPARSE/MATMPIAIJCUSPARSE type names: project-only "
        "dispatch code with no CUDA API; a HIP build skips it and takes the Kokkos (or host) arm, there is no HIP pbjacobi to map it to"),
    ("src/ksp/pc/impls/pbjacobi/pbjacobi.c", 291): (False,
        "`if (isCuda) PCSetUp_PBJacobi_CUDA(pc, diagPB); else` - a call to the project's own CUDA setup, no CUDA API in the side; "
        "HIP builds use the Kokkos/host arms"),
    ("src/ksp/pc/impls/pbjacobi/pbjacobi.h", 16): (False,
        "prototype of the project's PCSetUp_PBJacobi_CUDA under HAVE_CUDA: a declaration, no CUDA API"),
    ("include/petscdevice_hip.h", 29): (False,
        "#else of PETSC_PKG_HIP_VERSION_GE(6, 0, 0): `#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX` for ROCm 5.2-5.x, a ROCm arm, not CUDA"),
    ("include/petscdevice_hip.h", 45): (False,
        "#else of `#if defined(__HIP_PLATFORM_NVCC__)`: the AMD arm including hipsolver/hipsolver.h (by HIP version), ROCm code, not CUDA"),
    ("src/mat/impls/aij/seq/seqhipsparse/hipsparsematimpl.h", 14): (False,
        "#else of PETSC_PKG_HIP_VERSION_GE(5, 2, 0): `#include <hipsparse.h>` for old ROCm layouts, a ROCm arm, not CUDA"),
    ("starpufft/src/starpufft-double.h", 25): (True,
        "`#include <cufft.h>` under STARPU_USE_CUDA: cuFFT header (hipFFT on ROCm)"),
    ("starpufft/src/starpufft-double.h", 37): (True,
        "cuDoubleComplex/cufftDoubleComplex typedefs, cufftExecZ2Z/D2Z/Z2D and CUFFT_* aliases and cuCmul: CUDA/cuFFT types and calls"),
    ("examples/spmv/dw_block_spmv_kernels.c", 27): (True,
        "`#include <starpu_cublas_v2.h>` (StarPU's cuBLAS v2 wrapper) and the alpha/beta constants for the cuBLAS call"),
    ("examples/spmv/dw_block_spmv_kernels.c", 50): (True,
        "case 1: cublasSgemv on starpu_cublas_get_local_handle() with CUBLAS_STATUS_SUCCESS check: cuBLAS (hipBLAS on ROCm)"),
    ("examples/reductions/dot_product.c", 66): (True,
        "can_execute: `const struct cudaDeviceProp *props = starpu_cuda_get_device_properties(...)` and a compute-capability test: CUDA device properties"),
    ("examples/reductions/dot_product.c", 94): (True,
        "init_cuda_func: cudaMemsetAsync on starpu_cuda_get_local_stream(): CUDA runtime call"),
    ("examples/reductions/dot_product.c", 158): (False,
        "`extern void redux_cuda_func(...)` prototype of the project's CUDA codelet: a declaration, no CUDA API"),
    ("src/drivers/cuda/driver_cuda.c", 2519): (True,
        "starpu_cublas_report_error / starpu_cuda_report_error / starpu_cusolver_report_error: CUBLAS_STATUS_*, cudaGetErrorString, "
        "CUSOLVER_STATUS_*; the HIP driver has its own hip/hipblas reporters"),
    ("src/drivers/hip/driver_hip.c", 1001): (False,
        "#else of STARPU_HAVE_HIP_MEMCPY_PEER inside the HIP driver: an abort message in HIP code, not CUDA"),
    ("src/drivers/cuda/driver_cuda1.c", 55): (True,
        "`#include <starpu_cublas_v2.h>` and `<starpu_cusolver.h>`: StarPU's cuBLAS/cuSOLVER wrappers for the CUDA driver"),
    ("src/drivers/cuda/driver_cuda0.c", 50): (True,
        "`#include <starpu_cublas_v2.h>` and `<starpu_cusolver.h>`: cuBLAS/cuSOLVER wrapper headers of the CUDA driver"),
    ("starpufft/src/starpufftx.c", 483): (True,
        "STARPUFFT(report_error) on cufftResult with CUFFT_* codes and CUDART_VERSION tests: cuFFT API"),
    ("examples/stencil/implicit-stencil-kernels.c", 457): (True,
        "load_subblock_into_buffer_cuda: cudaMemcpyAsync(..., cudaMemcpyDeviceToDevice, starpu_cuda_get_local_stream()): CUDA runtime"),
    ("examples/stencil/implicit-stencil-kernels.c", 540): (False,
        "dummy_func_top_cuda / dummy_func_bottom_cuda: unpack args, count per worker and call the project's "
        "load_subblock_into_buffer_cuda helper; no CUDA API in the side itself"),
    ("examples/stencil/stencil-kernels.c", 605): (True,
        "`.cuda_funcs = {dummy_func_bottom_cuda}, .cuda_flags = {STARPU_CUDA_ASYNC}` codelet fields: a HIP port registers "
        ".hip_funcs / STARPU_HIP_ASYNC instead"),
    ("examples/spmv/spmv.c", 70): (True,
        "`.cuda_funcs = {spmv_kernel_cuda}, .cuda_flags = {STARPU_CUDA_ASYNC}`: StarPU CUDA codelet registration, .hip_funcs on ROCm"),
    ("examples/basic_examples/multiformat.c", 94): (True,
        "cuda_cl codelet with `.cuda_funcs = { multiformat_scal_cuda_func }`: StarPU CUDA codelet, .hip_funcs on ROCm"),
    ("examples/basic_examples/multiformat.c", 238): (False,
        "`if (ncuda > 0) expected_value *= ...` in check_it: host-side result bookkeeping on a worker count, no CUDA API"),
    ("fastvideo-kernel/attn_qat_infer/quantization/cuda_utils.h", 14): (False,
        "#else of `#if defined(__HIPCC__) / #elif defined(__CUDACC__)`: the plain-`inline` host-compiler arm, not CUDA code"),
    ("fastvideo/utils.py", 74): (True,
        "`so_file = \"libnccl.so.2\"` under `if torch.version.cuda is not None`; the `elif torch.version.hip` arm loads librccl.so.1"),
    ("src/ops/layer_norm.cpp", 70): (True,
        "`return __shfl_down_sync(mask, value, delta, width)` with an unsigned 32-bit mask under `#ifndef __HIP_PLATFORM_HCC__` "
        "in the HIP twin: hipcc no longer defines __HIP_PLATFORM_HCC__ (ROCm 6.0), so the HIP build compiles this line and "
        "HIP's 64-bit-mask static_assert rejects it; the __shfl_down arm is what ROCm needs"),
}

keys = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(keys) == 30
for k in keys:
    real, reason = V[(k["path"], k["first"])]
    row = dict(k)
    row["real"] = real
    row["reason"] = reason
    print(json.dumps(row, sort_keys=True))
