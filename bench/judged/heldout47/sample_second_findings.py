"""Draw the second judge's fixed-seed findings sample for heldout47 and print it blind (no verdict, no reason).

    python3 bench/judged/heldout47/sample_second_findings.py FIRST_FINDINGS.jsonl [--seed 3473] [--n 20]

FIRST_FINDINGS is the first judge's findings.jsonl (saved from `git show s31-h47:bench/judged/heldout47/findings.jsonl`).
Rows are sorted by (project, path, line, rule, fingerprint), then random.Random(seed).sample picks N; only the
identifying fields (project, commit, path, line, rule, fingerprint) are printed, so the second judge can judge the
sample without seeing the first judge's verdicts. The seed was fixed before the first draw.
"""
import json
import random
import sys

KEEP = ("project", "commit", "path", "line", "rule", "fingerprint")


def main(argv):
    path = argv[1]
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 3473
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 20
    rows = [json.loads(l) for l in open(path) if l.strip()]
    rows.sort(key=lambda r: (r["project"], r["path"], r["line"], r["rule"], r["fingerprint"]))
    for r in random.Random(seed).sample(rows, min(n, len(rows))):
        print(json.dumps({k: r[k] for k in KEEP}, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
