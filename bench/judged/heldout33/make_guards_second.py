"""Second judge's blind guard verdicts for heldout33 (helper j33). The keys come from sample_guards_second.py: every
one of the 43 sides of the first judge's guards.jsonl (34 C/C++, 9 Python). Only the keys were read; `real`/`reason`
were dropped as each row was read. Each side is judged real or not real, as heldout25/heldout30's
make_guards_second.py:
- real: CUDA-specific code that a ROCm arm or twin in the project replaces, or that the ROCm build needs an
  equivalent of (CUDA includes/types/APIs, CUDA backend dispatch whose HIP counterpart sits in the sibling arm,
  CUDA-only build or library selection);
- not real: no CUDA code at the lines (an #error, a throw/raise for a backend this build lacks, a `break`), code of
  another platform (Intel XPU arms, CPU/host SIMD branches, the ROCm arm itself when the blanker misreads a negated
  test), or vendor-neutral code that only encodes a feature policy the project keeps CUDA-only (no CUDA API in it).
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout33/sample_guards_second.py bench/judged/heldout33/guards.jsonl > bench/judged/heldout33/guard_keys_second.jsonl
    python bench/judged/heldout33/make_guards_second.py bench/judged/heldout33/guard_keys_second.jsonl > bench/judged/heldout33/guards_second.jsonl
"""
import json
import sys

PG = "ryan-charette/cuda-vs-rocm-kernels"
TM = "fzyzcjy/torch_memory_saver"
CA = "Kshy0/CaMa-Flood-GPU"
PS = "lssfau/pystencils"
XPU = ("the `#elif defined(USE_XPU)` arm: Intel XPU code (XPUImplementation / oneAPI shims), not CUDA; the ROCm build "
       "has its own arm and never needs this one")
VMM = ("the `#else` arm of `#if TMS_ROCM_LEGACY_CHUNKED ... #elif defined(USE_XPU)`: the CUDA driver VMM path "
       "(cuMem*, CUmemGenericAllocationHandle, cudaMemGetInfo/cudaDeviceSynchronize). ROCm 6.x replaces it with the "
       "chunked ROCmHIPImplementation arm; ROCm 7+ compiles this same code through macro.h's cu*->hipMem* defines, "
       "i.e. the ROCm build needs (and supplies) an equivalent of every CUDA call here")

