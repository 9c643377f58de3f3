"""Second judge's blind guard verdicts for heldout23: all 20 keys of the first judge's guards.jsonl (fewer than 30, so
sample_guards_second.py takes every key; keys only, `real`/`reason` dropped as read), each judged real (the ROCm build
needs equivalent code at that CUDA side to work: its arm supplies it, or it is missing) or not real (no CUDA code at
the lines, SYCL-only arms, the non-ROCm arm of a ROCm-only check, CUDA-only knobs AMD has no use for). Written before
the first judge's verdicts were opened.

    python bench/judged/heldout23/sample_guards_second.py <(git show s22-h23:bench/judged/heldout23/guards.jsonl) > bench/judged/heldout23/guard_keys_second.jsonl
    python bench/judged/heldout23/make_guards_second.py bench/judged/heldout23/guard_keys_second.jsonl > bench/judged/heldout23/guards_second.jsonl
"""
import json
import sys

SYCL = "no CUDA code at these lines: they are the SYCL subgroup-size arms of the chain; the HIP build takes its own arm"
V = {
    ("benchmarks/profiler.py", 110): (True,
        "else of the torch.version.hip test in the GPU target probe: backend 'cuda', torch.version.cuda driver, "
        "get_device_capability and NVIDIA arch inference; the ROCm arm reports 'rocm', the HIP version and the AMD "
        "arch for the same record"),
    ("rl_engine/kernels/ops/rocm/attention/flash_attn.py", 26): (False,
        "raise in RocmFlashAttentionOp when torch.version.hip is None: the non-ROCm arm of a ROCm-only check, no CUDA "
        "code, nothing the ROCm build needs"),
    ("rl_engine/kernels/registry.py", 209): (False,
        "`platform = \"cpu\"`, the final else of get_op's platform choice (is_rocm -> 'rocm', cuda -> 'cuda'): a CPU "
        "fallback, not CUDA code; the ROCm build takes the is_rocm arm"),
    ("rl_engine/kernels/sampling.py", 22): (True,
        "else of `if torch.version.hip` in SamplerBackend._detect_backend: picks FlashInfer on CUDA; the ROCm arm "
        "picks AITER, the sampling library the ROCm build needs"),
    ("rl_engine/platforms/device.py", 36): (True,
        "else of the torch.version.hip test: is_rocm False, device_type CUDA, backend_version torch.version.cuda; the "
        "ROCm arm sets is_rocm, device_type ROCM and the HIP version, which the registry's platform choice reads"),
    ("scripts/check_rocm_env.py", 21): (False,
        "_fail when torch.version.hip is None in the ROCm environment check script: the non-ROCm arm of a ROCm-only "
        "check, no CUDA code"),
    ("device.cpp", 8): (True,
        "DEVICE_LANG_CUDA include of interfaces/cuda/CudaWrappedAPI.h (the CUDA ConcreteAPI); the DEVICE_LANG_HIP arm "
        "includes HipWrappedAPI.h, which the ROCm build needs"),
    ("src/GpuModel.cpp", 771): (True,
        "GpuModelProp's Kepler/Maxwell/Pascal latency constants, set only under LIBRETT_USES_CUDA; the HIP build has "
        "no arm, so cyclesPacked/cyclesTiled read uninitialised members and the plan model is garbage. The ROCm build "
        "needs AMD values (or any initialisation) there: real, with the ROCm side missing"),
    ("src/GpuModelKernel.cpp", 1199): (True,
        "LIBRETT_USES_CUDA cudaCheck(cudaGetLastError()) after the counting launches; the LIBRETT_USES_HIP block above "
        "does hipCheck(hipGetLastError())"),
    ("src/kernel.cpp", 1210): (True,
        "LIBRETT_USES_CUDA cudaGetLastError check after the transpose launch; the #elif LIBRETT_USES_HIP arm checks "
        "hipGetLastError"),
    ("src/kernel.cpp", 646): (False,
        "librettKernelSetSharedMemConfig's cudaFuncSetSharedMemConfig bank-size settings, CUDA only; AMD LDS has no "
        "bank-size mode (HIP's call is a no-op), so the HIP build correctly does nothing there"),
    ("src/kernel.cpp", 677): (False, SYCL + " (MAX_NUMWARP)"),
    ("src/kernel.cpp", 687): (True,
        "LIBRETT_USES_CUDA MAX_NUMWARP = 1024/32, the warp-count bound of the occupancy cache key; the HIP arm "
        "defines its own wave64 value (1024/64, 'AMD change'), which the ROCm build needs (the constant exists only "
        "in the arms)"),
    ("src/librett.cpp", 64): (True,
        "LIBRETT_USES_CUDA cudaGetDevice(&deviceID) in getDeviceProp; the HIP arm calls hipGetDevice, needed for the "
        "device id"),
    ("src/plan.cpp", 1082): (False, SYCL + " (cacheWidth)"),
    ("src/plan.cpp", 1092): (True,
        "LIBRETT_USES_CUDA cacheWidth = 32/sizeofType (32-byte L2 sectors) for the memory model; the HIP arm sets "
        "64/sizeofType ('AMD change'): a per-backend hardware constant the ROCm build defines in its own arm"),
    ("src/plan.cpp", 467): (True,
        "`#else // CUDA and SYCL` shared-memory volume (TILEDIM+1)*TILEDIM for the padded Tiled tile; the HIP arm uses "
        "TILEDIM*TILEDIM, matching the HIP transposeTiled's unpadded shTile"),
    ("src/plan.h", 39): (False, SYCL + " (TILEDIM)"),
    ("src/plan.h", 49): (True,
        "LIBRETT_USES_CUDA TILEDIM = 32 (one warp per tile row); the HIP arm sets 64 to match the wave64 ballot masks "
        "the HIP kernels use, which the ROCm build needs"),
    ("src/uniapi.h", 45): (False,
        "`#define LIBRETT_USES_CUDA 1` when neither SYCL nor HIP is selected: the CUDA default; the ROCm build gets "
        "LIBRETT_USES_HIP from its build flags and needs nothing at this line"),
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
