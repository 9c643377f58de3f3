"""Port one C/C++/CUDA file for both vendors: the compat header where it includes CUDA headers, and the portable fixes.

Every edit answers an open finding the scan reported at that place (the scan's positions and kernel facts are the
only detection; nothing here looks for CUDA code again):
- API005 `#include <cuda_runtime.h>` (a CUDA header with a HIP counterpart): guarded so only the CUDA build sees it,
  with the compat header included before the first one (a file that uses renamed names without including a CUDA
  header, as nvcc allows in `.cu` files, gets the compat include at its first `#include`);
- DEV002 a 32-bit all-lanes mask: `((lane_mask_t)~0ull)`, at the call or in the file's own `#define FULL_MASK`;
- DEV003 a ballot stored in 32 bits: the variable becomes `lane_mask_t` (its `__popc`/`__ffs` the 64-bit forms);
- DEV011 lane arithmetic with 32, where a kernel's lane-assumption facts list the line: `warpSize`;
- DEV001 simple inline PTX (`%laneid`, `ld.global.nc`, `bfe`, `elect.sync`): the plain HIP statement under the
  platform guard, the PTX kept for the CUDA build.
The fix text itself is porter.translate.fixups' (shared with translate).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from porter.model import Finding, Status
from porter.port.model import ROCM_TEST, Change
from porter.translate import fixups

# A shuffle, vote or warp sync the compat header maps onto HIP 5.2's forms (HIP 6.2 added the `_sync` ones).
SYNC_NAMES = frozenset({"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
                        "__any_sync", "__all_sync", "__activemask", "__syncwarp"})
PORT_MARK = "porter port"


@dataclass
class FileWork:
    """The edits planned for one file: (start, end, bytes) on its original content."""

    path: str
    data: bytes
    edits: list[tuple[int, int, bytes]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    answered: set[tuple[str, str, int, int]] = field(default_factory=set)  # (rule, path, line, column)
    needs_compat: bool = False
    cg_reduce: bool = False  # the compat header must define cooperative_groups::reduce (HIP before 7.13)
    macros: dict[str, str] = field(default_factory=dict)  # CUDA macro or name -> its ROCm definition (compat header)
    _starts: list[int] | None = None

    @property
    def line_starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            for i, c in enumerate(self.data):
                if c == 10:
                    starts.append(i + 1)
            self._starts = starts
        return self._starts

    def offset(self, line: int, column: int) -> int:
        """The byte offset of a finding's 1-based line and character column."""
        starts = self.line_starts
        if line - 1 >= len(starts):
            return len(self.data)
        start = starts[line - 1]
        end = self.data.find(b"\n", start)
        text = self.data[start:end if end >= 0 else len(self.data)].decode("utf-8", "replace")
        return start + len(text[:column - 1].encode("utf-8", "replace"))

    def line_bounds(self, line: int) -> tuple[int, int]:
        """(start, end) of a line's text, without its line end (CR LF or LF)."""
        start = self.line_starts[line - 1]
        end = self.data.find(b"\n", start)
        end = end if end >= 0 else len(self.data)
        return start, end - 1 if end > start and self.data[end - 1:end] == b"\r" else end

    def answer(self, f: Finding, kind: str, note: str, line: int | None = None) -> None:
        self.answered.add(key(f))
        self.changes.append(Change(self.path, line or f.line, kind, f"{f.rule} {f.path}:{f.line}", note))

    def result(self) -> bytes:
        """The file with every edit applied; an edit overlapping an earlier one is dropped (its finding stays open).
        In a file with CRLF line ends, the lines the port adds end so too."""
        crlf = self.data.count(b"\r\n") == self.data.count(b"\n") > 0
        out, pos = [], 0
        for s, e, text in sorted(self.edits, key=lambda x: (x[0], x[1])):
            if s < pos:
                continue
            if crlf:
                text = text.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            out += [self.data[pos:s], text]
            pos = e
        return b"".join(out) + self.data[pos:]


