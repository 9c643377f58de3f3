"""Compile each translated translation unit with the HIP compiler found, and say whether porter predicted failures.

Compiler choice for a GPU architecture: `hipcc` with `HIP_PLATFORM=amd` and
`--offload-arch=<gfx>` (`-c`, host and device) when its clang accepts that gfx; otherwise a newer clang
(clang++-19 … clang++-22, the oldest that accepts the gfx, or $PORTER_HIP_CLANG) in device-only `-S` mode with `-nogpulib`, which is how Debian's
clang-19/22 check gfx942/gfx950 code; otherwise hipcc for gfx90a. Support for a gfx is probed, not assumed.

Per file: compiled, or the first error, and whether a porter finding predicted that error: a finding on the same
file and line, or one naming the identifier or header the error quotes.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from porter import budget
from porter.model import Finding
from porter.source.discover import HEADER_SUFFIXES

DEFAULT_ARCH = "gfx90a"
TU_EXTS = frozenset({".cu", ".hip", ".cpp", ".cc", ".cxx", ".c++"})
ALWAYS_EXTS = frozenset({".cu", ".hip"})  # other C++ TUs are compiled only when translation changed them
CLANG_CANDIDATES = ("clang++-19", "clang++-20", "clang++-21", "clang++-22")  # the oldest that accepts the gfx
_ERROR = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$")
_DRIVER_ERROR = re.compile(r"^(?:clang|clang\+\+|hipcc)[^:]*: error: (?P<msg>.*)$")
_QUOTED = re.compile(r"'([^']+)'")


@dataclass(frozen=True)
class Compiler:
    kind: str  # hipcc | clang-device-only
    path: str
    arch: str
    version: str = ""  # the compiler's own version line
    hip_version: str | None = None  # HIP headers' version, when hipcc says
    note: str = ""  # why this compiler/arch was chosen

    def command(self, src: Path, obj: Path, includes: Iterable[Path], defines: Iterable[str] = (),
                std: str | None = None) -> list[str]:
        incs = [f"-I{p}" for p in includes] + [f"-D{d}" for d in defines]
        std_flag = f"-std={std or 'c++17'}"
        if self.kind == "hipcc":
            return [self.path, f"--offload-arch={self.arch}", std_flag, "-x", "hip", "-c", str(src), "-o", str(obj), *incs]
        cmd = [self.path, "-x", "hip", f"--offload-arch={self.arch}", f"--rocm-path={_rocm_path()}", "-nogpulib",
               "--cuda-device-only", "-S", std_flag, str(src), "-o", str(obj), *incs]
        if _clang_major(self.version) >= 22 and self.arch.startswith("gfx9"):
            cmd.insert(1, "-D__AMDGCN_WAVEFRONT_SIZE=64")  # HIP 5.2 headers use the macro clang 22 dropped
        return cmd

    def env(self, tmp: str | Path) -> dict[str, str]:
        """The compile's environment. hipcc and clang's HIP driver each leave per-compile directories in $TMPDIR
        (two `/tmp/<stem>-XXXXXX` per hipcc call), so TMPDIR points into porter's own temporary directory, which
        is removed afterwards."""
        return compile_env(tmp)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "arch": self.arch, "version": self.version,
                "hip_version": self.hip_version, "note": self.note}


@dataclass(frozen=True)
class VerifiedFile:
    path: str
    status: str  # compiled | failed | timeout
    error: str | None = None  # the first error, as the compiler printed it
    error_path: str | None = None
    error_line: int | None = None
    predicted: bool | None = None  # failed: did a porter finding predict it
    predicted_by: tuple[str, ...] = ()  # "RULE path:line name" of the findings that did
    command: tuple[str, ...] = field(default=(), compare=False)
    environment: str | None = None  # the failure is this machine's (a ROCm library not installed), not the port's

    @property
    def cause(self) -> str | None:
        """Why it failed: predicted (a porter finding said so) | environment (this machine or toolchain lacks
        something) | defect (neither: a translation bug to fix in porter); None when it compiled."""
        if self.status == "compiled":
            return None
        return "predicted" if self.predicted else "environment" if self.environment else "defect"

    def to_dict(self) -> dict:
        return {"path": self.path, "status": self.status, "error": self.error, "error_path": self.error_path,
                "error_line": self.error_line, "predicted": self.predicted, "predicted_by": list(self.predicted_by),
                "environment": self.environment, "cause": self.cause}


@dataclass(frozen=True)
class Verification:
    compiler: Compiler | None
    files: tuple[VerifiedFile, ...]
    note: str = ""

    def summary(self) -> dict:
        failed = [f for f in self.files if f.status != "compiled"]
        causes = Counter(f.cause for f in failed)
        compiled = len(self.files) - len(failed)
        # The compile rate leaves out what this machine cannot build whatever the port does.
        judged = len(self.files) - causes["environment"]
        return {"compiled": compiled, "failed": len(failed),
                "failed_predicted": sum(1 for f in failed if f.predicted), "failed_unpredicted": sum(1 for f in failed if not f.predicted),
                "predicted": causes["predicted"], "environment": causes["environment"], "defect": causes["defect"],
                "compile_rate": round(compiled / judged, 3) if judged else None}

    def to_dict(self) -> dict:
        return {"compiler": self.compiler.to_dict() if self.compiler else None, "note": self.note,
                "summary": self.summary(), "files": [f.to_dict() for f in self.files]}


def compile_env(tmp: str | Path) -> dict[str, str]:
    """The environment of any HIP compiler call: HIP_PLATFORM=amd and TMPDIR inside `tmp`, so what the compiler
    leaves behind goes when `tmp` does."""
    return {**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp)}


def _rocm_path() -> str:
    env = os.environ.get("ROCM_PATH")
    if env:
        return env
    if Path("/usr/include/hip/hip_runtime.h").is_file():
        return "/usr"
    return "/opt/rocm"


def _clang_major(version: str) -> int:
    m = re.search(r"clang version (\d+)", version)
    return int(m.group(1)) if m else 0


def _find_hipcc() -> str | None:
    found = shutil.which("hipcc")
    if found:
        return found
    for base in (os.environ.get("ROCM_PATH"), "/opt/rocm"):
        if base and (Path(base) / "bin" / "hipcc").is_file():
            return str(Path(base) / "bin" / "hipcc")
    return None


@lru_cache(maxsize=None)
def _version_text(path: str) -> str:
    try:
        r = subprocess.run([path, "--version"], capture_output=True, text=True, errors="replace", timeout=60,
                           env={**os.environ, "HIP_PLATFORM": "amd"}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout + r.stderr


def hip_version_of(path: str) -> str | None:
    m = re.search(r"HIP version:\s*(\d+\.\d+(?:\.\d+)?)", _version_text(path))
    if not m:
        return None
    parts = m.group(1).split(".")
    return ".".join(parts[:2])  # "5.2.21153" is HIP 5.2 build 21153, not a patch level


@lru_cache(maxsize=None)
def supports(path: str, kind: str, arch: str) -> bool:
    """Does this compiler accept `--offload-arch=arch`? A device-only syntax check of an empty file tells."""
    with tempfile.TemporaryDirectory(prefix="porter-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_bytes(b"")
        cmd = [path, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-fsyntax-only", str(src)]
        if kind != "hipcc":
            cmd[1:1] = ["-nogpulib", f"--rocm-path={_rocm_path()}"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120,
                               env=compile_env(tmp), stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False
    return r.returncode == 0


def find_compiler(arch: str | None = None) -> tuple[Compiler | None, str]:
    """The compiler to verify with for `arch` (None: gfx90a), and a note saying what was chosen and why."""
    want = arch or DEFAULT_ARCH
    hipcc = _find_hipcc()
    if hipcc and supports(hipcc, "hipcc", want):
        ver = _version_text(hipcc)
        return Compiler("hipcc", hipcc, want, _first_clang_line(ver), hip_version_of(hipcc),
                        f"hipcc accepts {want}"), ""
    clangs = [os.environ["PORTER_HIP_CLANG"]] if os.environ.get("PORTER_HIP_CLANG") else list(CLANG_CANDIDATES)
    for name in clangs:
        path = shutil.which(name)
        if path and supports(path, "clang", want):
            ver = _version_text(path)
            return Compiler("clang-device-only", path, want, _first_clang_line(ver),
                            hip_version_of(hipcc) if hipcc else None,
                            f"{'hipcc rejects' if hipcc else 'no hipcc for'} {want}: device-only -S build with {name}"), ""
    if hipcc and want != DEFAULT_ARCH and supports(hipcc, "hipcc", DEFAULT_ARCH):
        ver = _version_text(hipcc)
        return Compiler("hipcc", hipcc, DEFAULT_ARCH, _first_clang_line(ver), hip_version_of(hipcc),
                        f"no compiler here accepts {want}; fell back to hipcc for {DEFAULT_ARCH}"), ""
    if not hipcc:
        return None, "no HIP compiler found (hipcc on PATH or in $ROCM_PATH/bin, or clang++-19..22); see docs/toolchains.md"
    return None, f"hipcc at {hipcc} accepts neither {want} nor {DEFAULT_ARCH}"


def _first_clang_line(text: str) -> str:
    return next((l.strip() for l in text.splitlines() if "clang version" in l), "")


def arch_for_target(target: str | None) -> str | None:
    """A porter target id (mi300x, ...) or a gfx name → the gfx name; None when no target was given."""
    if not target:
        return None
    from porter.targets import TargetError, gfx_of
    from porter.translate.model import TranslateError

    try:
        return gfx_of(target)
    except TargetError as e:
        raise TranslateError(f"--target {target!r}: {e.problem}, or a gfx name") from None


def translation_units(result) -> list:
    """Files to compile: every .cu/.hip, plus other C++ sources that translation changed."""
    out = []
    for ft in result.files:
        ext = PurePosixPath(ft.path).suffix.lower()
        if ft.status in ("skipped",) or ext not in TU_EXTS:
            continue
        if ext in ALWAYS_EXTS or ft.changed:
            out.append(ft)
    return out


def include_dirs(out_root: Path, result) -> list[Path]:
    """The tree's root and every directory holding a header of the translated set (build systems add these)."""
    return header_dirs(out_root, (ft.path for ft in result.files))


