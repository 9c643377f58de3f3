"""Read a C/C++/CUDA file's preprocessor directives once and answer every `#if` question porter asks of it.

The one place porter parses directives (tests/test_architecture.py keeps it so). `preprocess(data)` lexes a file's
directives once (continued lines joined, comments blanked: `#if 0 \\` continued onto the next line is one
directive) into a `Preprocessed`, which answers:
- `dead`: lines no compiler ever sees (`#if 0` bodies, the `#else` of `#if 1`), whatever any macro is;
- `regions(rocm_names, cuda_names)`: every line as compiled by the CUDA build, by the ROCm build, by both or
  undecided (three-valued), with the guard that decided it;
- `device_only(line)`: whether a line sits in an arm only nvcc's device pass compiles (`#if __CUDA_ARCH__`);
- `groups`: each `#if` group with its arms and their body lines (fallbacks, old-toolkit branches, vanishing arms);
- `defines`, `quoted_includes`: the file's `#define`s and project includes.

Builds: each `#if/#ifdef/#ifndef/#elif/#else` arm is evaluated with three-valued logic (true, false, unknown) once
with the macros a CUDA build defines and once with those a ROCm build defines. Only ROCm-side names are known: a CUDA
build leaves them undefined and a ROCm build defines them; every other name (`__CUDA_ARCH__`, `CUDA_VERSION`, include
guards, feature flags) is unknown in both builds, so a repository without ROCm code never has a line decided by a
vendor (`#if CUDA_VERSION >= 12000` is not a ROCm guard). ROCm-side names are the built-in ones (`USE_ROCM`,
`__HIP_PLATFORM_AMD__`, `__HIPCC__`, `__gfx942__`, …), names the caller adds (configuration's `rocm_macros`,
names a ROCm-only arm `#define`s: `derived_names`), and by heuristic any name with a HIP, ROCM or AMD component
(`GGML_USE_HIP`, `BNB_HIP`, `TORCH_HIP_VERSION`).
"""
from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from porter.lazyre import lazy_regex
from porter.source.parse_input import SPELLING  # spelling macros' key suffix in the repository facts' macros

# Three-valued truth: True, False, None (unknown).
Tri = bool | None

CUDA, ROCM = "cuda", "rocm"
DEFINED = "defined"  # a macro's value when it is defined but its value is unknown