def hip_name(f: Finding) -> str | None:
    """The HIP name a rename finding (API001/API003) carries, or None where the knowledge base has none: a CUDA name
    deprecated with no HIP counterpart carries the placeholder "none" (CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_
    SUPPORTED), which mapped would write `#define ... none` into the compat header."""
    hip = str(dict(f.data).get("hip") or "")
    return hip if hip.isidentifier() and hip != "none" else None


def key(f: Finding) -> tuple[str, str, int, int]:
    return f.rule, f.path, f.line, f.column


def lane_lines(kernels) -> set[tuple[str, int]]:
    """(path, line) of every lane assumption a kernel's facts (its own and its helpers') record: where 32 in lane
    arithmetic is the hardware warp and warpSize may stand in."""
    out: set[tuple[str, int]] = set()
    for k in kernels:
        if k.facts is None:
            continue
        out |= {(k.path, a.line) for a in k.facts.lane_assumptions}
        for h in k.facts.helpers:
            out |= {(h.path, a.line) for a in h.facts.lane_assumptions}
    return out


def port_file(work: FileWork, findings: list[Finding], lanes: set[tuple[str, int]], header: str,
              mask_type: str, macros: dict[str, str] | None = None) -> None:
    """Plan the fixes of one file's open findings into `work`. `macros`: the CUDA version and header-guard macros
    the compat header may define for the ROCm build, with their values (rules/kb/fixups.yaml)."""
    for f in sorted(findings, key=lambda f: (f.line, f.column)):
        if f.status is not Status.OPEN:
            continue
        if f.rule == "DEV010" and macros and _matched(work, f) in macros:
            name = _matched(work, f)
            work.macros[name] = macros[name]
            work.needs_compat = True
            work.answer(f, "macro", f"{name} defined as {macros[name]} for the ROCm build in {header}")
        elif f.rule == "DEV002":
            _mask(work, f, mask_type)
        elif f.rule == "DEV003":
            _ballot(work, f, mask_type)
        elif f.rule == "DEV011" and (f.path, f.line) in lanes:
            _warp_width(work, f)
        elif f.rule == "DEV001":
            _ptx(work, f)
        elif f.rule == "API009":
            _vector_operator(work, f)
        elif f.rule == "API010":
            _coordinate_cast(work, f)
        elif f.rule == "DEV021":
            _register(work, f)
        elif f.rule in ("API001", "API003") and hip_name(f):
            work.needs_compat = True
            _call_fix(work, f, str(hip_name(f)))
            _struct_tag(work, f)
            _integer_store(work, f)
        elif f.rule == "API004" and _matched(work, f) in SYNC_NAMES:
            work.needs_compat = True
    _collapsing_overloads(work, [f for f in findings if f.rule in ("API001", "API003") and f.status is Status.OPEN
                                 and hip_name(f)])
    includes = [f for f in findings if f.rule == "API005" and f.status is Status.OPEN and dict(f.data).get("hip")]
    unsupported = [f for f in findings if f.rule == "API006" and f.status is Status.OPEN]
    _cg_reduce_include(work, unsupported)
    _unused_cuda_only_include(work, unsupported)
    _includes(work, includes, header)
    if not work.needs_compat and work.path.endswith(".cu") and any(f.rule == "KRN001" for f in findings):
        _implicit_runtime(work, header)


# nvcc includes cuda_runtime.h in every .cu file; HIP 5's hipcc includes nothing, so a .cu file that relies on the
# implicit include (threadIdx, __global__ helpers) needs HIP's runtime on the ROCm build. Not for NVRTC/hipRTC
# sources (neither defines __HIP__ / both define their own runtime), nor where HIP's headers are in already.
IMPLICIT_RUNTIME = (f"#if defined(__HIP__) && !defined(__HIP_PLATFORM_AMD__) && !defined(__HIPCC_RTC__)  "
                    f"/* {PORT_MARK}: nvcc's implicit runtime include */\n#include <hip/hip_runtime.h>\n#endif\n")