V = {
    # ---- pgkl
    (PG, "bench/benchmark_main.cpp", 72): (False,
        "`throw std::runtime_error(\"HIP not supported by this build\")` under #ifndef PGKL_HAS_HIP: a refusal, no "
        "CUDA code"),
    (PG, "bench/benchmark_main.cpp", 89): (True,
        "`return pgkl::metadata_cuda();` under #ifdef PGKL_HAS_CUDA: the CUDA backend's metadata (cudaGetDeviceProperties "
        "etc.); the PGKL_HAS_HIP arm beside it calls the hand-kept metadata_hip twin"),
    (PG, "bench/benchmark_main.cpp", 97): (False,
        "`break;` in the #else of #ifdef PGKL_HAS_HIP: the fall-through when no HIP backend is built; no CUDA code"),
    (PG, "bench/benchmark_main.cpp", 161): (True,
        "reduction dispatch to reduction_cuda under PGKL_HAS_CUDA; the PGKL_HAS_HIP arm dispatches to the "
        "reduction_hip twin"),
    (PG, "bench/benchmark_main.cpp", 189): (True,
        "stencil dispatch to stencil2d_cuda under PGKL_HAS_CUDA; the HIP arm dispatches to stencil2d_hip"),
    (PG, "bench/benchmark_main.cpp", 222): (True,
        "matmul dispatch to matmul_tiled_cuda under PGKL_HAS_CUDA; the HIP arm dispatches to matmul_tiled_hip"),
    (PG, "tests/test_main.cpp", 7): (True,
        "`#include <cuda_runtime.h>` under PGKL_HAS_CUDA; the PGKL_HAS_HIP arm includes hip/hip_runtime.h"),
    (PG, "tests/test_main.cpp", 86): (True,
        "the CUDA tests: cuda_available() with cudaGetDeviceCount/cudaSuccess and reduction/stencil/matmul_cuda "
        "checks; the PGKL_HAS_HIP block supplies hip_available (hipGetDeviceCount) and the *_hip twins"),
    (PG, "tests/test_main.cpp", 289): (True,
        "run_test of the three CUDA tests; the PGKL_HAS_HIP arm runs the three HIP tests"),
    # ---- torch_memory_saver
    (TM, "csrc/api_forwarder.cpp", 14): (True,
        "dlsym names \"cudaMalloc\"/\"cudaFree\" for the LD_PRELOAD forwarder; the USE_ROCM arm supplies "
        "\"hipMalloc\"/\"hipFree\""),
    (TM, "csrc/core.cpp", 9): (False,
        "`retain_cpu_backup_.store(get_bool_env_var(\"TMS_RETAIN_CPU_BACKUP\"))` under #ifdef USE_CUDA: a "
        "vendor-neutral env read for a policy the project keeps CUDA-only (tms_set_retain_cpu_backup refuses it off "
        "CUDA); no CUDA API"),
    (TM, "csrc/core.cpp", 43): (False, XPU + " (xpu_malloc, disk backup refused)"),
    (TM, "csrc/core.cpp", 47): (True, VMM + " (malloc: granularity, margin check, cuMemCreate/AddressReserve/Map/"
                                     "SetAccess)"),
    (TM, "csrc/core.cpp", 101): (False, XPU + " (xpu_free)"),
    (TM, "csrc/core.cpp", 104): (True, VMM + " (free: cuMemUnmap/cuMemRelease/cuMemAddressFree)"),
    (TM, "csrc/core.cpp", 169): (False, XPU + " (xpu_pause)"),
    (TM, "csrc/core.cpp", 172): (True, VMM + " (pause: backup then cuMemUnmap/cuMemRelease)"),
    (TM, "csrc/core.cpp", 220): (False, XPU + " (xpu_resume)"),
    (TM, "csrc/core.cpp", 223): (True, VMM + " (resume: cu_mem_create, cuMemMap, set access, restore backup)"),
    (TM, "csrc/core.cpp", 288): (False,
        "`size_t total_size = metadata.raw_size;`, the #else of `TMS_ROCM_LEGACY_CHUNKED || defined(USE_XPU)`: plain "
        "size bookkeeping of the single-handle layout, no CUDA API; the chunked/XPU arm reads aligned_size"),
    (TM, "csrc/core.h", 45): (False, "the USE_XPU arm of AllocationMetadata (aligned_size, XPUAllocExtra): XPU, not "
                                     "CUDA"),
    (TM, "csrc/core.h", 48): (True,
        "the CUDA (and ROCm 7+) AllocationMetadata fields: allocation_size and a CUmemGenericAllocationHandle (a CUDA "
        "driver type macro.h maps to hipMemGenericAllocationHandle_t); the ROCm 6.x arm replaces it with chunked "
        "handle vectors"),
    (TM, "csrc/cpu_backup.h", 137): (False,
        "`return CpuBackupKind::MMAP;` in the #else of `USE_ROCM || USE_XPU`: selects the mmap host-backup kind, a "
        "feature the project refuses on ROCm/XPU by policy; no CUDA API at the line (the mmap path's cudaMemcpy is "
        "shared code)"),
    (TM, "csrc/entrypoint.cpp", 171): (False,
        "`TorchMemorySaver::instance().set_retain_cpu_backup(...)` under USE_CUDA: vendor-neutral setter of the "
        "CUDA-only retain policy; the other arm refuses the setting; no CUDA API"),
    (TM, "csrc/entrypoint.cpp", 179): (False,
        "`return TorchMemorySaver::instance().get_retain_cpu_backup();` under USE_CUDA: vendor-neutral getter of "
        "the same policy; no CUDA API"),
    (TM, "csrc/macro.h", 65): (True,
        "the USE_CUDA arm's `#include <cuda_runtime_api.h>` / `<cuda.h>` (and TMS_ROCM_LEGACY_CHUNKED 0); the "
        "USE_ROCM arm includes the HIP headers and maps every cu*/cuda* name it uses to hip*"),
    (TM, "csrc/macro.h", 71): (False, "the USE_XPU arm of macro.h: XPU typedef/shim stand-ins for CUDA names "
                                      "(cudaError_t as int, stub cudaMallocHost/cudaMemcpy), XPU code not CUDA"),
    (TM, "csrc/macro.h", 110): (False, "`#error \"USE_PLATFORM is not set\"`: no CUDA code"),
    (TM, "csrc/utils.h", 113): (True,
        "the USE_CUDA CUDAUtils VMM helpers: CUmemAllocationProp, cuDeviceGetAttribute(GPU_DIRECT_RDMA_WITH_CUDA_VMM),"
        " cuMemGetAllocationGranularity, cuMemCreate, cuMemSetAccess, cuCtxGetDevice, cuDeviceGet; the USE_ROCM arm "
        "above supplies hipMem* versions"),
    (TM, "csrc/utils.h", 174): (False, "the USE_XPU arm of CUDAUtils (device ordinal stand-ins): XPU, not CUDA"),
    (TM, "csrc/utils.h", 183): (False, "`#error \"USE_PLATFORM is not set\"`: no CUDA code"),
    (TM, "test/examples/cpu_backup.py", 24): (False,
        "`backends = [None]`: the else of `if device == \"cuda\" and not torch.version.hip`, i.e. the ROCm/XPU arm "
        "itself (the CUDA side is line 22); no CUDA code"),
    (TM, "test/examples/cpu_backup.py", 55): (False,
        "`assert get_cpu_backup(...) is None` under `if not torch.version.hip`: a test of the vendor-neutral "
        "backup-release policy (the comment says ROCm keeps the host backup); no CUDA API"),
    (TM, "test/examples/nested_region.py", 67): (False,
        "the mmap cpu_backup_backend region test under `if not torch.version.hip`: exercises a feature the project "
        "keeps CUDA-only by policy, through vendor-neutral torch calls (device=\"cuda\" is ROCm's torch device too)"),
    (TM, "torch_memory_saver/testing_utils.py", 49): (True,
        "`torch.cuda.device_memory_used(gpu_id)` (NVML-backed on CUDA); the torch.version.hip arm replaces it with "
        "torch.cuda.mem_get_info because amd-smi reports with a delay"),
    (TM, "torch_memory_saver/utils.py", 90): (True,
        "CUDA binary selection: _detect_cuda_major() (torch.version.cuda / libcudart probe) and the `_cu{major}` .so "
        "suffix; the ROCm arm (_is_rocm_torch) picks the unsuffixed HIP build"),
    # ---- CaMa-Flood-GPU
    (CA, "cmfgpu/phys/triton/utils.py", 46): (True,
        "the non-HIP cbrt_compat_inline: `libdevice.cbrt(x)` (CUDA libdevice); the IS_HIP_BUILD arm replaces it with "
        "libdevice.pow(x, 1/3) because HIP's libdevice may lack cbrt"),
    # ---- pystencils
    (PS, "src/pystencils/codegen/target.py", 179): (True,
        "`return Target.CUDA` when cupy is not HIP: the CUDA code-generation target; the is_hip arm returns "
        "Target.HIP"),
    (PS, "src/pystencils/include/pystencils_runtime/bits/philox_rand.h", 110): (False,
        "the host branch of mulhilo32 (`!__CUDA_ARCH__ && !__HIP_DEVICE_COMPILE__`): powerpc __mulhwu, OpenCL mul_hi "
        "or a 64-bit product on the CPU; no CUDA code (the device branch is shared by CUDA and HIP)"),
    (PS, "src/pystencils/include/pystencils_runtime/bits/philox_rand.h", 221): (False,
        "the CPU SIMD Philox variants (SSE/AVX/AVX-512/NEON/SVE/Altivec/RISC-V) behind `!__CUDA_ARCH__ && "
        "!__HIP_DEVICE_COMPILE__ ...`: host vector code, no CUDA"),
    (PS, "src/pystencils/include/pystencils_runtime/bits/platforms.h", 19): (False,
        "`#define PYSTENCILS_PLATFORM_IS_HIP false` when not compiling HIP device code: a platform flag for host/CPU/"
        "CUDA passes, no CUDA code"),
    (PS, "src/pystencils/jit/gpu_cupy.py", 261): (True,
        "`headers = {\"<cstdint>\"}` in the NVRTC prelude when cupy is not HIP; the is_hip arm builds the hiprtc "
        "prelude without it (philox_rand.h skips <cstdint> under __HIPCC_RTC__)"),
    (PS, "tests/kernelcreation/test_gpu.py", 467): (True,
        "max registers per block from cupy's CUDA Device.attributes[\"MaxRegistersPerBlock\"]; the is_hip arm asks "
        "cp.cuda.runtime.deviceGetAttribute(71, ...) (HIP's attribute number)"),
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
