"""Keys of the guard sides the second judge re-judges for heldout48: the sorted keys (project, path, first, last, kind,
commit) of the first judge's guards.jsonl, all of them (as heldout39/46, every side rather than a sample, so the
guard seed 3483 is unused). Prints the keys only: `real`, `reason` and any other field are dropped as each row is
read. Copied from heldout46's script.

    python bench/judged/heldout48/sample_guards_second.py bench/judged/heldout48/guards.jsonl > bench/judged/heldout48/guard_keys_second.jsonl
"""
import json
import sys

KEYS = ("project", "path", "first", "last", "kind", "commit")
keys = set()
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        keys.add(tuple(r.get(k) for k in KEYS))
keys = sorted(keys, key=lambda t: tuple(str(x) for x in t))
print(len(keys), "keys,", sum(k[4] == "python" for k in keys), "Python", file=sys.stderr)
for k in keys:
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
