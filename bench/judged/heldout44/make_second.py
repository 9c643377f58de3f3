"""Second judge's blind kernel verdicts for heldout44 (issue 27, session 30).

    python3 bench/judged/heldout44/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the 30 kernels `select_kernels.py /tmp/<judge>/h44` draws (seed 3441; CUDASW4 8,
GSWITCH 8, cuZK 8, torch-mesh-isect 6; CUDA-only set, no guards) x MI300X, MI355X (wave64) and MI455X (wave32) = 90
rows, in the layout of kernels.jsonl (commit, expected, kernel, line, path, project, reason, target).

The builder (h44) leaves this file as a skeleton: DRAWN and add() with no verdicts. The second judge builds the trees
with `make_trees.py heldout44 DIR` from the mirrors, re-runs the draw (it must print DRAWN exactly), judges each kernel
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
    ("asbschmidt/CUDASW4", "src/oldkernels.cuh", 4643, "NW_convert_protein"),
    ("asbschmidt/CUDASW4", "src/hpc_helpers/utility_kernels.cuh", 172, "copy_n_kernel"),
    ("asbschmidt/CUDASW4", "src/cudasw4.cuh", 52, "sumNumOverflowsKernel"),
    ("asbschmidt/CUDASW4", "src/dpx_s16_kernels.cuh", 1227, "NW_local_affine_single_pass_dpx_s16"),
    ("asbschmidt/CUDASW4", "src/oldkernels.cuh", 3878, "NW_local_affine_multi_pass_s32_DPX"),
    ("asbschmidt/CUDASW4", "src/oldkernels.cuh", 4797,
     "launch_process_overflow_alignments_kernel_NW_local_affine_read4_float_query_Protein"),
    ("asbschmidt/CUDASW4", "src/dpx_s32_kernels.cuh", 980, "NW_local_affine_multi_pass_dpx_s32"),
    ("asbschmidt/CUDASW4", "src/half2_kernels.cuh", 1291, "NW_local_affine_single_pass_half2"),
    ("PAA-NCIC/GSWITCH", "src/data_structures/window.cuh", 12, "__probe"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/filter.cuh", 19, "__copy_all"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/expand_VC_CM.cuh", 236, "__rexpand_VC_CM"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/expand_VC_ELB.cuh", 140, "__rexpand_VC_ELB"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/expand_VC_TM.cuh", 111, "__rexpand_VC_TM_BITMAP"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/expand_VC_STRICT.cuh", 32, "__prepare"),
    ("PAA-NCIC/GSWITCH", "src/utils/intrinsics.cuh", 248, "__memsetIdx"),
    ("PAA-NCIC/GSWITCH", "src/kernel_libs/expand_VC_TWOD.cuh", 13, "__phase1_light"),
    ("speakspeak/cuZK", "depends/libstl-cuda/utility.cuh", 24, "launch"),
    ("speakspeak/cuZK", "depends/libmatrix-cuda/transpose/transpose_ell2csr.cu", 20, "p_transpose_ell2csr_serial"),
    ("speakspeak/cuZK", "depends/libstl-cuda/utility.cuh", 27, "launch_with_shared"),
    ("speakspeak/cuZK", "cuzk/reductions/r1cs_to_qap/r1cs_to_qap.cu", 87,
     "r1cs_to_qap_instance_map_with_evaluation_phase_matrix"),
    ("speakspeak/cuZK", "cuzk/reductions/r1cs_to_qap/r1cs_to_qap.cu", 58,
     "r1cs_to_qap_instance_map_with_evaluation_phase_two"),
    ("speakspeak/cuZK", "cuzk/zk_proof_systems/groth/groth.cu", 186, "groth_gamma_ABC"),
    ("speakspeak/cuZK", "cuzk/zk_proof_systems/groth/groth.cu", 101, "groth_table"),
    ("speakspeak/cuZK", "depends/libff-cuda/scalar_multiplication/multiexp.cu", 249, "p_multi_exp_mid_res"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 594, "BuildRadixTree"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 665, "CreateHierarchy"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 491, "findPotentialCollisions"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 241, "ComputeTriBoundingBoxes"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 355, "checkTriangleIntersections"),
    ("vchoutas/torch-mesh-isect", "src/bvh_cuda_op.cu", 546, "ComputeMortonCodes"),
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
# add("asbschmidt/CUDASW4", "src/cudasw4.cuh", 52, "sumNumOverflowsKernel", "<verdict>", "<one-line reason>")


if __name__ == "__main__":
    judged = {(r["project"], r["path"], r["line"], r["kernel"]) for r in rows}
    missing = [k for k in DRAWN if k not in judged]
    if missing or len(rows) != 3 * len(DRAWN):
        raise SystemExit(f"{len(missing)} of {len(DRAWN)} drawn kernels have no verdict yet; nothing written")
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows")
