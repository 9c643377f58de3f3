"""Translate a CUDA tree to HIP: pick an engine, run it over every C/C++/CUDA file as one set, and report.

`translate(root, options)` reads and translates in memory and writes nothing; `porter.translate.write` puts the
result on disk (an output tree, or in place with backups) and `porter.translate.verify` compiles it. Engines:
the built-in one (porter's knowledge base, token-accurate, on any machine) and wrappers for hipify-perl and
hipify-clang when they are installed. Whatever the engine, every CUDA name left in the output is reported with
its line and reason by the same leftover analysis, so the numbers are comparable across engines.

File names are kept (`.cu` stays `.cu`: hip-clang compiles it with `-x hip`), so no `#include` needs rewriting for
a renamed file; headers a translated file includes are translated with it, whatever their extension.
"""
from __future__ import annotations

import dataclasses

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from porter.errors import UsageError
from porter.source.discover import Candidate, discover, language_of
from porter.model import SCHEMA_VERSION, Finding, Skipped

ENGINES = ("auto", "builtin", "hipify-perl", "hipify-clang")
DEFAULT_TIMEOUT = 300.0
MAX_FILE_BYTES = 16 * 1024 * 1024
BACKUP_DIR = ".porter-backup"  # in-place backups outside git; never translated or copied


class TranslateError(UsageError):
    """A usage or input problem that stops a translation before anything is written (exit 2 at the CLI)."""


@dataclass(frozen=True)
class TranslateOptions:
    engine: str = "auto"  # auto | builtin | hipify-perl | hipify-clang
    hipify: Path | None = None  # explicit hipify-perl / hipify-clang executable
    translate_strings: bool = False  # also rename inside comments and string literals (as hipify-perl always does)
    timeout: float = DEFAULT_TIMEOUT  # seconds per external-engine run on one file
    hip_version: str | None = None  # warn about HIP names newer than this (set from the compiler by --verify)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int = 0  # external engines: parallel processes (0: one per core)


@dataclass(frozen=True)
class EngineInfo:
    """The engine that produced a translation, as reported to the user."""

    name: str  # builtin | hipify-perl | hipify-clang
    path: str | None = None
    version: str | None = None
    note: str = ""  # why auto chose it, or what was missing

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "version": self.version, "note": self.note}


@dataclass(frozen=True)
class FileTranslation:
    """One file's translation: the bytes before and after, what was converted, and what was not."""

    path: str  # relative to the root, forward slashes
    status: str  # translated | unchanged | failed | skipped
    original: bytes = field(repr=False, compare=False, default=b"")
    output: bytes = field(repr=False, compare=False, default=b"")
    lines: int = 0
    converted: tuple[tuple[str, int], ...] = ()  # (kind, count): function | type | constant | macro | header | launch_bounds | text
    converted_names: tuple[tuple[str, str, int], ...] = ()  # (cuda, hip, count), sorted
    unconverted: tuple[Finding, ...] = ()  # CUDA names left in place, each with its reason
    warnings: tuple[Finding, ...] = ()  # converted but needs a look, engine warnings, engine failures
    error: str | None = None  # why the engine failed on this file (status failed)
    line_shift: int = 0  # lines the engine inserted at the top (an #include), so output line = line + shift

    @property
    def changed(self) -> bool:
        return self.output != self.original

    @property
    def converted_total(self) -> int:
        return sum(n for _k, n in self.converted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "lines": self.lines,
            "converted": self.converted_total,
            "converted_by_kind": dict(self.converted),
            "converted_by_name": [{"cuda": c, "hip": h, "count": n} for c, h, n in self.converted_names],
            "unconverted": [_brief(f) for f in self.unconverted],
            "warnings": [_brief(f) for f in self.warnings],
            "error": self.error,
            "line_shift": self.line_shift,
        }


