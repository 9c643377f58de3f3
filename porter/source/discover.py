"""Decide which files a scan reads and in which language: git-aware, .gitignore-honouring, never leaving the root.

In a git work tree the candidates are the tracked files plus the untracked ones git does not ignore (what a
reviewer sees); elsewhere a plain walk that honours .gitignore files. Symlinks are never followed out of the
scanned root, and a symlink that loops or dangles is reported, not followed.
"""
from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from porter.contain import Unreadable, read_bytes
from porter.errors import UsageError
from porter.model import Skipped
from porter.source import git

if TYPE_CHECKING:  # imported where a glob or .gitignore is compiled: most scans have neither (~5 ms of start-up)
    import pathspec

# Directories that hold build outputs, environments or vendored caches rather than a project's own sources.
SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", "CMakeFiles", "cmake-build-debug", "cmake-build-release", "build", "dist",
        ".eggs", "site-packages", ".porter-cache",
    }
)

# C/C++/CUDA header suffixes (files included, not compiled on their own): one list for port-awareness's compat
# headers and translate's compile check.
HEADER_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inc", ".inl", ".ipp", ".tcc", ".tpp", ".txx"})
# Suffixes of files compiled as translation units: a macro one defines reaches no other file (a header's may reach
# every file that includes it).
UNIT_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")

_EXT_LANG = {
    ".cu": "cuda", ".cuh": "cuda", ".hip": "cuda",
    ".cuda": "cuda",  # a kernel source a Python module hands to cupy.RawModule / NVRTC at run time
    ".c": "cuda", ".cc": "cuda", ".cpp": "cuda", ".cxx": "cuda", ".c++": "cuda", ".h": "cuda", ".hh": "cuda",
    ".hpp": "cuda", ".hxx": "cuda", ".inl": "cuda", ".ipp": "cuda", ".tcc": "cuda", ".inc": "cuda",
    ".tpp": "cuda", ".txx": "cuda",  # template implementations a header #includes: nvcc compiles what they hold
    ".py": "python", ".pyi": "python", ".pyx": "python",
    ".cmake": "cmake",
    ".mk": "make", ".mak": "make",
    ".bzl": "bazel", ".bazel": "bazel",
    ".sh": "shell", ".bash": "shell",
    ".json": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".pbtxt": "text", ".cfg": "text", ".ini": "text",
    ".cubin": "binary", ".fatbin": "binary", ".ptx": "text", ".so": "binary", ".a": "binary", ".o": "binary",
    ".engine": "binary", ".plan": "binary", ".trt": "binary", ".whl": "binary", ".safetensors": "binary",
}
# A CUDA source kept as a template that a build step renders before nvcc compiles it (`k.cu.jinja`, `k.cuh.tmpl`,
# `k.cu.in` with or without a configure_file): read as the CUDA it is. The templating marks (`{{ T }}`, `${n}`,
# `@VAR@`, `{% for %}` lines) are a few tokens the C++ parser recovers from; every CUDA name the template writes is
# one the rendered file holds. Only a CUDA inner suffix: `config.h.in` and other C/C++ templates stay unread.
_TEMPLATE_SUFFIXES = frozenset({".in", ".j2", ".jinja", ".jinja2", ".mako", ".tmpl", ".tpl", ".template", ".mustache"})
_TEMPLATED_CUDA = frozenset({".cu", ".cuh"})

# Sources of a GPU language porter has no reader for, by suffix: listed as skipped with a reason
# model.finding.UNSEEN_REASONS counts, so a gate under --isolated fails rather than pass them unread.
CUDA_FORTRAN = "CUDA Fortran source: porter does not read Fortran, so its kernels and CUDA calls are not checked"
_UNREAD_GPU_SUFFIXES = {".cuf": CUDA_FORTRAN}

