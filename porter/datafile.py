"""Read porter's YAML data files (rules, target profiles, library map, effort model) and name what is wrong in them.

Every loader reports a file it cannot use the same way: a DataFileError subclass naming the file and the field.
"""
from __future__ import annotations

import functools
import hashlib
import math
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

import porter.data
from porter.errors import DataFileError

if TYPE_CHECKING:  # jsonschema is imported only when a file is validated (porter.validated)
    import jsonschema

# The shipped data (authored in the checkout's rules/, installed as the package porter.data): rules, kb/, targets/,
# effort/. pip installs packages as plain files, so the package's directory is a real one in a checkout (editable
# install) and in site-packages alike (what importlib.resources.files gives for it, without importing
# importlib.resources and zipfile on every run).
DATA_DIR = Path(porter.data.__file__).parent
# How messages and reports name a shipped data file: as it is authored (rules/...), wherever porter is installed.
DATA_DISPLAY_ROOT = "rules"
# A data file is a rule, profile, library map or effort model: a few KiB. Anything past this is not one.
MAX_DATA_FILE_BYTES = 4 * 1024 * 1024
# The parsed document of each of porter's own YAML files, as JSON, by the SHA-256 of the file's bytes: one
# "name<TAB>digest<TAB>json" line per file, written with the validated manifest by scripts/validated_manifest.py and
# checked by tests/test_validated.py (current, and exactly what YAML parses). Only bytes with a listed digest are
# taken from it, so an edited file or a repository's is always parsed: a stale line costs time, never a wrong
# document. Parsing the ~100 bundled files was ~6% of a one-file scan; decoding their JSON is ~10x cheaper.
PARSED = Path(__file__).resolve().parent / "schemas" / "validated.parsed.tsv"


# Directories under rules/ that hold data other than rules.
NON_RULE_DIRS = frozenset({"kb", "targets", "effort"})


def rule_files(directory: Path = DATA_DIR) -> list[Path]:
    """The rule files under `directory` (porter's own by default): every YAML file outside NON_RULE_DIRS. Here
    rather than in porter.rules so that listing rule ids (`scan --select`) does not load the schema validator."""
    return sorted(
        p for p in directory.rglob("*.yaml")
        if p.relative_to(directory).parts[0] not in NON_RULE_DIRS
    )


def resolved_file(path: Path) -> Path:
    """`path.resolve()` for a data file, with its directory resolved once per process: only the file itself is then
    looked at (one lstat instead of one per component of its path, twice for each of ~100 files)."""
    return Path(_real(path))


@functools.lru_cache(maxsize=None)
def _real_dir(directory: str) -> str:
    """`os.path.realpath(directory)` once per process: every data file's display name and trust check is relative
    to the data directory, and resolving it for each of a hundred files was a tenth of loading the rules."""
    return os.path.realpath(directory)


def _real(path: Path) -> str:
    """What `str(path.resolve())` gives (realpath: a symlink anywhere on the way is followed)."""
    text = str(path)
    try:
        plain = path.is_absolute() and path.name not in ("", ".", "..") and not stat.S_ISLNK(os.lstat(text).st_mode)
    except (OSError, ValueError):  # missing, unreadable or not a path the system takes: as resolve() sees it
        plain = False
    if not plain:
        return str(path.resolve())
    head, _, name = text.rpartition("/")
    real_dir = _real_dir(head or "/")
    return real_dir + name if real_dir.endswith("/") else f"{real_dir}/{name}"


def data_relative(path: Path, data_dir: Path = DATA_DIR) -> str | None:
    """Where `path` resolves to under porter's own data (`data_dir`), as a posix path, or None when it is not one
    of porter's data files: what `path.resolve().relative_to(data_dir.resolve())` says, compared as text (both
    are absolute and normalised)."""
    root, real = _real_dir(str(data_dir)), _real(path)
    if real == root:
        return "."
    return real[len(root) + 1:] if real.startswith(root) and real[len(root)] == "/" else None


def display_path(path: Path) -> str:
    """A data file's path as messages and reports show it: `rules/...` for porter's own data, else as given."""
    rel = data_relative(path)
    return str(path) if rel is None else f"{DATA_DISPLAY_ROOT}/{rel}"


def read_yaml(path: Path, error: type[DataFileError], shown: Path | str | None = None) -> Any:
    """The parsed document, or `error(shown, "<file>", why)` when the file cannot be read or is not YAML."""
    return yaml_document(read_data(path, error, shown), error, path if shown is None else shown)


def read_data(path: Path, error: type[DataFileError], shown: Path | str | None = None) -> bytes:
    """A data file's bytes, or `error(shown, "<file>", why)` when it cannot be read (read_yaml's first half, for a
    loader that also needs the bytes)."""
    from porter.source.read import SourceReadError, read_file

    try:
        # Only a regular file, bounded: a FIFO or device named as a rule or effort file must not hang or fill memory.
        return read_file(path, MAX_DATA_FILE_BYTES)
    except SourceReadError as e:
        raise error(path if shown is None else shown, "<file>", f"cannot read: {e}") from None


