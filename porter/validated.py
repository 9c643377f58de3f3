"""Tell whether one of porter's own data files is byte for byte one the test suite validated, so a run can skip
validating it again.

Checking porter's bundled rules, target profiles and library map against their JSON Schemas was a third of the CPU of
a one-file scan (importing jsonschema, building validators, walking ~100 documents), on every run, for files that
only change with porter. `porter/schemas/validated.sha256` lists the SHA-256 of every bundled data file and of every
schema. tests/test_validated.py validates every bundled file in full and fails unless the manifest lists exactly the
current bytes. So a file whose bytes match its entry, while every schema matches too, is one the suite validated.
Anything else is validated in full: a file of a repository, a custom or `--rules` file, an edited or added file of an
install, or every file once any schema differs from what was validated.

Regenerate the manifest after changing a rule, profile, the library map or a schema:
`.venv/bin/python scripts/validated_manifest.py` (it validates everything in full first, and rewrites the parsed
documents porter.datafile.read_yaml takes for the same bytes).
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from porter.datafile import DATA_DIR, MAX_DATA_FILE_BYTES, data_relative

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
MANIFEST = SCHEMA_DIR / "validated.sha256"
# Manifest entries are named "data/<path under porter.data>" and "schemas/<schema file>".
DATA_PREFIX, SCHEMA_PREFIX = "data/", "schemas/"
# What the manifest covers under porter.data: the files the loaders validate against a schema.
DATA_GLOBS = ("**/*.yaml",)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def current_entries() -> dict[str, str]:
    """Name -> digest of every file the manifest should list, from the files as they are now."""
    out = {}
    data_root = DATA_DIR.resolve()
    for pattern in DATA_GLOBS:
        for p in sorted(data_root.glob(pattern)):
            if p.is_file():
                out[DATA_PREFIX + p.relative_to(data_root).as_posix()] = digest(p.read_bytes())
    for p in sorted(SCHEMA_DIR.glob("*.json")):
        out[SCHEMA_PREFIX + p.name] = digest(p.read_bytes())
    return dict(sorted(out.items()))


def format_manifest(entries: dict[str, str]) -> str:
    """The manifest text: `sha256sum` lines ("<digest>  <name>"), sorted by name."""
    return "".join(f"{d}  {name}\n" for name, d in sorted(entries.items()))


@functools.lru_cache(maxsize=1)
def _manifest() -> dict[str, str]:
    try:
        text = MANIFEST.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    entries = {}
    for line in text.splitlines():
        d, sep, name = line.partition("  ")
        if sep and len(d) == 64:
            entries[name] = d
    return entries


@functools.lru_cache(maxsize=1)
def _schemas_validated() -> bool:
    """Every schema is the one the suite validated against (a changed schema may refuse a file it accepted)."""
    manifest = _manifest()
    listed = {n for n in manifest if n.startswith(SCHEMA_PREFIX)}
    present = {SCHEMA_PREFIX + p.name for p in SCHEMA_DIR.glob("*.json")}
    if not listed or listed != present:
        return False
    try:
        return all(digest((SCHEMA_DIR / n[len(SCHEMA_PREFIX):]).read_bytes()) == manifest[n] for n in listed)
    except OSError:
        return False


def trusted(path: Path) -> bool:
    """True when `path` is one of porter's own data files with exactly the bytes the test suite validated."""
    from porter.source.read import SourceReadError, read_file

    try:
        rel = data_relative(path, DATA_DIR)
    except OSError:
        return False
    if rel is None:
        return False
    expected = _manifest().get(DATA_PREFIX + rel)
    if expected is None or not _schemas_validated():
        return False
    try:
        data = read_file(path, MAX_DATA_FILE_BYTES)
    except SourceReadError:
        return False
    return digest(data) == expected
