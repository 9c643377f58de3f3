"""Find compat layers: names a ROCm-side `#define`, `using`, `typedef` or namespace alias maps onto HIP, so shared
code that writes the CUDA name is handled by the layer (`#define cudaMalloc hipMalloc`, `#define __shfl_xor_sync(m, v, l, w)
__shfl_xor(v, l, w)`, `#define FULL_MASK 0xffffffffffffffffULL` under `#ifdef USE_ROCM`). A ROCm-side header may
also map a CUDA name by defining it: `static const auto cudaGetDevice = hipGetDevice;`, or a polyfill function
`template<typename T> __device__ T __shfl_xor_sync(uint32_t mask, ...)` (sppark's force-included `cuda2hip.hpp`);
those count for CUDA-shaped names only (`cuda*`, `cu[A-Z]*`, `__*`), so a ROCm arm's own helpers map nothing.

A mapping in a header applies to every file (the header is what shared code includes); one in a source file only to
that file. Only definitions porter reads as compiled by the ROCm build alone count (a ROCm-only arm, or a ROCm-only
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

    global_names: dict[str, str] = field(default_factory=dict)
    local_names: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, path: str, line: int, name: str) -> None:
        where = f"{path}:{line}"
        if PurePosixPath(path).suffix.lower() in HEADER_SUFFIXES:
            self.global_names.setdefault(name, where)
        else:
            self.local_names.setdefault(path, {}).setdefault(name, where)

    def lookup(self, path: str, names) -> str | None:
        """Where the first of `names` (in order) is mapped for ROCm, seen from a file at `path`."""
        local = self.local_names.get(path, {})
        for n in names:
            hit = local.get(n) or self.global_names.get(n)
            if hit:
                return hit
        return None

    def __len__(self) -> int:
        return len(self.global_names) + sum(len(v) for v in self.local_names.values())

    def __bool__(self) -> bool:  # asked for every finding: no count needed
        return bool(self.global_names) or any(self.local_names.values())


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
