"""Inter-judge agreement on heldout34's kernel verdicts; heldout30's script with a chance column and --skip.

    git show fafea6bf:bench/judged/heldout34/kernels.jsonl > /tmp/first_blind.jsonl
    python3 bench/judged/heldout34/agreement.py /tmp/first_blind.jsonl bench/judged/heldout34/kernels_second.jsonl
        [--field expected] [--skip KERNEL ...]

Rows are matched on (project, path, line, kernel, target). Prints, per target and overall: agreeing pairs, raw
agreement, chance agreement (from each judge's verdict marginals) and Cohen's kappa; then each judge's verdict
totals, the confusion (first -> second) and every disagreement. `--skip KERNEL` leaves that kernel's pairs out (the
second judge's `integrate` verdict was not blind). FIRST should be the first judge's blind record (fafea6bf), not
the branch head, whose kernels.jsonl carries the non-blind correction 39bb0c7c.
"""
from __future__ import annotations

import json
import sys
from collections import Counter


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def chance(pairs):
    n = len(pairs)
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    return sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)


def kappa(pairs):
    if not pairs:
        return float("nan")
    po = sum(a == b for a, b in pairs) / len(pairs)
    pe = chance(pairs)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def main(argv):
    field, skip = "expected", set()
    if "--field" in argv:
        i = argv.index("--field"); field = argv[i + 1]; del argv[i:i + 2]
    while "--skip" in argv:
        i = argv.index("--skip"); skip.add(argv[i + 1]); del argv[i:i + 2]
    first, second = load(argv[0]), load(argv[1])
    keyf = lambda r: (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    a = {keyf(r): r for r in first if r["kernel"] not in skip}
    b = {keyf(r): r for r in second if r["kernel"] not in skip}
    if set(a) != set(b):
        print("unmatched: only first", len(set(a) - set(b)), "only second", len(set(b) - set(a)))
    common = sorted(set(a) & set(b), key=str)
    groups = {}
    for k in common:
        groups.setdefault(k[4], []).append((a[k][field], b[k][field]))
    allpairs = [p for g in sorted(groups) for p in groups[g]]
    if skip:
        print("skipped kernels:", ", ".join(sorted(skip)))
    for g, ps in sorted(groups.items()) + [("overall", allpairs)]:
        agree = sum(x == y for x, y in ps)
        print(f"{g}: {agree}/{len(ps)} = {100 * agree / len(ps):.1f}%  chance {chance(ps):.3f}  "
              f"kappa {kappa(ps):.3f}")
    print("first :", dict(sorted(Counter(x for x, _ in allpairs).items())))
    print("second:", dict(sorted(Counter(y for _, y in allpairs).items())))
    print("confusion (first -> second):", dict(sorted(Counter(f"{x}->{y}" for x, y in allpairs).items())))
    print("disagreements:")
    for k in common:
        if a[k][field] != b[k][field]:
            print("  ", k, "first", a[k][field], "second", b[k][field])


if __name__ == "__main__":
    main(sys.argv[1:])
