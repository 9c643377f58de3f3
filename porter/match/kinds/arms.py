"""Pattern kinds over preprocessor arms: `#if` tests whose code vanishes on HIP (porter.source.preprocessor answers
which arms those are; this module says where, and which kernels lose code).

`vanishing_arm: [__CUDA_ARCH__]` hits the macro in the first arm of a group that the CUDA device pass may compile
and HIP's never does, when HIP then compiles nothing of the group (no `#else`, or an empty one), and the arm's code
is inside a kernel's or device function's body. The hit names the function it empties and, for a device function,
the same-file kernels that call it (`emptied`).

`vanishing_build_arm: true` does the same for an arm the repository's CUDA-side build macro selects
(`#if LIB_USES_SYCL` ... `#elif LIB_USES_CUDA` with no HIP arm): the ROCm build compiles nothing in its place.

`host_only_marker: true` hits the `__device__` definition of a qualifier macro whose every definition HIP's device
pass may compile lacks `__device__` (`#if defined(__CUDACC__) && defined(__CUDA_ARCH__)` / `#define HD __device__`
/ `#else` / `#define HD`): what it declares is host code on HIP (porter.source.preprocessor.host_only_markers).

`wave_constant` finds a wave size hard-coded where the code has not chosen it per architecture (`#define WARP_SIZE
64` in a ROCm arm is wrong on wave32 gfx1250).
"""
from __future__ import annotations

import fnmatch
import functools
import re
from typing import Iterable, Iterator

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile
from porter.source.parse_input import word_matches
from porter.source.preprocessor import (condition_names, defines, host_only_markers, may_hold_directives, preprocessed,
                                        side_at, vanishing_arms, vanishing_build_arms)