_NAME_LANG = {
    "CMakeLists.txt": "cmake",
    "Makefile": "make", "makefile": "make", "GNUmakefile": "make",
    "Makefile.am": "make",  # Automake's input: make rules (nvcc recipes too) under Automake conditionals
    "meson.build": "meson", "meson_options.txt": "meson", "meson.options": "meson",  # Meson's build definitions
    "BUILD": "bazel", "WORKSPACE": "bazel", "MODULE.bazel": "bazel",
    "Dockerfile": "dockerfile", "Containerfile": "dockerfile",
    "setup.py": "python",
}


def language_of(path: str) -> str | None:
    """The language porter parses a file as, from its name; None for files porter has no rules for."""
    name = path.rpartition("/")[2]  # PurePosixPath's name and suffix, as string steps (a listing asks per file)
    if name in _NAME_LANG:
        return _NAME_LANG[name]
    if name.startswith("Dockerfile") or name.endswith(".Dockerfile") or name.endswith(".dockerfile"):
        return "dockerfile"
    if name.startswith(("requirements", "constraints")) and name.endswith(".txt") \
            or name.endswith(".in") and name.startswith("requirements"):  # requirements*.txt, constraints*.txt
        return "requirements"
    if ".so." in name:  # versioned shared libraries: libfoo.so.12
        return "binary"
    dot = name.rfind(".")
    if not 0 < dot < len(name) - 1:
        return None
    suffix = name[dot:].lower()
    if suffix in _TEMPLATE_SUFFIXES:
        inner = name.rfind(".", 0, dot)
        if 0 < inner and name[inner:dot].lower() in _TEMPLATED_CUDA:
            return "cuda"
    lang = _EXT_LANG.get(suffix)
    # `Makefile.inc` is the fragment a Makefile includes (`include Makefile.inc`: its toolchain and flag variables,
    # peasoup's `CUDA_VERSION ?= $(shell $(NVCC) --version ...)`), not a C/C++ file an `#include` names.
    if lang == "cuda" and name.startswith(_MAKEFILE_STEMS):
        return "make"
    return lang


_MAKEFILE_STEMS = ("Makefile.", "makefile.", "GNUmakefile.")