def _implicit_runtime(work: FileWork, header: str) -> None:
    if IMPLICIT_RUNTIME.split("\n")[0].encode() in work.data \
            or compat_include_line(work.path, header).split(b"  /*")[0] in work.data:
        return  # done before, or the compat header (which includes HIP's runtime) is in
    m = _INCLUDE_LINE.search(work.data)
    at = m.start() if m else _after_leading_comments(work.data)
    work.edits.append((at, at, IMPLICIT_RUNTIME.encode()))
    work.changes.append(Change(work.path, work.data.count(b"\n", 0, at) + 1, "runtime-include", None,
                               "HIP's runtime for hipcc, which does not include it implicitly as nvcc does"))


def _matched(work: FileWork, f: Finding) -> str:
    s = work.offset(f.line, f.column)
    m = re.match(rb"[A-Za-z_]\w*", work.data[s:])
    return m.group(0).decode() if m else ""


def _mask(work: FileWork, f: Finding, mask_type: str) -> None:
    at = work.offset(f.line, f.column)
    edit = fixups.mask_argument_fix(work.data, at, mask_type)
    if edit is not None:
        work.edits.append(edit)
        work.needs_compat = True
        work.answer(f, "mask", f"32-bit all-lanes mask -> (({mask_type})~0ull)")
        return
    name = fixups.mask_argument_name(work.data, at)
    if name is None:
        return
    edit = fixups.mask_define_fix(work.data, name, mask_type)
    if edit is None:
        return
    if edit not in work.edits:
        work.edits.append(edit)
    work.needs_compat = True
    line = work.data.count(b"\n", 0, edit[0]) + 1
    work.answer(f, "mask", f"#define {name.decode()} widened to (({mask_type})~0ull)", line)


def _ballot(work: FileWork, f: Finding, mask_type: str) -> None:
    at = work.offset(f.line, f.column)
    end = work.offset(f.end_line, f.end_column)
    hit = work.data[at:end]
    if not re.fullmatch(rb"(?:unsigned(?:\s+int)?|uint32_t|int|unsigned\s+long|uint|unsigned\s+int)", hit.strip()):
        return
    work.edits.extend(fixups.ballot_type_fix(work.data, at, end, mask_type))
    work.needs_compat = True
    work.answer(f, "ballot", f"ballot result stored as {mask_type} (64 bits on AMD)")


def _warp_width(work: FileWork, f: Finding) -> None:
    start, line_end = work.line_bounds(f.line)
    at = work.offset(f.line, f.column) - start
    end = (work.offset(f.end_line, f.end_column) - start) if f.end_line == f.line else line_end - start
    edits = fixups.warp_width_fix(work.data[start:line_end], at, end)
    if not edits:
        return
    work.edits.extend((start + s, start + e, t) for s, e, t in edits)
    work.answer(f, "warp-width", "32 in lane arithmetic -> warpSize (the kernel's facts list this line)")


def _ptx(work: FileWork, f: Finding) -> None:
    at = work.offset(f.line, f.column)
    span = fixups.asm_statement(work.data, at)
    if span is None:
        _ptx_in_line(work, f, at)
        return
    s, e = span
    plain = fixups.plain_ptx(work.data[s:e])
    if plain is None:
        return
    family, code = plain
    line = work.data[s:e]
    indent = line[:len(line) - len(line.lstrip(b" \t"))].decode()
    text = (f"#if {ROCM_TEST}\n{indent}{code}  /* {PORT_MARK}: plain HIP for PTX {family} */\n#else\n"
            ).encode() + work.data[s:e] + b"\n#endif"
    work.edits.append((s, e, text))
    work.answer(f, "ptx", f"PTX {family} -> {code}")


def _ptx_in_line(work: FileWork, f: Finding, at: int) -> None:
    """Simple PTX after other code on its line: the statement moves to lines of its own (a preprocessor guard
    cannot start mid-line), the code after it to the next line, at the line's indentation."""
    span = fixups.asm_statement_in_line(work.data, at)
    if span is None:
        return
    s, e = span
    plain = fixups.plain_ptx(work.data[s:e])
    if plain is None:
        return
    family, code = plain
    line_start, line_end = work.line_bounds(f.line)
    line = work.data[line_start:line_end]
    indent = line[:len(line) - len(line.lstrip(b" \t"))]
    while s > line_start and work.data[s - 1:s] in b" \t":
        s -= 1
    rest_end = e
    while rest_end < line_end and work.data[rest_end:rest_end + 1] in b" \t":
        rest_end += 1
    text = (f"\n#if {ROCM_TEST}\n".encode() + indent + f"{code}  /* {PORT_MARK}: plain HIP for PTX {family} */\n#else\n"
            .encode() + indent + work.data[span[0]:e] + b"\n#endif")
    if rest_end < line_end:
        text += b"\n" + indent  # the code after the statement, on its own line
    work.edits.append((s, rest_end, text))
    work.answer(f, "ptx", f"PTX {family} -> {code}")


