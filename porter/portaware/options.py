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
from porter.portaware.scope import make_conditional
from porter.source.cmake_conditions import arms as cmake_arms
from porter.source.parse_input import line_matches
from porter.source.preprocessor import Directive

# A definition written in a comment, alone on its line: `//#define X`, `// #define X 1`, `/* #define X */`.
_COMMENTED = lazy_regex(rb"(?m)^[ \t]*(?://[ \t]*|/\*[ \t]*)#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+1)?[ \t]*"
                        rb"(?:\*/[ \t]*)?\r?$")
_NAME = re.compile(r"[A-Za-z_]\w*")
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
# message() only prints its arguments (https://cmake.org/cmake/help/latest/command/message.html): a status line
# naming an option (`message(STATUS "nvcc warnings: " ${PopSift_NVCC_WARNINGS})`) never switches it on.
_MESSAGE_LINE = re.compile(rb"^\s*message\s*\([^()]*\)\s*$", re.I)
_CUDA_BUILD = lazy_regex(rb"(?i)\benable_language\s*\(\s*CUDA\b|\bfind_package\s*\(\s*CUDA(?:Toolkit)?\b"
                         rb"|\bLANGUAGES\b[^)]*\bCUDA\b|\bCMAKE_CUDA_\w+")


_WORD = re.compile(rb"(?<![\w$])[A-Za-z_]\w*(?!\w)")
_HASH_COMMENT = re.compile(rb"(?m)(?:^|(?<=\s))#[^\n]*")


def cmake_option_facts(data: bytes) -> tuple[tuple[tuple[str, int, bool], ...], tuple[str, ...]]:
    """One CMake file's part of combine_off_options, as plain values port status caches: the options it declares
    (name, line, whether the default is OFF) and the names it mentions other than in an option(), if()/elseif() or
    one-line message() or inside a block of its own `if(NAME [AND ...])`, or whose own block turns on the CUDA
    build."""
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
        if _OPTION().match(text + b"\n") or _TEST_LINE.match(text) or _MESSAGE_LINE.match(text):
            continue
        for m in _WORD.finditer(text):
            word = m.group(0)
            if not any(a < n < b for a, b in own.get(word, ())):
                free.add(word.decode("ascii"))
    return declared, tuple(sorted(free))


def cmake_option_blocks(data: bytes) -> tuple[tuple[str, int, int], ...]:
    """(name, first line, last line) of the body of each `if(NAME)` / `if(NAME AND ...)` arm of one CMake file: the
    lines CMake runs only when NAME is true, so only when an option of that name is on (its `else()` and `elseif()`
    arms are not in it). The body starts after the if() line and ends before the command closing the arm."""
    if b"if" not in data:
        return ()
    out: list[tuple[str, int, int]] = []
    for a in cmake_arms(_HASH_COMMENT.sub(b"", data)):
        first = re.split(r"\s+AND\s+", a.condition.strip())[0].strip()
        if a.index == 0 and _NAME.fullmatch(first) and a.end - 1 > a.line:
            out.append((first, a.line + 1, a.end - 1))
    return tuple(out)


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


_FIND_PACKAGE = lazy_regex(rb"(?im)^[ \t]*find_package[ \t]*\([ \t]*([A-Za-z_][\w.+-]*)")


def cmake_packages(data: bytes) -> tuple[tuple[int, str], ...]:
    """(line, package) of each find_package() call of one CMake file (comments left out)."""
    if b"find_package" not in data.lower():
        return ()
    code = _HASH_COMMENT.sub(b"", data)
    return tuple((code.count(b"\n", 0, m.start()) + 1, m.group(1).decode("ascii"))
                 for m in _FIND_PACKAGE().finditer(code))


