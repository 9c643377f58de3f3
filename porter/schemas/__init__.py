"""The JSON Schemas porter checks its data files (rules, targets, library map, effort model) and its output against."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a validator is first built: most runs validate nothing (porter.validated)
    import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """A schema by file name, e.g. "rule.schema.json"."""
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.protocols.Validator:
    """A checked, reusable validator for one schema (building one per file validated costs more than validating)."""
    import jsonschema

    doc = schema(name)
    cls = jsonschema.validators.validator_for(doc)
    cls.check_schema(doc)
    return cls(doc)
