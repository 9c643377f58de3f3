"""Second judge's blind kernel verdicts for heldout40 (session 29): a skeleton the first judge (h40) leaves for the
second judge, as heldout37/39 have their make_second.py. It holds no verdict; the second judge adds one `add(...)`
call per drawn kernel and runs it to write kernels_second.jsonl.

    python bench/judged/heldout40/select_kernels.py /tmp/j40      # the drawn list (no verdicts)
    python3 bench/judged/heldout40/make_second.py                  # after filling in the add() calls

Read before the blind commit only select_kernels.py, projects.json and, through sample_guards_second.py, the key
fields of guards.jsonl (guard_keys_second.jsonl holds exactly those keys); build the trees yourself with
`bench/judged/make_trees.py heldout40 /tmp/j40`. Do not open kernels.jsonl, guards.jsonl's verdicts, findings.jsonl
or README.md before committing.

Conventions (heldout30's, unchanged): judge hipify's output compiled by hip-clang for MI300X (gfx942, wave64), MI355X
(gfx950, wave64) and MI455X (gfx1250, wave32); ok / check / retune / fix / rewrite / blocked with a one-line reason;
blocks below the wave size on real work are retune; a kernel no build compiles is ok; a CUDA kernel the project's
ROCm build replaces with a hand-kept twin or ROCm arm is judged by its replacement (verdicts count open port work);
Triton kernels are judged on what Triton's AMD back end compiles (vendor-specific dtypes, intrinsics or tuning count).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
VERDICTS = ("ok", "check", "retune", "fix", "rewrite", "blocked")
rows = []


def add(project, path, line, kernel, verdicts, reasons):
    """One drawn kernel: a verdict (or one per target in T's order) and a reason (or one per target)."""
    if isinstance(verdicts, str):
        verdicts = (verdicts,) * 3
    if isinstance(reasons, str):
        reasons = (reasons,) * 3
    for t, v, r in zip(T, verdicts, reasons):
        assert v in VERDICTS, v
        rows.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                     "project": project, "reason": r, "target": t})


# Second judge (j40, session 29, branch s29-j40): verdicts written blind from the trees in /tmp/j40 (make_trees.py
# heldout40 /tmp/j40) and the draw of `select_kernels.py /tmp/j40`. Read from s29-h40 before the blind commit:
# select_kernels.py, projects.json, this skeleton, sample_guards_second.py and guard_keys_second.jsonl (keys only).
#
# Facts used:
# - dwarf-p-cloudsc: the CUDA variants (src/cloudsc_cuda: cloudsc_c, _hoist, _k_caching, _opt) are built by the
#   CLOUDSC_C_CUDA ecbuild feature; the HIP feature (src/cloudsc_hip, hipcc) builds hand-kept .cpp twins of cloudsc_c,
#   _hoist and _k_caching only: there is no HIP twin of cloudsc_c_opt. Block = nproma columns (a run-time argument; the
#   CUDA tests use 128, the HIP tests 64), one thread per column, no warp code.
# - WODEN: one source (src/*_gpu.cpp) built by nvcc or, with -DUSE_HIP=ON, by hipcc; include/gpu_macros.h maps gpu*
#   names and gpuCreal/gpuCmul/... to cuda*/cu* or hip* by __NVCC__/__HIPCC__. The drawn kernels are one-thread-per-
#   element kernels (no shared memory, warp intrinsics or atomics in any *_gpu.cpp), launched through
#   gpuErrorCheckKernel with 16x16, 128, 64x2 or 32x{1,2}x2 blocks.
# - imager: src/gpu/*.cpp built by nvcc (USE_CUDA) or hipcc (USE_HIP) through astroio's gpu_macros.hpp, whose HIP
#   arm maps __gpu_shfl_down to __shfl_down (CUDA: __shfl_down_sync(0xffffffff, ...)); NTHREADS = 1024.
# - hm-cupano: with --define=backend=hip the genrule hip_objs compiles every src/cuda/*.cu with hipcc -DUSE_HIP, and
#   src/gpu/gpu_runtime.h maps the cuda* runtime names to hip*; the kernels use the project's CudaSurface (a pitched
#   pointer, not a CUDA surface object) and 16x16 blocks. src/stable/video_stabilization.cu is a stand-alone example
#   built only by its `mk` script (nvcc).
# - Jacquard: the Cargo feature hip builds csrc/kernel_v1.hip.cpp (hipcc through ucc::cl_hip, default targets
#   gfx1030/gfx1100) around the same kernel_v1_impl.cuh; its launch wrappers call validate_warp_size(), which exits
#   with "CDNA / GCN GPUs (wave64) are not supported" unless warpSize == 32. ucc adds no warp-sync define and ulib's
#   includes.hpp no shuffle shim (eda-infra-rs read at its newest snapshot; the pinned submodule commit is not in the
#   mirror).
# - HIP's *_sync shuffles take a 64-bit mask (a static_assert rejects 0xffffffff) and were gated behind
#   HIP_ENABLE_WARP_SYNC_BUILTINS before ROCm 7 (as heldout30's flashfast row).