def off_packages(per_file: Iterable[tuple[Iterable[tuple[int, str]], Iterable[tuple[str, int, int]]]],
                 off: Mapping[str, str]) -> dict[str, str]:
    """Each package every find_package() of the repository's CMake files looks for only inside the block of an
    option left OFF (`option(USE_AMGX ... OFF)` ... `if(USE_AMGX) find_package(AMGX)`: OPM) -> that option's
    evidence: the default build never looks for it, so never finds it. From each CMake file's
    (cmake_packages, cmake_option_blocks) and the off options (combine_off_options)."""
    seen: dict[str, str | None] = {}
    for packages, blocks in per_file:
        blocks = list(blocks)
        for line, package in packages:
            ev = next((off[n] for n, a, b in blocks if n in off and a <= line <= b), None)
            seen[package] = ev if seen.get(package, "") is not None else None
    return {k: v for k, v in seen.items() if v}


def found_names(package: str) -> tuple[str, ...]:
    """The variables find_package(package) sets true when it finds the package: `<name>_FOUND` and, as modules
    commonly also set, `<NAME>_FOUND` (https://cmake.org/cmake/help/latest/command/find_package.html)."""
    return tuple(dict.fromkeys((f"{package}_FOUND", f"{package.upper()}_FOUND")))


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


# A make variable assignment at the start of a line (not a recipe line): `CUDNN?=0`, `export DEBUG := 0`.
_MAKE_ASSIGN = re.compile(r"^(?:(?:export|override)[ \t]+)*([A-Za-z_]\w*)[ \t]*(\?=|:=|::=|\+=|!=|=)[ \t]*([^#\n]*)")
# The values GNU make code reads as a switch left off: `ifeq ($(X),1)` is false for each of them.
_MAKE_OFF_VALUES = frozenset({"0", "no", "false", "off", "n"})
_MAKE_ON_VALUES = frozenset({"1", "yes", "true", "on", "y"})
# Words that set up the CUDA toolchain in a make arm: the compiler, its runtime and its install's variables.
_MAKE_TOOLCHAIN = re.compile(r"(?i)\bnvcc\w*|-lcuda(?:rt)?\b|\bcuda_\w+|\bcuda\b")
_MAKE_DEFINE = re.compile(r"(?<![\w$])-D[ \t]*([A-Za-z_]\w*)")


def _make_switch_test(kind: str, arg: str, switches: Iterable[str]) -> str | None:
    """The switch a make conditional tests for being on (`ifeq ($(CUDNN),1)`, `ifneq ($(CUDNN),0)`), or None."""
    body = arg.strip()
    if kind not in ("ifeq", "ifneq") or not (body.startswith("(") and body.endswith(")")) or "," not in body:
        return None
    a, b = (o.strip() for o in body[1:-1].split(",", 1))
    for var, lit in ((a, b), (b, a)):
        m = re.fullmatch(r"\$[({]([A-Za-z_]\w*)[)}]", var)
        if m is None or m.group(1) not in switches or "$" in lit:
            continue
        on = lit.lower() in _MAKE_ON_VALUES if kind == "ifeq" else lit.lower() in _MAKE_OFF_VALUES
        return m.group(1) if on else None
    return None


