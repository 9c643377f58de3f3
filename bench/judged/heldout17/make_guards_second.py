"""Second judge's blind guard verdicts for heldout17: the 30 keys drawn by sample_guards_second.py (seed 3173 over the
32 sorted keys of the first judge's guards.jsonl, keys only), each judged real (the CUDA side holds code that would not
build or work on HIP, so the ROCm build needs the equivalent its arm, twin or fallback supplies) or not (ROCm arms,
arms both builds compile, host-only or POSIX code, CUDA-side lines HIP compiles unchanged). Written before the first
judge's verdicts were opened.

    python bench/judged/heldout17/sample_guards_second.py <(git show s19-h17:bench/judged/heldout17/guards.jsonl) > /tmp/keys.jsonl
    python bench/judged/heldout17/make_guards_second.py /tmp/keys.jsonl > bench/judged/heldout17/guards_second.jsonl
"""
import json
import sys

V = {
    ("domain/include/cstone/primitives/warpscan.cuh", 49): (False,
        "syncWarp(): `__syncwarp();` in the `__CUDACC__ && !__HIPCC__` arm, nothing on HIP; a lone __syncwarp the ROCm arm "
        "drops (wave lanes run in lockstep, and HIP has __syncwarp anyway): no port work at that line (superlu_dist precedent)"),
    ("domain/include/cstone/cuda/gpu_config.cuh", 29): (True,
        "GpuConfig::warpSize = 32 on nvcc; the HIP arm sets 64 (and ThreadMask follows): the ROCm build needs its own value there"),
    ("src/devices/cuda/fastllm-cuda.cu", 9464): (False,
        "#ifndef USE_ROCM FastllmRouterLoad8 helpers (float4/uint4 loads, __half22float2, __bfloat1622float2): plain code HIP "
        "compiles after hipify; it is left out on ROCm only because its one caller, the warp-32 sigmoid router kernel, is"),
    ("src/devices/cuda/fastllm-ggml-cuda.cu", 948): (False,
        "`rows_per_cuda_block = ncols_y < 4 ? 1 : 1` in the #else of GGML_USE_HIPBLAS && RDNA2/3 (which sets 1): same value, no "
        "CUDA API, and fastllm's ROCm build never defines GGML_USE_HIPBLAS, so it compiles this very line"),
    ("src/acc/acc_projectorkernel_impl.h", 7): (True,
        "`#define PROJECTOR_PTR_TYPE cudaTextureObject_t` under _CUDA_ENABLED; the _HIP_ENABLED arm defines hipTextureObject_t"),
    ("src/devices/cuda/fastllm-cuda.cu", 16397): (False,
        "`attributes.type == cudaMemoryTypeDevice` is the #else of `CUDART_VERSION < 10000 && !USE_ROCM`: the arm the ROCm "
        "build itself compiles (hipified to hipMemoryTypeDevice), not a CUDA-only side"),
    ("src/devices/cuda/fastllm-cuda.cu", 7041): (True,
        "#ifndef USE_ROCM dispatch to FastllmRMSNormBFloat16Hidden3072ExactKernel, a 32-lane kernel (__shfl_down_sync(0xffffffffu), "
        "tid >> 5) that HIP cannot compile; the ROCm build must skip to the generic RMSNorm path"),
    ("src/acc/cuda/cuda_projector_plan.cu", 6): (True,
        "_CUDA_ENABLED includes of cuda_utils_stl.cuh / cuda_utils_cub.cuh (CUB) in the CUDA twin; the HIP twin "
        "hip_projector_plan.hip.cpp includes the hipCUB utilities instead"),
    ("src/acc/cuda/cuda_mem_utils.h", 5): (True,
        "_CUDA_ENABLED includes of cuda_runtime.h, curand.h, cuda_settings.h, custom_allocator.cuh; hip_mem_utils.h is the twin"),
    ("domain/include/cstone/sfc/hilbert.hpp", 51): (False,
        "host-only mortonToHilbert table under `!__CUDA_ARCH__ && !__HIP_DEVICE_COMPILE__`: a host/device split both "
        "toolchains share, no CUDA code"),
    ("src/acc/hip/hip_kernels/helper.h", 963): (False,
        "the gfx906 arm of `__HIP_ARCH__ != gfx906` in a HIP-only file: a software double atomicAdd for ROCm, not a CUDA side"),
    ("src/devices/cuda/cudadevice.cpp", 28): (False,
        "POSIX socket headers (arpa/inet.h, sys/socket.h, unistd.h) under `!_WIN32 && !USE_ROCM`: no CUDA, they compile on a "
        "ROCm Linux build as well"),
    ("src/devices/cuda/fastllm-cuda.cu", 9570): (True,
        "#ifndef USE_ROCM FastllmFusedSigmoidSelectExpert256Top10Kernel: one 32-lane warp per token with __shfl_xor_sync/"
        "__shfl_sync/__any_sync(FULL_WARP_MASK), __syncwarp(mask), virtualTid = lane + half * 32; 32-bit masks do not "
        "compile on HIP and the layout is warp-32; ROCm takes the generic router"),
    ("src/devices/cuda/fastllm-ggml-cuda.cu", 123): (True,
        "ggml_cuda_dp4a's CUDA side: `__dp4a` under __CUDA_ARCH__ >= 610 (CUDA intrinsic) with a byte-loop fallback; the "
        "GGML_USE_HIPBLAS arm replaces it with __builtin_amdgcn_sdot4/sudot4"),
    ("src/devices/cuda/fastllm-cuda.cu", 10669): (True,
        "#ifndef USE_ROCM launches of the warp-32 FastllmFusedSigmoidSelectExpert256Top10Kernel (<<<tokens, 32>>>) that "
        "does not exist on ROCm; the ROCm build falls through to the generic select-expert path"),
    ("domain/include/cstone/primitives/warpscan.cuh", 101): (True,
        "ballotSync: `__ballot_sync(0xFFFFFFFF, flag)` on nvcc; the HIP arm uses __ballot (64-bit mask)"),
    ("src/devices/cuda/fastllm-cuda.cu", 10939): (False,
        "#ifdef USE_ROCM / #else with the same FastllmSelectExpertKernel<64, 50><<<n, 64>>> launch in both arms: nothing "
        "CUDA-specific on the CUDA side"),
    ("src/gpu/utils.cu", 26): (True,
        "`#elif __CUDACC__` gpu* aliases to cudaDeviceProp, cudaGetDeviceProperties, cudaSetDevice, ...; the __HIPCC__ arm maps "
        "them to the hip* runtime"),
    ("src/devices/cuda/cudadevice.cpp", 122): (True,
        "`!_WIN32 && !USE_ROCM` block of the Triton cubin paths (NVIDIA cubin files loaded through the CUDA driver, "
        "sm-specific kernels); the ROCm arm stubs them to return false"),
    ("domain/include/cstone/primitives/warpscan.cuh", 80): (True,
        "shflUpSync: `__shfl_up_sync(0xFFFFFFFF, ...)` on nvcc; HIP arm __shfl_up"),
    ("src/devices/cuda/fastllm-cuda.cu", 3523): (True,
        "#ifndef USE_ROCM FastllmRMSNormBFloat16Hidden3072ExactKernel: PHYSICAL_THREADS / 32 warps, tid >> 5, "
        "__shfl_down_sync(0xffffffffu); does not compile on HIP, ROCm keeps the generic kernel"),
    ("domain/include/cstone/cuda/cuda_runtime.hpp", 65): (True,
        "`#include <cuda_runtime.h>` and GPU_SYMBOL(x) on CUDA; the HIP arm includes hip_runtime.h, maps the cuda* API and "
        "uses HIP_SYMBOL"),
    ("domain/include/cstone/primitives/warpscan.cuh", 69): (True,
        "shflXorSync: `__shfl_xor_sync(0xFFFFFFFF, ...)` on nvcc; HIP arm __shfl_xor"),
    ("src/devices/cuda/models/deepseekv4-kernels.cu", 8239): (True,
        "#ifndef USE_ROCM Triton sqrt-softplus router and the sm120 DeepSeekV4SqrtSoftplusTop6Warp4Kernel launch (dim3(32, 4), "
        "cudaGetLastError); the ROCm arm discards allowTriton and uses the generic kernel"),
    ("domain/include/cstone/cuda/cub.hpp", 19): (True,
        "`#include <cub/cub.cuh>` on CUDA; the __HIPCC__ arm includes hipcub and aliases namespace cub = hipcub"),
    ("src/devices/cuda/fastllm-cuda.cu", 5124): (False,
        "`attributes.type == cudaMemoryTypeDevice || ...Managed` is the #else of `CUDART_VERSION < 10000 && !USE_ROCM`, the arm "
        "ROCm compiles (hipified)"),
    ("src/devices/cuda/models/deepseekv4-kernels.cu", 3054): (True,
        "#ifndef USE_ROCM DeepSeekV4SqrtSoftplusTop6Warp4Kernel: warp-per-row top-6 with __shfl_sync 32-bit masks and "
        "32-lane layout; not buildable on HIP, the generic kernel replaces it"),
    ("domain/include/cstone/primitives/warpscan.cuh", 58): (True,
        "shflSync: `__shfl_sync(0xFFFFFFFF, value, srcLane)` on nvcc; HIP arm __shfl"),
    ("src/devices/cuda/fastllm-cuda.cu", 7143): (True,
        "#ifndef USE_ROCM `threadCount = channels == 3072 ? 256 : 0` selects the warp-32 exact RMSNorm kernel; on ROCm "
        "threadCount must stay 0 or LaunchFastllmRMSNormBFloat16 returns false"),
    ("src/gpu/common.cuh", 58): (True,
        "`#elif __CUDACC__` arm: gpu* runtime aliases to cuda*, cuFloatComplex/cuDoubleComplex and make_cu*Complex, cuConj, "
        "`#define warpSize 32`; the __HIPCC__ arm supplies hip* and hipFloatComplex/hipDoubleComplex equivalents"),
}

for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    real, reason = V[(k["path"], k["first"])]
    k.update(real=real, reason=reason)
    print(json.dumps(k, sort_keys=True, ensure_ascii=False))
