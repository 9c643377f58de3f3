"""Adjudicates every kernel and guard disagreement between heldout31's two judges:
- first judge: branch s25-h31, kernels.jsonl and guards.jsonl (blind commit ba0d242c);
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl (blind commit 592eed2f).
Writes adjudication.jsonl, kernels_adjudicated.jsonl (the first judge's 72 rows with the decisions applied),
guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's 25 rows with the decisions applied). A
disagreement without a decision below is an error, and so is a decision for a pair that agrees. Each changed row's
reason gets an `[adjudicated: ...]` suffix. Run from the worktree root:

    python bench/judged/heldout31/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout31/"


def first(name):
    out = subprocess.run(["git", "show", "s25-h31:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def second(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


DKDV = (
    "ok (second judge). Re-read sparse_linear_attention.py:315-392 and the launch at 521-540. Every per-iteration "
    "tile load of the loop (q, lse, do, delta) and all four tl.dot sit inside `if kbid == 1:`, a run-time scalar test, "
    "so the loop body holds an scf.if, not the dots. AMD's pipeliner discovers the loads to stream from dot ops at the "
    "top level of the loop body and follows operands only within that block (StreamPipelineV2.cpp "
    "computeLoadOpsToIndirectionLevelAndUse; ScheduleLoops.cpp hands the same job to "
    "triton::gpu::loadOpsToIndirectionLevel), and triton-lang/triton issue #11013 records that loads returned "
    "through scf.if lose their pipeline distance. So num_stages 5 (4 at head dim 64) multi-buffers no Q/dO tiles and "
    "asks for no extra LDS on MI300X; k and v are loaded once before the loop. What is left is a fixed num_warps 4/8 "
    "point with no concrete mismatch on MI300X. This is the same kernel as FastVideo's sla_triton.py "
    "_attn_bwd_dkdv, which heldout15 adjudicated from retune to ok on all three targets on this ground. Residual "
    "uncertainty: a Triton release that pipelines conditional loads (the open PR #11015) would bring the first "
    "judge's LDS concern back at head dim 128.")
DECISIONS = {
    ("ac4k/ac4k_kernel", "python/ac4k_kernel/ops/sparse_linear_attention.py", 315, "_attn_bwd_dkdv", "mi300x"):
        ("ok", DKDV),
}
GEN = ("not real (second judge). Re-read GpuSparseMatrixGeneric.cpp:97-135, GpuSparseMatrixWrapper.hpp:60-80 and "
       "CMakeLists_files.cmake:301-358. GpuSparseMatrixGeneric.cpp is hipified and built in the ROCm build, where "
       "USE_HIP=1 sends blocked matrices to the throw; but GpuSparseMatrixWrapper.hpp:73 gives HIP the legacy "
       "GpuSparseMatrix for every matrix, the same class CUDA builds below 12.3/13 use. So the ROCm build does not "
       "replace the generic-API BSR path with HIP code: it never takes it, exactly as an older CUDA toolkit never "
       "does. The sets call such sides not real: ginkgo's CUDA_VERSION >= 11 synchronize workaround 'that HIP never "
       "needed', SPECFEM's CUDA_VERSION < 4000/5000 texture switches ('nothing to port') and Legion's CUDA-only "
       "features with no HIP arm ('nothing a ROCm arm replaces'). The first judge reads the legacy matrix as the "
       "ROCm replacement; it is the common path of both vendors, not a ROCm arm of this guard. Residual uncertainty: "
       "the lines do hold cuSPARSE calls (cusparseCreateBsr) that a scanner would flag, and a ROCm port wanting the "
       "generic BSR path would need hipSPARSE's equivalent.")
WRAP = ("not real (second judge). Re-read GpuSparseMatrixWrapper.hpp:60-80. The side is a type alias in the #else of "
        "`#if USE_HIP || (!USE_HIP && CUDA_VERSION < 13000)`, taken only with CUDA 13 or later: it prefers the "
        "generic cuSPARSE matrix (unless ForceLegacy). It holds no CUDA API, and the HIP arm's legacy "
        "GpuSparseMatrix is the same complete path CUDA 12 builds take. This is a CUDA-version knob the ROCm build "
        "never needs, like ginkgo's CUDA_VERSION >= 11 workaround and SPECFEM's CUDA_VERSION texture switches that "
        "the sets call not real.")
OPM = "OPM/opm-simulators"
GUARD_DECISIONS = {
    (OPM, "opm/simulators/linalg/gpuistl/GpuSparseMatrixGeneric.cpp", 104, 118): (False, GEN),
    (OPM, "opm/simulators/linalg/gpuistl/GpuSparseMatrixWrapper.hpp", 76, 78): (False, WRAP),
}

k1 = first("kernels.jsonl")
k2 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r for r in second("kernels_second.jsonl")}
g1 = first("guards.jsonl")
g2 = {(r["project"], r["path"], r["first"], r["last"]): r for r in second("guards_second.jsonl")}

adj, out, used = [], [], set()
for r in k1:
    key = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = k2[key]
    if s["expected"] != r["expected"]:
        verdict, reason = DECISIONS[key]  # a disagreement without a decision is an error
        used.add(key)
        adj.append({**dict(zip(("project", "path", "line", "kernel", "target"), key)), "first": r["expected"],
                    "second": s["expected"], "decided": verdict, "reason": reason})
        if verdict != r["expected"]:
            r = dict(r, expected=verdict, reason=r["reason"] + " [adjudicated: " + reason + "]")
    out.append(r)
assert len(k1) == len(k2) == 72 and used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
keys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == keys1 and len(g1) == 25
for r in g1:
    key = (r["project"], r["path"], r["first"], r["last"])
    if g2[key]["real"] != r["real"]:
        real, reason = GUARD_DECISIONS[key]
        gused.add(key)
        gadj.append({**dict(zip(("project", "path", "first", "last"), key)), "first_judge": r["real"],
                     "second_judge": g2[key]["real"], "decided": real, "reason": reason})
        if real != r["real"]:
            r = dict(r, real=real, reason=r["reason"] + " [adjudicated: " + reason + "]")
    gout.append(r)
assert gused == set(GUARD_DECISIONS)

for name, rows in (("adjudication.jsonl", adj), ("kernels_adjudicated.jsonl", out),
                   ("guards_adjudication.jsonl", gadj), ("guards_adjudicated.jsonl", gout)):
    with open(D + name, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
print(len(adj), "kernel decisions,", len(gadj), "guard decisions")
