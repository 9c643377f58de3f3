"""The error every data loader raises for a file it cannot use: which file, which field, what is wrong."""
from __future__ import annotations

from pathlib import Path


class DataFileError(ValueError):
    """A rule, profile, map or model file that cannot be used; the CLI turns it into exit code 2."""

    def __init__(self, path: Path | str, field: str, problem: str):
        self.path, self.field, self.problem = str(path), field, problem
        super().__init__(f"{path}: {field}: {problem}")
