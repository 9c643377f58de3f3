"""Second judge's blind guard verdicts for heldout28. The keys come from sample_guards_second.py (heldout25's script
with seed 3283): random.Random(3283).sample of 30 of the 61 C/C++ keys of the first judge's guards.jsonl plus its two
Python keys, 32 in all. Only the keys were read; `real`/`reason` were dropped as each row was read. Each side is
judged real or not real (heldout25's README_second.md):
- real: the ROCm build needs equivalent code at that CUDA side to work or to keep the GPU feature the CUDA side
  gives, whether its arm supplies it or it is missing;
- not real: no CUDA code at the lines (a host/CPU or generic arm, the non-ROCm arm of a ROCm-only check), or
  CUDA-only knobs, prints, unused helpers and optional variants for which the ROCm build already runs an equivalent
  GPU path.
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout28/sample_guards_second.py bench/judged/heldout28/guards.jsonl > bench/judged/heldout28/guard_keys_second.jsonl
    python bench/judged/heldout28/make_guards_second.py bench/judged/heldout28/guard_keys_second.jsonl > bench/judged/heldout28/guards_second.jsonl
"""
import json
import sys

ELPA_GPU = ("ELPA GPU offload for the SCF eigen-solver under USE_CUDA only; the ROCm build silently runs ELPA on the "
            "CPU. ELPA has AMD GPU support (the \"amd-gpu\" option and the ELPA_2STAGE_REAL_AMD_GPU kernel), so "
            "the port needs a USE_HIP arm to keep the GPU solver")
