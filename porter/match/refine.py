"""The one step between rule hits and a file's findings that makes them hold on real code: dead preprocessor
branches, private copies of toolkit headers, and one finding per spot.

`refine(findings, sf)` runs once per file after every rule has matched (porter.match.engine.run_rules), on the
sorted drafts of its findings (porter.match.draft):
1. Findings inside a branch the preprocessor never compiles (`#if 0 … #endif`, the `#else` of `#if 1`) are
   dropped: no compiler ever sees that code, on CUDA or on HIP.
2. A file that is a private copy of a CUDA toolkit header (a repository's own `cuda.h`, kept so it builds without
   the toolkit) declares the API rather than using it; its api/device findings are dropped.
3. Code inside the AMD branch of a ROCm guard is kept: port-awareness (porter.portaware) reads it handled, port
   work already done, with the guard as evidence. A capability or toolkit-version test (DEV009, DEV010) whose `#if` has an `#else` fallback without PTX, traps or #error is what HIP compiles, and works;
   a deprecated API (API003) in the old-toolkit `#else` of `#if CUDA_VERSION >= N` is a fallback, not a use.
4. Duplicates: where two rules report the same spot, only the most specific one is kept (SPECIFIC below: DEV007's
   "wgmma: rewrite with CK" over DEV001's "inline PTX", API006's "no drop-in" over LIB001's "drop-in", DEV002's
   "32-bit mask" over API004's "same name in HIP"), and the dropped findings' facts are merged into its `data` under
   `also` ("RULE: message", sorted), so nothing the dropped rule knew is lost.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from porter.match.draft import Draft
from porter.source.parse import SourceFile

# general rule -> the rules that, hitting the same spot, say the same thing more specifically. The general one yields.
SPECIFIC: dict[str, tuple[str, ...]] = {
    "DEV001": ("DEV006", "DEV007", "DEV012", "PYT010"),  # inline PTX: matrix / Hopper / async-copy PTX name the job
    "API004": ("DEV002", "DEV003", "DEV011"),  # same-name shuffle/ballot: the 32-bit mask or width is the real issue
    "API001": ("DEV002", "DEV003", "DEV015"),  # FAST_TF32's rename: DEV015 says what TF32 is on each target
    # "no drop-in HIP header" contradicts LIB001's "drop-in" on the same include (libcu++'s cuda/pipeline); an
    # API005 rename next to a LIB finding is not a duplicate: one names the header, the other the dependency.
    "LIB001": ("API006",),
    "LIB002": ("API006",),
    "LIB003": ("API006",),
    "DEV005": ("DEV006",),
    "DEV013": ("DEV014",),  # a capability test that picks a tuning value: the tuning table is the finding
    "KRN001": (),
}

# Toolkit headers a repository may carry a private copy of (to build without the CUDA toolkit installed).
TOOLKIT_HEADERS = frozenset({
    "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "driver_types.h", "driver_functions.h", "vector_types.h",
    "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp", "cudaTypedefs.h",
    "cuda_device_runtime_api.h", "device_types.h", "library_types.h", "cublas_api.h", "cublas_v2.h", "cublasLt.h",
    "nvrtc.h", "cuda_awbarrier.h", "cuda_pipeline.h", "curand_kernel.h", "cuComplex.h", "cudaGL.h", "cudaEGL.h",
})
# A copy declares the API: NVIDIA's notice, or the header's own include guard.
_TOOLKIT_COPY = re.compile(rb"NVIDIA Corporation|NVIDIA CORPORATION|#\s*define\s+__CUDA_(?:API_)?H__|#\s*define\s+CUDA_VERSION\s+\d"
                           rb"|#\s*define\s+__CUDA_RUNTIME_H__|#\s*define\s+__DRIVER_TYPES_H__|#\s*define\s+__CUDA_FP16_H__")
_COPY_DROPS = frozenset({"api", "device", "kernel"})

# Macros that mean "compiling for ROCm/HIP" in dual projects.
ROCM_MACROS = re.compile(rb"\b(?:USE_ROCM|USE_AMD_ROCM|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|"
                         rb"__HIP_DEVICE_COMPILE__|USE_HIP|GGML_USE_HIP|WITH_HIP|__AMDGCN__|__gfx\w+|__GFX\d+__|"
                         rb"__AMDGCN_WAVEFRONT_SIZE\w*|PADDLE_WITH_HIP|TORCH_HIP_VERSION|HIP_VERSION|ROCM_VERSION\w*)\b")
# Capability and toolkit-version tests: not a porting item when their #else is a fallback HIP compiles.
FALLBACK_RULES = frozenset({"DEV009", "DEV010"})
# Deprecated-API uses: not a use when they sit in the old-toolkit #else of `#if CUDA_VERSION >= N`.
OLD_TOOLKIT_RULES = frozenset({"API003"})
_CUDA_VERSION_AT_LEAST = re.compile(rb"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__)\s*>=?\s*\d")
# An #else that traps, asserts, errors, uses PTX, is an empty stub (`__global__ void k(...) {}`) or says the arch is
# unsupported does not work on HIP, so the test in front of it is a real porting item.
_BROKEN_FALLBACK = re.compile(rb"\basm\b|\b__asm__\b|\bbrkpt\b|\btrap\b|__trap\s*\(|#\s*error\b|assert\s*\(\s*(?:0|false)\s*\)"
                              rb"|\)\s*(?:const\s*)?\{\s*\}|UNSUPPORTED|[Uu]nsupported|not supported")
# A conditional directive from its `#` (a literal first, which the regex engine skips to directly: `^[ \t]*#` with
# re.M tried `^` at every byte); the text before it on its line must be blanks only.
_DIRECTIVE = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)")


def refine(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """The file's findings without dead-branch hits, toolkit-copy declarations and duplicates (see the module doc)."""
    if not findings:
        return findings
    dead = dead_lines(sf)
    if dead:
        findings = [f for f in findings if f.line not in dead]
    if findings and b"#" in sf.code:
        groups = branch_groups(sf)
        # Code in a ROCm-only arm is kept: port-awareness (porter.portaware) reads it handled, port work done.
        fallback = fallback_tests(groups, sf)
        old_toolkit = old_toolkit_lines(groups)
        findings = [f for f in findings if not (f.rule in FALLBACK_RULES and f.line in fallback)
                    and not (f.rule in OLD_TOOLKIT_RULES and f.line in old_toolkit)]
    if private_toolkit_copy(sf):
        findings = [f for f in findings if f.category not in _COPY_DROPS]
    return one_per_spot(findings)


