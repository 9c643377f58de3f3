"""Read two kinds of C++ declarations that make CUDA-named code no porting item: class twins and forward declarations.

- **A class with a HIP twin.** A project that already builds for ROCm often keeps one class per backend:
  ginkgo's `CudaExecutor` beside `HipExecutor` (include/ginkgo/core/base/executor.hpp), `CusparseBase` beside
  `HipsparseBase` in its benchmark linops. The CUDA class's cuBLAS handles and cuSPARSE descriptors are the CUDA side
  of that twin: the ROCm build uses the other class. A class (or struct) whose name has a CUDA word (`Cuda`, `CUDA`,
  `cuda`, or a `cu` library prefix such as `Cusparse`) at a word start is the CUDA side of a twin when the repository
  also defines the name with that word spelled for HIP (`Hip`, `HIP`, `hip`: `HipExecutor`, `HipsparseBase`).
- **A forward-declared library type.** `struct cublasContext;` declares an incomplete type: the file, and every use
  of `cublasContext*` or `std::unique_ptr<cublasContext, ...>`, compiles without cuBLAS installed, so the name alone
  is not something a port must rewrite (ginkgo's include/ginkgo/core/base/fwd_decls.hpp declares both vendors'
  handle types this way).

`class_spans(data)` and `forward_declarations(data)` lex one file (cached with its port facts); `class_twins` pairs
the repository's classes. The lexing is textual (comments and literals skipped when braces are counted): it reads
declarations, it does not parse C++.
"""
from __future__ import annotations

import posixpath
import re
from typing import Iterable

from porter.lazyre import lazy_regex
from porter.source.parse_input import line_matches, word_matches

# A class or struct definition head: `class NAME [final] [: bases] {` (attributes and alignas before the name).
_CLASS_HEAD = lazy_regex(
    rb"\b(?:class|struct)\s+(?:(?:alignas\s*\([^()]*\)|\[\[[^\]]*\]\]|__declspec\s*\([^()]*\)|[A-Z][A-Z0-9_]*[A-Z0-9])\s+)*"
    rb"([A-Za-z_]\w*)\s*(?:final\s*)?(?::(?!:)[^;{}()]*(?:\([^;{}]*\)[^;{}]*)*)?\{")
# A forward declaration on a line of its own: `struct cublasContext;` (optionally `class`, inside a namespace).
_FORWARD = lazy_regex(rb"(?m)^[ \t]*(?:struct|class)[ \t]+([A-Za-z_]\w*)[ \t]*;")
# Only class names with a vendor word are kept: the twins are found among them.
_VENDOR_NAME = lazy_regex(r"(?:^|_|(?<=[a-z0-9]))(?:CUDA|Cuda|cuda|CU|Cu|cu|HIP|Hip|hip)(?=[A-Za-z0-9_]|$)")
# The CUDA spellings, each with its HIP twin's spelling, at a word start: the start of the name, after `_`, or an
# upper-case word start after a lower-case letter or digit (`gpuCudaExec`).
_CUDA_WORD = lazy_regex(r"(?:^|(?<=_)|(?<=[a-z0-9])(?=[A-Z]))(CUDA|Cuda|cuda|CU|Cu|cu)")
_HIP_SPELLING = {"CUDA": "HIP", "Cuda": "Hip", "cuda": "hip", "CU": "HIP", "Cu": "Hip", "cu": "hip"}


# The bytes _block_end acts on: braces and what opens a comment, a string or a character literal. The bytes between
# them are skipped in one C-speed search instead of a Python step per byte (most of a class body is neither).
_BLOCK_BYTE = lazy_regex(rb"[{}/\"']")


def _block_end(data: bytes, open_at: int) -> int:
    """The index of the `}` closing the `{` at `open_at` (comments, strings and character literals skipped), or -1."""
    depth, i, n = 0, open_at, len(data)
    find = _BLOCK_BYTE().search
    while i < n:
        m = find(data, i)
        if m is None:
            return -1
        i = m.start()
        c = data[i]
        if c == 0x7B:  # {
            depth += 1
        elif c == 0x7D:  # }
            depth -= 1
            if depth == 0:
                return i
        elif c == 0x2F and i + 1 < n and data[i + 1] == 0x2F:  # // comment
            j = data.find(b"\n", i)
            i = n if j < 0 else j
            continue
        elif c == 0x2F and i + 1 < n and data[i + 1] == 0x2A:  # /* comment */
            j = data.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        elif c in (0x22, 0x27):  # "string" or 'c'
            j = i + 1
            while j < n and data[j] != c and data[j] != 0x0A:
                j += 2 if data[j] == 0x5C else 1
            i = j + 1
            continue
        i += 1
    return -1


