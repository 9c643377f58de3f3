"""Adjudicates every kernel disagreement between heldout34's two judges:
- first judge: branch s26-h34, the blind record kernels.jsonl at fafea6bf (before porter ran; the branch head's
  file carries the non-blind correction 39bb0c7c of kfusion integrate, which is decided here on the code instead);
- second judge: this directory's kernels_second.jsonl, blind commit d0bc0cff (its integrate rows were not blind: the
  lead's note named the problem first).
Writes adjudication.jsonl (one row per disagreeing pair with both verdicts, the decision and its reason) and
kernels_adjudicated.jsonl (the first judge's 111 blind rows with the decisions applied; a changed row's reason gets
an `[adjudicated: ...]` suffix). A disagreement without a decision below is an error, and so is a decision for a
pair that agrees. It also checks that the adjudicated verdicts equal those of the branch head's kernels.jsonl, i.e.
that the first judge's correction and this adjudication land on the same verdicts. Run from the worktree root:

    python3 bench/judged/heldout34/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout34/"
BLIND = "fafea6bf"


def git_rows(ref, name):
    out = subprocess.run(["git", "show", f"{ref}:{D}{name}"], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def key(r):
    return (r["project"], r["path"], r["line"], r["kernel"], r["target"])


INTEGRATE = (
    "fix. kfusion.cu:74's loop header `pos += delta, cameraX += cameraDelta` adds float3 to float3. kfusion.h "
    "includes cutil_math.h, whose free `void operator+=(float3 &a, float3 b)` (cutil_math.h:344) is an exact match "
    "for both operands. HIP_vector_type's member `HIP_vector_type& operator+=(const HIP_vector_type&)` is one too: a "
    "non-template member, present in the local HIP 5.2 headers and in ROCm/clr's current amd_hip_vector_types.h. "
    "Neither is better, so overload resolution is ambiguous. Checked: a hipified copy of kfusion.cu's kernels "
    "(__CUDACC__ -> __HIPCC__, cuda includes -> hip) under clang++-22 -x hip --offload-arch=gfx942 reports 'use of "
    "overloaded operator += is ambiguous' at both increments and nothing else in the drawn kernels. The kernel "
    "therefore does not compile on any target until the increments are written per component or the cutil "
    "overloads give way to HIP's. The first judge's blind ok rested on 'plain arithmetic', which misses the clash; "
    "both judges' later fix (the first judge's labelled non-blind correction 39bb0c7c, the second judge's verdict "
    "after the lead's note) is right on the code. Not a retune or rewrite: a one-line change.")
K = ("GerhardR/kfusion", "kfusion.cu", 67, "integrate")
DECISIONS = {K + (t,): ("fix", INTEGRATE) for t in ("mi300x", "mi355x", "mi455x")}

first = git_rows(BLIND, "kernels.jsonl")
head = {key(r): r for r in git_rows("s26-h34", "kernels.jsonl")}
second = {key(r): r for r in map(json.loads, open(D + "kernels_second.jsonl")) if r}
assert len(first) == len(second) == len(head) == 111 and {key(r) for r in first} == set(second) == set(head)

adj, out, used = [], [], set()
for r in first:
    k, s = key(r), second[key(r)]
    if s["expected"] != r["expected"]:
        verdict, reason = DECISIONS[k]  # a disagreement without a decision is an error
        used.add(k)
        adj.append({**dict(zip(("project", "path", "line", "kernel", "target"), k)), "first": r["expected"],
                    "second": s["expected"], "decided": verdict, "reason": reason})
        if verdict != r["expected"]:
            r = dict(r, expected=verdict, reason=r["reason"] + " [adjudicated: " + reason + "]")
    out.append(r)
assert used == set(DECISIONS), set(DECISIONS) - used
assert all(r["expected"] == head[key(r)]["expected"] for r in out), "adjudicated verdicts differ from s26-h34 head"

for name, rows in (("adjudication.jsonl", adj), ("kernels_adjudicated.jsonl", out)):
    with open(D + name, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
print(len(adj), "decisions;", sum(r["expected"] != "ok" for r in out), "non-ok adjudicated rows of", len(out))
