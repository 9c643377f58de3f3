"""Decide a run's typed Settings: the repository's porter.toml / [tool.porter] merged under the command line's options.

Where configuration may come from, and what it may do, is part of porter's safety on hostile repositories:
- The closest porter.toml, or pyproject.toml with a [tool.porter] table, from the scanned path up to the top of its
  git work tree; outside git only the scanned directory itself (a porter.toml in /tmp does not apply to /tmp/x).
  `--config FILE` names one explicitly (trusted: the user chose it); `--isolated` ignores repository config.
- Paths a repository config names (`rules`, `effort`) are resolved component by component and must stay inside the
  repository, be regular files (or, for rules, directories of them) and small; an error names the key, never what
  the file held.
- A repository config cannot ask for more than the machine gives (`jobs` at most the core count) or raise the file
  size limit above the default; only the command line can. What it turns off is said in Settings.notices.
Unknown keys and wrong types are errors (exit 2).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from porter import contain
from porter.contain import Refused, files_under, read_named, resolve_inside
from porter.errors import UsageError
from porter.model import Severity

DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
# Seconds (wall clock, in a parser worker) one file may take before it is skipped as "took longer than N s" (the
# slowest real file seen, CuTe's 60k-line mma_sm90_gmma_sparse_ext.hpp, takes a few seconds); a bound, not a target.
DEFAULT_FILE_SECONDS = 30.0
# MiB of heap a parser worker may add for one file before it is skipped as "needed more than N MiB" (the largest
# real file's parse tree and indexes take a few hundred).
DEFAULT_FILE_MEMORY_MIB = 2048
MAX_CONFIG_BYTES = 1024 * 1024  # a porter.toml or pyproject.toml bigger than this is not a configuration
MAX_DATA_FILE_BYTES = 4 * 1024 * 1024  # a rule or effort file named by configuration

_KEYS: dict[str, type | tuple[type, ...]] = {
    "include": list,
    "exclude": list,
    "jobs": int,
    "fail_on": str,
    "targets": list,
    "disable": list,
    "max_file_size_mb": (int, float),
    "cache": bool,
    "rules": list,  # extra rule files or directories, relative to the config file
    "effort": str,  # an effort-model override file, relative to the config file
    "rocm_macros": list,  # project macros that mean "this is the ROCm build" (GGML_USE_HIP, BNB_HIP)
    "cuda_only": list,  # path globs the team keeps NVIDIA-only on purpose (optional work)
    "rocm": str,  # the ROCm release HIP is judged for (porter.rocm; rules/kb/hip_versions.yaml lists the choices)
}
MAX_CONFIG_LIST = 1000  # entries in rocm_macros / cuda_only
_MACRO_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


class ConfigError(UsageError):
    """A configuration file that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class Config:
    """One configuration file as read: where it is, whether the repository (not the user) supplied it, its values."""

    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    from_repository: bool = False

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, typed; built by `resolve_settings` (or directly in tests and scripts)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int = 0  # 0: one per core
    cache_dir: Path | None = None  # None: no cache
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    disabled_rules: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()  # target ids, gfx names, "all" or profile paths; empty: porter's default
    extra_rules: tuple[Path, ...] = ()
    effort: Path | None = None  # an effort-model override
    fail_on: Severity | None = None
    deep: bool = False
    config_path: Path | None = None
    # What the repository's own configuration turned off or narrowed, so a CI gate never goes quiet unseen.
    notices: tuple[str, ...] = ()
    # Include/exclude globs that came from repository configuration (the pipeline says how many files they drop).
    config_globs: bool = False
    rocm_macros: tuple[str, ...] = ()  # project macros standing for the ROCm build (porter.source.preprocessor)
    cuda_only: tuple[str, ...] = ()  # globs of paths kept NVIDIA-only (porter.portaware)
    cuda_only_from: tuple[str, ...] = ()  # for each cuda_only glob, "config-file:line" it was written at
    file_seconds: float = DEFAULT_FILE_SECONDS  # per-file wall-clock budget of a parser worker (see porter.budget)
    file_memory_mib: int = DEFAULT_FILE_MEMORY_MIB  # heap a parser worker may add for one file (see porter.budget)
    # The ROCm release HIP facts are judged for ("": the newest rules/kb/hip_versions.yaml lists; porter.rocm answers,
    # and porter.cli.runs checks a configured one, since porter.rocm's data reader depends on this module).
    rocm: str = ""


@dataclass(frozen=True)
class CommandLine:
    """The options a user gave; None means "not given" (configuration or the default decides)."""

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    jobs: int | None = None
    fail_on: str | None = None
    targets: tuple[str, ...] | None = None
    no_cache: bool = False
    cache_dir: Path | None = None
    config: Path | None = None
    isolated: bool = False
    deep: bool = False
    max_file_size_mb: float | None = None
    rocm: str | None = None  # --rocm RELEASE


