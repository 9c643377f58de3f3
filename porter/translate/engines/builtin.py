"""The built-in engine: token-accurate CUDA→HIP renames from porter's knowledge base, on bytes, on any machine.

Only identifier tokens in code are renamed (comments and string literals are left alone unless asked), so a
byte outside an edit is never touched: non-UTF-8 text survives exactly. `#include`s of CUDA headers are
rewritten per rules/kb/headers.tsv, `<<<...>>>` launches are kept (hip-clang accepts them), and the second
argument of `__launch_bounds__` is converted from CUDA's minimum blocks per multiprocessor to HIP's minimum
waves per execution unit, `MIN_WARPS_PER_EU = MIN_BLOCKS_PER_MP * MAX_THREADS_PER_BLOCK / 32` (HIP's
documented conversion, https://github.com/ROCm/HIP/blob/docs/develop/docs/reference/cpp_language_extensions.rst). Every CUDA name that stays is reported by
`leftovers`, which also serves the hipify wrappers.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from porter.source.syntax import is_member_access as _is_member_access
from porter.kb import ApiEntry, KnowledgeBase, load_kb
from porter.match.engine import with_fingerprints as _with_fingerprints
from porter.model import Confidence, Finding, Severity
from porter.source.parse import SourceFile, parse
from porter.source.parse_queries import captures

# Extensions nvcc compiles with an implicit `#include <cuda_runtime.h>`; their HIP version must include
# hip/hip_runtime.h itself (hip-clang declares neither threadIdx nor hipMalloc without it).
IMPLICIT_RUNTIME_EXTS = frozenset({".cu", ".cuh"})
HIP_RUNTIME_INCLUDE = b"#include <hip/hip_runtime.h>\n"

# Names that look like CUDA API but are in no HIPIFY table: reported unless the project defines them itself.
CUDA_PREFIX = re.compile(
    r"^(?:cuda[A-Z0-9_]|CUDA_|CUDART_|cublas[A-Z_]|CUBLAS_|cusparse[A-Z_]|CUSPARSE_|cusolver[A-Z_]|CUSOLVER_"
    r"|cufft[A-Z_]|CUFFT_|curand[A-Z_]|CURAND_|cudnn[A-Z_]|CUDNN_|nvrtc[A-Z_]|NVRTC_)"
)
# Macros the CUDA compiler or headers define and hip-clang does not: code behind them silently disappears.
CUDA_MACROS = {
    "__CUDA_ARCH__": "hip-clang does not define __CUDA_ARCH__: test __HIP_DEVICE_COMPILE__ (device pass) instead",
    "__NVCC__": "hip-clang does not define __NVCC__: test __HIPCC__ / __HIP_PLATFORM_AMD__",
    "__CUDA_RUNTIME_H__": "CUDA header guard; HIP headers never define it, so code behind it is dropped",
    "__DRIVER_TYPES_H__": "CUDA header guard; HIP headers never define it, so code behind it is dropped",
    "__CUDACC_VER_MAJOR__": "nvcc version macro; not defined by hip-clang",
    "__CUDACC_VER_MINOR__": "nvcc version macro; not defined by hip-clang",
    "__CUDACC_RTC__": "NVRTC macro; hipRTC defines __HIPCC_RTC__",
}
_CUDA_MACRO_RX = re.compile(r"^__CUDA\w*__$|^__CUDACC\w*__$")

_INCLUDE_DIRECTIVE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]*)([>"])', re.M)
_IDENT = re.compile(rb"(?<![A-Za-z0-9_$])[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"^\s*(\d+)[uUlL]*\s*$")
LAUNCH_BOUNDS_MARK = b"porter:"  # present in an already converted second argument: never convert twice

# A struct/class/enum defines its name only with a body: `struct cudaDeviceProp p;` (cuda-samples' MC_EstimatePi
# test.cpp) names CUDA's struct, it does not define one.
_DEFINITIONS = """
(_ declarator: (identifier) @d)
(_ declarator: (field_identifier) @d)
(_ declarator: (type_identifier) @d)
(preproc_def name: (identifier) @d)
(preproc_function_def name: (identifier) @d)
(struct_specifier name: (type_identifier) @d body: (_))
(class_specifier name: (type_identifier) @d body: (_))
(enum_specifier name: (type_identifier) @d body: (_))
(enumerator name: (identifier) @d)
(alias_declaration name: (type_identifier) @d)
"""


@dataclass(frozen=True)
class TRule:
    id: str
    title: str
    severity: Severity
    confidence: Confidence
    unconverted: bool  # True: a CUDA name left in the output; False: a warning about converted or engine output


RULES = {r.id: r for r in (
    TRule("TRN001", "CUDA API with no HIP equivalent left unconverted", Severity.HIGH, Confidence.HIGH, True),
    TRule("TRN002", "CUDA API removed from CUDA, no HIP equivalent", Severity.HIGH, Confidence.HIGH, True),
    TRule("TRN003", "unknown CUDA-prefixed name left unconverted", Severity.MEDIUM, Confidence.LOW, True),
    TRule("TRN004", "CUDA header with no HIP counterpart", Severity.HIGH, Confidence.HIGH, True),
    TRule("TRN005", "deprecated or removed CUDA API converted", Severity.LOW, Confidence.HIGH, False),
    TRule("TRN006", "device function kept under its CUDA name: check HIP has it", Severity.LOW, Confidence.LOW, False),
    TRule("TRN007", "__launch_bounds__ converted or needing a look", Severity.INFO, Confidence.HIGH, False),
    TRule("TRN008", "HIP name newer than the HIP in use", Severity.HIGH, Confidence.HIGH, False),
    TRule("TRN009", "experimental HIP API", Severity.MEDIUM, Confidence.HIGH, False),
    TRule("TRN010", "hipify warning", Severity.MEDIUM, Confidence.MEDIUM, False),
    TRule("TRN011", "engine failed on this file", Severity.HIGH, Confidence.HIGH, False),
    TRule("TRN012", "CUDA compiler or header macro HIP never defines", Severity.MEDIUM, Confidence.HIGH, True),
    TRule("TRN013", "CUDA name with a HIP equivalent left by the engine", Severity.MEDIUM, Confidence.HIGH, True),
    TRule("TRN014", "project's own definition named like a CUDA API kept", Severity.INFO, Confidence.MEDIUM, False),
    TRule("TRN015", "PyTorch C++ CUDA API kept under its CUDA name", Severity.INFO, Confidence.HIGH, False),
    TRule("TRN016", "rewritten so it holds under HIP (guard, version test, header, name the engine left)",
          Severity.INFO, Confidence.HIGH, False),
    TRule("TRN017", "CUDA name HIP lacks replaced by a porter_hip_compat.h shim", Severity.LOW, Confidence.HIGH, False),
    TRule("TRN018", "build file migrated to HIP, or advice for it", Severity.INFO, Confidence.HIGH, False),
    TRule("TRN019", "CUDA struct member the HIP struct lacks", Severity.MEDIUM, Confidence.HIGH, True),
    TRule("TRN020", "renamed type whose HIP definition differs", Severity.MEDIUM, Confidence.MEDIUM, False),
)}

# PyTorch's ROCm build keeps these names (its own hipify maps them when it builds a CUDAExtension), so they are
# left as they are, but said: a reader should not think they were missed.
_TORCH_CUDA = re.compile(rb"\b(?:at|c10)::cuda::\w+|\bC10_CUDA_\w+")


def make_finding(rule_id: str, path: str, line: int, column: int, name: str, message: str, snippet: str = "",
                 replacement: str | None = None, data: dict | None = None, function: str | None = None,
                 severity: Severity | None = None) -> Finding:
    r = RULES[rule_id]
    values = {"name": name, **(data or {})}
    return Finding(
        path=path, line=line, column=column, rule=rule_id, end_line=line, end_column=column + len(name),
        category="translate", severity=severity if severity is not None else r.severity, confidence=r.confidence,
        message=message, snippet=snippet[:200], function=function, replacement=replacement,
        data=tuple(sorted((k, v) for k, v in values.items() if v not in ("", None))),
    )


def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def definitions(sf: SourceFile) -> set[str]:
    """Names a file defines itself (functions, variables, macros, types, enumerators)."""
    if sf.root is None:
        return set()
    return {n.text.decode("utf-8", "replace") for n in captures("cuda", _DEFINITIONS, sf.root).get("d", [])}


def _free_definitions(files) -> set[str]:
    """Names defined outside any class body somewhere in the files (functions, variables, macros, types)."""
    out: set[str] = set()
    for sf in files:
        if sf.root is None:
            continue
        for n in captures("cuda", _DEFINITIONS, sf.root).get("d", []):
            if n.type != "field_identifier":
                out.add(n.text.decode("utf-8", "replace"))
    return out


def member_definitions(sf: SourceFile) -> tuple[set[str], set[int]]:
    """Names declared as class members (and the offsets of those declarations): a member named like a CUDA API is
    reached only through `.`/`->`, so it neither shadows the API elsewhere nor is a use of it where declared."""
    if sf.root is None:
        return set(), set()
    nodes = captures("cuda", "(_ declarator: (field_identifier) @d)", sf.root).get("d", [])
    return {n.text.decode("utf-8", "replace") for n in nodes}, {n.start_byte for n in nodes}


@dataclass
class _Edit:
    start: int
    end: int
    text: bytes


class _FileWork:
    """Collects one file's edits, counts and findings."""

    def __init__(self, sf: SourceFile):
        self.sf = sf
        self.edits: list[_Edit] = []
        self.kinds: Counter[str] = Counter()
        self.names: Counter[tuple[str, str]] = Counter()
        self.unconverted: list[Finding] = []
        self.warnings: list[Finding] = []

    def add(self, rule_id: str, offset: int, name: str, message: str, **kw) -> None:
        line, col = self.sf.position(offset)
        func = self.sf.enclosing(offset) if self.sf.functions else None
        f = make_finding(rule_id, self.sf.path, line, col, name, message, self.sf.line_text(line).strip(),
                         function=func.name if func else None, **kw)
        (self.unconverted if RULES[rule_id].unconverted else self.warnings).append(f)


