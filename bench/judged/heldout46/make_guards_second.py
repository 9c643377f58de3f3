"""Second judge's blind guard verdicts for heldout46. The keys come from sample_guards_second.py: every one of the 52
sides of the first judge's guards.jsonl (all C/C++). Only the keys were read; `real`/`reason` were dropped as each row
was read. Each side is judged real or not real, as heldout30's and heldout39's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA warp-size constants, CUDA name maps, CUDA library calls with rocBLAS/
  rocSOLVER arms, CUDA-only kernels or GPU task bodies the ROCm build lacks and a ROCm library could supply);
- not real: no CUDA code at the lines (a non-GPU or other-vendor arm), ROCm code read as a CUDA side (the host
  branch of `#ifndef __HIP_DEVICE_COMPILE__`), or a CUDA-only optional call the ROCm path does not need (profiler
  start, setting the default math mode).
The verdicts were written before the first judge's verdicts were opened, from the trees in /tmp/j46.

    python bench/judged/heldout46/sample_guards_second.py bench/judged/heldout46/guards.jsonl > bench/judged/heldout46/guard_keys_second.jsonl
    python bench/judged/heldout46/make_guards_second.py bench/judged/heldout46/guard_keys_second.jsonl > bench/judged/heldout46/guards_second.jsonl
"""
import json
import sys

ST, PSC, HI, MR = "Psivant/stormm", "psc-code/psc", "QingleiCao/hicma-x", "yalcinerbora/mray"
CORE = "src/core/hicma_parsec_core.c"
INT = "src/core/hicma_parsec_internal.c"
GEMMEX = ("the CUDA-only setup of the int8 GEMMEX GPU path (gemmex_TN*.jdf have only BODY [type=CUDA], HAVE_I8 is 1 "
          "only on CUDA): ")
ISYRK = "the CUDA-only setup of the int8 ISYRK GPU path (isyrk*.jdf have only BODY [type=CUDA]): "
MISSING = (". The ROCm build has no HIP body or HIP device list, so on AMD this runs on the CPU; the ROCm side is "
           "missing and rocBLAS's int8 gemm_ex could supply it")
ALG = ("the MRAY_GPU_BACKEND_CUDA arm of the device-backend selector: includes the CUDA/ backend header and aliases "
       "its namespace; the MRAY_GPU_BACKEND_HIP arm right after it includes the HIP/ twin")
HIPHOST = "ROCm code read as a CUDA side: the host branch of `#ifndef __HIP_DEVICE_COMPILE__` in the HIP backend; "

