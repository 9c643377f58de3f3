"""Inter-judge agreement on heldout36's kernel verdicts (issue 27, session 27; heldout29's script, paths updated).

    python3 bench/judged/heldout36/agreement.py FIRST.jsonl SECOND.jsonl [--json]

FIRST and SECOND hold rows with the keys of kernels.jsonl (project, path, line, kernel, target, expected, reason).
Rows are matched on (project, path, line, kernel, target); the script prints, per target and together, the number of
matched pairs, raw agreement and Cohen's kappa (chance agreement from each judge's own marginal distribution over
the verdict scale), per-project agreement, and every disagreeing pair with both reasons. `--json` prints the
disagreements as JSON lines instead (the input of adjudication.jsonl). Standard library only.

The first judge's file lives on branch s27-h36: `git show s27-h36:bench/judged/heldout36/kernels.jsonl`, or
bench/judged/heldout36/kernels.jsonl in this worktree (the same blob; this branch is cut from s27-h36).
"""
from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict

TARGETS = ("mi300x", "mi355x", "mi455x")


def load(path: str) -> dict[tuple, dict]:
    rows = {}
    for line in open(path, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            rows[(r["project"], r["path"], r["line"], r["kernel"], r["target"])] = r
    return rows


def kappa(pairs: list[tuple[str, str]]) -> tuple[float, float, float]:
    """(observed agreement, chance agreement, Cohen's kappa) over (first, second) verdict pairs."""
    n = len(pairs)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    po = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    k = (po - pe) / (1 - pe) if pe < 1 else 1.0
    return po, pe, k


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) != 2:
        print(__doc__)
        return 2
    first, second = load(args[0]), load(args[1])
    keys = sorted(set(first) & set(second))
    only = (set(first) ^ set(second))
    if only:
        print(f"unmatched rows: {len(only)}", file=sys.stderr)
        for k in sorted(only):
            print("  ", k, "first" if k in first else "second", file=sys.stderr)
    disagreements = [k for k in keys if first[k]["expected"] != second[k]["expected"]]
    if as_json:
        for k in disagreements:
            print(json.dumps({"key": {"project": k[0], "path": k[1], "line": k[2], "kernel": k[3], "target": k[4]},
                              "first": first[k]["expected"], "second": second[k]["expected"],
                              "first_reason": first[k]["reason"], "second_reason": second[k]["reason"]}))
        return 0
    print("| | pairs | agree | agreement | chance | Cohen's kappa |")
    print("|---|---|---|---|---|---|")
    for t in TARGETS + ("all",):
        pairs = [(first[k]["expected"], second[k]["expected"]) for k in keys if t == "all" or k[4] == t]
        po, pe, kp = kappa(pairs)
        agree = sum(a == b for a, b in pairs)
        print(f"| {t} | {len(pairs)} | {agree} | {po:.1%} | {pe:.3f} | {kp:.3f} |")
    print()
    per_project = defaultdict(lambda: [0, 0])
    for k in keys:
        per_project[k[0]][1] += 1
        per_project[k[0]][0] += first[k]["expected"] == second[k]["expected"]
    print("per project (all targets): " + ", ".join(f"{p} {a}/{n}" for p, (a, n) in per_project.items()))
    print()
    cm = Counter((first[k]["expected"], second[k]["expected"]) for k in keys)
    print("confusion (first -> second): " + ", ".join(f"{a}->{b} {n}" for (a, b), n in sorted(cm.items())))
    print()
    print(f"disagreements: {len(disagreements)}")
    for k in disagreements:
        print(f"- {k[0]} {k[1]}:{k[2]} {k[3]} [{k[4]}] first={first[k]['expected']} second={second[k]['expected']}")
        print(f"    first:  {first[k]['reason']}")
        print(f"    second: {second[k]['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
