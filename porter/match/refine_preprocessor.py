"""The refine steps that read a C/C++ file's preprocessor arms (porter.source.preprocessor's groups): dead lines,
capability and toolkit tests with a fallback HIP compiles, old-toolkit arms, feature-define and introspection arms,
library and profiling switches, diagnostics, and `__CUDA_ARCH__` arms HIP never compiles. Each takes a finding and
returns it, dropped from a line set or read as info with the reason in data; porter.match.refine runs them.

1. Findings inside a branch the preprocessor never compiles (`#if 0 … #endif`, the `#else` of `#if 1`) are
   dropped: no compiler ever sees that code, on CUDA or on HIP.
1a. An arm the file's own integer `#define`s rule out (`#define USE_SHARED 1` ... `#if USE_SHARED` ... `#else`),
   one value per name, no `#undef`, the definition in force at the test: info (data `file_defines`).
3. Code inside the AMD branch of a ROCm guard is kept: port-awareness (porter.portaware) reads it handled, port
   work already done, with the guard as evidence. A capability or toolkit-version test (DEV009, DEV010) whose `#if` has an `#else` fallback without PTX, traps or #error is what HIP compiles, and works;
   so does one that names ROCm or clang itself (`|| defined(__HIPCC__)`, `|| defined(__clang__)`: hip-clang is
   clang), on every line of a continued directive, and one in an `#elif` after an arm the ROCm build takes;
   a deprecated API (API003) in the old-toolkit `#else` of `#if CUDA_VERSION >= N` is a fallback, not a use.
   A toolkit test HIP answers as CUDA 13 does (`defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 13`: false
   on both) and a group whose arms hold only #pragma lines (a warning push under `CUDA_VERSION >= 9000`) are no
   porting item either; a finding inside an arm both skip is code for older toolkits: info (data `old_toolkit`).
   (A capability test whose arm ends in a dangling `else` stays: the general block after `#endif` works on HIP, but
   the fast path it skips may be one AMD has - instant-ngp's packed __half2 atomics, judged real.)
3a. A capability or toolkit test whose arm only `#define`s feature macros (`#if __CUDA_ARCH__ >= 1000` / `#define
   KERUTILS_ENABLE_SM100`, also under nested tests) chooses nothing itself: the `#ifdef` sites testing the macro do.
   Info (data `defines_only`).
3c. An older-generation test HIP answers true (`#if __CUDA_ARCH__ < 320`: hip-clang leaves __CUDA_ARCH__ undefined,
   which reads 0) picks that arm, the portable path of older GPUs, when another arm holds the newer one (ccminer's
   byte-copy ldg256 before the `ld.global.nc` PTX `#else`): what HIP compiles works, the newer arm is a fast path.
   The tests up to that arm read info (data `hip_compiles`); an arm with PTX, a trap or #error, and `#ifndef
   __CUDA_ARCH__` / `!defined(__CUDA_ARCH__)` tests (the host pass, which HIP's device pass would take) stay.
3d. A capability test HIP's device pass answers as every GPU CUDA 13 supports does (`__CUDA_ARCH__ < 600 and
   defined(__CUDA_ARCH__)`: false on HIP, where __CUDA_ARCH__ is undefined, and on Turing and newer) compiles on HIP
   what current NVIDIA GPUs compile: dropped as a fallback test (DEV009, DEV010). `__CUDA_ARCH__ >= 600` stays: a
   current GPU takes the arm HIP skips.
3b. A `defined()`-only test of the compiler's published toolkit macros (`__CUDACC_VER_MAJOR__`, `__CUDA_ARCH_LIST__`,
   `CUDART_VERSION`) with no `#else`, whose arm reads them, and each read inside such an arm, only asks the compiler
   to say something HIP does not: info (data `introspection`); so is a version macro named in an output statement.
   A toolkit test whose arms only print (`fprintf` lines of a device report) is dropped as a pragma-only one is, and
   an arm that only redefines a device function HIP declares under the same name (`#define __umul24(a, b)`) reads
   info with the feature-macro arms of 3a.
4. A drop-in library's include (LIB001) inside an `#if` arm that tests the library's own switch (`#if HAVE_NVTX`,
   `#ifdef APP_USE_CUSOLVER`) is optional: the build sets the switch only where it finds the library. It reads info,
   with the switch under data `optional`.
4a. Profiling instrumentation: a finding inside a positive `#if` arm or CMake `if()` block whose condition names an
   NVTX switch (`#if defined(GOMC_NVTX_ENABLED)`, `if(USE_NVTX)`) is in a build the user opts into for Nsight
   profiling; the default build never compiles it: info (data `optional`).
4e. A Jetson switch: the macro a positive arm tests when that arm includes a Jetson Linux Multimedia API header
   (`nvbuf_utils.h`, `NvVideoEncoder.h`, `Argus/`): every positive arm of the file testing it alone is code only an
   NVIDIA Jetson SoC builds: info (data `jetson_only`).
5. An API name in the text of an `#error` / `#warning` / `#pragma message` is a message, not a use: dropped; so is
   a compiler, flag or architecture list named in a CMake message(), a print/summary helper's arguments or an
   option()/CACHE documentation string.
6. A warp-mask finding (DEV002, DEV003, and API004's same-name note) in the tested arm of `#if __CUDA_ARCH__ >= N`
   whose `#else` has code is dropped: HIP leaves `__CUDA_ARCH__` undefined and compiles the `#else`, never that line.
   An API HIP lacks (API002) in such an arm reads info (data `hip_compiles`): there is no fast path to keep.
6a. Inline PTX (DEV001) in an arm that tests only the device pass (`#ifdef __CUDA_ARCH__`, `#elif
   defined(__CUDA_ARCH__)`) of a group whose `#else` has working code (no PTX, trap or #error) reads info, with that
   `#else` under data `hip_compiles`: HIP leaves `__CUDA_ARCH__` undefined, so it compiles the `#else` and never
   sees the PTX (FBGEMM's CUTLASS-copied cutlass_get_smem_pointer). A generation test (`__CUDA_ARCH__ >= 800`)
   stays open: its PTX is a fast path the port may want.
6b. A 32-lane finding (DEV002, DEV003, DEV011, DEV030: rules whose targets are wave64 only) in the `== 32` arm of a
   group that picks code by a wave-size name the file never defines (`#if WARP_SIZE == 32` ... `#elif WARP_SIZE ==
   64`, ccglib's packing kernel with `-DWARP_SIZE=` from the device attribute: preprocessor.wave_size_arms) reads
   info (data `wave_arm`): the preprocessor compiles that arm only where the wave is 32 lanes, where the finding
   does not apply, and the wave64 arm beside it is the port's.
6c. A same-name warp intrinsic whose note is HIP's 64-bit mask or result (API004: `__activemask`, `__ballot_sync`)
   in either arm of such a group reads info (data `wave_arm`): the `== 64` arm is written for a 64-lane wave (ccglib
   keeps that arm's ballot in an `unsigned long`), and the `== 32` arm is compiled only where the wave is 32 lanes,
   where the upper half of HIP's 64-bit value is empty. Outside such arms the note stays open.
"""
from __future__ import annotations