# ---------------------------------------------------------------- ecmwf-ifs/dwarf-p-cloudsc
P = "ecmwf-ifs/dwarf-p-cloudsc"
add(P, "src/cloudsc_cuda/cloudsc/cloudsc_c_opt.cu", 88, "cloudsc_c_opt", "fix",
    "the optimised CLOUDSC variant stages 20+ level fields through a two-stage shared-memory ring with libcu++ "
    "cuda::pipeline / cuda::memcpy_async / cuda::aligned_size_t (<cuda/pipeline>, <cooperative_groups/memcpy_async.h>), "
    "which HIP has no counterpart for and hipify leaves as is; the HIP feature has no twin of this variant (only "
    "cloudsc_c, _hoist, _k_caching). The physics is plain per-column code (block = nproma, no warp code) and "
    "52*nproma*sizeof(dtype) of dynamic LDS (53 KB at nproma 128, double) fits 64 KB, so the port is replacing the "
    "copy()/producer/consumer calls with plain loads into LDS and __syncthreads: fix")
add(P, "src/cloudsc_cuda/cloudsc/cloudsc_c.cu", 13, "cloudsc_c", "ok",
    "the plain CLOUDSC column kernel (one thread per column, block = nproma, no shared memory or warp code); the "
    "HIP feature builds its hand-kept twin src/cloudsc_hip/cloudsc/cloudsc_c.cpp, identical but for the "
    "hip_runtime.h include and ibl = blockIdx.x (its driver launches the blocks along x instead of z): the twin is "
    "complete, so no open work: ok")

# ---------------------------------------------------------------- JLBLine/WODEN
P = "JLBLine/WODEN"
ONE = ("one thread per element, no shared memory, warp intrinsics or atomics; compiled by hipcc in WODEN's USE_HIP "
       "build with gpu_macros.h's hip* arm")
add(P, "src/source_components_gpu.cpp", 868, "kern_extrap_list_fluxes", "ok",
    "extrapolates list-type Stokes fluxes per (component, frequency) through the __device__ helper "
    "extrap_stokes_list_fluxes_gpu; 16x16 blocks; " + ONE + ": ok")
add(P, "src/source_components_gpu.cpp", 574, "kern_extrap_power_laws_stokesV", "ok",
    "power-law Stokes V extrapolation per (component, frequency) via extrap_stokes_power_law_gpu; 16x16 blocks; "
    + ONE + ": ok")
add(P, "src/source_components_gpu.cpp", 2545, "kern_update_sum_visis_stokesIQUV", "ok",
    "per-visibility loop over components calling update_sum_visis_stokesIQUV_gpu (gpuUserComplex arithmetic through "
    "gpucomplex.h's operators over gpuCmulf/gpuCaddf, which map to hipCmulf/hipCaddf); each thread owns its "
    "baseline's sums, launched with 128-thread blocks by the unit test harness; " + ONE + ": ok")
add(P, "src/source_components_gpu.cpp", 729, "kern_polarisation_fraction_linpol", "ok",
    "Stokes Q = polarisation fraction x extrapolated Stokes I per (component, frequency); 16x16 blocks; " + ONE
    + ": ok")
add(P, "src/fundamental_coords_gpu.cpp", 124, "kern_calc_uv_shapelet", "ok",
    "u,v per (baseline x time, shapelet component) with double sin/cos; 128x1 or 64x2 blocks; " + ONE + ": ok")
