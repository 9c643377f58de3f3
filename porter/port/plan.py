"""Plan the dual-build port of a scanned repository: each file's new bytes, the changes and the open work.

Input: the scan (findings with their port status, kernel facts); output: a PortPlan. Only open findings are fixed,
so a tree the port was applied to plans nothing new (the ported spots read handled, the fixed ones are gone) and
the compat header is regenerated from the names it already holds: the patch of a second run is empty. Files are
read through porter.contain; a symlink is never edited (its target is ported where it lies, when it is inside).
"""
from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path, PurePosixPath

from porter import contain
from porter.errors import UsageError
from porter.model import Finding, ScanResult, Severity, Status
from porter.source.discover import on_disk
import porter.port.build as build
from porter.match import refine_vectors
import porter.port.compat as compat
from porter.port.model import Change, FilePatch, OpenItem, PortOptions, PortPlan
from porter.port.sources import SYNC_NAMES, FileWork, hip_name, lane_lines, port_file
from porter.translate.fixups import load_fixups

MAX_FILE_BYTES = 16 * 1024 * 1024
SOURCE_RULES = frozenset({"API001", "API003", "API004", "API005", "API009", "API010", "DEV001", "DEV002", "DEV003",
                          "DEV010", "DEV011", "DEV021"})
SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".c", ".cc", ".cpp", ".cxx", ".inl", ".inc",
                             ".ipp", ".tcc", ".tpp", ".txx"})
# Why a finding is left: the rule's class of work porter does not write (the finding's message says the rest).
OPEN_REASONS = {
    "DEV005": "WMMA tensor-core fragments: rocWMMA or MFMA builtins, by hand",
    "DEV006": "tensor-core PTX (mma/wgmma/ldmatrix): an MFMA rewrite, by hand",
    "DEV007": "Hopper/Blackwell features (TMA, clusters, wgmma): no AMD equivalent, by hand",
    "DEV012": "async copy pipeline: a synchronous or LDS-direct copy, by hand",
    "DEV015": "TF32 tensor cores: no TF32 MFMA on gfx942/gfx950 code paths",
    "LIB003": "NVIDIA-only library: no ROCm port",
    "LIB006": "NVIDIA-only library: no ROCm port",
    "LIB009": "NVIDIA-only library: no ROCm port",
    "LIB012": "NVIDIA-only library: no ROCm port",
    "API002": "CUDA API with no HIP counterpart",
    "API006": "CUDA header with no HIP counterpart",
    "API009": "an operator definition porter cannot delimit: guard it for the CUDA build by hand",
    "API010": "a coordinate porter cannot cast in place: cast it to unsigned int by hand",
    "DEV001": "inline PTX that is not one simple instruction: AMDGCN or HIP code, by hand",
    "DEV002": "a mask porter cannot widen in place (computed, or defined in another file)",
    "DEV003": "a ballot result porter cannot retype in place",
    "DEV020": "texture/surface fetch: gfx942/gfx950 have no image instructions; global-memory reads, by hand",
    "DEV011": "lane arithmetic the kernel facts do not place, or a compile-time warp size: per-architecture constant",
}


