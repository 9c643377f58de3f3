"""Where a project's headers are and what flags each unit compiles with: -I/-D/--std, compile_commands.json, CMake.

Translation asks it which `#include` names a project file (those are translated with the project, never mapped to a
HIP header) and which file that is (the include graph scopes the project's own definitions); verification asks it
for each unit's include directories, macros and language standard. Sources, most specific first: a compilation
database (`-p BUILD_DIR` or `--compile-commands FILE`, the clang tooling convention; cmake writes one with
`-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`), the `-I`/`-D`/`--std` given on the command line, and without a database the
`include_directories` / `target_include_directories` of the CMakeLists.txt above each file.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from porter import contain
from porter.source.buildsources import cmake_commands
from porter.translate.model import TranslateError

MAX_CMAKE_BYTES = 8 * 1024 * 1024  # a CMakeLists.txt read for include directories (the scan's file limit)
MAX_DB_BYTES = 64 * 1024 * 1024
# The command's name and `(`; its arguments run to the next `)` (found with str.find: a regex `\(([^)]*)\)` retried
# from every later `include_directories(` when none closes was quadratic, 60000 lines > 120 s).
_CMAKE_INCLUDE = re.compile(r"(?is)\b(target_include_directories|include_directories)\s*\(")
_CMAKE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}
_STD = re.compile(r"^(?:c|gnu)\+\+(?:98|03|11|14|17|20|2a|23|2b|26|2c)$")


@dataclass(frozen=True)
class UnitFlags:
    """What one translation unit compiles with (paths as given: absolute or relative to the project root)."""

    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    std: str | None = None


@dataclass(frozen=True)
class BuildInfo:
    root: Path
    includes: tuple[str, ...] = ()  # -I, as given (relative ones are relative to the root)
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE
    std: str | None = None
    units: dict[str, UnitFlags] = field(default_factory=dict)  # from the compilation database, by path under root
    cmake: dict[str, tuple[str, ...]] = field(default_factory=dict)  # directory -> include dirs its CMakeLists adds
    database: str | None = None  # the compile_commands.json read, if any

    def include_dirs(self, rel: str) -> list[str]:
        """Project-relative (or absolute, outside the tree) include directories for a file, in search order."""
        unit = self.units.get(rel)
        out = [*(unit.includes if unit else ()), *self.includes]
        if not self.units:
            d = PurePosixPath(rel).parent
            chain = [d, *d.parents]
            for p in chain:
                out.extend(self.cmake.get(p.as_posix() if str(p) != "." else "", ()))
        seen, dirs = set(), []
        for x in out:
            if x not in seen:
                seen.add(x)
                dirs.append(x)
        return dirs

    def resolve(self, rel: str, target: str, quoted: bool) -> str | None:
        """The project file an `#include` names, relative to the root, or None (a system or CUDA header)."""
        root = self.root
        bases: list[Path] = []
        if quoted:
            bases.append((root / rel).parent)
        for d in self.include_dirs(rel):
            bases.append(Path(d) if Path(d).is_absolute() else root / d)
        bases.append(root)
        for base in bases:
            cand = base / target
            try:
                if cand.is_file():
                    real = cand.resolve()
                    if real.is_relative_to(root):
                        return real.relative_to(root).as_posix()
            except (OSError, ValueError):
                continue
        return None

    def flags_for(self, rel: str) -> UnitFlags:
        unit = self.units.get(rel)
        defines = [*(unit.defines if unit else ()), *self.defines]
        return UnitFlags(tuple(self.include_dirs(rel)), tuple(dict.fromkeys(defines)), self.std or (unit.std if unit else None))

    def to_dict(self) -> dict:
        return {"includes": list(self.includes), "defines": list(self.defines), "std": self.std,
                "compile_commands": self.database, "units_in_database": len(self.units),
                "cmake_include_dirs": {k or ".": list(v) for k, v in sorted(self.cmake.items())}}


def check_define(text: str) -> str:
    name = text.split("=", 1)[0]
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise TranslateError(f"-D {text!r}: want NAME or NAME=VALUE")
    return text


def check_std(text: str) -> str:
    if not _STD.match(text):
        raise TranslateError(f"--std {text!r}: want a C++ standard such as c++17 or gnu++20")
    return text


def _flags(args: list[str], directory: Path, root: Path) -> UnitFlags:
    incs, defs, std = [], [], None
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("-I", "-isystem", "-iquote", "--include-directory") and nxt is not None:
            incs.append(nxt)
            i += 2
            continue
        if a.startswith("-I") and len(a) > 2:
            incs.append(a[2:])
        elif a.startswith("-isystem") and len(a) > 8:
            incs.append(a[8:])
        elif a == "-D" and nxt is not None:
            defs.append(nxt)
            i += 2
            continue
        elif a.startswith("-D") and len(a) > 2:
            defs.append(a[2:])
        elif a.startswith(("-std=", "--std=")):
            std = a.split("=", 1)[1]
        i += 1
    shown = []
    for inc in incs:
        p = (directory / inc).resolve() if not Path(inc).is_absolute() else Path(inc)
        try:
            shown.append(p.relative_to(root).as_posix() or ".")
        except ValueError:
            shown.append(str(p))
    return UnitFlags(tuple(shown), tuple(defs), std)


def read_database(path: Path, root: Path) -> dict[str, UnitFlags]:
    """Per-file flags from a compile_commands.json, for the files under `root`."""
    path = Path(path)
    if path.is_dir():
        path = path / "compile_commands.json"
    try:
        # Bounded, regular files only (it may sit in the repository: `-p .`); a FIFO must not hang translate.
        entries = json.loads(contain.read_bytes(path, MAX_DB_BYTES).decode("utf-8"))
    except contain.Unreadable as e:
        raise TranslateError(f"{path}: cannot read the compilation database: {e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise TranslateError(f"{path}: not a JSON compilation database: {e}") from None
    except RecursionError:
        raise TranslateError(f"{path}: not a JSON compilation database: nested too deeply") from None
    if not isinstance(entries, list):
        raise TranslateError(f"{path}: a compilation database is a JSON list of entries")
    units: dict[str, UnitFlags] = {}
    for n, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("file"), str) or not isinstance(e.get("directory"), str):
            raise TranslateError(f"{path}: entry {n} needs string 'directory' and 'file'")
        if isinstance(e.get("arguments"), list) and all(isinstance(a, str) for a in e["arguments"]):
            args = e["arguments"]
        elif isinstance(e.get("command"), str):
            try:
                args = shlex.split(e["command"])
            except ValueError as err:
                raise TranslateError(f"{path}: entry {n}: command does not parse: {err}") from None
        else:
            raise TranslateError(f"{path}: entry {n} needs 'arguments' (list) or 'command' (string)")
        directory = Path(e["directory"])
        f = Path(e["file"]) if Path(e["file"]).is_absolute() else directory / e["file"]
        try:
            rel = f.resolve().relative_to(root).as_posix()
        except (ValueError, OSError):
            continue
        units[rel] = _flags(args[1:], directory, root)
    return units


def cmake_include_dirs(root: Path, files: list[str]) -> dict[str, tuple[str, ...]]:
    """Directory -> the include directories its CMakeLists.txt adds (include_directories and
    target_include_directories; `${CMAKE_CURRENT_SOURCE_DIR}`/`${PROJECT_SOURCE_DIR}` resolved, other variables and
    generator expressions skipped)."""
    out: dict[str, tuple[str, ...]] = {}
    for rel in files:
        if PurePosixPath(rel).name != "CMakeLists.txt":
            continue
        try:
            data = contain.read_bytes(root / rel, MAX_CMAKE_BYTES, root=root)
        except contain.Unreadable:
            continue
        here = PurePosixPath(rel).parent
        dirs: list[str] = []
        for name, arguments in cmake_commands(_CMAKE_INCLUDE, data.decode("utf-8", "replace")):
            words = arguments.split()
            if name == "target_include_directories":
                words = words[1:]  # the target
            for w in words:
                w = w.strip('"')
                if w.upper() in _CMAKE_KEYWORDS or "$<" in w:
                    continue
                w = w.replace("${CMAKE_CURRENT_SOURCE_DIR}", "").replace("${CMAKE_CURRENT_LIST_DIR}", "")
                w = w.replace("${PROJECT_SOURCE_DIR}", "").replace("${CMAKE_SOURCE_DIR}", "").lstrip("/")
                if "${" in w or Path(w).is_absolute():
                    continue
                p = (root / here / w).resolve()
                try:
                    d = p.relative_to(root).as_posix()
                except ValueError:
                    continue
                if p.is_dir():
                    dirs.append(d if d != "." else ".")
        if dirs:
            out["" if str(here) == "." else here.as_posix()] = tuple(dict.fromkeys(dirs))
    return out


def build_info(root: Path, files: list[str], includes=(), defines=(), std: str | None = None,
               database: Path | None = None) -> BuildInfo:
    """The build information for a tree: command-line flags, a database if given, else CMake include dirs."""
    root = Path(root).resolve()
    defs = tuple(check_define(d) for d in defines)
    if std is not None:
        check_std(std)
    incs = []
    for i in includes:
        p = Path(i).expanduser()
        if not p.is_absolute():
            p = (Path.cwd() / p)
        p = p.resolve()
        if not p.is_dir():
            raise TranslateError(f"-I {i}: not a directory")
        incs.append(p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p))
    units = read_database(database, root) if database is not None else {}
    cmake = {} if units else cmake_include_dirs(root, files)
    return BuildInfo(root, tuple(incs), defs, std, units, cmake, str(database) if database is not None else None)