add(P, "src/fundamental_coords_gpu.cpp", 30, "kern_calc_uvw", "ok",
    "u,v,w per cross-correlation via the calc_uvw device helper, 128-thread blocks; " + ONE + ": ok")
add(P, "src/primary_beam_gpu.cpp", 480, "kern_map_hyperbeam_gains", "ok",
    "copies mwa_hyperbeam's Jones matrices (double) into WODEN's gain arrays, one thread per (component, tile, "
    "freq); blocks 32x2x2 or 32x1x2 (128 or 64 threads, no warp-width assumption); " + ONE + ": ok")
add(P, "src/source_components_gpu.cpp", 2416, "kern_apply_beam_gains", "ok",
    "applies the beam gains and leakages to one visibility per thread through four __device__ helpers (complex "
    "arithmetic via gpucomplex.h); 128-thread blocks in its test launcher; " + ONE + ": ok")

# ---------------------------------------------------------------- PaCER-BLINK-Project/imager
P = "PaCER-BLINK-Project/imager"
GRID = "grid-stride loop, NTHREADS = 1024-thread blocks, multiProcessorCount*2 blocks"
add(P, "src/gpu/corrections_gpu.cpp", 41, "apply_geometric_corrections", "ok",
    "rotates each visibility's four polarisations by the w-term phase (double sincos); " + GRID + "; no warp "
    "code; built by the project's hipcc build: ok")
add(P, "src/gpu/gpu_utils.cpp", 98, "fft_shift_and_norm_y", "ok",
    "swaps rows for the FFT shift and divides by the per-image norm; the project's own __HIPCC__ arm divides the "
    "hipfftComplex (float2) with HIP's vector operator/, the CUDA arm component-wise; 1024-thread blocks, no warp "
    "code: ok")
add(P, "src/gpu/corrections_gpu.cpp", 7, "apply_cable_corrections", "ok",
    "per-visibility cable-length phase rotation (double sqrt/sincos, antenna pair from the baseline index); " + GRID
    + "; no warp code: ok")
add(P, "src/gpu/gpu_utils.cpp", 143, "averaging_kernel", "ok",
    "averages n_images complex images per pixel (astroio Complex<float>), one thread per pixel, 1024-thread blocks: "
    "ok")
add(P, "src/gpu/gpu_utils.cpp", 19, "vector_sum_kernel", ("ok", "ok", "fix"),
    ("grid-stride sum per image: a shuffle-down reduction over warpSize lanes (__gpu_shfl_down -> __shfl_down on "
     "HIP), per-warp partials in __shared__ partial_sums[NWARPS], then warp 0 reduces NWARPS partials and "
     "atomicAdds; 1024-thread blocks. The file sets WARPSIZE 64 for every non-nvcc build, so NWARPS = 16, which "
     "matches wave64 (1024/64 warps): ok",
     "as MI300X: WARPSIZE 64 and warpSize 64 agree, NWARPS = 16: ok",
     "the file's non-nvcc arm hard-codes WARPSIZE 64 (NWARPS = 16) while the kernel indexes by the run-time "
     "warpSize: on wave32 gfx1250 1024 threads form 32 warps, warpId 16..31 write partial_sums[16..31] past the "
     "16-entry shared array and the second stage sums only 16 partials, so the sums (the FFT normalisation) are "
     "wrong; WARPSIZE must follow the wave size: fix"))
add(P, "src/gpu/gpu_utils.cpp", 80, "fft_shift_and_norm_x", "ok",
    "swaps columns for the FFT shift (hipfftComplex elements), one thread per pair, 1024-thread blocks: ok")
add(P, "src/gpu/gridding_gpu.cpp", 58, "gridding_kernel", "ok",
    "grids each visibility to (u,v) and (-u,-v) cells with float atomicAdd on the counter and the .x/.y of the "
    "hipfftComplex grid (global float atomics: compiled as CAS loops or hardware FP atomics, correct either way); "
    + GRID + "; no warp code: ok")

# ---------------------------------------------------------------- cjolivier01/hm-cupano
P = "cjolivier01/hm-cupano"
CUP = ("16x16 blocks, batch in blockIdx.z, one thread per pixel, no shared memory or warp code; built by the "
       "backend=hip genrule with hipcc -DUSE_HIP through gpu_runtime.h's name map")