def _read(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """A file's bytes for editing, or the reason it is not edited."""
    p = root / on_disk(rel)  # a path as the scan shows it: the file of that name on disk
    try:
        st = os.lstat(p)
    except OSError as e:
        return None, f"cannot stat: {e.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return None, "a symlink: not edited (its target is ported where it lies)"
    if not stat.S_ISREG(st.st_mode):
        return None, "not a regular file"
    try:
        return contain.read_bytes(p, MAX_FILE_BYTES, root=root), None
    except contain.Unreadable as e:
        return None, str(e)


def copies_by_link(root: Path, paths, scanned: set[str]) -> set[str]:
    """Of `paths`, those that are symlinks (or lie under a symlinked directory) leading to another file of the scan
    inside `root`: the scan read that file twice, and its findings are ported (or left open) once, where it lies."""
    out = set()
    top = os.path.realpath(root)
    for rel in paths:
        real = os.path.realpath(root / on_disk(rel))
        if real != os.path.join(top, on_disk(rel)) and contain.inside(real, top):
            if os.path.relpath(real, top).replace(os.sep, "/") in scanned:
                out.add(rel)
    return out


def plan(root: Path, result: ScanResult, options: PortOptions = PortOptions()) -> PortPlan:
    """The port of the repository at `root` that `result` (its scan) describes."""
    root = Path(root)
    header = options.header
    if PurePosixPath(header).is_absolute() or ".." in PurePosixPath(header).parts:
        raise UsageError(f"--header {header!r}: must be a path inside the repository")
    # A symlinked copy of a scanned file is that file: its findings are the target's, reported once, not as a copy.
    copies = copies_by_link(root, sorted({f.path for f in result.findings}), {fr.path for fr in result.files})
    result = dataclasses.replace(result, findings=tuple(f for f in result.findings if f.path not in copies))
    by_path: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_path.setdefault(f.path, []).append(f)
    lanes = lane_lines(result.kernels)
    macros = rocm_macros()
    works: dict[str, FileWork] = {}
    skipped: list[tuple[str, str]] = []
    for path, found in sorted(by_path.items()):
        if path == header or PurePosixPath(path).suffix.lower() not in SOURCE_SUFFIXES:
            continue
        if not any(f.rule in SOURCE_RULES and f.status is Status.OPEN for f in found) and not (
                path.endswith(".cu") and any(f.rule == "KRN001" for f in found)):
            continue
        data, why = _read(root, path)
        if data is None:
            skipped.append((path, why or "unreadable"))
            continue
        w = FileWork(path, data)
        port_file(w, found, lanes, header, options.mask_type, macros)
        works[path] = w

    # The compat header: the names the project uses (open, or already routed through this header) and an earlier
    # run's names, so a second run writes the same bytes.
    old, why = _read(root, header) if (root / header).exists() or os.path.islink(root / header) else (None, None)
    if why is not None or (old is not None and compat.GENERATED_MARK.encode() not in old):
        raise UsageError(f"{header}: exists and is not porter's compat header ({why or 'not generated'}); "
                         f"choose another name with --header")
    names, sync = compat.names_in(old or b"")
    answered: set[tuple] = set()
    for f in result.findings:
        ours = f.status is Status.OPEN or (f.handled_by or "").startswith(header + ":")
        if not ours:
            continue
        if f.rule in ("API001", "API003") and hip_name(f) and f.path in works:
            cuda = _token(works[f.path], f)
            if cuda and cuda != hip_name(f):
                names[cuda] = str(hip_name(f))
        elif f.rule in ("API004", "DEV002") and f.path in works and _token(works[f.path], f, True) in SYNC_NAMES:
            sync.add(_token(works[f.path], f, True))
    sync |= warp_sync_names(result.kernels, set(works), result.files)
    # CUDA device functions HIP (5.2) lacks, defined in the compat header where the semantics are equal (translate's
    # shims, rules/kb/fixups.yaml): umin, atomicInc_system, ...
    shim_table = {k: v for k, v in load_fixups().shims.items() if not k.startswith("hip") and k not in SYNC_NAMES
                  and v.get("hip", "").startswith("porter_") and k != compat.CG_REDUCE_SHIM}
    shims: set[str] = {c for c, h in names.items() if c in shim_table}
    for f in result.findings:
        ours = f.status is Status.OPEN or (f.handled_by or "").startswith(header + ":")
        if ours and f.rule.startswith("API") and f.path in works:
            tok = _token(works[f.path], f, True)
            if tok in shim_table:
                shims.add(tok)
                works[f.path].needs_compat = True
                answered.add((f.rule, f.path, f.line, f.column))
    for c in shims:
        names[c] = shim_table[c]["hip"]
    # HIP names HIPIFY maps to that HIP 5.2 lacks (cuGetErrorString -> hipDrvGetErrorString, nvrtcGetCUBIN ->
    # hiprtcGetBitcode, CUDA 13's cuCtxCreate): translate's shims keyed by the HIP name, reached through the CUDA
    # name that maps to it. An earlier run's header already names the porter_ helper.
    hip_shims = {k: v for k, v in load_fixups().shims.items() if k.startswith("hip")}
    by_helper = {v["hip"]: k for k, v in {**shim_table, **hip_shims}.items()}
    for c, h in list(names.items()):
        if h in hip_shims:
            shims.add(h)
            names[c] = hip_shims[h]["hip"]
        elif h in by_helper and c not in shim_table:
            shims.add(by_helper[h])
    all_shims = {**shim_table, **hip_shims}
    shims |= {all_shims[c]["requires"] for c in list(shims) if all_shims[c].get("requires") in all_shims}
    for w in works.values():
        names.update(w.macros)
    cg_reduce = any(w.cg_reduce for w in works.values()) or compat.has_cg_reduce(old or b"")
    if cg_reduce:  # cg::reduce on a tile is the compat header's (DEV008's `reduce` findings are answered)
        answered |= {(f.rule, f.path, f.line, f.column) for f in result.findings if f.rule == "DEV008"
                     and f.path in works and _token(works[f.path], f) == "reduce"}
    needs = any(w.needs_compat for w in works.values())
    files: list[FilePatch] = []
    changes: list[Change] = []
    if needs or old is not None:
        new = compat.render(names, sync, options.mask_type, {c: all_shims[c] for c in shims}, cg_reduce)
        if new != old:
            files.append(FilePatch(header, old, new))
            changes.append(Change(header, 1, "compat-header", None,
                                  f"{len(names)} name(s), {len(sync)} warp shim(s)"))
    for path, w in sorted(works.items()):
        after = w.result()
        answered |= w.answered
        if after != w.data:
            files.append(FilePatch(path, w.data, after))
            changes.extend(w.changes)

    open_work: list[OpenItem] = []
    ported_build: set[str] = set()
    tables = None
    for fr in sorted(result.files, key=lambda fr: fr.path):
        kind = build.kind_of(fr.path)
        if kind is None:
            continue
        if kind == "setup":
            open_work.extend(build.setup_open_work(fr.path, by_path.get(fr.path, [])))
            continue
        if tables is None:
            from porter.translate.buildfiles import load_tables

            tables = load_tables()
        data, why = _read(root, fr.path)
        if data is None:
            skipped.append((fr.path, why or "unreadable"))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            skipped.append((fr.path, "not UTF-8: build file left as it is"))
            continue
        bw = build.BuildWork(fr.path, text)
        (build.port_cmake if kind == "cmake" else build.port_make)(bw, tables, options.gfx)
        after_text = bw.result()
        if after_text != text:
            files.append(FilePatch(fr.path, data, after_text.encode("utf-8")))
            changes.extend(bw.changes)
            ported_build.add(fr.path)
        elif re.search(r"\bUSE_ROCM\b", text):
            ported_build.add(fr.path)  # ported before (by porter or by hand): its ROCm branch answers the build findings
        open_work.extend(bw.open_work)

    open_keys = {(o.rule, o.path, o.line) for o in open_work}
    # a use on two vectors (DEV053) is ambiguous only beside the project's operator: one the port guarded out of the
    # HIP build (API009, answered) leaves HIP's member alone
    guarded = {refine_vectors.definition_key(f) for f in result.findings
               if f.rule == refine_vectors.DEFINITION_RULE
               and (f.status is not Status.OPEN or (f.rule, f.path, f.line, f.column) in answered)}
    for f in result.findings:
        if f.status is not Status.OPEN or f.severity <= Severity.INFO or (f.rule, f.path, f.line) in open_keys:
            continue
        k = (f.rule, f.path, f.line, f.column)
        if k in answered:
            continue
        if f.path in ported_build and f.rule.startswith(("BLD", "LIB004", "LIB005")):
            continue
        if f.rule == refine_vectors.USE_RULE and refine_vectors.use_key(f) in guarded:
            continue
        if f.rule == "API004":
            continue  # HIP has the name (the _sync ones through the compat header): a check, not a change
        if f.rule in ("API001", "API003", "API005") and f.path in works and (f.rule == "API005" or hip_name(f)):
            continue  # renamed through the compat header (a name with no HIP one stays open work)
        if f.rule == "LIB001" and any(k[0] == "API005" and k[1] == f.path and k[2] == f.line for k in answered):
            continue  # a drop-in library's header: the compat header includes its ROCm one
        reason = OPEN_REASONS.get(f.rule, "no mechanical fix in porter port")
        open_work.append(OpenItem(f.path, f.line, f.rule, f"{reason}: {f.message}", f"{f.rule} {f.path}:{f.line}"))
        open_keys.add((f.rule, f.path, f.line))
    files.sort(key=lambda p: p.path)
    changes.sort(key=lambda c: (c.path, c.line, c.kind))
    open_work.sort(key=lambda o: (o.path, o.line, o.rule))
    return PortPlan(root=str(root), header=header, files=tuple(files), changes=tuple(changes),
                    open_work=tuple(open_work), compat_names=tuple(sorted(names.items())), skipped=tuple(skipped))


def rocm_macros() -> dict[str, str]:
    """CUDA macros the ROCm build may define in the compat header: the toolkit version macros at the CUDA API level
    HIP models, and the runtime's header guards (code tests them to ask "is the CUDA runtime here?", and on ROCm
    the compat header is what provides it), from rules/kb/fixups.yaml."""
    from porter.translate.fixups import load_fixups

    fix = load_fixups()
    out = {name: str(e["value"]) for name, e in fix.versions.items()}
    out.update({name: "1" for name in ("__CUDA_RUNTIME_H__", "__CUDA_RUNTIME_API_H__", "__DRIVER_TYPES_H__", "__cuda_cuda_h__")
                if name in fix.guards})
    return out


def _token(work: FileWork, f: Finding, leading: bool = False) -> str:
    """The identifier the finding matched (with `leading`, the one its match starts with: a call's name)."""
    s = work.offset(f.line, f.column)
    e = work.offset(f.end_line, f.end_column) if f.end_line == f.line else s
    text = work.data[s:e].decode("utf-8", "replace").strip()
    if leading:
        m = re.match(r"[A-Za-z_]\w*", text)
        return m.group(0) if m else ""
    return text if text.isidentifier() else ""


def warp_sync_names(kernels, paths: set[str], files=()) -> set[str]:
    """The `*_sync` warp functions the kernel facts record (their own and their helpers') in the files ported, and
    those of every `__device__` function of those files (`files`: the scan's FileResults): a helper no kernel's facts
    reach (HeCBench's warpexchange WARP_SYNC, called from a sibling folder's kernels through a template) still
    calls `__syncwarp`, which HIP 5.2 lacks."""
    out: set[str] = set()
    for fr in files:
        if fr.path in paths:
            out |= {w.op for h in fr.helpers if h.facts is not None for w in h.facts.warp_ops if w.op in SYNC_NAMES}
    for k in kernels:
        if k.facts is None:
            continue
        if k.path in paths:
            out |= {w.op for w in k.facts.warp_ops if w.op in SYNC_NAMES}
        for h in k.facts.helpers:
            if h.path in paths:
                out |= {w.op for w in h.facts.warp_ops if w.op in SYNC_NAMES}
    return out