def match_vanishing_arm(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = pattern["vanishing_arm"]
    if sf.language != "cuda" or not may_hold_directives(sf.data) or not any(n.encode() in sf.data for n in names):
        return
    found = vanishing_arms(preprocessed(sf), names, ctx.extra.get("constants") or {}, ctx.extra.get("rocm_names", ()))
    yield from _arm_hits(sf, names, found, ())


def match_vanishing_build_arm(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`vanishing_build_arm: true`: an arm only the CUDA build compiles, by the repository's CUDA-side build names
    (`#elif LIB_USES_CUDA`), in a group that gives the ROCm build nothing in its place, inside a kernel's or device
    function's body (porter.source.preprocessor.vanishing_build_arms)."""
    cuda = ctx.extra.get("cuda_names") or frozenset()
    if sf.language != "cuda" or not cuda or not may_hold_directives(sf.data):
        return
    named = sorted(n for n in cuda if n.encode() in sf.data)
    if not named:
        return
    pre = preprocessed(sf)
    found = vanishing_build_arms(pre, ctx.extra.get("rocm_names", ()), cuda)
    yield from _arm_hits(sf, named, [(g, a) for g, a in found if not _pragmas_only(sf, a)
                                     and not _declares_for_its_test(sf, pre, a)], ())


# A declaration statement: `__shared__ int sh_x[N];`, `const float2 v = make_float2(0, 0);` (its declared name in
# group `name`). Qualifiers, a namespaced or templated type, pointers, array extents and an initialiser.
_DECLARATION = re.compile(rb"\s*(?:(?:__shared__|__device__|__constant__|const|volatile|static|unsigned|signed|long)\s+)*"
                          rb"[A-Za-z_][\w:]*(?:\s*<[^;{}()]*>)?[\s*&]+(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\];]*\]\s*)*"
                          rb"(?:=[^;{}]*)?;")


def _declares_for_its_test(sf: SourceFile, pre, arm) -> bool:
    """Whether an arm only declares names that the file uses nowhere but in arms of the same test (stormm's `#ifdef
    LARGE_CHIP_CACHE` / `__shared__ int sh_xcrd_overflow[...]`, a cache-size switch only the CUDA build defines,
    whose every use is under `#ifdef LARGE_CHIP_CACHE` too, with an `#else` of its own there): the declarations
    vanish with the code that reads them, and the ROCm build's layout without them is complete."""
    # nested directives (`#  ifndef TCALC_IS_SINGLE` around more declarations) only choose among declarations
    body = re.sub(rb"(?m)^[ \t]*#[^\n]*$", b"", _arm_text(sf.code, sf, arm))
    if b"#" in body:
        return False
    names: list[bytes] = []
    at = 0
    while body[at:].strip():
        m = _DECLARATION.match(body, at)
        if m is None:
            return False
        names.append(m.group("name"))
        at = m.end()
    if not names:
        return False
    same = [(a.end_line + 1, a.last) for g in pre.groups for a in g.arms
            if a.kind == arm.kind and a.text.strip() == arm.text.strip()]
    tokens = sf.tokens()
    for name in names:
        for offset in tokens.get(name, ()):
            line = sf.position(offset)[0]
            if not any(first <= line <= last for first, last in same):
                return False
    return True


# An arm whose code is only `#pragma` lines (a compiler's diagnostic push/ignore, Legion's `#ifdef
# REALM_COMPILER_IS_GCC` / `#pragma GCC diagnostic push`): a hint to one compiler, no code the other build lacks.
_PRAGMAS_ONLY = re.compile(rb"(?:[ \t]*(?:#[ \t]*pragma\b[^\n]*)?\n)*[ \t]*(?:#[ \t]*pragma\b[^\n]*)?")


def _pragmas_only(sf: SourceFile, arm) -> bool:
    return _PRAGMAS_ONLY.fullmatch(_arm_text(sf.code, sf, arm)) is not None


def _arm_text(text: bytes, sf: SourceFile, arm) -> bytes:
    """The lines of an arm's code (after its directive, through its last line) in `text`: sf.code (comments and
    string contents blanked) or sf.data (as written)."""
    first, last = arm.end_line + 1, arm.last
    n = len(sf.line_starts)
    return text[sf.line_starts[first - 1] if first <= n else len(text):
                sf.line_starts[last] if last < n else len(text)]


def match_host_only_marker(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cuda" or b"__device__" not in sf.data or not may_hold_directives(sf.data):
        return
    for m in host_only_markers(list(preprocessed(sf).directives)):
        start = sf.line_starts[m.line - 1]
        at = sf.data.find(m.name.encode(), start)
        if at < 0:
            continue
        yield Hit(at, at + len(m.name), name=m.name,
                  values=(("name", m.name), ("body", m.body), ("hip_line", str(m.hip_line)),
                          ("hip_body", m.hip_body or "empty")))


# An `#else` that only hands back a constant: `return 0;`, `return MAGMA_S_ZERO;`, `return;`, `return T();`,
# `return (float)0;`, `return {};` - MAGMA's "pre-Kepler GPUs" fallbacks behind `#if __CUDA_ARCH__ >= 300`.
_STUB = re.compile(rb"\s*return\s*(?:[-+]?\d[\w.]*|[A-Z][A-Z0-9_]*|\w+\s*\(\s*\)|\(\s*\w+\s*\)\s*\d[\w.]*|\{\s*\}|"
                   rb"false|true|nullptr)?\s*;\s*")


def stub_arms(sf: SourceFile) -> frozenset[int]:
    """Directive lines of the `#else` arms whose code is a single constant `return` (comments blanked)."""
    pre = preprocessed(sf)
    n = len(sf.line_starts)
    out = set()
    for g in pre.groups:
        for a in g.arms:
            first, last = a.end_line + 1, a.last
            if a.kind != "else" or last < first:
                continue
            body = sf.code[sf.line_starts[first - 1] if first <= n else len(sf.code):
                           sf.line_starts[last] if last < n else len(sf.code)]
            if b"#" not in body and _STUB.fullmatch(body):
                out.add(a.line)
    return frozenset(out)


def match_stub_arm(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`stub_arm: [__CUDA_ARCH__]`: like vanishing_arm, for a group whose `#else` - what HIP compiles, as it leaves
    the macro undefined - only returns a constant (`#else // pre-Kepler GPUs` / `return 0;`): the device function
    runs the stub on AMD. Groups vanishing_arm reports (no `#else`, or an empty one) are left to it."""
    names = pattern["stub_arm"]
    if sf.language != "cuda" or b"#" not in sf.data or b"return" not in sf.data or not any(
            n.encode() in sf.data for n in names):
        return
    stubs = stub_arms(sf)
    if not stubs:
        return
    pre = preprocessed(sf)
    constants, rocm = ctx.extra.get("constants") or {}, ctx.extra.get("rocm_names", ())
    plain = {g.arms[0].line for g, _ in vanishing_arms(pre, names, constants, rocm)}
    found = [(g, a) for g, a in vanishing_arms(pre, names, constants, rocm, also_empty=stubs)
             if g.arms[0].line not in plain]
    yield from _arm_hits(sf, names, found, ((g.arms[0].line, g) for g, _ in found))


def _arm_hits(sf: SourceFile, names, found, groups) -> Iterable[Hit]:
    """One hit per arm that HIP replaces, at the macro's name, when the arm is inside a kernel's or device function's
    body; `groups` ((first line, group) pairs, or nothing) adds the stub the group's `#else` returns as `stub`."""
    if not found:
        return
    stub_of = {}
    for line, g in groups:
        other = g.arms[-1]
        first, last = other.end_line + 1, other.last
        text = sf.code[sf.line_starts[first - 1]:sf.line_starts[last] if last < len(sf.line_starts) else len(sf.code)]
        stub_of[line] = " ".join(text.decode("utf-8", "replace").split())
    # A function's code is its body: an arm among its attributes (`#if __CUDA_ARCH__ >= 700 __launch_bounds__(256)
    # #endif`) drops the attribute on HIP, not the code (DEV009 says that much).
    spans = []
    for f in sf.functions:
        body = f.node.child_by_field_name("body") if f.is_kernel or f.is_device else None
        if body is not None:
            spans.append((f, body.start_point.row + 1, f.end_line))
    for _group, arm in found:
        # The arm must be inside a function body: that code silently goes missing on HIP. An arm that holds whole
        # definitions loses them loudly (a call to one does not compile), and host passes never saw them either.
        around = [f for f, a, b in spans if a < arm.line and b > arm.last]
        if not around or _hands_over(sf, arm):
            continue
        f = around[-1]  # the innermost
        kernels = sorted({k.name for k in kernels_calling(sf, f)}) if not f.is_kernel else [f.name]
        said = f"kernel {f.name}" if f.is_kernel else f"device function {f.name}"
        if not f.is_kernel and kernels:
            said += " (called by " + ("kernel " if len(kernels) == 1 else "kernels ") + ", ".join(kernels) + ")"
        start = sf.line_starts[arm.line - 1]
        end = sf.line_starts[arm.end_line] if arm.end_line < len(sf.line_starts) else len(sf.data)
        name = next(n for n in names if n in arm.text)
        at = sf.data.find(name.encode(), start, end)
        if at < 0:
            continue
        values: tuple[tuple[str, str], ...] = (("emptied", said), ("directive", arm.kind), ("condition", arm.text))
        if _group.arms[0].line in stub_of:
            values += (("stub", stub_of[_group.arms[0].line]),)
        yield Hit(at, at + len(name), name=name, values=values)


# An arm that ends in a dangling `else` (`if (half) { ... } else` then `#endif`): the statement after the #endif is
# the branch HIP compiles. One whose code is only programmatic-dependent-launch calls: HIP runs a stream's kernels in
# order without PDL, so dropping the early trigger or the dependency wait loses nothing. One whose code is only an
# async-copy fence (`asm volatile("cp.async.commit_group;")`, `cp.async.wait_group N`, `__pipeline_commit()`): the
# copies it fences are reported where they are; where HIP copies synchronously there is nothing to wait for
# (FBGEMM's cp_async_fence beside the copies' USE_ROCM arms). One of #pragma lines only (`#pragma unroll`): a hint to
# the compiler, no statement ([cpp.pragma]: an unrecognised pragma is ignored), so HIP compiles the same code.
_DANGLING_ELSE = re.compile(rb"\belse\s*$")
_PRAGMA_ROW = re.compile(rb"\s*#\s*pragma\b")
# One whose code is only device printf calls (k2's logger adding the block and thread ids): HIP loses a diagnostic.
_PRINT_ONLY = re.compile(rb"(?:\s*printf\s*\([^;{}]*\)\s*;)+\s*")
_PDL_ONLY = re.compile(rb"(?:\s*(?:(?:cudaTriggerProgrammaticLaunchCompletion|cudaGridDependencySynchronize"
                       rb"|__pipeline_commit|__pipeline_wait_prior)\s*\([^()]*\)"
                       rb"|(?:asm|__asm__)\s*(?:volatile|__volatile__)?\s*\(\s*\"cp\.async\.(?:commit_group|wait_group"
                       rb"|wait_all)\b[^\"]*\"[^;]*\))\s*;)+\s*")


def _hands_over(sf: SourceFile, arm) -> bool:
    """Whether HIP loses nothing when the arm vanishes (see above); comments are blanked in sf.code."""
    if arm.last < arm.end_line + 1:
        return False
    body = _arm_text(sf.code, sf, arm)
    if b"#" in body:
        # an arm of #pragma lines only (era-bellman-cuda's `#ifdef __CUDA_ARCH__` / `#pragma unroll` / `#endif` before
        # a loop): a compiler hint, no code, so the function compiles the same statements on HIP; other nested
        # directives are read as written, not guessed
        return all(_PRAGMA_ROW.match(row) for row in body.splitlines() if row.strip())
    if _DANGLING_ELSE.search(body) is not None or _PRINT_ONLY.fullmatch(body) is not None:
        return True
    # the same span as written (sf.code blanks string contents, which name the PTX), comments taken out
    raw = _arm_text(sf.data, sf, arm)
    return _PDL_ONLY.fullmatch(_COMMENTS.sub(b" ", raw)) is not None


_COMMENTS = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


# `constexpr int kWarpSize = 64;`, `static const unsigned WARP_SIZE = 64;`, `static constexpr uint32 warp_size = 64;`,
# `constexpr Index_type warp_size = 64;` (a #define is read from the directives). The type is any one (qualified)
# name: an integer constant is declared with the project's own integer typedefs as often as with `int`.
_CONSTANT_DECL = re.compile(rb"\b(?:constexpr|static\s+const|const)\s+(?:static\s+|const\s+)?(?:unsigned\s+int|"
                            rb"unsigned\s+long|unsigned|long|(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s+"
                            rb"(?P<name>[A-Za-z_]\w*)\s*(?:=|\{)\s*(?P<value>\d+)[uUlL]*\s*\}?\s*;")


def match_wave_constant(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`wave_constant: {names: [globs], value: 64, unless_arm: [globs], paired: 32, paired_unless_name: [globs]}`: a
    constant named like a wave size (a `#define` or a const/constexpr integer) set to `value`, unless an `#if` arm
    around it (or an earlier arm of that group) names one of `unless_arm` (the code already chose its value per
    architecture); with `paired`, also a constant of any name but `paired_unless_name` set to `value` in a ROCm-only
    arm whose group sets it to `paired` in a CUDA-only arm (_paired_spots)."""
    spec = pattern["wave_constant"]
    value = spec["value"]
    if str(value).encode() not in sf.data:
        return
    if sf.language in BUILD_DEFINITION_LANGUAGES:
        yield from _build_definitions(spec, sf)
        return
    if sf.language != "cuda":
        return
    names = _globs(tuple(spec["names"]))
    # (a bound such as `MAX_WARP_SIZE 64` holds on every AMD target: no wave size is larger)
    excluded = _globs(tuple(spec.get("unless_name", ())))

    def named(name: str) -> bool:
        return bool(names(name)) and not (excluded is not None and excluded(name))

    unless = _globs(tuple(spec.get("unless_arm", ())))
    pre = preprocessed(sf)
    spots: list[tuple[int, str]] = []  # (byte offset of the name, name)
    for line, name, body in defines(list(pre.directives)):
        if named(name) and _int_literal(body) == value:
            start = sf.line_starts[line - 1]
            at = sf.data.find(name.encode(), start)
            if at >= 0:
                spots.append((at, name))
    # Tried only where `const` or `static` is written (every match starts there), not at every byte of the file.
    for m in word_matches(_CONSTANT_DECL, sf.code, (b"const", b"static")):
        name = m.group("name").decode()
        if named(name) and int(m.group("value")) == value:
            spots.append((m.start("name"), name))
    if "paired" in spec:
        # a block size doubled for wave64 (`#define BLOCKSIZE 64` beside 32) still runs on wave32, as two waves
        also = _globs(tuple(spec.get("paired_unless_name", ())))
        spots += _paired_spots(sf, pre, value, spec["paired"], ctx,
                               lambda n: bool(excluded is not None and excluded(n) or also is not None and also(n)),
                               {at for at, _ in spots})
    for at, name in sorted(spots):
        line = sf.position(at)[0]
        if unless is not None and any(unless_hit(g, i, unless) for g, i in pre.enclosing(line)):
            continue
        yield Hit(at, at + len(name), name=name, values=(("value", str(value)),))


def _paired_spots(sf: SourceFile, pre, value: int, paired: int, ctx: MatchContext, excluded,
                  seen: set[int]) -> list[tuple[int, str]]:
    """Constants of any name set to `value` (64) in an arm only the ROCm build compiles where the file sets the
    same name to `paired` (32) in an arm only the CUDA build compiles, of the same `#if` group or another (`#if
    LIB_USES_HIP` / `const int TILEDIM = 64; // AMD change` / `#elif LIB_USES_CUDA` / `const int TILEDIM = 32;`;
    `#ifdef __NVCC__` ... `#endif` beside `#ifdef __HIP__` ... `#endif`): the port doubled a 32-lane constant for
    wave64, which is the wave size whatever its name (porter.source.preprocessor's build regions decide the arms)."""
    found: list[tuple[int, str, int]] = []  # (byte offset of the name, name, value)
    for line, name, body in defines(list(pre.directives)):
        v = _int_literal(body)
        if v in (value, paired):
            at = sf.data.find(name.encode(), sf.line_starts[line - 1])
            if at >= 0:
                found.append((at, name, v))
    for m in word_matches(_CONSTANT_DECL, sf.code, (b"const", b"static")):
        v = int(m.group("value"))
        if v in (value, paired):
            found.append((m.start("name"), m.group("name").decode(), v))
    if not any(v == value for *_, v in found) or not any(v == paired for *_, v in found):
        return []
    rocm, cuda = ctx.extra.get("rocm_names", ()), ctx.extra.get("cuda_names", ())
    if not pre.builds_differ(rocm, cuda):
        return []
    regions = pre.regions(rocm, cuda)

    def arm_of(at: int, side: str):
        line = sf.position(at)[0]
        around = pre.enclosing(line)
        return (around[-1][0], line) if around and side_at(regions, line)[0] == side else (None, line)

    out = []
    for at, name, v in found:
        if v != value or at in seen or excluded(name):
            continue
        g, _ = arm_of(at, "rocm")
        if g is None:
            continue
        # the CUDA arm's 32 in the same group, or in a CUDA-only arm of the file's other groups: each vendor in a
        # group of its own (`#ifdef __NVCC__` / `#define WARPLENGTH 32` / `#endif`, then `#ifdef __HIP__` /
        # `#define WARPLENGTH 64`, hashinator) is the same doubling
        if any(n == name and w == paired and arm_of(a, "cuda")[0] is not None for a, n, w in found):
            out.append((at, name))
    return out


# Build files that put a macro on the compile line: CMake (`add_compile_definitions(WARP_SIZE=64)`,
# `target_compile_definitions(t PRIVATE WARP_SIZE=64)`, `add_definitions(-DWARP_SIZE=64)`, `-DWARP_SIZE=64` in
# CMAKE_HIP_FLAGS), make (`CXXFLAGS += -DWARP_SIZE=64`) and Python builds (`"-DWARP_SIZE=64"` in extra_compile_args,
# `define_macros=[("WARP_SIZE", "64")]`). Such a definition reaches every translation unit the build compiles with it.
BUILD_DEFINITION_LANGUAGES = frozenset({"cmake", "make", "python"})
_FLAG_DEFINITION = re.compile(rb"-D\s*(?P<name>[A-Za-z_]\w*)=\(?(?P<value>\d+)[uUlL]*\)?(?![\w.])")
_CMAKE_DEFINITIONS = re.compile(rb"\b(?:add_compile_definitions|target_compile_definitions|add_definitions)\s*\(([^)]*)\)",
                                re.I)
_CMAKE_BARE = re.compile(rb"(?<![\w-])(?P<name>[A-Za-z_]\w*)=\(?(?P<value>\d+)[uUlL]*\)?(?![\w.])")
_PY_MACRO = re.compile(rb"\(\s*['\"](?P<name>[A-Za-z_]\w*)['\"]\s*,\s*['\"]?(?P<value>\d+)['\"]?\s*\)")


def _build_definitions(spec: dict, sf: SourceFile) -> Iterator[Hit]:
    """Wave-size macros a build file defines as `spec["value"]` on the compile line (see above), at the name."""
    names = _globs(tuple(spec["names"]))
    excluded = _globs(tuple(spec.get("unless_name", ())))
    # Python keeps its flags in strings, which sf.code blanks: read the text, skipping comments.
    text = sf.data if sf.language == "python" else sf.code
    spots = [m for m in _FLAG_DEFINITION.finditer(text)]
    if sf.language == "cmake":
        spots += [m for call in _CMAKE_DEFINITIONS.finditer(text)
                  for m in _CMAKE_BARE.finditer(text, call.start(1), call.end(1))]
    if sf.language == "python":
        spots += list(_PY_MACRO.finditer(text))
    seen: set[int] = set()
    for m in sorted(spots, key=lambda m: m.start("name")):
        at, name = m.start("name"), m.group("name").decode()
        if at in seen or int(m.group("value")) != spec["value"] or names is None or not names(name) \
                or (excluded is not None and excluded(name)) or sf.in_comment(at):
            continue
        seen.add(at)
        yield Hit(at, m.end("name"), name=name, values=(("value", str(spec["value"])),))


def kernels_calling(sf: SourceFile, fn) -> list:
    """The file's kernels whose bodies call `fn` by name (directly; a helper's own callers are not followed)."""
    call = re.compile(rb"\b" + re.escape(fn.name.encode()) + rb"\s*(?:<[^;(){}]*>)?\s*\(")
    return [k for k in sf.functions if k.is_kernel and call.search(sf.code, k.start_byte, k.end_byte)]


def unless_hit(g, i: int, unless) -> bool:
    """Whether arm i of group g, or an arm before it (which an #else or #elif answers), names an `unless` macro."""
    return any(unless(t) for a in g.arms[:i + 1] if a.kind != "else" for t in condition_names([a]))


def _int_literal(body: str) -> int | None:
    m = re.fullmatch(r"\(?\s*(\d+)[uUlL]*\s*\)?", body.strip())
    return int(m.group(1)) if m else None


@functools.lru_cache(maxsize=64)
def _globs(globs: tuple[str, ...]):
    """`matches(name)` for any of the globs, or None when there are none."""
    if not globs:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)).match