def _call_fix(work: FileWork, f: Finding, hip: str) -> None:
    """A call whose HIP function differs in signature (rules/kb/fixups.yaml `calls`, translate's table): the cast
    or the defaulted argument it needs, at the call. Both suit the CUDA function too (cudaHostAlloc takes any T**,
    nvrtcCompileProgram a const char* const*, cudaMalloc3DArray's flags default to 0), so no guard."""
    from porter.translate.engines.builtin import call_args, trimmed

    entry = fixups.load_fixups().calls.get(hip)
    name = _matched(work, f)
    if not entry or not name:
        return
    found = call_args(work.data, work.offset(f.line, f.column) + len(name))
    if found is None:
        return
    close, args = found
    index, cast = entry.get("cast_arg"), str(entry.get("cast", "")).encode()
    if isinstance(index, int) and len(args) > index and cast:
        s, e = trimmed(work.data, args[index])
        if s < e and not work.data[s:e].startswith((b"(void", b"reinterpret_cast", b"const_cast", cast)):
            work.edits += [(s, s, cast + b"("), (e, e, b")")]
            work.changes.append(Change(work.path, f.line, "call", f"{f.rule} {f.path}:{f.line}",
                                       f"{name}: argument {index + 1} wrapped in {cast.decode()}: {entry.get('why', '')}"))
    if "rename" in entry and len(args) == entry.get("args") and entry.get("cuda_rename"):
        at = work.offset(f.line, f.column)  # the CUDA function of that arity, which the compat header maps too
        work.edits.append((at, at + len(name), str(entry["cuda_rename"]).encode()))
        work.macros[str(entry["cuda_rename"])] = str(entry["rename"])
        work.changes.append(Change(work.path, f.line, "call", f"{f.rule} {f.path}:{f.line}",
                                   f"{name} with {len(args)} arguments → {entry['cuda_rename']}: {entry.get('why', '')}"))
    if "append" in entry and len(args) == entry.get("min_args"):
        work.edits.append((close, close, f", {entry['append']}".encode()))
        work.changes.append(Change(work.path, f.line, "call", f"{f.rule} {f.path}:{f.line}",
                                   f"{name}: argument {len(args) + 1} = {entry['append']}: {entry.get('why', '')}"))


_STRUCT_TAG = re.compile(rb"\bstruct[ \t]+$")
# C++ sources only: in C the elaborated `struct cudaGraphicsResource` is the only spelling CUDA's headers allow.
_CXX_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".h")


def _struct_tag(work: FileWork, f: Finding) -> None:
    """`struct cudaGraphicsResource *r` (particles/particleSystem.h:138): the compat header maps the name onto HIP's
    typedef (hipGraphicsResource), which a struct specifier cannot name. Without `struct` the name means the same
    struct in C++ on both vendors."""
    if not work.path.endswith(_CXX_SUFFIXES) or _matched(work, f).endswith("_st"):
        return  # `struct CUctx_st` is a tag on both sides (HIPIFY maps it to HIP's tag ihipCtx_t): C needs the keyword
    at = work.offset(f.line, f.column)
    m = _STRUCT_TAG.search(work.data, work.line_bounds(f.line)[0], at)
    if m is None or m.end() != at:
        return
    work.edits.append((m.start(), at, b""))
    work.changes.append(Change(work.path, f.line, "struct-tag", f"{f.rule} {f.path}:{f.line}",
                               "`struct` dropped before a CUDA type the compat header maps onto a HIP typedef"))


