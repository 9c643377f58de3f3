"""Inline PTX helpers nothing calls: device code hip-clang never emits.

DEV001 reports each inline PTX statement in device code. A project's utility header often carries a family of
one-line PTX helpers (`getLaneMaskLt`, `getLaneMaskGt`, `getLaneMaskGe`, a `laneid()`), of which the kernels call
some. A helper that is `inline`, `__forceinline__`, `static` or a template has no external definition to emit: clang
generates its body only where something calls it (an inline function's definition is emitted only when odr-used,
[dcl.inline]; clang emits linkonce_odr/internal definitions on demand), so the PTX of one no code calls is never
compiled by the ROCm build and is no port work (hip-clang -c for gfx942 of such a header errors only once the helper
is called).

`unused_helpers`: an open DEV001 finding inside such a function whose name the repository's C/C++/CUDA code the ROCm
build may compile mentions nowhere outside the definition reads info, with the reason in its data (`unused`). Any
word of that name counts (comments blanked; a string, a declaration, a second overload or a macro naming it all
count, so any doubt keeps the finding), except inside an arm hip-clang never takes (porter.source.preprocessor
.hip_reaches: `#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 730`, the body of `#ifdef __CUDA_ARCH__`), as
ccglib's `laneid()`, called only by its sm_73+ fragment specialisations. A helper defined inside such an arm itself
(sppark's field arithmetic, all under `#ifdef __CUDA_ARCH__`) is left to the arm's own findings: the ROCm build
then lacks the helper and its callers alike. A helper
defined without one of those specifiers (a plain `__device__` function in a .cu file) is emitted whether called or
not, and stays open. So does one whose asm operands use a constraint the AMDGPU target rejects (PTX's `"=l"`,
`"h"`, `"f"`, `"d"`, `"c"` register classes): clang checks constraints when it parses the statement, used or not
(clang-22 -x hip --offload-arch=gfx942: "invalid output constraint '=l' in asm" for an uncalled inline helper; `"=r"`
and `"r"` parse, and the PTX text itself is read only when the body is emitted).

It runs once every file is scanned, only when an open DEV001 finding exists, reads only the scan's own C/C++/CUDA
files (each up to the caller's per-file limit, READ_BUDGET bytes in all: past it every finding stands) and parses
only the files holding such a finding (PARSE_BUDGET at most).
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping

from porter.model.finding import Finding, Severity, Status
from porter.source.parse import Function, SourceFile, parse
from porter.source.preprocessor import blank_comments, directives, hip_reaches

RULE = "DEV001"

READ_BUDGET = 256 * 1024 * 1024  # bytes of C/C++/CUDA files searched for a helper's name
PARSE_BUDGET = 200  # files holding an open DEV001 finding parsed to find its function

# Specifiers that leave a function's definition to be emitted only where it is used.
_ON_DEMAND = re.compile(r"\b(?:inline|__inline__|__forceinline__|__forceinline|static|constexpr)\b|^\s*template\s*<")
_NAME = re.compile(r"[A-Za-z_]\w*\Z")


def _on_demand(fn: Function, data: bytes) -> bool:
    """Whether the function's definition (its text up to the body, or a template around it) is emitted only where
    it is used."""
    node = fn.node
    if node.parent is not None and node.parent.type == "template_declaration":
        return True
    body = node.child_by_field_name("body")
    head = data[fn.start_byte: body.start_byte if body is not None else fn.end_byte].decode("utf-8", "replace")
    return _ON_DEMAND.search(head) is not None


# An asm operand's constraint string (`"=r"(mask)`, `"l"(ptr)`): a string literal right before a parenthesised operand.
_CONSTRAINT = re.compile(rb'"([^"\\\n]*)"\s*\(')
# Constraint letters hip-clang's AMDGPU target accepts (checked with clang-22 -x hip --offload-arch=gfx942): registers
# r/v/s/a, memory m, general g, immediates n/i, with the =, +, & modifiers and matching-operand digits. PTX's typed
# register classes (h 16-bit, l 64-bit, f float, d double, c) are rejected when the statement is parsed, so an
# unused helper using them still breaks the ROCm build.
_AMDGPU_CONSTRAINT = re.compile(rb"[=+&rvsamgni0-9]*")


def parses_on_amdgpu(body: bytes) -> bool:
    """Whether every asm operand constraint in a function's text is one hip-clang's AMDGPU target accepts."""
    return all(_AMDGPU_CONSTRAINT.fullmatch(m.group(1)) for m in _CONSTRAINT.finditer(body))


def _mentioned(name: str, data: bytes, skip: tuple[int, int] = (0, 0)) -> bool:
    """Whether code hip-clang may compile names `name` in `data` (comments blanked; outside the byte span `skip`,
    the helper's own definition): a mention inside an arm the ROCm build never takes (`#elif __CUDA_ARCH__ >= 730`,
    the body of `#ifdef __CUDA_ARCH__`) is no use there."""
    code = blank_comments(data)
    dirs = None
    for m in re.finditer(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", code):
        if skip[0] <= m.start() < skip[1]:
            continue
        if dirs is None:
            dirs = directives(data)
        if hip_reaches(dirs, code.count(b"\n", 0, m.start()) + 1):
            return True
    return False


def file_helpers(path: str, language: str, data: bytes, lines: Iterable[int],
                 src: SourceFile | None = None) -> tuple[tuple[int, str, int, int], ...]:
    """The file's own part of the question, for each of `lines` (its DEV001 findings' lines): (line, helper name,
    first byte, last byte) where the line is inside an on-demand function (see the module doc) whose asm operands
    hip-clang's AMDGPU target parses, which the ROCm build compiles and which nothing else in this file's compiled
    code names. It reads the file alone, so it is computed once per file content: the file's scan does it on the
    tree it parsed (FileResult.asm_helpers, cached with the file's result), and unused_helpers only for a file
    whose result does not carry it. `src`: the file parsed (parse(path, language, data)), when the caller has it."""
    src = src if src is not None else parse(path, language, data)
    out = []
    for line in sorted(set(lines)):
        if line - 1 >= len(src.line_starts):
            continue
        fn = src.enclosing(src.line_starts[line - 1])
        if fn is None or not _NAME.match(fn.name) or not _on_demand(fn, data):
            continue
        if not parses_on_amdgpu(data[fn.start_byte:fn.end_byte]):
            continue
        # A definition the ROCm build never compiles itself (inside `#ifdef __CUDA_ARCH__`) is that arm's
        # question, not this one's: the port may need the whole arm, helpers and callers alike.
        if not hip_reaches(directives(data), src.position(fn.start_byte)[0]):
            continue
        # Any other mention of that name in this file's code the ROCm build compiles (a call, a declaration,
        # an overload, a macro) is a use.
        if _mentioned(fn.name, data, (fn.start_byte, fn.end_byte)):
            continue
        out.append((line, fn.name, fn.start_byte, fn.end_byte))
    return tuple(out)


def unused_helpers(findings: Iterable[Finding], sources: Mapping[str, str],
                   read: Callable[[str], bytes | None],
                   known: Mapping[str, tuple[frozenset[int], tuple[tuple[int, str, int, int], ...]]] | None = None
                   ) -> list[Finding]:
    """The findings, each open DEV001 finding inside an on-demand function (see the module doc) whose name no other
    code of the repository mentions at info. `sources`: the scan's C/C++/CUDA files (path -> language); `read`:
    a file's bytes (None when unreadable); `known`: per path, the DEV001 lines its scan looked at and what
    file_helpers answered for them (FileResult.asm_helpers), so that file is neither read nor parsed here when
    those lines cover the ones asked."""
    findings = list(findings)
    known = known or {}
    wanted = sorted({f.path for f in findings
                     if f.rule == RULE and f.status is Status.OPEN and f.severity > Severity.INFO
                     and f.path in sources})[:PARSE_BUDGET]
    # each wanted file's DEV001 lines, in one pass over the findings (a pass per file was ~0.05 CPU-s of every
    # FasterTransformer scan: 13k findings for each of its files with an open DEV001 finding)
    lines_of: dict[str, set[int]] = {path: set() for path in wanted}
    for f in findings:
        if f.rule == RULE and f.path in lines_of:
            lines_of[f.path].add(f.line)
    # path -> {finding line -> (helper name, first byte, last byte)}
    helpers: dict[str, dict[int, tuple[str, int, int]]] = {}
    for path in wanted:
        lines = lines_of[path]
        seen = known.get(path)
        if seen is not None and lines <= seen[0]:
            per = tuple(h for h in seen[1] if h[0] in lines)
        else:
            data = read(path)
            if data is None:
                continue
            per = file_helpers(path, sources[path], data, lines)
        for line, name, first, last in per:
            helpers.setdefault(path, {})[line] = (name, first, last)
    names = {name for per in helpers.values() for name, _a, _b in per.values()}
    if not names:
        return findings
    used: set[str] = set()
    spent = 0
    for path in sorted(sources):
        if used >= names:
            break
        data = read(path)
        if data is None:
            continue
        spent += len(data)
        if spent > READ_BUDGET:
            return findings  # not every file searched: every finding stands
        for name in names - used:
            if name.encode() not in data:
                continue
            own = [(a, b) for n, a, b in helpers.get(path, {}).values() if n == name]
            if _mentioned(name, data, own[0] if own else (0, 0)):
                used.add(name)
    out = []
    for f in findings:
        hit = helpers.get(f.path, {}).get(f.line) if f.rule == RULE and f.status is Status.OPEN else None
        if hit is not None and hit[0] not in used and f.severity > Severity.INFO:
            why = (f"`{hit[0]}` is an inline (on-demand) device helper no code the ROCm build compiles calls: "
                   f"hip-clang never emits its body, so this PTX is never compiled for AMD")
            f = f.unused(why)
        out.append(f)
    return out
