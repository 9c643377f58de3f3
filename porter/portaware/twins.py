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
