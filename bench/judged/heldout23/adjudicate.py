"""Adjudicates every kernel and guard disagreement between the first judge (branch s22-h23) and the second (this
directory's kernels_second.jsonl / guards_second.jsonl, blind commit daa5e711) for heldout23. The two judges agreed on
all 120 kernel pairs and all 20 guard rows, so there is nothing to decide: adjudication.jsonl and
guards_adjudication.jsonl are empty, and kernels_adjudicated.jsonl / guards_adjudicated.jsonl are the first judge's
kernels.jsonl / guards.jsonl unchanged. The script still checks that the two files agree before copying, so a changed
input cannot pass silently. Run from the worktree root:

    python bench/judged/heldout23/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout23/"


def first(name):
    out = subprocess.run(["git", "show", "s22-h23:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def second(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


DECISIONS = {}         # (project, path, line, kernel, target) -> (verdict, reason): none needed
GUARD_DECISIONS = {}   # (project, path, first, last) -> (real, reason): none needed

k1 = first("kernels.jsonl")
k2 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r for r in second("kernels_second.jsonl")}
g1 = first("guards.jsonl")
g2 = {(r["project"], r["path"], r["first"], r["last"]): r for r in second("guards_second.jsonl")}

adj, out = [], []
for r in k1:
    key = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = k2[key]
    if s["expected"] != r["expected"]:
        verdict, reason = DECISIONS[key]  # a disagreement without a decision is an error
        adj.append({**dict(zip(("project", "path", "line", "kernel", "target"), key)), "first": r["expected"],
                    "second": s["expected"], "decided": verdict, "reason": reason})
        r = dict(r, expected=verdict)
    out.append(r)
assert len(k1) == len(k2) == 120

gadj, gout = [], []
for r in g1:
    key = (r["project"], r["path"], r["first"], r["last"])
    if key in g2 and g2[key]["real"] != r["real"]:
        real, reason = GUARD_DECISIONS[key]
        gadj.append({**dict(zip(("project", "path", "first", "last"), key)), "first_judge": r["real"],
                     "second_judge": g2[key]["real"], "decided": real, "reason": reason})
        r = dict(r, real=real)
    gout.append(r)
assert all(k in {(r["project"], r["path"], r["first"], r["last"]) for r in g1} for k in g2)

for name, rows in (("adjudication.jsonl", adj), ("kernels_adjudicated.jsonl", out),
                   ("guards_adjudication.jsonl", gadj), ("guards_adjudicated.jsonl", gout)):
    with open(D + name, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
print(len(adj), "kernel decisions,", len(gadj), "guard decisions")
