"""Second judge's blind guard verdicts for heldout48 (session 31, helper j48). The keys come from
sample_guards_second.py: every one of the 32 sides of the first judge's guards.jsonl (11 Python, 21 C/C++), taken
from s31-h48's guard_keys_second.jsonl; only the keys were read. Each side is judged real or not real, as
heldout30/39/46's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs/intrinsics, CUDA-source extension loads with nvcc flags, CUDA-only libraries a
  ROCm library could replace);
- not real: no CUDA code at the lines, ROCm code read as a CUDA side (the host branch of `#if
  __HIP_DEVICE_COMPILE__`), or host cleanup of a CUDA-only path with no CUDA API at the lines (heldout46's
  adjudicated HiCMA-X free() rows: the missing work is counted at its setup side).
The verdicts were written before the first judge's verdicts were opened, from the trees in /tmp/j48.

    python3 bench/judged/heldout48/make_guards_second.py bench/judged/heldout48/guard_keys_second.jsonl > bench/judged/heldout48/guards_second.jsonl
"""
import json
import sys

OP, VR, RW = "TobyFlynn/OP2-DG-Toolkit", "szellmann/visionaray", "RWKV-Vibe/RWKV-LM-V7"
LOAD = ("the CUDA arm of src/model.py's `if ROCm_flag:` extension load: torch.utils.cpp_extension.load of "
        "cuda/{}.cpp/.cu with nvcc flags (-res-usage, --use_fast_math, -Xptxas); the ROCm arm loads the hand-kept "
        "hip/{}*.hip twins with -xhip/-munsafe-fp-atomics: CUDA code the ROCm arm replaces")
AMGX = ("NVIDIA AmgX (amgx_c.h, AMGX_* handles) under INS_BUILD_WITH_AMGX && OP2_DG_CUDA: {}; AmgX has no ROCm "
        "build, the HIP build aborts 'Not built with AmgX', so the ROCm side is missing (rocALUTION or HYPRE's HIP "
        "AMG could supply it)")
HYPRE = ("the OP2_DG_CUDA arm of the HYPRE coarse solver ({}): the solver sets HYPRE_MEMORY_DEVICE unconditionally, "
         "but the HIP build (hypre_amg.o is in LINEAR_SOLVER_OBJ for every build) takes the #else host-pointer path; "
         "the ROCm side (hipMalloc/hipMemcpy staging) is missing")
VEC = ("the OP2_DG_CUDA arm `MatShellSetVecType(pMat, VECCUDA)`; the OP2_DG_HIP arm right after it supplies VECHIP "
       "(VECSTANDARD without PETSC_COMPILED_WITH_HIP): CUDA code the ROCm arm replaces")
LDCG = ("the OP2_DG_CUDA arm mapping __ldcg_wrapper/__stcg_wrapper to CUDA's __ldcg/__stcg cache-hint intrinsics; "
        "the #else arm (the HIP build) supplies plain loads/stores: CUDA intrinsics the ROCm arm replaces")
TEXHOST = ("ROCm code read as a CUDA side: the host (#else) branch of `#if __HIP_DEVICE_COMPILE__` in visionaray's "
           "HIP texture header, a `// ERROR` comment; no CUDA code")

