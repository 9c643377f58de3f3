"""Resolve an `#include` against the repository's own files: is the header the project's, or a library's?

A header that exists in the repository is the project's: a quoted include of a file it holds (a project's own
"cuda/utils.h" is not libcu++), or an include that resolves inside the includer's own include tree (CuTe's
`<cute/arch/mma.hpp>` inside include/cute/... is CuTe's internals, not a dependency on CuTe).
"""
from __future__ import annotations

import functools

from porter.source import syntax
from porter.source.parse import SourceFile


def project_header(includer: str, header: str, quoted: bool, files: frozenset[str]) -> bool:
    """Whether `#include header` in file `includer` reads one of the repository's own files, not a library's: a
    quoted include of a file the repository holds (a project's own "cuda/utils.h"), or an include that resolves to
    a file in the same include tree as the includer (CuTe's `<cute/arch/mma.hpp>` inside include/cute/…). A
    project that includes its vendored copy of a library from outside that copy still depends on the library."""
    return project_header_path(includer, header, quoted, files) is not None


def project_header_path(includer: str, header: str, quoted: bool, files: frozenset[str]) -> str | None:
    """The repository file `#include header` in `includer` reads when it is one of the project's own (as
    project_header decides), else None."""
    if "/" not in header and not quoted:
        return None
    base = includer.rsplit("/", 1)[0] + "/" if "/" in includer else ""
    if quoted and (near := _normal(base + header)) in files:
        return near
    for path in sorted(_by_name(files).get(header.rsplit("/", 1)[-1], ())):
        if path != header and not path.endswith("/" + header):
            continue
        root = path[: len(path) - len(header)]
        if quoted or includer.startswith(root):
            return path
    return None


def file_includes(sf: SourceFile) -> tuple[tuple[str, bool], ...]:
    """The `#include`s of a parsed C/C++/CUDA file as written: (header, quoted), in file order, once each. From the
    parse's own include nodes (porter.source.syntax.includes), so one inside a comment is none, and a computed
    `#include MACRO` names no file."""
    kinds = {"string_literal": True, "system_lib_string": False}
    return tuple(dict.fromkeys((i.header, kinds[i.node.type]) for i in syntax.includes(sf) if i.node.type in kinds))


def resolve_include(includer: str, header: str, quoted: bool, files: frozenset[str]) -> str | None:
    """The repository file `#include header` in `includer` reads, or None (a toolkit or library header): a quoted
    include relative to the includer's directory first, then any file whose path ends with the header (an `-I`
    directory the build names), the one sharing the longest leading directory with the includer when several do."""
    base = includer.rsplit("/", 1)[0] + "/" if "/" in includer else ""
    # The answer depends on the includer's folder alone (the quoted lookup's base, the common leading folders):
    # kept per folder, header and set of files, since a folder's files include the same headers (kernel analysis
    # and its instantiation check each resolved every include of every file, ~5% of a FasterTransformer re-scan).
    memo = _resolved(files)
    key = (base, header, quoted)
    found = memo.get(key, _UNSEEN)
    if found is _UNSEEN:
        found = memo[key] = _resolve(base, header, quoted, files)
    return found  # type: ignore[return-value]


_UNSEEN = object()


@functools.lru_cache(maxsize=8)
def _resolved(files: frozenset[str]) -> dict[tuple[str, str, bool], str | None]:
    """resolve_include's answers for one set of files, by (includer's folder, header, quoted)."""
    return {}


def _resolve(base: str, header: str, quoted: bool, files: frozenset[str]) -> str | None:
    includer = base  # only its folders are read (_common_prefix ignores a path's last part)
    if quoted:
        own = _normal(base + header)
        if own in files:
            return own
    header = _normal(header)
    if not header:
        return None
    found = [p for p in _by_name(files).get(header.rsplit("/", 1)[-1], ()) if p == header or p.endswith("/" + header)]
    if not found:
        return None
    return max(found, key=lambda p: (len(_common_prefix(p, includer)), -len(p), p))


def quoted_target(includer: str, header: str) -> str | None:
    """The repository path `#include "header"` in `includer` reads first (the includer's own directory, as every
    compiler looks first), or None when that leaves the repository or is no plain relative path."""
    if not header or header.startswith("/") or "\\" in header or "\0" in header:
        return None
    parts = includer.split("/")[:-1]
    for part in header.split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) or None


def _common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1]):
        if x != y:
            break
        n += len(x) + 1
    return a[:n]


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
