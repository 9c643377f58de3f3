"""Second judge's blind kernel verdicts for heldout47 (issue 27, session 31).

    python3 bench/judged/heldout47/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the 25 kernels `select_kernels.py /tmp/<judge>/h47` draws (seed 3471; nvblox 8,
seticore 8, EETQ 3, ChaNGa 6; CUDA-only set, no guards) x MI300X, MI355X (wave64) and MI455X (wave32) = 75 rows, in
the layout of kernels.jsonl (commit, expected, kernel, line, path, project, reason, target).

The builder (h47) leaves this file as a skeleton: DRAWN and add() with no verdicts. The second judge builds the trees
with `make_trees.py heldout47 DIR` from the mirrors, re-runs the draw (it must print DRAWN exactly), judges each kernel
from the code alone (the kernel, its device helpers, launch sites, macros, template instantiations and build files)
without reading kernels.jsonl, findings.jsonl or README.md of this directory first, fills the add(...) calls below and
commits the result before opening the first judge's files. porter/, rules/ and tests/ are not read and porter is not
run.

Conventions (session 22's, as in ../heldout30/README.md and ../heldout41/README.md): judge hipify's output compiled by
hip-clang; scale ok / check / retune / fix / rewrite / blocked; a sub-wave block, or one stepping by 32, on real work
is retune on wave64; textures are fix; code no build compiles (commented out, in no build, a template never
instantiated) is ok; macro and translation-unit problems are decided per kernel that reaches them; launches are read
as hip-clang lexes them; a problem that is the same on CUDA is not port work.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
SCALE = ("ok", "check", "retune", "fix", "rewrite", "blocked")

# (project, path, first line, kernel) as select_kernels.py prints them; no verdicts here.
DRAWN = [
    ("nvidia-isaac/nvblox", "nvblox/src/integrators/occupancy_decay_integrator.cu", 35, "decayProbabilityKernel"),
    ("nvidia-isaac/nvblox", "nvblox/include/nvblox/integrators/internal/cuda/impl/projective_integrator_impl.cuh", 57,
     "integrateBlocksKernel"),
    ("nvidia-isaac/nvblox", "nvblox/src/semantics/image_projector.cu", 19, "projectImageKernel"),
    ("nvidia-isaac/nvblox", "nvblox/src/semantics/image_masker.cu", 122, "splitDepthImageKernel"),
    ("nvidia-isaac/nvblox", "nvblox/src/core/warmup.cu", 21, "warm_up_gpu"),
    ("nvidia-isaac/nvblox", "nvblox/src/mesh/mesh_integrator.cu", 297, "isBlockMeshableKernel"),
    ("nvidia-isaac/nvblox", "nvblox/src/sensors/pointcloud.cu", 44, "transformPointcloudKernel"),
    ("nvidia-isaac/nvblox", "nvblox/src/integrators/tsdf_decay_integrator.cu", 67, "decayTsdfKernel"),
    ("lacker/seticore", "beamformer.cu", 35, "beamform"),
    ("lacker/seticore", "upchannelizer.cu", 50, "convertRaw"),
    ("lacker/seticore", "dedoppler.cu", 63, "sumColumns"),
    ("lacker/seticore", "beamformer.cu", 237, "calculatePower"),
    ("lacker/seticore", "taylor.cu", 219, "tiledTaylorKernel"),
    ("lacker/seticore", "upchannelizer.cu", 90, "shift"),
    ("lacker/seticore", "taylor.cu", 97, "oneStepTaylorKernel"),
    ("lacker/seticore", "dedoppler.cu", 32, "findTopPathSums"),
    ("NetEase-FuXi/EETQ", "csrc/weightOnlyBatchedGemv/kernel.h", 472, "weight_only_batched_gemv_wrapper"),
    ("NetEase-FuXi/EETQ", "csrc/layernorm_kernels/layernorm.cu", 26, "generalT5LayerNorm"),
    ("NetEase-FuXi/EETQ", "csrc/embedding_kernels/pos_encoding_kernels.cu", 13, "rotary_embedding_neox_kernel"),
    # select_kernels.py prints this one as `__attribute__` (the first identifier before a `(` after `__global__`
    # is the `__attribute__(( always_inline ))` of the non-CUDA_UNIT_TEST arm); kernels.jsonl names the function.
    ("N-BodyShop/changa", "CUDAMoments.cu", 10, "CUDA_momEvalFmomrcm"),
    ("N-BodyShop/changa", "HostCUDA.cu", 2195, "ZeroVars"),
    ("N-BodyShop/changa", "HostCUDA.cu", 724, "gpuLocalTreeWalk"),
    ("N-BodyShop/changa", "HostCUDA.cu", 1958, "EwaldKernel"),
    ("N-BodyShop/changa", "HostCUDA.cu", 1566, "particleGravityComputation"),
    ("N-BodyShop/changa", "HostCUDA.cu", 1009, "nodeGravityComputation"),
]
rows: list[dict] = []


def add(project, path, line, kernel, verdicts, reasons):
    """One kernel: verdicts and reasons are one value for all three targets or a (mi300x, mi355x, mi455x) tuple."""
    if isinstance(verdicts, str):
        verdicts = (verdicts,) * 3
    if isinstance(reasons, str):
        reasons = (reasons,) * 3
    assert (project, path, line, kernel) in DRAWN, (project, path, line, kernel)
    for t, v, r in zip(T, verdicts, reasons):
        assert v in SCALE, v
        rows.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                     "project": project, "reason": r, "target": t})


# Judged by j47 (session 31) from the code in /tmp/j47 (make_trees.py heldout47 /tmp/j47); porter not run,
# porter/ rules/ tests/ not read, the first judge's files not opened before this file was committed.
NV, SETI, EETQ, CH = "nvidia-isaac/nvblox", "lacker/seticore", "NetEase-FuXi/EETQ", "N-BodyShop/changa"
VOX = ("one 8x8x8 = 512-thread block per VoxelBlock (kThreadsPerBlock(kVoxelsPerSide^3)); ")

# nvblox: plain per-voxel / per-pixel / per-point kernels; no warp code, PTX, textures or __CUDA_ARCH__ in src/ or
# include/ (cub is used only by the meshing and ESDF sort kernels, not drawn).
add(NV, "nvblox/src/integrators/occupancy_decay_integrator.cu", 35, "decayProbabilityKernel", "ok",
    VOX + "per-voxel log-odds decay, thread 0 sets the block flag before __syncthreads and other threads write false "
    "(benign same-value race on both vendors); nothing wave- or vendor-specific: ok")
add(NV, "nvblox/include/nvblox/integrators/internal/cuda/impl/projective_integrator_impl.cuh", 57,
    "integrateBlocksKernel", "ok",
    VOX + "camera overload: project the voxel, nearest-pixel interpolation, then the update functor (TSDF / "
    "occupancy / freespace operator() on plain float fields); Eigen fixed-size math in device code, which Eigen "
    "supports under HIP: ok")
add(NV, "nvblox/src/semantics/image_projector.cu", 19, "projectImageKernel", "ok",
    "one thread per pixel in 8x8 blocks (constexpr dim3, constexpr in HIP's dim3 too); back-projects depth and "
    "appends with atomicAdd(int*) on a counter; 64-thread blocks fill a wave64: ok")
add(NV, "nvblox/src/semantics/image_masker.cu", 122, "splitDepthImageKernel", "ok",
    "one thread per pixel, 8x8 blocks; unproject, transform, project into the mask camera, read the min-depth "
    "image (filled by a separate atomicMinFloat kernel) and copy to masked/unmasked outputs; std::isinf/fmin in "
    "device code compile under hip-clang: ok")
add(NV, "nvblox/src/core/warmup.cu", 21, "warm_up_gpu", "ok",
    "empty warm-up kernel <<<64, 128>>> (called from a benchmark only); nothing to port: ok")
add(NV, "nvblox/src/mesh/mesh_integrator.cu", 297, "isBlockMeshableKernel", "ok",
    VOX + "grid-strides over blocks and flags a block meshable if any voxel is near the surface; `dim3 voxel_index "
    "= threadIdx` converts through HIP's __HIP_Coordinates::operator dim3: ok")
add(NV, "nvblox/src/sensors/pointcloud.cu", 44, "transformPointcloudKernel", "ok",
    "one thread per point, 512-thread blocks; Eigen Isometry3f * Vector3f: ok")
add(NV, "nvblox/src/integrators/tsdf_decay_integrator.cu", 67, "decayTsdfKernel", "ok",
    VOX + "per-voxel weight decay with fmaxf and a block 'fully decayed' flag (same benign same-value writes as the "
    "occupancy decay): ok")

# seticore: Meson cuda build; cuBLAS/cuFFT are host-side (runCublasBeamform's cublasCgemm3mStridedBatched is a host
# library item, no drawn kernel reaches it); no warp intrinsics anywhere.
add(SETI, "beamformer.cu", 35, "beamform", "ok",
    "non-cuBLAS beamformer (use_cublas_beamform defaults true; only beamformer_test sets false): block of "
    "num_antennas (<= 64) threads, __shared__ thrust::complex reduced[64], tree reduction k = 32..1 with "
    "`antenna + k < num_antennas` and __syncthreads each step, so correct for any wave size; the block is the "
    "data's size (antenna count), not a tuning constant, and underfills a 32-wide warp alike: ok")
add(SETI, "upchannelizer.cu", 50, "convertRaw", "ok",
    "int8 -> complex<float> layout conversion, 1024-thread blocks (CUDA_MAX_THREADS = HIP's max too), one thread per "
    "time sample: ok")
add(SETI, "dedoppler.cu", 63, "sumColumns", "ok",
    "one thread per frequency sums a column, 1024-thread blocks: ok")
add(SETI, "beamformer.cu", 237, "calculatePower", "ok",
    "block of sti (<= MAX_STI = 8) threads, __shared__ float reduced[8], shared-memory tree with __syncthreads; the "
    "block is the recipe's STI (data-sized, underfills a CUDA warp as much in proportion), no lane assumption: ok")
add(SETI, "taylor.cu", 219, "tiledTaylorKernel", "ok",
    "Taylor-tree de-Doppler in shared memory, instantiated <4>, <8>, <16>, <32>; tile_width = 4096/n threads "
    "(1024..128), 2 x 16 KiB static LDS; constexpr tileWidth with assert used as an array bound compiles with "
    "hip-clang (checked, gfx942 and gfx1250); no warp code: ok")
add(SETI, "upchannelizer.cu", 90, "shift", "ok",
    "post-FFT reorder with fine-channel high-bit flip; block dim3(1, num_antennas, num_polarizations) (<= 128 "
    "threads, the data's shape), one element per thread: ok")
add(SETI, "taylor.cu", 97, "oneStepTaylorKernel", "ok",
    "one Taylor-tree step per frequency (taylorOneStepOneChannel, bounds-checked loads), 1024-thread blocks: ok")
add(SETI, "dedoppler.cu", 32, "findTopPathSums", "ok",
    "one thread per frequency keeps the running max path sum across drift blocks, 1024-thread blocks: ok")

# EETQ: PyTorch CUDAExtension; ENABLE_BF16 is defined nowhere in setup.py, so the bf16 launches are not compiled.
add(EETQ, "csrc/weightOnlyBatchedGemv/kernel.h", 472, "weight_only_batched_gemv_wrapper", "fix",
    "TRT-LLM batched GEMV (fp16 instantiations in the 8 weightOnlyBatchedGemvBs*.cu units): dequantises through "
    "cutlass_extensions' FastInterleavedAndBiasedNumericArrayConverter, whose int8/int4 paths are inline PTX "
    "(prmt.b32, sub.f16x2, lop3.b32: plain bit ops / __byte_perm / half2 math replace them) on CUTLASS numeric types; "
    "Layout::sync uses __shfl_xor_sync(~0, ...) (an int mask: HIP requires 64-bit); the WarpSize = 32 logical "
    "warps (xor 16..1, sm[BlockSize/32]) stay correct on wave64; the bf16 arm sits under __CUDA_ARCH__ >= 800 and "
    "ENABLE_BF16, neither defined (not compiled on either vendor): fix")
add(EETQ, "csrc/layernorm_kernels/layernorm.cu", 26, "generalT5LayerNorm", "fix",
    "T5 RMS layernorm, one block per row (<= 1024 threads); blockReduceSum/warpReduceSum use "
    "__shfl_xor_sync(FINAL_MASK = 0xffffffff, v, m, 32) (32-bit mask: HIP's static_assert wants 64-bit); the "
    "width-32 logical warps (lane = tid & 31, shared[32]) and the thread-0 read stay correct on wave64/wave32: fix")
add(EETQ, "csrc/embedding_kernels/pos_encoding_kernels.cu", 13, "rotary_embedding_neox_kernel", "fix",
    "vLLM-derived NeoX rotary, one block per token (<= 512 threads), dispatched for float, double, Half and "
    "BFloat16: `__ldg(cache_ptr + i)` on c10::Half/c10::BFloat16 has no HIP overload (c10's __ldg overloads are "
    "CUDA-only; vLLM's ROCm arm replaced __ldg by a plain load, VLLM_LDG); otherwise plain math: fix")

# ChaNGa: cuda.mk.in builds HostCUDA.cu only, with -DCUDA -DSPCUDA -DHAPI_MEMPOOL -DPINNED_HOST_MEMORY
# -DCUDA_2D_TB_KERNEL (+ -DGPU_LOCAL_TREE_WALK with --enable-gpu-local-tree-walk, default no); HEXADECAPOLE is on
# by default (configure.ac). HostCUDA.cu includes cuda/intrinsics/{voting,shfl}.hu, which stop with
# `#error "must be compiled with nvcc only"` unless __NVCC__ is defined, and whose wrappers take
# `unsigned mask = 0xFFFFFFFF`; hip-clang defines neither CUDART_VERSION nor __CUDA_ARCH__, so after the guard is
# dropped they take the legacy __shfl_down/__any arms (present in HIP). The TU item is charged to the kernels that
# call the wrappers (heldout44's convention), not to every kernel in the unit.
add(CH, "CUDAMoments.cu", 10, "CUDA_momEvalFmomrcm", "ok",
    "a __global__ only under -DCUDA_UNIT_TEST (a commented-out option in cuda.mk.in; then it is also called "
    "without <<<>>> from other kernels, so that build is not a real configuration); in every build it is an "
    "always_inline __device__ hexadecapole evaluation in double arithmetic, no warp code or intrinsics: ok")
add(CH, "HostCUDA.cu", 2195, "ZeroVars", "ok",
    "zeroes accelerations/potential, one thread per particle, launched with THREADS_PER_BLOCK = 128 and indexed with "
    "BLOCK_SIZE = 128; does not call the #error-guarded shfl/voting wrappers (a HostCUDA.cu TU item): ok")
add(CH, "HostCUDA.cu", 724, "gpuLocalTreeWalk", "fix",
    "opt-in (--enable-gpu-local-tree-walk), judged as compiled when enabled: calls the voting.hu `any` wrapper "
    "(#error unless __NVCC__, 32-bit default mask); `#if __CUDA_ARCH__ >= 700` selects the per-thread stack and "
    "__syncwarp, so hip-clang takes the pre-Volta lockstep arm: a per-32-lane stack in shared memory (WARP_INDEX = "
    "threadIdx.x >> 5) updated by several lanes without volatile or barriers, which relies on warp-synchronous "
    "shared accesses; a port must select the per-thread arm (or make the lockstep arm safe): fix")
add(CH, "HostCUDA.cu", 1958, "EwaldKernel", "ok",
    "Ewald real- and k-space sums, one thread per particle, 128-thread blocks, __constant__ cachedData/ewt filled "
    "with cudaMemcpyToSymbolAsync (hipMemcpyToSymbolAsync); erfcf/erff/expf/sincos plain math; does not reach the "
    "wrappers: ok")
add(CH, "HostCUDA.cu", 1566, "particleGravityComputation", "fix",
    "CUDA_2D_TB_KERNEL arm (the default): 8 x 16 blocks, interaction-list tiles in shared memory with __syncthreads, "
    "then a width-8 shfl_down reduction through shfl.hu's wrapper (#error unless __NVCC__, 32-bit default mask); "
    "width 8 stays inside a wave on wave64/wave32; __launch_bounds__(1408, 1) is clamped to 1024 by hip-clang "
    "(checked) and the launch uses 128: fix")
add(CH, "HostCUDA.cu", 1009, "nodeGravityComputation", "fix",
    "CUDA_2D_TB_KERNEL, not CUDA_2D_FLAT arm (the default): 8 x 16 blocks, moments tiles loaded with __ldg into "
    "shared memory, hexadecapole CUDA_momEvalFmomrcm, then a width-8 shfl_down reduction through shfl.hu's wrapper "
    "(#error unless __NVCC__, 32-bit default mask); the width-8 groups are correct on any wave size: fix")


if __name__ == "__main__":
    judged = {(r["project"], r["path"], r["line"], r["kernel"]) for r in rows}
    missing = [k for k in DRAWN if k not in judged]
    if missing or len(rows) != 3 * len(DRAWN):
        raise SystemExit(f"{len(missing)} of {len(DRAWN)} drawn kernels have no verdict yet; nothing written")
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows")