V = {
    # ---- mfem/mfem
    ("general/backends.hpp", 63): (False,
        "the host/CPU arm of `!(CUDA device || HIP device)`: MFEM_SHARED, MFEM_SYNC_THREAD, MFEM_FOREACH_THREAD as "
        "plain loops; no CUDA code, and the HIP device pass has its own definitions in hip.hpp"),
    ("general/backends.hpp", 18): (True,
        "MFEM_USE_CUDA includes of cusparse.h, library_types.h, cuda_runtime.h, cuda.h; the MFEM_USE_HIP arm "
        "includes hip/hip_runtime.h"),
    ("linalg/petsc.cpp", 108): (True,
        "PETSc device macros for CUDA (VECCUDA, MATAIJCUSPARSE, VecCUDAGetArray...); the MFEM_USE_HIP && "
        "PETSC_HAVE_HIP arm maps them to VECHIP and the VecHIP* calls"),
    ("general/mem_manager.cpp", 444): (True,
        "CuMemFree in the device memory space's Dealloc; the MFEM_USE_HIP arm calls HipMemFree (general/hip.cpp)"),
    ("general/scan.hpp", 55): (True,
        "checks the cub DeviceScan result against cudaSuccess; the HIP arm compares with hipSuccess"),
    ("general/cuda.cpp", 173): (True,
        "the body of CuMemcpyDtoHAsync (cudaMemcpyAsync device-to-host); general/hip.cpp's HipMemcpyDtoHAsync is the "
        "ROCm equivalent the HIP build uses"),
    ("linalg/batched/gpu_blas.hpp", 20): (True,
        "`#include <cublas_v2.h>` for the batched BLAS back end; the HIP arm includes hipblas/hipblas.h"),
    ("general/reducers.hpp", 553): (True,
        "the CUDA reduction's saturation constant mp_sat = 8 (tuned on V100); the MFEM_USE_HIP arm sets 4, tuned on "
        "MI300A: an AMD tuning value the ROCm build supplies"),
    # ---- blender/cycles
    ("src/device/cuda/device.cpp", 85): (True,
        "device_cuda_safe_init: cuInit(0) with a Windows SEH guard against driver crashes; the HIP device has the "
        "same device_hip_safe_init around hipInit (src/device/hip/device.cpp:117)"),
    ("src/device/cuda/kernel.h", 8): (True,
        "CUDADeviceKernel/CUDADeviceKernels (CUfunction plus occupancy data, the per-kernel cache); the HIP device "
        "has HIPDeviceKernel/HIPDeviceKernels in src/device/hip/kernel.h"),
    ("src/util/math_base.h", 433): (False,
        "__saturatef fast path under __KERNEL_CUDA__; HIP takes the generic clamp(a, 0, 1) arm, which is correct, so "
        "the ROCm build needs nothing here"),
    ("src/kernel/bvh/intersect_filter.h", 91): (False,
        "`using UIntType = uint16_t` is the generic arm of a __KERNEL_HIPRT__-only check (CPU, CUDA, OptiX, Metal and "
        "plain HIP all take it); not CUDA code"),
    ("src/device/hip/device.cpp", 252): (False,
        "`(void)devices;` in the #else of WITH_HIP, i.e. the build without HIP; no CUDA code"),
    ("src/kernel/svm/ao.h", 23): (False,
        "the OptiX direct-callable signature __direct_callable__svm_node_ao for the AO node; HIP and HIP RT compile "
        "the same body as the ordinary ccl_device svm_ao of the #else arm, so the ROCm build needs nothing here"),
    # ---- ExaChem/exachem
    ("exachem/scf/scf_iter.cpp", 684): (True, ELPA_GPU + " (real_kernel ELPA_2STAGE_REAL_NVIDIA_GPU)"),
    ("exachem/scf/scf_iter.cpp", 676): (True, ELPA_GPU + " (\"nvidia-gpu\" = 1)"),
    ("exachem/scf/scf_guess.cpp", 806): (True, ELPA_GPU + " (\"nvidia-gpu\" = 1)"),
    ("exachem/scf/scf_guess.cpp", 714): (True, ELPA_GPU + " (\"nvidia-gpu\" = 1)"),
    ("exachem/scf/scf_guess.cpp", 723): (True, ELPA_GPU + " (real_kernel ELPA_2STAGE_REAL_NVIDIA_GPU)"),
    ("exachem/scf/scf_common.cpp", 115): (True, ELPA_GPU + " (real_kernel ELPA_2STAGE_REAL_NVIDIA_GPU)"),
    ("exachem/cc/ccsd_t/ccsd_t_all_fused.hpp", 56): (False,
        "declaration of the NVIDIA FP64 tensor-core (T) driver, under USE_CUDA && USE_NV_TC; an optional CUDA-only "
        "variant: the ROCm build dispatches the generic fused (T) GPU kernel (fully_fused_ccsd_t_gpu, USE_HIP arm), "
        "which works"),
    ("exachem/cc/ccsd_t/ccsd_t_all_fused_gpu.cu", 30): (False,
        "USE_NV_TC includes of tensor_core_helper.cuh, memcpy_async and cuda/pipeline for the tensor-core variant; "
        "the file is not built for ROCm and the HIP build's generic kernel needs none of them"),
    ("exachem/cc/ccsd_t/ccsd_t_fused_driver.hpp", 30): (False,
        "checkCudaKernelCompatible (sm >= 80 and CUDA >= 11.1 for the tensor-core kernel); its only call is "
        "commented out (line 103), and it gates a CUDA-only variant"),
    ("exachem/cc/ccsd_t/ccsd_t_fused_driver.hpp", 103): (False,
        "a rank-0 print of which CUDA (T) kernel is enabled (TC or FP64) and the commented-out compatibility check; "
        "a message the ROCm build runs correctly without"),
    ("exachem/cc/ccsd_t/ccsd_t_fused_driver.hpp", 145): (True,
        "cudaEvent_t done_compute/done_copy created with cudaEventDisableTiming and destroyed by shared_ptr deleters, "
        "plus the host reduce data; the USE_HIP arm does the same with hipEventCreateWithFlags/hipEventDestroy"),
    ("exachem/cc/ccsd_t/ccsd_t_all_fused_nontcCuda_Hip_Sycl.cpp", 2749): (True,
        "the 32-lane __shfl_down_sync(0xffffffff) energy reduction and the per-warp partial store; the USE_HIP arm "
        "replaces it with a shared-memory store of all 256 partials, which the ROCm kernel needs"),
    ("exachem/cc/ccsd_t/ccsd_t_all_fused_nontcCuda_Hip_Sycl.cpp", 2775): (True,
        "thread (0,0) sums the 8 per-warp partials; the HIP/SYCL arm sums all 16 x 16 shared partials instead, the "
        "counterpart of the HIP reduction above"),
    ("exachem/cc/ccsd_t/ccsd_t.cpp", 222): (False,
        "the \"[Nvidia GPU]\" label of a log string; the USE_HIP arm prints \"[AMD GPU]\", a cosmetic label the ROCm "
        "build runs correctly without"),
    # ---- vetienne74/hpcscan
    ("src/grid_Factory.cpp", 12): (True,
        "includes of grid_Cuda.h, grid_Cuda_Optim.h, grid_Cuda_Ref.h for the CUDA grid modes; the __HIP__ arm "
        "includes grid_Hip.h and grid_Hip_Optim.h for its hand-kept HIP grids (there is no HIP Ref mode)"),
    ("src/hardware_Factory.cpp", 11): (True,
        "includes hardware_Cuda.h: Hardware_Cuda prints the device properties and measures GPU power through NVML "
        "for the benchmark's reports; the __HIP__ arm has `//retHardware = new Hardware_Hip(gridMode)` commented out "
        "and uses the generic CPU Hardware, so the AMD counterpart (device info, amd-smi/rocm-smi power) is missing"),
    # ---- fudan-zvg/SOFT (Python)
    ("setup.py", 63): (False,
        "the else of `if is_rocm_pytorch and hipify_ver < [1, 0, 0]`, i.e. the non-ROCm-specific arm of a ROCm-only "
        "check: it globs the .cu sources for CUDA and for modern ROCm torch alike (its comment says so); no CUDA-only "
        "code"),
    ("setup.py", 85): (True,
        "`if not is_rocm_pytorch`: WITH_CUDA and the nvcc flags (-O3, CUDA_HAS_FP16, __CUDA_NO_HALF_*); the ROCm arm "
        "defines WITH_HIP (which GaussianSubtraction.h and vision.cpp test) and empties the nvcc flags, which the "
        "ROCm build needs"),
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
