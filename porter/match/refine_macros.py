"""The refine steps that read a C/C++ file's own `#define`s: macro bodies the compiler never sees, and a file's own
definition of a CUDA name. Each takes a finding and returns it, or reads it as info with the reason in data;
porter.match.refine runs them.

5r. A function-like macro's body is text until the macro is expanded: the compiler sees its tokens only where an
   invocation names the macro (C++ [cpp.replace]: https://eel.is/c++draft/cpp.replace; the same in C, C11 6.10.3).
   In a translation unit (`.cu`, `.cpp`, `.cc`, `.cxx`, `.c`: not a header another file includes) a function-like
   macro that nothing after its definition names, with no `#include "..."` of a non-header (`"ops.def"`, `"k.inc"`:
   an X-macro file) after the definition that could expand it and no `##` token pasting in the file that could
   form its name, is never expanded: inline PTX, a
   Hopper-only `cp.async.bulk` or an API name in its body never reaches nvcc or hipcc (LeetCUDA's hgemm files carry
   a shared block of `LDMATRIX_*`/`CP_ASYNC_BULK_*` macros of which each file uses a few). Info (data
   `unexpanded`); a macro the file does use keeps its findings.
5s. A file's own definition of a CUDA name - `#define __ldca(ptr) *(ptr)` under `#if CUDART_VERSION < 8000 ||
   !defined(__ldca)` - supplies the name wherever that line is compiled; the finding on the defined name itself is the
   project's fallback, not a use HIP lacks (its uses are reported where they are). Info (data `own_definition`).
5v. A file's own function named like a CUDA name HIP lacks - vcsbeam's `__global__ void int2float(void *data, double
   scale)`, launched as `int2float<<<blocks, threads>>>(...)` - is what every use of the name in that file calls: C++
   unqualified lookup finds the file's declaration ([basic.lookup.unqual]: https://eel.is/c++draft/basic.lookup.unqual),
   and HIP's headers declare no other candidate (API002: the name HIP lacks). The definition and its uses are the
   project's code, not a CUDA API to port. Info (data `own_function`); a name HIP declares (API003, API004, DEV027)
   is left reported, as the project's function then overloads or collides with HIP's.
"""
from __future__ import annotations

import re

from porter.match.draft import Draft
from porter.match.refine_common import as_info as _as_info, info_at_line
from porter.model import Severity
from porter.source.discover import UNIT_SUFFIXES as _UNIT_SUFFIXES
from porter.source.parse import SourceFile
from porter.source.preprocessor import may_hold_directives, preprocessed

# A header (`.h`, `.cuh`, `.hpp`, `.inl`) may be expanded by the files that include it, so only a translation unit's
# macros are read as unused.
_FUNCTION_MACRO = re.compile(r"^([A-Za-z_]\w*)\(")
# A quoted include after a definition may expand it - unless it names a header (`.h`, `.hpp`, `.cuh`, `.hh`, `.hxx`):
# headers are self-contained by convention, while the X-macro files that expand an includer's macro
# (`#include "ops.def"`, `"kernel.inc"`, `"body.inl"`, `"impl.cu"`) carry other suffixes.
_QUOTED_INCLUDE = re.compile(r'^\s*"')
_HEADER_INCLUDE = re.compile(r'^\s*"[^"]*\.(?:h|hpp|cuh|hh|hxx|H)"')


def unexpanded_bodies(sf: SourceFile) -> dict[int, tuple[str, int]]:
    """Line -> (macro, its #define line) for every line of a function-like macro definition this translation unit
    never expands (step 5r); empty for a header or a file that pastes tokens."""
    cached = sf.cache.get("refine.unexpanded")
    if cached is not None:
        return cached
    out: dict[int, tuple[str, int]] = {}
    if sf.path.endswith(_UNIT_SUFFIXES) and may_hold_directives(sf.code) and b"##" not in sf.code:
        directives = preprocessed(sf).directives
        last_include = max((d.line for d in directives if d.kind == "include" and _QUOTED_INCLUDE.match(d.text)
                            and not _HEADER_INCLUDE.match(d.text)), default=0)
        tokens = sf.tokens()
        starts = sf.line_starts
        for d in directives:
            if d.kind != "define" or d.line < last_include:
                continue
            m = _FUNCTION_MACRO.match(d.text.strip())
            if m is None:
                continue
            name = m.group(1)
            begin = starts[d.line - 1]
            end = starts[d.end_line] if d.end_line < len(starts) else len(sf.code)
            if any(not begin <= at < end for at in tokens.get(name.encode(), ())):
                continue  # named outside its own definition: expanded (or tested, #undef'd: read as used)
            out.update((n, (name, d.line)) for n in range(d.line, d.end_line + 1))
    sf.cache["refine.unexpanded"] = out
    return out


def unexpanded(f: Draft, bodies: dict[int, tuple[str, int]]) -> Draft:
    """A finding in the definition of a macro the file never expands: info (step 5r)."""
    return info_at_line(f, bodies, "unexpanded", lambda name, line: f"in the definition of the macro {name} (line "
                        f"{line}), which this file never expands: the compiler never sees its body")


# Rules whose finding on a name a `#define` defines is the project's own definition of that name (step 5s): a name
# HIP lacks (API002), deprecates (API003), declares under caveats (API004) or lacks overloads of (DEV027).
OWN_DEFINITION_RULES = frozenset({"API002", "API003", "API004", "DEV027"})
_DEFINE_NAME = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)")


def own_definition(f: Draft, sf: SourceFile) -> Draft:
    """A finding on the very name a `#define` on its line defines: info (step 5s)."""
    if f.rule not in OWN_DEFINITION_RULES or f.severity <= Severity.INFO or not 0 < f.line <= len(sf.line_starts):
        return f
    start = sf.line_starts[f.line - 1]
    m = _DEFINE_NAME.match(sf.code, start)
    if m is None or m.start(1) != start + f.column - 1:
        return f
    return _as_info(f, "own_definition", f"the file's own definition of {m.group(1).decode()}: it supplies the name "
                                         "wherever this line is compiled")


# Rules whose finding on the name of a function the file defines is a use of the project's own function (step 5v):
# only a name HIP lacks (API002), so no HIP declaration competes with the project's.
OWN_FUNCTION_RULES = frozenset({"API002"})
_NAME_AT = re.compile(rb"[A-Za-z_]\w*")


def own_function(f: Draft, sf: SourceFile) -> Draft:
    """A finding on a name the file defines as a function: info (step 5v)."""
    if f.rule not in OWN_FUNCTION_RULES or f.severity <= Severity.INFO or not 0 < f.line <= len(sf.line_starts):
        return f
    m = _NAME_AT.match(sf.code, sf.line_starts[f.line - 1] + f.column - 1)
    if m is None:
        return f
    name = m.group(0).decode()
    defined = next((fn for fn in sf.functions if fn.name == name and fn.node.child_by_field_name("body") is not None),
                   None)
    if defined is None:
        return f
    kind = "kernel" if defined.is_kernel else "device function" if defined.is_device else "function"
    return _as_info(f, "own_function", f"{name} is this file's own {kind} (line {defined.start_line}): the call "
                                       "resolves to it, and HIP declares no such name")
