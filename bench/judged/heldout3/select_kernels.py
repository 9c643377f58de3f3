"""Draw the heldout3 kernels to judge, without porter: the documented fixed-seed procedure of bench/judged/README.md.

    python bench/judged/heldout3/select_kernels.py /tmp/h3 [--seed 2703]

reads projects.json (order, tree directory names under ROOT, paths left out of the draw) and prints, per project,
the definitions found and the kernels drawn (path:first-last name). Per project, in the table's order and with one
random.Random(seed): rng.sample of 4 from the definitions of at most 100 lines, then rng.choice of one (any length,
not yet drawn) whose body matches TENSOR_CORE, then rng.choice of one (not yet drawn) matching WARP, then random
definitions of at most 100 lines until there are 5.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXTS = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".inl")
TENSOR_CORE = re.compile(r"\bmma\b|wmma|asm\s*(volatile\s*)?\(")
WARP = re.compile(r"__shfl|__ballot|__activemask|__syncwarp|__any_sync|__all_sync|[Ww]arp_?[Rr]educe")


def definitions(root: Path, excluded: tuple[str, ...]) -> list[dict]:
    """Every `__global__` definition (a `{` before any `;`) outside lines starting with //, #, * or /*: name (the
    identifier before the first `(` once __launch_bounds__(...) is removed), first and last line (brace matching)."""
    out = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in EXTS:
            continue
        rel = p.relative_to(root).as_posix()
        if excluded and rel.startswith(excluded):
            continue
        text = p.read_text(errors="replace")
        lines = text.split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        for i, line in enumerate(lines):
            if "__global__" not in line or line.lstrip().startswith(("//", "#", "*", "/*")):
                continue
            start = offsets[i] + line.index("__global__")
            rest = text[start:]
            brace, semi = rest.find("{"), rest.find(";")
            if brace < 0 or 0 <= semi < brace:
                continue
            head = re.sub(r"__launch_bounds__\s*\([^)]*\)", "", rest[:brace])
            m = re.search(r"([A-Za-z_]\w*)\s*\(", head[len("__global__"):])
            if not m:
                continue
            depth, j = 0, start + brace
            while j < len(text):
                if text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            end = text.count("\n", 0, j) + 1
            out.append({"path": rel, "line": i + 1, "end": end, "kernel": m.group(1), "length": end - i,
                        "body": text[start:j + 1]})
    return out


def draw(root: Path, seed: int) -> dict[str, list[dict]]:
    rng = random.Random(seed)
    chosen = {}
    for p in json.loads((HERE / "projects.json").read_text()):
        defs = definitions(root / p["tree"], tuple(p["select_exclude"]))
        short = [k for k in defs if k["length"] <= 100]
        pick = rng.sample(short, min(4, len(short)))
        for pattern in (TENSOR_CORE, WARP):
            pool = [k for k in defs if pattern.search(k["body"]) and k not in pick]
            if pool:
                pick.append(rng.choice(pool))
        rest = [k for k in short if k not in pick]
        while len(pick) < 5 and rest:
            k = rng.choice(rest)
            rest.remove(k)
            pick.append(k)
        chosen[p["project"]] = pick
        print(f"{p['project']}: {len(defs)} definitions, {len(short)} of at most 100 lines")
        for k in pick:
            print(f"    {k['path']}:{k['line']}-{k['end']} {k['kernel']} ({k['length']} lines)")
    return chosen


if __name__ == "__main__":
    args = sys.argv[1:]
    seed = 2703
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    draw(Path(args[0]), seed)
