"""The exceptions porter raises on purpose, one tree, so the CLI can turn each kind into its exit code.

PorterError is the root. UsageError (exit 2) is bad input from the user or the scanned repository: a path, an
option, a configuration file, a rule or data file (DataFileError). InternalError (exit 3) is porter's own fault.
Anything else that escapes is also reported as an internal error: a crash must never look like "findings" (exit 1).
"""
from __future__ import annotations

from pathlib import Path


class PorterError(Exception):
    """Every error porter raises deliberately."""

    exit_code = 3


class UsageError(PorterError, ValueError):
    """Bad input: a path, option, configuration or data file that cannot be used. Exit code 2.

    Also a ValueError, so callers of the library that catch ValueError for bad arguments keep working."""

    exit_code = 2


class DataFileError(UsageError):
    """A rule, profile, map or model file that cannot be used: which file, which field, what is wrong."""

    def __init__(self, path: Path | str, field: str, problem: str):
        self.path, self.field, self.problem = str(path), field, problem
        super().__init__(f"{path}: {field}: {problem}")


class InternalError(PorterError):
    """A porter bug detected by porter itself (an invariant that does not hold). Exit code 3."""

    exit_code = 3
