"""Draw the 30 guard rows the second judge re-judges: random.Random(3153).sample over the sorted keys (project, path,
first, last, kind, commit) of the first judge's guards.jsonl; prints the keys only (no `real`, no `reason`).

    git show s18-h15:bench/judged/heldout15/guards.jsonl > /tmp/guards_first.jsonl
    python bench/judged/heldout15/sample_guards_second.py /tmp/guards_first.jsonl > keys.jsonl
"""
import json
import random
import sys

KEYS = ("project", "path", "first", "last", "kind", "commit")
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = sorted({tuple(r[k] for k in KEYS) for r in rows}, key=lambda t: tuple(str(x) for x in t))
for k in random.Random(3153).sample(keys, 30):
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