def yaml_document(data: bytes, error: type[DataFileError], shown: Path | str) -> Any:
    """The document `data` holds (read_yaml's second half): porter's own files from PARSED, anything else parsed."""
    known = _parsed().get(hashlib.sha256(data).hexdigest())
    if known is not None:
        return orjson.loads(known)  # a fresh document each time, as a parse would give
    return _parse(data, error, shown)


@functools.cache
def safe_loader() -> type:
    """libyaml's safe loader when PyYAML was built with it (parsing a data file is then ~10x cheaper). PyYAML is
    imported only here: porter's own files come from PARSED, so most runs never parse YAML (~5 ms of start-up).

    Without YAML 1.1's base-60 numbers (`1:59:59`, a string here as in YAML 1.2): PyYAML builds one by multiplying
    a big integer per part, quadratic in the parts (40,000 parts, 120 KB, took 2.9 s; the 4 MiB a data file may be
    about an hour, in porter's own process, before any budgeted stage), and the float form ends in an
    OverflowError. porter's data never writes one; the rule schema then refuses the string where it wants a number."""
    import re

    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("PorterSafeLoader", (base,), {})
    sexagesimal = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
    loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in sexagesimal]
        for first, resolvers in base.yaml_implicit_resolvers.items()}
    loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0[0-7_]+
        |[-+]?(?:0|[1-9][0-9_]*)
        |[-+]?0x[0-9a-fA-F_]+)$""", re.X), list("-+0123456789"))
    loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", re.X), list("-+0123456789."))
    return loader


def _parse(data: bytes, error: type[DataFileError], shown: Path | str) -> Any:
    import yaml

    loader = safe_loader()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(shown, "<file>", f"not UTF-8: {e}") from None
    try:
        if "&" in text and any(isinstance(ev, yaml.AliasEvent) for ev in yaml.parse(text, Loader=loader)):
            # Aliases let a few lines expand to billions of nodes when validated; porter's data never needs them.
            raise error(shown, "<file>", "uses YAML aliases (*name), which data files may not (write the value out)")
        doc = yaml.load(text, Loader=loader)
    except RecursionError:
        raise error(shown, "<file>", "nested too deeply to read") from None
    except DataFileError:
        raise  # the alias refusal above (a DataFileError is a ValueError too)
    except ValueError as e:  # an integer past Python's 4,300 digits: the int constructor's refusal, not a YAMLError
        raise error(shown, "<file>", f"not valid YAML: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise error(shown, "<file>", f"not valid YAML{where}: {getattr(e, 'problem', e)}") from None
    return doc


def check_numbers(doc: Any, error: type[DataFileError], shown: Path | str) -> None:
    """Every number of a data file is finite and fits 64 bits. A schema's `minimum` passes YAML's .nan (no
    comparison with NaN is true) and .inf, and any integer; the code reading a target profile or a rule then does
    arithmetic a NaN, an infinity or a 4,000-digit integer breaks (int(nan) raises, range(10**4000) never ends).
    The effort model checks its own numbers (porter.estimate.effort_model), naming the file it merges over."""
    todo: list[tuple[str, Any]] = [("", doc)]
    while todo:
        where, value = todo.pop()
        if isinstance(value, dict):
            todo.extend((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((f"{where}.{i}" if where else str(i), v) for i, v in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise error(shown, where or "(top level)", f"{value} is not a finite number")
        elif isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < (1 << 63):
            raise error(shown, where or "(top level)", f"an integer of {len(str(abs(value)))} digits is past 64 bits")


@functools.lru_cache(maxsize=1)
def _parsed() -> dict[str, bytes]:
    """Digest -> JSON document from PARSED; empty when it is missing or unreadable (every file is then parsed)."""
    try:
        lines = PARSED.read_bytes().splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:
        parts = line.split(b"\t")
        if len(parts) == 3 and len(parts[1]) == 64:
            out[parts[1].decode("ascii", "replace")] = parts[2]
    return out


def parsed_entries(root: Path = DATA_DIR, pattern: str = "**/*.yaml") -> dict[str, tuple[str, bytes]]:
    """Name (relative to `root`) -> (SHA-256, JSON) of every YAML file under `root` whose document JSON carries
    exactly (only mappings with string keys, lists, strings, numbers, booleans and null), parsed as read_yaml
    parses a file it has no line for. What PARSED should hold; a file that is not valid YAML raises DataFileError."""
    out = {}
    for p in sorted(root.glob(pattern)):
        if not p.is_file():
            continue
        data = p.read_bytes()
        doc = _parse(data, DataFileError, p)
        try:
            encoded = orjson.dumps(doc)
        except TypeError:  # orjson.JSONEncodeError: a key that is not a string, a value JSON has no type for
            continue
        if _same(doc, orjson.loads(encoded)):
            out[p.relative_to(root).as_posix()] = (hashlib.sha256(data).hexdigest(), encoded)
    return out


def format_parsed(entries: dict[str, tuple[str, bytes]]) -> bytes:
    return b"".join(f"{name}\t{d}\t".encode() + doc + b"\n" for name, (d, doc) in sorted(entries.items()))


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (1 == 1.0 == True in Python; not in a data file)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(isinstance(k, str) and _same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


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
