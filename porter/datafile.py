"""Read porter's YAML data files (rules, target profiles, library map, effort model) and name what is wrong in them.

Every loader reports a file it cannot use the same way: a DataFileError subclass naming the file and the field.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

from porter.errors import DataFileError

REPO_DIR = Path(__file__).resolve().parent.parent
# libyaml's safe loader when PyYAML was built with it: loading every data file on each run is then ~10x cheaper.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def display_path(path: Path) -> str:
    """A data file's path as messages and reports show it: relative to porter's repository when inside it."""
    try:
        return path.resolve().relative_to(REPO_DIR).as_posix()
    except ValueError:
        return str(path)


def read_yaml(path: Path, error: type[DataFileError], shown: Path | str | None = None) -> Any:
    """The parsed document, or `error(shown, "<file>", why)` when the file cannot be read or is not YAML."""
    shown = path if shown is None else shown
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise error(shown, "<file>", f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise error(shown, "<file>", f"not UTF-8: {e}") from None
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise error(shown, "<file>", f"not valid YAML{where}: {getattr(e, 'problem', e)}") from None


def schema_error_path(error: jsonschema.exceptions.ValidationError) -> list:
    """Where a schema error is: its path, plus the missing or unexpected key for an object-level error."""
    parts = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        parts += [p for p in error.validator_value if p not in instance][:1]
    elif error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = set(error.schema.get("properties", {}))
        parts += sorted(str(k) for k in instance if k not in allowed)[:1]
    return parts