V = {
    # ---- RWKV-LM-V7 (Python)
    (RW, "rwkv7_train_simplified.py", 56): (True,
        "the CUDA arm of the `if ROCm_flag` wind_backstepping load: nvcc flags and cuda/wkv7_cuda_fp32.cu/"
        "wkv7_op_fp32.cpp; the ROCm arm loads hip/wkv7_hip_fp32.hip and hip/wkv7_op_fp32.hip"),
    (RW, "src/model.py", 58): (True,
        "the CUDA arm of the @rwkv3 clampw_v3 load: cuda/rwkv7_clampw_v3_for_h100.cu + cuda/rwkv7_clampw_v3.cpp with "
        "nvcc flags; the ROCm arm loads hip/rwkv7_clampw_v3_for_h100.hip + hip/rwkv7_clampw_v3_op.hip"),
    (RW, "src/model.py", 64): (True, LOAD.format("rwkv7_clampw", "rwkv7_clampw")),
    (RW, "src/model.py", 97): (True, LOAD.format("rwkv7_cmix_bf16_v5", "rwkv7_cmix_bf16_v5")),
    (RW, "src/model.py", 133): (True, LOAD.format("rwkv7_tmix_mix6_bf16_v5", "rwkv7_tmix_mix6_bf16_v5")),
    (RW, "src/model.py", 197): (True, LOAD.format("rwkv7_tmix_kk_pre_bf16_v5", "rwkv7_tmix_kk_pre_bf16_v5")),
    (RW, "src/model.py", 271): (True, LOAD.format("rwkv7_tmix_lnx_rkvres_xg_bf16_v1",
                                                  "rwkv7_tmix_lnx_rkvres_xg_bf16_v1")),
    (RW, "src/model.py", 353): (True, LOAD.format("rwkv7_tmix_a_gate_bf16", "rwkv7_tmix_a_gate_bf16")),
    (RW, "src/model.py", 405): (True, LOAD.format("rwkv7_tmix_vres_gate_bf16_v1", "rwkv7_tmix_vres_gate_bf16_v1")),
    (RW, "src/model.py", 466): (True, LOAD.format("rwkv7_l2wrap_ce_bf16_v2", "rwkv7_l2wrap_ce_bf16_v2")),
    (RW, "src/model.py", 503): (True, LOAD.format("rwkv7_head_l2wrap_ce_bf16_v4", "rwkv7_head_l2wrap_ce_bf16_v4")),
    # ---- OP2-DG-Toolkit
    (OP, "include/dg_linear_solvers/amgx_amg.h", 5): (True, AMGX.format("the whole AmgXAMGSolver class")),
    (OP, "include/dg_matrices/poisson_coarse_matrix.h", 15): (True, AMGX.format("the amgx_c.h include")),
    (OP, "include/dg_matrices/poisson_coarse_matrix.h", 30): (True,
        AMGX.format("getAmgXMat(AMGX_matrix_handle**) declaration")),
    (OP, "include/dg_matrices/poisson_coarse_matrix.h", 42): (True,
        AMGX.format("setAmgXMatrix and the AMGX_matrix_handle member")),
    (OP, "src/matrices/poisson_coarse_matrix.cpp", 40): (True,
        AMGX.format("getAmgXMat, building the AMGX_matrix_handle from the PETSc matrix")),
    (OP, "src/linear_solvers/pmultigrid/pmultigrid.cpp", 148): (True,
        AMGX.format("the coarse-solver selector constructing AmgXAMGSolver")),
    (OP, "src/linear_solvers/pmultigrid/pmultigrid.cpp", 170): (False,
        "host cleanup: `delete (AmgXAMGSolver *)coarseSolver` of the project's own class, no AmgX/CUDA API at the "
        "line; the missing AmgX path is counted at its setup sides (pmultigrid.cpp:148, amgx_amg.h)"),
    (OP, "src/blas/kernels/templated_soa.h", 12): (True, LDCG),
    (OP, "src/blas/kernels/templated_soa_sp.h", 12): (True, LDCG),
    (OP, "src/linear_solvers/hypre_amg/hypre_amg.cpp", 12): (True, HYPRE.format("#include <cuda_runtime.h>")),
    (OP, "src/linear_solvers/hypre_amg/hypre_amg.cpp", 81): (True,
        HYPRE.format("cudaFree of the device staging buffers")),
    (OP, "src/linear_solvers/hypre_amg/hypre_amg.cpp", 102): (True,
        HYPRE.format("cudaMalloc of the device staging buffers")),
    (OP, "src/linear_solvers/hypre_amg/hypre_amg.cpp", 176): (True,
        HYPRE.format("cudaMemcpy H2D and HYPRE_IJVectorSetValues on device pointers")),
    (OP, "src/linear_solvers/hypre_amg/hypre_amg.cpp", 219): (True,
        HYPRE.format("HYPRE_IJVectorGetValues into device memory and cudaMemcpy D2H")),
    (OP, "src/linear_solvers/petsc_block_jacobi/petsc_block_jacobi.cpp", 189): (True, VEC),
    (OP, "src/linear_solvers/petsc_inv_mass/petsc_inv_mass.cpp", 182): (True, VEC),
    (OP, "src/linear_solvers/petsc_jacobi/petsc_jacobi.cpp", 170): (True, VEC),
    (OP, "src/linear_solvers/petsc_pmultigrid/petsc_pmultigrid.cpp", 168): (True, VEC),
    # ---- visionaray
    (VR, "include/visionaray/texture/hip_texture.h", 50): (False, TEXHOST + " (tex1D)"),
    (VR, "include/visionaray/texture/hip_texture.h", 79): (False, TEXHOST + " (tex2D)"),
    (VR, "include/visionaray/texture/hip_texture.h", 109): (False, TEXHOST + " (tex3D)"),
}

rows = []
seen = set()
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    key = (k["project"], k["path"], k["first"])
    if key not in V:
        raise SystemExit(f"no verdict for {key}")
    seen.add(key)
    real, reason = V[key]
    rows.append(dict(k, real=real, reason=reason))
unused = set(V) - seen
if unused:
    raise SystemExit(f"verdicts without a key: {sorted(unused)}")
print(len(rows), "rows,", sum(r["real"] for r in rows), "real", file=sys.stderr)
for r in rows:
    print(json.dumps(r, sort_keys=True))