def default_cache_dir() -> Path:
    """Where results are cached unless told otherwise: $PORTER_CACHE_DIR, else the user's cache directory."""
    env = os.environ.get("PORTER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"


def repository_root(path: Path) -> Path:
    """The directory a repository's configuration may reach: the git work tree holding `path`, else `path`'s own
    directory. Everything a repository config names must resolve inside it."""
    start = Path(path).resolve()
    d = start if start.is_dir() else start.parent
    for cur in (d, *d.parents):
        if (cur / ".git").exists():
            return cur
    return d


def find_config(start: Path) -> Path | None:
    """The closest porter.toml / pyproject.toml with [tool.porter] from `start` up to its repository root."""
    start = Path(start).resolve()
    top = repository_root(start)
    d = start if start.is_dir() else start.parent
    for cur in (d, *d.parents):
        for name in ("porter.toml", "pyproject.toml"):
            candidate = cur / name
            if candidate.is_file() and (name == "porter.toml" or _has_tool_porter(candidate, top)):
                return candidate
        if cur == top:
            break  # the repository's own top is as far as its settings can come from
    return None


# A repository's TOML is parsed in a budgeted worker (porter.budget): tomllib is quadratic in a key's dotted parts
# (`a.a.a… = 1`: 16,000 parts took 20 s, and the 1 MiB a configuration may hold would take hours) and it runs
# before any stage, in porter's own process. A real configuration parses in milliseconds.
CONFIG_BUDGET_SECONDS = 10.0
CONFIG_BUDGET_MEMORY = 512 * 1024 * 1024


def _parse_toml(text: str) -> dict[str, Any]:
    import tomllib  # here: most runs read no TOML

    return tomllib.loads(text)


def _parse_toml_answer(text: str) -> dict[str, Any] | None:
    """`_parse_toml` as a budgeted worker answers it: None for a document nested past the recursion limit, caught
    here where the stack has unwound, so the worker never sends an exception raised at its deepest frame."""
    try:
        return _parse_toml(text)
    except RecursionError:
        return None


def parse_toml(data: bytes, path: Path, repository: bool) -> dict[str, Any]:
    """A TOML document; one the repository supplied is parsed under a time and memory budget (a ConfigError naming
    `path` past it). Raises UnicodeDecodeError, ValueError (TOMLDecodeError) or RecursionError as tomllib does."""
    text = data.decode("utf-8")
    if not repository:
        return _parse_toml(text)
    from porter.budget import Budget, Overrun, run_stage

    got = run_stage(_parse_toml_answer, (text,), Budget(CONFIG_BUDGET_SECONDS, CONFIG_BUDGET_MEMORY), raises=True)
    if isinstance(got, Overrun):
        raise ConfigError(f"{path}: reading it as TOML {got.reason}; not a configuration")
    if got is None:
        raise RecursionError("TOML nested past the recursion limit")
    return cast(dict[str, Any], got)


def _has_tool_porter(py: Path, top: Path) -> bool:
    try:
        doc = parse_toml(read_regular(py, MAX_CONFIG_BYTES, "pyproject.toml", top), py, True)
    except (UsageError, UnicodeDecodeError, ValueError, RecursionError):
        # ValueError: a TOMLDecodeError, or an integer past Python's 4,300 digits (tomllib passes that one on).
        return False  # a broken pyproject.toml without our table is the project's business, not ours
    tool = doc.get("tool")
    return isinstance(tool, dict) and "porter" in tool


def contained_path(value: str | Path, base: Path, top: Path, key: str, *, allow_dir: bool = False) -> Path:
    """`value` (relative to `base`) resolved inside `top` by porter.contain; a refusal is a ConfigError naming `key`."""
    try:
        return resolve_inside(value, base, top, key, allow_dir=allow_dir)
    except Refused as e:
        raise ConfigError(str(e)) from None


def read_regular(path: Path, limit: int, key: str, top: Path | None = None) -> bytes:
    """A regular file of at most `limit` bytes, through porter.contain's bounded, non-blocking reader (a FIFO swapped
    in after a check cannot hang us), inside `top` when given (a file the repository supplied, refused when it is or
    sits behind a symlink leading out); a refusal names the configuration key."""
    try:
        return read_named(path, limit, key, root=top)
    except Refused as e:
        raise ConfigError(str(e)) from None


def load_config(path: Path | None, *, top: Path | None = None) -> Config:
    """Read and check one configuration file; `top` is set when the repository supplied it (contained reads)."""
    if path is None:
        return Config()
    try:
        data = read_regular(path, MAX_CONFIG_BYTES, str(path), top)
        doc = parse_toml(data, path, top is not None)
    except ConfigError:
        raise
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8: {e}") from None
    except ValueError as e:  # TOMLDecodeError, or an integer past Python's 4,300 digits (which tomllib passes on)
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a configuration") from None
    tool = doc.get("tool", {})
    if not isinstance(tool, dict):
        tool = {}
    table = tool.get("porter", {}) if path.name == "pyproject.toml" else tool.get("porter", doc)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.porter] must be a table")
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]) or isinstance(value, bool) and _KEYS[key] is not bool:
            raise ConfigError(f"{path}: {key} must be {_type_name(_KEYS[key])}, not {type(value).__name__}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: {key} must be a list of strings")
    # As --max-file-size-mb: 1e-320 would pass "more than 0" and silently skip every file; nan passes no comparison.
    if "max_file_size_mb" in table and not 0.000001 <= table["max_file_size_mb"] <= 4096:
        raise ConfigError(f"{path}: max_file_size_mb must be from 0.000001 to 4096, not {table['max_file_size_mb']}")
    if "jobs" in table and not 0 <= table["jobs"] <= 1024:
        raise ConfigError(f"{path}: jobs must be 0 (all cores) to 1024, not {table['jobs']}")
    for key in ("rocm_macros", "cuda_only"):
        if len(table.get(key, ())) > MAX_CONFIG_LIST:
            raise ConfigError(f"{path}: {key} has more than {MAX_CONFIG_LIST} entries")
    for name in table.get("rocm_macros", ()):
        if not _MACRO_NAME.match(name):
            raise ConfigError(f"{path}: rocm_macros: {name[:64]!r} is not a C macro name")
    for glob in table.get("cuda_only", ()):
        if not glob or len(glob) > 512 or glob.startswith("/") or "\0" in glob or ".." in glob.split("/"):
            raise ConfigError(f"{path}: cuda_only: {glob[:64]!r} must be a relative path glob inside the repository "
                              "(no leading '/', no '..')")
    if "fail_on" in table:
        try:
            Severity.parse(table["fail_on"])
        except ValueError as e:
            raise ConfigError(f"{path}: fail_on: {e}") from None
    values = dict(table)
    if "cuda_only" in table:
        text = data.decode("utf-8")
        values["cuda_only_from"] = [f"{path.name}:{_line_of(text, g)}" for g in table["cuda_only"]]
    return Config(path, values, from_repository=top is not None)