def private_toolkit_copy(sf: SourceFile) -> bool:
    """Whether the file is the repository's own copy of a CUDA toolkit header (named like one, and declaring it)."""
    return PurePosixPath(sf.path).name in TOOLKIT_HEADERS and bool(_TOOLKIT_COPY.search(sf.data[:20000]))


def dead_lines(sf: SourceFile) -> frozenset[int]:
    """Lines in preprocessor branches that can never compile: `#if 0` (or `false`) bodies, and every branch after a
    taken `#if 1`/`#elif 1`. Conditions that are not a literal leave their branches alive."""
    if b"#" not in sf.code:
        return frozenset()
    dead: set[int] = set()
    # One frame per open #if: [this branch dead?, a literal-true branch already taken?, enclosing code dead?, line
    # where this branch began].
    stack: list[list] = []
    for kind, rest, line in _directives(sf):
        if kind in ("if", "ifdef", "ifndef"):
            outer = any(frame[0] for frame in stack)
            value = _literal(rest) if kind == "if" else None
            stack.append([outer or value is False, value is True, outer, line])
        elif not stack:
            continue
        else:
            frame = stack[-1]
            if frame[0]:
                _mark(dead, frame[3], line)
            if kind == "endif":
                stack.pop()
                continue
            value = _literal(rest) if kind == "elif" else None
            frame[0] = frame[2] or frame[1] or value is False
            frame[1] = frame[1] or (value is True and not frame[0])
            frame[3] = line
    return frozenset(dead)


def branch_groups(sf: SourceFile) -> list[list[tuple[str, bytes, int, int]]]:
    """Every #if group of the file as its branches: (directive, condition, directive line, last body line)."""
    groups: list[list[tuple[str, bytes, int, int]]] = []
    stack: list[list] = []
    for kind, rest, line in _directives(sf):
        if kind in ("if", "ifdef", "ifndef"):
            stack.append([[kind, rest, line, None]])
            continue
        if not stack:
            continue
        branches = stack[-1]
        branches[-1][3] = line - 1
        if kind == "endif":
            groups.append([tuple(b) for b in stack.pop()])
        else:
            branches.append([kind, rest, line, None])
    return groups


