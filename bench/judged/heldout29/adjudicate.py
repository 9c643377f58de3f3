"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s24-h29) and
kernels_second.jsonl; run from the worktree root (python3 bench/judged/heldout29/adjudicate.py).

The two blind files agree on all 120 pairs (agreement_kernels.txt), so DECIDE is empty and adjudication.jsonl is
empty; the script fails loudly if any pair disagrees. kernels_adjudicated.jsonl is the first judge's file unchanged.
One factual difference in the grounds, which changes no verdict, is recorded in README_second.md (GGNN's
SimpleKNNCache lane logic on wave64).
"""
import json
import subprocess
from pathlib import Path

HERE = Path("bench/judged/heldout29")
first_text = subprocess.run(["git", "show", "s24-h29:bench/judged/heldout29/kernels.jsonl"],
                            capture_output=True, text=True, check=True).stdout
first = [json.loads(l) for l in first_text.splitlines() if l.strip()]
second = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r
          for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}
assert len(first) == len(second) == 120, (len(first), len(second))

DECIDE = {}
adj, out = [], []
for r in first:
    k = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = second[k]
    row = dict(r)
    if s["expected"] != r["expected"]:
        if k not in DECIDE:
            raise SystemExit(f"undecided disagreement {k}: first={r['expected']} second={s['expected']}")
        verdict, side, why = DECIDE[k]
        assert verdict in (r["expected"], s["expected"])
        adj.append({"key": dict(zip(("project", "path", "line", "kernel", "target"), k)),
                    "first": r["expected"], "second": s["expected"], "adjudicated": verdict, "follows": side,
                    "first_reason": r["reason"], "second_reason": s["reason"], "adjudication": why})
        if side == "second":
            row["expected"], row["reason"] = s["expected"], s["reason"]
    else:
        assert k not in DECIDE, k
    out.append(row)
assert len(adj) == len(DECIDE), (len(adj), len(DECIDE))
(HERE / "adjudication.jsonl").write_text("".join(json.dumps(a, sort_keys=True) + "\n" for a in adj))
(HERE / "kernels_adjudicated.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
print(f"{len(adj)} disagreements adjudicated, {len(out)} rows written")
