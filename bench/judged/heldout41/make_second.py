"""Second judge's blind kernel verdicts for heldout41 (issue 27, session 29, branch s29-j41).

    python3 bench/judged/heldout41/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the 37 kernels `select_kernels.py /tmp/j41/h41` draws (seed 3411; faimGraph 8,
GPU-NTT 8, cuNSearch 6, BasicSR 8, PointRCNN 7; CUDA-only set, no guards) x MI300X, MI355X (wave64) and MI455X
(wave32) = 111 rows, in the layout of kernels.jsonl (commit, expected, kernel, line, path, project, reason, target).
The builder (h41) left this file as a skeleton with DRAWN and no verdicts; the second judge built the trees with
`make_trees.py heldout41 /tmp/j41/h41` from the mirrors (/tmp/h41 was not used), re-ran the draw (it prints DRAWN
exactly), judged each kernel from the code alone (the kernel, its device helpers, launch sites, macros, template
instantiations and build files) and filled the add(...) calls below. Before the blind commit only select_kernels.py,
projects.json and this skeleton were read from s29-h41; porter/, rules/ and tests/ were not read and porter was not
run. (What the judge saw of the first judge before that commit is disclosed in README_second.md.)

HIP facts used (checked locally with clang-22 -x hip --offload-arch=gfx942 -nogpuinc -nogpulib where marked):
- hip-clang lexes `k << <grid, block >> > (args)` as a shift and a comparison: "expected expression" (checked).
  hipify-perl/hipify-clang do not respace it, so such a launch must be rewritten.
- HIP has no __syncwarp (HIPIFY's CUDA_Device_API_supported_by_HIP table lists no HIP counterpart; vllm-project/vllm
  PR 25996 quotes hip-clang's "use of undeclared identifier '__syncwarp'"). A no-argument __syncwarp() is a
  non-dependent call, so hip-clang rejects it inside a template that is never instantiated (checked).
- hip-clang defines neither __CUDA_ARCH__ nor __CUDACC__ (checked with -dM -E), and hipify does not map them, so
  `#ifdef __CUDA_ARCH__` bodies compile empty under HIP.
- Inline PTX (`"=l"` constraints, mul.lo/mul.hi.u64, sub.cc/subc.u64) is rejected for amdgcn: "invalid output
  constraint '=l' in asm" (checked on the same pattern as GPU-NTT's modular_arith.cuh).
- warpSize is 64 on gfx942/gfx950 and 32 on gfx1250; a wavefront runs in lockstep.
Conventions (session 22's, as in ../heldout30/README.md and ../heldout38/README_second.md): judge hipify's output
compiled by hip-clang; scale ok / check / retune / fix / rewrite / blocked; a sub-wave block, or one stepping by 32,
on real work is retune on wave64; textures are fix; code no build compiles (commented out, in no build, a template
never instantiated) is ok; macro and translation-unit problems are decided per kernel that reaches them; launches are
read as hip-clang lexes them; a problem that is the same on CUDA (e.g. a header removed from current PyTorch) is not
port work.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
SCALE = ("ok", "check", "retune", "fix", "rewrite", "blocked")

# (project, path, first line, kernel) as select_kernels.py prints them; no verdicts here.
DRAWN = [
    ("GPUPeople/faimGraph", "include/EdgeQuery.cuh", 156, "d_resolveQueriesVertexCentric"),
    ("GPUPeople/faimGraph", "include/EdgeUtility.cuh", 580, "d_testSelfLoops"),
    ("GPUPeople/faimGraph", "include/EdgeUtility.cuh", 28, "d_realisticEdgeDeletionUpdate"),
    ("GPUPeople/faimGraph", "src/SpMV.cu", 25, "d_SpMVMultiplication"),
    ("GPUPeople/faimGraph", "include/algorithms/PageRank.cuh", 59, "d_algPageRankNaiveWarp"),
    ("GPUPeople/faimGraph", "include/EdgeUtility.cuh", 531, "d_testUndirectedness"),
    ("GPUPeople/faimGraph", "include/VertexDeletion.cuh", 150, "d_vertexDeletion"),
    ("GPUPeople/faimGraph", "include/faimGraph.cuh", 251, "d_faimGraphMatrixToCSR"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 1875, "FourStepPartialInverseCore"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 232, "FourStepForwardCoreT2"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 1515, "FourStepInverseCoreT3"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_merge/ntt.cu", 3403, "InverseCoreModulusOrdered"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 572, "FourStepForwardCoreT4"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 398, "FourStepForwardCoreT3"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_4step/ntt_4step.cu", 69, "FourStepForwardCoreT1"),
    ("Alisah-Ozcan/GPU-NTT", "src/lib/ntt_merge/ntt.cu", 4183, "InverseCorePolyOrdered_"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 181, "kNeighborhoodQueryWithCounts"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 108, "kCountingSortIndices"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 71, "kInsertParticles"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 125, "kComputeCounts"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 41, "kComputeMinMax"),
    ("InteractiveComputerGraphics/cuNSearch", "src/cuNSearchKernels.cu", 89, "kInsertParticles_Morton"),
    ("XPixelGroup/BasicSR", "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 191, "deformable_im2col_gpu_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 280, "deformable_col2im_gpu_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 696,
     "modulated_deformable_col2im_coord_gpu_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/upfirdn2d/src/upfirdn2d_kernel.cu", 110, "upfirdn2d_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/upfirdn2d/src/upfirdn2d_kernel.cu", 51, "upfirdn2d_kernel_large"),
    ("XPixelGroup/BasicSR", "basicsr/ops/fused_act/src/fused_bias_act_kernel.cu", 20, "fused_bias_act_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 636,
     "modulated_deformable_col2im_gpu_kernel"),
    ("XPixelGroup/BasicSR", "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 374, "deformable_col2im_coord_gpu_kernel"),
    ("sshaoshuai/PointRCNN", "lib/utils/roipool3d/src/roipool3d_kernel.cu", 123, "get_pooled_idx"),
    ("sshaoshuai/PointRCNN", "lib/utils/iou3d/src/iou3d_kernel.cu", 306, "nms_normal_kernel"),
    ("sshaoshuai/PointRCNN", "lib/utils/iou3d/src/iou3d_kernel.cu", 223, "boxes_overlap_kernel"),
    ("sshaoshuai/PointRCNN", "lib/utils/roipool3d/src/roipool3d_kernel.cu", 31, "roipool3d_forward"),
    ("sshaoshuai/PointRCNN", "lib/utils/roipool3d/src/roipool3d_kernel.cu", 97, "assign_pts_to_box3d"),
    ("sshaoshuai/PointRCNN", "lib/utils/iou3d/src/iou3d_kernel.cu", 236, "boxes_iou_bev_kernel"),
    ("sshaoshuai/PointRCNN", "lib/utils/iou3d/src/iou3d_kernel.cu", 250, "nms_kernel"),
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


# ---------------------------------------------------------------- faimGraph
# Instantiations.cu includes every drawn .cuh kernel; SpMV.cu is its own library source (CMakeLists.txt).
P = "GPUPeople/faimGraph"
SPACED = ("launched only as `<< <grid_size, block_size >> >` ({}), which hip-clang lexes as a shift and a "
          "comparison ('expected expression', checked with clang-22 -x hip), and hipify leaves the spacing: the "
          "launch must be rewritten")
add(P, "include/EdgeQuery.cuh", 156, "d_resolveQueriesVertexCentric", "fix",
    "one thread per source vertex walks its paged adjacency and binary-searches the sorted queries (no warp code, "
    "256-thread blocks); " + SPACED.format("EdgeQuery.cuh:260, deviceQuery, instantiated in Instantiations.cu") +
    ": fix")
add(P, "include/EdgeUtility.cuh", 580, "d_testSelfLoops", "fix",
    "one thread per vertex scans its adjacency and printf's self loops (plain loads); " +
    SPACED.format("EdgeUtility.cuh:1002, MemoryManager::testSelfLoops, instantiated") + ": fix")
add(P, "include/EdgeUtility.cuh", 28, "d_realisticEdgeDeletionUpdate", "fix",
    "one thread per update picks the (tid % neighbours)-th edge through the AdjacencyIterator (plain loads); " +
    SPACED.format("EdgeUtility.cuh:857") + ": fix")
add(P, "src/SpMV.cu", 25, "d_SpMVMultiplication", "fix",
    "one thread per row accumulates matrix_value * x over the paged row (no warp code); its only launch is the "
    "`else` arm of a hard-coded `warpsized = true`, but it is compiled, and " +
    SPACED.format("SpMV.cu:270") + ": fix")
add(P, "include/algorithms/PageRank.cuh", 59, "d_algPageRankNaiveWarp", "fix",
    "its only launch is commented out (PageRank.cuh:277), so the template is never instantiated, but its body calls "
    "__syncwarp() three times with no argument: a non-dependent name, and HIP has no __syncwarp (HIPIFY lists no HIP "
    "counterpart), so hip-clang rejects the uninstantiated template at definition ('use of undeclared identifier "
    "__syncwarp', checked with clang-22 -x hip) and Instantiations.cu does not build until this body is edited or "
    "removed (the 32-lane WARPSIZE groups in a 128-thread block would be correct in lockstep once the syncs are "
    "wave barriers): fix")
add(P, "include/EdgeUtility.cuh", 531, "d_testUndirectedness", "fix",
    "one thread per vertex checks every edge for its back edge (nested adjacency walks, printf); " +
    SPACED.format("EdgeUtility.cuh:985, MemoryManager::testUndirectedness, instantiated") + ": fix")
add(P, "include/VertexDeletion.cuh", 150, "d_vertexDeletion", "fix",
    "one thread per deleted vertex claims it with atomicExch and returns its pages and index through "
    "IndexQueue::enqueue/enqueueAlternating, whose bodies sit under `#ifdef __CUDA_ARCH__` (Queue.h), which "
    "hip-clang does not define and hipify does not map: on HIP they compile empty (enqueue falls off the end of a "
    "bool function), so pages and vertex ids are never recycled; and " +
    SPACED.format("VertexDeletion.cuh:286") + ": fix")
add(P, "include/faimGraph.cuh", 251, "d_faimGraphMatrixToCSR", "fix",
    "one thread per row copies the paged matrix row into CSR arrays (plain loads); launched with "
    "KERNEL_LAUNCH_BLOCK_SIZE = 32 threads (verifyMatrixStructure), which would be retune on wave64, but " +
    SPACED.format("faimGraph.cuh:899") + ": fix")

# ---------------------------------------------------------------- GPU-NTT
# src/CMakeLists.txt builds all six lib/*.cu into libntt; every kernel template is explicitly instantiated for
# Data32 and Data64 in its .cu.
P = "Alisah-Ozcan/GPU-NTT"
PTX = ("its butterflies (CooleyTukeyUnit_/GentlemanSandeUnit_, or OPERATOR_GPU<T>::mult directly) reach "
       "modular_arith.cuh's Barrett mult, whose 64-bit path uses inline PTX (mult128: mul.lo/mul.hi.u64; "
       "uint128_t::operator-: sub.cc/subc.u64), explicitly instantiated for Data64 in this file; hip-clang rejects "
       "the PTX constraints for amdgcn ('invalid output constraint =l', checked with clang-22 on the same pattern) "
       "and hipify does not translate asm: the 64-bit multiply needs __umul64hi or unsigned __int128")
B256 = "dim3(32, 8) = 256-thread blocks, shared-memory transposes and stages with __syncthreads, no warp-level code"
add(P, "src/lib/ntt_4step/ntt_4step.cu", 1875, "FourStepPartialInverseCore", "fix",
    "RNS four-step inverse partial core: 64/128/256-thread blocks (GPU_4STEP_NTT), 512-entry shared array, "
    "__syncthreads between stages, no warp-level code; " + PTX + ": fix")
add(P, "src/lib/ntt_4step/ntt_4step.cu", 232, "FourStepForwardCoreT2", "fix",
    "RNS four-step forward column NTT over a 16x65 shared tile; " + B256 + "; " + PTX + ": fix")
add(P, "src/lib/ntt_4step/ntt_4step.cu", 1515, "FourStepInverseCoreT3", "fix",
    "RNS four-step inverse column NTT over a shared tile; " + B256 + "; " + PTX + ": fix")
add(P, "src/lib/ntt_merge/ntt.cu", 3403, "InverseCoreModulusOrdered", "fix",
    "merged inverse NTT stage with a per-modulus order table, dynamic shared memory (512..1024 x sizeof(T)), "
    "256/512-thread blocks from ntt.cuh's KernelConfig tables, __syncthreads per stage, no warp-level code; " +
    PTX + ": fix")
add(P, "src/lib/ntt_4step/ntt_4step.cu", 572, "FourStepForwardCoreT4", "fix",
    "RNS four-step forward column NTT (n = 2^24 case); " + B256 + "; " + PTX + ": fix")
add(P, "src/lib/ntt_4step/ntt_4step.cu", 398, "FourStepForwardCoreT3", "fix",
    "RNS four-step forward column NTT over a shared tile; " + B256 + "; " + PTX + ": fix")
add(P, "src/lib/ntt_4step/ntt_4step.cu", 69, "FourStepForwardCoreT1", "fix",
    "RNS four-step forward 32-point column NTT over a 32x33 shared tile (the 32 is the tile width, not a warp); " +
    B256 + "; " + PTX + ": fix")
add(P, "src/lib/ntt_merge/ntt.cu", 4183, "InverseCorePolyOrdered_", "fix",
    "merged inverse NTT first stage with a per-polynomial order table, dynamic shared memory, 256/512-thread "
    "blocks from the KernelConfig tables, __syncthreads per stage, no warp-level code; " + PTX + ": fix")

# ---------------------------------------------------------------- cuNSearch
# CMakeLists.txt builds src/*.cu into the cuNSearch library; ThreadsPerBlock = 64 (PointSetImplementation.cu:12).
P = "InteractiveComputerGraphics/cuNSearch"
CSP = ("64-thread blocks (one wave64, two wave32 waves), one thread per particle, no warp-level code; launched "
       "only as `<< <BlockStartsForParticles, ThreadsPerBlock >> >` ({}), which hip-clang lexes as a shift and a "
       "comparison ('expected expression', checked with clang-22 -x hip), and hipify leaves the spacing: the "
       "launch must be rewritten")
add(P, "src/cuNSearchKernels.cu", 181, "kNeighborhoodQueryWithCounts", "fix",
    "writes up to CUDA_MAX_NEIGHBORS neighbour ids per query point from the 27 surrounding Morton cells; " +
    CSP.format("cuNSearchDeviceData.cu:231") + ": fix")
add(P, "src/cuNSearchKernels.cu", 108, "kCountingSortIndices", "fix",
    "scatters each particle index to sortIndicesSrc + cellOffsets; " + CSP.format("cuNSearchDeviceData.cu:150") +
    ": fix")
add(P, "src/cuNSearchKernels.cu", 71, "kInsertParticles", "ok",
    "linear-grid cell index plus atomicAdd on a uint cell counter (HIP has it); compiled in cuNSearchKernels.cu, "
    "which has no launch syntax of its own, and launched nowhere (only kInsertParticles_Morton is): nothing to "
    "port: ok")
add(P, "src/cuNSearchKernels.cu", 125, "kComputeCounts", "fix",
    "counts neighbours within the search radius over the 27 surrounding Morton cells (double Real3 by default); " +
    CSP.format("cuNSearchDeviceData.cu:189") + ": fix")
add(P, "src/cuNSearchKernels.cu", 41, "kComputeMinMax", "fix",
    "floor(particle / radius) then atomicMin/atomicMax on int cell bounds (HIP has both); " +
    CSP.format("cuNSearchDeviceData.cu:40") + ": fix")
add(P, "src/cuNSearchKernels.cu", 89, "kInsertParticles_Morton", "fix",
    "Morton meta-grid cell index plus atomicAdd on the cell counter; " + CSP.format("cuNSearchDeviceData.cu:133") +
    ": fix")

# ---------------------------------------------------------------- BasicSR
# setup.py builds CUDAExtension(...) when BASICSR_EXT=True and torch.cuda.is_available() (true on a ROCm torch,
# which hipifies the sources and passes the nvcc args, here only -D__CUDA_NO_HALF*__ defines, to hipcc).
P = "XPixelGroup/BasicSR"
DCN = ("grid-stride CUDA_KERNEL_LOOP over 1024-thread blocks (GET_BLOCKS caps the grid at 65535), plain loads, "
       "AT_DISPATCH_FLOATING_TYPES_AND_HALF, no warp-level code")
THC = ("; deform_conv_cuda_kernel.cu includes <THC/THCAtomics.cuh>, which current PyTorch no longer ships on "
       "either platform (the same build break on CUDA, not port work)")
add(P, "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 191, "deformable_im2col_gpu_kernel", "ok",
    "bilinear-sampled im2col for deformable convolution; " + DCN + THC + ": ok")
add(P, "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 280, "deformable_col2im_gpu_kernel", "ok",
    "scatters gradients to the input with atomicAdd on scalar_t (float/double native on gfx942/gfx950/gfx1250, "
    "at::Half through ATen's atomic overloads as on CUDA); " + DCN + THC + ": ok")
add(P, "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 696, "modulated_deformable_col2im_coord_gpu_kernel", "ok",
    "offset and mask gradients for DCNv2, one thread per offset channel element with an inner loop, plain stores; "
    + DCN + THC + ": ok")
add(P, "basicsr/ops/upfirdn2d/src/upfirdn2d_kernel.cu", 110, "upfirdn2d_kernel", "ok",
    "tiled upsample-FIR-downsample: 256-thread blocks (32 * 8), volatile float shared tiles for taps and input, "
    "__syncthreads, six template instantiations chosen on the host; no warp-level code: ok")
add(P, "basicsr/ops/upfirdn2d/src/upfirdn2d_kernel.cu", 51, "upfirdn2d_kernel_large", "ok",
    "generic upfirdn2d fallback: dim3(4, 32) = 128-thread blocks, per-thread loops, plain loads; no warp-level "
    "code: ok")
add(P, "basicsr/ops/fused_act/src/fused_bias_act_kernel.cu", 20, "fused_bias_act_kernel", "ok",
    "elementwise bias + leaky-ReLU (and its gradients), static __global__ launched in the same file with "
    "4 * 32 = 128-thread blocks, loop_x = 4 elements per thread; no warp-level code: ok")
add(P, "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 636, "modulated_deformable_col2im_gpu_kernel", "ok",
    "DCNv2 input-gradient scatter with atomicAdd on scalar_t; " + DCN + THC + ": ok")
add(P, "basicsr/ops/dcn/src/deform_conv_cuda_kernel.cu", 374, "deformable_col2im_coord_gpu_kernel", "ok",
    "offset gradients for DCNv1, one thread per offset element with an inner channel loop; " + DCN + THC + ": ok")

# ---------------------------------------------------------------- PointRCNN
# lib/utils/iou3d/setup.py and lib/utils/roipool3d/setup.py each build a CUDAExtension (hipified on a ROCm torch).
P = "sshaoshuai/PointRCNN"
add(P, "lib/utils/roipool3d/src/roipool3d_kernel.cu", 123, "get_pooled_idx", "ok",
    "one thread per box gathers up to sampled_pts_num assigned point indices and pads by repetition; 256-thread "
    "blocks (roipool3dLauncher), plain loads: ok")
add(P, "lib/utils/iou3d/src/iou3d_kernel.cu", 306, "nms_normal_kernel", "ok",
    "axis-aligned NMS: 64-thread blocks (THREADS_PER_BLOCK_NMS = bits of unsigned long long; one wave64, two "
    "wave32 waves), boxes staged in shared memory behind __syncthreads, each thread builds a 64-bit suppression "
    "word (an algorithmic bitmask, not a lane mask): ok")
add(P, "lib/utils/iou3d/src/iou3d_kernel.cu", 223, "boxes_overlap_kernel", "ok",
    "rotated BEV box overlap per (a, b) pair through box_overlap (cos/sin/atan2, a 16-point polygon in registers); "
    "16 x 16 = 256-thread blocks, no warp-level code: ok")
add(P, "lib/utils/roipool3d/src/roipool3d_kernel.cu", 31, "roipool3d_forward", "ok",
    "the slow path's first overload: one thread per box loops over all points and copies in-box features; "
    "256-thread blocks (roipool3dLauncher_slow), plain loads: ok")
add(P, "lib/utils/roipool3d/src/roipool3d_kernel.cu", 97, "assign_pts_to_box3d", "ok",
    "one thread per (point, box, batch) writes an in-box flag; 256-thread blocks, plain math: ok")
add(P, "lib/utils/iou3d/src/iou3d_kernel.cu", 236, "boxes_iou_bev_kernel", "ok",
    "rotated BEV IoU per (a, b) pair through iou_bev/box_overlap; 16 x 16 = 256-thread blocks, no warp-level code: "
    "ok")
add(P, "lib/utils/iou3d/src/iou3d_kernel.cu", 250, "nms_kernel", "ok",
    "rotated-box NMS: 64-thread blocks (one wave64, two wave32 waves), shared-memory box tile behind "
    "__syncthreads, a 64-bit suppression word per thread built with iou_bev (an algorithmic bitmask, not a lane "
    "mask): ok")


if __name__ == "__main__":
    judged = {(r["project"], r["path"], r["line"], r["kernel"]) for r in rows}
    missing = [k for k in DRAWN if k not in judged]
    if missing or len(rows) != 3 * len(DRAWN):
        raise SystemExit(f"{len(missing)} of {len(DRAWN)} drawn kernels have no verdict yet; nothing written")
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows")
