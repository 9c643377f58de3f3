"""Where twins by definition (porter.portaware.twins.definition_twin) would pair files, over a judged set's trees,
read from the files alone (no scan): the check behind the overlap rule's threshold.

For each tree, every C/C++ file's visible definitions; a file is ROCm-side by name or place (scope.rocm_path_evidence)
or by including hip_runtime.h and no CUDA runtime header (the build-arm sides status.py also reads need the scan and
are left out here). Printed per tree:

- `rocm`: each CUDA-side file (a CUDA suffix or path word, or a CUDA toolkit include) that definition_twin pairs with a ROCm-side file, and the number of
  names shared - the pairings porter makes (before the scan's other rules, which decide most of these files first);
- `any`: the same rule for every C/C++ file not ROCm-side, with every other C/C++ file as a candidate (a CPU backend, a test, a copy):
  how often the overlap rule alone pairs unrelated files, the coincidences the ROCm-side condition must stop.

    python bench/definition_twins.py heldout37 /tmp/dual2/h37 [--any]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from porter.portaware.scope import rocm_path_evidence  # noqa: E402
from porter.portaware.status import _CUDA_PATH, _CUDA_TOOLKIT_INCLUDE  # noqa: E402
from porter.portaware.twins import definition_twin, visible_definitions  # noqa: E402

SUFFIXES = {".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl"}
INCLUDE = re.compile(rb'(?m)^[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]+[>"])')
HIP_RT = re.compile(rb'#\s*include\s*[<"]hip/hip_runtime(?:_api)?\.h[>"]')
CUDA_RT = re.compile(rb'#\s*include\s*[<"](?:cuda_runtime(?:_api)?|cuda)\.h[>"]')


def tree_pairs(tree: Path, any_candidate: bool) -> list[tuple[str, str, int, int]]:
    """(CUDA file, twin, shared names, the CUDA file's names) for each pairing in one tree."""
    defs: dict[str, frozenset[str]] = {}
    rocm: set[str] = set()
    cuda: set[str] = set()
    for p in sorted(tree.rglob("*")):
        if not p.is_file() or p.suffix.lower() not in SUFFIXES or p.stat().st_size > 2_000_000:
            continue
        rel = p.relative_to(tree).as_posix()
        data = p.read_bytes()
        defs[rel] = frozenset(n for n, _a, _b in visible_definitions(rel, data))
        if rocm_path_evidence(rel) or (HIP_RT.search(data) and not CUDA_RT.search(data)):
            rocm.add(rel)
        elif _CUDA_PATH.search(rel) or any(_CUDA_TOOLKIT_INCLUDE.search(i.decode("latin-1"))
                                           for i in INCLUDE.findall(data)):
            cuda.add(rel)
    out = []
    for path, mine in sorted(defs.items()):
        if path in rocm or not mine or (path not in cuda and not any_candidate):
            continue
        pool = [(r, defs[r]) for r in defs if r != path and (any_candidate or r in rocm)]
        found = definition_twin(mine, pool)
        if found is not None:
            out.append((path, found[0], len(found[1]), len(mine)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set")
    ap.add_argument("root", type=Path)
    ap.add_argument("--any", action="store_true", help="every C/C++ file is a candidate, ROCm-side or not")
    args = ap.parse_args(argv)
    projects = json.loads((HERE / "judged" / args.set / "projects.json").read_text())
    total = 0
    for p in projects:
        tree = args.root / p["tree"]
        if not tree.is_dir():
            print(f"{p['tree']}: no tree", file=sys.stderr)
            continue
        pairs = tree_pairs(tree, args.any)
        total += len(pairs)
        for path, twin, shared, mine in pairs:
            print(f"{args.set} {p['tree']} {path} -> {twin} ({shared}/{mine})")
    print(f"{args.set}: {total} pairings ({'any candidate' if args.any else 'ROCm-side candidates'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
