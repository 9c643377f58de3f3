"""Second judge's blind guard verdicts for heldout37 (helper j37). The keys come from sample_guards_second.py: every
one of the 62 sides of the first judge's guards.jsonl (61 C/C++, 1 Python). Only the keys were read; `real`/`reason`
were dropped as each row was read. Each side is judged real or not real, as heldout30's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs/libraries, CUDA launches with a HIP launch arm, CUDA build definitions, the
  vendor-selection arm whose ROCm twin is adjacent);
- not real: no CUDA code at the lines (SYCL or CPU arms, plain C, an error), the non-ROCm arm of a ROCm-only test
  such as the host branch of `#ifdef __HIP_DEVICE_COMPILE__` inside a HIP-only file, or code no CUDA build compiles.
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout37/sample_guards_second.py bench/judged/heldout37/guards.jsonl > bench/judged/heldout37/guard_keys_second.jsonl
    python bench/judged/heldout37/make_guards_second.py bench/judged/heldout37/guard_keys_second.jsonl > bench/judged/heldout37/guards_second.jsonl
"""
import json
import sys

R = "RMGDFT/rmgdft"
D = "dftfeDevelopers/dftfe"
L = "ludwig-cf/ludwig"
GF = ("the whole CUDA body of Gpufuncs/{f} under `#if CUDA_ENABLED` ({what}); the RMG_HIP_ENABLED build compiles the "
      "hand-kept twin Gpufuncs/{twin} instead")
HIPHOST = ("the host branch (`#else`) of `#ifdef __HIP_DEVICE_COMPILE__` in target/target_hip.c, Ludwig's hand-kept "
           "HIP layer that only hipcc compiles: {what}; HIP code, no CUDA code (the blanker reads the HIP device test "
           "as the CUDA side)")
LAUNCH = ("`{k}<<<..., DEVICE_BLOCK_SIZE>>>(...)` under `#ifdef DFTFE_WITH_DEVICE_LANG_CUDA`: the CUDA triple-chevron "
          "launch; the DFTFE_WITH_DEVICE_LANG_HIP arm launches the same kernel with hipLaunchKernelGGL")