import bisect
import re
from typing import Iterable

from porter.match.draft import Draft
# rules/device/DEV002, DEV003, DEV011 and DEV030: `targets: ["wavefront_size == 64"]` (tests/test_reach25_s24.py)
WAVE64_RULES = frozenset({"DEV002", "DEV003", "DEV011", "DEV030"})
# Shared helpers keep the private names the steps called them by when all of refine was one module, so the
# moved code reads as it did.
from porter.match.refine_common import (NVIDIA_SUPPORTED, PROFILING_SWITCH, MACRO as _MACRO,
                                        OUTPUT_CALL as _OUTPUT_CALL, as_info as _as_info, code_line as _code_line,
                                        info_at_line,
                                        names_library as _names_library, offset as _offset,
                                        statement_around as _statement_around)
from porter.model import Severity
from porter.source.parse import SourceFile
from porter.source.parse_input import line_matches
from porter.source.preprocessor import CUDA as CUDA_BUILD
from porter.source.preprocessor import (POSITIVE_ARMS, ROCM, Build, Group, arm_span, condition, groups_around,
                                       may_hold_directives, names_rocm, preprocessed)


# Capability and toolkit-version tests: not a porting item when their #else is a fallback HIP compiles.
FALLBACK_RULES = frozenset({"DEV009", "DEV010"})
# Deprecated-API uses: not a use when they sit in the old-toolkit #else of `#if CUDA_VERSION >= N`.
OLD_TOOLKIT_RULES = frozenset({"API003"})
# Warp-mask findings in a `__CUDA_ARCH__ >= N` arm whose `#else` HIP compiles instead: moot on HIP.
# API004's "same name in HIP, check it" is as moot there. Other findings stay: a tensor-core path under
# `>= 800` is work the port may want (an MFMA path), even though HIP falls back to the #else.
ARCH_ARM_MASK_RULES = frozenset({"DEV002", "DEV003", "API004"})
# An API HIP lacks (API002) in such an arm: no fast path the port could keep (HIP has no such call), and the
# `#else` HIP compiles instead is the program's own fallback (GAMER's `atomicExch_block` under `__CUDA_ARCH__ >= 600`,
# plain `atomicExch` in the `#else`). Info (data `hip_compiles`).
ARCH_ARM_MISSING_RULES = frozenset({"API002"})
# Inline PTX in a device-pass-only `__CUDA_ARCH__` arm whose `#else` HIP compiles: info (module doc, step 6a).
DEVICE_PASS_RULES = frozenset({"DEV001"})
_DEVICE_PASS = re.compile(r"^\s*\(?\s*(?:defined\s*\(\s*__CUDA_ARCH__\s*\)|defined\s+__CUDA_ARCH__|__CUDA_ARCH__)\s*\)?\s*$")
_ARCH_TEST = re.compile(r"\b__CUDA_ARCH__\b")
_ARCH_GENERATION = re.compile(r"^\s*\(?\s*(?:defined\s*\(\s*__CUDA_ARCH__\s*\)\s*&&\s*)?__CUDA_ARCH__\s*>=?\s*\d+\s*\)?\s*$")
_DIAGNOSTIC = re.compile(rb"[ \t]*#[ \t]*(?:error|warning|pragma[ \t]+message)\b")


# Drop-in library includes: optional (info) when an arm around them tests the library's own switch.
OPTIONAL_DROPIN_RULES = frozenset({"LIB001"})


_CUDA_VERSION_AT_LEAST = re.compile(r"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__)\s*>=?\s*\d")
# An #else that traps, asserts, errors, uses PTX, is an empty stub (`__global__ void k(...) {}`) or says the arch is
# unsupported does not work on HIP, so the test in front of it is a real porting item.
_BROKEN_FALLBACK = re.compile(rb"\basm\b|\b__asm__\b|\bbrkpt\b|\btrap\b|__trap\s*\(|#\s*error\b|assert\s*\(\s*(?:0|false)\s*\)"
                              rb"|\)\s*(?:const\s*)?\{\s*\}|UNSUPPORTED|[Uu]nsupported|not supported")


def dead_lines(sf: SourceFile) -> frozenset[int]:
    """Lines in preprocessor branches that can never compile: `#if 0` (or `false`) bodies, and every branch after a
    taken `#if 1`/`#elif 1` (porter.source.preprocessor: whatever any macro is)."""
    # Only C/C++ has a preprocessor: a `#if 0` in a Python, shell or CMake comment is a comment.
    return preprocessed(sf).dead if sf.language == "cuda" and may_hold_directives(sf.data) else frozenset()


def fallback_tests(groups: Iterable[Group], sf: SourceFile, rocm_names: Iterable[str] = ()) -> frozenset[int]:
    """`#if`/`#elif` lines whose group ends in an `#else` that HIP can compile as it is (no PTX, trap or #error)."""
    out: set[int] = set()
    for g in groups:
        last = g.arms[-1]
        if last.kind != "else" or not last.body:
            continue
        if _BROKEN_FALLBACK.search(sf.code, *arm_span(last, sf.line_starts, len(sf.code))):  # no copy of the arm (nested #else arms hold each other)
            continue
        out.update(a.line for a in g.arms[:-1])
    rocm = Build(ROCM, rocm_names)
    for g in groups:
        # a test that names ROCm itself (`>= 350 || defined(USE_AMD_ROCM)`) already covers HIP, and so does one
        # that names clang (`(__CUDACC_VER_MAJOR__-0) >= 11 || defined(__clang__)`: hip-clang is clang), on every
        # line of a continued directive
        for a in g.arms:
            if a.kind in ("if", "elif") and (names_rocm(a.text, rocm_names) or _CLANG.search(a.text)):
                out.update(range(a.line, a.end_line + 1))
        # an arm after one the ROCm build takes (`#elif __HIPCC__` then `#elif __CUDACC_VER_MAJOR__ >= 9`) is a
        # test HIP never reaches
        for i, a in enumerate(g.arms):
            if a.kind != "else" and condition(a.kind, a.text, rocm)[0] is True:
                out.update(n for b in g.arms[i + 1:] if b.kind != "else" for n in range(b.line, b.end_line + 1))
                break
        # a toolkit test every arm of which HIP answers as the newest toolkit does (`defined(__CUDACC_VER_MAJOR__) &&
        # __CUDACC_VER_MAJOR__ < 13` around cuFFT enums CUDA 13 removed: false on both), or a group whose arms hold
        # only #pragma lines (gloo's strict-aliasing warning push under `CUDA_VERSION >= 9000`): what HIP compiles is
        # what a current CUDA build compiles, or no code at all
        if toolkit_agnostic(g) or arch_agnostic(g) or _pragmas_only(g, sf) or _output_only(g, sf):
            out.update(n for a in g.arms if a.kind != "else" for n in range(a.line, a.end_line + 1))
    return frozenset(out)


