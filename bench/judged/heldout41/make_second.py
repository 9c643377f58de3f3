"""Second judge's blind kernel verdicts for heldout41 (issue 27, session 29; to be completed on the judge's branch).

    python3 bench/judged/heldout41/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the 37 kernels `select_kernels.py TREES` draws (seed 3411; faimGraph 8, GPU-NTT 8,
cuNSearch 6, BasicSR 8, PointRCNN 7; CUDA-only set, no guards) x MI300X, MI355X (wave64) and MI455X (wave32) = 111
rows, in the layout of kernels.jsonl (commit, expected, kernel, line, path, project, reason, target).

The builder (h41) leaves this file as a skeleton, with the drawn kernels listed in DRAWN and no verdict and no reason
in it, as heldout38's second judge found the layout of ../heldout38/make_second.py. The second judge builds the trees
from the mirrors (`make_trees.py heldout41 /tmp/j41/h41`), re-runs the draw to check DRAWN, judges each kernel from the
code alone (the kernel, its device helpers, launch sites, macros, template instantiations and build files), fills one
`add(...)` call per kernel below and commits before opening kernels.jsonl, findings.jsonl or README.md of this set.

Conventions (session 22's, restated in ../heldout30/README.md and ../heldout38/README.md): judge hipify's output
compiled by hip-clang for gfx942/gfx950 (wave64) and gfx1250 (wave32); scale ok / check / retune / fix / rewrite /
blocked; a sub-wave block, or one stepping by 32, on real work is retune on wave64; textures are fix; code no build
compiles (commented out, in no build, a template never instantiated) is ok; macro and translation-unit problems are
decided per kernel that reaches them; launches are read as hip-clang lexes them.
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


# ---------------------------------------------------------------- the second judge's verdicts go here, e.g.
# add("GPUPeople/faimGraph", "include/EdgeQuery.cuh", 156, "d_resolveQueriesVertexCentric", "<verdict>", "<reason>")


if __name__ == "__main__":
    judged = {(r["project"], r["path"], r["line"], r["kernel"]) for r in rows}
    missing = [k for k in DRAWN if k not in judged]
    if missing or len(rows) != 3 * len(DRAWN):
        raise SystemExit(f"{len(missing)} of {len(DRAWN)} drawn kernels have no verdict yet; nothing written")
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows")
