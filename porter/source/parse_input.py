"""What the C++ parser sees instead of a file's bytes (porter.source.parse), always at the same length so offsets
stay exact: kernel-hiding qualifier macros and kernel-declaring macros rewritten (harvested from the repository,
`neutralise_macros`), runs of numeric lines blanked, attributes tree-sitter-cuda cannot parse blanked; and `blank`,
which the code view uses too. For Python, `python_names_as_read`: identifiers in the NFKC form CPython reads."""
from __future__ import annotations

import functools
import re
from typing import Iterator

from porter.lazyre import lazy_regex


# `#define NAME body` where body is only declaration qualifiers (and optionally __launch_bounds__(...)), a C
# linkage (`#define KERNEL extern "C" __global__`, how OpenMM and other projects that load kernels by name write
# theirs) and a kernel's return type, `void` (`#define GLOBAL_VOID static __global__ void`); a body with `void` is
# harvested only when it says `__global__` or `__device__` (harvest_macros), so a host `static void` macro is not.
_QUALIFIER_WORDS = (
    "__global__|__device__|__host__|__forceinline__|__noinline__|__inline__|inline|static|extern[ \\t]*\"C\"|extern"
    "|constexpr|void|__launch_bounds__\\s*\\([^()\\n]*\\)|__attribute__\\s*\\(\\([^()\\n]*\\)\\)"
)
_VOID = re.compile(r"\bvoid\b")
_QUALIFIER_MACRO = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+((?:(?:" + _QUALIFIER_WORDS.encode() + rb")[ \t]*)+)"
    rb"[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?\r?$",
    re.M,
)


