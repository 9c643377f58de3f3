"""Wrap AMD's hipify-perl and hipify-clang: find them, run them per file with a timeout, parse what they print.

Each file is run on its own (hipify-perl's `-o` with several inputs keeps only the last one, and one hang must
not cost the whole tree); runs go in parallel threads. A file whose run times out or crashes is reported
(TRN011) and kept unchanged, and the run goes on. hipify's statistics become the file's converted counts and
its warnings TRN010 findings; then porter's own leftover analysis reads the output, because hipify-perl has no
unconverted count and most of its warnings are noise (measured with https://github.com/ROCm/HIPIFY on NVIDIA/cuda-samples).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from porter.kb import load_kb
from porter.source.parse import parse
from porter.translate.engines.builtin import Classifier, definitions, leftovers, make_finding, sorted_findings

# hipify-perl -print-stats (stderr)
_STAT = re.compile(r"^\s*(CONVERTED refs count|UNCONVERTED refs count|TOTAL lines of code|WARNINGS):\s*(\d+)\s*$")
_BY_NAME = re.compile(r"^\s+(\S+) => (\S*): (\d+)\s*$")
# "  ./a.cu:107: warning: unsupported ROCm HIP identifier: cudaStreamAttrValue"
_PERL_WARNING = re.compile(r"^\s*(?P<path>.+?):(?P<line>\d+): warning: (?P<kind>[^:]+?): (?P<rest>.*)$")
# "warning: ./a.cu:#107 :     cudaStreamAttrValue    x;"  (hipify-perl's generic leftover cuda* scan)
_PERL_LEFTOVER = re.compile(r"^\s*warning: (?P<path>.+?):#(?P<line>\d+) :(?P<rest>.*)$")
# hipify-clang diagnostics: "a.cu:12:5: warning: 'cudaX' is unsupported in 'HIP'."
_CLANG_WARNING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<rest>.*)$")
_QUOTED = re.compile(r"'([^']+)'")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def find_hipify(kind: str) -> tuple[Path | None, str]:
    """(path, where) of hipify-perl or hipify-clang: PATH first, then $ROCM_PATH/bin, then /opt/rocm/bin."""
    found = shutil.which(kind)
    if found:
        return Path(found), "on PATH"
    for base, where in ((os.environ.get("ROCM_PATH"), "in $ROCM_PATH/bin"), ("/opt/rocm", "in /opt/rocm/bin")):
        if base:
            p = Path(base) / "bin" / kind
            if p.is_file() and os.access(p, os.X_OK):
                return p, where
    return None, ""


def check_executable(path: Path) -> Path:
    from porter.translate.model import TranslateError

    p = Path(path).resolve()  # hipify runs with the tree as its working directory: a relative path would miss
    if not p.is_file():
        raise TranslateError(f"--hipify {path}: no such file")
    if not os.access(p, os.X_OK) and p.suffix != ".pl" and "perl" not in p.name:
        raise TranslateError(f"--hipify {path}: not executable")
    return p


def _command(path: Path) -> list[str]:
    """hipify-perl is a Perl script: run it through perl when it is not executable itself."""
    if os.access(path, os.X_OK):
        return [str(path)]
    return ["perl", str(path)]


def make_engine(kind: str, path: Path, note: str = ""):
    return HipifyPerlEngine(path, note) if kind == "hipify-perl" else HipifyClangEngine(path, note)


def parse_perl_stats(text: str) -> dict:
    """hipify-perl's -print-stats text for one file: counts, converted names and warnings."""
    stats: dict = {"counts": {}, "names": [], "warnings": []}
    in_names = False
    for line in text.splitlines():
        m = _STAT.match(line)
        if m:
            stats["counts"][m.group(1)] = int(m.group(2))
            in_names = False
            continue
        if "CONVERTED refs by names:" in line:
            in_names = True
            continue
        if line.startswith("[HIPIFY]"):
            in_names = False
            continue
        if in_names:
            m = _BY_NAME.match(line)
            if m:
                stats["names"].append((m.group(1), m.group(2), int(m.group(3))))
                continue
        m = _PERL_LEFTOVER.match(line)
        if m:
            text_ = m.group("rest").strip()
            ident = next((t for t in _IDENT.findall(text_) if t.startswith(("cuda", "CUDA", "cu"))), text_[:40])
            stats["warnings"].append((int(m.group("line")), "leftover CUDA identifier", ident, text_))
            continue
        m = _PERL_WARNING.match(line)
        if m:
            kind, rest = m.group("kind").strip(), m.group("rest").strip()
            q = re.search(r'\s*"([^"]+)"$', kind)  # unsupported device function "umin": <source line>
            if q:
                kind, name = kind[:q.start()].strip(), q.group(1)
            else:
                name = rest.split()[0].strip('":') if rest else ""
            stats["warnings"].append((int(m.group("line")), kind, name, rest))
    return stats