def older_arch_tests(groups: Iterable[Group], sf: SourceFile) -> dict[int, int]:
    """Test line -> the line of the arm HIP takes, for the `#if`/`#elif` lines up to an older-generation arm HIP
    answers true (step 3c)."""
    out: dict[int, int] = {}
    for g in groups:
        taken = _arch_taken(g, sf)
        if taken is not None:
            out.update((n, g.arms[taken].line) for a in g.arms[:taken + 1] for n in range(a.line, a.end_line + 1))
    return out


def older_arch(f: Draft, tests: dict[int, int]) -> Draft:
    """A capability test HIP answers by taking a working older-generation arm: info (step 3c)."""
    if f.rule not in FALLBACK_RULES or f.line not in tests or f.severity <= Severity.INFO:
        return f
    return _as_info(f, "hip_compiles", f"HIP leaves __CUDA_ARCH__ undefined (0), so it compiles the older-GPU arm at "
                                       f"line {tests[f.line]}, which works on HIP; the newer arm is a fast path")


_ARCH_OLDER = re.compile(r"\b__CUDA_ARCH__\s*<=?\s*\d")


class _HipArchBuild(Build):
    """The ROCm build as a generation test reads it: hip-clang never defines __CUDA_ARCH__ (so `__CUDA_ARCH__ < 320`
    reads 0 < 320); every other name as in Build."""

    def value(self, name: str | None):
        return False if name == "__CUDA_ARCH__" else super().value(name)


def _arch_taken(g: Group, sf: SourceFile) -> int | None:
    """The index of the `#if`/`#elif` arm of a group with more than one arm that HIP takes on a `__CUDA_ARCH__`
    test (read undefined, as hip-clang leaves it) when its body holds code that works on HIP (no PTX, trap or
    #error); None otherwise."""
    if len(g.arms) < 2:
        return None
    arch = _HipArchBuild(ROCM)
    for i, a in enumerate(g.arms):
        if a.kind == "else" or not _ARCH_TEST.search(a.text):
            return None
        hip = condition(a.kind, a.text, arch)[0]
        if hip is None:
            return None
        if hip:
            # only a generation comparison: `#ifndef __CUDA_ARCH__` / `!defined(__CUDA_ARCH__) || ...` hold the host
            # pass, which HIP's device pass would compile too (a real item)
            if not a.body or not _ARCH_OLDER.search(a.text) or "defined" in a.text:
                return None
            return None if _BROKEN_FALLBACK.search(sf.code, *arm_span(a, sf.line_starts, len(sf.code))) else i
    return None


# Toolkit-version macros and their values in the newest CUDA toolkit porter reads code against (CUDA 13.0).
_NEWEST_TOOLKIT = {"CUDA_VERSION": 13000, "CUDART_VERSION": 13000, "__CUDACC_VER_MAJOR__": 13,
                   "__CUDACC_VER_MINOR__": 0, "__CUDACC_VER_BUILD__": 0, "__NVCC_VER_MAJOR__": 13}


class _ToolkitBuild(Build):
    """One build as a toolkit-version test reads it: on ROCm the version macros are undefined, on CUDA they have the
    newest toolkit's values; every other name reads as in Build."""

    def value(self, name: str | None):
        if name in _NEWEST_TOOLKIT:
            return False if self.build == ROCM else _NEWEST_TOOLKIT[name]
        return super().value(name)


# Looked for with `in` (a substring search in C each): the alternation as one `re` pattern was tried at every byte
# (0.08 CPU-s of a FasterTransformer scan).
TOOLKIT_WORDS = (b"CUDA_VERSION", b"CUDART_VERSION", b"__CUDACC_VER_", b"__NVCC_VER_")
_TOOLKIT_NAMES = re.compile(r"\b(?:" + "|".join(_NEWEST_TOOLKIT) + r")\b")


def toolkit_agnostic(g: Group) -> bool:
    """Whether a group tests a toolkit version and HIP answers each of its tests as the newest CUDA toolkit does, so
    both compile the same arm."""
    tests = [a for a in g.arms if a.kind != "else"]
    if not any(_TOOLKIT_NAMES.search(a.text) for a in tests):
        return False
    rocm, cuda = _ToolkitBuild(ROCM), _ToolkitBuild(CUDA_BUILD)
    for a in tests:
        hip = condition(a.kind, a.text, rocm)[0]
        if hip is None or hip != condition(a.kind, a.text, cuda)[0]:
            return False
    return True


_ARCH_LEVEL_TEST = re.compile(r"\b__CUDA_ARCH__\s*(?:>=|<=|==|!=|>|<)\s*\d|\d\s*\)?\s*(?:>=|<=|==|!=|>|<)\s*__CUDA_ARCH__\b")


class _DevicePassAt(Build):
    """One device pass as a capability test reads it: hip-clang's (`arch` None: __CUDA_ARCH__ undefined, the porting
    guide's compiler-defines table) or nvcc's for one compute capability; every other name reads as in Build."""

    def __init__(self, arch: int | None):
        super().__init__(ROCM if arch is None else CUDA_BUILD)
        self.arch = arch

    def value(self, name: str | None):
        if name == "__CUDA_ARCH__":
            return False if self.arch is None else self.arch
        return super().value(name)


