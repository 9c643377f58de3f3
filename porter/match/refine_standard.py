"""The C++ standard a repository's build gives nvcc, read from its build files, and the findings that hold only from
one standard on: DEV021's `register` is an error only under C++17 and later.

C++17 removed the `register` storage class ([diff.cpp14.dcl.dcl]); clang, which hipcc is, rejects it there ("ISO
C++17 does not allow 'register' storage class specifier", -Wregister, an error by default) and under C++11/14 only
warns that it is deprecated (-Wdeprecated-register): checked with clang-22 -x hip --offload-arch=gfx942, which errors
with no -std (its default is gnu++17) and with -std=c++17, and warns with -std=c++11 and -std=c++14
(https://clang.llvm.org/docs/DiagnosticsReference.html#wregister). A port keeps the build's -std flag, so where every
standard the build names for its CUDA compiles is older than C++17 (GASAL2's `$(NVCC) -c -g -O3 -std=c++11`), the
keyword compiles on HIP as it is: the finding reads info (data `standard`).

What counts as naming the CUDA standard: a make or shell line that invokes or configures nvcc (`$(NVCC) ...`,
`NVCCFLAGS += ...`) with `-std=c++NN`; in CMake, `CMAKE_CUDA_STANDARD NN`, a `CUDA_STANDARD NN` property,
`cuda_std_NN`, or `-std=c++NN` in a CUDA flags variable (`CMAKE_CUDA_FLAGS`, `CUDA_NVCC_FLAGS`); in setup.py an
nvcc argument list with `-std=c++NN`. A build that names none (hipcc then compiles C++17) or any C++17 or later, or
a standard porter cannot read (`-std=c++$(STD)`), keeps the findings open. In a makefile the flag may sit in a
variable the nvcc line expands (cuFHE: `CU = nvcc`, `FLAGS = -std=c++11 -O3`, `$(CU) $(FLAGS) -c ...`): a line that
invokes nvcc directly or through a variable whose value names it counts the `-std` of each variable it references
(through other variables, a few levels deep), at the line defining that variable.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from porter.model import Finding, Severity

# Findings that hold only from C++17 on.
CXX17_RULES = frozenset({"DEV021"})

# `-std=c++11`, `--std=gnu++14`, `-std c++1y`; the value group is what follows `++` up to the next non-word byte.
_STD_FLAG = re.compile(rb"(?<![\w-])--?std[= ](?:c|gnu)\+\+(\w*)")
_NVCC_LINE = re.compile(rb"(?i)nvcc|cuda_?(?:nvcc_?)?flags|\bcuda_flags")
_CMAKE_STANDARD = re.compile(rb"(?i)\b(?:CMAKE_CUDA_STANDARD|CUDA_STANDARD)\b[\s\"]+(\w+)|\bcuda_std_(\w+)")
# C++ standard spellings -> their year (the drafts' names: c++0x, c++1y, c++1z, c++2a, c++2b, c++2c).
_YEARS = {b"98": 98, b"03": 103, b"0x": 111, b"11": 111, b"1y": 114, b"14": 114, b"1z": 117, b"17": 117,
          b"2a": 120, b"20": 120, b"2b": 123, b"23": 123, b"2c": 126, b"26": 126}
_CXX17 = 117
_MENTIONS = re.compile(rb"(?i)std|standard")


@dataclasses.dataclass(frozen=True)
class Named:
    """One place a build names the standard it gives nvcc: "path:line" and the spelling after `c++` (`11`, `1y`)."""

    where: str
    spelling: str
    year: int | None  # None: a value porter cannot read (`c++$(STD)`)


def named_standards(texts: Iterable[tuple[str, str, bytes]]) -> list[Named]:
    """Every place the build files name nvcc's C++ standard, from (path, language, bytes) of the repository's make,
    cmake, shell and setup.py files (the language as porter.source.discover gives it)."""
    out: list[Named] = []
    for path, language, data in texts:
        if not _MENTIONS.search(data):
            continue
        lines = data.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").split(b"\n")
        for n, line in enumerate(lines, 1):
            line = line.split(b"#", 1)[0] if language != "python" else line
            if not _MENTIONS.search(line):
                continue
            found = [m.group(1) for m in _STD_FLAG.finditer(line)] if _NVCC_LINE.search(line) else []
            if language == "cmake":
                found += [m.group(1) or m.group(2) for m in _CMAKE_STANDARD.finditer(line)]
            for value in found:
                out.append(Named(f"{path}:{n}", value.decode("ascii", "replace"), _YEARS.get(value)))
        if language == "make" and b"$" in data:
            out.extend(n for n in _through_variables(path, lines) if n not in out)
    return out


# `NAME = value`, `NAME := value`, `NAME += value`, `NAME ?= value` (export/override before it), and `$(NAME)` /
# `${NAME}` references. A recipe line (a tab first) defines nothing.
_MAKE_DEFINITION = re.compile(rb"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|[+?!])?=(.*)$")
_MAKE_REFERENCE = re.compile(rb"\$[({]([A-Za-z_][\w.-]*)[)}]")
_MAKE_DEPTH = 4  # variables expanded through variables
_MAKE_LINES = 20_000  # lines of one makefile read for variables (the file itself is read under a byte budget)


def _through_variables(path: str, lines: list[bytes]) -> list[Named]:
    """The `-std` flags a makefile's nvcc lines take from the variables they reference (see the module's doc), each
    at the line defining the variable."""
    defined: dict[bytes, list[tuple[int, bytes]]] = {}
    for n, line in enumerate(lines[:_MAKE_LINES], 1):
        if line.startswith(b"\t"):
            continue
        m = _MAKE_DEFINITION.match(line.split(b"#", 1)[0].strip())
        if m is not None:
            defined.setdefault(m.group(1), []).append((n, m.group(2)))
    if not defined:
        return []
    out: list[Named] = []
    for line in lines[:_MAKE_LINES]:
        line = line.split(b"#", 1)[0]
        if b"$" not in line or _MAKE_DEFINITION.match(line.strip()) is not None:
            continue
        reached: dict[bytes, None] = {}
        todo = [(m.group(1), 1) for m in _MAKE_REFERENCE.finditer(line)]
        while todo:
            name, depth = todo.pop(0)
            if name in reached or name not in defined:
                continue
            reached[name] = None
            if depth < _MAKE_DEPTH:
                todo.extend((m.group(1), depth + 1) for _, value in defined[name]
                            for m in _MAKE_REFERENCE.finditer(value))
        if not reached:
            continue
        values = [(n, value) for name in reached for n, value in defined[name]]
        if not (_NVCC_LINE.search(line) or any(_NVCC_LINE.search(value) for _, value in values)):
            continue
        for n, value in values:
            for m in _STD_FLAG.finditer(value):
                named = Named(f"{path}:{n}", m.group(1).decode("ascii", "replace"), _YEARS.get(m.group(1)))
                if named not in out:
                    out.append(named)
    return out


def below_cxx17(named: list[Named]) -> Named | None:
    """The first place naming the standard when the build names at least one and every one is older than C++17."""
    if not named or any(s.year is None or s.year >= _CXX17 for s in named):
        return None
    return named[0]


def accepted_before_cxx17(findings: Iterable[Finding], pinned: Named) -> list[Finding]:
    """The findings, those of CXX17_RULES at info with data `standard` saying where the build pins an older one."""
    why = (f"{pinned.where} compiles the CUDA sources as C++{pinned.spelling} (and the build names no later "
           f"standard): clang only warns there (-Wdeprecated-register); it is an error from C++17 on")
    out = []
    for f in findings:
        if f.rule in CXX17_RULES and f.severity > Severity.INFO:
            f = dataclasses.replace(f, severity=Severity.INFO,
                                    data=tuple(sorted({**dict(f.data), "standard": why}.items())))
        out.append(f)
    return out
