"""Second judge's blind guard verdicts for heldout25. The keys come from sample_guards_second.py (seed 3253): 30 of
the 63 C/C++ keys of the first judge's guards.jsonl plus its one Python key, 31 in all. Only the keys were read;
`real`/`reason` were dropped as each row was read. Each side is judged real or not real:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing;
- not real: no CUDA code at the lines, the non-ROCm arm of a ROCm-only check, or CUDA-only knobs or fallbacks AMD
  has no use for.
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout25/sample_guards_second.py bench/judged/heldout25/guards.jsonl > bench/judged/heldout25/guard_keys_second.jsonl
    python bench/judged/heldout25/make_guards_second.py bench/judged/heldout25/guard_keys_second.jsonl > bench/judged/heldout25/guards_second.jsonl
"""
import json
import sys

V = {
    # ---- CompFUSE/DCA
    ("include/dca/linalg/util/complex_operators_cuda.cu.hpp", 29): (True,
        "the `#ifdef DCA_HAVE_CUDA` body: assign() overloads and +,-,*,/ operators for cuComplex/cuDoubleComplex "
        "that the GPU kernels use. The HIP build gets the same operators from magma_operators.h and the assign() "
        "overloads in dca_gpu_complex.h (its DCA_HAVE_HIP arm), as the file's header comment says"),
    ("include/dca/linalg/util/error_cublas.hpp", 19): (True,
        "DCA_HAVE_CUDA includes of cublas_v2.h and error_cuda.hpp for the cuBLAS status checks; the DCA_HAVE_HIP "
        "arm includes hipblas.h, hip_complex.h, cuda2hip.h and error_hip.hpp"),
    ("include/dca/linalg/util/gpuBLAS_handles.hpp", 21): (True,
        "DCA_HAVE_CUDA `#include <cublas_v2.h>` for the handle RAII wrapper; the HIP arm includes "
        "hipblas/hipblas.h and cuda2hip.h"),
    ("include/dca/platform/dca_gpu.h", 25): (True,
        "DCA_HAVE_CUDA includes of cuda.h, cuda_runtime.h and error_cuda.hpp plus HIP_SYMBOL(x) x; the "
        "DCA_HAVE_HIP arm includes hip_runtime.h, cuda2hip.h and error_hip.hpp, which every GPU translation unit "
        "needs"),
    ("include/dca/platform/dca_gpu_blas.h", 19): (True,
        "DCA_HAVE_CUDA includes of cublas_v2.h and error_cuda.hpp; the HIP arm includes hipblas, hip_complex, "
        "cuda2hip and error_hip"),
    ("include/dca/platform/gpu_definitions.h", 24): (True,
        "DCA_HAVE_CUDA definitions of __HOST__/__DEVICE__/__CONSTANT__ (device qualifiers under __CUDACC__, empty "
        "for the host compiler); the DCA_HAVE_HIP arm defines the same three keyed on __HIP_PLATFORM_AMD__, which "
        "cluster_helper.cu's __CONSTANT__ globals need"),
    ("src/linalg/lapack/multiply_diagonal_gpu.cu", 21): (True,
        "`#include complex_operators_cuda.cu.hpp` under DCA_HAVE_CUDA, for the complex products in "
        "multiplyDiagonalLeft/Right; the HIP build gets its operators from dca_gpu_complex.h (magma_operators.h), "
        "which the file includes unconditionally"),
    ("src/linalg/util/info_gpu.cpp", 15): (True,
        "DCA_HAVE_CUDA `#include error_cuda.hpp`; the HIP arm includes error_hip.hpp and cuda2hip.h, which "
        "printInfoDevices' cuda* calls need on ROCm"),
    ("src/linalg/util/info_gpu.cpp", 80): (False,
        "an extra `Async engine count` line in a device-info printout, under DCA_HAVE_CUDA only; a diagnostic "
        "field the ROCm build runs correctly without"),
    # ---- nlesc-recruit/ccglib
    ("include/ccglib/bf16.h", 15): (True,
        "the CUDA arm's `#include <cuda_bf16.h>` and `using bf16 = __nv_bfloat16`; the __HIP__ arm includes "
        "hip_bf16.h and aliases bf16 to __hip_bfloat16 (hip_bfloat16 on older ROCm), which the bf16 GEMM needs"),
    ("include/ccglib/fp16.h", 4): (True,
        "`#include <cuda_fp16.h>`; the __HIP__ arm includes hip/hip_fp16.h for `half`"),
    ("include/ccglib/gemm/mma.h", 52): (True,
        "the CUDA GEMM constructor (CUdevice&, CUstream&) and Run(CUdeviceptr...); the __HIP__ arm declares "
        "the same API with hipDevice_t/hipStream_t/hipDeviceptr_t"),
    ("include/ccglib/packing/packing.h", 9): (True,
        "`#include <cuda.h>` for the CUdevice/CUstream types in the packing API; the __HIP__ arm includes "
        "hip_runtime.h"),
    ("include/ccglib/pipeline/pipeline.h", 55): (True,
        "the CUDA Pipeline constructor and Run(CUdeviceptr...); the __HIP__ arm has hip-typed twins"),
    ("kernels/gemm_kernel_float.cu", 10): (True,
        "the NVIDIA arm's async_copies.h, cuda/pipeline, mma.h and `using namespace nvcuda`; the "
        "__HIP_PLATFORM_AMD__ arm includes rocwmma as `wmma` and sync_copies.h, which the kernel needs"),
    ("kernels/gemm_kernel_float.cu", 252): (True,
        "the cuda::pipeline producer loop (copy_async of NBUFFER k-tiles of A and B) and consumer_wait; the AMD "
        "arm above replaces it with copy_sync<int4> of the current tile into a single shared buffer"),
    ("kernels/gemm_kernel_float.cu", 342): (False,
        "pipe.consumer_release() closes the CUDA async pipeline stage. The AMD arm uses synchronous copies and "
        "needs nothing here (the __syncthreads that follows orders the next copy); the work this pipeline needs "
        "on ROCm is judged at 252-268"),
    ("kernels/matrix_operations.h", 9): (True,
        "the NVIDIA arm's cuda/pipeline, mma.h and nvcuda includes; the AMD arm includes rocwmma as `wmma`, which "
        "store_matrix/store_matrix_padded's fragments need"),
    ("kernels/type_selector.h", 9): (True,
        "the NVIDIA arm's cuda/pipeline, mma.h and nvcuda includes; the AMD arm includes limits.h and rocwmma as "
        "`wmma` for Accumulator_t"),
    ("kernels/type_selector.h", 168): (True,
        "`using Ttc = wmma::precision::tf32` for float32 input on sm_80+; the __HIP_PLATFORM_AMD__ arm sets "
        "Ttc = float, the fragment type rocWMMA needs for f32 GEMM"),
    ("kernels/type_selector.h", 170): (False,
        "`using Ttc = void` for float32 on NVIDIA before sm_80 (no tf32); the ROCm build takes the "
        "__HIP_PLATFORM_AMD__ arm and needs nothing from this pre-Ampere fallback"),
    ("kernels/type_selector.h", 202): (True,
        "`using Ttc = wmma::precision::tf32` for float32 -> float16 on sm_80+; the AMD arm sets Ttc = float"),
    ("kernels/type_selector.h", 204): (False,
        "`using Ttc = void`, the pre-sm_80 NVIDIA fallback for float32 -> float16; the ROCm build takes its own arm"),
    ("src/mma/KernelBfloat16.cpp", 28): (True,
        "`.nbuffer = 4`, the NVIDIA async multi-buffer depth; the __HIP_PLATFORM_AMD__ arm sets nbuffer = 1 to "
        "match its single-buffer synchronous copies (a per-backend constant each build defines in its own arm)"),
    ("src/mma/KernelFloat16.cpp", 28): (True,
        "`.nbuffer = 4` for NVIDIA; the AMD arm sets 1 for its synchronous single-buffer copies"),
    ("src/mma/KernelFloat32.cpp", 25): (True,
        "`.nbuffer = 4` for NVIDIA; the AMD arm sets 1 for its synchronous single-buffer copies"),
    ("src/packing/Packing.cpp", 86): (True,
        "NVRTC `-arch=<sm_XX>` option for the runtime-compiled packing kernel; the __HIP__ arm passes "
        "`--offload-arch=<gfx>` to hipRTC"),
    ("src/transpose/Transpose.cpp", 83): (True,
        "NVRTC `-arch=` option for the transpose kernel; the __HIP__ arm passes `--offload-arch=`"),
    # ---- c3sr/comm_scope
    ("src/libc/memcpy.cpp", 8): (False,
        "the libc_memcpy_NUMAToNUMA benchmark (std::memcpy between NUMA nodes) under `#if !defined(__HIPCC__)`, "
        "with the note `crashes rocm/5.7.0`. It is host-only libc code with no CUDA in it; the hipcc build "
        "dropping it is a compiler-crash workaround, not CUDA code needing a ROCm equivalent"),
    # ---- CIRA-Pulsars-and-Transients-Group/vcsbeam
    ("src/gpu_macros.h", 16): (True,
        "the __NVCC__ arm's `#include <cuda_runtime.h>` and gpuError_t/gpuSuccess/gpuGetErrorString; the HIP arm "
        "includes hip_runtime.h and maps them to hipError_t/hipSuccess/hipGetErrorString"),
    # ---- rahul-goel/fused-ssim (Python)
    ("setup.py", 34): (True,
        "the else of `if torch.version.hip` in configure_cuda: NVIDIA nvcc flags (--maxrregcount=32, "
        "--use_fast_math) and arch targeting from CUDA_ARCHITECTURES, get_device_capability (-arch=sm_XY) or "
        "fallback -gencode sm_75/80/89. The ROCm arm substitutes -ffast-math and leaves the gfx targets to torch's "
        "hipcc/PYTORCH_ROCM_ARCH. The nvcc-only flags must not reach hipcc"),
}

used = set()
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    key = (k["path"], k["first"])
    real, reason = V[key]
    used.add(key)
    print(json.dumps(dict(k, real=real, reason=reason), sort_keys=True))
assert used == set(V), set(V) - used