def parse_clang_stats(text: str) -> dict:
    """hipify-clang's --print-stats text and diagnostics for one file."""
    stats: dict = {"counts": {}, "names": [], "warnings": []}
    section = None
    for line in text.splitlines():
        m = _STAT.match(line)
        if m:
            stats["counts"][m.group(1)] = int(m.group(2))
            continue
        if "refs by names" in line:
            section = "CONVERTED" if "UNCONVERTED" not in line else "UNCONVERTED"
            continue
        if line.startswith("[HIPIFY]"):
            section = None
            continue
        m = _CLANG_WARNING.match(line)
        if m:
            rest = m.group("rest").strip()
            q = _QUOTED.search(rest)
            kind = "unsupported" if "unsupported" in rest else "deprecated" if "deprecated" in rest else \
                "experimental" if "experimental" in rest else "warning"
            stats["warnings"].append((int(m.group("line")), kind, q.group(1) if q else "", rest))
            continue
        if section == "CONVERTED":
            m = re.match(r"^\s+(\S+): (\d+)\s*$", line)
            if m:
                stats["names"].append((m.group(1), "", int(m.group(2))))
    return stats


class _HipifyEngine:
    kind = ""

    def __init__(self, path: Path, note: str = ""):
        from porter.translate.model import EngineInfo

        self.path = Path(path)
        self.info = EngineInfo(self.kind, str(self.path), self._version(), note)

    def _version(self) -> str | None:
        try:
            r = subprocess.run(_command(self.path) + ["--version"], capture_output=True, timeout=30, text=True,
                               errors="replace", stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return None
        text = (r.stdout + r.stderr).strip()
        m = re.search(r"(?:HIP|HIPIFY|version)\D*(\d+\.\d+(?:\.\d+)?)", text)
        return m.group(1) if m else (text.splitlines()[0][:80] if text else None)

    def run_one(self, root: Path, rel: str, data: bytes, timeout: float) -> tuple[bytes | None, str, str | None]:
        """(translated bytes or None, stats text, error)."""
        raise NotImplementedError

    def translate_all(self, root: Path, sources: dict[str, bytes], options, progress: Callable | None = None) -> list:
        from porter.translate.model import FileTranslation

        jobs = options.jobs or os.cpu_count() or 1
        items = list(sources.items())
        results: dict[str, tuple] = {}
        done = 0
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(self.run_one, root, rel, data, options.timeout): rel for rel, data in items}
            for fut, rel in futures.items():
                results[rel] = fut.result()
                done += 1
                if progress:
                    progress(done, len(items))
        kb = load_kb()
        outputs = {rel: (results[rel][0] if results[rel][0] is not None else data) for rel, data in items}
        parsed = {rel: parse(rel, "cuda", out) for rel, out in outputs.items()}
        defined: set[str] = set()
        for sf in parsed.values():
            defined |= definitions(sf)
        classify = Classifier(kb, defined, options.hip_version)
        files = []
        for rel, data in items:
            out, stats_text, error = results[rel]
            sf = parsed[rel]
            w = leftovers(sf, classify)
            stats = self.parse_stats(stats_text)
            warnings = list(w.warnings)
            for line, kind, name, text in stats["warnings"]:
                warnings.append(make_finding("TRN010", rel, line, 1, name or kind, f"{self.kind}: {kind}: {text}",
                                             sf.line_text(line).strip(), data={"hipify_kind": kind}))
            if error:
                warnings.append(make_finding("TRN011", rel, 1, 1, self.kind, f"{self.kind} failed: {error}; file kept unchanged"))
            kinds: Counter[str] = Counter()
            for cuda, _hip, n in stats["names"]:
                kinds["header" if cuda.endswith((".h", ".cuh", ".hpp")) else "api"] += n
            shift = 1 if out is not None and out.startswith(b'#include "hip/hip_runtime.h"\n') \
                and not data.startswith(b'#include "hip/hip_runtime.h"\n') else 0
            status = "failed" if error else ("translated" if outputs[rel] != data else "unchanged")
            files.append(FileTranslation(
                path=rel, status=status, original=data, output=outputs[rel],
                lines=parse(rel, "cuda", data).lines if error else max(sf.lines - shift, 0),
                converted=tuple(sorted(kinds.items())), converted_names=tuple(sorted(stats["names"])),
                unconverted=sorted_findings(w.unconverted), warnings=sorted_findings(warnings),
                error=error, line_shift=shift,
            ))
        return files

    @staticmethod
    def parse_stats(text: str) -> dict:
        return parse_perl_stats(text)


@dataclass(frozen=True)
class Ran:
    """One hipify run that finished: its exit status, its output streams, and whether it ran confined."""

    returncode: int
    stdout: bytes
    stderr: bytes
    confined: bool


def _install_dirs(cmd: list[str]) -> tuple[str, ...]:
    """The directories of hipify's own installation it needs to read and run: where the executable (or the Perl
    script) really is, and the install prefix above a `bin` directory (hipify-clang's clang headers are under
    `../lib`), unless that prefix is the user's home or `/` (a `~/bin/hipify-perl` must not open the whole home)."""
    exe = Path(cmd[1] if cmd[0] == "perl" and len(cmd) > 1 else cmd[0]).resolve()
    dirs = [exe.parent]
    if exe.parent.name == "bin" and exe.parent.parent not in (Path.home().resolve(), Path("/")):
        dirs.append(exe.parent.parent)
    return tuple(str(d) for d in dirs)


