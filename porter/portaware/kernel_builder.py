"""The sources a Hugging Face kernel-builder `build.toml` compiles for each backend.

kernel-builder (https://huggingface.co/docs/kernels/builder/writing-kernels.md) describes a kernel-hub package in one `build.toml`:
`[general] backends = ["cuda", "rocm"]` and one `[kernel.NAME]` table per compiled unit, each with its `backend`
("cuda", "rocm", "metal", "xpu", ...), its `src` list (paths relative to the build.toml) and, for ROCm, the
`rocm-archs` it is built for. A table whose backend is "cuda" is compiled by the CUDA build only; one whose backend
is "rocm" by the ROCm build only. When the same build.toml has both, the ROCm table's sources are the ROCm build's
counterpart of the CUDA table's (a hand-kept `.hip` twin of the `.cu` kernels): each CUDA reference carries the ROCm
table's place as its twin, as a CMake `if(CUDA) ... else() ...` pair of arms does (porter.portaware.scope
build_sides).
"""
from __future__ import annotations

import posixpath
import re
import tomllib
from dataclasses import dataclass

from porter.portaware.scope import Reference
from porter.source.preprocessor import CUDA, ROCM

BUILD_TOML = "build.toml"
_BACKENDS = {"cuda": CUDA, "rocm": ROCM}
_TABLE = re.compile(r"^\s*\[\s*kernel\.([\w.\"'-]+?)\s*\]\s*(?:#.*)?$")


@dataclass(frozen=True)
class KernelTable:
    """One `[kernel.NAME]` table: its name, build side (cuda / rocm), line, sources (repository paths) and the gfx
    archs a ROCm table lists under `rocm-archs` (empty: none listed)."""

    name: str
    side: str
    line: int
    sources: tuple[str, ...]
    archs: tuple[str, ...] = ()


def kernel_tables(path: str, text: str) -> tuple[KernelTable, ...]:
    """The CUDA and ROCm `[kernel.*]` tables of a kernel-builder build.toml at repository path `path` (other
    backends and malformed files give nothing)."""
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return ()
    kernels = doc.get("kernel")
    if not isinstance(kernels, dict):
        return ()
    lines = {m.group(1).strip("\"'"): n for n, row in enumerate(text.splitlines(), 1) if (m := _TABLE.match(row))}
    home = posixpath.dirname(path)
    out = []
    for name, table in kernels.items():
        if not isinstance(table, dict) or table.get("backend") not in _BACKENDS:
            continue
        src = table.get("src", ())
        if not isinstance(src, list):
            continue
        archs = table.get("rocm-archs", ())
        out.append(KernelTable(name, _BACKENDS[table["backend"]], lines.get(name, 1),
                               tuple(posixpath.normpath(posixpath.join(home, s)) for s in src if isinstance(s, str)),
                               tuple(a for a in archs if isinstance(a, str)) if isinstance(archs, list) else ()))
    return tuple(out)


def kernel_builder_references(path: str, text: str) -> list[Reference]:
    """One Reference per source of each CUDA or ROCm table (kernel_tables), at the table's line, when the file has
    a table of each: a CUDA table's references name the first ROCm table as their twin (the ROCm build compiles
    that one in their place). A package with CUDA tables only has no ROCm build yet: its sources are the port's
    work, not the CUDA side of a dual build, so it names nothing."""
    tables = kernel_tables(path, text)
    rocm = next((t for t in tables if t.side == ROCM), None)
    if rocm is None or not any(t.side == CUDA for t in tables):
        return []
    twin = f"{path}:{rocm.line}"
    return [Reference(s, t.side, f"{path}:{t.line}", twin if t.side == CUDA else None)
            for t in tables for s in t.sources]


def twin_archs(path: str, text: str) -> dict[str, tuple[str, ...]]:
    """CUDA source -> the gfx archs its ROCm twin is built for, for each source of a CUDA table when the file's
    ROCm table (the twin kernel_builder_references names) lists `rocm-archs`: on another gfx target the ROCm build
    holds no code in the source's place. A ROCm table that lists no archs is built for every target: nothing."""
    tables = kernel_tables(path, text)
    rocm = next((t for t in tables if t.side == ROCM), None)
    if rocm is None or not rocm.archs:
        return {}
    return {s: tuple(a.lower() for a in rocm.archs) for t in tables if t.side == CUDA for s in t.sources}
