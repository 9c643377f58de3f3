"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s22-h24) and
kernels_second.jsonl; run from the worktree root (python3 bench/judged/heldout24/adjudicate.py).

The two blind files agree on all 120 pairs (agreement_kernels.txt), so there is nothing to decide:
adjudication.jsonl is empty and kernels_adjudicated.jsonl is the first judge's file unchanged. The script still
checks every pair, so it fails loudly if either input changes.
"""
import json
import subprocess
from pathlib import Path

HERE = Path("bench/judged/heldout24")
first_text = subprocess.run(["git", "show", "s22-h24:bench/judged/heldout24/kernels.jsonl"],
                            capture_output=True, text=True, check=True).stdout
first = [json.loads(l) for l in first_text.splitlines() if l.strip()]
second = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r
          for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}
assert len(first) == len(second) == 120, (len(first), len(second))
adj, out = [], []
for r in first:
    k = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = second[k]
    if s["expected"] != r["expected"]:
        raise SystemExit(f"unexpected disagreement {k}: first={r['expected']} second={s['expected']}")
    out.append(dict(r))
(HERE / "adjudication.jsonl").write_text("".join(json.dumps(a, sort_keys=True) + "\n" for a in adj))
(HERE / "kernels_adjudicated.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
print(f"{len(adj)} disagreements adjudicated, {len(out)} rows written")
