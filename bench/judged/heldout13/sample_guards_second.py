"""Draw the 30 guard rows the second judge re-judges: random.Random(3133).sample over the keys (project, path, first, last,
kind, commit) of the first judge's guards.jsonl, in file order; prints the keys only (no `real`, no `reason`).

    git show s17-h13:bench/judged/heldout13/guards.jsonl > /tmp/guards_first.jsonl
    python bench/judged/heldout13/sample_guards_second.py /tmp/guards_first.jsonl > keys.jsonl
"""
import json
import random
import sys

KEYS = ("project", "path", "first", "last", "kind", "commit")
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = [{k: r[k] for k in KEYS} for r in rows]
for k in random.Random(3133).sample(keys, 30):
    print(json.dumps(k, sort_keys=True))