# `#define KERNEL(T) template <typename T> __global__`, `#define LAUNCH_BOUNDS(n) __launch_bounds__(n)`: a
# function-like macro whose body is only declaration qualifiers, maybe after a `template <...>` head. Harvested as
# {"NAME(*)": body}; a use `NAME(args)` becomes `__global__` / `__device__` (padded) or spaces, as the object-like
# qualifier macros do, so a templated kernel declared through one is found (issue 27 class 5).
_QUALIFIER_FUNCTION_MACRO = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)\([^()\n]*\)[ \t]+((?:template[ \t]*<[^<>\n]*>[ \t]*)?(?:(?:"
    + _QUALIFIER_WORDS.encode() + rb")[ \t]*)+)[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?\r?$",
    re.M,
)
QUALIFIER_FUNCTION = "(*)"  # the key suffix of a harvested function-like qualifier macro
# The key suffix of a macro that spells a CUDA name at its uses (porter.source.preprocessor.spelling_macros, read by
# its pasted_names), in the same repository facts: not a qualifier macro.
SPELLING = "##"

# `#define MFEM_LAUNCH_BOUNDS __launch_bounds__`, used as `__global__ MFEM_LAUNCH_BOUNDS(256) void k(...)`: an
# object-like macro naming the attribute alone. The preprocessor rescans the replacement with the tokens that follow
# (C++ [cpp.rescan]), so `NAME(args)` is `__launch_bounds__(args)`: harvested as a function-like qualifier macro,
# whose use is blanked as `LAUNCH_BOUNDS(n)`'s is.
_BARE_LAUNCH_BOUNDS_MACRO = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+__launch_bounds__[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?\r?$",
    re.M,
)


# `#define DEFINE_KERNEL(name, ...) template <...> __global__ void name(Params p)`: a macro that declares a kernel
# whose name is one of its parameters (flash-attention's main kernels are written this way).
_function_macro = lazy_regex(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)


def line_matches(pattern: re.Pattern, data: bytes, words: tuple[bytes, ...]) -> Iterator[re.Match]:
    """What `pattern.finditer(data)` gives, for a MULTILINE pattern whose every match is non-empty, starts at a line
    start and holds one of `words` on that first line: those lines are found with bytes.find (memchr speed) instead
    of trying the pattern at every byte of the file (`re` has no literal prefix to skip ahead to after a `^`). A
    match may run over further lines (a directive's continuation lines): a line start inside it is not tried, as
    finditer goes on from a match's end."""
    starts = set()
    for word in words:
        at = data.find(word)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            starts.add(start)
            end = data.find(b"\n", at)
            at = data.find(word, end) if end >= 0 else -1
    end = 0
    for start in sorted(starts):
        if start < end:
            continue  # inside the last match
        m = pattern.match(data, start)
        if m is not None:
            end = m.end()
            yield m


def word_matches(pattern: re.Pattern, data: bytes, words: tuple[bytes, ...]) -> Iterator[re.Match]:
    """What `pattern.finditer(data)` gives, for a pattern whose every match is non-empty and starts with one of
    `words`, tried only where those are written (found with bytes.find) instead of at every byte: `re` cannot skip
    ahead to a pattern that opens with `\\b` or an alternation. A `\\b` at the start still reads the byte before."""
    starts: set[int] = set()
    for word in words:
        at = data.find(word)
        while at >= 0:
            starts.add(at)
            at = data.find(word, at + 1)
    end = 0
    for start in sorted(starts):
        if start < end:
            continue  # inside the last match: finditer goes on from its end
        m = pattern.match(data, start)
        if m is not None:
            end = m.end()
            yield m


# Names the compiler itself defines: CUDA's (and HIP's) execution- and memory-space specifiers and the C++ keywords a
# qualifier body may hold. A project that redefines one (`#ifndef __CUDA_RUNTIME_H__ #define __global__ inline ...`,
# CMS pixeltrack's cudaCompat.h) does so for a host-compiler build that emulates the GPU; nvcc and hip-clang never
# take that arm, so harvesting it would turn every `__global__` in the repository into a host function.
_COMPILER_NAMES = frozenset({
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__", "__forceinline__",
    "__noinline__", "__inline__", "__launch_bounds__", "inline", "static", "extern", "constexpr",
})


def harvest_macros(data: bytes) -> dict[str, str]:
    """Macros that hide kernels: qualifier-only ones (`#define KERNEL_ENTRY __global__ __launch_bounds__(256)`)
    as {name: body}, and function-like kernel declarators as {"NAME()": index of the parameter naming the kernel}.
    A redefinition of the compiler's own specifiers is never harvested (_COMPILER_NAMES)."""
    if b"define" not in data:
        return {}
    out: dict[str, str] = {}
    for m in line_matches(_QUALIFIER_MACRO, data, (b"define",)):
        name, body = m.group(1).decode(), m.group(2).decode().strip()
        if name in _COMPILER_NAMES or not _kernel_or_device_if_typed(body):
            continue
        # A macro defined per compiler (`#if defined(__NVCC__) ... __forceinline__ __device__ #else inline`, as
        # CUTLASS and CuTe do) keeps its nvcc arm: the CUDA build is the one porter reads device code for.
        if name not in out or not ("__device__" in out[name] or "__global__" in out[name]):
            out[name] = body
    for m in line_matches(_QUALIFIER_FUNCTION_MACRO, data, (b"define",)):
        if m.group(1).decode() in _COMPILER_NAMES:
            continue  # `#define __launch_bounds__(...)` for a host build: the compiler's own, as above
        if not _kernel_or_device_if_typed(m.group(2).decode()):
            continue
        out.setdefault(m.group(1).decode() + QUALIFIER_FUNCTION, m.group(2).decode().strip())
    if b"__launch_bounds__" in data:
        for m in line_matches(_BARE_LAUNCH_BOUNDS_MACRO, data, (b"define",)):
            if m.group(1).decode() not in _COMPILER_NAMES:
                out.setdefault(m.group(1).decode() + QUALIFIER_FUNCTION, "__launch_bounds__(...)")
    if b"__global__" in data:
        # What _function_macro().finditer(data) finds, tried only on lines holding `define` (the pattern at every
        # byte was most of this function's time); a match on a line inside the previous one's continuation
        # lines is skipped, as finditer would not see it.
        end = -1
        for m in line_matches(_function_macro(), data, (b"define",)):
            if m.start() < end:
                continue
            end = m.end()
            body = m.group(3)
            if b"__global__" not in body:
                continue
            params = [p.strip() for p in m.group(2).split(b",")]
            for i, p in enumerate(params):
                if p and p != b"..." and re.search(rb"__global__[^;{]*\b" + re.escape(p) + rb"\s*\(", body):
                    out[m.group(1).decode() + "()"] = str(i)
                    break
                # `#define GPU_KERNEL(name) __global__ void name`: the use's own parentheses follow it
                # (`GPU_KERNEL(scale)(float* x) {`), marked by a trailing `+`.
                if p and p != b"..." and re.search(rb"__global__[^;{()]*\b" + re.escape(p) + rb"[ \t\r]*$", body):
                    out[m.group(1).decode() + "()"] = f"{i}+"
                    break
    return out


def _kernel_or_device_if_typed(body: str) -> bool:
    """Whether a qualifier body may be harvested: one that holds the return type `void` only when it also makes a
    kernel or device function (else it is a host `static void`, which the parser reads as written)."""
    return not _VOID.search(body) or "__global__" in body or "__device__" in body


def _replacement(body: bytes, span: int) -> bytes:
    """What a use of a qualifier macro `span` bytes long becomes: `__global__` / `__device__` (with ` void` when the
    body says the return type) padded with spaces when it fits; else the return type alone, or spaces, and the
    function is recognised from the recorded use (porter.source.parse)."""
    keyword = b"__global__" if b"__global__" in body else b"__device__" if b"__device__" in body else b""
    options = [keyword]
    if _VOID.search(body.decode("latin-1")):
        options = [keyword + b" void" if keyword else b"void", b"void"]
    for text in options:
        if len(text) <= span:
            return text.ljust(span)
    return b" " * span


def neutralise_macros(data: bytes, known: dict[str, str] | None = None) -> tuple[bytes, dict[int, str], set[str]]:
    """Replace uses of kernel-hiding macros with same-length text tree-sitter understands.

    `known` adds macros defined elsewhere in the repository (a kernel's `KERNEL_ENTRY` usually lives in a header).
    Returns the new bytes, {offset of each use: macro name} and the names of macros that make a kernel.
    A qualifier macro whose name is at least as long as `__global__` becomes `__global__` padded with spaces; a
    shorter one becomes spaces and the kernel is recognised from the recorded use instead. A function-like kernel
    declarator `DEFINE_KERNEL(k, ...)` becomes `void k()` padded with spaces, recognised the same way.
    """
    known = dict(known or {})
    known.update(harvest_macros(data))
    declarators = {k[:-2].encode(): (int(v.rstrip("+")), v.endswith("+")) for k, v in known.items() if k.endswith("()")}
    qualifier_functions = {k[:-len(QUALIFIER_FUNCTION)].encode(): v.encode() for k, v in known.items()
                           if k.endswith(QUALIFIER_FUNCTION)}
    macros = {k.encode(): v.encode() for k, v in known.items() if not k.endswith(("()", QUALIFIER_FUNCTION, SPELLING))}
    uses: dict[int, str] = {}
    global_macros = ({n.decode() for n in declarators} | {n.decode() for n, body in macros.items() if b"__global__" in body}
                     | {n.decode() for n, body in qualifier_functions.items() if b"__global__" in body})
    out = bytearray(data)
    if declarators:
        _expand_kernel_declarators(data, out, declarators, uses)
    used_functions = {n: body for n, body in qualifier_functions.items() if n in data}
    if used_functions:
        _expand_qualifier_functions(data, out, used_functions, uses)
    names = []
    heads: dict[bytes, bool] = {}  # names sharing a head (CUTLASS_*, CUTE_*, C10_*) are looked for only if it is there
    for n in macros:
        head = n[:4]
        present = heads.get(head)
        if present is None:
            present = heads[head] = head in data
        if present and n in data:
            names.append(n)
    if names:
        pattern = re.compile(rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                             + rb")(?![A-Za-z0-9_])")
        define_lines = {m.start(1) for m in _QUALIFIER_MACRO.finditer(data)}
        for m in pattern.finditer(data):
            if m.start() in define_lines:
                continue
            name = m.group(1)
            out[m.start(): m.end()] = _replacement(macros[name], len(name))
            uses[m.start()] = name.decode()
    if not uses:
        return data, {}, set()
    return bytes(out), uses, global_macros


# The longest use of a function-like macro read over several lines (`KERNEL_DECL(scale,` / `float* x,` / `int n)`):
# parameter lists are short; past this the use is left alone.
_MAX_USE_BYTES = 4096


def _use_end(data: bytes, open_paren: int, brackets: bytes = b"(") -> int | None:
    """The offset of the `)` closing the use whose `(` is at `open_paren` (counting `brackets` as openers and their
    mirrors as closers), over lines when it spans them; None when it does not close within _MAX_USE_BYTES or a
    directive line (`#...`) comes first."""
    closers = bytes(b")>]}"[b"(<[{".index(c)] for c in brackets)
    depth, i, end = 0, open_paren, min(len(data), open_paren + _MAX_USE_BYTES)
    while i < end:
        c = data[i]
        if c in brackets:
            depth += 1
        elif c in closers:
            depth -= 1
            if depth == 0:
                return i
        elif c == 0x0A and data[i + 1:i + 64].lstrip(b" \t").startswith(b"#"):
            return None
        i += 1
    return None


def _blank_keeping_lines(out: bytearray, start: int, stop: int, text: bytes) -> None:
    """out[start:stop] becomes `text` followed by spaces, every newline of the span kept where it was (so lines
    stay); `text` must fit before the span's first newline."""
    out[start:stop] = bytes(c if c == 0x0A else 0x20 for c in out[start:stop])
    out[start:start + len(text)] = text


def _expand_qualifier_functions(data: bytes, out: bytearray, macros: dict[bytes, bytes], uses: dict[int, str]) -> None:
    """Rewrite `NAME(args)` uses of function-like qualifier macros (outside #define; over several lines too, their
    newlines kept) as `__global__` / `__device__` padded to the same length, or spaces when the body names neither
    (`__launch_bounds__(n)`)."""
    pattern = re.compile(rb"(?<![A-Za-z0-9_#])(" + b"|".join(re.escape(n) for n in sorted(macros, key=len, reverse=True))
                         + rb")[ \t]*\(")
    for m in pattern.finditer(data):
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if data[line_start:m.start()].lstrip().startswith(b"#"):
            continue  # the #define itself, or another directive
        i = _use_end(data, m.end() - 1)
        if i is None:
            continue
        first_line = data.find(b"\n", m.start(), i)
        if first_line < 0:
            span = i + 1 - m.start()
            out[m.start():i + 1] = _replacement(macros[m.group(1)], span)
        else:
            _blank_keeping_lines(out, m.start(), i + 1, _replacement(macros[m.group(1)], first_line - m.start()))
        uses[m.start()] = m.group(1).decode()


def parses_alike(data: bytes, macros: dict[str, str] | None) -> bool:
    """Whether `parse(path, "cuda", data, macros)` builds the same tree as `parse(path, "cuda", data)`: the
    repository's macros change no byte the parser sees (most files use none of them)."""
    if not macros or not any(name.removesuffix("()").removesuffix(QUALIFIER_FUNCTION).encode() in data
                             for name in macros if not name.endswith(SPELLING)):
        return True
    return neutralise_macros(data, {**LIBRARY_QUALIFIER_MACROS, **macros})[0] == \
        neutralise_macros(data, LIBRARY_QUALIFIER_MACROS)[0]


def _expand_kernel_declarators(data: bytes, out: bytearray, declarators: dict[bytes, tuple[int, bool]],
                               uses: dict[int, str]) -> None:
    """Rewrite `MACRO(name, args...)` uses (outside #define) as `void name()` of the same length; a use over several
    lines as `void name(` on its first line and its closing `)` where it was, every newline kept. A macro whose body
    ends with the name (`#define GPU_KERNEL(name) __global__ void name`, marked True) becomes `void name`: the use's
    own parameter list follows it."""
    pattern = re.compile(rb"(?<![A-Za-z0-9_#])(" + b"|".join(re.escape(n) for n in declarators) + rb")[ \t]*\(")
    for m in pattern.finditer(data):
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if data[line_start:m.start()].lstrip().startswith(b"#"):
            continue  # the #define itself, or another directive
        i = _use_end(data, m.end() - 1, b"(<[{")
        if i is None:
            continue
        args, depth, arg_start = [], 0, m.end()
        for k in range(m.end() - 1, i + 1):
            c = data[k]
            if c in b"(<[{":
                depth += 1
            elif c in b")>]}":
                depth -= 1
            elif c == 0x2C and depth == 1:
                args.append(data[arg_start:k].strip())
                arg_start = k + 1
        args.append(data[arg_start:i].strip())
        index, name_last = declarators[m.group(1)]
        if index >= len(args) or not re.fullmatch(rb"[A-Za-z_]\w*", args[index]):
            continue
        head = b"void " + args[index] + (b"" if name_last else b"(")
        first_line = data.find(b"\n", m.start(), i)
        if first_line < 0:
            repl = head + (b"" if name_last else b")")
            span = i + 1 - m.start()
            if len(repl) > span:
                continue
            out[m.start():i + 1] = repl.ljust(span)
        else:
            if len(head) > first_line - m.start():
                continue
            _blank_keeping_lines(out, m.start(), i + 1, head)
            if not name_last:
                out[i] = 0x29  # `)`
        uses[m.start()] = m.group(1).decode()


# Attributes tree-sitter-cuda cannot parse between a declaration's specifiers and its name; blanked (same length)
# in the parser's input only, so the kernel they decorate is still seen and offsets stay exact.
unparsed_attributes = lazy_regex(rb"\b(?:__cluster_dims__|__align__|__maxnreg__|__block_size__)\s*\([^()\n]*\)")


# Lines holding only numeric literals (embedded cubins, lookup tables): runs of them make hundreds of thousands of
# number nodes that slow every tree query and say nothing a rule reads, so the parser sees them blanked; `data`
# keeps every byte. Matched line by line: a single repeated pattern over a 3 MB table costs ~400 MB in `re`. On
# `re`, not RE2: RE2 finds cuda-samples' few candidates faster (0.9 vs 6 ms), but FasterTransformer's embedded
# cubins are hundreds of thousands of numeric lines, and each RE2 match costs several Python calls in its binding
# (the whole-tree scan took 2.2 CPU-s longer).
_NUMERIC_LINE_SOURCE = rb"[ \t]*(?:[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)[uUlLfF]*[ \t]*,[ \t]*)+\r?"
_NUMERIC_LINE = re.compile(rb"^" + _NUMERIC_LINE_SOURCE + rb"$", re.M)
_NUMERIC_RUN_MIN_LINES = 32
_NUMERIC_RUN_MIN_FILE = 16 * 1024


@functools.cache
def _numeric_run():
    """`search(buf)`: whether `buf` holds a run of _NUMERIC_RUN_MIN_LINES numeric lines (lines _NUMERIC_LINE matches
    whole, one directly after the other), on RE2 (Latin-1: byte for byte, as `re` reads bytes); None without RE2.

    One linear search per file before the line-by-line pass: `re` tries `^` at every byte of the file (0.19 CPU-s
    over FasterTransformer's 765 C++ files, three of which hold a run), this search 0.04, and it stops at the first
    run, so a file of embedded cubins costs one short search more."""
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a declared dependency
        return None
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    return re2.compile(rb"(?m)^(?:" + _NUMERIC_LINE_SOURCE + rb"\n){%d}" % (_NUMERIC_RUN_MIN_LINES - 1)
                       + _NUMERIC_LINE_SOURCE + rb"$", options).search


def blank_numeric_runs(buf: bytes) -> bytes:
    if len(buf) < _NUMERIC_RUN_MIN_FILE or buf.count(b",") < 256:
        return buf
    has_run = _numeric_run()
    if has_run is not None and has_run(buf) is None:
        return buf
    runs: list[tuple[int, int]] = []
    start = end = -1
    count = 0
    for m in _NUMERIC_LINE.finditer(buf):
        if m.start() == end + 1 and start >= 0:  # the next line directly follows the run
            end, count = m.end(), count + 1
            continue
        if count >= _NUMERIC_RUN_MIN_LINES:
            runs.append((start, end))
        start, end, count = m.start(), m.end(), 1
    if count >= _NUMERIC_RUN_MIN_LINES:
        runs.append((start, end))
    return blank(buf, runs) if runs else buf


# Qualifier macros of the CUDA C++ libraries device code is written with, as their public headers define them for
# nvcc: CUTLASS's include/cutlass/detail/helper_macros.hpp, CuTe's include/cute/config.hpp, PyTorch's
# c10/macros/Macros.h. They stand in when the library's headers are not in the scanned tree (a submodule left out
# of the checkout: xformers' `CUTLASS_DEVICE` helpers were host code to porter); a definition the repository has
# comes first.
LIBRARY_QUALIFIER_MACROS = {
    "CUTLASS_DEVICE": "__forceinline__ __device__",
    "CUTLASS_HOST_DEVICE": "__forceinline__ __device__ __host__",
    "CUTLASS_GLOBAL": "__global__ static",
    "CUTE_DEVICE": "__forceinline__ __device__",
    "CUTE_HOST_DEVICE": "__forceinline__ __host__ __device__",
    "C10_DEVICE": "__device__",
    "C10_HOST_DEVICE": "__host__ __device__",
}


# Every byte to a space except newlines, which keep line numbers exact (bytes.translate: C speed, no regex state).
_TO_BLANK = bytes(10 if b == 10 else 32 for b in range(256))


def blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    if not spans:
        return data
    out = bytearray(data)
    for s, e in spans:
        out[s:e] = data[s:e].translate(_TO_BLANK)
    return bytes(out)


_name_part = lazy_regex(r"\w")


def python_names_as_read(data: bytes) -> bytes:
    """A Python file's bytes with each identifier in the NFKC form CPython reads it in (the language reference,
    "Identifiers and keywords": `torch.\U0001d41cuda` is torch.cuda), each changed line padded with spaces at its end
    (before a continuation backslash) to its own byte length, so lines and the file's length stay its own. Strings
    and comments keep their characters (not code: CUDA source in a string is compiled by nvrtc, which does not
    normalise). A file Python's tokenizer cannot read, or one not in UTF-8, is left as it is."""
    if data.isascii():
        return data
    import io
    import tokenize
    import unicodedata

    # Python's tokenizer reads ~0.3 MB/s: run only when some character of the file reads as a letter, digit or
    # underscore in NFKC form (fullwidth and mathematical letters do; CJK text and fullwidth punctuation do not).
    text = data.decode("utf-8", "replace")
    if not any(c != unicodedata.normalize("NFKC", c) and _name_part().search(unicodedata.normalize("NFKC", c))
               for c in set(text) if ord(c) > 127):
        return data
    try:
        tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return data
    if not tokens or tokens[0].string not in ("utf-8", "utf-8-sig"):
        return data
    lines = data.split(b"\n")
    changed: dict[int, list[tuple[int, bytes, bytes]]] = {}
    for t in tokens:
        if t.type != tokenize.NAME or t.string.isascii() or t.start[0] > len(lines):
            continue
        name = unicodedata.normalize("NFKC", t.string)
        raw, new = t.string.encode("utf-8"), name.encode("utf-8")
        if name == t.string or not name.isidentifier() or len(new) > len(raw):
            continue
        row = t.start[0] - 1
        at = len(lines[row].decode("utf-8", "surrogateescape")[:t.start[1]].encode("utf-8", "surrogateescape"))
        if lines[row][at:at + len(raw)] == raw:  # else not where the tokenizer's columns say: left as written
            changed.setdefault(row, []).append((at, raw, new))
    for row, edits in changed.items():
        line, pad = lines[row], 0
        for at, raw, new in sorted(edits, reverse=True):
            line = line[:at] + new + line[at + len(raw):]
            pad += len(raw) - len(new)
        body = line.rstrip(b"\r")
        end = len(body) - 1 if body.endswith(b"\\") else len(body)
        lines[row] = line[:end] + b" " * pad + line[end:]
    return b"\n".join(lines) if changed else data


# `#define DEFINE_OP(T, Name, op) \ __global__ void k_##T##_##Name(...) { ... }`: a kernel whose whole definition
# is a macro body (one kernel per use, its name pasted together). Any #define, object- or function-like, with its
# continuation lines.
_any_define = lazy_regex(rb"^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(?:\([^()\n]*\))?((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
_global_word = lazy_regex(rb"(?<![A-Za-z0-9_])__global__(?![A-Za-z0-9_])")
_continuation = lazy_regex(rb"\\(?=[ \t]*\r?\n)")


def kernel_macro_bodies(data: bytes, uses: dict[int, str] | None = None, global_macros: set[str] = frozenset()) -> bytes:
    """`data` with each #define whose body defines a kernel (a `__global__`, or a recorded use of a kernel-making
    qualifier macro, and a balanced `{ }` body) read as the code it expands to: the `#define NAME(args)` head blanked
    to spaces, the line-continuation backslashes to spaces, each `##` paste to `__` (so `k_##T##_##Name` reads as
    one identifier) and a stringising `#` to a space. Same length, so offsets and lines stay. Without it the parser
    sees the body only as a directive's text and the kernel is not found at all; with it the kernel is found where
    it is written, once, as a reader of the source sees it (its name is the pasted text, see parse._cuda_function).
    Macros whose body has no braces (qualifier and declarator macros, expressions) are left as they are."""
    if b"define" not in data or (b"__global__" not in data and not uses):
        return data
    out = None
    for m in line_matches(_any_define(), data, (b"define",)):
        lo, hi = m.start(1), m.end(1)
        body = data[lo:hi]
        if b"{" not in body or body.count(b"{") != body.count(b"}"):
            continue
        if not _global_word().search(body) and not any(lo <= off < hi and name in global_macros
                                                       for off, name in (uses or {}).items()):
            continue
        if out is None:
            out = bytearray(data)
        out[m.start():lo] = b" " * (lo - m.start())
        for c in _continuation().finditer(data, lo, hi):
            out[c.start()] = 0x20
        i = data.find(b"#", lo, hi)
        while i >= 0:
            if data.startswith(b"##", i) and i + 1 < hi:
                out[i:i + 2] = b"__"
                i = data.find(b"#", i + 2, hi)
            else:
                out[i] = 0x20
                i = data.find(b"#", i + 1, hi)
    return data if out is None else bytes(out)
