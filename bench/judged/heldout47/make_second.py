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


# The second judge's add(...) calls go here, one per drawn kernel, e.g.
# add("N-BodyShop/changa", "HostCUDA.cu", 2195, "ZeroVars", "<verdict>", "<one-line reason>")


if __name__ == "__main__":
    judged = {(r["project"], r["path"], r["line"], r["kernel"]) for r in rows}
    missing = [k for k in DRAWN if k not in judged]
    if missing or len(rows) != 3 * len(DRAWN):
        raise SystemExit(f"{len(missing)} of {len(DRAWN)} drawn kernels have no verdict yet; nothing written")
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows")
