"""Find compat layers: names a ROCm-side `#define`, `using` or `typedef` maps onto HIP, so shared code that writes
the CUDA name is handled by the layer (`#define cudaMalloc hipMalloc`, `#define __shfl_xor_sync(m, v, l, w)
__shfl_xor(v, l, w)`, `#define FULL_MASK 0xffffffffffffffffULL` under `#ifdef USE_ROCM`).

A mapping in a header applies to every file (the header is what shared code includes); one in a source file only to
that file. Only definitions porter reads as compiled by the ROCm build alone count (a ROCm-only arm, or a ROCm-only
file such as ggml's `vendors/hip.h`), so a repository without ROCm code has no compat layer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from porter.lazyre import lazy_regex
from porter.source.discover import HEADER_SUFFIXES

# Compiled when first used (porter.lazyre): only a file with a `using` or `typedef` line needs it.
_alias = lazy_regex(r"^\s*(?:using\s+([A-Za-z_]\w*)\s*=\s*[\w:<>, ]+;|typedef\s+[\w:<>, *]+?\s+\**([A-Za-z_]\w*)\s*;)")


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
    """Names a `using X = ...;` or `typedef ... X;` line declares."""
    m = _alias().match(line_text)
    if not m:
        return []
    return [n for n in m.groups() if n]
