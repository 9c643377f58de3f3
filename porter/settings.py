"""Read porter's settings for a scanned repository from `porter.toml` or `[tool.porter]` in pyproject.toml.

The closest configuration wins: starting at the scanned path and walking up to the enclosing git work tree (or
the filesystem root), the first directory holding a porter.toml, or a pyproject.toml with a [tool.porter]
table, supplies the settings. Command-line options override them. Unknown keys or wrong types are errors.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from porter.model import Severity

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
}


class ConfigError(ValueError):
    """A configuration file that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def resolve(self, key: str) -> Path | None:
        """A path-valued setting resolved against the config file's directory."""
        v = self.values.get(key)
        if v is None or self.path is None:
            return None
        return (self.path.parent / v).resolve()


def find_config(start: Path) -> Path | None:
    start = Path(start).resolve()
    d = start if start.is_dir() else start.parent
    for cur in (d, *d.parents):
        if (cur / "porter.toml").is_file():
            return cur / "porter.toml"
        py = cur / "pyproject.toml"
        if py.is_file() and _has_tool_porter(py):
            return py
        if (cur / ".git").exists():
            break  # the repository's own top is as far as its settings can come from
    return None


def _has_tool_porter(py: Path) -> bool:
    try:
        return "porter" in tomllib.loads(py.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # a broken pyproject.toml without our table is the project's business, not ours


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    table = doc.get("tool", {}).get("porter", {}) if path.name == "pyproject.toml" else doc.get("tool", {}).get("porter", doc)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.porter] must be a table")
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]) or isinstance(value, bool) and _KEYS[key] is int:
            raise ConfigError(f"{path}: {key} must be {_type_name(_KEYS[key])}, not {type(value).__name__}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: {key} must be a list of strings")
    if "max_file_size_mb" in table and not 0 < table["max_file_size_mb"] <= 4096:
        raise ConfigError(f"{path}: max_file_size_mb must be more than 0 and at most 4096, not {table['max_file_size_mb']}")
    if "jobs" in table and not 0 <= table["jobs"] <= 1024:
        raise ConfigError(f"{path}: jobs must be 0 (all cores) to 1024, not {table['jobs']}")
    if "fail_on" in table:
        try:
            Severity.parse(table["fail_on"])
        except ValueError as e:
            raise ConfigError(f"{path}: fail_on: {e}") from None
    return Config(path, dict(table))


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {list: "a list", int: "an integer", str: "a string", bool: "true or false"}.get(t, t.__name__)
