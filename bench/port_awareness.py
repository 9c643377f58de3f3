#!/usr/bin/env python3
"""Measure port-awareness on real dual CUDA/ROCm trees: how many of porter's findings on the CUDA side of a ROCm
guard read handled (goal: at least 90%), and how many inside ROCm-only code read open (goal: at most 5%).

    python bench/port_awareness.py /tmp/bnb /tmp/aten-cuda ... [--macro BNB_HIP ...]

The guards are found independently of porter (no porter.source.macros): a line scanner that knows only *simple*
conditions, `#ifdef M`, `#ifndef M`, `#if defined(M)`, `#if !defined(M)`, `#if M`, with M one of the built-in ROCm
macros or a --macro, and their `#else` arm (an `#elif` ends what it can judge). Lines in the positive arm are the ROCm
side, lines in the other arm the CUDA side; nested simple guards take the innermost. ROCm-only code is, in addition,
every file named `*.hip`, `*_hip.*` or under a `rocm/`/`hip/` directory. Each tree is scanned with porter's own
pipeline (no cache, repository config ignored) and every finding on a judged line is scored.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

BUILTIN = ["USE_ROCM", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__"]
SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hip", ".cxx", ".inl"}


def simple_guards(text: str, macros: list[str]) -> dict[int, str]:
    """line -> "rocm" or "cuda" for lines inside simple ROCm guards (the innermost decides)."""
    names = "|".join(re.escape(m) for m in macros)
    pos = re.compile(rf"^\s*#\s*(?:ifdef\s+({names})\b|if\s+(?:defined\s*\(?\s*({names})\s*\)?|({names}))\s*$)")
    neg = re.compile(rf"^\s*#\s*(?:ifndef\s+({names})\b|if\s+!\s*defined\s*\(?\s*({names})\s*\)?\s*$)")
    stack: list[str | None] = []  # per open #if: the side of the current arm, None when not a simple guard
    out: dict[int, str] = {}
    for i, raw in enumerate(text.split("\n"), 1):
        line = re.sub(r"//.*|/\*.*?\*/", "", raw).rstrip()
        if re.match(r"^\s*#\s*if", line):
            stack.append("rocm" if pos.match(line) else "cuda" if neg.match(line) else None)
            continue
        if re.match(r"^\s*#\s*elif", line) and stack:
            stack[-1] = None
            continue
        if re.match(r"^\s*#\s*else", line) and stack:
            stack[-1] = {"rocm": "cuda", "cuda": "rocm"}.get(stack[-1])
            continue
        if re.match(r"^\s*#\s*endif", line) and stack:
            stack.pop()
            continue
        for s in reversed(stack):
            if s is not None:
                out[i] = s
                break
    return out


def rocm_only_file(rel: str) -> bool:
    p = Path(rel)
    return (p.suffix == ".hip" or "_hip." in p.name or any(d in ("rocm", "hip") for d in p.parts[:-1]))


def measure(tree: Path, macros: list[str]) -> dict:
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(tree, Settings(jobs=2, rocm_macros=tuple(macros))).result
    sides: dict[str, dict[int, str]] = {}
    for p in tree.rglob("*"):
        if p.is_file() and p.suffix in SUFFIXES:
            try:
                sides[p.relative_to(tree).as_posix()] = simple_guards(p.read_text("utf-8", "replace"), BUILTIN + macros)
            except OSError:
                continue
    cuda_side = [f for f in result.findings if sides.get(f.path, {}).get(f.line) == "cuda"
                 and not rocm_only_file(f.path)]
    rocm_side = [f for f in result.findings if rocm_only_file(f.path) or sides.get(f.path, {}).get(f.line) == "rocm"]
    ps = result.port_status.findings
    return {
        "findings": len(result.findings), "open": ps.open, "handled": ps.handled, "cuda_only": ps.cuda_only,
        "cuda_side": len(cuda_side), "cuda_side_handled": sum(f.status.value != "open" for f in cuda_side),
        "rocm_only": len(rocm_side), "rocm_only_open": sum(f.status.value == "open" for f in rocm_side),
        "misses": [f"{f.path}:{f.line} {f.rule}" for f in cuda_side if f.status.value == "open"][:10]
                  + [f"{f.path}:{f.line} {f.rule} (rocm side, open)" for f in rocm_side if f.status.value == "open"][:10],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--macro", action="append", default=[], help="a project ROCm macro (also given to porter)")
    ap.add_argument("--misses", action="store_true", help="list up to 10 misses of each kind")
    a = ap.parse_args(argv)
    ok = True
    for tree in a.trees:
        m = measure(tree, a.macro)
        handled = m["cuda_side_handled"] / m["cuda_side"] if m["cuda_side"] else 1.0
        leaked = m["rocm_only_open"] / m["rocm_only"] if m["rocm_only"] else 0.0
        ok &= handled >= 0.90 and leaked <= 0.05
        print(f"{tree}: {m['findings']} findings ({m['open']} open, {m['handled']} handled, {m['cuda_only']} cuda-only); "
              f"CUDA side of a ROCm guard: {m['cuda_side_handled']}/{m['cuda_side']} handled ({handled:.1%}); "
              f"ROCm-only code: {m['rocm_only_open']}/{m['rocm_only']} open ({leaked:.1%})")
        if a.misses:
            for s in m["misses"]:
                print("   ", s)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