def header_dirs(root: Path, paths: Iterable[str]) -> list[Path]:
    """`root` and every directory under it holding one of `paths` that is a header: where a project's build points
    its `-I` (a Makefile's `-I../common`, which no build description porter reads states)."""
    dirs = {root}
    for path in paths:
        if PurePosixPath(path).suffix.lower() in HEADER_SUFFIXES:
            dirs.add(root / PurePosixPath(path).parent)
    return sorted(dirs)


# Where a compiler error may be shown word for word: the translated tree, and the toolchains' own headers.
_SYSTEM_PREFIXES = ("/usr/", "/opt/rocm")


def _may_quote(path: Path, out_root: Path) -> bool:
    """Whether a compiler error located in `path` may be shown as printed (its text can quote the file)."""
    real = os.path.realpath(path)
    return (real.startswith(os.path.realpath(out_root).rstrip("/") + "/")
            or real.startswith(_SYSTEM_PREFIXES + tuple(p for p in (os.environ.get("ROCM_PATH"),) if p)))


def first_error(output: str) -> tuple[str | None, str | None, int | None]:
    """(error line as printed, path, line) of the first error in compiler output."""
    for line in output.splitlines():
        m = _ERROR.match(line)
        if m:
            return line.strip(), m.group("path"), int(m.group("line"))
    for line in output.splitlines():
        m = _DRIVER_ERROR.match(line)
        if m or " error: " in line or line.startswith("error:"):
            return line.strip(), None, None
    return None, None, None