V = {
    # ---- RMG
    (R, "Gpufuncs/GpuEleMul.cu", 26): (True, GF.format(
        f="GpuEleMul.cu", twin="GpuEleMul.hip.cpp",
        what="thrust and cuComplex.h includes, MulVec kernels on cuDoubleComplex/cuFloatComplex, cudaStream_t "
             "launchers")),
    (R, "Gpufuncs/GpuFill.cu", 26): (True, GF.format(
        f="GpuFill.cu", twin="GpuFill.hip.cpp", what="cuda.h, FillMatrix and its cudaDeviceSynchronize launcher")),
    (R, "Gpufuncs/GpuNegate.cu", 26): (True, GF.format(
        f="GpuNegate.cu", twin="GpuNegate.hip.cpp", what="thrust strided_range and the folded-spectrum negate")),
    (R, "Gpufuncs/GpuProductBr.cu", 35): (True, GF.format(
        f="GpuProductBr.cu", twin="GpuProductBr.hip.cpp", what="cuda.h and the 128-thread breduce kernels")),
    (R, "Gpufuncs/app8_del2_gpu.cu", 25): (True, GF.format(
        f="app8_del2_gpu.cu", twin="app8_del2_gpu.hip.cpp",
        what="cuda.h/cuda_runtime includes, cuComplex/thrust complex, the 8th-order Laplacian kernels")),
    (R, "Gpufuncs/gramsch_update_psi_gpu.cu", 25): (True, GF.format(
        f="gramsch_update_psi_gpu.cu", twin="gramsch_update_psi_gpu.hip.cpp",
        what="cuda.h/cublas_v2.h includes and the Gram-Schmidt update kernel with a cublasHandle_t")),
    (R, "Headers/ErrorFuncs.h", 6): (True,
        "cuda.h/cuda_runtime_api.h/cublas_v2.h includes and RmgGpuError overloads on cudaError_t/cublasStatus_t; the "
        "HIP_ENABLED arm below declares the hipError_t/hipblasStatus_t versions"),
    (R, "Headers/GpuAlloc.h", 81): (True,
        "the `#elif CUDA_ENABLED` arm: cuda includes, gpublas* -> cublas* and GPUBLAS_* -> CUBLAS_* name maps, "
        "gpuStream_t = cudaStream_t, cudaError_t gpu* wrapper declarations, Cuda_error/Cusolver_status macros; the "
        "HIP_ENABLED arm above supplies the hipblas/hipError_t versions"),
    (R, "Headers/GpuAlloc.h", 150): (False,
        "the `#elif SYCL_ENABLED` arm: int-returning gpu* declarations for the SYCL build, not CUDA code"),
    (R, "Headers/GpuAlloc.h", 172): (False,
        "the final `#else` (no GPU): `void gpuMalloc/gpuFree` declarations for the CPU build, not CUDA code"),
    (R, "Headers/Gpufuncs.h", 117): (True,
        "cublas_v2.h and the CUDA Gpufuncs prototypes taking cublasHandle_t/cudaStream_t (GpuEleMul, "
        "gramsch_update_psi, getGpuStream); the HIP_ENABLED block below declares the hipblas/hipStream_t versions"),
    (R, "Headers/gputranspose.h", 11): (True,
        "`#define gpuStream_t cudaStream_t` under CUDA_ENABLED; the HIP_ENABLED line above maps it to hipStream_t"),
    (R, "Misc/GpuAllocHost.cpp", 38): (True,
        "`#include <cuda.h>` and `<cuda_runtime_api.h>` under CUDA_ENABLED; the HIP_ENABLED block above includes "
        "hip/hip_runtime.h"),
    (R, "Misc/GpuStreams.cpp", 53): (True,
        "CUDA getGpuStream(): cudaSetDevice and cudaStreamCreateWithFlags(cudaStreamNonBlocking) per thread; the "
        "HIP_ENABLED block above defines the hipStream_t version"),
    (R, "Misc/RmgGemm.cpp", 20): (True,
        "cuda.h/cuda_runtime_api.h/cublas_v2.h includes; the HIP_ENABLED include at the top of the file is the ROCm "
        "counterpart"),
    (R, "Misc/RmgGemm.cpp", 88): (True,
        "the CUDA GEMM path: cublasOperation_t, cudaPointerGetAttributes/cudaMemoryTypeDevice tests of the "
        "operands and cuBLAS GEMM calls; the `#elif HIP_ENABLED` arm calls hipblas"),
    (R, "Misc/RmgGemmStridedBatched.cpp", 16): (True,
        "cuda.h/cuda_runtime_api.h/cublas_v2.h includes; the HIP build's hipblas path is in the HIP_ENABLED arm"),
    (R, "Misc/RmgGemmStridedBatched.cpp", 71): (True,
        "the CUDA strided-batched GEMM: cublas*gemmStridedBatched with cuBLAS operations and error checks; the "
        "`#elif HIP_ENABLED` arm calls hipblas*gemmStridedBatched"),
    (R, "Misc/RmgGpuError.cpp", 7): (True,
        "CUDA error handlers on cudaError_t and cublasStatus_t (cuda/cublas includes); the HIP_ENABLED "
        "arm defines the hipError_t/hipblas versions"),
    (R, "Misc/RmgGpuError.cpp", 135): (False,
        "the `#elif SYCL_ENABLED` arm: an empty RmgGpuError for the SYCL build, not CUDA code"),
    (R, "NEGF/Cuda_funcs/Sgreen_cuda.c", 32): (True,
        "the NEGF surface Green's function on the GPU: cuDoubleComplex buffers, cublasOperation_t, "
        "cublasSetVector/GetVector, cublasZgemm/Zcopy/Zaxpy/Dzasum and magma_zgesv_gpu under `#if CUDA_ENABLED`; there is no HIP arm, so a ROCm build "
        "of the NEGF target compiles an empty function body: the port has to supply a hipBLAS version"),
    # ---- DFT-FE
    (D, "include/DeviceDataTypeOverloads.h", 25): (True,
        "`#include \"DeviceDataTypeOverloads.cu.h\"` under DFTFE_WITH_DEVICE_LANG_CUDA (cuComplex overloads); the "
        "LANG_HIP arm includes the hand-kept DeviceDataTypeOverloads.hip.h"),
    (D, "include/DeviceTypeConfig.h", 25): (True,
        "`#include \"DeviceTypeConfig.cu.h\"` under DFTFE_WITH_DEVICE_LANG_CUDA (cudaError_t/cudaStream_t/cublas "
        "typedefs); the LANG_HIP arm includes DeviceTypeConfig.hip.h"),
    (D, "utils/DeviceAPICalls.cu.cc", 19): (True,
        "the whole CUDA runtime wrapper under `#ifdef DFTFE_WITH_DEVICE_LANG_CUDA` (cudaMalloc/cudaMemcpy/streams/"
        "events and setValueKernel launches); the GPU_LANG=hip build compiles the hand-kept twin "
        "utils/DeviceAPICalls.hip.cc"),
    (D, "utils/DeviceKernelsGeneric.cc", 428): (True, LAUNCH.format(k="copyComplexArrToRealArrsDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 459): (True, LAUNCH.format(k="copyRealArrsToComplexArrDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 488): (True, LAUNCH.format(k="copyValueType1ArrToValueType2ArrDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 519): (True, LAUNCH.format(k="stridedCopyToBlockDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 557): (True, LAUNCH.format(k="stridedCopyFromBlockDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 595): (True, LAUNCH.format(k="stridedCopyToBlockConstantStrideDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 632): (True, LAUNCH.format(k="stridedCopyConstantStrideDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 672): (True,
        LAUNCH.format(k="stridedCopyFromBlockConstantStrideDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 706): (True, LAUNCH.format(k="axpbyDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 737): (True, LAUNCH.format(k="axpyStridedBlockAtomicAddDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 775): (True,
        LAUNCH.format(k="axpyStridedBlockAtomicAddDeviceKernel (scaled overload)")),
    (D, "utils/DeviceKernelsGeneric.cc", 809): (True, LAUNCH.format(k="ascalDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 835): (True, LAUNCH.format(k="stridedBlockScaleDeviceKernel")),
    (D, "utils/DeviceKernelsGeneric.cc", 873): (True, LAUNCH.format(k="saddKernel")),
    (D, "utils/FEBasisOperationsKernelsInternalDevice.cc", 94): (True,
        LAUNCH.format(k="reshapeFromNonAffineDeviceKernel")),
    (D, "utils/FEBasisOperationsKernelsInternalDevice.cc", 128): (True,
        LAUNCH.format(k="reshapeToNonAffineDeviceKernel")),
    (D, "utils/constraintMatrixInfoDevice.cc", 555): (True, LAUNCH.format(k="distributeKernel")),
    (D, "utils/constraintMatrixInfoDevice.cc", 605): (True,
        LAUNCH.format(k="distributeSlaveToMasterKernelAtomicAdd")),
    (D, "utils/constraintMatrixInfoDevice.cc", 659): (True,
        LAUNCH.format(k="distributeSlaveToMasterKernelAtomicAdd (real and imaginary parts, two launches)")),
    (D, "utils/constraintMatrixInfoDevice.cc", 748): (True,
        LAUNCH.format(k="distributeSlaveToMasterKernelAtomicAdd (real and imaginary parts, two launches)")),
    (D, "utils/constraintMatrixInfoDevice.cc", 828): (True, LAUNCH.format(k="setzeroKernel")),
    # ---- Ludwig
    (L, "src/util_cJSON.c", 213): (False,
        "cJSON_InitHooks (malloc/free/realloc hook setup) in the `#else` of `#ifdef __HIPCC__`, which the hipcc build "
        "drops (\"hipcc doesn't like this function, but we don't need it\"): plain host C, no CUDA code"),
    (L, "target/target.h", 29): (True,
        "`#include \"target_cuda.h\"` under `#elif defined(__NVCC__)`: the CUDA implementation of the targetDP layer "
        "(cuda_runtime_api.h, cuda* typedefs and macros); the __HIPCC__ arm includes the hand-kept target_hip.h"),
    (L, "target/target.h", 31): (False,
        "`#include \"target_x86.h\"` in the final `#else` (neither hipcc nor nvcc): the OpenMP/serial host layer, not "
        "CUDA code"),
    (L, "target/target_hip.c", 74): (False,
        "the `#else` of `#if __HIPCC__` inside tdpAtomicAddDouble in the HIP-only target_hip.c: an atomicCAS loop "
        "(the pre-sm_60 double atomicAdd idiom) that no build compiles, since only hipcc builds this file and takes "
        "the atomicAdd arm; no CUDA code to port"),
    (L, "target/target_hip.c", 206): (False, HIPHOST.format(
        what="tdpErrorHandler prints hipGetErrorName/hipGetErrorString and exits")),
    (L, "target/target_hip.c", 228): (False, HIPHOST.format(
        what="tdpDeviceGetAttribute traps tdpDevAttrManagedMemory and calls hipDeviceGetAttribute")),
    (L, "target/target_hip.c", 242): (False, HIPHOST.format(what="`return hipDeviceGetCacheConfig(cache);`")),
    (L, "target/target_hip.c", 263): (False, HIPHOST.format(what="`return hipDeviceSynchronize();`")),
    (L, "target/target_hip.c", 284): (False, HIPHOST.format(what="`return hipGetDevice(device);`")),
    (L, "target/target_hip.c", 294): (False, HIPHOST.format(what="`return hipGetDeviceCount(count);`")),
    (L, "target/target_hip.c", 307): (False, HIPHOST.format(what="`return hipGetErrorName(error);`")),
    (L, "target/target_hip.c", 319): (False, HIPHOST.format(what="`return hipGetErrorString(error);`")),
    (L, "target/target_hip.c", 329): (False, HIPHOST.format(what="`return hipGetLastError();`")),
    (L, "target/target_hip.c", 339): (False, HIPHOST.format(what="`return hipPeekAtLastError();`")),
    (L, "target/target_hip.c", 405): (False, HIPHOST.format(what="`return hipMalloc(devptr, size);`")),
    (L, "target/target_hip.c", 420): (False, HIPHOST.format(what="`return hipFree(devptr);`")),
    # ---- Conch (Python)
    ("stackav-oss/conch", "conch/platforms/platform.py", 76): (True,
        "`return Platform(PlatformEnum.NVIDIA, \"cuda\")` under `if torch.version.cuda is not None:` in "
        "detect_current_platform: the vendor-selection arm whose is_nvidia() later picks the CUDA-only choices "
        "(e4m3fn fp8 dtypes, evict_first/evict_last GEMM hints, the vLLM CUDA reference); the adjacent "
        "`torch.version.hip` arm returns the AMD platform that selects the ROCm twins"),
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
