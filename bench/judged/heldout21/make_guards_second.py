"""Second judge's blind guard verdicts for heldout21: the 30 C/C++ keys drawn by sample_guards_second.py
(random.Random(3213).sample over the 71 sorted C/C++ keys of the first judge's guards.jsonl, keys only) plus every
Python-side key (6), each judged real (the ROCm build needs equivalent code at that CUDA side to work: its arm,
twin or wrapper supplies it) or not (no CUDA code at the lines, tuning arms that would work unchanged under hipcc,
diagnostics the HIP arm does without, the non-ROCm arm of a torch.version.hip test). Written before the first
judge's verdicts were opened.

    python bench/judged/heldout21/sample_guards_second.py <(git show s21-h21:bench/judged/heldout21/guards.jsonl) > bench/judged/heldout21/guard_keys_second.jsonl
    python bench/judged/heldout21/make_guards_second.py bench/judged/heldout21/guard_keys_second.jsonl > bench/judged/heldout21/guards_second.jsonl
"""
import json
import sys

LAUNCH = ("USE_CUDA triple-chevron launch of a functor kernel; the USE_HIP arm launches it with hipLaunchKernelGGL: "
          "the ROCm build needs that launch")
READIND = ("USE_CUDA arm passes blockDim/blockIdx/threadIdx straight to calcReadInd; the USE_HIP arm converts them "
           "(dim3(...), GetUint3 -> HIP_vector_type<unsigned,3>), which the ROCm build needs to compile")
CUBLAS_GEMM = ("USE_CUBLAS arm: cuBLAS handle, native CUDA stream from the SYCL interop handle and cublas*gemm; the "
               "USE_HIPBLAS arm does the same with hipblasSetStream / hipblas*gemm on the ext_oneapi_hip queue")
HALF_AB = ("USE_CUBLAS arm builds alpha/beta as CUDA __half_raw/half (cuda_fp16 types the hipBLAS build does not "
           "have); the #else arm the hipBLAS build compiles supplies sycl::half alpha = 1, beta = 0 for hipblasHgemm")
PRINTF = ("`#ifndef USE_HIP_AMD` device printf diagnostic in the HISQ force projection: the ROCm build drops it, "
          "nothing equivalent is needed for it to work")