def arch_agnostic(g: Group) -> bool:
    """Whether a group compares __CUDA_ARCH__ with a level and HIP's device pass answers each of its tests as every
    GPU CUDA 13 supports does (__CUDA_ARCH__ is major*100 + minor*10 there:
    https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-arch), so HIP compiles what each current NVIDIA GPU compiles: an old-GPU fallback written
    `__CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)` (SoftRas's double atomicAdd) is off on all of them, the modern
    path behind `!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600` on. A test a current GPU answers otherwise than HIP
    (`__CUDA_ARCH__ >= 600`: the native path HIP silently skips) or one porter cannot read stays."""
    tests = [a for a in g.arms if a.kind != "else"]
    if not any(_ARCH_LEVEL_TEST.search(a.text) for a in tests):
        return False
    hip = _DevicePassAt(None)
    nvidia = [_DevicePassAt(major * 100 + minor * 10) for major, minor in NVIDIA_SUPPORTED]
    for a in tests:
        answer = condition(a.kind, a.text, hip)[0]
        if answer is None or any(condition(a.kind, a.text, b)[0] != answer for b in nvidia):
            return False
    return True


def old_toolkit_arms(groups: Iterable[Group]) -> dict[int, int]:
    """Body line -> its arm's directive line, for the arms HIP and the newest toolkit both skip in a toolkit-agnostic
    group (legacy code kept for older toolkits, which neither compiles)."""
    out: dict[int, int] = {}
    rocm = _ToolkitBuild(ROCM)
    for g in groups:
        if toolkit_agnostic(g):
            for a in g.arms:
                if a.kind != "else" and condition(a.kind, a.text, rocm)[0] is False:
                    out.update((n, a.line) for n in a.body)
    return out


def legacy_arm(f: Draft, legacy: dict[int, int]) -> Draft:
    """A finding in an arm only older toolkits compile (old_toolkit_arms) at info, with data `old_toolkit`."""
    if f.line not in legacy or f.severity <= Severity.INFO:
        return f
    newest = _NEWEST_TOOLKIT["CUDA_VERSION"] // 1000
    return _as_info(f, "old_toolkit", f"in the arm at line {legacy[f.line]}, which HIP skips as CUDA {newest} does: "
                                      f"code for older toolkits")


# A #pragma line, or a #warning (torchao's "MXFP8 needs SM90+" under `__CUDA_ARCH__ < 1000`): a message or a
# compiler setting, no code, so an arm of nothing else compiles the same program whichever way HIP answers it.
_PRAGMA = re.compile(rb"[ \t]*#[ \t]*(?:pragma|warning)\b")


def _pragmas_only(g: Group, sf: SourceFile) -> bool:
    """Whether every line of the group's arms is blank, a #pragma, or a conditional directive the preprocessor read
    (a nested `#ifdef __GNUC__` around the pragma): no code. Each arm's body is a range of lines, so this counts the
    code lines in it (_code_lines_before) instead of reading them: a group nested 20,000 deep read its inner lines
    once per enclosing group, quadratic in the depth (a 140 KB file took the whole per-file budget)."""
    before = _code_lines_before(sf)
    arms = [a for a in g.arms if a.last >= a.end_line + 1]
    if not arms:
        return False
    last = len(before) - 1
    return all(before[min(a.last, last)] - before[min(a.end_line, last)] == 0 for a in arms)


def _code_lines_before(sf: SourceFile) -> list[int]:
    """[n] = how many of lines 1..n hold code: not blank, not a #pragma / #warning, not a conditional directive the
    preprocessor read. Once per file."""
    counts = sf.cache.get("refine.code_lines_before")
    if counts is None:
        directive_lines = _directive_lines(sf, conditional_only=True)
        counts = [0]
        code, starts = sf.code, sf.line_starts
        for n in range(1, len(starts) + 1):
            start = starts[n - 1]
            end = code.find(b"\n", start)
            text = code[start:end if end >= 0 else len(code)]
            counts.append(counts[-1] + (1 if text.strip() and n not in directive_lines and not _PRAGMA.match(text)
                                         else 0))
        sf.cache["refine.code_lines_before"] = counts
    return counts


def _directive_lines(sf: SourceFile, conditional_only: bool) -> frozenset[int]:
    """The lines of the file's directives (only the conditional ones: not #define or #include), once per file."""
    key = ("refine.directive_lines", conditional_only)
    lines = sf.cache.get(key)
    if lines is None:
        lines = sf.cache[key] = frozenset(n for d in preprocessed(sf).directives
                                          if not conditional_only or d.kind not in ("define", "undef", "include")
                                          for n in range(d.line, d.end_line + 1))
    return lines


def _statements(text: bytes) -> list[bytes] | None:
    """The `;`-ended statements of a run of code (string and character literals skipped), or None when it holds
    anything else: a brace, or text after the last `;`."""
    out, start, i, n = [], 0, 0, len(text)
    depth = 0
    while i < n:
        c = text[i:i + 1]
        if c in (b'"', b"'"):
            j = i + 1
            while j < n and text[j:j + 1] != c:
                j += 2 if text[j:j + 1] == b"\\" else 1
            i = j + 1
            continue
        if c in (b"{", b"}"):
            return None
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
        elif c == b";" and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    return out if not text[start:].strip() else None


def _output_only(g: Group, sf: SourceFile) -> bool:
    """Whether the group's arms hold code and every statement of it only prints (a device report's `#if
    CUDART_VERSION >= 3000` around `fprintf(note, "Concurrent Kernel Execution ...")`): whichever arm HIP takes, the
    program computes the same; a line of a report is left out or kept. Nested directives and #pragma lines may sit
    between the statements."""
    size = sum(len(a.body) for a in g.arms)
    prints = sf.cache.get("refine.may_print")
    if prints is None:  # once per file, not once per group (three searches of the whole file each)
        prints = sf.cache["refine.may_print"] = b"rint" in sf.code or b"puts" in sf.code or b"<<" in sf.code
    if not size or not prints:
        return False
    # Nested groups read their inner lines again for each enclosing group: past a few times the file's lines in
    # all, a group is no longer read as output only (its findings stay), so deep nesting costs linear time.
    read = sf.cache.get("refine.output_only_lines", 0) + size
    sf.cache["refine.output_only_lines"] = read
    if read > 4 * len(sf.line_starts) + 100_000:
        return False
    lines = [n for a in g.arms for n in a.body]
    directive_lines = _directive_lines(sf, conditional_only=False)
    text = b"\n".join(_code_line(sf, n) for n in lines if n not in directive_lines)
    statements = _statements(text)
    return bool(statements) and all(_OUTPUT_CALL.match(st.decode("utf-8", "replace")) for st in statements)


_CLANG = re.compile(r"\b__clang__\b")

