"""List the heldout28 guard sides the blankers write, and the judged sample for the two largest projects.

    python bench/judged/heldout28/sample_guards.py /tmp/h28 [--seed 3281] [--per-project 15]

For every dual project in projects.json this runs score_judged.blank_guards (with the project's rocm_macros and
cuda_macros, as the scorer's --recall does) and blank_python_guards_v2 on a scratch copy of the tree, and prints every
CUDA side (path, first, last). guards.jsonl judges every side of hpcscan, SOFT and ExaChem; mfem/mfem (86 C/C++
sides) and blender/cycles (70) are judged on a sample drawn here: one random.Random(seed), projects in the table's
order, rng.sample(sides, per_project) per sampled project. No porter code is involved.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
import score_judged as sj  # noqa: E402

SAMPLED = ("mfem/mfem", "blender/cycles")


def main(argv: list[str]) -> int:
    args = list(argv)
    opts = {"--seed": 3281, "--per-project": 15}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = int(args[i + 1])
            del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(args[0])
    rng = random.Random(opts["--seed"])
    for p in json.loads((HERE / "projects.json").read_text()):
        tree = root / p["tree"]
        extra = "|".join(re.escape(x) for x in p.get("rocm_macros", ()))
        rocm = re.compile(sj.ROCM_GUARD.pattern + (f"|\\b(?:{extra})\\b" if extra else ""))
        names = "|".join(re.escape(x) for x in p.get("cuda_macros", ()))
        cuda = re.compile(f"\\b(?:{names})\\b") if names else None
        scratch = Path(tempfile.mkdtemp())
        shutil.copytree(tree, scratch / "c")
        shutil.copytree(tree, scratch / "py")
        c_sides = sj.blank_guards(tree, scratch / "c", rocm, cuda)
        py_sides = sj.blank_python_guards_v2(tree, scratch / "py")
        shutil.rmtree(scratch)
        print(f"{p['project']}: {len(c_sides)} C/C++ sides, {len(py_sides)} Python sides")
        judged = sorted(rng.sample(c_sides, opts["--per-project"])) if p["project"] in SAMPLED else c_sides
        for s in judged:
            print("    c", *s)
        for s in py_sides:
            print("    python", *s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