V = {
    # ---- stormm
    (ST, "src/Constants/hpc_bounds.h", 22): (False,
        "the STORMM_USE_INTEL arm (warp size 16): another vendor's constants, no CUDA code"),
    (ST, "src/Constants/hpc_bounds.h", 29): (True,
        "the #else (CUDA) arm: warp_size 32 / warp_bits 5 in every integer type; the STORMM_USE_HIP arm supplies 64 "
        "(itself wrong for wave32 targets, but the side is CUDA warp-size code the ROCm arm replaces)"),
    # ---- hicma-x
    (HI, "src/core/hicma_parsec.c", 347): (False,
        "cudaProfilerStart() under PARSEC_HAVE_DEV_CUDA_SUPPORT && ENABLE_PROFILING (ENABLE_PROFILING is 0): an "
        "optional profiler call; the ROCm build runs without any counterpart (rocprof needs none)"),
    (HI, CORE, 13): (True,
        "extern parsec_device_cuda_enabled (PaRSEC's CUDA component); the HIP arm below declares "
        "parsec_device_hip_enabled"),
    (HI, CORE, 1917): (True,
        "cusolverDnSpotrf on the stream's workspace; the PARSEC_HAVE_DEV_HIP_SUPPORT arm calls rocsolver_spotrf"),
    (HI, CORE, 1930): (True,
        "cusolverDnDpotrf on the stream's workspace; the HIP arm calls rocsolver_dpotrf"),
    (HI, CORE, 41): (True,
        "`if( parsec_device_cuda_enabled > 0 )`; the #elif HIP arm tests parsec_device_hip_enabled"),
    (HI, CORE, 47): (True,
        "cudaMallocHost for pinned host memory; the HIP arm calls hipHostMalloc"),
    (HI, "src/core/hicma_parsec_gpu.c", 604): (True,
        "cusolverDnDpotrf_bufferSize for the per-stream potrf workspace; the HIP arm sets workspace_size = 0 "
        "(rocSOLVER needs none)"),
    (HI, "src/core/hicma_parsec_gpu.c", 631): (False,
        "cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH): sets the default mode, which is what a rocBLAS/hipBLAS "
        "handle has anyway; nothing for the ROCm path to supply"),
    (HI, INT, 1003): (True,
        "unregisters PaRSEC's DPLASMA::CUDA::HANDLES per-stream info (cuBLAS/cuSOLVER handles for dplasma's CUDA "
        "bodies, used by the dplasma_dpotrf/gemm taskpools HiCMA runs); there is no DPLASMA::HIP::HANDLES "
        "registration for dplasma's HIP bodies: the ROCm side is missing"),
    (HI, INT, 1213): (True,
        "cudaMallocHost for info_gpu; the #elif HIP arm calls hipHostMalloc"),
    (HI, INT, 2630): (True,
        "cudaFreeHost(info_gpu); the #elif HIP arm calls hipHostFree"),
    (HI, INT, 639): (True,
        "sets the PaRSEC MCA parameter device_cuda_enabled; the HIP arm below sets device_hip_enabled"),
    (HI, INT, 924): (True,
        "registers DPLASMA::CUDA::HANDLES (dplasma_create_cuda_handles / destroy_cuda_handles) for dplasma's CUDA "
        "task bodies; the HIP build registers no HIP handles for dplasma's HIP bodies: the ROCm side is missing"),
    (HI, INT, 99): (True,
        "destroy_cuda_handles: cublasDestroy_v2 and cusolverDnDestroy of the dplasma per-stream handles; the ROCm "
        "counterpart (rocBLAS/rocSOLVER handle destroy) is missing with the registration"),
    (HI, "src/core/hicma_parsec_internal.h", 113): (True,
        "CUDA headers: PaRSEC's device_cuda.h, cuda_runtime, cuda_fp16, cublasLt, cuda_fp8, cublas_v2, cusolverDn; "
        "the HIP arm includes PaRSEC's device_hip.h and hicma_parsec_hip_cuda.h"),
    (HI, "src/core/hicma_parsec_internal.h", 257): (True,
        "the CUDA arm of the precision feature switch: HAVE_I8 1 (int8 GEMM/SYRK GPU paths) and HAVE_FP8 0; the "
        "#else sets HAVE_I8 0 because those paths have only CUDA bodies: the ROCm side of the int8 path is missing"),
    (HI, "src/kernels/gemmex_wrapper.c", 117): (True, GEMMEX + "counts PARSEC_DEV_CUDA devices and lists their "
        "indices" + MISSING),
    (HI, "src/kernels/gemmex_wrapper.c", 174): (True, GEMMEX + "hooks evaluate_gpu_gemmex on the GPU incarnation and "
        "passes the workspace and CUDA device list to the taskpool" + MISSING),
    (HI, "src/kernels/gemmex_wrapper.c", 239): (True, GEMMEX + "the SUMMA variant's PARSEC_DEV_CUDA device count and "
        "index list" + MISSING),
    (HI, "src/kernels/gemmex_wrapper.c", 286): (True, GEMMEX + "the SUMMA variant's GPU evaluate hook and device "
        "list" + MISSING),
    (HI, "src/kernels/gemmex_wrapper.c", 496): (True, GEMMEX + "frees the SUMMA taskpool's CUDA device index list; "
        "the cleanup half of the same CUDA-only setup" + MISSING),
    (HI, "src/kernels/gemmex_wrapper.c", 515): (True, GEMMEX + "frees the taskpool's CUDA device index list; the "
        "cleanup half of the same CUDA-only setup" + MISSING),
    (HI, "src/kernels/isyrk_wrapper.c", 121): (True, ISYRK + "counts PARSEC_DEV_CUDA devices and lists their "
        "indices" + MISSING),
    (HI, "src/kernels/isyrk_wrapper.c", 170): (True, ISYRK + "hooks evaluate_gpu_syrk/gemm on the GPU incarnations "
        "and passes the workspace and CUDA device list" + MISSING),
    (HI, "src/kernels/isyrk_wrapper.c", 225): (True, ISYRK + "frees the CUDA device index list; the cleanup half of "
        "the same setup" + MISSING),
    # ---- psc
    (PSC, "src/include/cuda_compat.h", 11): (False,
        "the `!defined(__CUDACC__) && !defined(__HIPCC__)` arm: empty __host__/__device__ for plain C++ host "
        "compilers; no CUDA code"),
    (PSC, "src/libpsc/cuda/gpu/gpu_runtime.h", 5): (True,
        "the CUDA arm (#else of GTENSOR_DEVICE_HIP): cuda_runtime.h and the hip* -> cuda* name map; the HIP arm "
        "includes hip/hip_runtime.h"),
    (PSC, "src/libpsc/cuda/gpu/gpurand_kernel.h", 5): (True,
        "the CUDA arm: curand_kernel.h and hiprand_* -> curand_* names; the HIP arm includes hiprand_kernel.h"),
    # ---- mray
    (MR, "Source/Core/Definitions.h", 59): (True,
        "the MRAY_GPU_BACKEND_CUDA arm: device_types.h, MRAY_HYBRID/MRAY_GPU/MRAY_HOST as __host__/__device__, the "
        "__CUDA_ARCH__ split and inline macros; the MRAY_GPU_BACKEND_HIP arm follows"),
    (MR, "Source/Device/GPUAlgBinaryPartition.h", 4): (True, ALG + " (AlgBinaryPartitionHIP.h)"),
    (MR, "Source/Device/GPUAlgBinarySearch.h", 4): (True, ALG + " (AlgBinarySearchHIP.h)"),
    (MR, "Source/Device/GPUAlgForward.h", 40): (True, ALG + " (AlgForwardHIP.h)"),
    (MR, "Source/Device/GPUAlgRadixSort.h", 5): (True, ALG + " (AlgRadixSortHIP.h)"),
    (MR, "Source/Device/GPUAlgReduce.h", 4): (True, ALG + " (AlgReduceHIP.h)"),
    (MR, "Source/Device/GPUAlgScan.h", 4): (True, ALG + " (AlgScanHIP.h)"),
    (MR, "Source/Device/GPUAtomic.h", 4): (True, ALG + " (GPUAtomicHIP.h)"),
    (MR, "Source/Device/GPUMemory.h", 6): (True,
        "the CUDA arm: DeviceMemoryCUDA.h and the DeviceMemory/DeviceLocalMemory/HostLocalMemory aliases; the HIP "
        "arm aliases DeviceMemoryHIP's types"),
    (MR, "Source/Device/GPUSystem.h", 6): (True,
        "the CUDA arm: GPUSystemCUDA.h and the KernelCallParams/GPUQueue/GPUSystem... aliases; the HIP arm aliases "
        "GPUSystemHIP's"),
    (MR, "Source/Device/GPUSystem.hpp", 6): (True,
        "the CUDA arm: GPUSystemCUDA.hpp (the triple-chevron launch wrappers); the HIP arm includes "
        "GPUSystemHIP.hpp"),
    (MR, "Source/Device/GPUSystemForward.h", 6): (True,
        "the CUDA arm: forward declarations of the CUDA backend classes, texture aliases and "
        "MRAY_GPU_BACKEND_IS_CUDA = true; the HIP arm declares the HIP twins"),
    (MR, "Source/Device/GPUTexture.h", 4): (True,
        "the CUDA arm: TextureCUDA.h and the Texture/RWTextureRef/TextureBackingMemory aliases; the HIP arm "
        "includes TextureHIP.h"),
    (MR, "Source/Device/GPUTextureView.h", 4): (True,
        "the CUDA arm: TextureViewCUDA.h and the TextureView/RWTextureView aliases; the HIP arm includes "
        "TextureViewHIP.h"),
    (MR, "Source/Device/GPUWarp.h", 4): (True, ALG + " (GPUWarpHIP.h)"),
    (MR, "Source/Device/HIP/DefinitionsHIP.h", 11): (False,
        HIPHOST + "GPUAssert's host error report with hipGetErrorString"),
    (MR, "Source/Device/HIP/DefinitionsHIP.h", 87): (False,
        HIPHOST + "HIP_KERNEL_CHECK as hipDeviceSynchronize + hipGetLastError"),
    (MR, "Source/Device/HIP/GPUSystemHIP.h", 440): (False,
        HIPHOST + "GPUFenceHIP::Wait's hipEventSynchronize"),
    (MR, "Source/Tracer/Distributions.cu", 10): (True,
        "cub block scan/load/store and device scan includes under MRAY_GPU_BACKEND_CUDA, used by the PwC 2-D "
        "distribution kernels; there is no HIP arm (hipCUB would supply it): the ROCm side is missing"),
    (MR, "Source/Tracer/Distributions.cu", 22): (True,
        "the CUDA-only DistributionPwC2D kernels (KCCopyScanY, segmented scans, normalisation) on cub::BlockScan/"
        "BlockLoad/BlockStore; the arms are CUDA, CPU and `#error ... do not have generic implementation`, so a "
        "MRAY_GPU_BACKEND_HIP build stops at the #error: the ROCm side is missing (hipCUB ports)"),
    (MR, "Source/Tracer/TextureFilter.cu", 17): (True,
        "cub/block/block_reduce.cuh under MRAY_GPU_BACKEND_CUDA for the warp/block filter kernels; no HIP arm: the "
        "ROCm side is missing"),
    (MR, "Source/Tracer/TextureFilter.cu", 353): (True,
        "the CUDA-only reconstruction-filter kernels (KCFilterToImgWarpRGB with LOGICAL_WARP_SIZE cub warp "
        "reductions, ...); the arms are CUDA, CPU and `#error \"Generic version of reconstruction filter is not "
        "implemented!\"`: the HIP build stops there, the ROCm side is missing"),
}

rows = []
seen = set()
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    key = (k["project"], k["path"], k["first"])
    if key not in V:
        raise SystemExit(f"no verdict for {key}")
    seen.add(key)
    real, reason = V[key]
    rows.append(dict(k, real=real, reason=reason))
unused = set(V) - seen
if unused:
    raise SystemExit(f"verdicts without a key: {sorted(unused)}")
print(len(rows), "rows,", sum(r["real"] for r in rows), "real", file=sys.stderr)
for r in rows:
    print(json.dumps(r, sort_keys=True))