def _line_of(text: str, value: str) -> int:
    """The line a string value is written on in a TOML text (the first quoted occurrence), for handled_by."""
    for quote in ('"', "'"):
        i = text.find(quote + value + quote)
        if i >= 0:
            return text.count("\n", 0, i) + 1
    return 1


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    words: dict[type, str] = {list: "a list", int: "an integer", str: "a string", bool: "true or false"}
    return words.get(t, t.__name__)


def _config_paths(cfg: Config, top: Path) -> tuple[tuple[Path, ...], Path | None]:
    """The rule and effort files a configuration names, contained when the repository supplied it."""
    if cfg.path is None:
        return (), None
    base = cfg.path.parent
    if cfg.from_repository:
        key = f"{cfg.path.name}: rules"
        rules: list[Path] = []
        for v in cfg.get("rules", []):
            named = contained_path(v, base, top, key, allow_dir=True)
            # Every file inside a named directory is contained too (a symlink in it must not lead out): the rule
            # loader is given the checked files, never the directory to list again.
            try:
                rules += files_under(named, top, key, (".yaml",)) if named.is_dir() else [named]
            except Refused as e:
                raise ConfigError(str(e)) from None
        effort = contained_path(cfg.get("effort"), base, top, f"{cfg.path.name}: effort") if cfg.get("effort") else None
        return tuple(rules), effort
    given = tuple((base / v).resolve() for v in cfg.get("rules", []))
    return given, (base / cfg.get("effort")).resolve() if cfg.get("effort") else None


def _config_targets(cfg: Config, top: Path) -> list[str]:
    """The configuration's targets; a profile path a repository names must be a regular file inside it (a target
    entry is a path when it ends in .yaml/.yml or holds a '/', as porter.targets reads it)."""
    out = []
    for item in cfg.get("targets", []):
        for part in (p.strip() for p in item.split(",")):
            if cfg.from_repository and cfg.path is not None and (part.endswith((".yaml", ".yml")) or "/" in part):
                part = str(contained_path(part, cfg.path.parent, top, f"{cfg.path.name}: targets"))
            if part:
                out.append(part)
    return out


