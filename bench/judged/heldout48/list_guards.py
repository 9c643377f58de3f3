"""List every CUDA side of a ROCm guard in the heldout48 trees, without porter (run before any porter scan).

    python bench/judged/heldout48/list_guards.py /tmp/h48/h48 > /tmp/h48/sides.jsonl

For each project of projects.json (in order) it calls bench/score_judged.py's blankers the way score_judged does for a
set with guards: `blank_guards` with ROCM_GUARD plus the project's `rocm_macros` and a CUDA pattern from its
`cuda_macros`, and `blank_python_guards_v2`; each writes a blanked copy into a temporary directory that is thrown
away. Only the blanking functions are imported; no scan runs. Prints one JSON object per side (project, commit, path,
first, last, kind "c" or "python") for the judge to fill in `real` and `reason`. There is no sampling: every side is
judged (the brief's guard seed 3483 is unused).
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from score_judged import ROCM_GUARD, blank_guards, blank_python_guards_v2  # noqa: E402


def sides(root: Path) -> list[dict]:
    out = []
    for p in json.loads((HERE / "projects.json").read_text()):
        tree = root / p["tree"]
        extra = "|".join(re.escape(x) for x in p.get("rocm_macros", ()))
        rocm = re.compile(ROCM_GUARD.pattern + (f"|\\b(?:{extra})\\b" if extra else ""))
        names = "|".join(re.escape(x) for x in p.get("cuda_macros", ()))
        cuda = re.compile(f"\\b(?:{names})\\b") if names else None
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            c = blank_guards(tree, Path(a), rocm, cuda)
            py = blank_python_guards_v2(tree, Path(b))
        for kind, rows in (("c", c), ("python", py)):
            for path, first, last in rows:
                out.append({"project": p["project"], "commit": p["commit"], "path": path, "first": first,
                            "last": last, "kind": kind})
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    for row in sides(Path(sys.argv[1])):
        print(json.dumps(row, sort_keys=True))