add(P, "src/cuda/cudaBlendN.cu", 373, "BatchedReconstructKernel1", "ok",
    "Laplacian-pyramid reconstruction: bilinear upsample of the lower level (alpha-aware for 4 channels) plus the "
    "blended Laplacian, float instantiations; " + CUP + ": ok")
add(P, "src/cuda/cudaFusedKernels3.cu", 125, "FusedRemapHardSeam3", "ok",
    "remaps three camera images onto the canvas, picking the source per pixel from the hard-seam mask through "
    "uint16 remap tables; " + CUP + ": ok")
add(P, "src/cuda/cudaBlendN.cu", 119, "BatchedComputeLaplacianKernelN", "ok",
    "Laplacian level = high - bilinear upsample(low) for N images (alpha-weighted for 4 channels), float "
    "instantiations for N = 2..8; " + CUP + ": ok")
add(P, "src/stable/video_stabilization.cu", 10, "warpKernel", "ok",
    "translation warp of an 8-bit frame, 16x16 blocks, one thread per pixel; a stand-alone example built only by "
    "src/stable/mk with nvcc (no Bazel target), and its code includes gpu_runtime.h and uses nothing vendor-specific: "
    "ok")
add(P, "src/cuda/cudaRemap.cu", 252, "BatchedRemapHardSeamKernelN", "ok",
    "N-image hard-seam remap: per pixel the dest map picks the image, its offset/size and uint16 maps; instantiated "
    "for uchar3/uchar4/float3/float4; " + CUP + ": ok")
add(P, "cupano/triton_ops.py", 87, "_copy_roi_kernel", "ok",
    "Triton ROI copy: masked 3-D (8 x 32 x CHANNELS) tl.load/tl.store with a clamp and uint8 cast, BLOCK_W 32, "
    "BLOCK_H 8, default num_warps; nothing Triton's AMD back end lacks (no tl.dot, no vendor dtype). Its "
    "tl.arange(0, CHANNELS) with CHANNELS = 3 is not a power of two and fails on every vendor, so that is a bug, "
    "not port work: ok")
add(P, "src/cuda/cudaRemap.cu", 129, "BatchedRemapKernelExOffsetROI", "ok",
    "remap over a ROI with offsets, default fill and alpha handling for 4-channel outputs (perform_cast between "
    "uchar/float vector types); " + CUP + ": ok")
add(P, "src/cuda/cudaBlendN.cu", 294, "BatchedReconstructKernelN", "ok",
    "N-image reconstruction (upsample + Laplacian per image); a template in an anonymous namespace that no host "
    "code launches (both reconstruct paths launch BatchedReconstructKernel1), so it is never instantiated or "
    "compiled, and its content (16x16-pixel float code) is portable anyway: ok")

# ---------------------------------------------------------------- gpu-eda/Jacquard
P = "gpu-eda/Jacquard"
JQ = ("the bit-packed gate-simulation kernel (256-thread blocks, cooperative grid sync per stage, launched with "
      "hipLaunchCooperativeKernel by kernel_v1.hip.cpp) calls simulate_block_v1, whose hier[4..7] stage reduces in "
      "the first 32 threads with __shfl_down_sync(0xffffffff, ...): HIP's sync shuffles need a 64-bit mask (and "
      "the warp-sync builtins flag before ROCm 7), and neither ucc nor ulib supplies a shim, so the masks must "
      "change")
add(P, "csrc/kernel_v1_impl.cuh", 565, "simulate_v1_noninteractive_simple_scan", "fix",
    (JQ + ". On wave64 the ROCm arm refuses the GPU outright (validate_warp_size: 'CDNA / GCN GPUs (wave64) are not "
     "supported'); the shuffles only read lanes 0..31 of the first wave, so the reduction holds on wave64 once the "
     "check is dropped: fix",
     JQ + ". Same as MI300X (wave64, refused by validate_warp_size): fix",
     JQ + ". gfx1250 is wave32, which the ROCm arm accepts; only the mask change is left: fix"))


if __name__ == "__main__":
    assert len(rows) == 26 * 3, f"{len(rows)} rows: one add() per drawn kernel is missing"
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in sorted(rows, key=lambda r: (r["project"], r["path"], r["line"], r["target"])):
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(len(rows), "rows")