def class_spans(data: bytes) -> tuple[tuple[str, int, int], ...]:
    """(name, first line, last line) of each class or struct definition whose name has a CUDA or HIP word."""
    if b"class" not in data and b"struct" not in data:
        return ()
    out = []
    # Tried only where `class` or `struct` is written (every match starts there), not at every byte.
    for m in word_matches(_CLASS_HEAD(), data, (b"class", b"struct")):
        name = m.group(1).decode("ascii", "replace")
        if not _VENDOR_NAME().search(name):
            continue
        end = _block_end(data, m.end() - 1)
        if end < 0:
            continue
        start_line = data.count(b"\n", 0, m.start()) + 1
        out.append((name, start_line, start_line + data.count(b"\n", m.start(), end)))
    return tuple(out)


def forward_declarations(data: bytes) -> tuple[tuple[int, str], ...]:
    """(line, name) of each `struct NAME;` / `class NAME;` forward declaration on a line of its own."""
    if b";" not in data:
        return ()
    # Only lines holding `struct` or `class` are tried (each match is one line): `^` tried at every byte cost as
    # much as the rest of a file's port facts.
    return tuple((data.count(b"\n", 0, m.start(1)) + 1, m.group(1).decode("ascii", "replace"))
                 for m in line_matches(_FORWARD(), data, (b"struct", b"class")))


def hip_spellings(name: str) -> list[str]:
    """The names `name`'s HIP twin could have: each CUDA word at a word start spelled for HIP, one at a time."""
    return [name[:m.start(1)] + _HIP_SPELLING[m.group(1)] + name[m.end(1):] for m in _CUDA_WORD().finditer(name)]


def class_twins(classes: Iterable[tuple[str, str, int, int]]) -> dict[str, list[tuple[int, int, str]]]:
    """For each file, (first line, last line, "path:line" of the twin) of each CUDA-named class whose HIP-named twin
    the repository defines. `classes`: (path, name, first line, last line) of every class class_spans kept."""
    classes = sorted(classes)
    defined: dict[str, list[tuple[str, int]]] = {}
    for path, name, line, _end in classes:
        defined.setdefault(name, []).append((path, line))
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, name, line, end in classes:
        homes = [h for t in hip_spellings(name) if t != name for h in defined.get(t, ())]
        if homes:
            # the twin beside it: in the same file (ginkgo's executor.hpp holds both executors), else the same
            # folder, else the first by path (a test fixture of the same name elsewhere is not the twin meant)
            folder = posixpath.dirname(path)
            best = min(homes, key=lambda h: (h[0] != path, posixpath.dirname(h[0]) != folder, h))
            out.setdefault(path, []).append((line, end, f"{best[0]}:{best[1]}"))
    return out


# ---------------------------------------------------------------------------------------------------------------------
# Twins by definition. A project that builds for both vendors often keeps one implementation file per backend behind
# one header of wrappers, chosen by the build, whatever the files are called: ludwig's target/target.h declares the
# `tdp*` layer that target_cuda.c implements over CUDA and target_hip.c over HIP; a `gpu_ops.cu` beside an
# `amd/backend.cpp` that defines the same `launch_*` functions. A CUDA-side file whose externally visible definitions
# a ROCm-side file also defines is that file's twin: the ROCm build links the other file, so the CUDA file's work is
# done there. The evidence is the definitions themselves, never the names of the two files.
#
# A definition, read textually (comments blanked): a function or kernel with a body (`void f(...) {`, a qualified
# `A::f`, a `__global__` kernel with `__launch_bounds__(...)`), and a class or struct with a body. Left out: `main`
# (every program defines it), operators, and in a source file (not a header) `static` functions, which no other file
# can call. A header's `static inline` helpers are its interface and count.
# The end of a function head: the `)` closing its parameters, qualifiers, a trailing return type, the body's `{`.
# The name and the return type are read backwards from there (_head_before): one pattern reading forwards from each
# line start backtracked for seconds over a 36 kB file of long templated calls.
_HEAD_END = lazy_regex(rb"\)[ \t\r\n]*(?:(?:const|noexcept|override|final|volatile)\b[ \t\r\n]*)*(?:->[^;{}()]*)?\{")
_NAME_BEFORE = lazy_regex(rb"(~?[A-Za-z_]\w*(?:[ \t]*::[ \t]*~?[A-Za-z_]\w*)*)[ \t\r\n]*$")
_TYPE_HEAD = lazy_regex(rb"(?m)^[ \t]*(?:template\s*<[^;{}]*>\s*)?(?:class|struct)\s+(?:[A-Z_][A-Z0-9_]*\s+)*"
                        rb"([A-Za-z_]\w*)\s*(?:final\s*)?(?::(?!:)[^;{}]*)?\{")