def _integer_store(work: FileWork, f: Finding) -> None:
    """`*(reinterpret_cast<CUdeviceptr *>(&buf[off])) = width;` (cuda-samples' matrixMulDrv packs kernel arguments
    so): CUdeviceptr is an integer, HIP's hipDeviceptr_t a pointer (rules/kb/fixups.yaml type_notes), so an integer
    stored through it needs a cast on ROCm ("incompatible integer to pointer conversion"). `(CUdeviceptr)(value)`
    means the same store on both vendors."""
    note = fixups.load_fixups().type_notes.get(str(hip_name(f))) or {}
    cuda = _matched(work, f)
    if not cuda or note.get("cuda") != cuda:
        return
    at = work.offset(f.line, f.column)
    start, end = work.line_bounds(f.line)
    if not fixups.STORE_BEFORE_TYPE.search(work.data[start:at]):
        return
    m = fixups.STORE_AFTER_TYPE.match(work.data, at + len(cuda), end)
    if m is None or m.group("rhs").startswith(f"({cuda})".encode()):
        return
    work.edits += [(m.start("rhs"), m.start("rhs"), f"({cuda})(".encode()), (m.end("rhs"), m.end("rhs"), b")")]
    work.changes.append(Change(work.path, f.line, "cast", f"{f.rule} {f.path}:{f.line}",
                               f"value stored through a {cuda} cast to {cuda}: an integer there, a pointer in HIP"))


def _register(work: FileWork, f: Finding) -> None:
    """DEV021: the `register` keyword deleted (C++17 removed it; clang rejects it, nvcc ignores it)."""
    at = work.offset(f.line, f.column)
    m = re.match(rb"register[ \t]+", work.data[at:])
    if m is None:
        return
    work.edits.append((at, at + m.end(), b""))
    work.answer(f, "register", "`register` deleted: C++17 removed it and clang rejects it")


def _coordinate_cast(work: FileWork, f: Finding) -> None:
    """API010: `min(rem, blockDim.x)` -> `min(rem, (unsigned int)blockDim.x)`, the same value on both vendors (CUDA's
    component is an unsigned int; HIP 5's a proxy object every min/max overload needs a conversion for)."""
    at = work.offset(f.line, f.column)
    if not re.match(rb"(?:threadIdx|blockIdx|blockDim|gridDim)\.[xyz]\b", work.data[at:]):
        return
    work.edits.append((at, at, b"(unsigned int)"))
    work.answer(f, "coordinate-cast", "built-in coordinate cast to unsigned int for min/max (a proxy object in HIP 5)")


OVERLOAD_GUARD = f"#if !({ROCM_TEST})  /* {PORT_MARK}: the same function as an overload above once HIP names both types */"


def _collapsing_overloads(work: FileWork, renames: list[Finding]) -> None:
    """Overloads the renaming merges: cuda-samples' helper_cuda.h defines `_cudaGetErrorEnum(cudaError_t)` and
    `_cudaGetErrorEnum(CUresult)`, and HIP names both types hipError_t, so the ROCm build sees one function defined
    twice ("redefinition of '_cudaGetErrorEnum'"). A one-parameter definition whose parameter type maps to the same
    HIP type as an earlier definition of the same name in the file is kept for nvcc only; the earlier one serves
    both types on ROCm."""
    seen: dict[tuple[bytes, str], str] = {}
    for f in sorted(renames, key=lambda f: (f.line, f.column)):
        at = work.offset(f.line, f.column)
        cuda = _matched(work, f)
        start, end = work.line_bounds(f.line)
        # `name(` then the parameter type the finding names, a declarator, `)` and the body's `{` (one parameter)
        head = fixups.ONE_PARAM_BEFORE_TYPE.search(work.data, start, at)
        tail = fixups.ONE_PARAM_AFTER_TYPE.match(work.data, at + len(cuda), end) if cuda else None
        if head is None or head.end() != at or tail is None:
            continue
        k = (head.group(1), str(hip_name(f)))
        if seen.setdefault(k, cuda) == cuda:
            continue
        line = _definition_for_nvcc(work, f, OVERLOAD_GUARD)
        if line is None:
            continue
        work.changes.append(Change(work.path, line, "overload", f"{f.rule} {f.path}:{f.line}",
                                   f"{head.group(1).decode()}({cuda}) kept for nvcc: HIP names {cuda} and "
                                   f"{seen[k]} both {hip_name(f)}, so the {seen[k]} overload serves it on ROCm"))


