"""Second judge's blind kernel verdicts for heldout33 (session 26, helper j33, branch s26-j33).

    python3 bench/judged/heldout33/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the kernels `select_kernels.py /tmp/j33` draws (pgkl 8, torch_memory_saver 0 (host-only
C++), CaMa-Flood-GPU 8, pystencils 0 (kernels generated at run time)) = 16 definitions x MI300X, MI355X (wave64) and
MI455X (wave32) = 48 rows. The trees were built by this judge with `bench/judged/make_trees.py heldout33 /tmp/j33`
from the mirrors. Each kernel was judged from the code: the kernel, its device helpers and included headers, its
launch sites, the build files and the project's ROCm arms. From s26-h33 only select_kernels.py, projects.json and the
key fields of guards.jsonl (through sample_guards_second.py) were read before the blind commit.

Conventions (brief j33, as heldout30): judge hipify's output compiled by hip-clang; blocks below the wave size (or
stepping by 32) on real work are retune on wave64; textures are fix; a kernel no build compiles is ok; a macro (or
shared-header) problem is decided per kernel that reaches it; a CUDA kernel the ROCm build replaces with a hand-kept
HIP twin is judged by the twin (ok when complete and right).

Facts used:
- pgkl: CMake builds src/cuda/*.cu under PGKL_ENABLE_CUDA and src/hip/*.cpp (LANGUAGE HIP) under PGKL_ENABLE_HIP. Each
  HIP twin's kernel body is textually the CUDA kernel (checked with a diff after renaming cuda->hip: only includes,
  hipLaunchKernelGGL launches and whitespace differ). Launches: reduction 256 threads; stencil 16x16; matmul
  tile x tile with tile 8, 16 or 32 (64, 256, 1024 threads; 1024 is within HIP's default flat work-group size).
- CaMa-Flood-GPU: the .cu files are built by hydroforge's load_inline_cu_module (mirror Kshy0/hydroforge, build.py):
  on a ROCm torch PyTorch hipifies the sources and only --use_fast_math is renamed; hydroforge's registry says the
  cuda backend "doubles as the AMD compiled path when explicitly selected" (Triton is the default on both vendors).
  So the .cu kernels are judged under hipify, the Triton ones as Triton on ROCm.
- block_reduce.cuh (included by adaptive_time.cu, levee.cu, storage.cu) calls __shfl_down_sync with an `unsigned`
  mask taken from __activemask() in cmf_shfl_down_sum/max, and tests `lane + offset >= 32` against 32-lane groups
  (lane = threadIdx.x & 31, warp = threadIdx.x >> 5, partial[32]). HIP's *_sync shuffles static_assert a 64-bit
  mask (ROCm/clr amd_warp_sync_functions.h); clang instantiates the template from the non-template
  cmf_shfl_down_max even when no kernel calls it (checked with clang-22 -x hip on a stand-in template with the same
  static_assert), so every TU including the header fails to compile until the mask type is widened. Past that, the
  32-lane logical groups are correct on wave64 (shfl_down inside a 64-wide wave reads lane+offset, the `>= 32` test
  keeps each half separate, warp 0's final pass stays in lanes 0-31) and on wave32.
- The kernels that do not call the block reductions (k_levee_bif_outflow in levee.cu) are judged on their own code,
  per the per-kernel convention; the header's fix is charged to the kernels that reach it.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
rows = []


def add(project, path, line, kernel, verdicts, reasons):
    if isinstance(verdicts, str):
        verdicts = (verdicts,) * 3
    if isinstance(reasons, str):
        reasons = (reasons,) * 3
    for t, v, r in zip(T, verdicts, reasons):
        rows.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                     "project": project, "reason": r, "target": t})


# ---------------------------------------------------------------- pgkl
P = "ryan-charette/cuda-vs-rocm-kernels"
TWIN = ("; the HIP build (PGKL_ENABLE_HIP, src/hip/*.cpp as LANGUAGE HIP) carries a hand-kept twin whose body is the "
        "same code, launched with hipLaunchKernelGGL and the same geometry")
add(P, "src/cuda/reduction_cuda.cu", 16, "reduction_kernel", "ok",
    "two-elements-per-thread sum into dynamic shared memory, then a __syncthreads tree over blockDim/2..1, 256-thread "
    "blocks, no warp code" + TWIN + " (reduction_hip.cpp): ok")
add(P, "src/cuda/matmul_tiled_cuda.cu", 84, "matmul_tiled_kernel_32", "ok",
    "32x32 shared-memory tiled SGEMM, 32x32 = 1024-thread blocks (within HIP's default 1024 flat work-group size), "
    "8 KB LDS, __syncthreads around each tile" + TWIN + " (matmul_tiled_hip.cpp): ok")
add(P, "src/cuda/stencil2d_cuda.cu", 12, "stencil2d_kernel", "ok",
    "five-point Laplacian, one thread per cell, 16x16 blocks, borders copied, global loads only" + TWIN +
    " (stencil2d_hip.cpp): ok")
add(P, "src/hip/reduction_hip.cpp", 16, "reduction_kernel", "ok",
    "the hand-kept HIP reduction (built as HIP under PGKL_ENABLE_HIP): shared-memory __syncthreads tree over 256 "
    "threads, no warp-size assumption; correct and sensibly shaped on wave64 and wave32: ok")
add(P, "src/hip/stencil2d_hip.cpp", 14, "stencil2d_kernel", "ok",
    "the hand-kept HIP five-point stencil: 16x16 = 256-thread blocks, one thread per cell, global loads only: ok")
add(P, "src/cuda/matmul_tiled_cuda.cu", 12, "matmul_tiled_kernel_8", "ok",
    "8x8 shared-memory tiled SGEMM, 8x8 = 64-thread blocks (one full wave64, two wave32s), __syncthreads per tile"
    + TWIN + " (matmul_tiled_hip.cpp): ok")
add(P, "src/hip/matmul_tiled_hip.cpp", 50, "matmul_tiled_kernel_16", "ok",
    "the hand-kept HIP 16x16 tiled SGEMM: 256-thread blocks, 2 KB LDS, __syncthreads per tile, no warp code: ok")
add(P, "src/hip/matmul_tiled_hip.cpp", 14, "matmul_tiled_kernel_8", "ok",
    "the hand-kept HIP 8x8 tiled SGEMM: 64-thread blocks, a full wave64 (not sub-wave), two waves on wave32: ok")

# ---------------------------------------------------------------- CaMa-Flood-GPU
P = "Kshy0/CaMa-Flood-GPU"
HIPIFY = (" Built by hydroforge's load_inline, which PyTorch hipifies on a ROCm torch (the cuda backend is the "
          "project's AMD compiled path when selected).")
TRI = " Triton kernel; Triton's AMD backend compiles it on ROCm (cbrt goes through utils.py's IS_HIP_BUILD arm)."
add(P, "cmfgpu/phys/cuda/bifurcation.cu", 132, "k_bif_inflow", "ok",
    "one thread per bifurcation path: scales each level's outflow by the up/downstream limit rate and scatters the "
    "net with atomicAdd (float/double; double atomics are native or CAS on CDNA/gfx12); __ldg maps to HIP; no warp "
    "or block-size assumption." + HIPIFY + " bifurcation.cu does not include block_reduce.cuh: ok")
add(P, "cmfgpu/phys/cuda/adaptive_time.cu", 20, "k_adaptive_time", "fix",
    "CFL sub-step count per catchment folded with cmf_block_atomic_max (block_reduce.cuh): `unsigned active_mask = "
    "__activemask()` passed to __shfl_down_sync, which HIP rejects (static_assert on a 64-bit mask; __activemask is "
    "64-bit on AMD). Widening the mask type (or dropping it) is the fix; the 32-lane logical groups (lane & 31, "
    "partial[32], source_lane >= 32) stay correct inside a wave64 and a wave32, so nothing else changes." + HIPIFY +
    ": fix")
add(P, "cmfgpu/phys/triton/bifurcation.py", 107, "compute_bifurcation_inflow_kernel", "ok",
    "Triton: BLOCK_SIZE paths per program, masked loads, static_range over levels, tl.where limit and "
    "tl.atomic_add of the net (f64 accumulator)." + TRI + ": ok")
add(P, "cmfgpu/phys/cuda/reservoir.cu", 19, "k_reservoir_outflow", "ok",
    "one thread per reservoir: undoes/re-applies the outgoing-storage scatter with atomicAdd and computes the "
    "4-regime release with sqrt/exp/log; scalar math only, no warp code, no block_reduce include." + HIPIFY + ": ok")
add(P, "cmfgpu/phys/triton/outflow.py", 721, "compute_inflow_batched_kernel", "ok",
    "Triton, batched over trials: limit-rate scaling of river/flood outflow and tl.atomic_add into downstream "
    "inflow and reservoir inflow." + TRI + ": ok")
add(P, "cmfgpu/phys/cuda/outflow.cu", 181, "k_inflow", "ok",
    "one thread per catchment: limit-rate scaling and atomicAdd scatter to the downstream cell, `if constexpr` on "
    "HAS_BIFURCATION; outflow.cu does not include block_reduce.cuh; no warp code." + HIPIFY + ": ok")
add(P, "cmfgpu/phys/triton/outflow.py", 319, "compute_inflow_kernel", "ok",
    "Triton single-trial inflow: limit-rate scaling and tl.atomic_add to downstream river/flood/reservoir "
    "inflow." + TRI + ": ok")
add(P, "cmfgpu/phys/cuda/levee.cu", 264, "k_levee_bif_outflow", "ok",
    "one thread per bifurcation path: per-level semi-implicit outflow with pow73 (cbrt), limit rate and atomicAdd "
    "scatter; no warp code, and it does not call block_reduce.cuh's reductions. levee.cu includes that header, so "
    "the levee TU fails to compile under HIP until its shuffle mask is widened, but that fix belongs to "
    "k_levee_stage/k_adaptive_time, which reach it (per-kernel convention)." + HIPIFY + ": ok")

assert len(rows) == 48, len(rows)
with open(HERE / "kernels_second.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(f"wrote {len(rows)} rows")
