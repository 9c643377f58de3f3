"""Read porter's YAML data files (rules, target profiles, library map, effort model) and name what is wrong in them.

Every loader reports a file it cannot use the same way: a DataFileError subclass naming the file and the field.
"""
from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from porter.errors import DataFileError

if TYPE_CHECKING:  # jsonschema is imported only when a file is validated (porter.validated)
    import jsonschema

# The shipped data (authored in the checkout's rules/, installed as the package porter.data): rules, kb/, targets/,
# effort/. pip installs packages as plain files, so the resource root is a real directory in a checkout (editable
# install) and in site-packages alike.
DATA_DIR = Path(str(importlib.resources.files("porter.data")))
# How messages and reports name a shipped data file: as it is authored (rules/...), wherever porter is installed.
DATA_DISPLAY_ROOT = "rules"
# libyaml's safe loader when PyYAML was built with it: loading every data file on each run is then ~10x cheaper.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A data file is a rule, profile, library map or effort model: a few KiB. Anything past this is not one.
MAX_DATA_FILE_BYTES = 4 * 1024 * 1024


@functools.lru_cache(maxsize=None)
def resolved(directory: Path) -> Path:
    """`directory.resolve()` once per process: every data file's display name and trust check is relative to the
    data directory, and resolving it for each of a hundred files was a tenth of loading the rules."""
    return directory.resolve()


def display_path(path: Path) -> str:
    """A data file's path as messages and reports show it: `rules/...` for porter's own data, else as given."""
    try:
        return f"{DATA_DISPLAY_ROOT}/{path.resolve().relative_to(resolved(DATA_DIR)).as_posix()}"
    except ValueError:
        return str(path)


def read_yaml(path: Path, error: type[DataFileError], shown: Path | str | None = None) -> Any:
    """The parsed document, or `error(shown, "<file>", why)` when the file cannot be read or is not YAML."""
    from porter.source.read import SourceReadError, read_file

    shown = path if shown is None else shown
    try:
        # Only a regular file, bounded: a FIFO or device named as a rule or effort file must not hang or fill memory.
        text = read_file(path, MAX_DATA_FILE_BYTES).decode("utf-8")
    except SourceReadError as e:
        raise error(shown, "<file>", f"cannot read: {e}") from None
    except UnicodeDecodeError as e:
        raise error(shown, "<file>", f"not UTF-8: {e}") from None
    try:
        if "&" in text and any(isinstance(ev, yaml.AliasEvent) for ev in yaml.parse(text, Loader=SAFE_LOADER)):
            # Aliases let a few lines expand to billions of nodes when validated; porter's data never needs them.
            raise error(shown, "<file>", "uses YAML aliases (*name), which data files may not (write the value out)")
        return yaml.load(text, Loader=SAFE_LOADER)
    except RecursionError:
        raise error(shown, "<file>", "nested too deeply to read") from None
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