def _token_kind(sf: SourceFile, start: int, end: int, in_code: bool) -> str:
    if not in_code:
        return "text"
    node = sf.root.descendant_for_byte_range(start, end) if sf.root is not None else None
    if node is None:
        return "constant"
    if node.type == "preproc_arg":
        return "macro"
    if node.type == "type_identifier":
        return "type"
    parent = node.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return "function"
    if parent is not None and parent.type in ("template_function", "qualified_identifier") and parent.parent is not None \
            and parent.parent.type == "call_expression":
        return "function"
    return "constant"


class Classifier:
    """What to do with one identifier: rename it, report it, or leave it; cached per name across files."""

    def __init__(self, kb: KnowledgeBase, defined: set[str], hip_version: str | None):
        self.kb = kb
        self.defined = defined
        self.hip_version = version_tuple(hip_version) if hip_version else None
        self._cache: dict[str, tuple] = {}

    def __call__(self, name: str) -> tuple:
        """(action, entry, rule, message): action rename | report | keep."""
        hit = self._cache.get(name)
        if hit is None:
            hit = self._cache[name] = self._classify(name)
        return hit

    def _classify(self, name: str) -> tuple:
        e = self.kb.get(name) if name in self.kb else None
        if e is None:
            if name in CUDA_MACROS or _CUDA_MACRO_RX.match(name):
                if name in self.defined:
                    return ("keep", None, None, "")
                return ("report", None, "TRN012", CUDA_MACROS.get(name, f"{name} is a CUDA compiler macro; hip-clang does not define it"))
            if CUDA_PREFIX.match(name) and name not in self.defined:
                return ("report", None, "TRN003",
                        f"{name} looks like CUDA API but is in no HIPIFY table and the translated files do not define it")
            return ("keep", None, None, "")
        if name in self.defined:
            # The project defines this name itself (a member, a wrapper in its namespace, a field): renaming it
            # would break the project's code, and it is not a use of the CUDA API.
            return ("warn", None, "TRN014", f"{name} is defined by the project itself and is kept; it only shares "
                                             f"its name with the CUDA API")
        if e.status == "same_name":
            return ("warn", e, "TRN006",
                    f"{name} is kept: HIPIFY lists no HIP name for this {e.library} function; check that HIP provides it")
        if e.hip is None:
            if e.status == "removed":
                return ("report", e, "TRN002", f"{name} was removed in CUDA {e.cuda_removed or '?'} and has no HIP equivalent")
            if e.status == "deprecated":
                return ("report", e, "TRN001", f"{name} (deprecated in CUDA {e.cuda_deprecated or '?'}) has no HIP equivalent")
            return ("report", e, "TRN001", f"{name} has no HIP equivalent ({e.library}: {e.section})")
        if e.identity:
            if e.status in ("removed", "deprecated"):
                when = e.cuda_removed if e.status == "removed" else e.cuda_deprecated
                return ("warn", e, "TRN005", f"{name} is {e.status} in CUDA {when or '?'}; HIP keeps the same name")
            return ("keep", e, None, "")
        return ("rename", e, None, "")

    def rename_notes(self, e: ApiEntry) -> list[tuple[str, str]]:
        """Warnings attached to a rename: (rule, message)."""
        notes = []
        if e.status == "deprecated":
            notes.append(("TRN005", f"{e.cuda} is deprecated in CUDA {e.cuda_deprecated or '?'}; converted to {e.hip}"))
        elif e.status == "removed":
            notes.append(("TRN005", f"{e.cuda} was removed in CUDA {e.cuda_removed or '?'}; converted to {e.hip}"))
        if e.hip_deprecated:
            notes.append(("TRN005", f"{e.hip} is deprecated since HIP {e.hip_deprecated}"))
        if e.experimental:
            notes.append(("TRN009", f"{e.hip} is experimental in HIP {e.hip_added or ''}".rstrip()))
        if self.hip_version and e.hip_added and version_tuple(e.hip_added) > self.hip_version:
            have = ".".join(map(str, self.hip_version))
            notes.append(("TRN008", f"{e.hip} was added in HIP {e.hip_added}; the HIP in use is {have}, so this will not compile"))
        return notes


