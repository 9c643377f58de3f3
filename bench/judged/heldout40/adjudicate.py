"""Adjudicates every kernel and guard disagreement between heldout40's two judges:
- first judge: branch s29-h40 (h40), kernels.jsonl and guards.jsonl (blind commits 48670ff8, d8c8dd3d, 0aa4e430);
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl (j40, blind commit fedddb86).
The second judge decided both disagreements (no third reader was available); the reasons are written out below so
they can be checked. Writes adjudication.jsonl (kernel decisions), kernels_adjudicated.jsonl (the first judge's 78
rows with the decisions applied), guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's 21 rows
with the decisions applied). A disagreement without a decision below is an error, and so is a decision for a pair
that agrees. Run from the worktree root:

    python bench/judged/heldout40/adjudicate.py
"""
import json

D = "bench/judged/heldout40/"


def load(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


DECISIONS = {
    ("gpu-eda/Jacquard", "csrc/kernel_v1_impl.cuh", 565, "simulate_v1_noninteractive_simple_scan", "mi455x"): ("fix",
        "fix (decided by the second judge, j40). Re-read: both judges agree that the wave32 lane layout holds on "
        "gfx1250 and that the ROCm arm's warpSize == 32 check passes there; the split is whether the kernel compiles "
        "as written. simulate_block_v1 calls __shfl_down_sync with 32-bit masks: the literal 0xffffffff in the "
        "hier[4..7] tree (lines 273-295) and the ragged `u32 mask = ... 0xffffffff >> (last_tid - num_srams * 4)` "
        "of the SRAM-port shuffles (lines 419-425). HIP's *_sync shuffles (hip/amd_detail/amd_warp_sync_functions.h) "
        "static_assert sizeof(MaskT) == 8 whatever the wave size (wave32 only narrows the mask's value), and before "
        "ROCm 7 they are not declared without HIP_ENABLE_WARP_SYNC_BUILTINS, which neither build.rs nor "
        "ucc::cl_hip (eda-infra-rs) defines and ulib's includes.hpp does not shim. So hipcc rejects the kernel on "
        "every AMD target; the change is a 64-bit (or type-switched) mask whose ragged value survives widening. The "
        "sets score this as fix on wave32 too: heldout13 eval_vvar_lda_kern, heldout15 "
        "matmultadd_seqsell_tiled_kernel9, heldout16 DeviceSelectIf/probe_kernel, heldout17 and heldout18's "
        "32-bit-mask rows are fix on mi455x. Against: the project documents its HIP backend as working on RDNA "
        "(wave32); but its build adds nothing that makes the 32-bit masks compile, so that claim rests on "
        "HIP-over-CUDA builds."),
}

GUARD_DECISIONS = {
    ("cjolivier01/hm-cupano", "src/gpu/gpu_runtime.h", 16, 18): (True,
        "real (decided by the second judge, j40, for the first judge's side). Re-read: the final #else of "
        "gpu_runtime.h's backend detection sets GPU_BACKEND_HIP 0 / VULKAN 0 / CUDA 1, the default that sends every "
        "later `#if GPU_BACKEND_HIP ... #elif GPU_BACKEND_VULKAN ... #else` (the includes and name maps at 21-120, "
        "gpu_gl_interop.h) to the CUDA arm; the ROCm build replaces it with the first arm's GPU_BACKEND_HIP 1. The "
        "sets score a CUDA backend selection that the ROCm arm replaces as real: heldout33's pystencils "
        "`return Target.CUDA` (else of `is_hip`), heldout7's heffte_reshape3d.h cuda backend namespace, heldout11's "
        "SUNDIALS_MAGMA_BACKENDS_CUDA arm defining HAVE_CUBLAS. The second judge's blind ground (three flag macros, "
        "no CUDA API, and GPU_BACKEND_CUDA itself is read by no #if) is heldout7's heffte_c_defines.h kind (a C API "
        "constant, not real), but these flags are consumed: HIP 0 and VULKAN 0 are what select the CUDA arm."),
}

k1 = load("kernels.jsonl")
k2 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r for r in load("kernels_second.jsonl")}
g1 = load("guards.jsonl")
g2 = {(r["project"], r["path"], r["first"], r["last"]): r for r in load("guards_second.jsonl")}

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
assert len(k1) == len(k2) == 78 and used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
keys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == keys1 and len(g1) == 21
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
