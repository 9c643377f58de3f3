"""Draw the guard rows the second judge re-judges for heldout28: the sorted keys (project, path, first, last, kind,
commit) of the first judge's guards.jsonl; random.Random(3283).sample of 30 from the C/C++ keys (kind "c") when there
are more than 30, plus every Python key (kind "python"). Prints the keys only: `real` and `reason` are dropped as each
row is read (heldout25 script, seed 3283).

    python bench/judged/heldout28/sample_guards_second.py bench/judged/heldout28/guards.jsonl > bench/judged/heldout28/guard_keys_second.jsonl
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
c_keys = [k for k in keys if k[4] != "python"]
py_keys = [k for k in keys if k[4] == "python"]
drawn = (c_keys if len(c_keys) <= 30 else random.Random(3283).sample(c_keys, 30)) + py_keys
print(len(keys), "keys,", len(c_keys), "C/C++,", len(py_keys), "Python,", len(drawn), "drawn", file=sys.stderr)
for k in drawn:
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
