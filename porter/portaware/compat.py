"""Find compat layers: names a ROCm-side `#define`, `using`, `typedef` or namespace alias maps onto HIP, so shared
code that writes the CUDA name is handled by the layer (`#define cudaMalloc hipMalloc`, `#define __shfl_xor_sync(m, v, l, w)
__shfl_xor(v, l, w)`, `#define FULL_MASK 0xffffffffffffffffULL` under `#ifdef USE_ROCM`). A ROCm-side header may
also map a CUDA name by defining it: `static const auto cudaGetDevice = hipGetDevice;`, or a polyfill function
`template<typename T> __device__ T __shfl_xor_sync(uint32_t mask, ...)` (sppark's force-included `cuda2hip.hpp`);
those count for CUDA-shaped names only (`cuda*`, `cu[A-Z]*`, `__*`), so a ROCm arm's own helpers map nothing.

A mapping in a header applies to the files that see the header: the translation units that include it, directly
or through other headers (the files that reach it, and every file those include), read from the repository's
`#include` graph (`scope`); a header no repository file includes (a force-included `-include cuda2hip.h`, a path the
graph cannot resolve) applies to every file. A file outside every such unit names the CUDA spelling to the ROCm build
with no layer in between, so its spot stays open (tools/probe.cu calling cudaMalloc while src/kernels.cu includes
the layer). One in a source file applies only to that file. Only the names a layer maps count: a partly ported code's
other CUDA names stay open. Only definitions porter reads as compiled by the ROCm build alone count (a ROCm-only arm, or a ROCm-only
file such as ggml's `vendors/hip.h`), so a repository without ROCm code has no compat layer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from porter.lazyre import lazy_regex
from porter.source.discover import HEADER_SUFFIXES

# Compiled when first used (porter.lazyre): only a file with a `using` or `typedef` line needs it.
# `namespace wmma = rocwmma;` is a namespace alias (C++ [namespace.alias]: https://eel.is/c++draft/namespace.alias):
# in the build that compiles it, `wmma::fragment` names rocwmma::fragment (ccglib's ROCm arm beside `using namespace
# nvcuda;`).
_alias = lazy_regex(r"^\s*(?:using\s+([A-Za-z_]\w*)\s*=\s*[\w:<>, ]+;|typedef\s+[\w:<>, *]+?\s+\**([A-Za-z_]\w*)\s*;"
                    r"|namespace\s+([A-Za-z_]\w*)\s*=\s*[\w:]+\s*;)")


@dataclass
class CompatLayer:
    """Names mapped for ROCm: global ones (from headers) and per-file ones, each to the "path:line" mapping it."""

    local_names: dict[str, dict[str, str]] = field(default_factory=dict)
    # per name, each header mapping it with the first "path:line" there, in the order added
    headers: dict[str, dict[str, str]] = field(default_factory=dict)
    # per header, the files whose translation units include it (scope); a header not here is seen by every file
    seen_by: dict[str, frozenset[str]] = field(default_factory=dict)

    def add(self, path: str, line: int, name: str) -> None:
        where = f"{path}:{line}"
        if PurePosixPath(path).suffix.lower() in HEADER_SUFFIXES:
            self.headers.setdefault(name, {}).setdefault(path, where)
        else:
            self.local_names.setdefault(path, {}).setdefault(name, where)

    def header_paths(self) -> set[str]:
        """The headers holding a mapping."""
        return {h for by in self.headers.values() for h in by}

    def scope(self, seen_by: dict[str, frozenset[str]]) -> None:
        """Limit each header's mappings to the files that see it (include_reach); headers absent stay global."""
        self.seen_by = dict(seen_by)

    def lookup(self, path: str, names) -> str | None:
        """Where the first of `names` (in order) is mapped for ROCm, seen from a file at `path`: a mapping in the
        file itself, else one in a header whose translation units hold the file."""
        local = self.local_names.get(path, {})
        for n in names:
            hit = local.get(n)
            if hit:
                return hit
            for header, where in self.headers.get(n, {}).items():
                seen = self.seen_by.get(header)
                if seen is None or path in seen:
                    return where
        return None

    def __len__(self) -> int:
        return len(self.headers) + sum(len(v) for v in self.local_names.values())

    def __bool__(self) -> bool:  # asked for every finding: no count needed
        return bool(self.headers) or any(self.local_names.values())


def aliases(line_text: str) -> list[str]:
    """Names a `using X = ...;`, `typedef ... X;` or `namespace X = ...;` line declares."""
    m = _alias().match(line_text)
    if not m:
        return []
    return [n for n in m.groups() if n]