def predicted_by(error: str, err_path: str | None, err_line: int | None, findings: Iterable[Finding],
                 out_root: Path, shifts: dict[str, int]) -> tuple[str, ...]:
    """Findings that predicted this error: same file and line (output lines mapped back), or the quoted name."""
    quoted = set(_QUOTED.findall(error))
    rel = None
    if err_path:
        try:
            rel = Path(err_path).resolve().relative_to(out_root.resolve()).as_posix()
        except ValueError:
            rel = None
    hits = []
    for f in findings:
        name = dict(f.data).get("name", "")
        same_place = rel is not None and f.path == rel and err_line is not None and f.line + shifts.get(f.path, 0) == err_line
        named = bool(name) and any(q == name or name in q.split("::") or q.endswith("/" + name) or name == q.strip("<>\"")
                                   for q in quoted)
        if same_place or named:
            hits.append(f"{f.rule} {f.path}:{f.line} {name}".strip())
    return tuple(sorted(set(hits)))


_NOT_FOUND = re.compile(r"fatal error: '([^']+)' file not found")


def missing_rocm_header(error: str) -> str | None:
    """When the first error is a ROCm header the translation rightly includes but this machine lacks (Debian ships
    no hipBLAS, and its HIP 5.2 no hip_gl_interop.h), say so: the port is not wrong, the compile environment is short."""
    m = _NOT_FOUND.search(error)
    if not m:
        return None
    from porter.kb import load_kb

    header = m.group(1)
    for entry in load_kb().header_entries:
        if entry.hip == header:
            if entry.library in ("runtime", "driver", "device"):
                return f"{header} is a HIP header this HIP installation lacks"
            return f"{header} ({entry.library} on ROCm) is not installed for this compiler"
    return None


