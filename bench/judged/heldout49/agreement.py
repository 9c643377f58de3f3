"""Inter-judge agreement on heldout49's kernel verdicts; heldout38's script (heldout30's, heldout25's), docstring updated; the kernels run is stored in agreement_kernels.txt.

    python3 bench/judged/heldout49/agreement.py bench/judged/heldout49/kernels.jsonl bench/judged/heldout49/kernels_second.jsonl [--field expected] [--key kernels|guards] [--skip PROJECT]

--skip leaves one project's rows out (heldout44 used it for rows that were not blind; heldout49 has none). Rows are matched on (project, path, line, kernel, target) for kernels and (project, path, first, last) for guards. Prints the
agreement per target (kernels) and overall, Cohen's kappa over the matched pairs (per target and overall), and every
disagreement. FIRST may be a git object (`git show s31-h49:bench/judged/heldout49/kernels.jsonl`) saved to a file.
"""
from __future__ import annotations

import json
import sys
from collections import Counter


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def kappa(pairs):
    n = len(pairs)
    if not n:
        return float("nan")
    po = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def main(argv):
    field, kind = "expected", "kernels"
    if "--field" in argv:
        i = argv.index("--field"); field = argv[i + 1]; del argv[i:i + 2]
    if "--key" in argv:
        i = argv.index("--key"); kind = argv[i + 1]; del argv[i:i + 2]
    skip = None
    if "--skip" in argv:
        i = argv.index("--skip"); skip = argv[i + 1]; del argv[i:i + 2]
    first, second = load(argv[0]), load(argv[1])
    if skip:
        first = [r for r in first if r["project"] != skip]
        second = [r for r in second if r["project"] != skip]
    keyf = ((lambda r: (r["project"], r["path"], r["line"], r["kernel"], r["target"])) if kind == "kernels"
            else (lambda r: (r["project"], r["path"], r["first"], r["last"])))
    a = {keyf(r): r for r in first}
    b = {keyf(r): r for r in second}
    common = sorted(set(a) & set(b), key=str)
    if set(b) - set(a):
        print("only in second:", len(set(b) - set(a)))
    groups = {}
    for k in common:
        g = k[4] if kind == "kernels" else "all"
        groups.setdefault(g, []).append((a[k][field], b[k][field]))
    allpairs = [p for ps in groups.values() for p in ps]
    for g in sorted(groups):
        ps = groups[g]
        agree = sum(x == y for x, y in ps)
        print(f"{g}: {agree}/{len(ps)} = {100 * agree / len(ps):.1f}%  kappa {kappa(ps):.3f}")
    agree = sum(x == y for x, y in allpairs)
    print(f"overall: {agree}/{len(allpairs)} = {100 * agree / len(allpairs):.1f}%  kappa {kappa(allpairs):.3f}")
    print("first :", dict(Counter(x for x, _ in allpairs)))
    print("second:", dict(Counter(y for _, y in allpairs)))
    print("disagreements:")
    for k in common:
        if a[k][field] != b[k][field]:
            print("  ", k, "first", a[k][field], "second", b[k][field])


if __name__ == "__main__":
    main(sys.argv[1:])