# 1a. Arms the file's own `#define`s decide: `#define USE_SHARED 1` then `#if USE_SHARED ... #else tex1Dfetch ...
# #endif` (ccminer's groestl256) compiles the first arm on every compiler, CUDA's and HIP's alike (C++ [cpp.cond]: the
# test is evaluated with the macros defined at that point). A name counts only when every definition in the file gives
# it one integer value, no `#undef` takes it away, and a definition comes before the test at file level or in an arm
# that holds the test (so it is in force there). Both builds must agree on the test. A finding in an arm so ruled out
# reads info (data `file_defines`): it may still be meant for another configuration, set by editing the file.
# Up to 18 digits: a switch or a level; a longer literal (a 5,000-digit constant) is no switch, and int() refuses
# strings over 4,300 digits.
_INT_DEFINE = re.compile(r"^([A-Za-z_]\w*)[ \t]+\(?([0-9]{1,18})[uUlL]*\)?[ \t]*$")
_UNDEF = re.compile(rb"(?m)^[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)")


class _FileDefinesBuild(Build):
    """One build, with the file's own integer macros in force at one test (`known`) read as their values."""

    def __init__(self, build: str, known: dict[str, int]):
        super().__init__(build)
        self.known = known

    def value(self, name: str | None):
        if name in self.known:
            return self.known[name]
        return super().value(name)


def file_defined_arms(sf: SourceFile) -> dict[int, tuple[str, int]]:
    """Body line -> (a macro the test read, its #define line) for every arm the file's own integer macros rule out
    (step 1a)."""
    pre = preprocessed(sf)
    values: dict[str, set[int]] = {}
    lines: dict[str, list[int]] = {}
    undone: set[str] = set()
    for d in pre.directives:
        if d.kind != "define":
            continue
        m = _INT_DEFINE.match(d.text.strip())
        name = m.group(1) if m else (_MACRO.match(d.text.strip()) or [None])[0]
        if not name:
            continue
        if m is None:
            undone.add(name)  # defined as something else somewhere: not one integer
            continue
        values.setdefault(name, set()).add(int(m.group(2)))
        lines.setdefault(name, []).append(d.line)
    if b"undef" in sf.code:  # a MULTILINE `^` is tried at every byte by `re`: most files have no #undef at all
        undone.update(m.group(1).decode() for m in _UNDEF.finditer(sf.code))
    names = {n: next(iter(v)) for n, v in values.items() if len(v) == 1 and n not in undone}
    out: dict[int, tuple[str, int]] = {}
    if not names:
        return out
    around = groups_around(pre.groups)

    def holder(line: int):
        # the innermost arm whose body holds `line`: indexed, not a walk over every arm per definition (quadratic
        # in a file of many defines and many groups)
        return next((a for g in around(line) for a in g.arms if a.end_line < line <= a.last), None)

    def in_force(name: str, test: int) -> int | None:
        for at in lines[name]:
            if at >= test:
                continue
            h = holder(at)
            if h is None or h.end_line < test <= h.last:
                return at
        return None

    for g in pre.groups:
        for i, a in enumerate(g.arms):
            if a.kind == "else":
                break
            used = {n: at for n in _MACRO.findall(a.text) if n in names for at in [in_force(n, a.line)] if at}
            if not used:
                break
            known = {n: names[n] for n in used}
            cuda = condition(a.kind, a.text, _FileDefinesBuild(CUDA_BUILD, known))[0]
            if cuda is None or cuda != condition(a.kind, a.text, _FileDefinesBuild(ROCM, known))[0]:
                break
            why = next(iter(sorted(used.items(), key=lambda kv: kv[1])))
            if cuda:
                for b in g.arms[i + 1:]:
                    out.update((n, why) for n in b.body)
                break
            out.update((n, why) for n in a.body)
    return out


def file_defined(f: Draft, ruled_out: dict[int, tuple[str, int]]) -> Draft:
    """A finding in an arm the file's own integer macros rule out: info (step 1a)."""
    return info_at_line(f, ruled_out, "file_defines", lambda name, line: f"in an arm the file's own `#define {name}` "
                        f"(line {line}) rules out: no compiler builds it as the file stands")


# 3a. A capability or toolkit test (DEV009, DEV010, DEV016) whose arm only defines feature macros (FlashMLA's
# `#if __CUDA_ARCH__ >= 1000` / `#define KERUTILS_ENABLE_SM100` / `#endif`, tilelang's CTA-reconfig switch) chooses
# nothing itself: HIP leaves the macro undefined, and the `#ifdef KERUTILS_ENABLE_SM100` sites that test it are where
# code comes or goes. Info (data `defines_only`, the macros named).
FEATURE_DEFINE_RULES = frozenset({"DEV009", "DEV010", "DEV016"})
_OBJECT_DEFINE = re.compile(rb"^\s*#\s*(?:define\s+([A-Za-z_]\w*)(?:[ \t]+[^\n(]*)?|undef\s+[A-Za-z_]\w*)\s*$")
# A function-like definition: `#define __umul24(a, b) ((a)*(b))` (GAMER's Fermi-and-later override under
# `__CUDA_ARCH__ >= 200`). When the name is a CUDA device function HIP declares under the same name, HIP leaving the
# macro undefined means its own function serves every use: the arm chooses nothing HIP lacks.
_FUNCTION_DEFINE = re.compile(rb"^\s*#\s*define\s+([A-Za-z_]\w*)\(")


def _hip_builtin(name: str) -> bool:
    """Whether `name` is a CUDA device function HIP declares with the same spelling (the knowledge base's rename to
    itself)."""
    from porter.kb import load_kb

    entry = load_kb().get(name)
    return entry is not None and entry.library == "device" and entry.status == "rename" and entry.hip == name


# An arm that also includes the header of the feature it enables and names a type from it (MPPI-Generic's
# `#if defined(CMAKE_USE_CUDA_BARRIERS) && defined(CUDART_VERSION) && CUDART_VERSION > 11000` / `#include
# <cuda/barrier>` / `using barrier = cuda::barrier<...>;` / `#define USE_CUDA_BARRIERS_ROLLOUT`) still chooses
# nothing itself when every use of the names it declares sits in a positive `#ifdef M` arm of this file whose macros
# the arm defines or the file never defines (a build switch): HIP skips the arm, and those sites compile their
# fallbacks. The include and the alias are then no porting item either when the test cannot be true on HIP (it
# requires a toolkit macro hip-clang does not publish: `defined(CUDART_VERSION) && ...`): info (data
# `defines_only`), as the test is.
_ALIAS_LINE = re.compile(rb"^\s*(?:using\s+([A-Za-z_]\w*)\s*=[^;]*;|typedef\b[^;]*?\b([A-Za-z_]\w*)\s*;)\s*$")
_POSITIVE_TEST = re.compile(r"^\s*(?:\(?\s*defined\s*\(?\s*(\w+)\s*\)?\s*\)?\s*(?:\|\||$)\s*)+$")
_ALIAS_USES_MAX = 256  # uses of one declared name read before giving up (the answer is then: stays open)