def _includes(sf: SourceFile) -> Iterable[re.Match]:
    for m in _INCLUDE_DIRECTIVE.finditer(sf.data):
        hash_at = sf.data.index(b"#", m.start())
        if sf.code[hash_at:hash_at + 1] == b"#":  # not inside a comment
            yield m


def project_header(root: Path | None, rel: str, target: str, quoted: bool, build=None) -> bool:
    """A quoted include that names a file of the project is the project's, whatever it is called: next to the
    including file, at the root, or anywhere in the tree under that relative path (reached through -I). With build
    information (`porter.translate.buildinfo.BuildInfo`) an angle include found on the project's -I path is too."""
    if root is None:
        return False
    if build is not None and build.resolve(rel, target, quoted) is not None:
        return True
    if not quoted:
        return False
    base = (root / rel).parent
    if (base / target).is_file() or (root / target).is_file():
        return True
    return target in _tree_suffixes(root)


@functools.lru_cache(maxsize=8)
def _tree_suffixes(root: Path) -> frozenset[str]:
    """Every trailing part of every header path in the tree (`include/a/b.h` gives `b.h`, `a/b.h`, ...)."""
    from porter.source.discover import tree_entries

    # Discovery's listing (git's, or a bounded walk that never enters a symlinked directory), not a recursive glob
    # of the tree: a planted chain of nested directories cost a Python frame per level.
    out = set()
    for _shown, rel in tree_entries(root)[0]:
        if PurePosixPath(rel).suffix.lower() in (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc"):
            parts = PurePosixPath(rel).parts
            for i in range(len(parts)):
                out.add("/".join(parts[i:]))
    return frozenset(out)


def call_args(code: bytes, after_name: int, spaces: bytes = b" \t\r\n") -> tuple[int, list[tuple[int, int]]] | None:
    """`split_args` of the call whose name ends at `after_name`: past `spaces`, a '(' must follow; None when not."""
    i = after_name
    while i < len(code) and code[i:i + 1] in spaces:
        i += 1
    return split_args(code, i) if code[i:i + 1] == b"(" else None


def trimmed(data: bytes, span: tuple[int, int]) -> tuple[int, int]:
    """An argument's span without the spaces around it (where a cast's parentheses go)."""
    a0, a1 = span
    arg = data[a0:a1]
    return a0 + len(arg) - len(arg.lstrip()), a1 - (len(arg) - len(arg.rstrip()))


def split_args(code: bytes, open_at: int) -> tuple[int, list[tuple[int, int]]] | None:
    """The argument spans of a parenthesised list starting at `open_at` ('('), and the index of its ')'."""
    depth, start, args = 0, open_at + 1, []
    for i in range(open_at, len(code)):
        ch = code[i:i + 1]
        if ch in b"([{":
            depth += 1
        elif ch in b")]}":
            depth -= 1
            if depth == 0:
                args.append((start, i))
                return i, args
        elif ch == b"," and depth == 1:
            args.append((start, i))
            start = i + 1
    return None


def _launch_bounds(w: _FileWork, offsets: list[int]) -> None:
    sf = w.sf
    code = sf.code
    for off in offsets:
        # a backslash too: __launch_bounds__ is often written inside a multi-line macro
        found = call_args(code, off + len("__launch_bounds__"), b" \t\\\r\n")
        if found is None:
            continue
        close, args = found
        if LAUNCH_BOUNDS_MARK in sf.data[args[0][0] - 1:close]:
            continue  # converted by an earlier run
        if len(args) < 2:
            continue  # one argument means the same in HIP
        if len(args) > 2:
            w.add("TRN007", off, "__launch_bounds__",
                  "__launch_bounds__ third argument (max blocks per cluster) has no HIP meaning: remove it",
                  severity=Severity.MEDIUM)
        (a0, a1), (b0, b1) = args[0], args[1]
        threads = sf.data[a0:a1].strip()
        blocks = sf.data[b0:b1].strip()
        lead = len(sf.data[b0:b1]) - len(sf.data[b0:b1].lstrip())
        start = b0 + lead
        end = start + len(blocks)
        t_text, b_text = threads.decode("latin-1"), blocks.decode("latin-1")
        mt, mb = _INT.match(t_text), _INT.match(b_text)
        if mt and mb:
            waves = max(1, int(mb.group(1)) * int(mt.group(1)) // 32)
            new = f"{waves} /* porter: CUDA min blocks per multiprocessor {b_text} -> min waves per EU ({b_text}*{t_text}/32) */"
        else:
            waves = None
            new = f"(({b_text}) * ({t_text})) / 32 /* porter: CUDA min blocks per multiprocessor -> min waves per EU */"
        w.edits.append(_Edit(start, end, new.encode("latin-1")))
        w.kinds["launch_bounds"] += 1
        w.names[("__launch_bounds__ min blocks per multiprocessor", "min waves per EU")] += 1
        shown = str(waves) if waves is not None else "(min blocks x threads)/32"
        w.add("TRN007", off, "__launch_bounds__",
              f"__launch_bounds__({t_text}, {b_text}): second argument converted to {shown} minimum waves per EU "
              f"(HIP's documented conversion); retune it for the AMD target")


# CUDA declares these with a template overload taking the kernel itself; HIP only with `const void*`, so the
# kernel argument needs the cast hipify also inserts (else: "no matching function for call to hipFuncSetAttribute").
FUNCTION_POINTER_ARGS = {
    "cudaFuncSetAttribute": 0,
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "cudaFuncGetAttributes": 1,
    "cudaLaunchKernel": 0,
}
_ALREADY_CAST = re.compile(rb"^\s*(?:\(\s*(?:const\s+)?void\s*\*\s*\)|reinterpret_cast\s*<\s*(?:const\s+)?void\s*\*\s*>|HIP_SYMBOL)")


def _function_pointer_casts(w: _FileWork, toks: dict[bytes, list[int]]) -> None:
    """Wrap the kernel argument of the APIs above in reinterpret_cast<const void*>(...)."""
    code = w.sf.code
    for api, index in FUNCTION_POINTER_ARGS.items():
        for off in toks.get(api.encode(), ()):
            found = call_args(code, off + len(api))
            if found is None or len(found[1]) <= index:
                continue
            span = found[1][index]
            start, end = trimmed(w.sf.data, span)
            if start >= end or _ALREADY_CAST.match(w.sf.data[span[0]:span[1]]):
                continue
            w.edits.append(_Edit(start, start, b"reinterpret_cast<const void*>("))
            w.edits.append(_Edit(end, end, b")"))
            w.kinds["cast"] += 1
            w.names[(f"{api} kernel argument", "reinterpret_cast<const void*>")] += 1


def translate_source(sf: SourceFile, classify: Classifier, kb: KnowledgeBase, root: Path | None = None,
                     translate_strings: bool = False, build=None) -> tuple[bytes, _FileWork, int]:
    """(output bytes, collected work, lines inserted at the top) for one parsed file."""
    w = _FileWork(sf)
    data = sf.data
    include_spans: list[tuple[int, int]] = []
    has_hip_runtime = hip_first = False
    for m in _includes(sf):
        include_spans.append((m.start(), m.end()))
        target = m.group(2).decode("utf-8", "replace").strip()
        quoted = m.group(1) == b'"'
        if project_header(root, sf.path, target, quoted, build):
            continue
        h = kb.header(target)
        if h is None:
            if target.startswith("hip/hip_runtime"):
                has_hip_runtime = True
            continue
        if h.status == "rename" and h.hip:
            w.edits.append(_Edit(m.start(2), m.end(2), h.hip.encode()))
            w.kinds["header"] += 1
            w.names[(h.cuda, h.hip)] += 1
            if h.hip in ("hip/hip_runtime.h",):
                has_hip_runtime = True
            elif not has_hip_runtime:
                # nvcc includes cuda_runtime.h before anything; HIP 5.2's cooperative-groups header needs
                # hip_runtime.h first (hipBlockDim_z), so a HIP header ahead of it gets hip_runtime.h at the top.
                hip_first = True
        elif h.status == "drop":
            directive = data[m.start():m.end()].strip().decode("utf-8", "replace")
            w.edits.append(_Edit(m.start(), m.end(), f"/* porter: {directive} dropped, HIP does not need it */".encode()))
            w.kinds["header"] += 1
            w.names[(h.cuda, "(dropped)")] += 1
        else:
            instead = f"; port by hand to {h.hip}" if h.hip else ""
            note = f": {h.note}" if h.note else ""
            w.add("TRN004", m.start(2), target, f"#include <{target}> has no HIP counterpart{instead}{note}",
                  data={"library": h.library})

    toks = sf.tokens()
    if "__launch_bounds__".encode() in toks:
        _launch_bounds(w, toks[b"__launch_bounds__"])
    _function_pointer_casts(w, toks)
    for m in _TORCH_CUDA.finditer(sf.code):
        name = m.group().decode("ascii", "replace")
        w.add("TRN015", m.start(), name, f"{name} is PyTorch's C++ API: PyTorch's ROCm build provides it under this "
                                         f"name when it builds the extension (torch.utils.cpp_extension hipifies it)")
    occurrences: list[tuple[bytes, int, bool]] = [(n, o, True) for n, offs in toks.items() for o in offs]
    if translate_strings:
        for s, e in sorted(sf.comment_spans + sf.string_spans):
            if any(a <= s < b for a, b in include_spans):
                continue
            for m in _IDENT.finditer(data, s, e):
                if m.end() <= e:
                    occurrences.append((m.group(), m.start(), False))
    for raw, off, in_code in occurrences:
        name = raw.decode("ascii", "replace")
        action, e, rule, message = classify(name)
        if action == "keep" or (in_code and (_is_member_access(sf.code, off)
                                            or off in sf.cache.get("member_definitions", ()))):
            continue  # obj.cudaMalloc / p->cudaMalloc / `int cudaMalloc;` in a struct: a member of a project type
        if action == "rename":
            end = off + len(raw)
            w.edits.append(_Edit(off, end, e.hip.encode()))
            w.kinds[_token_kind(sf, off, end, in_code)] += 1
            w.names[(e.cuda, e.hip)] += 1
            if in_code:
                for rid, msg in classify.rename_notes(e):
                    w.add(rid, off, name, msg, replacement=e.hip, data={"hip_added": e.hip_added})
        elif in_code:
            w.add(rule, off, name, message, data={"library": e.library if e else None})

    out = _apply(data, w.edits)
    shift = 0
    if PurePosixPath(sf.path).suffix.lower() in IMPLICIT_RUNTIME_EXTS and (hip_first or not has_hip_runtime) \
            and data.strip():
        bom = b"\xef\xbb\xbf" if out.startswith(b"\xef\xbb\xbf") else b""
        out = bom + HIP_RUNTIME_INCLUDE + out[len(bom):]
        shift = 1
        w.kinds["header"] += 1
        w.names[("(nvcc's implicit cuda_runtime.h)", "hip/hip_runtime.h")] += 1
    return out, w, shift


def _apply(data: bytes, edits: list[_Edit]) -> bytes:
    if not edits:
        return data
    # Stable sort: an insertion (start == end) placed before a replacement at the same offset stays before it.
    edits.sort(key=lambda e: (e.start, e.end))
    parts, pos = [], 0
    for e in edits:
        if e.start < pos:
            continue  # overlapping edit (never expected): the first one wins, bytes are never duplicated
        parts.append(data[pos:e.start])
        parts.append(e.text)
        pos = e.end
    parts.append(data[pos:])
    return b"".join(parts)


def leftovers(sf: SourceFile, classify: Classifier) -> _FileWork:
    """CUDA names still present in (engine) output, each reported with its reason; nothing is changed."""
    w = _FileWork(sf)
    for m in _includes(sf):
        h = classify.kb.header(m.group(2).decode("utf-8", "replace").strip())
        if h is not None and h.status in ("unsupported", "none"):
            target = m.group(2).decode("utf-8", "replace").strip()
            w.add("TRN004", m.start(2), target, f"#include <{target}> has no HIP counterpart" + (f": {h.note}" if h.note else ""))
        elif h is not None and h.status in ("rename", "drop") and h.hip != h.cuda:
            target = m.group(2).decode("utf-8", "replace").strip()
            w.add("TRN013", m.start(2), target, f"#include <{target}> left; HIP header: {h.hip or '(none needed)'}")
    for raw, offs in sf.tokens().items():
        name = raw.decode("ascii", "replace")
        action, e, rule, message = classify(name)
        if action == "keep" or action == "warn":
            continue
        for off in offs:
            if action == "rename":
                w.add("TRN013", off, name, f"{name} was left by the engine; HIP name: {e.hip}", replacement=e.hip)
            else:
                w.add(rule, off, name, message)
    return w


def include_graph(parsed: dict[str, SourceFile], root: Path | None, build=None) -> dict[str, set[str]]:
    """File -> the files of the set it #includes directly (resolved next to it, on the build's -I path, at the
    root, or by a unique path suffix in the set)."""
    by_suffix: dict[str, list[str]] = {}
    for rel in parsed:
        parts = PurePosixPath(rel).parts
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(rel)
    graph: dict[str, set[str]] = {}
    for rel, sf in parsed.items():
        edges = graph.setdefault(rel, set())
        for m in _includes(sf):
            target = m.group(2).decode("utf-8", "replace").strip()
            quoted = m.group(1) == b'"'
            hit = None
            if quoted:
                near = (PurePosixPath(rel).parent / target).as_posix()
                hit = near if near in parsed else None
            if hit is None and build is not None and root is not None:
                found = build.resolve(rel, target, quoted)
                hit = found if found in parsed else None
            if hit is None:
                cands = by_suffix.get(target.lstrip("./"), [])
                hit = cands[0] if len(cands) == 1 else None
            if hit is not None and hit != rel:
                edges.add(hit)
    return graph


def definition_scopes(parsed: dict[str, SourceFile], root: Path | None, build=None) -> dict[str, frozenset[str]]:
    """File -> the files whose definitions it can see: those it includes (transitively), and those included by
    any file that includes it (a header sees what its includer included before it)."""
    graph = include_graph(parsed, root, build)

    @functools.lru_cache(maxsize=None)
    def down(rel: str) -> frozenset[str]:
        seen, todo = {rel}, [rel]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return frozenset(seen)

    includers: dict[str, set[str]] = {rel: set() for rel in parsed}
    for rel in parsed:
        for f in down(rel):
            includers[f].add(rel)
    return {rel: frozenset().union(*(down(i) for i in includers[rel])) for rel in parsed}


def sorted_findings(items: list[Finding]) -> tuple[Finding, ...]:
    """Findings in report order with their fingerprints, as every engine hands them back."""
    return tuple(_with_fingerprints(sorted(items)))


class BuiltinEngine:
    """porter's own engine (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase | None = None):
        from porter.translate.model import EngineInfo

        self.kb = kb or load_kb()
        self.info = EngineInfo("builtin", None, None, "porter's knowledge base (HIPIFY tables)")

    def translate_all(self, root: Path, sources: dict[str, bytes], options, progress: Callable | None = None,
                      build=None) -> list:
        from porter.translate.model import FileTranslation

        parsed = {rel: parse(rel, "cuda", data) for rel, data in sources.items()}
        own: dict[str, tuple[set[str], set[str], set[str]]] = {}
        for rel, sf in parsed.items():
            names, offsets = member_definitions(sf)
            own[rel] = (definitions(sf), names, _free_definitions([sf]))
            sf.cache["member_definitions"] = offsets
        scopes = definition_scopes(parsed, root, build)
        classifiers: dict[frozenset[str], Classifier] = {}

        def classifier_for(rel: str) -> Classifier:
            # A name the project defines is kept only in the files that can see that definition: the file, what it
            # includes, and what its includers include (cuda-samples' matrixMulDynlinkJIT typedefs CUdevice for
            # itself; the other samples' CUdevice is CUDA's and is renamed).
            scope = scopes[rel]
            hit = classifiers.get(scope)
            if hit is None:
                defined, members, free = set(), set(), set()
                for f in scope:
                    d, m, fr = own[f]
                    defined |= d
                    members |= m
                    free |= fr
                # A member shares only its name with the API: it does not keep the free CUDA call from renaming.
                hit = classifiers[scope] = Classifier(self.kb, defined - (members - free), options.hip_version)
            return hit

        out = []
        total = len(parsed)
        for i, (rel, sf) in enumerate(parsed.items(), 1):
            data, w, shift = translate_source(sf, classifier_for(rel), self.kb, root, options.translate_strings, build)
            out.append(FileTranslation(
                path=rel, status="translated" if data != sf.data else "unchanged", original=sf.data, output=data,
                lines=sf.lines, converted=tuple(sorted(w.kinds.items())),
                converted_names=tuple(sorted((c, h, n) for (c, h), n in w.names.items())),
                unconverted=sorted_findings(w.unconverted), warnings=sorted_findings(w.warnings), line_shift=shift,
            ))
            if progress:
                progress(i, total)
        return out
