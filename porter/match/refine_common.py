"""What the refine steps share (porter.match.refine and its step modules): a finding's byte offset, the finding
read as info with its reason in data, a line of code with comments blanked, the C statement around an offset, the
pattern of a statement that only prints, the names of a library's own build switch, and the NVIDIA GPUs current CUDA
builds for.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from porter.match.draft import Draft
from porter.model import Severity
from porter.source.parse import SourceFile


MACRO = re.compile(r"\b[A-Za-z_]\w*\b")

# The compute capabilities current CUDA builds for: CUDA 13 supports Turing (7.5) and newer only
# (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, "Deprecated and dropped features"). A test
# every one of them answers alike separates only GPUs of past toolkits (refine steps 8g and 3d).
NVIDIA_SUPPORTED = ((7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0))


def offset(sf: SourceFile, line: int, column: int) -> int:
    starts = sf.line_starts
    return (starts[line - 1] if 0 < line <= len(starts) else len(sf.code)) + column - 1


def as_info(f: Draft, key: str, why: str) -> Draft:
    """The finding at info, with the reason under data `key` (how every step here that reads a spot as no porting
    item says so)."""
    return f._replace(severity=Severity.INFO, data=tuple(sorted({**dict(f.data), key: why}.items())))


def info_at_line(f: Draft, spots: dict[int, tuple[str, int]], key: str, why: Callable[[str, int], str]) -> Draft:
    """The finding at info when a step's table of lines (line -> the name and line that decide it) holds its line,
    with why(name, line) as the reason; a finding already at info is left as it is."""
    at = spots.get(f.line)
    if at is None or f.severity <= Severity.INFO:
        return f
    return as_info(f, key, why(*at))


# A statement that only writes text for a person: the printf family, a stream insertion into std::cout/cerr/clog, or
# a call of a function named for printing (`print_info(...)`, `Aux_Message(stderr, ...)` is not one: only "print").
# A log call is output too: a camel-case logger (cuda-samples' `shrLog(...)`, `sdkLogError(...)`: a lower-case prefix
# then `Log`) or an upper-case LOG macro (`LOG(INFO) << ...`, `LOG_WARNING(...)`); `log(x)` is arithmetic.
OUTPUT_CALL = re.compile(r"^(?:std\s*::\s*)?(?:(?:f|v|vf)?printf|f?puts|fputc|putchar|(?:\w+\s*::\s*)*\w*[Pp]rint\w*"
                         r"|(?:\w+\s*::\s*)*[a-z][A-Za-z0-9]*Log(?:[A-Z]\w*)?|LOG(?:_[A-Z]+)?)"
                         r"\s*\(|^(?:std\s*::\s*)?(?:cout|cerr|clog)\s*<<")


def code_line(sf: SourceFile, n: int) -> bytes:
    """Line `n` of the file's code (comments blanked), without its newline."""
    start = sf.line_starts[n - 1] if 0 < n <= len(sf.line_starts) else len(sf.code)
    end = sf.code.find(b"\n", start)
    return sf.code[start:end if end >= 0 else len(sf.code)]


def statement_around(code: bytes, offset: int) -> bytes:
    """The C statement holding `offset`: from after the previous `;`, `{` or `}` to the next `;`."""
    start = max(code.rfind(b";", 0, offset), code.rfind(b"{", 0, offset), code.rfind(b"}", 0, offset)) + 1
    end = code.find(b";", offset)
    return code[start:end if end >= 0 else len(code)].strip()


# 4a. Profiling instrumentation behind its own switch: a finding inside a positive `#if` arm (C/C++) or a CMake
# `if()` block whose condition names an NVTX switch (`GOMC_NVTX_ENABLED`, `USE_NVTX`, `HAVE_NVTX3`) is in a build
# the user opts into to profile with Nsight; the default build, which the port is about, never compiles it. Info
# (data `optional`); the switch's own port (roctx, rocprofiler) is the NVTX include's finding.
PROFILING_SWITCH = "nvtx"


def names_library(macro: str, lib: str) -> bool:
    """Whether a macro has the library's id as a component (`HAVE_NVTX`, `K2_USE_NVTX3`, `USE_CUSOLVER`)."""
    return any(re.fullmatch(re.escape(lib) + r"\d*", part.lower()) for part in macro.split("_"))
