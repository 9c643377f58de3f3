"""Compile a ported tree for both vendors and attribute every failure.

Compilers: nvcc (the CUDA build, `-c` for sm_80), hipcc for gfx90a (Debian's HIP 5.2 builds host and device), and a
newer clang device-only (`-S`) for gfx942 and gfx950 (porter.translate.verify.find_compiler chooses, probing what
each accepts). Each translation unit gets the include directories and macros of the build (compile_commands.json,
or the CMake include directories and `-I`/`-D` given). Nothing of the project's build is run: each unit is
compiled on its own into porter's temporary directory.

Every failure gets a cause: `environment` (a system or vendor library this machine lacks, named; a toolchain limit
such as HIP 5.2's headers under clang 22), `predicted` (an open finding of the ported tree at the error's line or
naming what the error quotes: the open work the port listed), or `defect` (neither: porter's port is wrong there).
An error located outside the tree and the toolchains is shown by place only (a hostile `#include` could quote any
file).
"""
from __future__ import annotations

import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from porter.model import Finding, Status
from porter.render import unidiff
from porter.source.discover import on_disk
from porter.translate import verify as tv

CUDA_ARCH = "sm_80"
_GCC_NOT_FOUND = re.compile(r"fatal error: ([^:\s]+): No such file or directory")
_CLANG_NOT_FOUND = re.compile(r"fatal error: '([^']+)' file not found")
_NVCC_ERROR = re.compile(r"^(?P<path>[^\s(][^(]*)\((?P<line>\d+)\): (?:catastrophic )?error: ")


@dataclass(frozen=True)
class Compile:
    compiler: str  # nvcc | hipcc gfx90a | clang-device-only gfx942 | ...
    path: str
    status: str  # compiled | failed | timeout
    error: str | None = None
    cause: str | None = None  # environment | predicted | defect (failed only)
    reason: str | None = None  # the library missing, the finding that predicted it, or the defect's error

    def to_dict(self) -> dict:
        return {"compiler": self.compiler, "path": self.path, "status": self.status, "error": self.error,
                "cause": self.cause, "reason": self.reason}


def find_nvcc() -> str | None:
    for cand in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def compilers(archs: tuple[str, ...] = ("gfx90a", "gfx942", "gfx950"), nvcc: bool = True,
              ) -> tuple[list[tuple[str, str | tv.Compiler]], list[str]]:
    """[(label, compiler)] available here (compiler: the nvcc path, or a translate.verify.Compiler), and what is
    missing (each named, for a skip message)."""
    out: list[tuple[str, str | tv.Compiler]] = []
    missing = []
    nvcc_path = find_nvcc() if nvcc else None
    if nvcc_path:
        out.append(("nvcc", nvcc_path))
    elif nvcc:
        missing.append("nvcc")
    seen = set()
    for arch in archs:
        c, note = tv.find_compiler(arch)
        if c is None or c.arch != arch:
            missing.append(f"a HIP compiler for {arch}" + (f" ({note})" if note else ""))
            continue
        if (c.kind, c.arch) in seen:
            continue
        seen.add((c.kind, c.arch))
        out.append((f"{c.kind} {c.arch}", c))
    return out, missing


def _nvcc_command(nvcc: str, src: Path, obj: Path, includes, defines, std: str | None) -> list[str]:
    return [nvcc, f"-std={std or 'c++17'}", f"-arch={CUDA_ARCH}", "-c", str(src), "-o", str(obj),
            *(f"-I{p}" for p in includes), *(f"-D{d}" for d in defines)]


def missing_library(error: str) -> str | None:
    """The library a "file not found" error names, when it is a vendor or system library (not the project's)."""
    m = _GCC_NOT_FOUND.search(error) or _CLANG_NOT_FOUND.search(error)
    if not m:
        return None
    header = m.group(1)
    from porter.kb import load_kb

    kb = load_kb()
    h = kb.header(header)
    if h is not None and h.library not in ("runtime", "driver", "device"):
        return f"{header} ({h.library}) is not installed for this compiler"
    for entry in kb.header_entries:
        hip = entry.hip or ""
        # ROCm 5's flat hipblas.h for ROCm 6's hipblas/hipblas.h (porter.translate.fixups.hip_include falls back to it)
        flat = hip.split("/", 1)[1] if "/" in hip and not hip.startswith("hip/") else None
        if header in (hip, flat):
            return f"{header} ({entry.library} on ROCm) is not installed for this compiler"
    return tv.missing_system_header(error.replace(f"{header}: No such file or directory", f"'{header}' file not found"))