def make_off_switches(texts: Mapping[str, str]) -> tuple[dict[str, list[tuple[int, int, str]]], dict[str, str]]:
    """The make counterpart of an OFF CMake option: a variable every make file of the repository assigns only an off
    value (`CUDNN?=0`: BART's Makefile; `?=` sets it unless the command line or environment does,
    https://www.gnu.org/software/make/manual/html_node/Setting.html) and tests only for being on (`ifeq
    ($(CUDNN),1)`, https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html). The arms of those
    tests are lines the default build never reads. Returns, per make file, (first line, last line, evidence) of each
    such arm's body (nested conditionals included), and each macro those arms alone pass (`CPPFLAGS +=
    -DUSE_CUDNN`) -> evidence, for the C/C++ arms it guards.

    A switch whose arms set up the CUDA toolchain that its other arms do not (`ifeq ($(CUDA),1)` adding nvcc's
    include path and `-lcudart`, `else` leaving them empty) is the GPU build itself, the one the port is about,
    never an optional extra; a switch any make file assigns an on value, or tests another way (`ifdef`, a value
    that is not on or off), is not read."""
    assigned: dict[str, set[str]] = {}
    where: dict[str, str] = {}
    for path, text in sorted(texts.items()):
        for n, line in enumerate(text.split("\n"), 1):
            m = _MAKE_ASSIGN.match(line)
            if m is not None:
                assigned.setdefault(m.group(1), set()).add(m.group(3).strip().lower() if m.group(2) != "+=" else "+")
                where.setdefault(m.group(1), f"{path}:{n}")
    switches = {v for v, values in assigned.items() if values and values <= _MAKE_OFF_VALUES}
    if not switches:
        return {}, {}
    arms: dict[str, list[tuple[int, int, str]]] = {}  # switch -> (path, first, last) of its on arms
    on_arms: list[tuple[str, int, int, str]] = []
    other_text: dict[str, list[str]] = {}  # switch -> the text of its tests' other arms
    spoiled: set[str] = set()  # switches tested in a way not read
    for path, text in sorted(texts.items()):
        lines = text.split("\n")
        stack: list[list] = []  # per open conditional: [switch or None, arm is on-arm, arm body's first line]

        def close(upto: int) -> None:
            sw, is_on, first = stack[-1]
            if sw is None:
                return
            body = lines[first - 1:upto]
            if is_on:
                on_arms.append((sw, first, upto, path))
            else:
                other_text.setdefault(sw, []).extend(body)

        for n, line in enumerate(lines, 1):
            c = make_conditional(line)
            if c is None:
                continue
            is_else, word, arg = c
            if word == "endif":
                if stack:
                    close(n - 1)
                    stack.pop()
                continue
            if is_else:  # else, else ifeq (...)
                if not stack:
                    continue
                close(n - 1)
                sw = stack[-1][0]
                stack[-1] = [sw, False, n + 1]
                continue
            sw = _make_switch_test(word, arg, switches)
            for v in re.findall(r"\$[({]([A-Za-z_]\w*)[)}]|(?<=ifdef )\s*([A-Za-z_]\w*)", line):
                name = v[0] or v[1]
                if name in switches and name != sw:
                    spoiled.add(name)
            stack.append([sw, True, n + 1])
    for sw, first, last, path in on_arms:
        arms.setdefault(sw, []).append((first, last, path))
    out: dict[str, list[tuple[int, int, str]]] = {}
    macros: dict[str, str] = {}
    outside: set[str] = set()  # macros some make line outside every off arm passes
    off_lines: dict[str, set[int]] = {}
    for sw, spans in sorted(arms.items()):
        if sw in spoiled:
            continue
        on_words = {w.lower() for first, last, path in spans
                    for w in _MAKE_TOOLCHAIN.findall("\n".join(texts[path].split("\n")[first - 1:last]))}
        other_words = {w.lower() for w in _MAKE_TOOLCHAIN.findall("\n".join(other_text.get(sw, ())))}
        if on_words - other_words:
            continue  # the GPU build's own switch
        ev = f"{where[sw]} (a make variable, {next(iter(sorted(assigned[sw])))} by default)"
        for first, last, path in spans:
            out.setdefault(path, []).append((first, last, ev))
            off_lines.setdefault(path, set()).update(range(first, last + 1))
            for line in texts[path].split("\n")[first - 1:last]:
                for name in _MAKE_DEFINE.findall(line):
                    macros.setdefault(name, ev)
    for path, text in texts.items():
        for n, line in enumerate(text.split("\n"), 1):
            if n not in off_lines.get(path, ()):
                outside.update(_MAKE_DEFINE.findall(line))
    return {p: sorted(v) for p, v in out.items()}, {k: v for k, v in macros.items() if k not in outside}
