"""What a translation is made of: options, the engine that ran, per-file results and the whole result.

The data every translate module and engine shares, kept apart from the code that produces it so engines can
import it without reaching back into the package that selects them (that was an import cycle).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from porter.errors import UsageError
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
    include_dirs: tuple[str, ...] = ()  # -I: where the project's headers are (translation and --verify)
    defines: tuple[str, ...] = ()  # -D NAME[=VALUE], for --verify
    std: str | None = None  # --std c++17 ..., for --verify
    compile_commands: Path | None = None  # -p BUILD_DIR / --compile-commands FILE (compile_commands.json)
    targets: tuple[str, ...] = ()  # porter targets whose gfx the migrated build files build for (none: the default)
    fixups: bool = True  # the post-pass of porter.translate.fixups (off: the engine's output as it is)


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
    by_hand: tuple[Finding, ...] = ()  # what the output still needs by hand (porter.translate.byhand): inline PTX, ...
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
            "unconverted": [brief(f) for f in self.unconverted],
            "warnings": [brief(f) for f in self.warnings],
            "by_hand": [brief(f) for f in self.by_hand],
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
    build: Any = field(default=None, compare=False, repr=False)  # porter.translate.buildinfo.BuildInfo used

    @property
    def findings(self) -> list[Finding]:
        return sorted(f for ft in self.files for f in (*ft.unconverted, *ft.warnings))

    def file(self, path: str) -> FileTranslation | None:
        return next((f for f in self.files if f.path == path), None)

    def totals(self) -> dict[str, Any]:
        by_kind: Counter[str] = Counter()
        by_reason: Counter[str] = Counter()
        by_warning: Counter[str] = Counter()
        by_hand: Counter[str] = Counter()
        status: Counter[str] = Counter()
        for ft in self.files:
            status[ft.status] += 1
            by_kind.update(dict(ft.converted))
            by_reason.update(f.rule for f in ft.unconverted)
            by_warning.update(f.rule for f in ft.warnings)
            by_hand.update(f.rule for f in ft.by_hand)
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
            "by_hand": sum(by_hand.values()),
            "by_hand_by_rule": dict(sorted(by_hand.items())),
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


def brief(f: Finding) -> dict[str, Any]:
    d = {"rule": f.rule, "line": f.line, "column": f.column, "severity": str(f.severity), "message": f.message}
    d.update(dict(f.data))
    return d
