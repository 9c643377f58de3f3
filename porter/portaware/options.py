"""Find the code a project's off-by-default compile options hold: arms of `#ifdef X` where X is only ever defined in
a comment.

Scientific codes keep optional paths behind a macro the developer enables by uncommenting its definition in a
configuration header: SPECFEM3D's src/gpu/mesh_constants_gpu.h has `//#define USE_TEXTURES_FIELDS` and
`//#define USE_TEXTURES_CONSTANTS` ("Use textures for d_displ and d_accel -- 10% performance boost",
https://github.com/SPECFEM/specfem3d/blob/devel/src/gpu/mesh_constants_gpu.h), and the texture fetches under
`#ifdef USE_TEXTURES_FIELDS` are compiled by neither the CUDA nor the HIP build as shipped. What such an arm holds is
optional work (status cuda-only), not the port's.

A CMake option that defaults OFF (`option(PPLNN_CUDA_ENABLE_CUDNN "enable cudnn ..." OFF)`; an option without a
value is OFF too, https://cmake.org/cmake/help/latest/command/option.html) is the same switch when the build passes
the macro of its name only while the option is on: every other mention of the name in the repository's CMake files
is a test (`if(NAME)`, `elseif(...)`) or sits in the block of `if(NAME)` / `if(NAME AND ...)` (where
`add_definitions(-DNAME)` or a definitions list names it), and no Makefile, shell script or setup.py names it. An
option whose block turns on the CUDA build itself (`enable_language(CUDA)`, `find_package(CUDA|CUDAToolkit)`, a
CMAKE_CUDA_ variable) is the GPU build the port is about, never an optional extra.

A macro is an off option when a C/C++ file of the repository defines it only in a comment (`// #define X`,
`/* #define X */`, with no value or 1), no directive defines it (`#define X` anywhere, in any arm), and no build file
porter reads names it (`-DX`, `add_compile_definitions(X)`, `define_macros=[("X", ...)]`): those may switch it on.
An arm is off when its condition is false with every off option undefined whatever the other names are: `#ifdef X`,
`#if defined(X) || defined(Y)` with both off, `#if defined(X) && Z`; a condition with a negation, a comparison or
arithmetic is not read (`#if X == 0` is true without X). The `#else` of an off arm is on, and so is an `#elif`.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping

from porter.lazyre import lazy_regex
from porter.source.cmake_conditions import arms as cmake_arms
from porter.source.parse_input import line_matches
from porter.source.preprocessor import Directive

# A definition written in a comment, alone on its line: `//#define X`, `// #define X 1`, `/* #define X */`.
_COMMENTED = lazy_regex(rb"(?m)^[ \t]*(?://[ \t]*|/\*[ \t]*)#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+1)?[ \t]*"
                        rb"(?:\*/[ \t]*)?\r?$")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\|\||&&|[()]|\S")


def commented_defines(data: bytes) -> tuple[tuple[int, str], ...]:
    """(line, name) of each macro definition the file writes in a comment."""
    if b"define" not in data:
        return ()
    # Only lines holding `define` are tried (each match is one line): a MULTILINE `^` has no literal prefix for `re`
    # to skip ahead to, so finditer tried it at every byte of the file.
    return tuple((data.count(b"\n", 0, m.start()) + 1, m.group(1).decode("ascii"))
                 for m in line_matches(_COMMENTED(), data, (b"define",)))


_OPTION = lazy_regex(rb'(?im)^[ \t]*option[ \t]*\([ \t]*([A-Za-z_]\w*)[ \t]+"[^"]*"[ \t]*([A-Za-z0-9_]*)[ \t]*\)')
_OFF_VALUES = frozenset({b"", b"OFF", b"FALSE", b"NO", b"0", b"N"})
_TEST_LINE = re.compile(rb"^\s*(?:if|elseif)\s*\(", re.I)
_CUDA_BUILD = lazy_regex(rb"(?i)\benable_language\s*\(\s*CUDA\b|\bfind_package\s*\(\s*CUDA(?:Toolkit)?\b"
                         rb"|\bLANGUAGES\b[^)]*\bCUDA\b|\bCMAKE_CUDA_\w+")


_WORD = re.compile(rb"(?<![\w$])[A-Za-z_]\w*(?!\w)")
_HASH_COMMENT = re.compile(rb"(?m)(?:^|(?<=\s))#[^\n]*")


def cmake_option_facts(data: bytes) -> tuple[tuple[tuple[str, int, bool], ...], tuple[str, ...]]:
    """One CMake file's part of combine_off_options, as plain values port status caches: the options it declares
    (name, line, whether the default is OFF) and the names it mentions other than in an option() or if()/elseif()
    line or inside a block of its own `if(NAME [AND ...])`, or whose own block turns on the CUDA build."""
    declared = tuple((m.group(1).decode("ascii"), data.count(b"\n", 0, m.start()) + 1, m.group(2).upper() in _OFF_VALUES)
                     for m in _OPTION().finditer(data)) if b"option" in data else ()
    code = _HASH_COMMENT.sub(b"", data)
    lines = code.split(b"\n")
    own: dict[bytes, list[tuple[int, int]]] = {}
    free: set[str] = set()
    for a in cmake_arms(code):
        if a.index == 0:
            first = re.split(r"\s+AND\s+", a.condition.strip())[0].strip().encode()
            own.setdefault(first, []).append((a.line, a.end))
            if _CUDA_BUILD().search(b"\n".join(lines[a.line:a.end - 1])):
                free.add(first.decode("utf-8", "replace"))
    for n, text in enumerate(lines, 1):
        if _OPTION().match(text + b"\n") or _TEST_LINE.match(text):
            continue
        for m in _WORD.finditer(text):
            word = m.group(0)
            if not any(a < n < b for a, b in own.get(word, ())):
                free.add(word.decode("ascii"))
    return declared, tuple(sorted(free))


def combine_off_options(per_file: Iterable[tuple[str, tuple[tuple[str, int, bool], ...], Iterable[str]]]) -> dict[str, str]:
    """Each CMake option that defaults OFF and whose name the build only tests or uses inside its own `if(NAME)`
    blocks, none of which turns on the CUDA build -> "path:line" of its option() (see the module doc), from each CMake
    file's (path, declared options, names mentioned freely) of cmake_option_facts."""
    files = list(per_file)
    declared: dict[str, str] = {}
    for path, options, _free in files:
        for name, line, off in options:
            if off:
                declared.setdefault(name, f"{path}:{line}")
            else:
                declared[name] = ""  # declared ON somewhere: not an off option
    bad = {n for _path, _options, free in files for n in free}
    return {k: v for k, v in declared.items() if v and k not in bad}


