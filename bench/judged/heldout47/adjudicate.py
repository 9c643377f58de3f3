"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s31-h47) and
the second judge's kernels_second.jsonl (s31-j47, blind commit c60149f8); run from the worktree root:

    python3 bench/judged/heldout47/adjudicate.py

The two blind files disagree on 5 of 75 pairs (2 kernels; agreement_kernels.txt). Each is decided below with a
written reason, after re-reading the code in the trees built by `make_trees.py heldout47 /tmp/j47`. Decided by j47,
the second judge, acting as adjudicator (the brief gives the adjudication to the second judge; no third reader was
available), so both decisions uphold the decider's own blind verdicts: the lead may overrule either. The script fails
loudly if any pair disagrees without a decision, if a decision names a verdict neither judge gave, or if the two files
do not hold the same 75 keys.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEY = ("project", "path", "line", "kernel", "target")
first = [json.loads(l) for l in open(HERE / "kernels.jsonl") if l.strip()]
second = {tuple(r[f] for f in KEY): r for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}
assert len(first) == len(second) == 75, (len(first), len(second))
assert {tuple(r[f] for f in KEY) for r in first} == set(second), "the two files judge different kernels"

T = ("mi300x", "mi355x", "mi455x")
ROPE = ("NetEase-FuXi/EETQ", "csrc/embedding_kernels/pos_encoding_kernels.cu", 13, "rotary_embedding_neox_kernel")
POWER = ("lacker/seticore", "beamformer.cu", 237, "calculatePower")

WHY_ROPE = ("second judge's verdict: AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16) instantiates the kernel with "
            "scalar_t = c10::Half and c10::BFloat16, and `__ldg(cache_ptr + x_index)` then needs an __ldg overload "
            "for those types. c10's Half-inl.h declares `__device__ Half __ldg(const Half*)` only under "
            "`(__CUDA_ARCH__ >= 350) || (__clang__ && __CUDA__)`; hip-clang defines neither __CUDA_ARCH__ nor "
            "__CUDA__, and HIP's own __ldg overloads (hip_ldg.h, amd_hip_fp16.h) cover builtin, vector and __half "
            "types only, so the Half/BFloat16 instantiations do not compile. torch's hipify leaves __ldg as it is. "
            "vLLM, where this kernel comes from, added VLLM_LDG with a ROCm arm `*(arg)` for exactly these call "
            "sites. The fix is one line (plain load), so fix, not ok (decided by j47, whose own verdict this is)")
WHY_POWER = ("second judge's verdict, a convention call: the block is sti threads, and sti is the pipeline's "
             "short-time-integration length (main.cpp --sti, default 8, asserted <= MAX_STI = 8), a property of the "
             "data product, not a 32-lane tuning constant; the shared-memory tree reduction is correct on any wave "
             "size. heldout43 (rprj3/interp data-sized levels) and heldout44/42 (GSWITCH __memsetIdx, cubnm's "
             "window blocks) judged data-sized sub-wave blocks ok, and the first judge judged beamform's "
             "antenna-sized block ok on the same ground. The underfill exists on NVIDIA too (8 of 32 lanes); wave64 "
             "makes it 8 of 64. A reader applying the sub-wave rule literally gets the first judge's retune on "
             "MI300X/MI355X, which is why the lead may overrule (decided by j47, whose own verdict this is)")
DECIDE = {}
for t in T:
    DECIDE[ROPE + (t,)] = ("fix", "second", WHY_ROPE)
for t in ("mi300x", "mi355x"):
    DECIDE[POWER + (t,)] = ("ok", "second", WHY_POWER)

adj, out = [], []
for r in first:
    k = tuple(r[f] for f in KEY)
    s = second[k]
    row = dict(r)
    if s["expected"] != r["expected"]:
        if k not in DECIDE:
            raise SystemExit(f"undecided disagreement {k}: first={r['expected']} second={s['expected']}")
        verdict, side, why = DECIDE[k]
        assert verdict == (r["expected"] if side == "first" else s["expected"]), (k, verdict, side)
        adj.append({"key": dict(zip(KEY, k)), "first": r["expected"], "second": s["expected"],
                    "adjudicated": verdict, "follows": side, "decided_by": "j47 (second judge)",
                    "first_reason": r["reason"], "second_reason": s["reason"], "adjudication": why})
        if side == "second":
            row["expected"] = s["expected"]
            row["reason"] = s["reason"] + f" [adjudicated: {why}]"
    else:
        assert k not in DECIDE, k
    out.append(row)
assert len(adj) == len(DECIDE), (len(adj), len(DECIDE))
(HERE / "adjudication.jsonl").write_text("".join(json.dumps(a, sort_keys=True) + "\n" for a in adj))
(HERE / "kernels_adjudicated.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
print(f"{len(adj)} disagreements adjudicated, {len(out)} rows written")
