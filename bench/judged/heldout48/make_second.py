"""Second judge's blind kernel verdicts for heldout48 (session 31): a skeleton the first judge (h48) leaves for the
second judge, as heldout37/39/46 have their make_second.py. It holds no verdict; the second judge adds one `add(...)`
call per drawn kernel and runs it to write kernels_second.jsonl.

    python bench/judged/heldout48/select_kernels.py /tmp/j48      # the drawn list (no verdicts)
    python3 bench/judged/heldout48/make_second.py                  # after filling in the add() calls

Read before the blind commit only select_kernels.py, projects.json and, through sample_guards_second.py, the key
fields of guards.jsonl (guard_keys_second.jsonl holds exactly those keys); build the trees yourself with
`bench/judged/make_trees.py heldout48 /tmp/j48`. Do not open kernels.jsonl, guards.jsonl's verdicts, findings.jsonl
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



OP, VR, RW = "TobyFlynn/OP2-DG-Toolkit", "szellmann/visionaray", "RWKV-Vibe/RWKV-LM-V7"

# ---- OP2-DG-Toolkit. The HIP build (Makefile HIP_*_OBJ) compiles utils_hip.hip and dg_op2_gemv_kernel_soa_hip.hip;
# custom_kernels/*.cu outside CUDA_3D_OBJ (custom_jump_3d.cu, the pmultigrid chebyshev ones) are in no object list and
# no source calls their custom_kernel_* entry points (OP2 generates the jump_3d / chebyshev loops itself).
UTILS = ("replaced by its hand-kept twin in linear_solvers/petsc_utils/utils_hip.hip (HIP_2D/3D_OBJ's utils_hip.o): "
         "the same element-wise copy, 512-thread blocks, no warp code; nothing to port")
add(OP, "src/linear_solvers/petsc_utils/utils_gpu.cu", 129, "aos_to_soa_coarse", "ok", UTILS)
add(OP, "src/linear_solvers/petsc_utils/utils_gpu.cu", 160, "soa_to_aos_coarse", "ok", UTILS)
NOBUILD = ("in no build: custom_kernels/{} is in neither CUDA_*_OBJ nor HIP_*_OBJ and its custom_kernel_* entry point "
           "has no caller (OP2 generates the loop); plain per-node arithmetic, nothing vendor-specific either way")
add(OP, "src/linear_solvers/pmultigrid/custom_kernels/custom_p_multigrid_relaxation_chebyshev_3.cu", 15,
    "_op_cuda_p_multigrid_relaxation_chebyshev_3", "ok", NOBUILD.format("custom_p_multigrid_relaxation_chebyshev_3.cu"))
add(OP, "src/dg_operators/custom_kernels/custom_jump_3d.cu", 9, "jump_3d_kerenel", "ok",
    NOBUILD.format("custom_jump_3d.cu"))
add(OP, "src/dg_operators/custom_kernels/custom_jump_3d.cu", 78, "jump_3d_sp_kerenel", "ok",
    NOBUILD.format("custom_jump_3d.cu"))
GEMM = ("compiled by the HIP build too: dg_op2_gemv_kernel_soa_hip.hip includes kernels/templated_soa_sp.h, whose "
        "non-OP2_DG_CUDA arm turns __ldcg/__stcg into plain loads/stores; __ldg and dynamic shared memory (matrix <= "
        "64 KiB, the preprocessor's bound, fits 64 KiB LDS) are HIP; 256-thread blocks, one cell per thread, no warp code")
add(OP, "src/blas/kernels/templated_soa_sp.h", 378, "templated_cuda_gemm_T_gpu_1_alpha_0_beta_sp", "ok", GEMM)
add(OP, "src/blas/kernels/templated_soa_sp.h", 478, "templated_cuda_gemm_T_gpu_1_alpha_1_beta_sp", "ok", GEMM)
add(OP, "src/blas/kernels/templated_soa_sp.h", 528, "templated_cuda_gemm_T_gpu_1_beta_sp", "ok", GEMM)

# ---- visionaray: header-only; the HIP arm (VSNRAY_ENABLE_HIP, CMake HIP language) compiles the same lbvh kernels
# under __HIPCC__ with hipcub and hip::device_vector, and cuda_sched's render has the hip_sched twin hip_render.
LBVH = ("shared CUDA/HIP kernel (lbvh.h's `#if defined(__CUDACC__) || defined(__HIPCC__)`), launched by the __HIPCC__ "
        "builder with 1024-thread blocks; {}; nothing wave-size dependent")
add(VR, "include/visionaray/detail/bvh/lbvh.h", 224, "compute_bounds_and_centroids", "ok",
    LBVH.format("float atomicMin/atomicMax are the header's own atomicCAS loops, which HIP compiles"))
add(VR, "include/visionaray/detail/bvh/lbvh.h", 250, "assign_morton_codes", "ok",
    LBVH.format("per-primitive morton encoding"))
add(VR, "include/visionaray/detail/bvh/lbvh.h", 279, "init_nodes", "ok", LBVH.format("per-node init"))
add(VR, "include/visionaray/detail/bvh/lbvh.h", 340, "assign_node_bounds", "ok",
    LBVH.format("bottom-up bounds with the header's atomicCAS-based float atomicMin/Max"))
add(VR, "include/visionaray/detail/bvh/lbvh.h", 382, "collapse", "ok",
    LBVH.format("per-node index arithmetic and a device assert"))
add(VR, "include/visionaray/detail/bvh/lbvh.h", 461, "sequence", "ok", LBVH.format("iota"))
add(VR, "include/visionaray/detail/hip_sched.inl", 34, "hip_render", "ok",
    "the HIP scheduler's per-pixel kernel: 2D grid, 16x16 default blocks, textures go through hip_texture's "
    "hipTextureObject_t tex1D/2D/3D; no warp code")
add(VR, "include/visionaray/detail/cuda_sched.inl", 32, "render", "ok",
    "replaced on ROCm by its twin hip_render in hip_sched.inl (same per-pixel body, hip_texture arms)")

# ---- RWKV-LM-V7: src/model.py loads hip/*.hip under torch.version.hip; each drawn kernel is judged by its twin.
add(RW, "cuda/rwkv7_cmix_bf16_v5.cu", 59, "cmix_mix_backward_fused_vec2_kernel", "ok",
    "twin in hip/rwkv7_cmix_bf16_v5.hip: __hip_bfloat162 element pairs, 256-thread blocks, float atomicAdd per "
    "column (-munsafe-fp-atomics); no warp code")
add(RW, "cuda/rwkv7_cmix_bf16_v5.cu", 152, "cast_float_to_bf16_vec2_kernel", "ok",
    "twin in hip/rwkv7_cmix_bf16_v5.hip: element-wise float->bf16x2 cast")
add(RW, "cuda/rwkv7_clampw.cu", 21, "forward_kernel", "ok",
    "twin in hip/rwkv7_clampw.hip (default RWKV_KERNEL path): one thread per channel, _N_=64 threads per block = one "
    "wave64 / two wave32, shared-memory broadcast with __syncthreads, no warp intrinsics")
add(RW, "cuda/rwkv7_tmix_a_gate_bf16.cu", 48, "a_gate_forward_pow2c_kernel", "ok",
    "twin in hip/rwkv7_tmix_a_gate_bf16.hip: element-wise sigmoid, 256-thread blocks")
add(RW, "cuda/rwkv7_tmix_a_gate_bf16.cu", 67, "a_gate_backward_full_kernel", "ok",
    "twin in hip/rwkv7_tmix_a_gate_bf16.hip: per-column 16-row tiles into a float partial buffer, no atomics or "
    "warp code")
BCAST = ("twin in hip/{f}: the twin keeps 32-lane rows (warp = tid>>5, lane = tid&31, {blk}) and only widens the "
         "masks; warp_sum's offsets 16..1 leave correct sums in lanes 0 and 32, but `__shfl_sync(~0ull, x, 0)` with "
         "the default width 64 broadcasts lane 0 to all 64 lanes, so the second row of each wave64 uses the first "
         "row's {what}: wrong results on wave64 (width 32 or a lane-32 source needed)")
W32 = "twin in hip/{f}: on wave32 one row is one wave, the 64-bit mask is trimmed to 32 bits and the broadcast is right"
f = "rwkv7_tmix_lnx_rkvres_xg_bf16_v1.hip"
add(RW, "cuda/rwkv7_tmix_lnx_rkvres_xg_bf16_v1.cu", 43, "tmix_lnx_rkvres_xg_v1_forward_kernel", ("fix", "fix", "ok"),
    (BCAST.format(f=f, blk="16 rows per 512-thread block", what="mean, variance and r.k scale"),) * 2 + (W32.format(f=f),))
f = "rwkv7_tmix_kk_pre_bf16_v5.hip"
add(RW, "cuda/rwkv7_tmix_kk_pre_bf16_v5.cu", 98, "tmix_kk_pre_backward64_v5_kernel", ("fix", "fix", "ok"),
    (BCAST.format(f=f, blk="4 heads per 128-thread block", what="dot product in the normalise branch"),) * 2
    + (W32.format(f=f),))
CE = ("twin in hip/rwkv7_head_l2wrap_ce_bf16_v4.hip: 32-lane reductions (offsets 16..1, lane==0 of each 32-group "
      "writes shared memory) stay correct on wave64, but the second stage runs under `if (warp == 0)`, half a wave64, "
      "with the full 64-bit mask: HIP's *_sync contract (and its mask assert in non-NDEBUG builds) wants the mask to "
      "match the active lanes; verify the build or pass the active mask")
add(RW, "cuda/rwkv7_head_l2wrap_ce_bf16_v4.cu", 60, "row_chunk_loss_and_grad_kernel", ("check", "check", "ok"),
    (CE, CE, "twin in hip/rwkv7_head_l2wrap_ce_bf16_v4.hip: on wave32 each 32-group is a whole wave and the mask is "
     "trimmed to 32 bits; block reductions correct"))

if __name__ == "__main__":
    assert len(rows) == 24 * 3, f"{len(rows)} rows: one add() per drawn kernel is missing"
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in sorted(rows, key=lambda r: (r["project"], r["path"], r["line"], r["target"])):
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(len(rows), "rows")