def _run(cmd: list[str], cwd: Path, timeout: float, scratch: str | None = None,
         reads: tuple[str, ...] = ()) -> tuple[Ran | None, str | None]:
    """hipify on one repository file through porter.budget.run_tool, the one way porter runs a tool on repository
    content: its process group killed whole at `timeout` or the run's deadline, the tool memory cap on it and every
    child, bounded output, and (Landlock) reads confined to the tree (`cwd`), hipify's installation and the system
    directories, writes to `scratch`. hipify-clang is a compiler front end: unconfined, a hostile file's
    `#include "../../home/ci/.netrc"` made it quote that file in the error porter reports."""
    from porter import budget

    env = {**os.environ, "TMPDIR": scratch} if scratch else None
    r = budget.run_tool(cmd, budget.tool_budget(timeout), env=env, cwd=cwd, reads=(str(cwd), *reads),
                        writes=(scratch,) if scratch else (), tools=_install_dirs(cmd))
    if r.overrun is not None and r.overrun.kind == "time":
        return None, f"timed out after {timeout:g} s"
    if r.overrun is not None or r.returncode is None:
        return None, r.overrun.reason if r.overrun is not None else "stopped"
    return Ran(r.returncode, r.raw_stdout, r.stderr.encode("utf-8"), r.confined), None


# A compiler diagnostic as clang prints it: "path:line:col: error: text" (the column optional).
_DIAGNOSTIC = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+):(?:\d+:)? (?P<kind>fatal error|error|warning|note|remark): ")


def _inside_only(text: str, root: Path, confined: bool) -> str:
    """hipify-clang's diagnostics with what they could quote of a file outside the tree left out, as
    `translate --verify` shows a compiler's errors: a diagnostic located outside the tree is named by place only,
    and so is every diagnostic of an unconfined run (an `#embed` of an outside file is quoted in an error located in
    the tree); the source lines clang quotes under a hidden diagnostic go with it."""
    top = root.resolve()
    out, hiding = [], False
    for line in text.splitlines():
        m = _DIAGNOSTIC.match(line)
        if m:
            where = (root / m.group("path")).resolve()
            place = f"{m.group('path')}:{m.group('line')}: {m.group('kind')}"
            hiding = True
            if where != top and top not in where.parents:
                line = f"{place} in a file outside the tree (not shown: it could quote it)"
            elif not confined:
                line = f"{place} (not shown: hipify-clang ran unconfined and could quote any file)"
            else:
                hiding = False
        elif line.startswith("[HIPIFY]"):
            hiding = False
        elif hiding:
            continue
        out.append(line)
    return "\n".join(out)


class HipifyPerlEngine(_HipifyEngine):
    kind = "hipify-perl"

    def run_one(self, root, rel, data, timeout):
        # Translated code goes to stdout, statistics and warnings to stderr; the source is read, never written.
        # After `--` (Getopt::Long's end of options) a repository file named `-inplace.cu` is a file, not an option.
        done, error = _run(_command(self.path) + ["-print-stats", "--", rel], root, timeout)
        if done is None:
            return None, "", error
        stderr = done.stderr.decode("utf-8", "replace")
        if done.returncode != 0:
            last = next((l for l in reversed(stderr.strip().splitlines()) if l.strip()), "")
            return None, stderr, f"exit status {done.returncode}" + (f": {last[:200]}" if last else "")
        if not done.stdout and data:
            return None, stderr, "no output"
        return done.stdout, stderr, None


class HipifyClangEngine(_HipifyEngine):
    kind = "hipify-clang"

    def run_one(self, root, rel, data, timeout):
        with tempfile.TemporaryDirectory(prefix="porter-hipify-") as tmp:
            out_path = Path(tmp) / Path(rel).name
            # `./` first: LLVM's option parser expands `@FILE` anywhere in argv (a root-level `@args.cu` would
            # read another repository file as options) and takes a name starting with `-` as an option.
            cmd = [str(self.path), f"./{rel}", "-o", str(out_path), "--print-stats"]
            cuda = _cuda_path()
            if cuda:
                cmd.append(f"--cuda-path={cuda}")
            parent = str((root / rel).parent)
            cmd += ["--", "-std=c++17", "-I", parent, "-I", str(root)]
            done, error = _run(cmd, root, timeout, tmp, (cuda,) if cuda else ())
            if done is None:
                return None, "", error
            text = _inside_only(done.stdout.decode("utf-8", "replace") + "\n" + done.stderr.decode("utf-8", "replace"),
                                root, done.confined)
            if done.returncode != 0 or not out_path.is_file():
                first = next((l for l in text.splitlines() if "error" in l), text.strip()[:200])
                return None, text, f"exit status {done.returncode}: {first[:200]}"
            return out_path.read_bytes(), text, None

    @staticmethod
    def parse_stats(text: str) -> dict:
        return parse_clang_stats(text)


def _cuda_path() -> str | None:
    for var in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(var):
            return os.environ[var]
    nvcc = shutil.which("nvcc")
    if nvcc:
        return str(Path(nvcc).resolve().parent.parent)
    return None
