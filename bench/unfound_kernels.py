"""List every judged kernel porter does not find (issue 27 class 5): one line per kernel of the development sets'
judged kernels (the adjudicated file when a set has one) whose (path, name) porter's kernel list lacks, with the
judged line's text and a first guess at why (the file's language as porter reads it, whether porter found any
kernel in that file, the declaration's spelling); and each judged kernel porter finds by name only, none of whose
extents holds the judged line (an overload porter misses, or an extent cut short or run long).

    python bench/unfound_kernels.py heldout21=/tmp/h21 heldout22=/tmp/h22 ...
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from score_judged import JUDGED, TARGETS, kernel_by_target  # noqa: E402
from porter.pipeline import run  # noqa: E402
from porter.settings import Settings  # noqa: E402


def judged_kernels(name: str) -> list[dict]:
    base = JUDGED / name
    f = base / "kernels_adjudicated.jsonl"
    if not f.exists():
        f = base / "kernels.jsonl"
    return [json.loads(x) for x in f.read_text().splitlines() if x.strip()]


def main(argv: list[str]) -> int:
    for spec in argv:
        name, _, root = spec.partition("=")
        projects = json.loads((JUDGED / name / "projects.json").read_text())
        kernels = judged_kernels(name)
        for p in projects:
            mine = [j for j in kernels if j["project"] == p["project"] and j["target"] == TARGETS[0]]
            tree = Path(root) / p["tree"]
            if not mine or not tree.is_dir():
                continue
            result = run(tree, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
            shown: list[str] = []
            kernel_by_target(mine, result, shown)
            files = {f.path: f for f in result.files}
            found_in = {k.path for k in result.kernels}
            named: dict = {}
            for k in result.kernels:
                named.setdefault((k.path, k.name), []).append(k)
            for j in mine:
                cands = named.get((j["path"], j["kernel"]), [])
                if cands and not any(c.line <= j["line"] <= c.end_line for c in cands):
                    spans = ", ".join(f"{c.line}-{c.end_line}" for c in cands)
                    print(f"{name}\t{p['project']}\t{j['path']}:{j['line']}\t{j['kernel']}\t"
                          f"found by name only: porter's extents {spans}", flush=True)
            for line in shown:
                if not line.startswith("not found: "):
                    continue
                _, _, rest = line.partition("not found: ")
                kname, where, _t = rest.split(" ")
                path, _, ln = where.rpartition(":")
                src = tree / path
                text = ""
                if src.is_file():
                    lines = src.read_text(errors="replace").split("\n")
                    text = lines[int(ln) - 1].strip()[:100] if int(ln) <= len(lines) else "?"
                fr = files.get(path)
                lang = getattr(fr, "language", None) if fr is not None else "not scanned"
                print(f"{name}\t{p['project']}\t{path}:{ln}\t{kname}\tlang={lang}\t"
                      f"other kernels in file={path in found_in}\t{text}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
