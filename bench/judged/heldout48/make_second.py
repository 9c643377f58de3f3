"""Second judge's blind kernel verdicts for heldout48 (session 31): a skeleton the first judge (h48) leaves for the
second judge, as heldout37/39/46 have their make_second.py. It holds no verdict; the second judge adds one `add(...)`
call per drawn kernel and runs it to write kernels_second.jsonl.

    python bench/judged/heldout48/select_kernels.py /tmp/j48      # the drawn list (no verdicts)
    python3 bench/judged/heldout48/make_second.py                  # after filling in the add() calls

Read before the blind commit only select_kernels.py, projects.json and, through sample_guards_second.py, the key
fields of guards.jsonl (guard_keys_second.jsonl holds exactly those keys); build the trees yourself with
`bench/judged/make_trees.py heldout48 /tmp/j48`. Do not open kernels.jsonl, guards.jsonl's verdicts, findings.jsonl
or README.md before committing.

Conventions (heldout30's, unchanged): judge hipify's output compiled by hip-clang for MI300X (gfx942, wave64), MI355X
(gfx950, wave64) and MI455X (gfx1250, wave32); ok / check / retune / fix / rewrite / blocked with a one-line reason;
blocks below the wave size on real work are retune; a kernel no build compiles is ok; a CUDA kernel the project's
ROCm build replaces with a hand-kept twin or ROCm arm is judged by its replacement (verdicts count open port work);
Triton kernels are judged on what Triton's AMD back end compiles (vendor-specific dtypes, intrinsics or tuning count).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
VERDICTS = ("ok", "check", "retune", "fix", "rewrite", "blocked")
rows = []


def add(project, path, line, kernel, verdicts, reasons):
    """One drawn kernel: a verdict (or one per target in T's order) and a reason (or one per target)."""
    if isinstance(verdicts, str):
        verdicts = (verdicts,) * 3
    if isinstance(reasons, str):
        reasons = (reasons,) * 3
    for t, v, r in zip(T, verdicts, reasons):
        assert v in VERDICTS, v
        rows.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                     "project": project, "reason": r, "target": t})


# The second judge's add(...) calls go here, one per kernel select_kernels.py draws (24 kernels).

if __name__ == "__main__":
    assert len(rows) == 24 * 3, f"{len(rows)} rows: one add() per drawn kernel is missing"
    with open(HERE / "kernels_second.jsonl", "w") as f:
        for r in sorted(rows, key=lambda r: (r["project"], r["path"], r["line"], r["target"])):
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(len(rows), "rows")
