"""Load the kernel checks table (rules/kb/kernel_checks.yaml): what each named kernel check is worth per target.

porter.kernels.checks finds each check's evidence in a kernel's facts; which verdict that evidence gives on one AMD
target profile and ROCm release, the check's title and its public source are data, validated against
porter/schemas/kernel-checks.schema.json like the rules (skipped for porter's own file when its bytes are the ones
the test suite validated, porter.validated), and every `by_release` fact must be one rules/kb/hip_versions.yaml
records.
"""
from __future__ import annotations

import functools
import types
from pathlib import Path
from typing import Any, Mapping

from porter import validated
from porter.datafile import DATA_DIR, display_path, read_yaml, schema_error_path
from porter.errors import DataFileError
from porter.schemas import validator

CHECKS_FILE = DATA_DIR / "kb" / "kernel_checks.yaml"
SCHEMA_NAME = "kernel-checks.schema.json"


class KernelChecksError(DataFileError):
    """rules/kb/kernel_checks.yaml cannot be used."""


@functools.lru_cache(maxsize=4)
def load_checks(path: Path = CHECKS_FILE) -> Mapping[str, Mapping[str, Any]]:
    """Check id -> {verdict: {default, by_target?, by_release?}, title, source}, in file order (read-only)."""
    shown = display_path(path)
    doc = read_yaml(path, KernelChecksError, shown)
    errors = [] if validated.trusted(path) else list(validator(SCHEMA_NAME).iter_errors(doc))
    if errors:
        import jsonschema.exceptions

        error = jsonschema.exceptions.best_match(errors)
        raise KernelChecksError(shown, ".".join(map(str, schema_error_path(error))) or "<file>", error.message)
    from porter.rocm import load_versions

    facts = load_versions().facts
    for name, entry in doc["checks"].items():
        for condition in entry["verdict"].get("by_release", {}):
            fact = condition.split(" ", 1)[1]
            if fact not in facts:
                raise KernelChecksError(shown, f"checks.{name}.verdict.by_release",
                                        f"{fact!r} is not a fact of rules/kb/hip_versions.yaml")
    return types.MappingProxyType({name: types.MappingProxyType(entry) for name, entry in doc["checks"].items()})


ROCM_CODE_TAG = "rocm-code"


def rocm_code_checks(path: Path = CHECKS_FILE) -> frozenset[str]:
    """The checks tagged `rocm-code`: their evidence is code only a HIP build compiles (warpSize in a constant
    expression, which nvcc rejects too), so a ROCm arm around it is where the bug sits, not what handles it."""
    return frozenset(name for name, entry in load_checks(path).items() if ROCM_CODE_TAG in entry.get("tags", ()))
