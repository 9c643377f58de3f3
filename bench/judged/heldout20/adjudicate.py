"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s20-h20) and
kernels_second.jsonl; run from the worktree root (python3 bench/judged/heldout20/adjudicate.py)."""
import json
import subprocess
from pathlib import Path

HERE = Path("bench/judged/heldout20")
first = [json.loads(l) for l in subprocess.run(["git", "show", "s20-h20:bench/judged/heldout20/kernels.jsonl"],
         capture_output=True, text=True, check=True).stdout.splitlines() if l.strip()]
second = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r
          for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}

AUTOTUNE = (
    "re-read {where} and trident/util/util.py:25-35: the kernel body is portable Triton ({body}), but it is decorated "
    "with trident's util.autotune, which forwards its arguments POSITIONALLY: triton.autotune(configs, key, "
    "prune_configs_by, reset_to_zero, warmup, rep). Since Triton 2.2 the signature is autotune(configs, key, "
    "prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None, warmup=..., "
    "rep=..., ...) (triton-lang.org triton.autotune reference; python/triton/runtime/autotuner.py), so warmup=25 "
    "lands in restore_value and Autotuner.__init__ runs `[arg_names.index(k) for k in restore_value]` on an int: "
    "TypeError when trident.kernel is imported (the decorator runs at class definition). The first judge's own ground "
    "for silu/gelu/geglu (the ROCm Triton builds that target gfx942/gfx950/gfx1250 lack tl.math.fast_expf/tanh) puts "
    "the port on Triton >= 3.x (gfx950 needs >= 3.3, gfx1250 later; ROCm PyTorch for gfx942 ships pytorch-triton-rocm "
    ">= 2.2), and every such release has restore_value fifth, so this kernel does not launch until util.autotune "
    "passes keywords; as with kernl's kernel_fma (removed triton.ops prune hooks in its autotune decorator, judged "
    "fix), a change in the kernel's decorator helper is a fix: fix")
BODY = {
    ("trident/kernel/relu.py", "forward"): ("trident/kernel/relu.py:31-46", "tl.where on 1-D block pointers"),
    ("trident/kernel/relu.py", "backward"): ("trident/kernel/relu.py:48-72", "tl.where gradient on 1-D block pointers"),
    ("trident/kernel/var.py", "backward"): ("trident/kernel/var.py:72-126",
                                            "Mean.forward + Var.backward with tl.sum/tl.where on block pointers"),
}
adj, out = [], []
for r in first:
    k = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = second[k]
    row = dict(r)
    if s["expected"] != r["expected"]:
        assert (r["path"], r["kernel"]) in BODY, k
        where, body = BODY[(r["path"], r["kernel"])]
        reason = AUTOTUNE.format(where=where, body=body)
        decision = "fix"
        adj.append({"key": {"project": k[0], "path": k[1], "line": k[2], "kernel": k[3], "target": k[4]},
                    "first": r["expected"], "second": s["expected"], "decision": decision,
                    "decided_for": "first" if decision == r["expected"] else "second", "reason": reason})
        if decision != r["expected"]:
            row["expected"] = decision
            row["reason"] = reason
    out.append(row)

with open(HERE / "adjudication.jsonl", "w") as f:
    for a in adj:
        f.write(json.dumps(a, sort_keys=True) + "\n")
with open(HERE / "kernels_adjudicated.jsonl", "w") as f:
    for r in out:
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(len(adj), "disagreements adjudicated;", sum(a["decided_for"] == "first" for a in adj), "for the first judge")
