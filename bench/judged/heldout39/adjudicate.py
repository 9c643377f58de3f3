"""Adjudicates every kernel and guard disagreement between heldout39's two judges:
- first judge: branch s28-h39, kernels.jsonl and guards.jsonl (blind commit 03cdc807);
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl (blind commit 9dec8088).
Writes adjudication.jsonl (kernel decisions: none, the judges agree on all 54 rows), kernels_adjudicated.jsonl (the
first judge's 54 rows with the decisions applied, so a copy of kernels.jsonl), guards_adjudication.jsonl and
guards_adjudicated.jsonl (the first judge's 22 rows with the decisions applied). A disagreement without a decision
below is an error, and so is a decision for a pair that agrees. Run from the worktree root:

    python bench/judged/heldout39/adjudicate.py
"""
import json

D = "bench/judged/heldout39/"


def load(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


DECISIONS: dict = {}  # kernels: no disagreement

GATED_OFF = (
    "not real (second judge). Re-read: the side sits under `torch.version.cuda`, with no ROCm arm beside it, and "
    "serves a CUDA-only optimum-quanto feature that quanto itself never uses on a ROCm torch (quanto's "
    "WeightQBitsTensor.create builds TinyGemm weights only when `data.device.type == \"cuda\" and torch.version.cuda` "
    "and sm80+, and its tests skip TinyGemm on ROCm; Marlin fp8 is NVIDIA PTX). On ROCm the module still works: "
    "the TinyGemm names stay None and every later use checks for None (lines 372-418), and no Marlin op is called. "
    "The sets' convention for `real` is port work a ROCm arm replaces (bench/judged/README.md, heldout5 Recall: "
    "'each judged real (port work the ROCm arm replaces)'); a CUDA-only feature the project gates off with nothing "
    "for ROCm to supply is not real: heldout13's Legion prealm/UCX CUDA modules and GauXC's NCCL wrapper ('CUDA-only "
    "feature ... with no HIP arm: nothing a ROCm arm replaces') and heldout33's torch_memory_saver mmap-backup "
    "region ('a feature the project gates off on ROCm') were all scored not real. The first judge's ground, that the "
    "code is CUDA-only and must stay off ROCm (which the guard does), describes a correct guard, not open port work. "
    "Against: the side does hold CUDA-specific Python (quanto's CUDA extension, the Marlin op), which a scan with the "
    "guard blanked would rightly flag; the convention, not the content, decides it here.")
GUARD_DECISIONS = {
    ("bghira/SimpleTuner", "simpletuner/helpers/training/quantisation/quanto_workarounds.py", 87, 91): (False,
        GATED_OFF + " This side only imports the TinyGemm packed/qbits tensor classes for the storage-accessor "
        "workarounds."),
    ("bghira/SimpleTuner", "simpletuner/helpers/training/quantisation/quanto_workarounds.py", 97, 127): (False,
        GATED_OFF + " This side imports quanto's CUDA extension and wraps torch.ops.quanto.gemm_f16f8_marlin to "
        "cast the activation dtype; a ROCm port of Marlin fp8 would be work in optimum-quanto, not here."),
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
assert len(k1) == len(k2) == 54 and used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
keys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == keys1 and len(g1) == 22
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
