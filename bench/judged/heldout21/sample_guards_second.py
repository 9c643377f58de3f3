"""Draw the guard rows the second judge re-judges for heldout21: random.Random(3213).sample of 30 over the sorted
C/C++ keys (project, path, first, last, kind, commit) of the first judge's guards.jsonl, plus every Python-side key
(kind "python" or a .py path) so the Python guards are always judged; prints the keys only (no `real`, no `reason`: they
are dropped as each row is read).

    python bench/judged/heldout21/sample_guards_second.py <(git show s21-h21:bench/judged/heldout21/guards.jsonl) > keys.jsonl
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


def is_py(k):
    return k[4] in ("py", "python") or str(k[1]).endswith(".py")


c_keys = [k for k in keys if not is_py(k)]
py_keys = [k for k in keys if is_py(k)]
drawn = c_keys if len(c_keys) < 30 else random.Random(3213).sample(c_keys, 30)
print(len(keys), "keys,", len(c_keys), "C/C++,", len(py_keys), "Python-side", file=sys.stderr)
for k in drawn + py_keys:
    print(json.dumps(dict(zip(KEYS, k)), sort_keys=True))