def _directives(sf: SourceFile) -> list[tuple[str, bytes, int]]:
    """(directive, the rest of its line stripped, line) of every #if/#ifdef/#ifndef/#elif/#else/#endif, in order;
    read once per file for dead_lines and branch_groups."""
    memo = sf.cache.get("refine.directives")
    if memo is None:
        code = sf.code
        memo = sf.cache["refine.directives"] = []
        for m in _DIRECTIVE.finditer(code):
            start = m.start()
            if code[code.rfind(b"\n", 0, start) + 1:start].strip(b" \t"):
                continue  # text before the `#` on its line: not a directive
            memo.append((m.group(1).decode(), m.group(2).strip(), sf.position(start)[0]))
    return memo


def fallback_tests(groups, sf: SourceFile) -> frozenset[int]:
    """`#if`/`#elif` lines whose group ends in an `#else` that HIP can compile as it is (no PTX, trap or #error)."""
    out: set[int] = set()
    for branches in groups:
        kind, _, line, last = branches[-1]
        if kind != "else" or last is None or last <= line:
            continue
        start = sf.line_starts[line] if line < len(sf.line_starts) else len(sf.code)
        end = sf.line_starts[last] if last < len(sf.line_starts) else len(sf.code)
        if _BROKEN_FALLBACK.search(sf.code[start:end]):
            continue
        out.update(b[2] for b in branches[:-1])
    for branches in groups:  # a test that names ROCm itself (`>= 350 || defined(USE_AMD_ROCM)`) already covers HIP
        out.update(b[2] for b in branches if b[0] in ("if", "elif") and ROCM_MACROS.search(b[1]))
    return frozenset(out)


def old_toolkit_lines(groups) -> frozenset[int]:
    """Body lines of the `#else` of `#if CUDA_VERSION >= N` (or __CUDACC_VER_MAJOR__): code for older toolkits."""
    out: set[int] = set()
    for branches in groups:
        if len(branches) > 1 and branches[-1][0] == "else" and _CUDA_VERSION_AT_LEAST.search(branches[0][1]):
            kind, cond, line, last = branches[-1]
            out.update(range(line + 1, (last or line) + 1))
    return frozenset(out)


def _mark(dead: set[int], first: int, last: int) -> None:
    dead.update(range(first + 1, last))


def _literal(cond: bytes) -> bool | None:
    text = cond.split(b"//")[0].split(b"/*")[0].strip()
    while text.startswith(b"(") and text.endswith(b")"):
        text = text[1:-1].strip()
    if re.fullmatch(rb"0+[uUlL]*|false", text):
        return False
    if re.fullmatch(rb"[1-9][0-9]*[uUlL]*|true", text):
        return True
    return None


def one_per_spot(findings: list[Draft]) -> list[Draft]:
    """Drop a general rule's finding where a more specific rule (SPECIFIC) hit an overlapping span on the same
    lines; the kept finding records the dropped ones under data `also`. Input and output sorted."""
    by_rule: dict[str, list[Draft]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    if not any(r in by_rule and any(s in by_rule for s in SPECIFIC[r]) for r in SPECIFIC):
        return findings
    drop: set[int] = set()
    merged: dict[int, list[str]] = {}
    index = {id(f): i for i, f in enumerate(findings)}
    for general, specifics in SPECIFIC.items():
        for g in by_rule.get(general, ()):
            for rule in specifics:
                keeper = next((s for s in by_rule.get(rule, ()) if _overlap(g, s)), None)
                if keeper is not None:
                    drop.add(index[id(g)])
                    merged.setdefault(index[id(keeper)], []).append(f"{g.rule}: {g.message}")
                    break
    out = []
    for i, f in enumerate(findings):
        if i in drop:
            continue
        if i in merged:
            data = dict(f.data)
            also = sorted(set(merged[i]) | set(filter(None, str(data.get("also", "")).split("\n"))))
            data["also"] = "\n".join(also)
            f = f._replace(data=tuple(sorted(data.items())))
        out.append(f)
    return out


def _overlap(a: Draft, b: Draft) -> bool:
    """Same spot: the line ranges meet, and on a shared single line the column spans meet too."""
    if a.path != b.path or a.end_line < b.line or b.end_line < a.line:
        return False
    if a.line == a.end_line == b.line == b.end_line:
        return a.column < b.end_column and b.column < a.end_column
    return True
