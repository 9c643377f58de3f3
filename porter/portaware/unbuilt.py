"""Find the headers no build of a Python-extension repository compiles: none of its sources reaches them by #include.

A header is compiled only as part of a translation unit that includes it (C++ [cpp.include]; nvcc and hipcc compile
the sources they are given, and a torch `CUDAExtension(sources=[...])` / hipify pass reads those sources and what
they include, https://pytorch.org/docs/stable/cpp_extension.html). A package built only by a setup.py of Python
extensions ships no headers for anyone else to include, so a header of it that no source file reaches, directly or
through other headers, is compiled by no build, CUDA or ROCm: its kernels and findings are nothing to port
(flashfast's kernels/nvidia/norm.cuh, fast_gemv.cuh and flat_gemm*.cuh, which only commented-out includes named).

Not read as unbuilt: anything in a repository with a CMake or Make build of its own (a library's headers are its
interface, compiled by its users: cub.cuh is included by nobody inside CUB), and a header whose file name a
Python, CMake or Make file of the repository spells (a JIT build or NVRTC that reads the header as text, a
`depends=[...]` list).
"""
from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath
from typing import Iterable, Mapping

from porter.lazyre import lazy_regex
from porter.source.discover import HEADER_SUFFIXES
from porter.source.preprocessor import Directive, quoted_includes

# `#include <dir/name.cuh>`: the project's own headers are often named this way through an `include_dirs` entry.
_ANGLE = lazy_regex(r"^\s*<([^>]+)>")


def include_targets(dirs: list[Directive]) -> list[str]:
    """Every file name a file's #include directives name, quoted (with computed includes) or in angle brackets."""
    out = [t for _line, t in quoted_includes(dirs)]
    for d in dirs:
        if d.kind == "include":
            m = _ANGLE().match(d.text)
            if m:
                out.append(m.group(1).strip())
    return out


def _resolve(path: str, target: str, files: Mapping[str, object], by_name: Mapping[str, list[str]]) -> list[str]:
    local = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if local in files:
        return [local]
    name = PurePosixPath(target).name
    # by name as well as by path: an include directory the build adds (`-Iflashfast/kernels`) is not read here, so
    # every file of that name whose path ends with the target may be the one meant
    return [p for p in by_name.get(name, ()) if p == target or p.endswith("/" + target)]


def unreached_headers(files: Mapping[str, str], includes: Mapping[str, list[str]],
                      mentioned: Iterable[str]) -> list[str]:
    """The C/C++/CUDA headers (`files`: path -> porter language) no non-header C/C++/CUDA file reaches through
    `includes` (path -> targets as written), leaving out those whose file name is in `mentioned` (names other
    files of the repository spell). The caller decides whether the repository is one whose headers nobody else
    includes."""
    by_name: dict[str, list[str]] = {}
    for p in files:
        by_name.setdefault(PurePosixPath(p).name, []).append(p)
    headers = {p for p, lang in files.items() if lang == "cuda" and PurePosixPath(p).suffix.lower() in HEADER_SUFFIXES}
    if not headers:
        return []
    reached: set[str] = set()
    todo = sorted(p for p, lang in files.items() if lang == "cuda" and p not in headers)
    seen = set(todo)
    while todo:
        p = todo.pop()
        for t in includes.get(p, ()):
            for hit in _resolve(p, t, files, by_name):
                reached.add(hit)
                if hit not in seen:
                    seen.add(hit)
                    todo.append(hit)
    names = set(mentioned)
    return sorted(h for h in headers - reached if PurePosixPath(h).name not in names)


_WORD_NAME = re.compile(r"[\w.+-]+\.(?:h|hh|hpp|hxx|cuh|inc|inl|ipp|tcc|tpp|txx)\b", re.IGNORECASE)


def header_names(text: str) -> set[str]:
    """The header file names a Python or build file's text spells (`"norm.cuh"`, `kernels/fast_gemv.cuh`)."""
    return {m.group(0).rsplit("/", 1)[-1] for m in _WORD_NAME.finditer(text)}