@lru_cache(maxsize=1)
def _system_headers() -> list[tuple[str, str]]:
    from fnmatch import translate as glob_rx

    from porter.datafile import DATA_DIR, read_yaml
    from porter.errors import DataFileError

    raw = read_yaml(DATA_DIR / "kb" / "environment.yaml", DataFileError) or {}
    return [(re.compile(glob_rx(h)), lib) for h, lib in (raw.get("system_headers") or {}).items()]


def missing_system_header(error: str) -> str | None:
    """A system library's header this machine lacks (omp.h, GL/gl.h, mpi.h: rules/kb/environment.yaml)."""
    m = _NOT_FOUND.search(error)
    if not m:
        return None
    for rx, lib in _system_headers():
        if rx.match(m.group(1)):
            return f"{m.group(1)} ({lib}) is not installed on this machine"
    return None


def toolchain_limit(err_path: str | None, compiler: Compiler) -> str | None:
    """An error inside the HIP installation's own headers when a newer clang compiles them for a gfx they predate
    (HIP 5.2's headers for --target mi455x): a toolchain limit, not a fault of the port. With hipcc, whose clang the
    headers were made for, such an error is the port's (a header included in the wrong order, say)."""
    if not err_path or compiler.kind == "hipcc":
        return None
    try:
        real = Path(err_path).resolve()
    except OSError:
        return None
    rocm = Path(_rocm_path()).resolve()
    for base in (rocm / "include" / "hip", Path("/opt/rocm/include/hip")):
        if real.is_relative_to(base):
            hip = f"HIP {compiler.hip_version}" if compiler.hip_version else "this HIP"
            return (f"toolchain limit: the error is inside {hip}'s own header {real.relative_to(base.parent)} "
                    f"compiling for {compiler.arch}")
    return None


UNTRANSLATED_HEADER = "TRN004"  # the leftover rule for a CUDA header porter could not translate


def untranslated_header(unit: str, err_path: str | None, findings: Iterable[Finding]) -> tuple[str, ...]:
    """The TRN004 findings (a header porter reported it could not translate) in the failing unit or in the file of
    its first error. A unit that keeps such a header fails wherever it first uses what the header declared (a
    guarded `#include <cooperative_groups/reduce.h>`, then `cg::plus` eleven lines on): porter said so, so the
    failure is predicted, not a translation defect."""
    return tuple(sorted({f"{f.rule} {f.path}:{f.line} {dict(f.data).get('name', '')}".strip()
                         + " (a header porter could not translate)"
                         for f in findings if f.rule == UNTRANSLATED_HEADER and f.path in (unit, err_path)}))


def environment_of(error: str, err_path: str | None, compiler: Compiler) -> str | None:
    """Why a failure is the machine's or toolchain's rather than the port's, or None."""
    return missing_rocm_header(error) or missing_system_header(error) or toolchain_limit(err_path, compiler)