# Words that head a statement, never a definition's name or its return type.
_NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "defined", "operator", "main",
                        "do", "else", "case", "new", "delete", "throw", "using", "typedef", "decltype", "alignof",
                        "static_assert", "__attribute__", "__declspec"})
_NOT_PREFIX = frozenset({b"return", b"else", b"new", b"delete", b"throw", b"case", b"goto", b"typedef", b"using",
                         b"co_return", b"sizeof", b"#define", b"define"})
_SOURCE_FILE = (".c", ".cc", ".cpp", ".cxx", ".cu", ".hip")
# How much two files must share to be twins: at least three definitions, and at least half of the CUDA file's.
# Unrelated files share a name or two by habit (`init`, `finalize`, a `Params` struct); three shared names that are
# also half of everything the CUDA file defines are one interface implemented twice. Half, not all: a hand-kept twin
# may leave a function out (or the CUDA file keep a helper the twin folds away); a definition the twin lacks stays
# open line by line (status._definition_twins), so a partial twin hands over only what it implements.
TWIN_MIN_SHARED = 3


def _head_before(text: bytes, close: int) -> tuple[int, str, list[bytes]] | None:
    """For the `)` at `close`: (offset of the name, the name, the words before it back to the previous statement or
    directive) when an identifier stands right before the matching `(`, else None."""
    depth, i, stop = 0, close, max(0, close - 4000)
    while i >= stop:
        c = text[i]
        if c == 0x29:  # )
            depth += 1
        elif c == 0x28:  # (
            depth -= 1
            if depth == 0:
                break
        elif c in (0x3B, 0x7B, 0x7D):  # ; { } inside a parameter list: no head
            return None
        i -= 1
    else:
        return None
    line_start = text.rfind(b"\n", 0, i) + 1
    m = _NAME_BEFORE().search(text, max(0, line_start - 200), i)
    if m is None:
        return None
    at = m.start(1)
    # the words before the name, back to the last `;`, `{`, `}` or a directive's line
    back = max(text.rfind(b";", 0, at), text.rfind(b"{", 0, at), text.rfind(b"}", 0, at), at - 400)
    words = text[back + 1:at]
    directive = words.rfind(b"#")
    if directive >= 0:
        nl = words.find(b"\n", directive)
        words = words[nl + 1:] if nl >= 0 else b""
    name = re.sub(r"[ \t]+", "", m.group(1).decode("ascii", "replace"))
    return at, name, words.split()


def visible_definitions(path: str, data: bytes) -> tuple[tuple[str, int, int], ...]:
    """(name, first line, last line) of each function, kernel, class or struct `data` defines with a body (see
    above), in file order. A qualified definition keeps its qualifier (`Grid_Cuda::fill`): two classes that implement
    one base class's methods (`Grid_Cuda_Optim2::fill` beside `Grid_Hip_Optim::fill`) define different things."""
    from porter.source.preprocessor import blank_comments

    if b"{" not in data:
        return ()
    text = blank_comments(data)
    header = not path.lower().endswith(_SOURCE_FILE)
    out: list[tuple[str, int, int]] = []
    for m in _HEAD_END().finditer(text):
        head = _head_before(text, m.start())
        if head is None:
            continue
        at, name, prefix = head
        if name.rsplit("::", 1)[-1] in _NOT_NAMES or "~" in name or not prefix or prefix[0] in _NOT_PREFIX:
            continue
        if not header and b"static" in prefix:
            continue
        end = _block_end(text, m.end() - 1)
        if end < 0:
            continue
        first = text.count(b"\n", 0, at) + 1
        out.append((name, first, first + text.count(b"\n", at, end)))
    for m in _TYPE_HEAD().finditer(text):
        name = m.group(1).decode("ascii", "replace")
        end = _block_end(text, m.end() - 1)
        if name in _NOT_NAMES or end < 0:
            continue
        first = text.count(b"\n", 0, m.start(1)) + 1
        out.append((name, first, first + text.count(b"\n", m.start(1), end)))
    return tuple(sorted(out, key=lambda d: (d[1], d[0])))


def definition_twin(mine: Iterable[str], candidates: Iterable[tuple[str, frozenset[str]]]
                    ) -> tuple[str, frozenset[str]] | None:
    """The candidate (path, names it defines) that shares the most of `mine` (the CUDA file's definitions) when it
    shares at least TWIN_MIN_SHARED of them and at least half; ties go to the first path. None when none does."""
    own = frozenset(mine)
    best: tuple[str, frozenset[str]] | None = None
    for path, names in sorted(candidates):
        shared = own & names
        if len(shared) >= TWIN_MIN_SHARED and 2 * len(shared) >= len(own) and (best is None or len(shared) > len(best[1])):
            best = (path, shared)
    return best
