"""Second judge's blind guard verdicts for heldout35. The keys come from sample_guards_second.py: every one of the 21
sides of the first judge's guards.jsonl (13 C/C++, 8 Python). Only the keys were read; `real`/`reason` were dropped as
each row was read. Each side is judged real or not real, as heldout30's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is missing
  (CUDA includes/types/APIs, CUDA build definitions, nvcc-only flags and tools that must not reach hipcc);
- not real: no CUDA code at the lines (a comment, an #error or a raise, a CPU/host fallback), the non-ROCm arm of a
  ROCm-only check, or CUDA-only knobs AMD has no use for.
The verdicts were written before the first judge's verdicts were opened.

    python bench/judged/heldout35/sample_guards_second.py bench/judged/heldout35/guards.jsonl > bench/judged/heldout35/guard_keys_second.jsonl
    python bench/judged/heldout35/make_guards_second.py bench/judged/heldout35/guard_keys_second.jsonl > bench/judged/heldout35/guards_second.jsonl
"""
import json
import sys

GT = "GridTools/gridtools"
G4 = "GridTools/gt4py"
PX = "src/gt4py/cartesian/backend/pyext_builder.py"
V = {
    # ---- GridTools
    (GT, "include/gridtools/common/cuda_runtime.hpp", 54): (True,
        "`#include <cuda_runtime.h>` in the #else of the HIP arm, which includes hip_runtime.h and #defines the cuda* "
        "runtime names to hip*"),
    (GT, "include/gridtools/common/cuda_util.hpp", 86): (False,
        "`cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ...)` under #ifndef __HIPCC__: "
        "NVIDIA's opt-in for more than 48 KB of dynamic shared memory, a CUDA-only knob the HIP build skips on purpose "
        "(AMD needs no opt-in); the launch itself is shared"),
    (GT, "include/gridtools/fn/backend/naive.hpp", 34): (False,
        "`thread_pool::dummy`, the #else of `_OPENMP || GT_HIP_OPENMP_WORKAROUND`: the host naive backend without "
        "OpenMP, no CUDA code"),
    (GT, "include/gridtools/reduction/gpu.hpp", 124): (True,
        "the CUDA warp_reduce overloads (__shfl_down_sync with 32-bit masks, __reduce_*_sync for sm_80), the #else of "
        "`#ifdef __HIP__` whose arm supplies __shfl_down versions for widths 2-64"),
    (GT, "include/gridtools/reduction/gpu.hpp", 257): (False,
        "`meta::lazy::id<big_warp_kernel<WarpSize, BlockSize>>`, the #else of `__HIP__ && HIP_VERSION <= 400` (a "
        "workaround for an old HIP compiler bug): the shared path that current HIP also takes, not CUDA code"),
    (GT, "include/gridtools/stencil/gpu/make_kernel_fun.hpp", 63): (False,
        "the #else of `#ifdef __HIPCC__ #pragma unroll 3` holds only a comment (no unrolling on NVIDIA V100): no code"),
    (GT, "include/gridtools/stencil/gpu/make_kernel_fun.hpp", 88): (False,
        "the same #else with only a comment in the second k-loop: no code"),
    (GT, "include/gridtools/storage/adapter/python_sid_adapter.hpp", 276): (True,
        "reads the `__cuda_array_interface__` attribute in the #else of `__HIP__`, whose arm reads "
        "`__hip_array_interface__`: CUDA interop code with a ROCm counterpart"),
    # ---- gt4py
    (G4, PX, 69): (True,
        "the non-ROCm arm computes the CUDA compute capability (get_cuda_compute_capability, sm_ stripping, checks); "
        "the ROCm arm takes cuda_arch from the config for --offload-arch"),
    (G4, PX, 110): (True,
        "nvcc-only flags (-isystem=, -arch=sm_XX, --expt-relaxed-constexpr, --compiler-options) in the non-ROCm arm; "
        "the ROCm arm gives hipcc -isystem, -fPIC and --offload-arch"),
    (G4, PX, 136): (True,
        "the nvcc spelling `-isystem=<dace>/runtime/include` in the non-ROCm arm; the ROCm arm gives the hipcc "
        "spelling"),
    (G4, PX, 291): (True,
        "links `cudart` in the non-ROCm arm; the ROCm arm links a HIP library instead"),
    (G4, PX, 345): (True,
        "sets the .cu compiler to `nvcc` in the non-ROCm arm; the ROCm arm uses hipcc"),
    (G4, "src/gt4py/cartesian/utils/compiler.py", 168): (True,
        "GPUCompilerName.NVCC and CUDA's lib64 library path in the non-ROCm arm; the ROCm arm picks the ROCm "
        "compiler and lib"),
    (G4, "src/gt4py/next/field_utils.py", 97): (False,
        "`return array_ns == np`, the CPU arm of `device in [CUDA, ROCM]`: host NumPy, no CUDA code"),
    (G4, "src/gt4py/storage/cartesian/utils.py", 53): (False,
        "`raise ValueError(\"CuPy is available but no suitable device was found.\")`, the last else after the CUDA "
        "and ROCM allocator arms: no CUDA code"),
    # ---- Vship
    ("Line-fr/Vship", "src/util/float3operations.hpp", 99): (True,
        "float3 arithmetic operators (*=, +=, *, /, -, +, fmaf) under #ifndef __HIPCC__: CUDA's vector types lack "
        "them, HIP's own float3 supplies them, and the definitions must not reach hipcc; CUDA-side code with a ROCm "
        "counterpart (the HIP headers)"),
    # ---- BM3DCUDA
    ("WolframRhodium/VapourSynth-BM3DCUDA", "hip_source/kernel.hip.cpp", 383): (False,
        "`__launch_bounds__(32)`, the #else of a chain on AMD gfx10/gfx11 target macros inside the hand-kept HIP twin: "
        "the bound for other AMD targets, no CUDA code"),
    # ---- GHEX
    ("ghex-org/GHEX", "bindings/python/src/_pyghex/structured/regular/field_descriptor.cpp", 58): (True,
        "`using type = nanobind::device::cuda;` in the #else of __HIP_PLATFORM_AMD__, whose arm uses "
        "nanobind::device::rocm"),
    ("ghex-org/GHEX", "bindings/python/src/_pyghex/unstructured/field_descriptor.cpp", 48): (True,
        "`using type = nanobind::device::cuda;` in the #else of __HIP_PLATFORM_AMD__, whose arm uses "
        "nanobind::device::rocm"),
    ("ghex-org/GHEX", "include/ghex/device/cuda/runtime.hpp", 77): (True,
        "`#include <cuda_runtime.h>` in the #else of __HIP_PLATFORM_AMD__, whose arm includes hip_runtime.h and "
        "#defines the cuda* names GHEX uses to hip*"),
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