VECTOR_OPERATOR_GUARD = f"#if !({ROCM_TEST})  /* {PORT_MARK}: HIP's vector types define this operator */"


def _vector_operator(work: FileWork, f: Finding) -> None:
    """API009: a project's `operator+=(float4 &a, float4 b)` definition kept for the CUDA build only; HIP's
    HIP_vector_type has the same member operator, with which it would be ambiguous."""
    line = _definition_for_nvcc(work, f, VECTOR_OPERATOR_GUARD)
    if line is not None:
        work.answer(f, "vector-operator", "compound assignment on a CUDA vector type kept for nvcc; HIP's member "
                                          "operator serves the ROCm build", line)


def _definition_for_nvcc(work: FileWork, f: Finding, guard: str) -> int | None:
    """The function definition whose parameter list holds the finding's spot wrapped in `guard` ... `#endif` (kept
    for the CUDA build only), and the line it starts on; None when there is no such definition, or when an earlier
    run guarded it already (the finding is then answered: the port is idempotent)."""
    span = fixups.operator_definition(work.data, work.offset(f.line, f.column))
    if span is None:
        return None
    s, e = span
    if work.data[:s].rstrip(b"\r\n").endswith(guard.encode()):
        work.answered.add(key(f))
        return None
    work.edits.append((s, e, guard.encode() + b"\n" + work.data[s:e] + b"\n#endif"))
    return work.data.count(b"\n", 0, s) + 1


CG_REDUCE_HEADER = "cooperative_groups/reduce.h"


_WHOLE_INCLUDE = re.compile(rb'[ \t]*#[ \t]*include[ \t]*[<"]([^>"]*)[>"][ \t]*$')


def _include_on_line(work: FileWork, line: int) -> tuple[int, int, str]:
    """The line's bounds and the header it includes when the line is one `#include` and nothing else, else ""."""
    s, e = work.line_bounds(line)
    m = _WHOLE_INCLUDE.match(work.data[s:e])
    return s, e, m.group(1).decode("utf-8", "replace").strip() if m else ""


def _cg_reduce_include(work: FileWork, unsupported: list[Finding]) -> None:
    """API006 `#include <cooperative_groups/reduce.h>` (HIP has no such header; cg::reduce arrived in HIP 7.13): kept
    for nvcc only, and the compat header defines cooperative_groups::reduce for the ROCm build (compat.CG_REDUCE)."""
    for f in unsupported:
        s, e, name = _include_on_line(work, f.line)
        if name != CG_REDUCE_HEADER:
            continue
        work.edits.append((s, e, f"#if !({ROCM_TEST})\n".encode() + work.data[s:e] + b"\n#endif"))
        work.needs_compat = work.cg_reduce = True
        work.answer(f, "header", "cooperative_groups/reduce.h kept for nvcc; the compat header defines "
                                 "cooperative_groups::reduce for HIP before 7.13")


def _unused_cuda_only_include(work: FileWork, unsupported: list[Finding]) -> None:
    """API006 `#include "cudaEGL.h"` in a file that uses none of the names the header declares (rules/kb/fixups.yaml
    cuda_only_headers: cuda-samples' eglstrm_common.h includes it for the EGL types it pulls in): kept for nvcc, and
    the ROCm build includes what the header pulls in that HIP builds have too (EGL/egl.h, EGL/eglext.h). A file that
    uses one of the names keeps the include: there the error on AMD is the finding's."""
    table = fixups.load_fixups().cuda_only_headers
    code = None
    for f in unsupported:
        s, e, name = _include_on_line(work, f.line)
        entry = table.get(name)
        if entry is None:
            continue
        if code is None:  # the file without its #include lines (which name the header itself)
            code = _INCLUDE_LINE.sub(b"", work.data).decode("utf-8", "replace")
        if re.search(entry["names"], code):
            continue
        rocm = "".join(f"#include <{h}>\n" for h in entry["rocm"])
        work.edits.append((s, e, f"#if !({ROCM_TEST})\n".encode() + work.data[s:e] + f"\n#else\n{rocm}#endif".encode()))
        work.needs_compat = True
        work.answer(f, "header", f"{name} kept for nvcc (the file uses none of its names); the ROCm "
                                 f"build includes {', '.join(entry['rocm']) or 'nothing'} in its place")