def unread_reason(path: str) -> str | None:
    """Why a file porter has no language for is still listed (skipped, unseen): a GPU source of a language porter does
    not read (CUDA Fortran's `.cuf`); None for the files porter leaves out on purpose (docs, data, other languages)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return _UNREAD_GPU_SUFFIXES.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None


@dataclass(frozen=True)
class Candidate:
    """A file the scan will read: its path relative to the root, where it is (on disk, or its path in the git
    tree), its language, and for a file read from git objects its blob id and size."""

    path: str
    abspath: Path
    language: str
    blob: str | None = None
    size: int | None = None
    # A symlink in a git tree read as the file it leads to: that file's path as shown (porter.source.read.GitTree), so
    # a change to the target alone still has the link scanned (pipeline.scan_files with `only`).
    target: str | None = None


@dataclass(frozen=True)
class Discovery:
    root: Path
    files: tuple[Candidate, ...]
    skipped: tuple[Skipped, ...]
    is_git: bool


class DiscoveryError(UsageError):
    """The scan root itself cannot be scanned (missing, unreadable); a usage error, not a finding."""


def discover(root: Path, include: list[str] | None = None, exclude: list[str] | None = None) -> Discovery:
    """List the files under `root` (a directory or one file) that porter should scan, sorted by path."""
    root = Path(root)
    if not root.exists() and not root.is_symlink():
        raise DiscoveryError(f"{root}: no such file or directory")
    if root.is_file():
        lang = language_of(root.name)
        if lang is None:
            # A single file named explicitly is scanned even with an unknown extension, as C/C++/CUDA.
            lang = "cuda"
        return Discovery(root.parent.resolve(), (Candidate(root.name, root.resolve(), lang),), (), False)
    if not root.is_dir():
        raise DiscoveryError(f"{root}: not a regular file or directory")
    if not os.access(root, os.R_OK | os.X_OK):
        raise DiscoveryError(f"{root}: permission denied")
    real_root = root.resolve()
    entries, skipped, is_git = tree_entries(real_root, include, exclude)
    files: list[Candidate] = []
    more = 0  # files past MAX_FILES
    directories: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    entries.sort()
    for i, (rel, raw) in enumerate(entries):  # in path order: which alias of a file is scanned must not depend on the listing
        abspath = real_root / raw
        if is_git and abspath.is_dir() and not abspath.is_symlink():
            skipped.append(Skipped(rel, "git submodule or nested repository: scan it separately"))
            continue
        lang = language_of(rel)
        if lang is None:
            if (why := unread_reason(rel)) is not None:
                skipped.append(Skipped(rel, why))
            continue
        problem = link_problem(abspath, real_root, directories, aliases, rel)
        if problem:
            skipped.append(Skipped(rel, problem))
            continue
        if len(files) >= MAX_FILES:
            more = len(entries) - i  # what is left of the listing is not looked at (a stat each)
            break
        files.append(Candidate(rel, abspath, lang))
    if more:
        skipped.append(files_not_kept(more, files[-1].path))
    files.sort(key=lambda c: c.path)
    skipped.sort()
    return Discovery(real_root, tuple(files), tuple(skipped), is_git)


# The most files one discovery keeps (a work tree's or a git tree's, GitTree.discover too). A 90 KB object set can
# hold a tree listing a million paths that share one blob: each kept Candidate costs the parent ~0.5 KiB and every
# later stage more (30,000 such `.cu` paths: 345 MiB and 133 s; 100,000: ~1 GiB). Past it the files are not kept,
# and one skip says how many (model.finding.UNSEEN_REASONS: a gate fails rather than pass them unread).
MAX_FILES = 50_000
NOT_KEPT_FILES = "not kept: past "


def files_not_kept(more: int, last: str) -> Skipped:
    """The one skip for the `more` files a discovery did not keep, named after the last file it kept."""
    return Skipped(last, f"{NOT_KEPT_FILES}{MAX_FILES:,} files to scan (porter keeps at most {MAX_FILES:,} a "
                         f"discovery): the {more:,} entries after this one, in path order, are not read")


def tree_entries(root: Path, include: list[str] | None = None, exclude: list[str] | None = None
                 ) -> tuple[list[tuple[str, str]], list[Skipped], bool]:
    """Every entry under a directory that a run considers, whatever its language, as (path as shown, path on disk
    relative to root); plus what was skipped and whether git decided. In a git work tree git decides what is
    source (tracked plus untracked-not-ignored); a plain walk honours .gitignore and leaves out SKIP_DIRS."""
    skipped: list[Skipped] = []
    listed = _git_files(root, skipped)
    is_git = listed is not None
    if listed is None:
        listed = _walk_files(root, skipped)
    entries = []
    for raw in listed:
        rel = shown_path(raw)
        if selected(rel, include, exclude):
            entries.append((rel, raw))
    return entries, skipped, is_git


def shown_path(raw: str) -> str:
    """A file's path as results show it and every stage names it (findings, Held, caches, baselines), one-to-one:
    a name that is not valid UTF-8 shows its bytes as \\xNN escapes, and a name holding an escape's character
    (`\\`) has it doubled, so `a<0xff>.cu` shows as `a\\xff.cu` and a file literally named `a\\xff.cu` as
    `a\\\\xff.cu`. Without the doubling both showed alike: a scan keyed by the name read one file twice and never
    read the other. Every other name (valid UTF-8, no backslash) is shown as it is. on_disk() is the inverse."""
    return printable(raw.replace("\\", "\\\\"))


_SHOWN_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def on_disk(shown: str) -> str:
    """The name on disk (os.fsdecode's form) of a path shown_path() shows: what re-opens a file named in a result."""
    if "\\" not in shown:
        return shown
    return _SHOWN_ESCAPE.sub(lambda m: "\\" if m.group(1) == "\\" else chr(0xDC00 + int(m.group(1)[1:], 16)), shown)


def printable(rel: str) -> str:
    """Text as results show it: what is not valid UTF-8 (a file name's bytes) keeps its bytes as \\xNN escapes. A
    path a result names goes through shown_path, which also keeps names apart that would show alike here."""
    try:
        rel.encode("utf-8")
        return rel
    except UnicodeEncodeError:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def selected(rel: str, include: list[str] | None, exclude: list[str] | None) -> bool:
    if include and not compiled_globs(tuple(include)).match_file(rel):
        return False
    if exclude and compiled_globs(tuple(exclude)).match_file(rel):
        return False
    return True


@functools.lru_cache(maxsize=64)
def compiled_globs(patterns: tuple[str, ...]) -> pathspec.PathSpec | _AnyOf:
    """gitignore-style globs (`*.cu`, `src/**`, `third_party/`, plain names), any of which selects a path: compiled
    once per list, never per file. Each glob is its own pattern, so a `!name` among them negates nothing (as a
    list of separate globs)."""
    import pathspec

    return _linear_spec(pathspec.PathSpec, [p for g in patterns if not g.startswith("!") and len(g) <= MAX_GLOB_CHARS
                                            for p in pathspec.GitIgnoreSpec.from_lines([g], backend="simple").patterns])


def gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """A .gitignore's lines as a spec that matches in linear time, whatever the repository wrote there."""
    import pathspec

    kept = [line for line in lines if len(line) <= MAX_GLOB_CHARS]
    return _linear_spec(pathspec.GitIgnoreSpec, list(pathspec.GitIgnoreSpec.from_lines(kept, backend="simple").patterns))


# pathspec's RE2 backend matches every glob of a list in one linear-time pass, as one RE2::Set. But a set of many
# globs can fail to compile ("failed to compile Set": 1,800 globs like `*n123*.cu` pass RE2's memory budget, where
# 3,000 `dir123/**` do not), and past ~30,000 globs RE2 floods stderr with its own log lines while it tries (a 1 MiB
# .gitignore: 57,000 lines). So a list past RE2_SET_MAX_PATTERNS is not tried as one set, and a list whose set fails
# is matched by RE2 still, as several smaller sets (halved until each compiles): an exclude/include list (any glob
# selects) takes any set's match, a .gitignore (the last matching line decides, a file pattern outranks a directory
# one) pools every set's matches and decides as pathspec's one set would (_GitIgnoreSets). Matching one glob at a
# time instead costs each file a pass over every glob (0.3 s a file for a 1 MiB .gitignore), and pathspec's default
# backend (Python's re) is no fallback: `*a*a*a*a*a*a*a*a*b` backtracks polynomially (4 s on a 40-character name).
RE2_SET_MAX_PATTERNS = 10_000
RE2_CHUNK = 500  # globs per set when a list is split
# A glob longer than any path can be (PATH_MAX) is dropped: RE2 logs while simplifying a huge regex.
MAX_GLOB_CHARS = 4096
# The .gitignore lines a plain walk applies, over all the .gitignore files of the tree: compiling costs ~0.2 ms a
# glob (a 1 MiB .gitignore of 57,000 globs took 20-50 s before this bound), so past it a .gitignore is applied only
# up to the bound and the scan lists it under `skipped` saying so. Real ones are far below it (CPython's tree: ~200).
MAX_GITIGNORE_PATTERNS = 5_000


class _AnyOf:
    """Several specs, any of which selects a path (an include/exclude list split into sets RE2 can compile)."""

    def __init__(self, specs: list):
        self.specs = specs

    def match_file(self, path: str) -> bool:
        return any(s.match_file(path) for s in self.specs)


def _re2_set(cls: type, patterns: list):
    try:
        return cls(patterns, backend="re2")
    except Exception:  # noqa: BLE001 - re2's Set raises a bare Error (or MemoryError) when it cannot compile
        return None


def _linear_spec(cls: type, patterns: list):
    if GLOB_BACKEND != "re2":  # pragma: no cover - google-re2 is a dependency
        return cls(patterns)
    if len(patterns) <= RE2_SET_MAX_PATTERNS and (spec := _re2_set(cls, patterns)) is not None:
        return spec
    import pathspec

    if cls is pathspec.PathSpec:  # any glob selects: sets of RE2_CHUNK, halved until each compiles
        specs, todo = [], [patterns[i:i + RE2_CHUNK] for i in range(0, len(patterns), RE2_CHUNK)]
        while todo:
            part = todo.pop()
            spec = _re2_set(cls, part) if len(part) > 1 else None
            if spec is not None:
                specs.append(spec)
            elif len(part) > 1:
                todo += [part[:len(part) // 2], part[len(part) // 2:]]
            else:
                specs.append(_one_by_one(cls, part))
        return _AnyOf(specs)
    try:
        return _GitIgnoreSets(patterns)
    except ImportError:  # pragma: no cover - a pathspec without its RE2 backend's internals: one glob at a time
        return _one_by_one(cls, patterns)


class _GitIgnoreSets:
    """A .gitignore's globs as several RE2 sets that decide together exactly as pathspec's one RE2 set does: every
    set's matches are pooled, and the last matching glob wins, a file glob outranking a directory glob unless the
    directory glob includes (pathspec's Re2GiBackend.match_file). Linear in the path, whatever the globs."""

    def __init__(self, patterns: list):
        import re2
        from pathspec._backends.re2._base import RE2_OPTIONS
        from pathspec._backends.re2.gitignore import Re2GiBackend
        from pathspec.util import normalize_file

        self._normalize = normalize_file
        indexed = {i: p for i, p in enumerate(patterns) if p.include is not None}
        order = sorted(indexed)
        self.sets: list[tuple[object, list]] = []
        todo = [order[i:i + RE2_CHUNK] for i in range(0, len(order), RE2_CHUNK)]
        while todo:
            part = todo.pop()
            regex_set = re2.Set.SearchSet(RE2_OPTIONS)
            try:
                data = Re2GiBackend._init_set(False, {i: indexed[i] for i in part}, regex_set, None)
            except Exception:  # noqa: BLE001 - re2's Set raises a bare Error (or MemoryError) when it cannot compile
                if len(part) > 1:
                    todo += [part[:len(part) // 2], part[len(part) // 2:]]
                continue  # one glob RE2 cannot take is dropped, never matched by Python's re
            self.sets.append((regex_set, data))

    def match_file(self, path: str) -> bool:
        file = self._normalize(path)
        include, index, priority = None, -1, -1
        for regex_set, data in self.sets:
            for i in regex_set.Match(file) or ():
                d = data[i]
                p = 1 if d.is_dir_pattern else 2
                if (d.include and d.is_dir_pattern and d.index > index) or (p == priority and d.index > index) \
                        or p > priority:
                    include, index, priority = d.include, d.index, p
        return bool(include)


def _one_by_one(cls: type, patterns: list):
    """pathspec's own backend, each glob's regex compiled by RE2 (never matched by Python's re)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    kept = []
    for p in patterns:
        if p.regex is not None:
            try:
                p.regex = re2.compile(p.regex.pattern, options)
            except Exception:  # noqa: BLE001 - a glob RE2 cannot take is dropped, never matched by Python's re
                continue
        kept.append(p)
    return cls(kept, backend="simple")


try:
    import re2 as _re2  # noqa: F401 - only whether it is there

    GLOB_BACKEND = "re2"
except ImportError:  # pragma: no cover
    GLOB_BACKEND = None
# A .gitignore is read bounded, like every other file porter reads.
MAX_GITIGNORE_BYTES = 1024 * 1024


def link_problem(abspath: Path, real_root: Path, directories: dict[str, str] | None = None,
                 aliases: dict[str, list[str]] | None = None, shown: str = "") -> str | None:
    """Why a listed path must not be read, or None: it must be a regular file whose real location, with every
    directory on the way resolved (git may list `inc/x.cu` after `inc` became a symlink), is inside the root.
    `directories`: the real location of each directory resolved so far, for a listing whose files share them
    (resolving each file's whole path again, through pathlib, was most of listing a large tree).

    A symlink to a file inside the root is an alias the build compiles under the link's name (`GPU/k.cu ->
    ../CPU/k.cpp` is CUDA to nvcc), so it is scanned as a file of its own, in the language its name gives, under the
    same size and time limits as any file. `aliases` (real location -> the aliases scanned so far): at most
    MAX_ALIASES per file are scanned (another_alias), so 10,000 links to one large file are not 10,000 reads of it."""
    try:
        st = os.lstat(abspath)
    except OSError as e:
        return f"cannot stat: {e.strerror}"
    if directories is not None and not stat.S_ISLNK(st.st_mode):
        # Not a link itself: its real location is its directory's, which is resolved once per directory.
        parent = os.path.dirname(os.fspath(abspath))
        real = directories.get(parent)
        if real is None:
            try:
                real = directories[parent] = os.path.realpath(parent, strict=True)
            except OSError:
                return "dangling symlink"
        root = os.fspath(real_root)
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            return "a directory on its path is a symlink leading outside the scanned root"
        return None if stat.S_ISREG(st.st_mode) else "not a regular file"
    try:
        target = abspath.resolve(strict=True)
    except RuntimeError:
        return "symlink loop"
    except OSError:
        return "dangling symlink"
    if not target.is_relative_to(real_root):
        if not stat.S_ISLNK(st.st_mode):
            return "a directory on its path is a symlink leading outside the scanned root"
        return "symlink points outside the scanned root"
    if not stat.S_ISLNK(st.st_mode):
        return None if stat.S_ISREG(st.st_mode) else "not a regular file"
    if not target.is_file():
        return "symlink to a non-file"
    return None if aliases is None else another_alias(aliases, os.fspath(target), shown)


# How many symlinks to one file are scanned, each under its own name. Real trees alias a shared source a few times (a
# CPU/GPU twin's `.cu` link; one link per framework binding: pytorch_binding/core.cu, tensorflow_binding/core.cu),
# and a judge reads each alias as the file its build compiles. A link costs a repository nothing where a copy costs
# its bytes, so past this bound 10,000 links to one 8 MiB file are not 10,000 reads and parses of it.
MAX_ALIASES = 8


def another_alias(aliases: dict[str, list[str]], target: str, shown: str) -> str | None:
    """The skip reason for the symlink `shown` to the file `target` when MAX_ALIASES other symlinks to it are scanned
    already (`aliases`: each target's aliases scanned so far, filled here), else None: the one bound on aliases, for
    a work tree's listing, a commit's tree (porter.source.read.GitTree) and a history walk's trees alike."""
    seen = aliases.setdefault(target, [])
    if len(seen) < MAX_ALIASES:
        seen.append(shown)
        return None
    return (f"more than {MAX_ALIASES} symlinks lead to the same file; the first {MAX_ALIASES} are scanned "
            f"({seen[0]} ...)")


def _git_files(root: Path, skipped: list[Skipped]) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files, or None when root is not inside a git work tree (or git
    itself ignores root: a vendored project under an ignored directory is scanned as a plain tree). When the
    repository is refused or git fails, the walk that replaces it is noted in `skipped` as `.git`, with why."""
    if not inside_git(root):
        return None
    try:
        if git.repository_top(root) is None:
            return None
        # Run from `root`, ls-files lists paths relative to it, even when root is a subdirectory of the work tree.
        out = git.run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        if not out:
            if git.succeeds(root, "check-ignore", "-q", "."):
                return None  # git ignores the scanned directory itself
    except git.GitError as e:
        # A foreign or broken repository: the files on disk are walked instead, and the report says so.
        skipped.append(Skipped(".git", f"git not used ({e}); the files on disk were walked instead"))
        return None
    names = sorted({os.fsdecode(n) for n in out.split(b"\0") if n})
    # ls-files lists deleted-but-tracked paths too; only what is on disk can be scanned.
    return [n for n in names if os.path.lexists(root / n)]


def inside_git(root: Path) -> bool:
    """Whether `root` or a directory above it holds a .git (a work tree or a worktree's .git file)."""
    for d in (root, *root.parents):
        if (d / ".git").exists():
            return True
    return False


# Directories deeper than this are listed as skipped, not entered: no real source tree comes near it, and a planted
# chain of thousands of nested directories would otherwise cost a path per level per file (and, walked recursively,
# overflow the stack).
MAX_DEPTH = 256


def _walk_files(root: Path, skipped: list[Skipped]) -> list[str]:
    """A plain walk honouring every .gitignore on the way down; directory symlinks are listed, never entered.
    Iterative (an explicit stack, depth-first in name order), so depth costs no Python stack."""
    out: list[str] = []
    specs: list[tuple[str, pathspec.PathSpec]] = []
    real_root = os.path.realpath(root)
    globs_left = MAX_GITIGNORE_PATTERNS
    # (directory relative to root, depth, len(specs) above it, whether a .gitignore above ignores it)
    stack: list[tuple[str, int, int, bool]] = [("", 0, 0, False)]
    ignored_dirs: list[str] = []
    while stack:
        rel_dir, depth, n_specs, dir_ignored = stack.pop()
        del specs[n_specs:]  # the .gitignore files of directories the walk has left no longer apply
        dirpath = os.path.join(root, rel_dir) if rel_dir else str(root)
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(((e.name, e.is_dir(follow_symlinks=False), e.is_symlink()) for e in it))
        except OSError as e:
            skipped.append(Skipped(rel_dir, f"cannot read directory: {e.strerror}"))
            continue
        if any(name == ".gitignore" for name, _, _ in entries):
            try:
                # Through the containment reader: a .gitignore that is a symlink out of the tree (or a FIFO) must
                # not be applied, or the scan would tell which file names appear in an outside file.
                data = read_bytes(os.path.join(dirpath, ".gitignore"), MAX_GITIGNORE_BYTES, root=real_root,
                                  truncate=True)
                lines = [ln for ln in data.decode("utf-8", "replace").splitlines()
                         if ln.strip() and not ln.startswith("#")]
                if len(lines) > globs_left:
                    skipped.append(Skipped(_join(rel_dir, ".gitignore"),
                                           f"{len(lines):,} patterns; only the first {globs_left:,} applied (porter "
                                           f"applies at most {MAX_GITIGNORE_PATTERNS:,} .gitignore patterns a scan)"))
                    lines = lines[:globs_left]
                globs_left -= len(lines)
                if lines:
                    specs.append((rel_dir, gitignore_spec(lines)))
            except Unreadable:
                pass
        subdirs = []
        for name, is_dir, is_link in entries:
            rel = _join(rel_dir, name)
            if is_link and os.path.isdir(os.path.join(dirpath, name)):
                if name not in SKIP_DIRS and not _ignored(rel + "/", specs):
                    skipped.append(Skipped(rel, "directory symlink not followed"))
            elif is_dir:
                if name in SKIP_DIRS:
                    continue
                if depth + 1 > MAX_DEPTH:
                    skipped.append(Skipped(rel, f"directory nested deeper than {MAX_DEPTH} levels; not entered"))
                    continue
                subdirs.append((rel, dir_ignored or _ignored(rel + "/", specs)))
            elif not dir_ignored and not _ignored(rel, specs):
                out.append(rel)
            elif language_of(rel) == "cuda":
                # The tree's own .gitignore is the tree's say-so, not git's: a C/C++/CUDA file it hides is code a
                # build may compile (a pull request's `*.cu` in .gitignore hid its kernel from --isolated), so it
                # is listed, unseen, rather than dropped; other ignored files are left out as before.
                skipped.append(Skipped(rel, IGNORED_SOURCE))
        stack.extend((d, depth + 1, len(specs), ign) for d, ign in reversed(subdirs))
    return out


# A C/C++/CUDA file a plain walk leaves out because the tree's own .gitignore says so (model.finding.UNSEEN_REASONS).
IGNORED_SOURCE = "C/C++/CUDA file a .gitignore of the tree (not a git checkout) ignores: not read"


def _ignored(rel: str, specs: list[tuple[str, pathspec.PathSpec]]) -> bool:
    for base, spec in specs:
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1:] if base else rel
        if spec.match_file(sub):
            return True
    return False


def _rel(p: Path, root: Path) -> str:
    r = os.path.relpath(p, root)
    return "" if r == "." else r.replace(os.sep, "/")


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b
