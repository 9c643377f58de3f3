"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s28-h38,
complete at 8b17a34a) and the second judge's kernels_second.jsonl; run from the worktree root:

    python3 bench/judged/heldout38/adjudicate.py

The two blind files agree on all 120 pairs (agreement_kernels.txt), so DECIDE is empty, adjudication.jsonl is empty
and kernels_adjudicated.jsonl is the first judge's file unchanged. The script fails loudly if any pair disagrees
without a decision, or if the two files do not hold the same 120 keys. Differences in the grounds that change no
verdict are recorded in README_second.md.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEY = ("project", "path", "line", "kernel", "target")
first = [json.loads(l) for l in open(HERE / "kernels.jsonl") if l.strip()]
second = {tuple(r[f] for f in KEY): r for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}
assert len(first) == len(second) == 120, (len(first), len(second))
assert {tuple(r[f] for f in KEY) for r in first} == set(second), "the two files judge different kernels"

DECIDE: dict = {}  # key -> (verdict, "first" | "second", one-line reason); none needed for heldout38
adj, out = [], []
for r in first:
    k = tuple(r[f] for f in KEY)
    s = second[k]
    row = dict(r)
    if s["expected"] != r["expected"]:
        if k not in DECIDE:
            raise SystemExit(f"undecided disagreement {k}: first={r['expected']} second={s['expected']}")
        verdict, side, why = DECIDE[k]
        assert verdict in (r["expected"], s["expected"])
        adj.append({"key": dict(zip(KEY, k)), "first": r["expected"], "second": s["expected"],
                    "adjudicated": verdict, "follows": side, "first_reason": r["reason"],
                    "second_reason": s["reason"], "adjudication": why})
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
