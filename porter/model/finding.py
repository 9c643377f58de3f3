"""Findings and what ranks them: Severity, Confidence, Status, Finding, and Skipped (a file not read, and why)."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable


class Severity(enum.IntEnum):
    """How much a finding matters for a port; ordered so `>=` compares thresholds."""

    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    BLOCKER = 4

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown severity {text!r} (expected one of: {names})") from None

    def __str__(self) -> str:
        # _name_, not .name: the enum property costs ~10x more, and every finding's to_dict asks twice.
        return self._name_.lower()


class Confidence(enum.IntEnum):
    """How sure the matcher is that the hit is what the rule describes (bandit's second axis)."""

    LOW = 0
    MEDIUM = 1
    HIGH = 2

    @classmethod
    def parse(cls, text: str) -> "Confidence":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown confidence {text!r} (expected low, medium or high)") from None

    def __str__(self) -> str:
        return self._name_.lower()


class Status(str, enum.Enum):
    """Where a spot stands in the port: still to do, already done for ROCm, or kept NVIDIA-only on purpose.

    Port-awareness (issue 10) decides it; everything else only reads it. `open` is the default so that a
    repository with no ROCm code reads exactly as before.
    """

    OPEN = "open"  # work to do
    HANDLED = "handled"  # a ROCm path exists (a guard's other branch, a compat header, a ROCm twin)
    CUDA_ONLY = "cuda-only"  # kept NVIDIA-only by the build or by the team's config: optional work

    @classmethod
    def parse(cls, text: str) -> "Status":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown status {text!r} (expected open, handled or cuda-only)") from None

    def __str__(self) -> str:
        return self._value_


# `scan --status` values: each Status, or all of them (here, not in porter.portaware, so the command line checks one
# without loading the port-status stage).
STATUS_CHOICES = (*(s.value for s in Status), "all")
# A finding's data key naming the repository file its work lies in (LIB014: the includer needs that project header's
# HIP counterpart): port status keeps such a finding open only while that file has open findings of its own.
PROJECT_HEADER = "project_header"


@dataclass(frozen=True, order=True)
class Finding:
    """One rule hit at one place in one file."""

    path: str  # relative to the scan root, forward slashes
    line: int  # 1-based
    column: int  # 1-based
    rule: str
    end_line: int
    end_column: int
    category: str
    severity: Severity
    confidence: Confidence
    message: str
    snippet: str = ""  # the matched text, trimmed to one line
    function: str | None = None  # enclosing function, if any
    kernel: str | None = None  # enclosing __global__ kernel, if any
    fingerprint: str = ""  # stable across line moves; see porter.match.engine.with_fingerprints
    replacement: str | None = None  # the HIP/ROCm name or replacement, when known
    data: tuple[tuple[str, Any], ...] = ()  # rule-specific facts, as sorted key/value pairs
    status: Status = Status.OPEN  # see Status; set by port-awareness after matching
    handled_by: str | None = None  # for handled/cuda-only: "path:line" of the guard, compat header or config key

    @classmethod
    def from_fields(cls, values: Iterable[Any]) -> "Finding":
        """A Finding from every field's value in declaration order, built as pickle and copy rebuild one (its
        __dict__ filled at once): the generated __init__ of a frozen dataclass sets each field through
        object.__setattr__, 2.5x slower, and a scan builds one per rule hit. Like __init__ it checks nothing."""
        f = object.__new__(cls)
        f.__dict__.update(zip(_FINDING_FIELDS, values))
        return f

    def unused(self, why: str) -> "Finding":
        """This finding at info, with why its code is no port work in `data["unused"]`: a definition or an inline
        helper nothing the ROCm build compiles uses (porter.match.refine_vectors, porter.match.refine_helpers)."""
        return replace(self, severity=Severity.INFO, data=tuple(sorted({**dict(self.data), "unused": why}.items())))

    def to_dict(self) -> dict[str, Any]:
        d = {
            "rule": self.rule,
            "category": self.category,
            "severity": _SEVERITY_WORDS[self.severity],
            "confidence": _CONFIDENCE_WORDS[self.confidence],
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "snippet": self.snippet,
            "function": self.function,
            "kernel": self.kernel,
            "fingerprint": self.fingerprint,
            "replacement": self.replacement,
            "status": _STATUS_WORDS[self.status],
            "handled_by": self.handled_by,
        }
        if self.data:
            d["data"] = dict(self.data)
        return d


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))


class _Words(dict[Any, str]):
    """str() of each member of one enum, by the member: a report asks three times per finding, and each str() is a
    Python call where this lookup is not (the members hash as their int or str value, so each enum has its own
    table: Severity.INFO == Confidence.LOW == 0). A value that is not a member gets its str() as before."""

    def __missing__(self, value: Any) -> str:
        return str(value)


_SEVERITY_WORDS = _Words({m: str(m) for m in Severity})
_CONFIDENCE_WORDS = _Words({m: str(m) for m in Confidence})
_STATUS_WORDS = _Words({m: str(m) for m in Status})


# Why porter skips a file it would otherwise read: over the size or line limit, past its time or memory budget, its
# parser died, or a porter bug (porter.pipeline's reasons, porter.contain's and porter.source.read's size refusals).
# A text file of another language with a NUL byte is one too (a C/C++/CUDA file is read with its NULs as spaces,
# as nvcc and gcc compile it, porter.pipeline.scan_candidate).
# So is a source file committed as a Git LFS pointer (the checkout the build compiles holds the real file), and a
# GPU source of a language porter does not read (CUDA Fortran, porter.source.discover.unread_reason).
UNSEEN_REASONS = re.compile(r"over the [\d.]+ MiB limit|lines \(generated\?\)|^took longer than |^needed more than |"
                            r"^parser process died|^porter failed on this file \(internal error|"
                            r"^binary file \(NUL bytes\) where text was expected|^a Git LFS pointer|"
                            r"^not kept: past [\d,]+ findings|^not kept: past [\d,]+ files to scan|"
                            r"failed \(internal error|^git submodule this change adds|"
                            r"^#include of .* names a file with no source language that is not beside it|"
                            r"^#include .* names its file through macros porter cannot resolve|"
                            r"^the build compiles as CUDA .*, which porter cannot resolve$|"
                            r"^a CMake file\(GLOB\) of .* compiled as CUDA lists more than|"
                            r"^C/C\+\+/CUDA file a \.gitignore of the tree \(not a git checkout\) ignores|"
                            r"^CUDA Fortran source: porter does not read Fortran"
                            r"|^build file past the [\d,]+ MiB of build files porter reads in one scan")


@dataclass(frozen=True, order=True)
class Skipped:
    """A file the scan could not or would not read, and why; never silently dropped."""

    path: str
    reason: str

    @property
    def unseen(self) -> bool:
        """Whether porter meant to read this file and could not (UNSEEN_REASONS): code that a gate or a pull-request
        comment must not pass as clean, unlike a symlink or a submodule porter never reads on purpose."""
        return UNSEEN_REASONS.search(self.reason) is not None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason}