def resolve_settings(path: Path, cli: CommandLine = CommandLine()) -> Settings:
    """The settings for scanning `path`: command-line options over the configuration that applies to it."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no such file or directory")
    if path.is_dir():  # one named file that leads out is listed as skipped (porter.source.read: FileSource.real_root)
        checkout = contain.leaves_checkout(path)
        if checkout is not None:
            raise UsageError(f"{path}: leads outside {checkout} (a symlink?); not scanned")
    top = repository_root(path)
    if cli.config is not None:
        cfg = load_config(cli.config)
    elif cli.isolated:
        cfg = Config()
    else:
        cfg = load_config(find_config(path), top=top)
    if cli.jobs is not None and cli.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or more")
    rules, effort = _config_paths(cfg, top)
    cores = os.cpu_count() or 1
    jobs = cli.jobs if cli.jobs is not None else cfg.get("jobs", 0)
    if cfg.from_repository and cli.jobs is None:
        jobs = min(jobs, cores)  # a repository cannot make porter fork more workers than the machine has cores
    if cli.max_file_size_mb is not None:
        if not 1e-6 <= cli.max_file_size_mb <= 4096:  # the CLI checks first; this guards other callers (nan fails too)
            raise UsageError(f"--max-file-size-mb must be a number from 0.000001 to 4096 (MiB), "
                             f"not {cli.max_file_size_mb!r}")
        max_bytes = int(cli.max_file_size_mb * 1048576)
    else:
        mb = cfg.get("max_file_size_mb", DEFAULT_MAX_FILE_BYTES / 1048576)
        if cfg.from_repository:
            mb = min(mb, DEFAULT_MAX_FILE_BYTES / 1048576)  # raising the limit is the user's call, not the repository's
        max_bytes = int(mb * 1048576)
    fail_on_text = cli.fail_on or cfg.get("fail_on")
    try:
        fail_on = Severity.parse(fail_on_text) if fail_on_text else None
    except ValueError as e:
        raise UsageError(f"--fail-on: {e}") from None
    use_cache = not cli.no_cache and cfg.get("cache", True)
    notices = _notices(cfg, max_bytes if cli.max_file_size_mb is None else DEFAULT_MAX_FILE_BYTES)
    return Settings(
        include=tuple(cli.include if cli.include else cfg.get("include", [])),
        exclude=tuple(cli.exclude if cli.exclude else cfg.get("exclude", [])),
        jobs=jobs,
        cache_dir=(cli.cache_dir or default_cache_dir()) if use_cache else None,
        max_file_bytes=max_bytes,
        disabled_rules=tuple(cfg.get("disable", [])),
        targets=tuple(cli.targets if cli.targets else _config_targets(cfg, top)),
        extra_rules=rules,
        effort=effort,
        fail_on=fail_on,
        deep=cli.deep,
        config_path=cfg.path,
        notices=notices,
        config_globs=cfg.from_repository and (bool(cfg.get("include")) and not cli.include
                                              or bool(cfg.get("exclude")) and not cli.exclude),
        rocm_macros=tuple(cfg.get("rocm_macros", [])),
        cuda_only=tuple(cfg.get("cuda_only", [])),
        cuda_only_from=tuple(cfg.get("cuda_only_from", [])),
        rocm=cli.rocm or cfg.get("rocm", ""),
    )


def _notices(cfg: Config, max_bytes: int) -> tuple[str, ...]:
    if not cfg.from_repository:
        return ()
    name = cfg.path.name if cfg.path else "configuration"
    out = []
    if cfg.get("disable"):
        out.append(f"repository {name} disables {len(cfg.get('disable'))} rule(s): {', '.join(sorted(cfg.get('disable')))}")
    if max_bytes < DEFAULT_MAX_FILE_BYTES:
        out.append(f"repository {name} lowers the file size limit to {max_bytes / 1048576:g} MiB")
    # Both move findings out of the open work a gate counts (cuda-only paths, arms read as the ROCm build).
    if cfg.get("cuda_only"):
        out.append(f"repository {name} marks {len(cfg.get('cuda_only'))} path glob(s) NVIDIA-only (their findings are "
                   f"not open work): {', '.join(cfg.get('cuda_only')[:5])}{' ...' if len(cfg.get('cuda_only')) > 5 else ''}")
    if cfg.get("rocm_macros"):
        out.append(f"repository {name} names {len(cfg.get('rocm_macros'))} macro(s) as the ROCm build (code under them "
                   f"reads as handled): {', '.join(cfg.get('rocm_macros')[:5])}{' ...' if len(cfg.get('rocm_macros')) > 5 else ''}")
    return tuple(out)