def compile_confined(cmd: list[str], timeout: float, env: dict[str, str], cwd: Path, root: Path,
                     includes: Iterable[Path], scratch: str) -> budget.ToolRun:
    """One compile of repository sources, through porter.budget.run_tool: its own process group killed whole, a
    memory cap on the compiler and every child, bounded output, the run's deadline, and (where the kernel has
    Landlock) reads confined to the tree, the include directories named outside it and the toolchain, writes to
    `scratch`. A hostile source's `#embed "/home/ci/.netrc"` then fails to open instead of being quoted back in
    an error located in the tree; where confinement is not available (ToolRun.confined false) the callers show
    errors by place only."""
    root = Path(root).resolve()
    outside = []
    for d in includes:
        real = Path(d).resolve()
        if Path(d).is_absolute() and real != root and root not in real.parents and str(real) not in outside:
            outside.append(str(real))
    return budget.run_tool(cmd, budget.tool_budget(timeout), env=env, cwd=cwd,
                           reads=(str(root), *outside), writes=(scratch,))


def verify(result, out_root: Path, compiler: Compiler, findings: Iterable[Finding] | None = None,
           timeout: float = 300.0, progress: Callable[[int, int], None] | None = None) -> Verification:
    """Compile every translation unit of `result` as written under `out_root` (the output tree or the sources)."""
    findings = list(findings if findings is not None else result.findings)
    # What the output still needs by hand (inline PTX, ...) was found in the output itself: its lines are the output's,
    # so no shift maps them (the scan's findings are the sources' lines, shifted by what translation inserted).
    by_hand = [f for ft in getattr(result, "files", ()) for f in getattr(ft, "by_hand", ())]
    out_root = Path(out_root)
    includes = include_dirs(out_root, result)
    build = getattr(result, "build", None)
    shifts = {ft.path: ft.line_shift for ft in result.files}
    files = []
    units = translation_units(result)
    with tempfile.TemporaryDirectory(prefix="porter-verify-") as tmp:
        for i, ft in enumerate(units, 1):
            src = out_root / ft.path
            obj = Path(tmp) / f"{i}.{'o' if compiler.kind == 'hipcc' else 's'}"
            defines, std, unit_incs = (), None, []
            if build is not None:
                flags = build.flags_for(ft.path)
                defines, std = flags.defines, flags.std
                unit_incs = [Path(d) if Path(d).is_absolute() else out_root / d for d in flags.includes]
            cmd = compiler.command(src, obj, [*unit_incs, *(i for i in includes if i not in unit_incs)], defines, std)
            r = compile_confined(cmd, timeout, compiler.env(tmp), src.parent, out_root, includes, tmp)
            if r.overrun is not None and r.overrun.kind == "time":
                files.append(VerifiedFile(ft.path, "timeout", f"compile timed out after {timeout:g} s", command=tuple(cmd)))
                continue
            if r.returncode == 0:
                files.append(VerifiedFile(ft.path, "compiled", command=tuple(cmd)))
            else:
                err, epath, eline = first_error(r.stderr + r.stdout)
                err = err or (f"compiler stopped: {r.overrun.reason}" if r.overrun else f"exit status {r.returncode}")
                if epath and not _may_quote(src.parent / epath, out_root):
                    # `#include "/home/ci/.netrc"` in a hostile source makes the compiler quote that file in its
                    # first error: say where, never what.
                    err = f"{epath}:{eline}: error in a file outside the translated tree (not shown: it could quote it)"
                elif epath and not r.confined:
                    # `#embed` of an outside file quotes it in an error located in the tree: only a confined
                    # compiler could not have read it.
                    err = f"{epath}:{eline}: error (not shown: the compiler ran unconfined and could quote any file)"
                where = epath and str((src.parent / epath))
                by = tuple(sorted({*predicted_by(err, where, eline, findings, out_root, shifts),
                                   *predicted_by(err, where, eline, by_hand, out_root, {})}))
                shown_path = None
                if epath:
                    try:
                        shown_path = (src.parent / epath).resolve().relative_to(out_root.resolve()).as_posix()
                    except ValueError:
                        shown_path = epath
                env = None if by else environment_of(err, epath and str(src.parent / epath), compiler)
                if env is None:
                    # A header porter could not translate explains an error lines later too, beside a finding at
                    # the error's own line (cg::inclusive_scan used where its header was skipped): both are named.
                    by = tuple(sorted({*by, *untranslated_header(ft.path, shown_path, findings)}))
                files.append(VerifiedFile(ft.path, "failed", err, shown_path, eline, bool(by), by, tuple(cmd),
                                          environment=env))
            if progress:
                progress(i, len(units))
    return Verification(compiler, tuple(files), compiler.note)