def _feature_arm(g: Group, a, sf: SourceFile) -> tuple[list[str], list[str], list[str], list[int]] | None:
    """(macros defined, HIP-declared device functions redefined, names declared by type aliases, include lines) of
    an arm holding only those (nested conditional directives aside), else None."""
    names: list[str] = []
    builtins: list[str] = []
    aliases: list[str] = []
    includes: list[int] = []
    # nested tests around the defines choose among feature macros too (GenomeWorks' `#ifdef
    # __CUDACC_VER_MAJOR__` / `#define GW_CUDA_BEFORE_XX_X 1` / `#if __CUDACC_VER_MAJOR__ == 10 && ...` /
    # `#define GW_CUDA_BEFORE_10_1` / `#endif`): their lines are no code
    conditional = _directive_lines(sf, conditional_only=True)
    for n in a.body:
        text = _code_line(sf, n)
        if not text.strip() or n in conditional:
            continue
        m = _OBJECT_DEFINE.match(text)
        if m is not None:
            if m.group(1):
                names.append(m.group(1).decode())
            continue
        m = _FUNCTION_DEFINE.match(text)
        if m is not None and _hip_builtin(m.group(1).decode()):
            builtins.append(m.group(1).decode())
            continue
        if _INCLUDE_LINE.match(text):
            includes.append(n)
            continue
        m = _ALIAS_LINE.match(text)
        if m is None:
            return None
        aliases.append((m.group(1) or m.group(2)).decode())
    return names, builtins, aliases, includes


_INCLUDE_LINE = re.compile(rb"^\s*#\s*include\b")


def _aliases_used_only_under(sf: SourceFile, a, aliases: list[str], names: list[str]) -> bool:
    """Whether every use of `aliases` outside arm `a` lies in a positive `#ifdef M` / `#if defined(M)` arm of the
    file whose macros are all among `names` (the arm's) or defined nowhere in the file."""
    groups = preprocessed(sf).groups
    own = set(names)
    for alias in aliases:
        uses = 0
        for m in re.finditer(rb"\b" + re.escape(alias.encode()) + rb"\b", sf.code):
            line = bisect.bisect_right(sf.line_starts, m.start())
            if a.end_line < line <= a.last:
                continue
            uses += 1
            if uses > _ALIAS_USES_MAX:
                return False
            guarded = False
            for g in groups:
                for arm in g.arms:
                    if not arm.end_line < line <= arm.last:
                        continue
                    if arm.kind == "ifdef":
                        tested = arm.text.split()[:1]
                    elif arm.kind in ("if", "elif") and _POSITIVE_TEST.match(arm.text) is not None:
                        tested = re.findall(r"defined\s*\(?\s*(\w+)", arm.text)
                    else:
                        continue
                    if tested and all(t in own or not re.search(rb"#\s*define\s+" + re.escape(t.encode()) + rb"\b",
                                                                 sf.code) for t in tested):
                        guarded = True
            if not guarded:
                return False
    return True


def _false_on_hip(arm) -> bool:
    """Whether an `#if` arm's test is a conjunction requiring a toolkit macro hip-clang does not publish
    (`defined(CMAKE_X) && defined(CUDART_VERSION) && CUDART_VERSION > 11000`)."""
    if arm.kind not in ("if", "elif") or "||" in arm.text:
        return False
    return any(t in _PUBLISHED for t in re.findall(r"(?<!!)\bdefined\s*\(?\s*(\w+)", arm.text))


def feature_defines(f: Draft, groups: Iterable[Group], sf: SourceFile) -> Draft:
    """A test in an `#if`/`#elif` whose arm holds only object-like `#define`/`#undef` lines (under nested tests or
    not), or those with the include and type aliases of the feature they enable, used only under those macros: info
    (step 3a); so are that include and alias lines when the test cannot be true on HIP."""
    if f.severity <= Severity.INFO:
        return f
    on_test = f.rule in FEATURE_DEFINE_RULES
    for g in groups:
        for a in g.arms:
            if a.kind == "else":
                continue
            if on_test and a.line <= f.line <= a.end_line:
                inside = False
            elif a.end_line < f.line <= a.last and _false_on_hip(a):
                inside = True
            else:
                continue
            found = _feature_arm(g, a, sf)
            if found is None:
                return f
            names, builtins, aliases, includes = found
            if not names and not builtins:
                return f
            if inside and f.line not in includes and _ALIAS_LINE.match(_code_line(sf, f.line)) is None:
                return f
            if (aliases or includes) and not (names and _aliases_used_only_under(sf, a, aliases, names)):
                return f
            # an #else that stops the build (`#error needs CUDA 11`) is what HIP compiles: that is work
            start = sf.line_starts[g.arms[0].line - 1]
            end = sf.line_starts[g.endif - 1] if g.endif - 1 < len(sf.line_starts) else len(sf.code)
            if _BROKEN_FALLBACK.search(sf.code, start, end):  # no copy of the arm (nested #else arms hold each other)
                return f
            if not names:
                return _as_info(f, "defines_only", f"the arm only redefines {', '.join(builtins)} as macros; HIP "
                                                   f"declares the same device function{'s' if len(builtins) > 1 else ''}"
                                                   " itself, so its own serve every use")
            them = "it" if len(names) == 1 else "them"
            if inside:
                return _as_info(f, "defines_only", f"in the arm of line {a.line}, which HIP skips (it requires a "
                                                   f"toolkit macro hip-clang does not define); the arm enables "
                                                   f"{', '.join(names)}, and the code testing {them} compiles its "
                                                   f"fallback on HIP")
            extra = (f" (with the header{'s' if len(includes) > 1 else ''} and type{'s' if len(aliases) > 1 else ''} "
                     f"{', '.join(aliases)} only code testing {them} uses)" if aliases else
                     f" (with the header{'s' if len(includes) > 1 else ''} they need)" if includes else "")
            return _as_info(f, "defines_only", f"the arm only defines {', '.join(names + builtins)}{extra}: HIP leaves "
                                               f"{them} undefined, so the code testing {them} is where HIP's path is "
                                               "chosen")
    return f


