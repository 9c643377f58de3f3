"""Draw the guard rows the second judge re-judges for heldout23: the sorted keys (project, path, first, last, kind,
commit) of the first judge's guards.jsonl; random.Random(3233).sample of 30 when there are more than 30 keys, else
all of them. Prints the keys only: `real` and `reason` are dropped as each row is read.

    python bench/judged/heldout23/sample_guards_second.py <(git show s22-h23:bench/judged/heldout23/guards.jsonl) > bench/judged/heldout23/guard_keys_second.jsonl
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
drawn = keys if len(keys) <= 30 else random.Random(3233).sample(keys, 30)
print(len(keys), "keys,", len(drawn), "drawn", file=sys.stderr)
for k in drawn:
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