@dataclass(frozen=True)
class TranslationResult:
    """A whole translation: per-file results (sorted by path), files copied as they are, and skips."""

    root: Path
    engine: EngineInfo
    files: tuple[FileTranslation, ...]
    copies: tuple[str, ...] = ()  # other files of the tree, copied unchanged into an output tree
    symlinks: tuple[tuple[str, str], ...] = ()  # (path, link target) inside the tree, recreated as links
    skipped: tuple[Skipped, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # later stages (write, verify) attach their results

    @property
    def findings(self) -> list[Finding]:
        return sorted(f for ft in self.files for f in (*ft.unconverted, *ft.warnings))

    def file(self, path: str) -> FileTranslation | None:
        return next((f for f in self.files if f.path == path), None)

    def totals(self) -> dict[str, Any]:
        by_kind: Counter[str] = Counter()
        by_reason: Counter[str] = Counter()
        by_warning: Counter[str] = Counter()
        status: Counter[str] = Counter()
        for ft in self.files:
            status[ft.status] += 1
            by_kind.update(dict(ft.converted))
            by_reason.update(f.rule for f in ft.unconverted)
            by_warning.update(f.rule for f in ft.warnings)
        return {
            "files": len(self.files),
            "files_by_status": dict(sorted(status.items())),
            "lines": sum(ft.lines for ft in self.files),
            "converted": sum(by_kind.values()),
            "converted_by_kind": dict(sorted(by_kind.items())),
            "unconverted": sum(by_reason.values()),
            "unconverted_by_rule": dict(sorted(by_reason.items())),
            "warnings": sum(by_warning.values()),
            "warnings_by_rule": dict(sorted(by_warning.items())),
            "copied_unchanged": len(self.copies),
            "skipped": len(self.skipped),
        }

    def to_dict(self) -> dict[str, Any]:
        from porter import __version__

        return {
            "schema": SCHEMA_VERSION,
            "tool": {"name": "porter", "version": __version__},
            "command": "translate",
            "root": str(self.root),
            "engine": self.engine.to_dict(),
            "totals": self.totals(),
            "files": [f.to_dict() for f in self.files],
            "copied": list(self.copies),
            "skipped": [s.to_dict() for s in self.skipped],
            **{k: v for k, v in sorted(self.extra.items())},
        }


def _brief(f: Finding) -> dict[str, Any]:
    d = {"rule": f.rule, "line": f.line, "column": f.column, "severity": str(f.severity), "message": f.message}
    d.update(dict(f.data))
    return d


# Files that belong to the translated set: C, C++ and CUDA sources and headers (porter language "cuda").
def _is_source(c: Candidate) -> bool:
    return c.language == "cuda"


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def _included_extras(root: Path, sources: dict[str, bytes], listed: set[str]) -> list[str]:
    """Project files included by a translated file that discovery did not list as sources (e.g. `.cuinc`, `.def`):
    they are part of the set, so they are translated too."""
    extra: list[str] = []
    todo = list(sources)
    seen = set(sources)
    while todo:
        rel = todo.pop()
        data = sources.get(rel)
        if data is None:
            continue
        base = (root / rel).parent
        for m in _INCLUDE.finditer(data):
            target = m.group(1).decode("utf-8", "replace")
            for cand in (base / target, root / target):
                try:
                    real = cand.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if not real.is_file() or not real.is_relative_to(root) or cand.is_symlink():
                    break
                r = real.relative_to(root).as_posix()
                if r not in seen and r in listed:
                    seen.add(r)
                    extra.append(r)
                    try:
                        sources[r] = real.read_bytes()
                    except OSError:
                        pass
                    todo.append(r)
                break
    return extra


def _all_files(root: Path, include, exclude) -> tuple[list[str], list[tuple[str, str]], list[Skipped]]:
    """Every file of the tree (not only the languages porter scans), for a mirror; symlinks listed apart."""
    from porter.source import discover as d

    entries, skipped, _ = d.tree_entries(root, list(include) or None, list(exclude) or None)
    files, links = [], []
    for rel, raw in entries:
        if rel.split("/")[0] == BACKUP_DIR:
            continue
        rel = raw  # the mirror is written under the real names, bytes included
        p = root / rel
        if p.is_symlink():
            target = os.readlink(p)
            problem = d.link_problem(p, root)
            if problem or os.path.isabs(target):
                skipped.append(Skipped(rel, problem or "absolute symlink not recreated"))
            else:
                links.append((rel, target))
            continue
        problem = d.link_problem(p, root)  # a directory on the way may be a symlink leading out
        if problem:
            skipped.append(Skipped(rel, problem))
        elif p.is_file():
            files.append(rel)
    return files, links, skipped


def translate(root: Path | str, options: TranslateOptions = TranslateOptions(),
              progress: Callable[[int, int], None] | None = None) -> TranslationResult:
    """Translate the C/C++/CUDA files under `root` (a directory or one file) in memory; nothing is written."""
    from porter.translate.engines import select_engine

    root_in = Path(root)
    if not root_in.exists():
        raise TranslateError(f"{root_in}: no such file or directory")
    if root_in.is_file() and language_of(root_in.name) != "cuda":
        raise TranslateError(f"{root_in}: not a C, C++ or CUDA source file; give one, or the directory to translate")
    found = discover(root_in, list(options.include), list(options.exclude))
    root_real = found.root
    skipped = list(found.skipped)
    sources: dict[str, bytes] = {}
    for c in found.files:
        if not _is_source(c) or c.path.split("/")[0] == BACKUP_DIR:
            continue
        # Written back under its real name: a name that is not UTF-8 keeps its bytes (c.path shows them escaped).
        c = dataclasses.replace(c, path=c.abspath.relative_to(root_real).as_posix())
        try:
            size = c.abspath.stat().st_size
            if size > MAX_FILE_BYTES:
                skipped.append(Skipped(c.path, f"file is {size / 1048576:.1f} MiB, over the {MAX_FILE_BYTES // 1048576} MiB limit"))
                continue
            sources[c.path] = c.abspath.read_bytes()
        except OSError as e:
            skipped.append(Skipped(c.path, f"unreadable: {e.strerror or e}"))
    if root_in.is_file():
        copies, links = [], []
        listed = set(sources)
    else:
        all_files, links, more_skipped = _all_files(root_real, options.include, options.exclude)
        skipped.extend(s for s in more_skipped if s not in skipped)
        listed = set(all_files)
        _included_extras(root_real, sources, listed)
        copies = sorted(f for f in all_files if f not in sources)
    engine = select_engine(options)
    files = engine.translate_all(root_real, dict(sorted(sources.items())), options, progress)
    files = tuple(sorted(files, key=lambda f: f.path))
    return TranslationResult(root_real, engine.info, files, tuple(copies), tuple(sorted(links)),
                             tuple(sorted(set(skipped))))