# 3b. A test that only asks whether the compiler publishes a toolkit fact, to read it: `#if
# defined(__CUDACC_VER_MAJOR__) && defined(__CUDACC_VER_MINOR__)` around a telemetry field built from those macros,
# `#if defined(__CUDA_ARCH_LIST__)` around code reading the compiled architecture list, with no `#else`. HIP does not
# publish them, the arm vanishes, and the code after `#endif` is the program's own answer for a compiler that does
# not say: nothing to port (reporting HIP's version there would be a feature). Info (data `introspection`).
INTROSPECTION_RULES = frozenset({"DEV009", "DEV010"})
_PUBLISHED = ("__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDA_ARCH_LIST__",
              "CUDART_VERSION", "CUDA_VERSION", "__NVCC_VER_MAJOR__", "__NVCC_VER_MINOR__", "__CUDA_API_VERSION")
_DEFINED_ONLY = re.compile(r"^\s*(?:\(?\s*!?\s*defined\s*\(?\s*\w+\s*\)?\s*\)?\s*(?:&&|$)\s*)+$")


def _published_tests(arm) -> list[str]:
    """The macros an `#if`/`#ifdef` arm tests for definedness when its test is only that, of published toolkit
    macros; else []."""
    if arm.kind == "ifdef":
        tested = arm.text.split()[:1]
    elif arm.kind in ("if", "elif") and _DEFINED_ONLY.match(arm.text) and "!" not in arm.text:
        tested = re.findall(r"defined\s*\(?\s*(\w+)", arm.text)
    else:
        return []
    return tested if tested and all(t in _PUBLISHED for t in tested) else []


def introspection(f: Draft, groups: Iterable[Group], sf: SourceFile) -> Draft:
    """Info (step 3b) for a toolkit test that is only `defined(...)` of published toolkit macros, with no `#else`,
    whose arm's code reads one of them; and for a read of a tested macro inside such an arm (any group: HIP never
    compiles the arm)."""
    if f.rule not in INTROSPECTION_RULES or f.severity <= Severity.INFO:
        return f
    # a version macro printed (`printf("nvcc %s", STRINGIZE(__CUDACC_VER_MAJOR__))`) is reported, not tested
    if not _code_line(sf, f.line).lstrip().startswith(b"#") and _OUTPUT_CALL.match(
            _statement_around(sf.code, _offset(sf, f.line, f.column)).decode("utf-8", "replace")):
        return _as_info(f, "introspection", "printed, not tested: the line reports the toolkit, it chooses no code")
    # a `#define` in the arm reads the macro as much as a statement does (FLAMEGPU's wrapper of __CUDA_ARCH_LIST__)
    directive_lines = sf.cache.get("refine.non_define_lines")
    if directive_lines is None:  # once per file, not once per finding
        directive_lines = sf.cache["refine.non_define_lines"] = frozenset(
            n for d in preprocessed(sf).directives if d.kind not in ("define", "undef")
            for n in range(d.line, d.end_line + 1))
    for g in groups:
        for i, arm in enumerate(g.arms):
            if arm.kind == "else" or not arm.line <= f.line <= arm.last:
                continue
            tested = _published_tests(arm)
            if not tested:
                continue
            if f.line > arm.end_line:
                if f.line in directive_lines:
                    continue
                read = next((t for t in tested if re.search(rb"\b" + t.encode() + rb"\b", _code_line(sf, f.line))), None)
                if read is not None:
                    return _as_info(f, "introspection", f"reads {read} inside the arm that tests it is defined (line "
                                                        f"{arm.line}); HIP does not define it and never compiles this")
                continue
            if len(g.arms) != 1:
                return f
            code = b"\n".join(_code_line(sf, n) for n in arm.body if n not in directive_lines)
            read = next((t for t in tested if re.search(rb"\b" + t.encode() + rb"\b", code)), None)
            if read is None or _BROKEN_FALLBACK.search(code):
                return f
            return _as_info(f, "introspection", f"the arm only exists to read {read}, which HIP does not define; the "
                                                "code after it is the program's answer for a compiler that does not say")
    return f


def newer_arch_arm(pre, line: int) -> bool:
    """Whether the innermost `#if` around `line` that tests `__CUDA_ARCH__` is a generation test (`#if __CUDA_ARCH__
    >= 700`) with an `#else` that has code, and `line` is in one of its tested arms: HIP leaves `__CUDA_ARCH__`
    undefined, so it compiles the `#else`, never this line (the vanishing arm is reported at the guard)."""
    for g, i in reversed(pre.enclosing(line)):
        if not any(_ARCH_TEST.search(a.text) for a in g.arms if a.kind != "else"):
            continue
        return (g.has_else and i < len(g.arms) - 1 and bool(g.arms[-1].body) and g.arms[-1].last >= g.arms[-1].end_line + 1
                and _ARCH_GENERATION.search(g.arms[0].text) is not None)
    return False


def device_pass_arm(f: Draft, pre, sf: SourceFile) -> Draft:
    """The finding at info when the innermost `#if` around it that tests `__CUDA_ARCH__` holds it in an arm that
    tests only the device pass (`#ifdef __CUDA_ARCH__`, `#elif defined(__CUDA_ARCH__)`) and ends in an `#else` with
    working code: HIP compiles that `#else` instead (module doc, step 6a)."""
    if f.rule not in DEVICE_PASS_RULES:
        return f
    for g, i in reversed(pre.enclosing(f.line)):
        if not any(_ARCH_TEST.search(a.text) for a in g.arms if a.kind != "else"):
            continue
        arm, last = g.arms[i], g.arms[-1]
        if not g.has_else or i == len(g.arms) - 1 or last.last < last.end_line + 1:
            return f
        if arm.kind not in ("ifdef", "elifdef") and not (arm.kind in ("if", "elif") and _DEVICE_PASS.match(arm.text)):
            return f
        if arm.kind in ("ifdef", "elifdef") and arm.text.strip() != "__CUDA_ARCH__":
            return f
        if _BROKEN_FALLBACK.search(sf.code, *arm_span(last, sf.line_starts, len(sf.code))):  # no copy of the arm (nested #else arms hold each other)
            return f
        return _as_info(f, "hip_compiles", f"the #else at line {last.line} (HIP leaves __CUDA_ARCH__ undefined)")
    return f


def diagnostic_line(sf: SourceFile, line: int) -> bool:
    """Whether the line is an `#error` / `#warning` / `#pragma message` directive: an API name in its text is a
    message to a person (`#error thrust::cuda::par_nosync needs CUDA 12`), not a use."""
    start = sf.line_starts[line - 1] if line - 1 < len(sf.line_starts) else len(sf.data)
    return _DIAGNOSTIC.match(sf.data, start) is not None