# `auto NAME =` (a function or constant taken over: `static const auto cudaFree = hipFree;`).
_auto = lazy_regex(r"\bauto\s+([A-Za-z_]\w*)\s*=")
# A function declarator at the start of a line: qualifiers and a return type, then `NAME(` - not a statement
# (`return f(x)`, `else g(x)`: the word before the name is a keyword) and not a call assigned (`x = f(`).
_function = lazy_regex(r"^\s*(?:template\s*<[^;{}]*>\s*)?(?:[A-Za-z_][\w:<>,]*[\s*&]+)+([A-Za-z_]\w*)\s*\(")
_lone = lazy_regex(r"^\s*([A-Za-z_]\w*)\s*\(")
_NOT_TYPES = frozenset({"return", "else", "case", "new", "delete", "throw", "goto", "sizeof", "co_return", "do",
                        "if", "while", "for", "switch"})
# The names a compat layer maps that shared code would write: CUDA runtime/driver names and device intrinsics.
_cuda_shaped = lazy_regex(r"^(?:cuda[A-Za-z0-9_]*|cu[A-Z]\w*|__\w+)$")


def mapped_definitions(text: str) -> list[tuple[int, str]]:
    """(line, name) of each CUDA-shaped name a line defines as a function or an `auto` alias; the caller keeps the
    lines a ROCm build alone compiles."""
    out: list[tuple[int, str]] = []
    rows = text.split("\n")
    for n, row in enumerate(rows, 1):
        if "(" not in row and "auto" not in row:
            continue
        # the declarator on a line of its own after its return type (`static inline cudaError_t` /
        # `cudaLaunchCooperativeKernel(const T* func, ...)`)
        lone = _lone().match(row)
        if lone is not None and n > 1 and _cuda_shaped().match(lone.group(1)):
            before = rows[n - 2].rstrip()
            last = re.findall(r"[A-Za-z_]\w*", before)
            if (before and re.search(r"[A-Za-z_0-9>*&]$", before) and not re.match(r"^\s*#", before)
                    and last and last[-1] not in _NOT_TYPES):
                out.append((n, lone.group(1)))
                continue
        for name in _auto().findall(row):
            if _cuda_shaped().match(name):
                out.append((n, name))
        m = _function().match(row)
        if m is None or not _cuda_shaped().match(m.group(1)):
            continue
        words = re.findall(r"[A-Za-z_]\w*", row[: m.start(1)])
        if words and words[-1] not in _NOT_TYPES and "=" not in row[: m.start(1)]:
            out.append((n, m.group(1)))
    return out


# A CUDA runtime or driver API name a file may define (`cudaMalloc`, `cuMemAlloc`), not a device intrinsic (`__shfl`).
_cuda_api_name = lazy_regex(r"^(?:cuda|cu)[A-Z]\w*$")
# How many distinct CUDA API functions a file must define to be an implementation of the API (implements_cuda_api).
SHIM_DEFINITIONS = 3


def implements_cuda_api(text: str) -> bool:
    """Whether a C/C++ file implements CUDA's own API: it defines at least SHIM_DEFINITIONS distinct functions named
    as CUDA runtime or driver calls (mapped_definitions: `cudaError_t CUDARTAPI cudaMalloc(void** p, size_t n)`)
    and no kernel (`__global__`). Such a file (OIDN's curtn.cpp, the runtime API written over the driver API; a stub
    library) is the CUDA build's plumbing: a ROCm build calls HIP's runtime instead, so it ports nothing."""
    if "__global__" in text:
        return False
    return len({name for _line, name in mapped_definitions(text) if _cuda_api_name().match(name)}) >= SHIM_DEFINITIONS


def include_reach(headers, edges, limit: int = 200_000) -> dict[str, frozenset[str]]:
    """Per header in `headers`, the files that see it: every file that includes it directly or through other files
    (its includers, up the graph), the header itself, and every file those include (down the graph: a header
    `main.cu` includes after `compat.h` is compiled in the same translation unit). `edges`: (including path, included
    path) pairs of the repository's resolved `#include`s. A header no file includes is left out (seen by every file:
    a force-included layer, or one reached through an include path the graph does not resolve). At most `limit`
    visits in all; past it every header is left out (global), as before the graph was read."""
    down: dict[str, set[str]] = {}
    up: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            down.setdefault(a, set()).add(b)
            up.setdefault(b, set()).add(a)
    out: dict[str, frozenset[str]] = {}
    visits = 0
    for h in sorted(headers):
        if not up.get(h):
            continue
        units = {h}
        todo = [h]
        while todo:
            for a in up.get(todo.pop(), ()):
                if a not in units:
                    units.add(a)
                    todo.append(a)
        seen = set(units)
        todo = list(units)
        while todo:
            for b in down.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        visits += len(seen)
        if visits > limit:
            return {}
        out[h] = frozenset(seen)
    return out