NOT_ROCM_PY = "the non-ROCm arm of a torch.version.hip test"
V = {
    ("SparseGrids/tsgCudaBasisEvaluations.hpp", 37): (True,
        "Tasmanian_ENABLE_CUDA block: cuda.h / cuda_runtime_api.h / sm_*_atomic_functions.h (+ a pre-sm60 double "
        "atomicAdd); the Tasmanian_ENABLE_HIP block right after includes hip/hip_runtime.h for the same kernels"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 899): (True, HALF_AB),
    ("src/base/runFunctors.h", 121): (True, READIND),
    ("src/base/math/random.h", 9): (False,
        "USE_CUDA #include <curand_kernel.h>, but nothing in random.h (or the tree) calls curand: SIMULATeQCD's own "
        "RNG; the HIP build needs no hiprand include there"),
    ("src/modules/dslash/dslash.cpp", 81): (False,
        "#else of USE_HIP in HisqDslashStackedFunctor: a plain #pragma unroll loop over mu and the stacks; the HIP arm "
        "uses static_for compile-time unrolling instead. The loop is ordinary C++ that compiles and runs under hipcc, "
        "so the HIP arm is an unrolling/performance choice, not port work"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 39): (False,
        "final #else of `#ifdef USE_HIPBLAS ... #elif USE_CUBLAS`: oneMKL includes for the Intel SYCL build; no CUDA "
        "code at these lines, and the hipBLAS build takes its own first arm"),
    ("src/modules/dslash/dslash.cpp", 34): (False,
        "#else of USE_HIP in HisqDslashFunctor: #pragma unroll loop over mu; the HIP arm spells the same sum with "
        "static_for. The loop compiles and runs under hipcc: an unrolling choice, not port work"),
    ("src/base/wrapper/marker.h", 22): (True,
        "USE_MARKER/USE_CUDA nvtxRangePop; the USE_HIP arm calls roctxRangePop (the ROCm build needs the roctx call)"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 1153): (True, HALF_AB),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 282): (True, CUBLAS_GEMM + " (SE layer FC2 Sgemm)"),
    ("src/gauge/constructs/derivativeProjectU3.h", 92): (False, PRINTF),
    ("src/base/runFunctors.h", 299): (True, LAUNCH + " (performCopyConstObject)"),
    ("src/modules/dslash/dslash.cpp", 6): (False,
        "#else of USE_HIP_AMD: BLOCKSIZE 32 for the Dslash functor launches (64 on AMD); a block-size tuning "
        "constant, the launches (performFunctor __launch_bounds__(64)) work with 32 under HIP as well"),
    ("InterfaceTPL/tsgHipWrappers.hpp", 37): (False,
        "`#ifndef Tasmanian_ENABLE_HIP #error` sanity check in the HIP wrapper itself: no CUDA code"),
    ("SparseGrids/gridtestUnitTests.cpp", 311): (True,
        "Tasmanian_ENABLE_CUDA test arm creating and setting a cuBLAS handle; the Tasmanian_ENABLE_HIP arm right "
        "after checks isHipEnabled and sets a rocblas_handle"),
    ("SparseGrids/tsgAcceleratedDataStructures.hpp", 251): (True,
        "Tasmanian_ENABLE_CUDA GpuEngine members (cuBLAS/cuSparse/cuSolverDn handles and setters); the "
        "Tasmanian_ENABLE_HIP block holds the rocBLAS/rocSparse equivalents the ROCm build uses"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 548): (True, CUBLAS_GEMM + " (FC layer Hgemm)"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 366): (True, CUBLAS_GEMM + " (SE layer FC1 Hgemm)"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 973): (True,
        "USE_CUBLAS cuBlasContextManager::getcuBlasHandle_t(); the USE_HIPBLAS block below takes the hipblasHandle_t "
        "the batched GEMM needs"),
    ("src/base/wrapper/gpu_wrapper.h", 7): (True,
        "USE_CUDA wrapper: CUDA headers and gpu* -> cuda* macro map; the `#elif defined USE_HIP` arm maps the same "
        "names onto hip*, which every ROCm translation unit needs"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 1144): (True,
        "USE_CUBLAS handle fetch; the USE_HIPBLAS arm right after fetches the hipBLAS handle"),
    ("src/base/runFunctors.h", 474): (True, LAUNCH + " (performFunctorComm)"),
    ("src/neural/backends/sycl/layers.cc.dp.cpp", 2792): (False,
        "USE_CUBLAS CublasGetErrorString / CublasError helpers behind ReportCUBLASErrors; the hipBLAS arms call "
        "hipblas* without status checks and the build has no hipBLAS counterpart: diagnostics the ROCm build does "
        "without"),
    ("src/testing/main_simpleFunctorTest.cpp", 262): (True, LAUNCH + " (reference test kernel)"),
    ("src/base/runFunctors.h", 153): (True, LAUNCH + " (performFunctor)"),
    ("src/neural/backends/sycl/sycl_common.h", 53): (False,
        "USE_CUBLAS declaration of CublasError and the ReportCUBLASErrors macro; used only by the cuBLAS arms, the "
        "hipBLAS arms do not check status: nothing the ROCm build needs"),
    ("src/base/runFunctors.h", 95): (True, READIND + " (performFunctorLoop)"),
    ("src/base/runFunctors.h", 225): (True, LAUNCH + " (performFunctorLoop<Nloops>)"),
    ("src/base/wrapper/marker.h", 11): (True,
        "USE_MARKER/USE_CUDA nvtxRangePush; the USE_HIP arm calls roctxRangePush"),
    ("src/gauge/constructs/derivativeProjectU3.h", 81): (False, PRINTF),
    ("benchmarks/lib/environment.py", 119): (True,
        "non-ROCm arm of capture_environment: SM{major}{minor} from get_device_capability and the nvidia-smi driver "
        "version; the accelerator_backend == 'rocm' arm reads gcnArchName instead for the same environment record "
        "(version/architecture reporting with a ROCm arm, as gromacs' binary-information reporters in heldout19)"),
    ("benchmarks/lib/environment.py", 89): (True,
        "_accelerator_build returns ('cuda', torch.version.cuda); the torch.version.hip arm above returns "
        "('rocm', hip_version) for the same record (runtime reporting with a ROCm arm)"),
    ("comfy_kitchen/__init__.py", 49): (False,
        "else of `if torch.version.hip`: marks the HIP backend unavailable on CUDA/CPU PyTorch; " + NOT_ROCM_PY +
        " with no CUDA code, the ROCm work is in the if arm"),
    ("comfy_kitchen/backends/hip/__init__.py", 2266): (False,
        "inside the HIP backend's registration: `if not torch.version.hip: mark_unavailable; return`; " +
        NOT_ROCM_PY + ", nothing the ROCm build needs"),
    ("comfy_kitchen/flash_attention.py", 12): (False,
        "else: _hip_backend = None when PyTorch is not a ROCm build; " + NOT_ROCM_PY + ", no CUDA code"),
    ("comfy_kitchen/sage_attention.py", 19): (False,
        "else: _hip_backend = None when PyTorch is not a ROCm build; " + NOT_ROCM_PY + ", no CUDA code"),
}

n = 0
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    real, reason = V[(k["path"], k["first"])]
    k["real"] = real
    k["reason"] = reason
    n += 1
    print(json.dumps(k, sort_keys=True))
assert n == len(V) == 36, (n, len(V))