def compat_include_line(path: str, header: str) -> bytes:
    rel = posixpath.relpath(header, posixpath.dirname(path) or ".")
    return f'#include "{rel}"  /* {PORT_MARK}: CUDA names mapped to HIP for the ROCm build */\n'.encode()


_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include\b[^\n]*", re.M)


def _includes(work: FileWork, includes: list[Finding], header: str) -> None:
    """Guard each CUDA include so only nvcc sees it, and include the compat header before the first."""
    line_for = compat_include_line(work.path, header)
    present = line_for.split(b"  /*")[0] in work.data
    guarded = []
    for f in sorted(includes, key=lambda f: f.line):
        s, e = work.line_bounds(f.line)
        text = work.data[s:e]
        m = re.match(rb'[ \t]*#[ \t]*include[ \t]*[<"]([^>"]*)[>"]', text)
        if not m or text.rstrip().endswith(b"\\"):
            continue
        if m.group(1).decode("utf-8", "replace").strip() == str(dict(f.data).get("hip")):
            work.answered.add(key(f))  # the ROCm library installs the same header (rocThrust's thrust/*): nothing
            continue                   # to guard, and no fallback to invent
        guarded.append((s, e, f))
    if guarded:
        work.needs_compat = True
    if not work.needs_compat:
        return
    if not present:
        if guarded:
            at = guarded[0][0]
        else:
            m = _INCLUDE_LINE.search(work.data)
            at = m.start() if m else _after_leading_comments(work.data)
        work.edits.append((at, at, line_for))
        work.changes.append(Change(work.path, work.data.count(b"\n", 0, at) + 1, "compat-include", None,
                                   f"includes {header}"))
    # Adjacent CUDA includes share one guard.
    runs: list[list[tuple[int, int, Finding]]] = []
    for s, e, f in guarded:
        if runs and runs[-1][-1][1] + 1 == s:
            runs[-1].append((s, e, f))
        else:
            runs.append([(s, e, f)])
    for run in runs:
        s, e = run[0][0], run[-1][1]
        hip = []
        for _, _, f in run:
            h = _hip_header(f)
            if h is not None and h != "hip/hip_runtime.h" and h not in hip:  # the compat header includes HIP's runtime
                hip.append(h)
        alt = b"".join(b"#else\n" if i == 0 else b"" for i in range(1 if hip else 0))
        alt += b"".join(fixups.hip_include(h) for h in hip)
        work.edits.append((s, e, f"#if !({ROCM_TEST})\n".encode() + work.data[s:e] + b"\n" + alt + b"#endif"))
        for _, _, f in run:
            h = _hip_header(f)
            work.answer(f, "header", f"CUDA header kept for nvcc; the ROCm build takes {h} from {header}" if h else
                        "CUDA header kept for nvcc; the ROCm build needs none (HIP's runtime declares what it did)")


def _hip_header(f: Finding) -> str | None:
    """The HIP header that replaces the CUDA one a finding names; None where the header map says to drop the
    include (`device_launch_parameters.h`: HIP's runtime declares threadIdx and the rest) — its `hip` field then
    reads "none", which is no header to include."""
    d = dict(f.data)
    h = d.get("hip")
    return None if d.get("status") == "drop" or h in (None, "", "none") else str(h)


def _after_leading_comments(data: bytes) -> int:
    """Where a file without any #include can take one: after its leading comment lines and `#pragma once`."""
    pos = 0
    for line in data.splitlines(keepends=True):
        t = line.strip()
        if t.startswith((b"//", b"#pragma once")) or not t:
            pos += len(line)
            continue
        break
    return pos