def written_lines(plan) -> dict[str, frozenset[int]]:
    """{path: the lines (1-based) of each file the port writes that are its own, new or changed}."""
    out: dict[str, frozenset[int]] = {}
    for fp in plan.files:
        after = unidiff.lines(fp.after)
        if fp.before is None:
            out[fp.path] = frozenset(range(1, len(after) + 1))
            continue
        out[fp.path] = frozenset(j + 1 for tag, _i1, _i2, j1, j2 in unidiff.opcodes(unidiff.lines(fp.before), after)
                                 if tag != "equal" for j in range(j1, j2))
    return out


def attribute(error: str, err_path: str | None, err_line: int | None, root: Path, open_findings: list[Finding],
              compiler, written: Mapping[str, frozenset[int]] | None = None) -> tuple[str, str]:
    """(cause, reason) of one failure. `written`: the lines the port wrote, per file (written_lines); an nvcc error
    at a line it did not write is the project's own code failing on this CUDA toolkit, not the port's defect."""
    lib = missing_library(error)
    if lib:
        return "environment", lib
    if not isinstance(compiler, str):
        limit = tv.toolchain_limit(err_path, compiler)
        if limit:
            return "environment", limit
    rel = None
    if err_path:
        try:
            rel = Path(err_path).resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            rel = None
    if isinstance(compiler, str) and written is not None and rel is not None and err_line is not None \
            and err_line not in written.get(rel, frozenset()):
        # CUDA 13 dropped cudaDeviceProp::clockRate: the unported tree fails the same way on this nvcc.
        return "environment", (f"{rel}:{err_line} is the project's own line, which the port did not change: this "
                               "nvcc rejects the original code as well")
    quoted = set(re.findall(r"'([^']+)'", error))
    for f in open_findings:
        if rel == f.path and err_line is not None and f.line <= err_line <= max(f.end_line, f.line):
            return "predicted", f"{f.rule} {f.path}:{f.line}"
        if f.snippet and any(q and len(q) > 2 and q in f.snippet for q in quoted) and f.path == rel:
            return "predicted", f"{f.rule} {f.path}:{f.line}"
    return "defect", error


def _may_quote(path: Path, root: Path) -> bool:
    """An error located in the tree or a toolchain's headers may be shown as printed."""
    real = os.path.realpath(path)
    return real.startswith((os.path.realpath(root).rstrip("/") + "/", "/usr/", "/opt/rocm"))


def _shown(error: str, epath: str | None, src_dir: Path, root: Path, quote: bool = True) -> str:
    if epath and not _may_quote(src_dir / epath, root):
        return f"{epath}: error in a file outside the tree (not shown: it could quote it)"
    if epath and not quote:  # `#embed` of an outside file is quoted in an error located in the tree
        return f"{epath}: error (not shown: the compiler ran unconfined and could quote any file)"
    return error


def verify_tree(root: Path, units: list[str], findings: list[Finding], build=None, timeout: float = 300.0,
                archs: tuple[str, ...] = ("gfx90a", "gfx942", "gfx950"), nvcc: bool = True,
                paths: Iterable[str] = (), written: Mapping[str, frozenset[int]] | None = None,
                ) -> tuple[list[Compile], list[str]]:
    """Compile each unit with nvcc (unless not `nvcc`) and a HIP compiler per arch; (results, compilers missing).
    `paths`: the tree's files, whose header directories every unit gets (as translate --verify gives them);
    `written`: the lines the port wrote (written_lines), which decide whose an nvcc error is."""
    root = Path(root).resolve()
    headers = tv.header_dirs(root, paths)
    found, missing = compilers(archs, nvcc)
    open_findings = [f for f in findings if f.status is Status.OPEN]
    results: list[Compile] = []
    with tempfile.TemporaryDirectory(prefix="porter-port-verify-") as tmp:
        for label, comp in found:
            for i, rel in enumerate(units):
                src = root / on_disk(rel)  # a unit as the scan shows it: its name on disk
                flags = build.flags_for(rel) if build is not None else None
                incs = [Path(d) if Path(d).is_absolute() else root / d for d in (flags.includes if flags else ())]
                incs += [d for d in headers if d not in incs]
                defines = flags.defines if flags else ()
                std = flags.std if flags else None
                if isinstance(comp, str):
                    obj = Path(tmp) / f"n{i}.o"
                    cmd = _nvcc_command(comp, src, obj, incs, defines, std)
                    env = {**os.environ, "TMPDIR": tmp}
                else:
                    obj = Path(tmp) / f"h{i}.{'o' if comp.kind == 'hipcc' else 's'}"
                    # As the ported build files compile for ROCm: with USE_ROCM defined.
                    cmd = comp.command(src, obj, incs, (*defines, "USE_ROCM"), std)
                    env = comp.env(tmp)
                r = tv.compile_confined(cmd, timeout, env, src.parent, root, incs, tmp)
                if r.overrun is not None and r.overrun.kind == "time":
                    results.append(Compile(label, rel, "timeout", f"timed out after {timeout:g} s", "defect",
                                           "timeout"))
                    continue
                if r.returncode == 0:
                    results.append(Compile(label, rel, "compiled"))
                    continue
                err, epath, eline = _first_error(r.stderr + r.stdout)
                err = err or (f"compiler stopped: {r.overrun.reason}" if r.overrun else f"exit status {r.returncode}")
                full = str(src.parent / epath) if epath else None
                cause, reason = attribute(err, full, eline, root, open_findings, comp, written)
                quote = r.confined  # an unconfined compiler could have read anything: say where, never what
                results.append(Compile(label, rel, "failed", _shown(err, epath, src.parent, root, quote), cause,
                                       _shown(reason, epath, src.parent, root, quote) if cause == "defect"
                                       else reason))
    return results, missing


