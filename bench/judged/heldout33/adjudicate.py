"""Adjudicates every kernel and guard disagreement between heldout33's two judges:
- first judge: branch s26-h33, kernels.jsonl and guards.jsonl (verdict commits 61bdc83f, d59d92df, 630b03f4);
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl, blind commit 5eabdcd6.
Writes adjudication.jsonl, kernels_adjudicated.jsonl (the first judge's 48 rows with the decisions applied),
guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's 43 rows with the decisions applied). A
disagreement without a decision below is an error, and so is a decision for a pair that agrees. heldout33 has no
disagreement (48/48 kernel rows, 43/43 guard sides), so DECISIONS and GUARD_DECISIONS are empty, the two adjudication
files are empty and the adjudicated files equal the first judge's rows. Run from the worktree root:

    python bench/judged/heldout33/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout33/"


def first(name):
    out = subprocess.run(["git", "show", "s26-h33:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def second(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


DECISIONS = {}  # (project, path, line, kernel, target) -> (verdict, reason)
GUARD_DECISIONS = {}  # (project, path, first, last) -> (real, reason)

k1 = first("kernels.jsonl")
k2 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r for r in second("kernels_second.jsonl")}
g1 = first("guards.jsonl")
g2 = {(r["project"], r["path"], r["first"], r["last"]): r for r in second("guards_second.jsonl")}

adj, out, used = [], [], set()
keys1 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]) for r in k1}
assert keys1 == set(k2) and len(k1) == 48, (len(k1), set(k2) ^ keys1)
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
assert used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
gkeys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == gkeys1 and len(g1) == 43, (len(g1), set(g2) ^ gkeys1)
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