# Defined by every ROCm (HIP-clang) build and never by nvcc. Values are unknown (None) except where fixed.
BUILTIN_ROCM = frozenset({
    "USE_ROCM", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__", "HIP_VERSION",
    "HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "HIP_VERSION_PATCH", "ROCM_VERSION", "TORCH_HIP_VERSION",
    "__HIP_DEVICE_COMPILE__", "__AMDGCN__", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__",
    "HIP_PLATFORM_AMD", "__HIP_ROCclr__", "USE_HIP",
})
# Defined only by nvcc (hip-clang never defines it; clang's own CUDA mode does not either): false for ROCm, unknown
# for CUDA. https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/index.html#nvcc-identification-macro
# HIP's own platform macros for HIP compiled for NVIDIA GPUs (hipcc over nvcc): `__HIP_PLATFORM_NVIDIA__`, and
# `__HIP_PLATFORM_NVCC__`, its name before ROCm 6.0 (https://github.com/ROCm/hipBLASLt/pull/369). A ROCm build never
# defines them, so they are read as nvcc's own macro is; their HIP word does not make them ROCm names.
NVCC_ONLY = frozenset({"__NVCC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})
# Defined only by an editor's code-model pass, never by a compiler ("Defined as 1 during an IntelliSense compiler
# pass in the Visual Studio IDE": https://learn.microsoft.com/en-us/cpp/preprocessor/predefined-macros): undefined in
# every build, so `#if __INTELLISENSE__` is dead code (nunchaku's `__trap(); // should not happen when actually
# compiling`) and its `#else` is what every compiler sees.
EDITOR_ONLY = frozenset({"__INTELLISENSE__"})
# HIP's own compiler and platform macros (hip-clang defines __HIP__, __HIPCC__ and __HIP_DEVICE_COMPILE__; the HIP
# headers __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__). A file that tests one of them is written to be compiled by
# hip-clang as it stands, not hipified first, and there `__CUDACC__` is nvcc's (and clang-CUDA's) alone: hip-clang
# never defines it (clang -x hip --offload-arch=gfx942 -E -dM lists __HIP__ and no __CUDACC__; HIP's porting guide
# tells such code to test __HIPCC__ or __HIP__ instead:
# https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#compiler-defines-summary). SeisSol's
# `#if defined(__CUDACC__) || defined(__HIP_PLATFORM_NVIDIA__) && defined(__HIP__)` arm beside its
# `__HIP_PLATFORM_AMD__ && __HIP__` one is therefore the NVIDIA build's. In a file that tests none of them,
# hipify's rename of `__CUDACC__` to `__HIPCC__` (HIPIFY_DEFINED) may make the ROCm build take the arm: unknown.
HIP_COMPILER_MACROS = frozenset({"__HIP__", "__HIPCC__", "__HIP_DEVICE_COMPILE__", "__HIP_PLATFORM_AMD__",
                                 "__HIP_PLATFORM_HCC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})
NVCC_ONLY_IN_HIP_CODE = frozenset({"__CUDACC__"})
# tree-sitter's node types for the arms of a conditional group (`#if`, `#ifdef`, `#elif`, `#else`): a statement in a
# function body that an arm holds is that node's child, not the block's (porter.kernels.facts_detectors quotes it).
CONDITIONAL_NODE_TYPES = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef", "preproc_else"})
# Defined only in the device pass (or only for some targets) of a ROCm build: false for CUDA, unknown for ROCm.
ROCM_SOMETIMES = re.compile(r"^(?:__gfx[0-9a-z]+__|__HIP_DEVICE_COMPILE__|__AMDGCN_WAVEFRONT_SIZE(?:__)?|__HIP_NO_\w+)$")


# Compiled when first used (porter.lazyre): most scans never read a vendor macro name or an #if expression.

# A name component that says "ROCm side": USE_HIP, BNB_HIP, GGML_HIP_NO_MMQ, __HIP_PLATFORM_AMD__, IS_ROCM, AMD_GPU.
_vendor_part = lazy_regex(r"^(?:HIP|ROCM|ROCm|AMD|AMDGPU|AMDGCN|HIPCC|HCC)$", re.I)


# Components that make a HIP/ROCm-named macro not a platform switch: HIPBLAS_V2 is a library option, HIP_KERNEL a name.
_not_switch = lazy_regex(r"^(?:NVIDIA|NV|CUDA)$")
# A negation right before the vendor component (NO_HIP, DISABLE_ROCM, WITHOUT_HIP) or ending the name after it
# (HIP_DISABLED, ROCM_OFF): defined when HIP is OFF, so reading it as "this is the ROCm build" would hand the ROCm
# build's arm to CUDA code (`#ifndef NO_HIP` around inline PTX). GGML_HIP_NO_MMQ negates MMQ, not HIP: a switch.
_negation = lazy_regex(r"^(?:NO|NOT|NON|DISABLE|DISABLED|DISABLES|WITHOUT|SKIP|OFF)$", re.I)


# Asked for every macro name of every #if and definition (33k times in a FasterTransformer scan, a few hundred
# distinct names): remembered per name.
@functools.lru_cache(maxsize=8192)
def is_rocm_name(name: str) -> bool:
    """The heuristic: a macro whose name has a HIP/ROCM/AMD component stands for "this is the ROCm build"."""
    if name in BUILTIN_ROCM or ROCM_SOMETIMES.match(name):
        return True
    if name in NVCC_ONLY:
        return False
    parts = [p for p in name.split("_") if p]
    if any(_vendor_part().match(p) and ((i > 0 and _negation().match(parts[i - 1]))
                                        or (i == len(parts) - 2 and _negation().match(parts[-1])))
           for i, p in enumerate(parts)):
        return False
    return any(_vendor_part().match(p) for p in parts) and not any(_not_switch().match(p) for p in parts)


@dataclass(frozen=True)
class Directive:
    """One conditional or #define directive: its 1-based line (the first, when continued), kind and text."""

    line: int
    end_line: int
    kind: str  # if ifdef ifndef elif elifdef elifndef else endif define undef include
    text: str  # the rest of the directive, comments removed, continuations joined


@dataclass(frozen=True)
class Region:
    """Lines [start, end] (1-based, inclusive) and whether each build compiles them; `guard` is the line of the
    `#if` (or `#elif`) whose vendor test decided it, 0 when no vendor test did."""

    start: int
    end: int
    cuda: Tri
    rocm: Tri
    guard: int = 0

    @property
    def side(self) -> str:
        """"cuda" (only the CUDA build compiles it), "rocm" (only the ROCm build), "both" or "none"."""
        return side(self.cuda, self.rocm)


def side(cuda: Tri, rocm: Tri) -> str:
    if cuda is False and rocm is False:
        return "none"
    if rocm is False:
        return CUDA
    if cuda is False:
        return ROCM
    return "both"


# An unterminated comment runs to the end of the file (as in C): matched once, not tried again at every later
# `/*` (which made `'/* ' * 20000` quadratic). So does an unterminated raw string. A C++11 raw string literal
# (`R"delim( ... )delim"`, maybe u8/u/U/L-prefixed, a delimiter of up to 16 characters) is lexed first: what it
# holds is neither a comment opener nor a directive (a `/*` or a line `#if 0` in one made porter read a live
# kernel after it as dead code). A line comment runs on over a line splice (`// note \` swallows the next line's
# `#if 0`, blanks after the backslash too: gcc, clang and nvcc take those as a splice, with a warning).
_RAW_STRING = rb'(?<![A-Za-z0-9_])(?:u8|[uUL])?R"(?P<delim>[^()\\ \t\v\f\r\n"]{0,16})\(.*?(?:\)(?P=delim)"|\Z)'
# Each alternative written as runs of one byte class between its special bytes ("unrolled"): `re` reads a run of a
# class in one C loop, where `(?:\\.|[^"\\\n])*` tried an alternation at every byte (the same matches, half the
# time: 0.10 -> 0.06 CPU-s per pass over FasterTransformer's C++ files; tests/test_preprocessor.py holds it to the
# plain form `//(?:\\[ \t\f\v]*\r?\n|[^\n])*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'` on every short text).
_LINE_COMMENT = rb'//[^\n\\]*(?:\\(?:[ \t\f\v]*\r?\n)?[^\n\\]*)*'
_BLOCK_COMMENT = rb'/\*(?:[^*]*\*+(?:[^/*][^*]*\*+)*/|.*)'
# A string's body up to its closing quote (not included): every byte but the quote, a backslash or a newline, and
# any byte after a backslash (so a splice continues the string).
_DQ_BODY = rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*'
_SQ_BODY = rb"'[^'\\\n]*(?:\\.[^'\\\n]*)*"
_COMMENT_OR_STRING = _LINE_COMMENT + b"|" + _BLOCK_COMMENT + b"|" + _DQ_BODY + b'"|' + _SQ_BODY + b"'"
# What the lexer finds is what `re.compile(_RAW_STRING + b"|" + _COMMENT_OR_STRING, re.S).finditer` finds (its
# comments and raw strings), tests/test_preprocessor.py holds it to that. A file with no `R"` is lexed without the
# raw-string alternative (no raw string can match, so the matches are the same): every alternative then starts
# with a literal byte, so the regex engine skips to the next `/`, `"` or `'` at C speed instead of trying the raw
# string's lookbehind at every byte (4-5x faster; 0.5 CPU-s of FasterTransformer's cold scan, per pass).


@functools.cache
def _lexer(raw: bool, dq: bool, sq: bool) -> re.Pattern[bytes]:
    """What blank_comments searches with: the raw-string alternative if `raw`, the comments, and double- (`dq`) or
    single-quoted (`sq`) strings whose closing quote is optional. `m.lastindex` tells a match's kind in one look:
    group `c` (empty, after them) for a comment or raw string, None for a string that closes, more for a string that
    never closes.

    A string that never closes on its line is not a string (the old lexer, a finditer of `_RAW_STRING |
    _COMMENT_OR_STRING`, then went on at the next byte). Matching it to where it fails instead, and knowing that
    every same-quote string opened inside that span fails at the same place (see _spans_after_unclosed), keeps
    the lexer linear: `"\\"\\"\\"...` on one 100 KB line made the old lexer try a string at each of its 50,000
    quotes, each to the line's end (46 CPU-s).
    """
    comments = ([_RAW_STRING] if raw else []) + [_LINE_COMMENT, _BLOCK_COMMENT]
    # The mark after the comments, not a group around them: a pattern that opens with a group is not scanned for
    # its first bytes at C speed (3x slower on FasterTransformer's files).
    parts = [b"(?:" + b"|".join(comments) + b")(?P<c>)"]
    if dq:
        parts.append(_DQ_BODY + b'(?:"|())')
    if sq:
        parts.append(_SQ_BODY + b"(?:'|())")
    return re.compile(b"|".join(parts), re.S)


# Blanks around the `#` are a preprocessor's horizontal white space: a vertical tab and a form feed too (`#\vendif`).
_DIRECTIVE = re.compile(rb"^[ \t\f\v]*#[ \t\f\v]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|define|undef|include)\b(.*)$")
# The same, matched at a line start inside a whole file (`$`: before the line's newline; a `\r` is stripped after).
_DIRECTIVE_LINE = re.compile(_DIRECTIVE.pattern, re.M)


# A `%:` that starts a line (after blanks): the digraph of `#` read as `#` at the same length.
_DIGRAPH_HASH = re.compile(rb"^([ \t\f\v]*)%:", re.M)
# A directive's line continued on the next: a backslash at its end, maybe followed by blanks (as in _SPLICE).
_CONTINUED = re.compile(rb"\\[ \t\f\v]*$")
# Every byte but a newline to a space: a comment blanked in one C-speed call instead of a loop per byte.
_TO_SPACE = bytes(0x0A if b == 0x0A else 0x20 for b in range(256))


def comment_spans(data: bytes) -> array[int] | None:
    """The spans of `data`'s comments and raw strings (what blank_comments blanks) as one flat array (start, end,
    start, end, ...), to hand to another process; kept as the known spans of `data` (see known_comment_spans) for
    this process's next lex of it. None (nothing handed on) when they number more than one per MAX_SPAN_DENSITY
    bytes: a file of nothing but `//` lines must not make the receiving process hold several times its size."""
    spans = tuple(_comment_spans(data))
    _KNOWN_SPANS[:] = [data, spans]
    if len(spans) > len(data) // MAX_SPAN_DENSITY:
        return None
    return array("q", itertools.chain.from_iterable(spans))


# Bytes of a file per comment span it may have for comment_spans to hand them on (8 bytes a span's two offsets: at
# most half the file's size). cuda-samples' files average one comment per ~285 bytes.
MAX_SPAN_DENSITY = 16


def lexed_comment_spans(data: bytes) -> tuple[tuple[int, int], ...]:
    """The spans of `data`'s comments and raw strings (what blank_comments blanks), from the known spans when this
    process has them for `data` (known_comment_spans, or the last lex of it), else lexed now."""
    return _KNOWN_SPANS[1] if _KNOWN_SPANS[0] is data else tuple(_comment_spans(data))


def known_comment_spans(data: bytes, flat: Sequence[int]) -> None:
    """Say that `flat` is comment_spans(data), worked out elsewhere: the repository-facts worker lexes each C/C++
    file's comments for its directives, and the scan's parse of the same bytes then blanks them from its answer
    instead of lexing them again (one of a file's two comment passes; ~0.13 CPU-s of FasterTransformer)."""
    it = iter(flat)
    _KNOWN_SPANS[:] = [data, tuple(zip(it, it))]


# The one text whose comment spans are known (by identity: asked per lex, it must cost no pass over the text).
_KNOWN_SPANS: list = [None, ()]


def blank_comments(data: bytes) -> bytes:
    """The file's text with comments and raw strings blanked to spaces, newlines kept, so lines stay where they are
    (what its directives are lexed from: a raw string's lines hold no directive); other strings are skipped, not
    searched (they end on their line)."""
    return _blanked(data)[0]


def _blanked(data: bytes) -> tuple[bytes, tuple[int, ...]]:
    """blank_comments(data), and the start and end offsets (flat: start, end, start, end, ...) of the block comments
    that hold a newline: a compiler replaces a comment by one space before it reads directives (translation phase 3
    before 4), so a directive whose line ends inside one goes on after it (`#if 0 /*` newline `*/ || 1` is
    `#if 0 || 1`); _lex joins those lines, which the blanked text alone no longer shows."""
    out = None
    joins: list[int] = []
    for start, end in (_KNOWN_SPANS[1] if _KNOWN_SPANS[0] is data else _comment_spans(data)):
        if out is None:
            out = bytearray(data)
        out[start:end] = data[start:end].translate(_TO_SPACE)
        if data.startswith(b"/*", start) and data.find(b"\n", start, end) >= 0:
            joins += (start, end)
    code = data if out is None else bytes(out)
    if b"%:" in code:  # `%:` is the digraph of `#` (C++ [lex.digraph]): `%:endif` closes an `#if 0` for a compiler
        code = _DIGRAPH_HASH.sub(rb"\1 #", code)
    return code, tuple(joins)


def _comment_spans(data: bytes) -> Iterable[tuple[int, int]]:
    """The spans of `data`'s comments and raw strings, as `_RAW_STRING | _COMMENT_OR_STRING` finds them, in time
    linear in `data` (what blank_comments blanks)."""
    raw = b'R"' in data
    lexer = _lexer(raw, True, True)
    for m in lexer.finditer(data):
        kind = m.lastindex
        if kind == lexer.groupindex["c"]:
            yield m.span()
        elif kind is not None:
            yield from _spans_after_unclosed(data, raw, m.start(), m.end())
            return


def _spans_after_unclosed(data: bytes, raw: bool, start: int, fail: int) -> Iterable[tuple[int, int]]:
    """_comment_spans from a string opened at `start` that runs to `fail` without closing.

    Every same-quote byte strictly inside (start, fail) is one that string read after a backslash (an unescaped one
    would have closed it), and a string opened there reads the same bytes from the next one on as the outer string
    did, so it too runs to `fail` without closing: the lexer searches that span without that quote's alternative
    (`dead` says up to where each quote opens nothing) instead of trying each (the old lexer's quadratic case). A
    string of the other quote opened inside ends there too, or closes before. A match the search's end cut short
    (`endpos`: where a quote comes alive again) is matched again at its start with no end, so a comment or raw
    string that runs on past it is whole. No opener is cut by that end: a string fails at a newline (or at the
    file's end, or before a backslash that is its last byte), and no comment or raw-string opener holds one."""
    size = len(data)
    dead = {data[start]: fail}
    pos = start + 1
    while pos < size:
        dq, sq = dead.get(0x22, 0) <= pos, dead.get(0x27, 0) <= pos
        endpos = min((f for f in dead.values() if f > pos), default=size)
        rx = _lexer(raw, dq, sq)
        m = rx.search(data, pos, endpos)
        if m is None:
            pos = endpos
            continue
        if m.end() == endpos < size:
            m = rx.match(data, m.start())
        start, end = m.span()
        if m.lastindex == rx.groupindex["c"]:  # a comment or a raw string
            yield start, end
            pos = end
        elif m.lastindex is not None:  # a string that never closes
            dead[data[start]] = max(dead.get(data[start], 0), end)
            pos = start + 1
        else:
            pos = end


def may_hold_directives(data: bytes) -> bool:
    """Whether `data` can hold a directive at all (a `#`, or its digraph `%:`): a cheap test before lexing."""
    return b"#" in data or b"%:" in data


# A line splice (translation phase 2): a backslash at a line's end, maybe followed by blanks (gcc, clang and nvcc
# accept those, with a warning), joins the line to the next before any token is formed.
_SPLICE = re.compile(rb"\\[ \t\f\v]*\r?\n")
# A carriage return that is not the first half of a CR LF: a line end to gcc, clang and nvcc (line numbers count it).
_LONE_CR = re.compile(rb"\r(?!\n)")
# A run of non-blank bytes split by splices, from its start: the lookbehind fails at once inside a run, so each run is
# read once (linear), and a run with no splice in it costs no Python.
_SPLIT_RUN = re.compile(rb"(?<![^ \t\n\r\f\v\\])[^ \t\n\r\f\v\\]+(?:\\[ \t\f\v]*\r?\n[^ \t\n\r\f\v\\]+)+")


# The bytes that end a run for _SPLIT_RUN (blanks, line ends, a backslash).
_RUN_STOP = frozenset(b" \t\n\r\f\v\\")


def _splits_a_run(data: bytes) -> bool:
    """Whether _SPLIT_RUN matches anywhere in `data`: some splice has a run byte right before its backslash and right
    after its newline. The same answer as searching with _SPLIT_RUN, whose lookbehind is tried at every byte of the
    file (0.3 CPU-s on FasterTransformer, twice per file), while _SPLICE starts with a literal backslash and finds
    the few splices a file has at C speed."""
    n = len(data)
    for m in _SPLICE.finditer(data):
        start, end = m.start(), m.end()
        if start > 0 and end < n and data[start - 1] not in _RUN_STOP and data[end] not in _RUN_STOP:
            return True
    return False


def _splices_last(m: re.Match[bytes]) -> bytes:
    run = m.group()
    return _SPLICE.sub(b"", run) + b"".join(_SPLICE.findall(run))


def lone_cr_as_lf(data: bytes) -> bytes:
    """`data` with each carriage return that does not begin a CR LF read as the line end it is to gcc, clang, nvcc
    and CPython (universal newlines), at the same length."""
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


def as_compiled(data: bytes) -> bytes:
    """A C/C++/CUDA file's bytes as a compiler tokenises them, at the same length and with every token starting on
    its own physical line, so every offset porter reports stays the file's own: NUL bytes read as spaces (nvcc, gcc
    and clang ignore them), a lone carriage return read as the line end it is to them (a file with CR-only line ends
    was one line to porter, and a comment to its end when it began with `//`), and splices that split a token (`__shfl_\\` newline `down_sync`, `k<<\\` newline `<`)
    moved to the end of the token's run, where they still continue the line. Phase 2 removes every splice wherever it
    is, so a compiler reads the result exactly as the file; porter's tokenizer and tree-sitter, which end a token at
    a physical line's end, now read the token the compiler reads. A pull request could otherwise hide a kernel from
    the gate behind one NUL or one split identifier. Uses of the file's own macros that spell a CUDA name are read
    as that name (pasted_names; with_known_spellings adds other files' macros)."""
    if b"\0" in data:
        data = data.replace(b"\0", b" ")
    data = lone_cr_as_lf(data)
    if b"\\" in data and _splits_a_run(data):
        data = _SPLIT_RUN.sub(_splices_last, data)
    return pasted_names(data)


# Token pasting that builds a CUDA-only name from plain identifiers (`#define CAT(a,b) a##b`, `#define W(x) CAT(__,x)`,
# then `W(shfl_xor_sync)(...)`, `CAT(a,sm) volatile(...)`, `#define WARP_DOWN __shfl_down##_sync`), and an object-like
# alias of inline assembly (`#define PTX_ASM asm volatile`): no CUDA name is written at the use, so no rule saw one. A
# use of a macro whose whole body is such a paste (directly or through one more paste macro), with identifier
# arguments (over lines too), or of an asm alias, is read as the name it spells - written over the use, padded with
# spaces, the use's line ends moved after it (same length, same lines) - when that name starts like CUDA's (`__`,
# `cuda`, `cu`, `warp`) or is `asm`. A name longer than its use (`WARP_DOWN` for `__shfl_down_sync`) takes the room
# from blanks of the use's line that separate no tokens (_squeezed_line: only that line's columns move). The file's
# own macros, and those of every other file of the repository (spelling_macros, through the repository facts: the
# utility header that defines CAT is the common layout).
_DEFINE = re.compile(rb"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)\n]*)\))?[ \t]*((?:[^\n\\]|\\.)*)")
_PASTE_OPERANDS = re.compile(rb"^\s*(\w+)(?:\s*##\s*\w+)+\s*$")
_PASTE_USE = re.compile(rb"^\s*([A-Za-z_]\w*)\s*\(([^()\n]*)\)\s*$")
_ASM_ALIAS = re.compile(rb"^\s*(?:asm|__asm__|__asm)(?:\s+(?:volatile|__volatile__))?\s*$")
_CUDA_START = (b"__", b"cuda", b"cu", b"warp")
# `cuda`/`cu` only where the use wrote it (`CAT(cuda, Free)`): a vendor-prefix macro whose body holds it
# (`#define GPU_PREFIX(x) cuda##x`, with a ROCm twin `hip##x`) is how dual code spells runtime names, and API012
# judges those pastes by the macro's use, which a rewrite would hide.
_VENDOR_START = (b"cuda", b"cu")
_IDENT = re.compile(rb"[A-Za-z_]\w*|")
MAX_PASTE_MACROS = 256
# The longest argument list of a paste macro's use read (over lines too): identifiers and commas, a few words.
MAX_PASTE_USE_BYTES = 256

Template = tuple[tuple[bytes, ...], tuple[tuple[bool, bytes], ...]]


def _file_defines(data: bytes) -> list[tuple[int, int, tuple[bytes, ...], bytes, bytes, int]]:
    defines = []
    for m in _DEFINE.finditer(data):
        params = tuple(p.strip() for p in m.group(3).split(b",")) if m.group(2) else ()
        defines.append((m.start(), m.end(), params, m.group(1), m.group(4), m.end(1)))
        if len(defines) > MAX_PASTE_MACROS * 16:
            break
    return defines


def _templates(defines: Iterable[tuple[int, int, tuple[bytes, ...], bytes, bytes, int]],
               templates: dict[bytes, Template]) -> dict[bytes, Template]:
    """`templates` with the paste macros and asm aliases among `defines` added (a name already there is kept)."""
    defines = list(defines)
    for _ in range(3):  # a paste macro, one through it, one through that
        for _, _, params, name, body, _ in defines:
            if name in templates or len(templates) >= MAX_PASTE_MACROS:
                continue
            if _PASTE_OPERANDS.match(body):
                ops = [o.strip() for o in body.split(b"##")]
                templates[name] = (params, tuple((o in params, o) for o in ops))
            elif not params and _ASM_ALIAS.match(body):
                templates[name] = ((), ((False, b"asm"),))
            elif (u := _PASTE_USE.match(body)) is not None and u.group(1) in templates:
                inner_params, inner = templates[u.group(1)]
                args = [a.strip() for a in u.group(2).split(b",")]
                if len(args) != len(inner_params) or not all(_IDENT.fullmatch(a) for a in args):
                    continue
                bound = dict(zip(inner_params, args))
                templates[name] = (params, tuple(
                    (bound[o] in params, bound[o]) if is_param else (False, o) for is_param, o in inner))
    return templates


def _may_spell(data: bytes) -> bool:
    return b"##" in data or b"asm" in data


def spelling_macros(data: bytes) -> dict[str, str]:
    """The file's macros that spell a CUDA name at their uses (paste macros, asm aliases; see above), for the
    repository facts: {NAME + SPELLING: "(params) body"} with the body resolved through the file's other paste
    macros, as a `#define` of the name would read."""
    if not _may_spell(data) or b"define" not in data:
        return {}
    out = {}
    for name, (params, ops) in _templates(_file_defines(data), {}).items():
        head = b"(" + b", ".join(params) + b")" if params else b""
        out[(name + SPELLING.encode()).decode("latin-1")] = (head + b" " + b"##".join(o for _, o in ops)).decode("latin-1")
    return out


# Up to this many spelling macros in the repository, each is searched for in a file; past it, the file's words are
# looked up instead (linear in the file, whatever the repository defines).
_FEW_KNOWN = 64
_WORD = re.compile(rb"[A-Za-z_]\w*")


def _known_defines(data: bytes, known: Mapping[str, str] | None) -> list[tuple[int, int, tuple[bytes, ...], bytes, bytes, int]]:
    """The spelling macros of other files (spelling_macros' entries in `known`) whose names `data` holds, as
    _file_defines gives a file's own (at no position of this file)."""
    if not known:
        return []
    keys = [k for k in known if k.endswith(SPELLING)]
    if len(keys) <= _FEW_KNOWN:
        names = sorted(n for k in keys if (n := k[:-len(SPELLING)].encode("latin-1")) in data)
    else:  # the file's words looked up, not every macro of the repository searched for in the file
        names = sorted(n for n in set(_WORD.findall(data)) if n.decode("latin-1") + SPELLING in known)
    out = []
    for name in names:
        value = known[name.decode("latin-1") + SPELLING]
        m = _DEFINE.match(b"#define " + name + value.encode("latin-1"))
        if m is not None and m.group(1) == name:
            params = tuple(p.strip() for p in m.group(3).split(b",")) if m.group(2) else ()
            out.append((-1, -1, params, name, m.group(4), -1))
            if len(out) >= MAX_PASTE_MACROS:
                break
    return out


def spellings_of(macros: Mapping[str, str]) -> dict[str, str]:
    """The spelling macros (spelling_macros' entries) among the repository facts' macros."""
    return {k: v for k, v in macros.items() if k.endswith(SPELLING)}


def with_known_spellings(data: bytes, known: Mapping[str, str]) -> bytes:
    """as_compiled's bytes with the uses of spelling macros other files define (`known`: spellings_of the repository
    facts' macros) read as the names they spell too; `data` itself when it uses none."""
    if not known or not _known_defines(data, known):
        return data
    return pasted_names(data, known)


def pasted_names(data: bytes, known: Mapping[str, str] | None = None) -> bytes:
    """`data` with each use of a macro that spells a CUDA-looking name read as that name (see above); `known`: the
    repository facts' macros, whose spelling macros other files define count too (the file's own come first)."""
    defines = _file_defines(data) if _may_spell(data) else []
    templates = _templates(defines, {})
    templates = _templates(_known_defines(data, known), templates)
    if not templates:
        return data
    names = b"|".join(re.escape(n) for n in sorted(templates, key=len, reverse=True))
    use = re.compile(rb"\b(" + names + rb")\b(?:[ \t]*\(([^()]{0,%d})\))?" % MAX_PASTE_USE_BYTES)
    out = bytearray(data)
    starts = [d[0] for d in defines]
    unfit: list[tuple[int, int, bytes]] = []
    for m in use.finditer(data):
        params, ops = templates[m.group(1)]
        end = m.end() if params else m.end(1)  # an object-like macro is its name; what follows stays
        if params and m.group(2) is None:
            continue
        args = [a.strip() for a in m.group(2).split(b",")] if params else []
        if len(args) != len(params) or not all(_IDENT.fullmatch(a) for a in args):
            continue
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and defines[i][0] <= m.start() < defines[i][1] and (
                m.start() < defines[i][5] or any(a in defines[i][2] for a in args)):
            continue  # the macro's own name being defined, or a use that pastes the enclosing macro's parameters
        bound = dict(zip(params, args))
        pasted = b"".join(bound[o] if is_param else o for is_param, o in ops)
        if pasted.startswith(_VENDOR_START) and not ops[0][0]:
            continue
        if not ((pasted.startswith(_CUDA_START) or pasted == b"asm") and _IDENT.fullmatch(pasted)):
            continue
        lines = data.count(b"\n", m.start(), end)
        room = end - m.start() - lines
        if len(pasted) <= room:
            # the use's line ends after the name: every line after the use starts where it did
            out[m.start():end] = pasted + b" " * (room - len(pasted)) + b"\n" * lines
        elif not lines:
            unfit.append((m.start(), end, pasted))
    if unfit:
        _squeezed_uses(out, unfit)
    return bytes(out)


def _squeezed_uses(out: bytearray, unfit: list[tuple[int, int, bytes]]) -> None:
    """Write each (start, end, name) whose name is longer than its use over it, each line's uses together, taking the
    room from blanks of the line that separate no tokens (_squeezed); a line that cannot make the room, and a
    directive line, is left."""
    by_line: dict[int, list[tuple[int, int, bytes]]] = {}
    for start, end, name in unfit:
        by_line.setdefault(out.rfind(b"\n", 0, start) + 1, []).append((start, end, name))
    for line_start, uses in by_line.items():
        line_end = out.find(b"\n", line_start)
        line_end = len(out) if line_end < 0 else line_end
        if out[line_start:line_end].lstrip(b" \t").startswith((b"#", b"%:")):
            continue  # a directive's blanks are its meaning (`#define X (a)` is not `#define X(a)`)
        pieces, pos = [], line_start
        for start, end, name in sorted(uses):
            pieces += [bytes(out[pos:start]), name]
            pos = end
        pieces.append(bytes(out[pos:line_end]))
        line = _squeezed(b"".join(pieces), line_end - line_start)
        if line is not None:
            out[line_start:line_end] = line.ljust(line_end - line_start)


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_OPERATOR_BYTES = frozenset(b"+-*/%<>=&|!^:.#")


def _squeezed(line: bytes, width: int) -> bytes | None:
    """`line` at most `width` bytes long by dropping blanks that separate no tokens (not between two word bytes, nor
    two operator bytes that would join: `a - -b`), left to right, before the line's first string, character literal
    or comment (whose bytes are never touched); None when that is not enough."""
    excess = len(line) - width
    if excess <= 0:
        return line
    out = bytearray()
    i, n = 0, len(line)
    while i < n and excess > 0:
        c = line[i]
        if c in b"\"'" or line[i:i + 2] in (b"//", b"/*"):
            break
        if c in b" \t":
            j = i
            while j < n and line[j] in b" \t":
                j += 1
            before = out[-1] if out else None
            after = line[j] if j < n else None
            keep = 1 if before is not None and after is not None and (
                (before in _WORD_BYTES and after in _WORD_BYTES)
                or (before in _OPERATOR_BYTES and after in _OPERATOR_BYTES)) else 0
            drop = min(excess, (j - i) - keep)
            out += line[i:j][:(j - i) - drop]
            excess -= drop
            i = j
            continue
        out.append(c)
        i += 1
    if excess > 0:
        return None
    return bytes(out) + line[i:]


def directives(data: bytes) -> list[Directive]:
    """The file's conditional, #define and #include directives in order (cheap: only lines starting with `#`).
    Callers that hold a parsed file ask `preprocessed(sf)` instead, which lexes it once."""
    if not may_hold_directives(data):
        return []
    # The file preprocessed last (its parse's pass for braces, one_arm_for_braces) is most often the one asked about
    # next (the kernels' constant folding asks each kernel file's directives): its lex answers, with no second pass
    # over its comments (170 of a cuda-samples scan's 585 lexes). The same list: _preprocess keeps _lex's tuple.
    last = _LAST[0]
    if last is not None and (last is data or last == data):
        return list(_LAST[2].directives)
    return _directives(data)


def _directives(data: bytes) -> list[Directive]:
    return _lex(*_blanked(data))


def _lex(code: bytes, joins: Sequence[int] = ()) -> list[Directive]:
    """The directives of a file whose comments are blanked; `joins` (see _blanked) the spans of its block comments
    that hold a newline: a directive's line that ends inside one goes on to the next line, as one a backslash ends."""
    out: list[Directive] = []
    n = len(code)
    line, counted, continued = 0, 0, -1  # `line`: 0-based number of the line starting at `counted`
    at = code.find(b"#")
    while at >= 0:  # only lines holding a `#` are tried (found with bytes.find, not a loop over every line)
        start = code.rfind(b"\n", 0, at) + 1
        end = code.find(b"\n", at)
        m = _DIRECTIVE_LINE.match(code, start)
        if m is not None:
            line += code.count(b"\n", counted, start)
            counted = start
            if line > continued:  # not a continuation line of the directive before
                parts = [m.group(2).rstrip(b"\r")]
                last, pos = line, m.end()
                # Continuation lines joined once at the end (adding each to the body so far was quadratic in them).
                while pos < n and ((cont := _CONTINUED.search(parts[-1])) is not None
                                   or (joins and bisect.bisect(joins, pos) % 2 == 1)):  # newline inside a comment
                    nxt = code.find(b"\n", pos + 1)
                    if cont is not None:
                        parts[-1] = parts[-1][:cont.start()]
                    parts.append(code[pos + 1: nxt if nxt >= 0 else n].rstrip(b"\r"))
                    last, pos = last + 1, (nxt if nxt >= 0 else n)
                continued = last
                body = b" ".join(parts)
                out.append(Directive(line + 1, last + 1, m.group(1).decode(), body.decode("utf-8", "replace").strip()))
                if last > line:  # the next directive starts after the continuation lines: no `#` in them is tried
                    end = pos
        at = code.find(b"#", end) if end >= 0 else -1
    return out


# ------------------------------------------------------------------------------------------ #if expressions

_token = lazy_regex(r"\s*(?:(\d[\w.']*)|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^?:(),]))")


def _tokens(text: str) -> list[str]:
    """The tokens of an #if expression (a new list: the evaluator's callers may keep or change theirs)."""
    return list(_short_tokens(text) if len(text) <= _MEMO_TEXT else _token_tuple(text))


# Memoised: a file's directive texts repeat (`__CUDA_ARCH__`, `defined(USE_ROCM)`), and one text is tokenised by
# several readers (condition names, switches, siblings, arch arms): 12,940 calls on FasterTransformer. Only short
# texts, so what the memo holds stays small whatever a repository's directives are (8192 x 256 characters).
_MEMO_TEXT = 256


@functools.lru_cache(maxsize=8192)
def _short_tokens(text: str) -> tuple[str, ...]:
    return _token_tuple(text)


def _token_tuple(text: str) -> tuple[str, ...]:
    out = []
    pos = 0
    while pos < len(text):
        m = _token().match(text, pos)
        if not m:
            if text[pos:].strip() == "":
                break
            out.append("?")  # something we do not read (a string, `#`): makes the expression unknown
            pos += 1
            continue
        tok = m.group(m.lastindex)
        out.append(_ALTERNATIVE.get(tok, tok))
        pos = m.end()
    return tuple(out)


def _first_token(text: str) -> tuple[str, bool]:
    """(_tokens(text)[0], or "" for none; whether it is the only token), reading no further than needed."""
    m = _token().match(text)
    if not m:  # blank, or opening with what no token spells: as the whole tokeniser reads it
        toks = _tokens(text)
        return (toks[0] if toks else ""), len(toks) == 1
    tok = m.group(m.lastindex)
    return _ALTERNATIVE.get(tok, tok), text[m.end():].strip() == ""


# C++'s alternative tokens are operators wherever they appear, #if lines included ([lex.digraph], [cpp.cond]):
# `#if __CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)` is `... && defined(...)` to clang in C++ and HIP mode (checked:
# clang-22 -x hip takes the arm off; in C, where <iso646.h> makes them macros that #if never sees, it is an error).
# Read as names they were undefined macros, 0, and `X and Y` became unreadable. The compound-assignment spellings
# (and_eq, or_eq, xor_eq) cannot appear in a constant expression. https://eel.is/c++draft/lex.digraph
_ALTERNATIVE = {"and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|", "xor": "^", "compl": "~",
                "not_eq": "!="}


# `#if` arithmetic is C's ([cpp.cond] p11-12): every integer operand is intmax_t or uintmax_t (64 bits on every
# target porter judges), the usual arithmetic conversions make an operation unsigned when either operand is, unsigned
# values wrap modulo 2**64, `/` and `%` truncate toward zero. A plain int is an intmax_t value; an _Unsigned is a
# uintmax_t value (an int subclass, so truth and comparison with a plain int still read its value). Read as Python's
# unbounded integers, `#if 0u - 1 > 0` was false and `#if -7 % 2 == -1` false: a live kernel read as dead.
_UMAX = (1 << 64) - 1
_INTMAX = (1 << 63) - 1


class _Unsigned(int):
    """An #if value of type uintmax_t (0 <= value <= _UMAX)."""

    __slots__ = ()


def _wrap_signed(v: int) -> int:
    """`v` as intmax_t: two's complement wrap-around (signed overflow, which compilers warn of and wrap)."""
    v &= _UMAX
    return v - (1 << 64) if v > _INTMAX else v


# An integer literal of a #if ([lex.icon]): its digits and its suffix (u, l, ll, z in either order, any case).
_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)((?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?)?)")


def _int(text: str) -> int | None:
    """An integer literal's #if value: unsigned when it has a u/U suffix or does not fit intmax_t ([cpp.cond] reads
    every literal as intmax_t/uintmax_t; gcc: "integer constant is so large that it is unsigned"); None (unknown)
    for what is no integer literal or does not fit uintmax_t (an error to a compiler)."""
    m = _INT_LITERAL.fullmatch(text.replace("'", ""))
    if m is None:
        return None
    digits = m.group(1)
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        if not digits.isdigit() or "8" in digits or "9" in digits:
            return None
        v = int(digits, 8)
    else:
        v = int(digits, 0) if digits[:2].lower() in ("0x", "0b") else int(digits)
    if v > _UMAX:
        return None
    return _Unsigned(v) if v > _INTMAX or "u" in m.group(2).lower() else v


class _Eval:
    """A recursive-descent evaluator of one `#if` expression over values int | None (unknown).

    `build.value(name)` gives a macro's value: None (unknown) or False (undefined, which C reads as 0 but
    `defined()` reads as false). Logical operators are Kleene's: `0 && unknown` is 0, `1 || unknown` is 1."""

    def __init__(self, tokens: list[str], build: "Build"):
        self.t = tokens
        self.i = 0
        self.value = build.value
        self.is_vendor = build.vendor
        self.vendor = False  # whether any ROCm-side name decided part of it

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> str | None:
        tok = self.peek()
        self.i += 1
        return tok

    def run(self) -> int | None:
        try:
            v = self.cond()
        except (IndexError, ZeroDivisionError, RecursionError, ValueError, OverflowError):
            return None
        return v if self.peek() is None else None

    def cond(self):
        c = self.lor()
        if self.peek() == "?":
            self.take()
            a = self.cond()
            if self.take() != ":":
                raise ValueError
            b = self.cond()
            if a is not None and b is not None:
                a, b = _common(a, b), _common(b, a)
            if c is None:
                return a if a is not None and a == b and type(a) is type(b) else None
            return a if c else b
        return c

    def lor(self):
        v = self.land()
        while self.peek() == "||":
            self.take()
            w = self.land()
            v = 1 if (v or w) else (None if v is None or w is None else 0)
        return v

    def land(self):
        v = self.binary(0)
        while self.peek() == "&&":
            self.take()
            w = self.binary(0)
            v = 0 if (v == 0 or w == 0) else (None if v is None or w is None else 1)
        return v

    _LEVELS = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%"))

    _PRECEDENCE = {op: level for level, ops in enumerate(_LEVELS) for op in ops}

    def binary(self, level: int):
        """The operators of `_LEVELS[level:]`, each left-associative, by precedence climbing: the same operands
        and the same order as a descent through the eight levels (one call per level per operand, most of a
        file's #if evaluation), with one call per operand."""
        return self._climb(self.unary(), level)

    def _climb(self, v, level: int):
        precedence = self._PRECEDENCE
        op = self.peek()
        p = precedence.get(op) if op is not None else None
        while p is not None and p >= level:
            self.take()
            w = self.unary()
            nxt = self.peek()
            if nxt is not None and precedence.get(nxt, -1) > p:  # a tighter operator takes w first
                w = self._climb(w, p + 1)
            v = None if v is None or w is None else _apply(op, v, w)
            op = self.peek()
            p = precedence.get(op) if op is not None else None
        return v

    def unary(self):
        tok = self.take()
        if tok == "!":
            v = self.unary()
            return None if v is None else int(not v)
        if tok == "-":
            v = self.unary()
            if v is None:
                return None
            return _Unsigned(-v & _UMAX) if type(v) is _Unsigned else _wrap_signed(-v)
        if tok == "+":
            return self.unary()
        if tok == "~":
            v = self.unary()
            if v is None:
                return None
            return _Unsigned(~v & _UMAX) if type(v) is _Unsigned else ~v
        if tok == "(":
            v = self.cond()
            if self.take() != ")":
                raise ValueError
            return v
        if tok == "defined":
            paren = self.peek() == "("
            if paren:
                self.take()
            name = self.take()
            if paren and self.take() != ")":
                raise ValueError
            val = self.value(name)
            self.vendor = self.vendor or self.is_vendor(name)
            return None if val is None else (0 if val is False else 1)  # DEFINED and ints are defined
        if tok is None or tok == "?":
            raise ValueError
        if tok[0].isdigit():
            return _int(tok)
        if tok in _BOOLEAN:  # C++ reads `true`/`false` in #if as 1 and 0, never as macro names
            return _BOOLEAN[tok]
        if tok[0].isalpha() or tok[0] == "_":
            if self.peek() == "(":  # a function-like macro or __has_include(...): unknown, skip its arguments
                depth = 0
                while True:
                    t = self.take()
                    if t is None:
                        raise ValueError
                    depth += t == "("
                    depth -= t == ")"
                    if depth == 0:
                        break
                return None
            val = self.value(tok)
            self.vendor = self.vendor or self.is_vendor(tok)
            if val is False:
                return 0
            return val if isinstance(val, int) else None
        raise ValueError


_BOOLEAN = {"true": 1, "false": 0}


def _apply(op: str, a: int, b: int) -> int:
    """`a op b` as C's #if computes it (see _Unsigned): comparisons give a signed 0/1; shifts keep the left operand's
    type (a count outside 0..63 is undefined: unknown); other operators are unsigned when either operand is."""
    if op in _SHIFTS:
        if not 0 <= b < 64:
            raise ValueError
        if type(a) is _Unsigned:
            return _Unsigned((a << b) & _UMAX) if op == "<<" else _Unsigned(a >> b)
        return _wrap_signed(a << b) if op == "<<" else a >> b
    unsigned = type(a) is _Unsigned or type(b) is _Unsigned
    if unsigned:
        a, b = a & _UMAX, b & _UMAX
    if op in _COMPARE:
        return int(_COMPARE[op](a, b))
    if op in ("/", "%"):
        if b == 0:
            raise ZeroDivisionError  # an error to a compiler: the expression is unknown
        q = abs(a) // abs(b)  # truncation toward zero ([expr.mul]), not Python's floor
        if (a < 0) != (b < 0):
            q = -q
        r = q if op == "/" else a - b * q
    else:
        r = _ARITHMETIC[op](a, b)
    return _Unsigned(r & _UMAX) if unsigned else _wrap_signed(r)


_SHIFTS = frozenset(("<<", ">>"))
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le,
            ">=": operator.ge}
_ARITHMETIC = {"|": operator.or_, "^": operator.xor, "&": operator.and_, "+": operator.add, "-": operator.sub,
               "*": operator.mul}


def _common(a: int, b: int) -> int:
    """The value `a` takes as the result of `c ? a : b`: converted to uintmax_t when either arm is unsigned."""
    return _Unsigned(a & _UMAX) if type(a) is not _Unsigned and type(b) is _Unsigned else a


class Build:
    """The macro lookup of one build: ROCm-side names (built-in, heuristic, `rocm_names`) are undefined for CUDA and
    defined (value unknown) for ROCm; `cuda_names` (derived from CUDA-only arms) the reverse; everything else is
    unknown in both."""

    def __init__(self, build: str, rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = (),
                 retired: Iterable[str] = (), hip_native: bool = False):
        self.build = build
        self.rocm = frozenset(rocm_names)
        self.cuda = frozenset(cuda_names) - self.rocm
        # ROCm platform macros the ROCm release no longer defines and the project does not define itself
        # (retired_rocm_macros): undefined in both builds, still a vendor test
        self.retired = frozenset(retired) - self.rocm
        # nvcc's own macros in a file written for hip-clang (hip_native, see HIP_COMPILER_MACROS)
        self.nvcc_only = NVCC_ONLY | NVCC_ONLY_IN_HIP_CODE if hip_native else NVCC_ONLY
        # vendor names an `#undef` took back (evaluate): from there on no build's switch, unknown in both builds
        self.undone: set[str] = set()

    def vendor(self, name: str | None) -> bool:
        """Whether the name decides which vendor's build this is."""
        return bool(name) and name not in self.undone and (name in self.rocm or name in self.cuda or name in self.nvcc_only or is_rocm_name(name))

    def value(self, name: str | None):
        """False (undefined), None (defined or not: unknown), DEFINED (defined, value unknown) or an int."""
        if not name or name in self.undone:
            return None
        if name in EDITOR_ONLY or name in self.retired:
            return False
        if name in self.nvcc_only:
            return None if self.build == CUDA else False
        if name in self.cuda:
            if self.build != CUDA:
                return False
            # A version derived as CUDA-side (a project that #defines CUDA_VERSION in a CUDA arm) is defined with
            # an unknown value: `#if CUDA_VERSION >= 7500` in the CUDA build is undecided, not false.
            return DEFINED if "VERSION" in name.upper() else 1
        if name in self.rocm or is_rocm_name(name):
            if self.build == CUDA:
                return False
            if ROCM_SOMETIMES.match(name):
                return None
            # A platform switch that is defined is set (`#if BNB_HIP`); a version's value is unknown.
            return DEFINED if "VERSION" in name.upper() else 1
        return None


@functools.lru_cache(maxsize=1)
def toolkit_versions() -> frozenset[str]:
    """CUDA toolkit version macros: nvcc's headers define them, HIP never does, so a ROCm build reads `#if
    CUDART_VERSION >= 12000` as false and compiles its `#else`. Data: the `versions` of rules/kb/fixups.yaml (the
    same list translate renames) and its `library_versions` (CCCL's, which HIP's Thrust and CUB never define), read
    once."""
    from porter.datafile import DATA_DIR, read_yaml
    from porter.errors import DataFileError

    raw = read_yaml(DATA_DIR / "kb" / "fixups.yaml", DataFileError) or {}
    return frozenset(raw.get("versions", {})) | frozenset(raw.get("library_versions", {}))


@functools.lru_cache(maxsize=1)
def retired_rocm_macros() -> frozenset[str]:
    """ROCm platform macros no ROCm release the run can be judged for defines any more (`retired_macros` of
    rules/kb/fixups.yaml whose `until` is no later than the oldest release of rules/kb/hip_versions.yaml):
    `__HIP_PLATFORM_HCC__`, gone since ROCm 6.0. The release list starts at 6.4, so `--rocm` does not change the
    answer; a release older than `until` in that list would have to thread the run's release through to here
    (tests/test_portaware_dual20.py checks the list)."""
    from porter.datafile import DATA_DIR, read_yaml
    from porter.errors import DataFileError
    from porter.rocm import release_key, releases

    raw = read_yaml(DATA_DIR / "kb" / "fixups.yaml", DataFileError) or {}
    oldest = min(release_key(r) for r in releases())
    return frozenset(name for name, entry in (raw.get("retired_macros") or {}).items()
                     if release_key(str(entry["until"])) <= oldest)


class _ToolkitBuild(Build):
    """A build that also knows the toolkit version macros are undefined in the ROCm build (their value in the CUDA
    build stays unknown). Used only for a group whose `#else` has code: that `#else` is the HIP path, so the arms
    before it are the CUDA build's alone (with no `#else`, HIP would just lack the code: not decided here)."""

    def vendor(self, name: str | None) -> bool:
        return name in toolkit_versions() or super().vendor(name)

    def value(self, name: str | None):
        if name in toolkit_versions():
            return False if self.build == ROCM else None
        return super().value(name)


# An architecture-level test (`__CUDA_ARCH__ >= 700`, `defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800`): hip-clang never
# defines __CUDA_ARCH__, so in a group whose later arm tests a ROCm name the ROCm build takes that arm. A bare
# `#ifdef __CUDA_ARCH__` (device pass vs host pass) is left unknown: HIP's device pass compiling the host arm is
# a port item of its own.
_ARCH_LEVEL = lazy_regex(r"\b__CUDA_ARCH__\s*(?:>=|<=|==|!=|>|<)\s*\d")


class _ArchBuild(_ToolkitBuild):
    """The toolkit build that also reads __CUDA_ARCH__ undefined in the ROCm build (see _ARCH_LEVEL)."""

    def vendor(self, name: str | None) -> bool:
        return name == "__CUDA_ARCH__" or super().vendor(name)

    def value(self, name: str | None):
        if name == "__CUDA_ARCH__":
            return False if self.build == ROCM else None
        return super().value(name)


def _truth(v) -> Tri:
    return None if v is None else bool(v)


def condition(kind: str, text: str, build: Build) -> tuple[Tri, bool]:
    """One directive's condition under one build, and whether a vendor-side name took part in it."""
    toks = _tokens(text)
    if kind in ("ifdef", "ifndef", "elifdef", "elifndef"):
        name = (toks or [""])[0]
        val = build.value(name)
        d = None if val is None else val is not False  # DEFINED and ints are defined
        if kind.endswith("ndef"):
            d = None if d is None else not d
        return d, build.vendor(name)
    e = _Eval(toks, build)
    v = e.run()
    return _truth(v), e.vendor or any(build.vendor(t) for t in toks if t[:1].isalpha() or t[:1] == "_")


class _ReleaseBuild(_ArchBuild):
    """The arch-level ROCm build of one HIP release: HIP_VERSION and its parts have that release's values."""

    def __init__(self, major: int, minor: int):
        super().__init__(ROCM, (), ())
        self._release = {"HIP_VERSION": major * 10_000_000 + minor * 100_000, "HIP_VERSION_MAJOR": major,
                         "HIP_VERSION_MINOR": minor}

    def value(self, name: str | None):
        if name in self._release:
            return self._release[name]
        return super().value(name)


def hip_arch_build() -> Build:
    """The ROCm build as hip_reaches reads it with no release: toolkit versions and `__CUDA_ARCH__` undefined, no
    project macro known (porter.match.refine_unreferenced answers a file's stretches between directives in one walk
    with it)."""
    return _ArchBuild(ROCM, (), ())


def hip_reaches(dirs: list[Directive], line: int, release: str | None = None) -> bool:
    """Whether hip-clang may compile `line`: False when an enclosing #if/#elif/#else arm reads false in the ROCm
    build with `__CUDA_ARCH__` undefined (as HIP has it, host and device pass alike): the `#else` of
    `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600`, the body of `#ifdef __CUDA_ARCH__`, and with a ROCm
    `release` ("7.2"), `#if !defined(__HIPCC__) || HIP_VERSION < 40400000`. Unknown reads as reachable. For a rule
    whose finding is only true where HIP compiles the code (a redefinition of a HIP builtin)."""
    parts = (release or "").split(".")
    build = (_ReleaseBuild(int(parts[0]), int(parts[1])) if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit()
             else hip_arch_build())
    return _reaches(dirs, line, build)


class _NvidiaCompilerBuild(_ArchBuild):
    """The ROCm build as far as the NVIDIA compiler's own macros decide it: nvcc's (`__NVCC__`), the architecture
    level (`__CUDA_ARCH__ >= 700`) and the toolkit versions are undefined under hip-clang; every other name, ROCm
    platform and project switches included, is unknown."""

    def vendor(self, name: str | None) -> bool:
        return bool(name) and (name in NVCC_ONLY or name == "__CUDA_ARCH__" or name in toolkit_versions())

    def value(self, name: str | None):
        return super().value(name) if self.vendor(name) else None


def nvidia_compiler_only(dirs: list[Directive], line: int) -> bool:
    """Whether `line` sits in an arm hip-clang never compiles because a macro only NVIDIA's compiler defines decides
    it (`#ifdef __NVCC__` ... `#else`, `#if __CUDA_ARCH__ >= 800`, `#if CUDART_VERSION >= 12000`): clang's HIP
    mode defines __HIP__ and __HIPCC__, never __NVCC__ or __CUDA_ARCH__ (clang -x hip -dM -E). A ROCm or project
    switch alone decides nothing here."""
    return not _reaches(dirs, line, _NvidiaCompilerBuild(ROCM, (), ()))


# `#if WARP_SIZE == 32`, `#elif (WAVE_SIZE == 64)`: one arm of a group choosing code by a wave-size name's value.
_WAVE_TEST = lazy_regex(r"^\s*\(?\s*([A-Za-z_]\w*)\s*==\s*(32|64)\s*\)?\s*$")
_WAVE_WORD = lazy_regex(r"(?i)warp|wave")


def wave_size_arms(pre: Preprocessed) -> tuple[tuple[int, int, int, str], ...]:
    """(first body line, last body line, wave size, name) of the arms of each group that picks code by a wave-size
    name, `#if WARP_SIZE == 32` ... `#elif WARP_SIZE == 64` (ccglib's packing kernel, its WARP_SIZE passed as
    `-DWARP_SIZE=` from the device attribute): the preprocessor compiles an arm only when the name equals its value
    (C++ [cpp.cond]). A group counts when every test in it compares one warp/wave-named name with 32 or 64 and it
    names both (code written for both wave sizes); an `#else` after both is neither's. The file must not `#define`
    the name (a project that fixes it picks one arm for every target). Worked out once per file (refine and each
    kernel's facts ask: reading every `#define` again per kernel was ~2% of a FasterTransformer scan)."""
    found = pre._regions.get("wave_size_arms")
    if found is None:
        found = pre._regions["wave_size_arms"] = _wave_size_arms(pre)
    return found


def _wave_size_arms(pre: Preprocessed) -> tuple[tuple[int, int, int, str], ...]:
    defined = {name for d in pre.directives if d.kind == "define" for name in _tokens(d.text)[:1]}
    out = []
    for g in pre.groups:
        tests = [_WAVE_TEST().match(a.text) if a.kind in ("if", "elif") else None for a in g.arms]
        named = {m.group(1) for m in tests if m is not None}
        if len(named) != 1 or any(m is None and a.kind != "else" for m, a in zip(tests, g.arms)):
            continue
        name = named.pop()
        sizes = {int(m.group(2)) for m in tests if m is not None}
        if sizes != {32, 64} or not _WAVE_WORD().search(name) or name in defined:
            continue
        out.extend((a.end_line + 1, a.last, int(m.group(2)), name) for m, a in zip(tests, g.arms)
                   if m is not None and a.last > a.end_line)
    return tuple(sorted(out))


def hip_dropping_arm(pre: Preprocessed, line: int) -> int | None:
    """The directive line of the outermost arm around `line` that hip-clang never compiles because a macro only
    NVIDIA's compiler or toolkit defines decides it (`#if __CUDACC_VER_MAJOR__ >= 8` with no `#else`, `#ifdef
    __NVCC__`, `#if __CUDA_ARCH__ >= 700`: _NvidiaCompilerBuild), or None. hip-clang and HIP's headers define none
    of those (clang-22 -x hip -dM -E with hip_runtime.h; HIPIFY renames only `__CUDACC__`, to `__HIPCC__`), so code
    there is not in the ROCm build, before or after hipify. A group that names a ROCm-side macro chose its HIP path
    (`#if CUDA_VERSION >= 9000 || defined(__HIP_PLATFORM_AMD__)`) and decides nothing here."""
    build = _NvidiaCompilerBuild(ROCM, (), ())
    for g, i in pre.enclosing(line):
        if any(a.kind != "else" and names_rocm(a.text) for a in g.arms):
            continue
        truths = _arm_truths(g, build)
        if truths[i] is False or any(t is True for t in truths[:i]):
            return g.arms[i].line
    return None


class _ToolkitOnlyBuild(Build):
    """The ROCm build as far as the toolkit version macros (`CUDA_VERSION`, `CUDART_VERSION`: toolkit_versions) and
    nvcc's own (`__NVCC__`) decide it: hip-clang and HIP's headers define none of them, so they read undefined; every
    other name, `__CUDA_ARCH__` included (its arms are read by the tensor and vanishing-arm questions), is unknown."""

    def vendor(self, name: str | None) -> bool:
        return bool(name) and (name in NVCC_ONLY or name in toolkit_versions())

    def value(self, name: str | None):
        return False if self.vendor(name) else None


def toolkit_fallback_spans(pre: Preprocessed) -> tuple[tuple[int, int], ...]:
    """(first, last) body lines of the arms hip-clang never compiles in groups that test a CUDA toolkit version or
    nvcc's macro and keep code in their `#else` (libSGM's `#if CUDA_VERSION >= 9000` / `__shfl_xor_sync(mask, ...)` /
    `#else` / `__shfl_xor(...)` / `#endif`): that `#else` is what the ROCm build compiles, before and after hipify
    (HIPIFY renames only `__CUDACC__`), so the arms before it are the CUDA build's alone. A group that names a
    ROCm-side macro chose its HIP path itself and is left out, as is a group whose `#else` is empty or only a
    diagnostic (`#error`: HIP then compiles nothing there or fails, which porter.kernels reads as port work) or a
    test porter cannot decide."""
    build = _ToolkitOnlyBuild(ROCM, (), ())
    out: list[tuple[int, int]] = []
    for g in pre.groups:
        # an `#else` with code that is more than a diagnostic (`#error "CUDA 11 required"` is port work, not a
        # HIP path): Preprocessed.toolkit_lines holds the arms of exactly those groups
        if not g.has_else or g.arms[-1].line in pre.empty_arms or g.arms[0].line not in pre.toolkit_lines:
            continue
        if any(a.kind != "else" and names_rocm(a.text) for a in g.arms):
            continue
        if not any(a.kind != "else" and any(build.vendor(t) for t in _tokens(a.text)) for a in g.arms):
            continue
        decided, taken = _taken(_arm_truths(g, build))
        if not decided:
            continue
        out.extend((a.end_line + 1, a.last) for i, a in enumerate(g.arms) if i != taken and a.last > a.end_line)
    return tuple(sorted(out))


class _SwitchBuild(Build):
    """Every build as far as the file's own switch constants decide it (file_switches); every other name is
    unknown."""

    def __init__(self, switches: Mapping[str, int]):
        super().__init__(ROCM, (), ())
        self.switches = switches

    def vendor(self, name: str | None) -> bool:
        return False

    def value(self, name: str | None):
        return self.switches.get(name) if name else None


_COMMENTED_DEFINE = lazy_regex(rb"(?m)^[ \t]*//[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]*(?:\d+[ \t]*)?$")
# What every _COMMENTED_DEFINE match holds, beginning with a literal: `re` skips to each `/` at C speed, where the
# line-anchored pattern was tried at every byte of the file (10x the time over 2,005 C/C++ files, the same matches).
_COMMENTED_DEFINE_HINT = lazy_regex(rb"//[ \t]*#[ \t]*define[ \t]")
# at most 18 digits: a value int() converts at once (a 5,000-digit define is no switch, tests/test_budget.py)
_SWITCH = lazy_regex(r"^([A-Za-z_]\w*)\s+\(?\s*(\d{1,18})\s*\)?$")


def file_switches(pre: Preprocessed, data: bytes, bare: bool = False) -> dict[str, tuple[int | bool | str, int]]:
    """The file's switch constants, name -> (value, line of its `#define`): names it `#define`s to an integer literal once, outside every `#if` group and
    never `#undef`s (GPUJPEG's `#define GPUJPEG_IDCT_USE_ASM 0`). Such a definition holds in every build: a `-D`
    of the same name on the command line is overridden by it (with a redefinition warning), so `#if NAME` reads
    its value wherever it comes after the definition. A name the file only defines in a line comment (`//#define
    FULLCHECK`) and nowhere else reads undefined (False) from that line on: the switch is off as committed. Another
    file or a `-D` could still define it; porter reads the file as its author left it. With `bare`, a name defined
    so with no value (`#define SMALLKERNEL`) reads DEFINED: `#ifdef SMALLKERNEL` takes its first arm after it."""
    found: dict[str, tuple[int | bool | str, int]] = {}
    twice: set[str] = set()
    defined: set[str] = set()  # the first token of every #define's text
    guard = include_guard(pre)
    for d in pre.directives:
        if d.kind != "define":
            continue
        m = _SWITCH().match(d.text.strip())
        # The name is the text's first token: read alone (a macro's body may be thousands of characters long, and
        # tokenising all of it per define, and again per commented-out define below, was 7% of a FasterTransformer
        # scan).
        first, alone = _first_token(d.text)
        defined.add(first)
        name = m.group(1) if m else first
        if name in found or name in twice:
            twice.add(name)
            found.pop(name, None)
            continue
        outside = not any(g is not guard for g, _ in pre.enclosing(d.line))
        if m and outside and not ROCM_SOMETIMES.match(name) and not is_rocm_name(name):
            found[name] = (int(m.group(2)), d.line)
        elif (bare and not m and alone and first == name and outside
              and not ROCM_SOMETIMES.match(name) and not is_rocm_name(name)):
            found[name] = (DEFINED, d.line)
    if b"undef" in data:
        for name in list(found):
            if re.search(rb"#\s*undef\s+" + re.escape(name.encode()) + rb"\b", data):
                found.pop(name)
    # A switch turned off by commenting its definition out (VanitySearch's `//#define FULLCHECK` above `#ifdef
    # FULLCHECK`): the file never defines the name, and the author's way to turn it on is to edit that line.
    if b"//" in data:
        for m in commented_defines(data):
            name = m.group(1).decode()
            if name not in found and name not in twice and name not in defined:
                found[name] = (False, data.count(b"\n", 0, m.start()) + 1)
    return found


def include_guard(pre: Preprocessed) -> Group | None:
    """The file's include guard: its first group, of one arm, `#ifndef NAME` (or `#if !defined(NAME)`) whose first
    directive inside is `#define NAME` and whose `#endif` is the file's last directive. Its body is compiled whenever the file is
    included (once per translation unit), so a definition inside it holds as one outside every group does
    (nsparse's HashSpGEMM_volta.hpp: `#ifndef HASHSPGEMM_H` / `#define HASHSPGEMM_H` ... `#define ORIGINAL_HASH`)."""
    if not pre.groups or not pre.directives:
        return None
    g = min(pre.groups, key=lambda x: x.arms[0].line)
    if len(g.arms) != 1:
        return None
    arm = g.arms[0]
    tokens = _tokens(arm.text)
    name = tokens[0] if arm.kind == "ifndef" and len(tokens) == 1 else (
        tokens[3] if arm.kind == "if" and tokens[:3] == ["!", "defined", "("] and tokens[4:] == [")"] else
        tokens[2] if arm.kind == "if" and tokens[:2] == ["!", "defined"] and len(tokens) == 3 else None)
    if name is None:
        return None
    inside = [d for d in pre.directives if arm.line < d.line < g.endif]
    if not inside or inside[0].kind != "define" or _first_token(inside[0].text)[0] != name:
        return None
    if any(d.line > g.endif for d in pre.directives):
        return None
    return g


def commented_defines(data: bytes) -> list[re.Match[bytes]]:
    """_COMMENTED_DEFINE's matches in `data`, in order: the pattern asked only at the start of each line that holds
    its literal part (_COMMENTED_DEFINE_HINT), once per line (a match never spans two lines)."""
    full, out, last = _COMMENTED_DEFINE(), [], -1
    for h in _COMMENTED_DEFINE_HINT().finditer(data):
        start = data.rfind(b"\n", 0, h.start()) + 1
        if start != last:
            last = start
            m = full.match(data, start)
            if m is not None:
                out.append(m)
    return out


def switch_dead_spans(pre: Preprocessed, data: bytes, bare: bool = False) -> tuple[tuple[int, int], ...]:
    """(first, last) body lines of the arms no build compiles because a file switch constant (file_switches)
    decides their group: the `#if GPUJPEG_IDCT_USE_ASM` arm under `#define GPUJPEG_IDCT_USE_ASM 0`, the `#else` of
    `#if !GPUJPEG_IDCT_USE_ASM`. A group is read when its tests name such a switch defined above it; any other name
    is unknown, so a group is decided only when the switches alone decide which arm is taken. `bare`: as
    file_switches."""
    if b"define" not in data:
        return ()
    table = file_switches(pre, data, bare)
    if not table:
        return ()
    out: list[tuple[int, int]] = []
    for g in pre.groups:
        names = {t for a in g.arms if a.kind != "else" for t in _tokens(a.text)
                 if (t[:1].isalpha() or t[:1] == "_") and t != "defined"}
        known = {n: table[n][0] for n in names if n in table and table[n][1] < g.arms[0].line}
        if not known:
            continue
        build = _SwitchBuild(known)
        decided, taken = _taken(_arm_truths(g, build))
        if decided:
            out.extend((a.end_line + 1, a.last) for i, a in enumerate(g.arms) if i != taken and a.last > a.end_line)
    return tuple(sorted(out))


def _reaches(dirs: list[Directive], line: int, build: Build) -> bool:
    """Whether `line` may be compiled by `build`: no enclosing arm reads false there."""
    # Per open group: the earlier arms' own conditions, and whether the current arm is compiled.
    stack: list[tuple[list[Tri], Tri]] = []
    for d in dirs:
        if d.line >= line:
            break
        if d.kind in ("if", "ifdef", "ifndef"):
            t = condition(d.kind, d.text, build)[0]
            stack.append(([t], t))
        elif d.kind in ("elif", "elifdef", "elifndef", "else") and stack:
            prev, _ = stack[-1]
            own: Tri = True if d.kind == "else" else condition("if" if d.kind == "elif" else d.kind[2:], d.text,
                                                                build)[0]
            if any(p is True for p in prev) or own is False:
                cur: Tri = False  # an earlier arm is taken, or this one's own test fails
            else:
                cur = own if all(p is False for p in prev) else None
            stack[-1] = (prev + [own], cur)
        elif d.kind == "endif" and stack:
            stack.pop()
    return all(cur is not False for _, cur in stack)


def tri_and(a: Tri, b: Tri) -> Tri:
    """Kleene's three-valued AND: False wins, then unknown (None)."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def tri_not(a: Tri) -> Tri:
    """Three-valued NOT: unknown stays unknown."""
    return None if a is None else not a


@dataclass
class _Frame:
    cuda_taken: Tri  # whether an earlier arm of this group was taken, per build
    rocm_taken: Tri
    cuda_arm: Tri  # the current arm's truth, per build
    rocm_arm: Tri
    outer_cuda: Tri
    outer_rocm: Tri
    outer_guard: int
    guard: int  # line of the group's vendor-deciding #if/#elif, 0 if none
    vendor: bool  # whether the group tests a ROCm-side name


def evaluate(dirs: list[Directive], total_lines: int, rocm_names: Iterable[str] = (),
             cuda_names: Iterable[str] = (), toolkit_lines: Iterable[int] = (), retired: Iterable[str] = (),
             undone: Iterable[str] = ()) -> list[Region]:
    """Every line of a file (1..total_lines) in regions that each build compiles or not, in order.

    Directive lines themselves belong to the enclosing region. Unbalanced directives (a stray #endif, a missing
    one) are read leniently: a stray #else/#endif is ignored, an unclosed #if runs to the end of the file.
    `toolkit_lines`: the `#if`/`#elif` lines whose group's `#else` is the HIP path (Preprocessed.toolkit_lines),
    where a toolkit version macro reads undefined in the ROCm build. `retired`: ROCm platform macros read undefined
    in both builds (retired_rocm_macros the project does not define itself). `undone`: vendor names a header
    `#undef`s for good (undone_names): unknown in both builds, as a vendor name is after this file's own `#undef`
    of it - a header's `#undef USE_ROCM` sends the ROCm build into the CUDA arm, so neither arm is one build's."""
    rocm_names = tuple(rocm_names)
    cuda_names = tuple(cuda_names)
    retired = tuple(retired)
    native = hip_native(dirs)
    plain = {b: Build(b, rocm_names, cuda_names, retired, native) for b in (CUDA, ROCM)}
    toolkit = {b: _ToolkitBuild(b, rocm_names, cuda_names, retired, native) for b in (CUDA, ROCM)}
    arch = {b: _ArchBuild(b, rocm_names, cuda_names, retired, native) for b in (CUDA, ROCM)}
    builds = [*plain.values(), *toolkit.values(), *arch.values()]
    for b in builds:
        b.undone.update(undone)
    # Arch-level tests are read undefined for ROCm only where a later arm of the group is the ROCm build's own: a
    # plain `#else` after `#if __CUDA_ARCH__ >= 800` is often a stub or a slow path, and the tensor-core arm it
    # replaces stays port work.
    forked = frozenset(_before_rocm_arm(_groups_of(dirs))) if any("__CUDA_ARCH__" in d.text for d in dirs) \
        else frozenset()
    toolkit_lines = frozenset(toolkit_lines)
    regions: list[Region] = []
    stack: list[_Frame] = []
    cur_cuda: Tri = True
    cur_rocm: Tri = True
    cur_guard = 0
    start = 1

    def close(upto: int) -> None:
        nonlocal start
        if upto >= start:
            regions.append(Region(start, upto, cur_cuda, cur_rocm, cur_guard))
        start = upto + 1

    for d in dirs:
        if d.kind == "undef":
            name = (_tokens(d.text)[:1] or [""])[0]
            if any(b.vendor(name) for b in plain.values()):
                for b in builds:
                    b.undone.add(name)
            continue
        if d.kind in ("define", "include"):
            continue
        vals = (arch if d.line in forked and _ARCH_LEVEL().search(d.text) else toolkit) if d.line in toolkit_lines \
            else plain
        if d.kind in ("if", "ifdef", "ifndef"):
            close(d.end_line)
            c, vc = condition(d.kind, d.text, vals[CUDA])
            r, vr = condition(d.kind, d.text, vals[ROCM])
            r = _feature_test(r, vc or vr, cur_cuda, cur_rocm)
            vendor = vc or vr
            f = _Frame(c, r, c, r, cur_cuda, cur_rocm, cur_guard, d.line if vendor else 0, vendor)
            stack.append(f)
        elif d.kind in ("elif", "elifdef", "elifndef", "else"):
            if not stack:
                continue
            close(d.end_line)
            f = stack[-1]
            if d.kind == "else":
                c, r, vendor = True, True, False
            else:
                c, vc = condition(d.kind, d.text, vals[CUDA])
                r, vr = condition(d.kind, d.text, vals[ROCM])
                r = _feature_test(r, vc or vr, f.outer_cuda, f.outer_rocm)
                vendor = vc or vr
            f.cuda_arm = tri_and(tri_not(f.cuda_taken), c)
            f.rocm_arm = tri_and(tri_not(f.rocm_taken), r)
            f.cuda_taken = tri_or(f.cuda_taken, c)
            f.rocm_taken = tri_or(f.rocm_taken, r)
            if vendor:
                f.vendor = True
                f.guard = f.guard or d.line
        elif d.kind == "endif":
            if not stack:
                continue
            close(d.end_line)
            f = stack.pop()
            cur_cuda, cur_rocm, cur_guard = f.outer_cuda, f.outer_rocm, f.outer_guard
            continue
        else:
            continue
        f = stack[-1]
        cur_cuda = tri_and(f.outer_cuda, f.cuda_arm)
        cur_rocm = tri_and(f.outer_rocm, f.rocm_arm)
        # an arm vendor tests close for both builds (`defined(ENABLE_HIP) && defined(__HIP_PLATFORM_NVCC__)`: HIP on
        # NVIDIA) is no build's work either: it keeps the guard that decided it
        cur_guard = f.guard if f.vendor and side(f.cuda_arm, f.rocm_arm) in (CUDA, ROCM, "none") else f.outer_guard
    close(total_lines)
    return _merge(regions)


def _feature_test(r: Tri, vendor: bool, outer_cuda: Tri, outer_rocm: Tri) -> Tri:
    """A ROCm-named test inside code only the ROCm build compiles reads unknown for ROCm where it reads false:
    there the names are HIP's feature macros, not the platform switch (FBGEMM's `#if HIP_FP8_TYPE_OCP &&
    !HIP_FP8_TYPE_FNUZ` under `#ifdef USE_ROCM`, which every name-is-ROCm reading made false for both builds, so
    its OCP arm read as code no build compiles rather than the ROCm arm it is)."""
    if r is False and vendor and outer_cuda is False and outer_rocm is not False:
        return None
    return r


def tri_or(a: Tri, b: Tri) -> Tri:
    """Kleene's three-valued OR: True wins, then unknown (None)."""
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def _merge(regions: list[Region]) -> list[Region]:
    out: list[Region] = []
    for r in regions:
        if out and (out[-1].cuda, out[-1].rocm, out[-1].guard) == (r.cuda, r.rocm, r.guard) and out[-1].end + 1 == r.start:
            out[-1] = Region(out[-1].start, r.end, r.cuda, r.rocm, r.guard)
        else:
            out.append(r)
    return out


_define_name = lazy_regex(r"^([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$", re.S)


def defines(dirs: list[Directive]) -> list[tuple[int, str, str]]:
    """(line, name, body) of every #define; a function-like macro's name carries its parameter list in `body`'s
    place only as far as callers need: the body is what follows the parameters."""
    out = []
    for d in dirs:
        if d.kind != "define":
            continue
        m = _define_name().match(d.text)
        if m:
            out.append((d.line, m.group(1), m.group(4).strip()))
    return out


_INCLUDE = re.compile(r'^\s*"([^"]+)"')
_ANGLE_INCLUDE = re.compile(r'^\s*<([^<>]+)>')


_MACRO_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*$")
MAX_INCLUDE_MACRO_HOPS = 8


def include_macros(dirs: Iterable[Directive]) -> dict[str, tuple[str, ...]]:
    """The macros a file defines that a computed `#include NAME` can read, each with every body it is given: an
    object-like one whose body is a quoted name, another macro's name or a macro call (`XSTR(kern.def)`), and a
    function-like one under `NAME(` with `(params) body` (`#define STR(x) #x`). The repository's table of them is
    the merge of its files'."""
    out: dict[str, tuple[str, ...]] = {}
    for d in dirs:
        if d.kind == "define":
            m = _define_name().match(d.text)
            if not m:
                continue
            body = m.group(4).strip()
            if m.group(2) is None:
                key = m.group(1)
                if not (_INCLUDE.match(body) or _MACRO_NAME.match(body) or _MACRO_CALL.match(body)):
                    continue
            elif len(body) <= MAX_INCLUDE_MACRO_BODY and (_STRINGIZER.match(body) or _MACRO_CALL.match(body)):
                key, body = m.group(1) + "(", m.group(2) + " " + body
            else:  # a function-like macro that neither stringizes nor forwards: no include reads it (not kept)
                continue
            if body not in out.get(key, ()):
                out[key] = (*out.get(key, ()), body)
    return out


# A function-like macro's body that makes a string of its parameter (`#define STR(x) #x`), and the longest body of a
# function-like macro the repository's table keeps (a stringizer or a forwarding call is short; the table must not
# hold every long macro of a repository).
_STRINGIZER = re.compile(r"^#\s*[A-Za-z_]\w*$")
MAX_INCLUDE_MACRO_BODY = 200
# A macro call (`XSTR(kern.def)`): its name and its arguments' text.
_MACRO_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", re.S)
# A function-like macro's body as _expand reads it: a stringized parameter, a name, anything else.
_BODY_TOKEN = re.compile(r'#\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)|"(?:[^"\\\n]|\\.)*"|.', re.S)
_PARAMETERS = re.compile(r"\(([^)]*)\)\s?(.*)$", re.S)


def _arguments(text: str) -> list[str] | None:
    """A macro call's arguments, split at the commas outside parentheses, blanks collapsed as a compiler does."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [" ".join(a.split()) for a in out]


def _expand(definition: str, args_text: str) -> str | None:
    """One call of a function-like macro (`definition`: `(params) body`, as include_macros keeps it) with the
    arguments' text: each `#param` a string literal of its argument, each other parameter its argument (not
    expanded first: the next hop reads what it names). None for what this does not read (`##`, `...`, a count
    that does not match the parameters)."""
    m = _PARAMETERS.match(definition)
    args = _arguments(args_text)
    if m is None or args is None or "##" in m.group(2) or "..." in m.group(1):
        return None
    params = [p.strip() for p in m.group(1).split(",")] if m.group(1).strip() else []
    if len(args) != len(params) and not (not params and args == [""]):
        return None
    bound = dict(zip(params, args))
    out = []
    for t in _BODY_TOKEN.finditer(m.group(2)):
        if t.group(1) is not None:
            if t.group(1) not in bound:
                return None
            out.append('"' + bound[t.group(1)].replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif t.group(2) is not None:
            out.append(bound.get(t.group(2), t.group(2)))
        else:
            out.append(t.group(0))
    return "".join(out).strip()


def quoted_includes(dirs: list[Directive],
                    elsewhere: Mapping[str, tuple[str, ...]] | None = None, angle: bool = False
                    ) -> list[tuple[int, str]]:
    """(line, target) of every `#include "..."` (angle-bracket includes are the toolkit's, never the project's;
    with `angle` they are listed too: a build's include path may reach a project file through `<kern/x.txt>`).

    A computed include (`#define KERNEL "kern.gpu"` then `#include KERNEL`, or `#include XSTR(kern.def)` with
    `#define XSTR(x) STR(x)` and `#define STR(x) #x`) names what its macros make of it at that line, as the compiler
    reads it: otherwise a file of CUDA code with a name that gives porter no language, included only that way, was
    never scanned. A macro this file defines before the include wins; one it does not is read from `elsewhere`
    (include_macros of the repository's files: `#define KERNEL` in a config header the file includes), every body
    any file gives it, since which header the compiler saw first is the build's choice. Followed
    MAX_INCLUDE_MACRO_HOPS deep, at most MAX_INCLUDE_MACRO_HOPS targets per include.
    """
    return [(line, target) for line, _text, found, _read in _include_targets(dirs, elsewhere, angle)
            for target in found]


def unresolved_includes(dirs: list[Directive], elsewhere: Mapping[str, tuple[str, ...]] | None = None
                        ) -> list[tuple[int, str]]:
    """(line, text) of every computed `#include` no reading of which gives a name, quoted or angle (`#include KFILE`
    with KFILE only from the build's `-DKFILE="kern.def"`; a macro call _expand does not read): what the file it
    includes holds is unseen (porter.pipeline lists it so under --isolated)."""
    return [(line, text) for line, text, _found, read in _include_targets(dirs, elsewhere, True) if not read]


def _include_targets(dirs: list[Directive], elsewhere: Mapping[str, tuple[str, ...]] | None, angle: bool
                     ) -> Iterator[tuple[int, str, list[str], bool]]:
    """(line, text, targets, read) of every `#include` (see quoted_includes): `read` whether any reading of it gave
    a name, quoted or angle (an angle one is a target only with `angle`)."""
    held: dict[str, str] = {}
    empty: Mapping[str, tuple[str, ...]] = {}
    for d in dirs:
        if d.kind == "define":
            m = _define_name().match(d.text)
            if m and m.group(2) is None:
                held[m.group(1)] = m.group(4).strip()
            elif m:
                held[m.group(1) + "("] = m.group(2) + " " + m.group(4).strip()
        elif d.kind == "include":
            texts, found, read = [d.text], [], False
            for _ in range(MAX_INCLUDE_MACRO_HOPS):
                following = []
                for text in texts:
                    name = _MACRO_NAME.match(text)
                    call = _MACRO_CALL.match(text) if name is None else None
                    if name is not None:
                        key = name.group(1)
                    elif call is not None:
                        key = call.group(1) + "("
                    else:
                        q = _INCLUDE.match(text)
                        m = q or _ANGLE_INCLUDE.match(text)
                        read = read or m is not None
                        if m and (q or angle) and m.group(1) not in found:
                            found.append(m.group(1))
                        continue
                    bodies = (held[key],) if key in held else (elsewhere or empty).get(key, ())
                    if call is None:
                        following.extend(bodies)
                    else:
                        following.extend(e for e in (_expand(b, call.group(2)) for b in bodies) if e is not None)
                texts = following[:MAX_INCLUDE_MACRO_HOPS]
                if not texts:
                    break
            yield d.line, d.text, found[:MAX_INCLUDE_MACRO_HOPS], read


def side_at(regions: list[Region], line: int) -> tuple[str, int]:
    """The side of one line ("cuda", "rocm", "both", "none") and the guard line that decided it."""
    # bisect by key: a list of the starts made per call was quadratic in a file's regions (50k guarded #defines)
    i = bisect.bisect_right(regions, line, key=_START) - 1
    if i < 0 or line > regions[i].end:
        return "both", 0
    r = regions[i]
    return r.side, r.guard


_START = operator.attrgetter("start")


def _side_at(regions: list[Region], starts: list[int], line: int) -> tuple[str, int]:
    i = bisect.bisect_right(starts, line) - 1
    if i < 0 or line > regions[i].end:
        return "both", 0
    r = regions[i]
    return r.side, r.guard


CONDITIONALS = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef"})


def condition_names(dirs: Iterable[Directive]) -> frozenset[str]:
    """The identifiers a file's conditional directives name: only these can make its two builds differ."""
    return frozenset(t for d in dirs if d.kind in CONDITIONALS for t in _tokens(d.text) if t[:1].isalpha() or t[:1] == "_")


def hip_native(dirs: Iterable[Directive]) -> bool:
    """Whether a file's conditionals test HIP's own compiler or platform macros (HIP_COMPILER_MACROS): it is written
    for hip-clang, which compiles it as it stands."""
    return not condition_names(dirs).isdisjoint(HIP_COMPILER_MACROS)


def builds_differ(names: frozenset[str], rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = ()) -> bool:
    """Whether conditionals naming `names` can compile differently in the CUDA and the ROCm build. Only a ROCm-side
    or CUDA-side name has a different value in the two (every other one is unknown in both), so without one each
    region `evaluate` finds reads "both" or "none", never "cuda" or "rocm"."""
    return (any(_rocm_name(n) for n in names) or not names.isdisjoint(rocm_names) or not names.isdisjoint(cuda_names)
            or not names.isdisjoint(NVCC_ONLY))


@functools.lru_cache(maxsize=4096)
def _rocm_name(name: str) -> bool:
    return is_rocm_name(name)


# Suffixes of files compiled on their own (porter.source.discover.UNIT_SUFFIXES and HIP's): their definitions reach
# their own build whether or not anything includes them.
_UNIT_ENDINGS = (".cu", ".cpp", ".cc", ".cxx", ".c", ".c++", ".hip")


def _include_name(text: str) -> str:
    """The file name an #include's text names: `"a/b.h"` or `<a/b.h>` -> `b.h`."""
    t = text.strip().strip('<>"').strip()
    return t.replace("\\", "/").rsplit("/", 1)[-1]


def undone_names(files: Mapping[str, tuple[list[Directive], int]]) -> frozenset[str]:
    """The vendor names (is_rocm_name) a header `#undef`s and does not `#define` again after: every file including it
    compiles on with the name undefined, whatever the build's `-D` said (evaluate's `undone`). A compiled unit's own
    `#undef` reaches only itself, and evaluate reads it there."""
    out: set[str] = set()
    for path, (dirs, _total) in files.items():
        if path.endswith(_UNIT_ENDINGS):
            continue
        last: dict[str, str] = {}
        for d in dirs:
            if d.kind in ("undef", "define"):
                name = (_tokens(d.text)[:1] or [""])[0]
                if name and is_rocm_name(name):
                    last[name] = d.kind
        out.update(n for n, k in last.items() if k == "undef")
    return frozenset(out)


def derived_names(files: Mapping[str, tuple[list[Directive], int]], rocm_names: Iterable[str] = (),
                  rounds: int = 3) -> tuple[frozenset[str], frozenset[str]]:
    """Project macros that stand for a build: names #define'd only inside ROCm-only arms (anywhere in the repository)
    are ROCm-side, names #define'd only inside CUDA-only arms are CUDA-side. Repeated a few rounds, since a derived
    name can guard the definition of another."""
    rocm = set(rocm_names)
    paired = paired_cuda_switches(files.values(), rocm)
    cuda: set[str] = set(paired)
    # Only files that #define something can derive a name; each one's definitions are listed once, not per round.
    # A header no file includes (by its file name, in a quoted or angle #include) reaches no build: what its ROCm arm
    # defines says nothing about the ROCm build (a change's unincluded `#ifdef USE_ROCM / #define FAST_PATH 1`
    # header must not make `#ifdef FAST_PATH` read ROCm-only).
    included = {_include_name(d.text) for dirs, _total in files.values() for d in dirs if d.kind == "include"}
    defining = [(dirs, total, found, condition_names(dirs)) for path, (dirs, total) in files.items()
                if (found := defines(dirs)) and (path.endswith(_UNIT_ENDINGS) or path.rsplit("/", 1)[-1] in included)]
    for _ in range(rounds):
        sides: dict[str, set[str]] = {}
        rocm_bodies: dict[str, set[str]] = {}
        for dirs, total, found, names in defining:
            if not builds_differ(names, rocm, cuda):
                # Every line reads "both" or "none" here: either makes each name's set of sides neither {ROCM}
                # nor {CUDA}, which is all the sets are asked below.
                for _line, name, _body in found:
                    sides.setdefault(name, set()).add("both")
                continue
            regions = evaluate(dirs, total, rocm, cuda)
            starts = [r.start for r in regions]
            for line, name, body in found:
                at = _side_at(regions, starts, line)[0]
                sides.setdefault(name, set()).add(at)
                if at == ROCM:
                    rocm_bodies.setdefault(name, set()).add(body.strip())
        new_rocm = {n for n, s in sides.items() if s == {ROCM}} | set(rocm_names)
        # A feature macro the ROCm arm defines as 0 and the CUDA arm as something else (mscclpp's
        # CUDA_NVLS_API_AVAILABLE) is off in the ROCm build: `#if` on it is the CUDA build's code.
        new_cuda = {n for n, s in sides.items() if s == {CUDA} or (s == {CUDA, ROCM} and rocm_bodies.get(n) == {"0"})}
        if new_rocm | rocm == rocm and new_cuda == cuda:
            break
        rocm |= new_rocm
        cuda = (new_cuda | paired) - rocm
    return frozenset(rocm), frozenset(cuda)


# The word of a switch macro that names the vendor, and what the ROCm twin of such a switch puts in its place.
_CUDA_WORD = "CUDA"
_ROCM_WORDS = ("HIP", "ROCM", "AMD")
# A library switch's word and its ROCm libraries' (`HYPRE_USING_CUSPARSE` beside `HYPRE_USING_ROCSPARSE`): the ROCm
# library exists only in a ROCm build, so a switch named after it is a ROCm-side twin wherever the directives use it.
_LIBRARY_TWINS = {
    "CUBLAS": ("ROCBLAS", "HIPBLAS"), "CUBLASLT": ("HIPBLASLT",), "CUSPARSE": ("ROCSPARSE", "HIPSPARSE"),
    "CUSOLVER": ("ROCSOLVER", "HIPSOLVER"), "CURAND": ("ROCRAND", "HIPRAND"), "CUFFT": ("ROCFFT", "HIPFFT"),
    "NCCL": ("RCCL",), "CUDNN": ("MIOPEN",), "CUB": ("HIPCUB", "ROCPRIM"), "THRUST": ("ROCTHRUST",),
}


def paired_cuda_switches(files: Iterable[tuple[list[Directive], int]], rocm_names: Iterable[str] = ()) -> set[str]:
    """Macros with a CUDA component whose ROCm twin - the same name with HIP, ROCM or AMD in its place - is a
    ROCm-side name the repository's directives also use: `MSCCLPP_DEVICE_CUDA` beside `MSCCLPP_DEVICE_HIP`,
    `WITH_CUDA` beside `WITH_HIP`; or a CUDA library switch whose ROCm library twin another arm of the same group
    tests (`HYPRE_USING_CUSPARSE` / `#elif defined(HYPRE_USING_ROCSPARSE)`). A project that names one switch per vendor defines the CUDA one only in the
    CUDA build, wherever (and however often, `#define`/`#undef` around an include) it is set; without its twin in
    sight a CUDA-named macro stays unknown (PyTorch's ROCm builds define USE_CUDA too)."""
    known = set(rocm_names)
    names: set[str] = set()
    siblings: set[frozenset[str]] = set()
    for dirs, _total in files:
        names |= condition_names(dirs)
        names.update(name for _line, name, _body in defines(dirs))
        siblings |= _library_siblings(dirs)
    out = set()
    for dirs, _total in files:
        out |= _forked_cuda_switches(dirs, known)
    for n in names:
        parts = n.split("_")
        if _CUDA_WORD in parts:
            i = parts.index(_CUDA_WORD)
            twins = ("_".join(parts[:i] + [w] + parts[i + 1:]) for w in _ROCM_WORDS)
            if any(t in names and (t in known or is_rocm_name(t)) for t in twins):
                out.add(n)
                continue
        for i, p in enumerate(parts):
            if p in _LIBRARY_TWINS and any(frozenset((n, "_".join(parts[:i] + [w] + parts[i + 1:]))) in siblings
                                           for w in _LIBRARY_TWINS[p]):
                out.add(n)
                break
    return out


# The vendor words of a switch that forks against a later ROCm-side arm (_forked_cuda_switches): the toolkit's and
# the device vendor's. Only a name with one of them counts: `#if USE_FAST_PATH` ... `#elif USE_HIP` is a feature
# switch that a ROCm build may set too.
_FORK_WORDS = frozenset({_CUDA_WORD, "NVIDIA"})


def _forked_cuda_switches(dirs: Iterable[Directive], known: set[str]) -> set[str]:
    """CUDA-named switches that one arm of a group tests while a later arm tests a ROCm-side name: TensorFlow's
    `#if GOOGLE_CUDA` ... `#elif TENSORFLOW_USE_ROCM`. The project forks by vendor there, so the CUDA switch is
    unset in the ROCm build (else that build would never reach its own arm). A switch named for the NVIDIA device
    rather than its toolkit forks the same way (DFT-FE's `#ifdef DFTFE_WITH_DEVICE_NVIDIA` ... `#elif
    DFTFE_WITH_DEVICE_AMD`, each arm its vendor's warp and block sizes): _FORK_WORDS."""
    out: set[str] = set()
    stack: list[list[tuple[str, ...]]] = []
    for d in dirs:
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append([tuple(_tokens(d.text)) if d.kind != "ifndef" else ()])
        elif d.kind in ("elif", "elifdef", "elifndef") and stack:
            stack[-1].append(tuple(_tokens(d.text)) if d.kind != "elifndef" else ())
        elif d.kind == "endif" and stack:
            arms = stack.pop()
            for i, arm in enumerate(arms):
                # only a plain switch test (`X`, `defined(X)`), never `__CUDA_ARCH__ >= 800` or a negation
                names = [t for t in arm if t not in ("defined", "(", ")")]
                if len(names) != 1 or names[0].startswith("__") or not _FORK_WORDS & set(names[0].upper().split("_")):
                    continue
                if any(is_rocm_name(t) or t in known for later in arms[i + 1:] if "!" not in later for t in later):
                    out.add(names[0])
    return out


def _library_siblings(dirs: Iterable[Directive]) -> set[frozenset[str]]:
    """Pairs of names tested by different arms of one `#if` group where one is a CUDA library switch: a library
    switch counts as paired only where the project chooses between the two libraries (`#if defined(X_CUSPARSE)` ...
    `#elif defined(X_ROCSPARSE)`); elsewhere a ROCm build may define the CUDA-named one too (hipBLAS builds that
    kept `*_CUBLAS`)."""
    out: set[frozenset[str]] = set()
    stack: list[list[frozenset[str]]] = []
    for d in dirs:
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append([frozenset(_tokens(d.text))])
        elif d.kind in ("elif", "elifdef", "elifndef") and stack:
            stack[-1].append(frozenset(_tokens(d.text)))
        elif d.kind == "endif" and stack:
            arms = stack.pop()
            if len(arms) < 2:
                continue
            for i, a in enumerate(arms):
                for n in a:
                    parts = n.split("_")
                    for k, p in enumerate(parts):
                        for w in _LIBRARY_TWINS.get(p, ()):
                            twin = "_".join(parts[:k] + [w] + parts[k + 1:])
                            if any(twin in b for j, b in enumerate(arms) if j != i):
                                out.add(frozenset((n, twin)))
    return out


# ------------------------------------------------------------------------------------------ one file, every question

class _Neutral(Build):
    """The build that knows no macro at all: what it rejects, no build compiles (`#if 0`, `#else` of `#if 1`)."""

    def __init__(self) -> None:
        super().__init__("neutral")

    def vendor(self, name: str | None) -> bool:
        return False

    def value(self, name: str | None):
        return False if name in EDITOR_ONLY else None


_NEUTRAL = _Neutral()
ARCH = "__CUDA_ARCH__"


@dataclass(frozen=True)
class Arm:
    """One arm of an `#if` group: its directive (kind, condition text, first and last line) and its body's last
    line (the line before the next arm's directive or the `#endif`; `last < end_line` for an empty arm)."""

    kind: str  # if ifdef ifndef elif elifdef elifndef else
    text: str
    line: int
    end_line: int
    last: int

    @property
    def body(self) -> range:
        """The arm's body lines (nested directives included)."""
        return range(self.end_line + 1, self.last + 1)


@dataclass(frozen=True)
class Group:
    """An `#if … #endif` group: its arms in order and the `#endif` line (the file's last line when unclosed)."""

    arms: tuple[Arm, ...]
    endif: int

    @property
    def has_else(self) -> bool:
        return self.arms[-1].kind == "else"


# How many groups around one line a finding's refinements read, innermost first: real code nests a few deep; a
# file nested 20,000 deep with a finding at every level made the refinements cost findings x depth.
MAX_GROUPS_AROUND = 256


def groups_around(groups: Sequence[Group]) -> Callable[[int], tuple[Group, ...]]:
    """`around(line)`: the groups (of `groups`, in the order they close) whose lines, from the first `#if` to the
    `#endif`, hold `line`, innermost first and at most MAX_GROUPS_AROUND of them. The per-finding refinements
    (porter.match.refine: feature_defines, introspection, optional_dropin, profiling_switch) and
    Preprocessed.enclosing look only at such groups, so handing them
    these instead of every group of the file gives the same answers, in time that does not grow with the file's
    group count (10,000 groups and a finding in each took minutes). Groups nest or are apart, as directives do."""
    order = sorted(range(len(groups)), key=lambda i: (groups[i].arms[0].line, -groups[i].endif, -i))
    parent = [-1] * len(groups)
    stack: list[int] = []
    for i in order:
        first = groups[i].arms[0].line
        while stack and groups[stack[-1]].endif < first:
            stack.pop()
        parent[i] = stack[-1] if stack else -1
        stack.append(i)
    starts = [groups[i].arms[0].line for i in order]

    def around(line: int) -> tuple[Group, ...]:
        k = bisect.bisect_right(starts, line) - 1
        i = order[k] if k >= 0 else -1
        out: list[Group] = []
        steps = 0
        while i >= 0 and len(out) < MAX_GROUPS_AROUND and steps < 4 * MAX_GROUPS_AROUND:
            if groups[i].endif >= line:
                out.append(groups[i])
            i, steps = parent[i], steps + 1
        return tuple(out)

    return around


@dataclass(frozen=True)
class Preprocessed:
    """Every answer about one file's directives (see the module doc), from one lex."""

    directives: tuple[Directive, ...]
    total: int  # the file's line count
    groups: tuple[Group, ...]  # in the order they close (inner before outer)
    dead: frozenset[int]
    # (first line, device only?) where the answer of device_only changes, in line order
    arch_points: tuple[tuple[int, bool], ...]
    # `#if`/`#elif` lines of groups whose `#else` has code (porter reads that `#else` as the HIP path of a toolkit
    # version test: see toolkit_versions)
    toolkit_lines: frozenset[int] = frozenset()
    empty_arms: frozenset[int] = frozenset()  # directive lines of arms whose body holds no code
    _regions: dict = field(default_factory=dict, compare=False, repr=False)

    def device_only(self, line: int) -> bool:
        """Whether `line` is in an arm only a device pass that defines `__CUDA_ARCH__` compiles (`#ifdef
        __CUDA_ARCH__`, `#if __CUDA_ARCH__ >= 800`, the `#else` of `#ifndef __CUDA_ARCH__`); the innermost group
        that tests `__CUDA_ARCH__` decides."""
        i = bisect.bisect_right(self.arch_points, (line, True)) - 1
        return i >= 0 and self.arch_points[i][1]

    def conditional_at(self, line: int) -> str | None:
        """The kind of the conditional directive (`if`, `ifdef`, `elif`, `else`, `endif`, …) whose lines hold `line`,
        or None."""
        lines = self._regions.get("conditional_lines")
        if lines is None:
            lines = self._regions["conditional_lines"] = {
                n: d.kind for d in self.directives if d.kind not in ("define", "undef", "include")
                for n in range(d.line, d.end_line + 1)}
        return lines.get(line)

    def enclosing(self, line: int) -> list[tuple[Group, int]]:
        """Every `#if` group whose arm holds `line` in its body (outermost first), with that arm's index (of the
        innermost MAX_GROUPS_AROUND groups around it: groups_around, once per file, not a pass over every group per
        call)."""
        around = self._regions.get("around")
        if around is None:
            around = self._regions["around"] = groups_around(self.groups)
        out = []
        for g in around(line):
            if not g.arms[0].end_line < line < g.endif:
                continue
            i = max(j for j, a in enumerate(g.arms) if a.line <= line)
            if line > g.arms[i].end_line:
                out.append((g, i))
        out.sort(key=lambda gi: gi[0].arms[0].line)
        return out

    def regions(self, rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = ()) -> list[Region]:
        """`evaluate` of this file for these build names, once per set of names."""
        key = (frozenset(rocm_names), frozenset(cuda_names))
        found = self._regions.get(key)
        if found is None:
            found = self._regions[key] = evaluate(list(self.directives), self.total, *key, self.toolkit_lines)
        return found

    def builds_differ(self, rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = ()) -> bool:
        """Whether any line can be compiled by one build only (see the module function)."""
        return builds_differ(condition_names(self.directives), rocm_names, cuda_names)

    def build_only(self, build: str, rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = ()) -> list[Region]:
        """The regions `build` compiles alone (or neither build does), in line order: empty when none."""
        return [r for r in self.regions(rocm_names, cuda_names) if r.side in (build, "none")]


# The last file preprocess was asked about, its comments blanked and its answer: the parser's input of a file is
# most often its bytes unchanged (porter.source.parse), so one_arm_for_braces and then preprocessed(sf) ask about
# equal bytes, and the second is answered here instead of lexing the file again (the answer depends on the bytes
# alone and is not changed by its readers; its _regions is a memo of the same answers).
_LAST: list = [None, b"", None, None]


def preprocess(data: bytes) -> Preprocessed:
    """The file's directives lexed once, with its groups, dead lines and `__CUDA_ARCH__` arms."""
    return _preprocess(data)[0]


def _preprocess(data: bytes) -> tuple[Preprocessed, bytes]:
    """preprocess(data) and the bytes with comments blanked (`data` itself when it has no `#`)."""
    last = _LAST[0]
    if last is not None and (last is data or last == data):
        return _LAST[2], _LAST[1]
    _LAST[0] = None
    total = data.count(b"\n") + (not data.endswith(b"\n"))  # the file's lines (a final newline ends the last)
    if not may_hold_directives(data):
        return Preprocessed((), total, (), frozenset(), ()), data
    code, joins = _blanked(data)
    dirs = tuple(_lex(code, joins))
    groups, dead, arch = _walk(dirs, total)
    starts = _starts(code) if groups else None
    empty = _empty_arms(code, groups, starts) if starts is not None else frozenset()
    toolkit = frozenset(a.line for g in groups if g.has_else and g.arms[-1].line not in empty
                        and not _diagnostics_only(code, g.arms[-1], starts) for a in g.arms[:-1])
    # ... and the arms before one that tests a ROCm name (`#if __CUDA_ARCH__ >= 700` ... `#elif defined(USE_HIP)`):
    # that arm is the HIP path, whether or not an #else follows.
    toolkit |= frozenset(_before_rocm_arm(groups))
    # ... and a group without `#else` whose arms only #include toolkit headers (`#if CCCL_VERSION >= 3004000` /
    # `#include <cuda/iterator>` / `#endif`): a build that leaves the version undefined just does not include the
    # header, which is no port item; whatever uses the header is reported where it is used. A project header
    # (`#ifdef CUDART_VERSION` / `#include <halmd/numeric/blas/detail/cuda_vector_converter.hpp>`, HAL's MD) is the
    # project's own code the HIP build may need: that group stays undecided.
    if starts is not None:
        toolkit |= frozenset(a.line for g in groups if not g.has_else
                             and all(_includes_only(code, a, starts) for a in g.arms) for a in g.arms)
    pp = Preprocessed(dirs, total, groups, dead, arch, toolkit, empty)
    _LAST[:] = [data, code, pp, starts]
    return pp, code


def _groups_of(dirs: Iterable[Directive]) -> list[Group]:
    """The `#if` groups of a directive list, arms only (bodies are not needed by _before_rocm_arm)."""
    out: list[Group] = []
    stack: list[list[Arm]] = []
    for d in dirs:
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append([Arm(d.kind, d.text, d.line, d.end_line, d.end_line)])
        elif d.kind in ("elif", "elifdef", "elifndef", "else") and stack:
            stack[-1].append(Arm(d.kind, d.text, d.line, d.end_line, d.end_line))
        elif d.kind == "endif" and stack:
            out.append(Group(tuple(stack.pop()), d.line))
    return out


def _before_rocm_arm(groups: Iterable[Group]) -> Iterable[int]:
    """The directive lines of the arms that come before an arm testing a ROCm name, one backward pass per group."""
    for g in groups:
        later = False
        for a in reversed(g.arms):
            if later:
                yield a.line
            elif a.kind != "else" and ("HIP" in a.text.upper() or "ROC" in a.text.upper() or "AMD" in a.text.upper()
                                       or "gfx" in a.text):
                later = any(is_rocm_name(t) for t in _tokens(a.text))


_PLUS_ONE = (1).__add__


def _starts(code: bytes) -> list[int]:
    """The byte offset of each line's start, and after a final newline the end: each line's length and its newline
    summed in C (a step per line in Python was a tenth of preprocessing). Memoised with the last file preprocessed
    (blanking comments keeps every newline, so the file's and its blanked code's are the same)."""
    if _LAST[3] is not None and _LAST[1] is code:
        return _LAST[3]
    return list(itertools.accumulate(map(_PLUS_ONE, map(len, code.split(b"\n")[:-1])), initial=0))


_DIAGNOSTIC = re.compile(rb"[ \t]*#[ \t]*(?:pragma|error|warning)\b")


def arm_span(arm: Arm, starts: Sequence[int], size: int) -> tuple[int, int]:
    """The byte span of an arm's body, from the line after its directive to its last line (empty when it has none),
    to search in place without copying it; `starts`: each line's first byte, `size`: the text's length."""
    n = len(starts)
    if arm.last <= arm.end_line:
        return size, size
    return (starts[arm.end_line] if arm.end_line < n else size), (starts[arm.last] if arm.last < n else size)


def _diagnostics_only(code: bytes, arm: Arm, starts: list[int] | None) -> bool:
    """Whether an arm's body holds only `#pragma` / `#error` / `#warning` lines: an `#else` that says "this needs a
    newer CUDA" (threadFenceReduction.cu's `#if CUDART_VERSION >= 2020` / `#else` / `#pragma comment(user, ...)`)
    is no HIP path, so the arms before it stay the code the ROCm build needs too."""
    return starts is not None and _only_rows(code, arm, starts, lambda line: bool(_DIAGNOSTIC.match(line)))


def _includes_only(code: bytes, arm: Arm, starts: list[int]) -> bool:
    """Whether an arm's body holds code and every line of it includes an NVIDIA toolkit header (comments blanked)."""
    return _only_rows(code, arm, starts, lambda line: bool(_INCLUDE_ROW().match(line.strip())))


def _only_rows(code: bytes, arm: Arm, starts: list[int], row: Callable[[bytes], bool]) -> bool:
    """Whether an arm's body has a line that is not blank and every such line is a `row`."""
    seen = False
    for line in _rows(code, arm, starts):
        if not row(line):
            return False
        seen = True
    return seen


_ROW = re.compile(rb"[^\n]+")


def _rows(code: bytes, arm: Arm, starts: list[int]) -> Iterator[bytes]:
    """The lines of an arm's body that hold more than blanks, read in place one at a time: the checks above and
    _empty_arms stop at the first line that fails, which in an arm holding a nested group is the nested `#if`, so N
    nested groups cost N steps, not the N^2 of copying every arm's whole body (20,000 nested `#if`, 240 KB, took the
    file budget)."""
    start, end = arm_span(arm, starts, len(code))
    for m in _ROW.finditer(code, start, end):
        if m.group(0).strip():
            yield m.group(0)


# An include of an NVIDIA toolkit header: CCCL's and the toolkit's folders (`<cuda/iterator>`, `<cub/cub.cuh>`,
# `<thrust/sort.h>`, `<nvtx3/...>`) or a toolkit header at the top level (`<cuda_fp16.h>`, `<cusparse.h>`).
_INCLUDE_ROW = lazy_regex(rb"#\s*include\s*<(?:(?:cuda|cub|thrust|cutlass|cute|nv\w*)/[^>]*|(?:cuda|cu|nv)\w*\.(?:h|hpp|cuh))>")


def _empty_arms(code: bytes, groups: tuple[Group, ...], starts: list[int]) -> frozenset[int]:
    """Directive lines of the arms whose body is blank once comments are (nested directives count as code)."""
    return frozenset(a.line for g in groups for a in g.arms if next(_rows(code, a, starts), None) is None)


def one_arm_for_braces(data: bytes) -> bytes:
    """`data` with each `#if` group whose arms open or close braces (`#if FAST` / `if (a && b) {` / `#else` /
    `if (a) {` / `#endif`, closed once below) read as a compiler reads it: the first arm's body kept, the group's
    directives and every later arm blanked to spaces (newlines kept, so offsets and lines stay). Without it a parser
    that reads every arm sees two `{` for one `}`, and a kernel's extent runs on into the host launcher after it, or
    the kernel is lost. Groups whose arms keep the braces balanced, and one-arm groups, are left as they are.

    A group whose arms are alternative heads of the one body after its `#endif` (`#ifdef __CUDACC__` /
    `__global__ void k(...)` / `#else` / `void cpu_k(...)` / `#endif` / `{`: one source a C++ compiler builds for
    the CPU and nvcc for the GPU) is read one arm too: both heads before one body are no function at all to a
    parser, and the kernel is lost. The arm kept is the one declaring a `__global__` function (only a CUDA/HIP
    compiler accepts that keyword, so it is the arm the GPU build reads), else the first.

    An arm no build compiles (`#if 0`, the `#else` of `#if 1`, any arm inside one: what `_walk` reads as dead) is
    never the one kept while a live arm exists, and a group of one dead arm that opens or closes braces (`#if 0` /
    `for (...) {` / `#endif`, a loop head switched off) is blanked whole: the compiler skips it, so its brace must not
    cost the parser the kernel around it. A live group of one arm that opens or closes braces is read as taken (its
    directives blanked, its body kept): its brace pairs with code the compiler reads with it, which a parser cannot
    follow across the directive.

    A group whose arms are alternative bodies of the one head before its `#if` (`__global__ void k(...)` /
    `#ifdef __CUDACC__` / `{ GPU body }` / `#else` / `{ CPU body }` / `#endif`, ramsesGPU's form) is read one arm too,
    the one the CUDA compiler takes (see _alternative_bodies). So is a group inside a declaration's specifiers
    (`__global__` / `#if __CUDA_ARCH__ >= 500` / `__launch_bounds__(512, 3)` / `#endif` / `void k(...)`, how
    ccminer and others bound a kernel per architecture; see _specifier_arms): there the arm kept is the one HIP's
    device pass compiles when the conditions decide it (none for that example), a group of one arm otherwise read
    as taken."""
    if not may_hold_directives(data) or (b"{" not in data and b"}" not in data):
        return data
    pp, code = _preprocess(data)
    if not pp.groups:
        return data
    starts = _starts(code)
    total = len(starts)

    def span(first: int, last: int) -> tuple[int, int]:  # lines, 1-based inclusive -> byte offsets
        return starts[first - 1], (starts[last] if last < total else len(code))

    def delta(first: int, last: int) -> int:
        if last < first:
            return 0
        a, b = span(first, last)
        return code.count(b"{", a, b) - code.count(b"}", a, b)

    out = None
    for g in pp.groups:
        unbalanced = any(delta(a.end_line + 1, a.last) for a in g.arms)
        if len(g.arms) < 2:
            specifiers = None if unbalanced else _specifier_arms(code, g, span, total)
            if not unbalanced and specifiers is None:
                continue
            # A dead arm: nothing of the group is kept. A live one is read as taken, its directives blanked: the
            # brace it opens is closed by code outside it or by a like group below (`#ifdef TIMING` / `if (t) {`
            # / `#endif` ... `#ifdef TIMING` / `}` / `#endif`), which is read the same way, so the two balance.
            # Specifiers HIP's device pass skips (`#if __CUDA_ARCH__ >= 500` / `__launch_bounds__(512, 3)`) are
            # not kept either (_specifier_arms answers -1).
            keep = -1 if _dead_arms(g, pp.dead) else (0 if specifiers is None else specifiers)
        elif unbalanced:
            dead = _dead_arms(g, pp.dead)
            keep = next((i for i in range(len(g.arms)) if i not in dead), 0)
        else:
            heads = _alternative_heads(code, g, span, total)
            if heads is None:
                heads = _alternative_bodies(code, g, span, pp.dead)
            if heads is None:
                heads = _specifier_arms(code, g, span, total, pp.dead)
            if heads is None:
                continue
            keep = heads
        lines = [(a.line, a.end_line) for a in g.arms] + [(a.end_line + 1, a.last)
                                                          for i, a in enumerate(g.arms) if i != keep]
        if g.endif <= pp.total:
            lines.append((g.endif, g.endif))
        for first, last in lines:
            if last < first:
                continue
            a, b = span(first, last)
            if out is None:
                out = bytearray(data)
            out[a:b] = data[a:b].translate(_TO_SPACE)
    return data if out is None else bytes(out)


def alternative_body_spans(data: bytes) -> tuple[tuple[int, int, int], ...]:
    """(first, last, end) lines of each group one_arm_for_braces reads as alternative bodies of one function head
    (`__global__ void k(...)` / `#if defined(FAST)` / `{ ... }` / `#else` / `{ ... }` / `#endif`): the kept arm's
    body lines and the group's last line before its `#endif`. The parser sees the kept body only, so the function it
    gives ends inside the kept arm; the source's function runs on to the `#endif`, and every arm a build may take is
    its body (issue 27 class 5: a finding in the `#else` body is in the kernel). Not a group the CUDA compiler's
    own macro decides (`#ifdef __CUDACC__`): its other arm is the CPU body, which no GPU build compiles."""
    if not may_hold_directives(data) or b"{" not in data:
        return ()
    pp, code = _preprocess(data)
    if not pp.groups:
        return ()
    starts = _starts(code)
    total = len(starts)

    def span(first: int, last: int) -> tuple[int, int]:
        return starts[first - 1], (starts[last] if last < total else len(code))

    out = []
    for g in pp.groups:
        if len(g.arms) < 2 or g.endif > total:
            continue
        if any(code.count(b"{", *span(a.end_line + 1, a.last)) != code.count(b"}", *span(a.end_line + 1, a.last))
               for a in g.arms if a.last >= a.end_line + 1):
            continue
        if _alternative_heads(code, g, span, total) is not None:
            continue
        keep = _alternative_bodies(code, g, span, pp.dead)
        # a group deciding by the CUDA compiler's macro (`#ifdef __CUDACC__` / `{ GPU }` / `#else` / `{ CPU }`)
        # has one GPU body, the kept one: the other is the host compiler's, no kernel's
        first = g.arms[0]
        if any(a.kind in ("ifdef", "elifdef", "if", "elif") and _DEFINED_CUDA.match(a.text) for a in g.arms) or (
                first.kind == "ifndef" and first.text.split()[:1] in ([m] for m in _CUDA_COMPILER)):
            continue
        if keep is not None and g.arms[keep] is not g.arms[-1]:
            a = g.arms[keep]
            out.append((a.end_line + 1, a.last, g.endif - 1))
    return tuple(out)


def _dead_arms(g: Group, dead: frozenset[int]) -> frozenset[int]:
    """The indices of `g`'s arms no build compiles, as `_walk` reads them: the whole group when its `#if` line is
    dead (inside an outer dead arm), else each arm after one known true, and each arm whose own condition is known
    false (`#if 0`, `#elif 0`). Read from the conditions, not from `dead`'s body lines, so an empty arm counts too."""
    if g.arms[0].line in dead:
        return frozenset(range(len(g.arms)))
    out, taken = set(), False
    for i, a in enumerate(g.arms):
        value = None if a.kind == "else" else condition(a.kind, a.text, _NEUTRAL)[0]
        if taken or value is False:
            out.add(i)
        taken = taken or value is True
    return frozenset(out)


# An arm that is only declaration specifiers: words, each maybe with one parenthesised argument list
# (`__launch_bounds__(512, 3)`, `__attribute__((used))`), nothing that ends or opens a statement.
_SPECIFIERS = re.compile(rb"(?:[A-Za-z_]\w*\b[ \t\r\n]*(?:\((?:[^;{}()]|\([^;{}()]*\))*\)[ \t\r\n]*)?)+")
_CUDA_SPECIFIER = re.compile(rb"\b(?:__global__|__device__|__host__|__launch_bounds__|__maxnreg__|__forceinline__|"
                             rb"__noinline__|__cluster_dims__)\b")
_SPECIFIER_ARM_BYTES = 512
# Code that ends inside a CUDA declaration's specifiers (before an empty group: _specifier_arms).
_SPECIFIER_END = re.compile(rb"(?:\b(?:__global__|__device__|__host__|__forceinline__|__noinline__)|"
                            rb"\b__launch_bounds__[ \t]*\([^()]*\))[ \t\r\n]*\Z")

# Code that ends inside a declaration begun before a group in its specifiers (a CUDA specifier, a template head):
# which arm is kept there does not move the declaration's first line.
_DECLARATION_BEFORE = re.compile(rb"(?:\b(?:__global__|__device__|__host__|__forceinline__|__noinline__)|"
                                 rb"\b__launch_bounds__[ \t]*\([^()]*\)|\btemplate[ \t\r\n]*<[^;{}#]*>)[ \t\r\n]*\Z")


def _specifier_arms(code: bytes, g: Group, span: Callable[[int, int], tuple[int, int]], total: int,
                    dead: frozenset[int] = frozenset()) -> int | None:
    """The index of the arm to keep when `g` sits inside a declaration's specifiers: every arm with code is only
    specifier words (_SPECIFIERS, at most _SPECIFIER_ARM_BYTES), one of them CUDA's (`__global__`,
    `__launch_bounds__(n)`, ...), and the code after the `#endif` goes on with a word (the rest of the declaration).
    Keeps the arm hip-clang's device pass compiles when the conditions decide it (hip_device_arm; -1: none, as for
    `#if __CUDA_ARCH__ >= 500` without an `#else`), since porter's kernel verdicts are about the HIP build and the
    bounds it reads are that build's; when they do not (a project switch), or when that arm would drop a
    `__global__` another arm says, the first live arm that says `__global__`, else the first live arm with code. A
    parser reads the directive as the end of the declaration, and the kernel is lost. None when `g` is no such
    group."""
    if g.endif >= total:
        return None
    after = span(g.endif, g.endif)[1]
    j = after
    while j < len(code) and code[j] in b" \t\r\n\f\v":
        j += 1
    if j >= len(code) or not (code[j] == 0x5F or 0x41 <= code[j] <= 0x5A or 0x61 <= code[j] <= 0x7A):
        return None
    with_code, cuda = [], False
    for i, a in enumerate(g.arms):
        if a.last < a.end_line + 1:
            continue
        lo, hi = span(a.end_line + 1, a.last)
        if hi - lo > _SPECIFIER_ARM_BYTES:
            return None
        body = code[lo:hi].strip()
        if not body:
            continue
        if not _SPECIFIERS.fullmatch(body):
            return None
        says = _CUDA_SPECIFIER.search(body) is not None
        cuda = cuda or says
        with_code.append((i, _GLOBAL_WORD.search(body) is not None))
    if not with_code:
        # every arm empty (`__global__` / `#if __CUDA_ARCH__ >= 500` / `//__launch_bounds__(128, 12)` / `#endif`):
        # nothing to choose, but the directives still split the declaration when it is a CUDA one
        start = span(g.arms[0].line, g.arms[0].line)[0]
        return 0 if _SPECIFIER_END.search(code, max(0, start - 128), start) else None
    if not cuda:
        return None
    killed = _dead_arms(g, dead) if dead else frozenset()
    live = [(i, k) for i, k in with_code if i not in killed] or with_code
    first = next((i for i, kernel in live if kernel), live[0][0])
    hip = hip_device_arm(g)
    if hip is None or hip == first:
        return first
    # The arm HIP compiles, unless choosing it would change the kernel as found: drop the `__global__` only nvcc's
    # arm says, or move the declaration's first line (the group opens it: `#if ...` / `__global__
    # __launch_bounds__(1024, 1)` / `#else` / `__global__ __launch_bounds__(256, 2)` / `#endif` / `void k(...)`).
    kernel_arms = {i for i, kernel in with_code if kernel}
    if kernel_arms and hip not in kernel_arms:
        return first
    start = span(g.arms[0].line, g.arms[0].line)[0]
    if not _DECLARATION_BEFORE.search(code, max(0, start - 256), start):
        return first
    return hip


def hip_device_arm(g: Group) -> int | None:
    """The index of the arm of `g` hip-clang's device pass compiles over hipified code (_HipifiedDevicePass:
    `__CUDA_ARCH__` undefined, `__CUDACC__` defined), -1 when it compiles none, None when a condition it depends on
    is unknown there. `#if __CUDA_ARCH__ > 500` / `__launch_bounds__(32, 16)` / `#else` / `__launch_bounds__(64, 8)`
    is 1: nvcc takes the first arm for sm_50 and later, HIP always the `#else`."""
    decided, taken = _taken(_arm_truths(g, _VersionlessHipDevicePass()))
    return None if not decided else -1 if taken is None else taken


# The CUDA compiler's own macros: an arm that tests one of them defined is the arm nvcc compiles.
_CUDA_COMPILER = ("__CUDACC__", "__CUDA_ARCH__", "__NVCC__")
_DEFINED_CUDA = re.compile(r"^\s*(?:defined\s*\(?\s*)?(?:__CUDACC__|__CUDA_ARCH__|__NVCC__)\b")


def _arm_code(code: bytes, g: Group, span: Callable[[int, int], tuple[int, int]]) -> Iterator[tuple[int, bytes]]:
    """(index, stripped code) of each arm of `g` that holds code between its directive and the next one."""
    for i, a in enumerate(g.arms):
        if a.last < a.end_line + 1:
            continue
        lo, hi = span(a.end_line + 1, a.last)
        body = code[lo:hi].strip()
        if body:
            yield i, body


def _alternative_bodies(code: bytes, g: Group, span: Callable[[int, int], tuple[int, int]],
                        dead: frozenset[int]) -> int | None:
    """The index of the arm to keep when `g` follows a function head (the code before its `#if` ends in `)`) and
    every arm with code, at least two, is one `{ ... }` body: the arm that tests a CUDA compiler macro defined
    (`#ifdef __CUDACC__`, `#if defined(__CUDA_ARCH__)`, the `#else` of `#ifndef __CUDACC__`), else the first live
    arm with code. None when `g` is no such group."""
    start = span(g.arms[0].line, g.arms[0].line)[0]
    j = start - 1
    while j >= 0 and code[j] in b" \t\r\n\f\v":
        j -= 1
    if j < 0 or code[j] != 0x29:  # `)`
        return None
    with_code = []
    for i, body in _arm_code(code, g, span):
        if not (body.startswith(b"{") and body.endswith(b"}")):
            return None
        with_code.append(i)
    if len(with_code) < 2:
        return None
    first = g.arms[0]
    for i in with_code:
        a = g.arms[i]
        if a.kind in ("ifdef", "elifdef", "if", "elif") and _DEFINED_CUDA.match(a.text):
            return i
        if a.kind == "else" and first.kind == "ifndef" and first.text.split()[:1] in ([m] for m in _CUDA_COMPILER):
            return i
    live = [i for i in with_code if i not in _dead_arms(g, dead)]
    return (live or with_code)[0]


# What follows a function head: its body's brace (after blanks and newlines).
_BODY_NEXT = re.compile(rb"[ \t\r\n\f\v]*\{")
_GLOBAL_WORD = re.compile(rb"\b__global__\b")


def _alternative_heads(code: bytes, g: Group, span: Callable[[int, int], tuple[int, int]], total: int) -> int | None:
    """The index of the arm to keep when every arm of `g` with code is a function head (a parenthesised declarator,
    no `;` or braces, its code ending at a `)`), at least two arms have code, and the first code after the
    `#endif` is `{`: the arm whose head says `__global__`, else the first with code. Heads may also stop inside
    their parameter list (`__global__ void __launch_bounds__(64) k(double w,` / `#elif HIP` / `__global__ void
    k(double w,` / `#endif` / `int n) {`, Octo-Tiger's form): then every arm leaves the same number of parentheses
    open and the code after the `#endif` closes them before a `{` and no `;` comes first. None when `g` is no such
    group. (`code`: the file with comments blanked; `span`: lines to byte offsets.)"""
    if g.endif >= total:
        return None
    with_code = []
    open_parens = set()
    for i, body in _arm_code(code, g, span):
        if b"(" not in body or b";" in body or b"{" in body or b"}" in body:
            return None  # (a nested group, `#ifdef DEBUG` around one parameter, is read by its own rules)
        opened = body.count(b"(") - body.count(b")")
        if not (opened == 0 and body.endswith(b")") or opened > 0 and body.endswith((b",", b"("))):
            return None
        open_parens.add(opened)
        with_code.append((i, _GLOBAL_WORD.search(body) is not None))
    if len(with_code) < 2 or len(open_parens) != 1:
        return None
    after = span(g.endif, g.endif)[1]
    (opened,) = open_parens
    if opened == 0:
        if not _BODY_NEXT.match(code, after):
            return None
    else:
        brace, semi = code.find(b"{", after), code.find(b";", after)
        if brace < 0 or 0 <= semi < brace:
            return None
        rest = code[after:brace]
        if b"#" in rest or rest.count(b")") - rest.count(b"(") != opened:
            return None  # another directive before the body, or the parentheses do not close there
    return next((i for i, kernel in with_code if kernel), with_code[0][0])


def preprocessed(sf) -> Preprocessed:
    """`preprocess` of a parsed file (porter.source.parse.SourceFile), once per file however many ask."""
    found = sf.cache.get("preprocessor")
    if found is None:
        found = sf.cache["preprocessor"] = preprocess(sf.data)
    return found


@dataclass
class _Open:
    arms: list[list]  # [kind, text, line, end_line, last]
    dead: bool  # the current arm is dead
    taken: bool  # an arm known true (with no macro known) was taken
    outer_dead: bool
    dead_from: int  # the first body line of the current arm
    outer_arch: bool  # the device-only answer around the group
    arch: bool  # the current arm's device-only answer
    # the nearest arm so far that tests `__CUDA_ARCH__`: (its index, whether negated); kept as arms are added so
    # each arm's answer is one step, not a walk back over every arm before it (quadratic in a long #elif chain)
    arch_arm: tuple[int, bool] | None = None


def _arch_answer(g: _Open, outer: bool) -> bool:
    """The current (last) arm's device-only answer: the nearest arm at or before it that tests `__CUDA_ARCH__`
    decides (its own body: compiled when the test is positive; a later arm's: when it is negated), else the
    enclosing arm's answer. Records the current arm in `g.arch_arm` when it tests `__CUDA_ARCH__`."""
    i = len(g.arms) - 1
    kind, text = g.arms[i][0], g.arms[i][1]
    if kind != "else" and ARCH in _tokens(text):
        g.arch_arm = (i, kind.endswith("ndef") or "!" in text)
    if g.arch_arm is None:
        return outer
    j, negated = g.arch_arm
    return negated == (j < i)


def _walk(dirs: tuple[Directive, ...], total: int) -> tuple[tuple[Group, ...], frozenset[int], tuple[tuple[int, bool], ...]]:
    """One pass over the conditionals: the groups, the dead lines (body lines of arms no build compiles, nested
    directives included; read leniently: a stray #else/#endif is ignored, an unclosed #if runs to the end) and the
    device-only change points."""
    groups: list[Group] = []
    dead: set[int] = set()
    points: list[tuple[int, bool]] = []
    stack: list[_Open] = []
    arch = False

    def point(line: int, value: bool) -> None:
        if points and points[-1][0] == line:
            points[-1] = (line, value)
        elif (points[-1][1] if points else False) != value:
            points.append((line, value))

    for d in dirs:
        if d.kind in ("if", "ifdef", "ifndef"):
            outer = bool(stack) and stack[-1].dead
            value, _ = condition(d.kind, d.text, _NEUTRAL)
            opened = _Open([[d.kind, d.text, d.line, d.end_line, total]], outer or value is False, value is True,
                           outer, d.end_line + 1, arch, arch)
            opened.arch = _arch_answer(opened, arch)
            stack.append(opened)
            arch = opened.arch
            point(d.line, arch)
        elif d.kind in ("elif", "elifdef", "elifndef", "else", "endif"):
            if not stack:
                continue
            g = stack[-1]
            g.arms[-1][4] = d.line - 1
            if g.dead:
                dead.update(range(g.dead_from, d.line))
            if d.kind == "endif":
                stack.pop()
                groups.append(Group(tuple(Arm(*a) for a in g.arms), d.line))
                arch = g.outer_arch
                point(d.line + 1, arch)
                continue
            value = condition(d.kind, d.text, _NEUTRAL)[0] if d.kind != "else" else None
            g.dead = g.outer_dead or g.taken or value is False
            g.taken = g.taken or (value is True and not g.dead)
            g.dead_from = d.end_line + 1
            g.arms.append([d.kind, d.text, d.line, d.end_line, total])
            arch = g.arch = _arch_answer(g, g.outer_arch)
            point(d.line, arch)
    while stack:  # unclosed: each runs to the end of the file
        g = stack.pop()
        if g.dead:
            dead.update(range(g.dead_from, total + 1))
        groups.append(Group(tuple(Arm(*a) for a in g.arms), total))
    return tuple(groups), frozenset(dead), tuple(points)


# Arms that compile when their condition holds; `#ifndef`, `#elifndef` and `#else` compile when something is not.
POSITIVE_ARMS = frozenset({"if", "ifdef", "elif", "elifdef"})


def positive_arms(dirs: Iterable[Directive], total: int) -> list[tuple[int, int, str]]:
    """(directive line, line of the next directive of its group, condition) of every positive arm (POSITIVE_ARMS)
    of a file's directives, nested ones too, in line order: for readers that hold the directives (PortFacts) and
    not the file."""
    groups, _dead, _arch = _walk(tuple(dirs), total)
    return sorted((a.line, a.last + 1, a.text) for g in groups for a in g.arms if a.kind in POSITIVE_ARMS)


def names_rocm(text: str, rocm_names: Iterable[str] = ()) -> bool:
    """Whether a condition names a ROCm-side macro (built-in, heuristic or one of `rocm_names`): a test like
    `>= 350 || defined(USE_AMD_ROCM)` already covers HIP."""
    names = rocm_names if isinstance(rocm_names, (set, frozenset)) else frozenset(rocm_names)
    return any((t[:1].isalpha() or t[:1] == "_") and (t in names or _rocm_name(t)) for t in _tokens(text))


# ------------------------------------------------------------------------------------------ arms that vanish on HIP

class _DevicePass(Build):
    """The device pass of one build for a vanishing-arm question: `undefined` names (`__CUDA_ARCH__`) are undefined
    on ROCm and defined with an unknown value on CUDA; `constants` (the repository's named levels, `#define
    GGML_CUDA_CC_TURING 750`) have their values in both; ROCm-side names read as in `Build`."""

    def __init__(self, build: str, undefined: frozenset[str], constants: Mapping[str, int],
                 rocm_names: Iterable[str] = ()):
        super().__init__(build, rocm_names)
        self.undefined = undefined
        self.constants = constants

    def value(self, name: str | None):
        if name in self.undefined:
            return False if self.build == ROCM else DEFINED
        if name in self.constants and not (name in self.rocm or is_rocm_name(name)):
            return self.constants[name]
        return super().value(name)


def _arm_truths(g: Group, build: Build) -> list[Tri]:
    return [True if a.kind == "else" else condition(a.kind, a.text, build)[0] for a in g.arms]


def _taken(truths: list[Tri]) -> tuple[bool, int | None]:
    """(decided, index of the arm a build takes or None when it takes none), from the arms' truths in order."""
    for i, t in enumerate(truths):
        if t is None:
            return False, None
        if t:
            return True, i
    return True, None


def vanishing_arms(pre: Preprocessed, names: Iterable[str], constants: Mapping[str, int] | None = None,
                   rocm_names: Iterable[str] = (), also_empty: frozenset[int] = frozenset()) -> list[tuple[Group, Arm]]:
    """Arms with code that the CUDA device pass may compile and the HIP one never does, in groups where HIP then
    compiles no code at all: `#if __CUDA_ARCH__ >= 800` with no `#else` or an empty one (`names`: macros HIP leaves
    undefined). A group that names a ROCm-side macro chose its HIP path on purpose and is left out, as is one inside
    an arm HIP does not compile (a dead one, a CUDA-only one, or the losing arm of another such test). Named
    levels (`__CUDA_ARCH__ >= GGML_CUDA_CC_TURING`) are read with `constants`; a test porter cannot decide is left
    out. Each as (group, the first arm that vanishes), in the order groups close. `also_empty`: directive lines of
    further arms to read as empty (a caller's stubs: an `#else` that only returns a constant)."""
    names = frozenset(names)
    empty_arms = pre.empty_arms | also_empty
    constants = constants or {}
    rocm_names = frozenset(rocm_names)
    hip = _DevicePass(ROCM, names, constants, rocm_names)
    cuda = _DevicePass(CUDA, names, constants, rocm_names)
    testing = [g for g in pre.groups
               if any(a.kind != "else" and not names.isdisjoint(_tokens(a.text)) for a in g.arms)
               and not any(a.kind != "else" and names_rocm(a.text, rocm_names) for a in g.arms)]
    # The arms (first line, last line) HIP's device pass does not compile, from every group that tests the names.
    lost: list[tuple[int, int]] = []
    found: list[tuple[Group, Arm]] = []
    for g in testing:
        decided, taken = _taken(_arm_truths(g, hip))
        if not decided:
            continue
        lost.extend((a.line, a.last) for i, a in enumerate(g.arms) if i != taken)
        if taken is not None and g.arms[taken].line not in empty_arms:
            continue
        truths = _arm_truths(g, cuda)
        arm = next((a for i, a in enumerate(g.arms[:taken]) if a.kind != "else" and truths[i] is not False
                    and a.line not in empty_arms), None)
        if arm is not None:
            found.append((g, arm))
    if not found:
        return []
    regions = pre.regions(rocm_names) if pre.builds_differ(rocm_names) else []
    # `first < line <= last` for any lost arm, asked per group: the arms sorted by first line with the running
    # maximum of their last lines answer it by bisection (a pass over every lost arm per group was quadratic).
    lost.sort()
    lost_firsts = [first for first, _ in lost]
    reach = list(itertools.accumulate((last for _, last in lost), max))
    out = []
    for g, arm in found:
        line = g.arms[0].line
        if line in pre.dead or (regions and side_at(regions, line)[0] in (CUDA, "none")):
            continue
        k = bisect.bisect_left(lost_firsts, line) - 1  # the arms whose first line is before `line`
        if k >= 0 and reach[k] >= line:
            continue  # inside an arm HIP drops anyway: the outer test is the one to report
        out.append((g, arm))
    return out


def vanishing_build_arms(pre: Preprocessed, rocm_names: Iterable[str] = (), cuda_names: Iterable[str] = ()
                         ) -> list[tuple[Group, Arm]]:
    """Arms with code that only the CUDA build compiles, in groups where the ROCm build then compiles nothing of
    the group: `#if LIB_USES_SYCL ... #elif LIB_USES_CUDA <code> #endif` in a project whose build names
    (`cuda_names`, the repository's CUDA-side macros; `rocm_names` and the built-in ROCm ones) say which vendor a
    build is. The vanishing arm tests a CUDA-side name, reads false in the ROCm build and true in the CUDA build
    (`#if LIB_USES_CUDA && FAST_PATH` is optional in the CUDA build too); every arm before it reads the same in both builds and not true (a third backend's arm: where the CUDA
    build reaches the arm, the ROCm build reaches its place and falls through); every arm after it is false in the
    ROCm build or empty, and an `#else` is empty. A group that names a ROCm-side macro chose its HIP path and is
    left out, as is one in a dead arm or in code only the CUDA build compiles. Each as (group, the arm)."""
    cuda_names = frozenset(cuda_names) - frozenset(rocm_names)
    if not cuda_names:
        return []
    rocm_names = frozenset(rocm_names)
    rocm, cuda = Build(ROCM, rocm_names, cuda_names), Build(CUDA, rocm_names, cuda_names)
    found: list[tuple[Group, Arm]] = []
    for g in pre.groups:
        if not any(a.kind != "else" and not cuda_names.isdisjoint(_tokens(a.text)) for a in g.arms) or any(
                a.kind != "else" and names_rocm(a.text, rocm_names) for a in g.arms):
            continue
        on_rocm, on_cuda = _arm_truths(g, rocm), _arm_truths(g, cuda)
        for i, a in enumerate(g.arms):
            if a.kind == "else":
                break
            if on_rocm[i] is False and on_cuda[i] is True and a.line not in pre.empty_arms \
                    and not cuda_names.isdisjoint(_tokens(a.text)):
                later = g.arms[i + 1:]
                if all(b.line in pre.empty_arms or (b.kind != "else" and on_rocm[i + 1 + k] is False)
                       for k, b in enumerate(later)):
                    found.append((g, a))
                break
            if on_rocm[i] is not on_cuda[i] or on_rocm[i] is True:
                break  # the builds part here, or both stop: the later arms are not the ROCm build's to miss
    if not found:
        return []
    regions = pre.regions(rocm_names, cuda_names)
    return [(g, a) for g, a in found
            if g.arms[0].line not in pre.dead and side_at(regions, g.arms[0].line)[0] not in (CUDA, "none")]


# ------------------------------------------------------------------------------------------ markers that vanish on HIP

# hipify renames these to a macro every hip-clang pass defines (`__CUDACC__` to `__HIPCC__`: HIPIFY's CUDA Driver API
# table, rules/kb/api/driver.tsv), so the hipified code the port compiles tests a defined name where the CUDA code
# tested nvcc's: https://github.com/ROCm/HIPIFY/blob/amd-staging/docs/reference/tables/CUDA_Driver_API_functions_supported_by_HIP.md
HIPIFY_DEFINED = frozenset({"__CUDACC__"})
_DEVICE_WORD = lazy_regex(r"\b__device__\b")


class _HipifiedDevicePass(_ArchBuild):
    """hip-clang's device pass over hipified code: `__HIP_DEVICE_COMPILE__` and the HIPIFY_DEFINED names are defined,
    `__CUDA_ARCH__`, nvcc's own macros and the toolkit versions are not (clang -x hip --cuda-device-only -dM -E
    defines __HIP__, __HIPCC__ and __HIP_DEVICE_COMPILE__, never __CUDA_ARCH__ or __CUDACC__); every other name is
    unknown."""

    def __init__(self) -> None:
        super().__init__(ROCM, (), ())

    def value(self, name: str | None):
        if name == "__HIP_DEVICE_COMPILE__" or name in HIPIFY_DEFINED:
            return 1
        return super().value(name)


class _VersionlessHipDevicePass(_HipifiedDevicePass):
    """_HipifiedDevicePass with the toolkit version macros unknown: plain hipify leaves `#if CUDA_VERSION > 6050`
    reading 0 under HIP, but porter's translate defines them with the CUDA API level HIP models (rules/kb/fixups.yaml
    `versions`), so which arm the port compiles depends on how it was made. For hip_device_arm."""

    def value(self, name: str | None):
        if name in toolkit_versions():
            return None
        return super().value(name)


@dataclass(frozen=True)
class HostOnlyMarker:
    """A qualifier macro the file defines with `__device__` for nvcc (`line`, `body`) whose every definition
    hip-clang's device pass may compile has no `__device__` (`hip_line`, `hip_body`, the first of them): on HIP the
    functions it declares are host functions, and a kernel calling one does not compile."""

    name: str
    line: int
    body: str
    hip_line: int
    hip_body: str


def host_only_markers(dirs: list[Directive]) -> list[HostOnlyMarker]:
    """The file's device-marker macros that vanish under HIP: `#if defined(__CUDACC__) && defined(__CUDA_ARCH__)`
    / `#define HD __device__` / `#else` / `#define HD` / `#endif`. hipify turns `__CUDACC__` into `__HIPCC__` but
    keeps `__CUDA_ARCH__`, which hip-clang never defines, so HIP's device pass (and its host pass) takes the
    `#else`: HD is empty there. A `__device__` definition HIP may compile (`#ifdef __CUDACC__` / `#define HD
    __host__ __device__`, or a test porter cannot decide) keeps the macro a device marker; so does a macro with no
    definition HIP compiles at all (that is another error, not this one)."""
    if not any(d.kind == "define" and "__device__" in d.text for d in dirs):
        return []
    build = _HipifiedDevicePass()
    by_name: dict[str, list[tuple[int, str]]] = {}
    for line, name, body in defines(dirs):
        by_name.setdefault(name, []).append((line, body))
    out = []
    for name, found in by_name.items():
        device = [(line, body) for line, body in found if _DEVICE_WORD().search(body)]
        if not device:
            continue
        reached = [(line, body) for line, body in found if _reaches(dirs, line, build)]
        if not reached or any(_DEVICE_WORD().search(body) for _, body in reached):
            continue
        line, body = device[0]
        out.append(HostOnlyMarker(name, line, body, reached[0][0], reached[0][1]))
    return out