def _first_error(output: str) -> tuple[str | None, str | None, int | None]:
    m = _GCC_NOT_FOUND.search(output)
    if m:  # nvcc's host preprocessor (gcc) words a missing header its own way
        line = next(l for l in output.splitlines() if m.group(0) in l)
        parts = line.split(":")
        if len(parts) > 2 and parts[1].isdigit():
            return line.strip(), parts[0], int(parts[1])
        return line.strip(), None, None
    for line in output.splitlines():
        n = _NVCC_ERROR.match(line)  # nvcc's own front end: `common/lcutil.h(57): error: ...`
        if n:
            return line.strip(), n.group("path"), int(n.group("line"))
        if tv.first_error(line)[0] is not None:
            break  # a gcc/clang-worded error came first
    return tv.first_error(output)


def summary(results: list[Compile]) -> dict:
    """Per compiler: units compiled, failed by cause."""
    out: dict[str, dict] = {}
    for r in results:
        s = out.setdefault(r.compiler, {"units": 0, "compiled": 0, "environment": 0, "predicted": 0, "defect": 0})
        s["units"] += 1
        if r.status == "compiled":
            s["compiled"] += 1
        else:
            s[r.cause or "defect"] += 1
    return out


_INCLUDED_SOURCE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+\.(?:cu|cpp|cc|cxx))"', re.M)


def units_of(paths, changed: set[str], root: Path | None = None) -> list[str]:
    """Translation units to compile: every .cu, plus other C++ sources the port changed; not a source another file
    `#include`s (HeCBench's `#include "kernels.cu"`: it is compiled as part of its includer, never on its own)."""
    out = []
    for p in paths:
        ext = PurePosixPath(p).suffix.lower()
        if ext == ".cu" or (ext in (".cpp", ".cc", ".cxx") and p in changed):
            out.append(p)
    return sorted(set(out) - (included_sources(root, paths) if root is not None else set()))


def included_sources(root: Path, paths) -> set[str]:
    """Sources (.cu/.cpp) that another file of the tree includes by a quoted name, resolved beside the includer."""
    from porter import contain

    out: set[str] = set()
    known = set(paths)
    for p in paths:
        if PurePosixPath(p).suffix.lower() not in (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".inl"):
            continue
        try:
            data = contain.read_bytes(Path(root) / p, 16 << 20, root=root)
        except contain.Unreadable:
            continue
        for m in _INCLUDED_SOURCE.finditer(data):
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(p), m.group(1).decode("utf-8", "replace")))
            if rel in known:
                out.add(rel)
    return out


def render(results: list[Compile], missing: list[str], console) -> None:
    for label, s in sorted(summary(results).items()):
        console.print(f"verify {label}: {s['compiled']}/{s['units']} compiled; failed: {s['environment']} "
                      f"environment, {s['predicted']} predicted, {s['defect']} porter defect",
                      markup=False, highlight=False)
    for r in results:
        if r.status != "compiled":
            console.print(f"  {r.compiler} {r.path}: {r.cause}: {r.reason}", markup=False, highlight=False)
    for m in missing:
        console.print(f"verify: skipped {m}", markup=False, highlight=False)
