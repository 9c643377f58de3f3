"""Adjudicates every kernel and guard disagreement between heldout30's two judges:
- first judge: branch s24-h30, kernels.jsonl and guards.jsonl;
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl, blind commit 27365a0f.
Writes adjudication.jsonl, kernels_adjudicated.jsonl (the first judge's 63 rows with the decisions applied),
guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's 12 rows with the decisions applied). A
disagreement without a decision below is an error, and so is a decision for a pair that agrees. Run from the
worktree root:

    python bench/judged/heldout30/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout30/"


def first(name):
    out = subprocess.run(["git", "show", "s24-h30:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def second(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


SUBWAVE = (
    "ok (second judge). Both judges agree the 16-thread blocks (BLOCK 16 in matching_kernels.cu) are retune on "
    "wave64 MI300X/MI355X, where they fill a quarter of each wavefront. On wave32 MI455X a 16-thread block fills half "
    "a wave, exactly the fraction it fills of NVIDIA's 32-lane warp today: the waste is the CUDA code's own, and the "
    "port opens no new work there. The brief states the convention for wave64 ('blocks below the wave size ... are "
    "retune on wave64'), and the recent sets apply it that way to sub-32 blocks: heldout17's enforceKeysKernel "
    "(<<<n, 1>>>, 'no worse than CUDA on wave32'), heldout18's ukkonen_backtrace_kernel (<<<n, 1>>>, 'as wasteful "
    "as NVIDIA's warp on wave32') and heldout21's 20-thread DotAlongXYIntervalStackedShared example ('as on NVIDIA, "
    "part of a wave32') are all ok on MI455X and retune on wave64. Against: heldout15's adjudicated spmv_kernel_3 "
    "(8-thread blocks) and the older heldout5/heldout7 rows call sub-32 blocks retune on every target; the later "
    "and more numerous rows are followed here. Residual uncertainty: a retuner on MI455X could still raise BLOCK to "
    "fill waves, but it would gain the same on NVIDIA.")
SPLAT = "Looong01/Splatt3R-SLAM"
MK = "splatt3r_slam/backend/src/matching_kernels.cu"
DECISIONS = {
    (SPLAT, MK, 30, "refine_matches_kernel", "mi455x"): ("ok", SUBWAVE),
    (SPLAT, MK, 123, "iter_proj_kernel", "mi455x"): ("ok", SUBWAVE),
}
GUARD_DECISIONS = {
    ("chanzhennan/flashfast", "setup.py", 239, 239): (True,
        "real (second judge). The line is `build_for_cuda()` under `if BUILD_TARGET == \"cuda\"`, and the arm beside "
        "it, `elif BUILD_TARGET == \"rocm\": build_for_rocm()`, is the ROCm counterpart. Both judges call the same "
        "call at 236 real, where the selector is IS_HIP_EXTENSION. The first judge's ground for not real is that "
        "BUILD_TARGET is an explicit user choice. But the sets score a CUDA arm of a build-option switch as real when "
        "the ROCm arm supplies its counterpart: heldout25's DCA_HAVE_CUDA/DCA_HAVE_HIP arms (a CMake option the user "
        "sets) were real for both judges. Whether the platform is detected or chosen does not change what the side "
        "is: CUDA build code (a CUDAExtension with nvcc flags and cutlass includes) whose ROCm build lives in the "
        "adjacent arm. It is not the non-ROCm arm of a ROCm-only check (there is no 'do nothing' fallback), nor "
        "code-free like the raise/#error sides both judges call not real."),
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
assert len(k1) == len(k2) == 63 and used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
keys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == keys1 and len(g1) == 12
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