def build_names(text: str, names: Iterable[str]) -> set[str]:
    """The names of `names` that a build file's text mentions as a word (a -D flag, a definitions list)."""
    return {n for n in names if n in text and re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}


def _off(kind: str, text: str, off: Mapping[str, str]) -> str | None:
    """The evidence ("path:line" of the commented definition) when the condition is false with the off options
    undefined, else None."""
    if kind in ("ifdef", "elifdef"):
        name = text.split()[0] if text.split() else ""
        return off.get(name)
    if kind not in ("if", "elif"):
        return None
    tokens = _TOKEN.findall(text)
    names = [t for t in tokens if t[0].isalpha() or t[0] == "_"]
    names = [t for t in names if t != "defined"]
    if not names or any(t not in ("||", "&&", "(", ")") and not (t[0].isalpha() or t[0] == "_") for t in tokens):
        return None
    if "||" in tokens and "&&" in tokens:
        return None
    if "||" in tokens or len(names) == 1:
        hits = [off.get(n) for n in names]
        return hits[0] if all(hits) else None
    return next((off[n] for n in names if n in off), None)  # a conjunction: one off name makes it false


def off_arms(dirs: Iterable[Directive], off: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """(first line, last line, evidence) of the body of each arm of the file that only an off option enables
    (nested directives inside it included)."""
    out: list[tuple[int, int, str]] = []
    stack: list[list] = []  # per open group: [evidence of the current arm or None, first body line]
    for d in dirs:
        if d.kind in ("define", "include", "undef"):
            continue
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append([_off(d.kind, d.text, off), d.end_line + 1])
        elif d.kind in ("elif", "elifdef", "elifndef", "else") and stack:
            ev, first = stack[-1]
            if ev is not None and d.line > first:
                out.append((first, d.line - 1, ev))
            stack[-1] = [_off(d.kind, d.text, off) if d.kind != "else" else None, d.end_line + 1]
        elif d.kind == "endif" and stack:
            ev, first = stack.pop()
            if ev is not None and d.line > first:
                out.append((first, d.line - 1, ev))
    return sorted(out)