def optional_dropin(f: Draft, groups: Iterable[Group]) -> Draft:
    """A drop-in library's include at info when an `#if` arm around it tests the library's own switch (`#if
    HAVE_NVTX`, `#ifdef K2_ENABLE_NVTX`, `#ifdef APP_USE_CUSOLVER`): the build sets it only where it finds the
    library, so the feature is optional, and where ROCm has the drop-in it is a rename the switch already gates."""
    if f.rule not in OPTIONAL_DROPIN_RULES:
        return f  # LIB001 reads info anyway (a rename); the switch that gates it is still worth saying
    lib = str(dict(f.data).get("library_id", "")).lower()
    if not lib:
        return f
    found = _switch_around(f, groups, lib)
    return f if found is None else _as_info(f, "optional", f"only built with {found[0]} (line {found[1]})")


def _switch_around(f: Draft, groups: Iterable[Group], name: str) -> tuple[str, int] | None:
    """The macro named for `name` (a library or the profiling switch) that a positive `#if` arm around the finding
    tests without `!`, and the arm's line; None when no arm does."""
    for g in groups:
        for a in g.arms:
            if a.kind in POSITIVE_ARMS and f.line in a.body and "!" not in a.text:
                switch = next((t for t in _MACRO.findall(a.text) if _names_library(t, name)), None)
                if switch is not None:
                    return switch, a.line
    return None


# 4e. A switch of the Jetson build: an arm that includes a header of the Jetson Linux (L4T) Multimedia API -
# `nvbuf_utils.h`, the `NvVideoEncoder.h`/`NvJpegDecoder.h` classes, `NvEglRenderer.h`, `Argus/` or `EGLStream/` - can
# only compile on an NVIDIA Jetson SoC, where Jetson Linux ships them (https://docs.nvidia.com/jetson/l4t-multimedia/);
# no x86-64 host, so no ROCm host, has them. The macro that arm tests is the file's Jetson switch (jetson-utils'
# ENABLE_NVMM, which CMake turns on only where it finds Tegra's nvbuf_utils): a finding in any positive arm of the file
# testing that macro alone (`#ifdef ENABLE_NVMM`, `#if defined(ENABLE_NVMM)`) is Jetson-only code: info (data
# `jetson_only`). DeepStream's NvBufSurface headers also ship for discrete GPUs, so they do not count.
_JETSON_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:nvbuf_utils\.h|Nv(?:Video(?:En|De)coder"
                             rb"|Jpeg(?:En|De)coder|EglRenderer|VideoConverter|ApplicationProfiler)\.h|Argus/|EGLStream/)",
                             re.M)
_SINGLE_SWITCH = re.compile(r"^\s*(?:defined\s*\(?\s*)?([A-Za-z_]\w*)\s*\)?\s*$")


def jetson_switch_arms(sf: SourceFile) -> dict[int, tuple[str, int]]:
    """Body line -> (the Jetson switch, its arm's line) for every positive arm testing the file's Jetson switch
    (step 4e)."""
    # the raw bytes: the code view blanks the <...> of an include as a string
    # (only `#include` lines are tried: `re` tries a MULTILINE `^` at every byte, having no literal prefix to skip to)
    if next(line_matches(_JETSON_INCLUDE, sf.data, (b"include",)), None) is None:
        return {}
    pre = preprocessed(sf)
    arms = [a for g in pre.groups for a in g.arms if a.kind in POSITIVE_ARMS and "!" not in a.text]
    switches: set[str] = set()
    for a in arms:
        m = _SINGLE_SWITCH.match(a.text)
        if m is None or not a.body:
            continue
        if _JETSON_INCLUDE.search(sf.data, *arm_span(a, sf.line_starts, len(sf.data))):
            switches.add(m.group(1))
    out: dict[int, tuple[str, int]] = {}
    for a in arms:
        m = _SINGLE_SWITCH.match(a.text)
        if m is not None and m.group(1) in switches:
            out.update((n, (m.group(1), a.line)) for n in a.body)
    return out


def jetson_only(f: Draft, arms: dict[int, tuple[str, int]]) -> Draft:
    """A finding in an arm of the file's Jetson switch: info (step 4e)."""
    return info_at_line(f, arms, "jetson_only", lambda name, line: f"in the arm of {name} (line {line}), the file's "
                        "Jetson switch (an arm of it includes the Jetson Linux Multimedia API): no ROCm host builds it")


def profiling_switch(f: Draft, groups: Iterable[Group]) -> Draft:
    """A C/C++ finding at info when a positive `#if` arm around it tests an NVTX switch (step 4a)."""
    found = None if f.severity <= Severity.INFO else _switch_around(f, groups, PROFILING_SWITCH)
    return f if found is None else _as_info(f, "optional",
                                            f"only built with the profiling switch {found[0]} (line {found[1]})")


def old_toolkit_lines(groups: Iterable[Group]) -> frozenset[int]:
    """Body lines of the `#else` of `#if CUDA_VERSION >= N` (or __CUDACC_VER_MAJOR__): code for older toolkits."""
    out: set[int] = set()
    for g in groups:
        if len(g.arms) > 1 and g.has_else and _CUDA_VERSION_AT_LEAST.search(g.arms[0].text):
            out.update(g.arms[-1].body)
    return frozenset(out)


# 6c. Same-name warp intrinsics whose HIP note is the 64-bit mask or result (API004).
MASK_WIDTH_RULES = frozenset({"API004"})


def wave32_arm(f: Draft, arms: tuple[tuple[int, int, int, str], ...]) -> Draft:
    """A wave64-only finding in an arm compiled only where a wave-size name is 32: info (step 6b); a 64-bit mask note
    in either arm of a wave-size group: info (step 6c)."""
    if f.rule in MASK_WIDTH_RULES and f.severity > Severity.INFO and "64-bit" in str(dict(f.data).get("advice", "")):
        arm = next(((a, size, name) for a, b, size, name in arms if a <= f.line <= b), None)
        if arm is None:
            return f
        return _as_info(f, "wave_arm", f"in the `{arm[2]} == {arm[1]}` arm (line {arm[0] - 1}) of a group written "
                                       f"per wave size: "
                        + ("code for a 64-lane wave" if arm[1] == 64 else "compiled only where the wave is 32 lanes"))
    if f.rule not in WAVE64_RULES or f.severity <= Severity.INFO:
        return f
    at = next(((a, name) for a, b, size, name in arms if size == 32 and a <= f.line <= b), None)
    if at is None:
        return f
    return _as_info(f, "wave_arm", f"in the `{at[1]} == 32` arm (line {at[0] - 1}): compiled only where the wave is "
                                   f"32 lanes, and the `{at[1]} == 64` arm is the wave64 code")
