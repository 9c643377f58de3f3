"""Draw the guard rows the second judge re-judges: random.Random(3193).sample of 30 over the sorted keys (project, path,
first, last, kind, commit) of the first judge's guards.jsonl (all of them if fewer than 30); prints the keys only
(no `real`, no `reason`: they are dropped as each row is read).

    python bench/judged/heldout19/sample_guards_second.py <(git show s20-h19:bench/judged/heldout19/guards.jsonl) > keys.jsonl
"""
import json
import random
import sys

KEYS = ("project", "path", "first", "last", "kind", "commit")
keys = set()
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        keys.add(tuple(r.get(k) for k in KEYS))
keys = sorted(keys, key=lambda t: tuple(str(x) for x in t))
drawn = keys if len(keys) < 30 else random.Random(3193).sample(keys, 30)
print(len(keys), "keys", file=sys.stderr)
for k in drawn:
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
