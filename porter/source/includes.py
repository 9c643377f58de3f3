"""Resolve an `#include` against the repository's own files: is the header the project's, or a library's?

A header that exists in the repository is the project's: a quoted include of a file it holds (a project's own
"cuda/utils.h" is not libcu++), or an include that resolves inside the includer's own include tree (CuTe's
`<cute/arch/mma.hpp>` inside include/cute/... is CuTe's internals, not a dependency on CuTe).
"""
from __future__ import annotations

import functools


def project_header(includer: str, header: str, quoted: bool, files: frozenset[str]) -> bool:
    """Whether `#include header` in file `includer` reads one of the repository's own files, not a library's: a
    quoted include of a file the repository holds (a project's own "cuda/utils.h"), or an include that resolves to
    a file in the same include tree as the includer (CuTe's `<cute/arch/mma.hpp>` inside include/cute/…). A
    project that includes its vendored copy of a library from outside that copy still depends on the library."""
    if "/" not in header and not quoted:
        return False
    base = includer.rsplit("/", 1)[0] + "/" if "/" in includer else ""
    if quoted and _normal(base + header) in files:
        return True
    for path in _by_name(files).get(header.rsplit("/", 1)[-1], ()):
        if path != header and not path.endswith("/" + header):
            continue
        root = path[: len(path) - len(header)]
        if quoted or includer.startswith(root):
            return True
    return False


@functools.lru_cache(maxsize=8)
def _by_name(files: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The repository's files by base name (built once per scan per worker)."""
    out: dict[str, list[str]] = {}
    for p in files:
        out.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _normal(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)
