"""The data porter passes between pipeline stages: frozen dataclasses and enums, nothing that does work.

Every stage takes and returns these values, so a stage can be tested alone and results can be cached,
compared and serialised. `to_dict` gives the JSON contract documented in porter/schemas/scan.schema.json.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = "1.0"


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
        return self.name.lower()


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
        return self.name.lower()


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
    fingerprint: str = ""  # stable across line moves; see match._with_fingerprints
    replacement: str | None = None  # the HIP/ROCm name or replacement, when known
    data: tuple[tuple[str, Any], ...] = ()  # rule-specific facts, as sorted key/value pairs

    def to_dict(self) -> dict[str, Any]:
        d = {
            "rule": self.rule,
            "category": self.category,
            "severity": str(self.severity),
            "confidence": str(self.confidence),
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
        }
        if self.data:
            d["data"] = dict(self.data)
        return d


@dataclass(frozen=True, order=True)
class Launch:
    """A kernel launch site: `k<<<...>>>(...)` or a launch API call."""

    path: str
    line: int
    column: int
    kernel: str  # the launched kernel's name as written at the site (template arguments stripped)
    kind: str  # chevron | cudaLaunchKernel | cudaLaunchCooperativeKernel | cuLaunchKernel | ...
    config: tuple[str, ...] = ()  # the launch configuration expressions as written (grid, block, smem, stream)
    function: str | None = None  # the function the launch is written in

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "kernel": self.kernel,
            "kind": self.kind,
            "config": list(self.config),
            "function": self.function,
        }


@dataclass(frozen=True, order=True)
class Kernel:
    """A `__global__` function definition."""

    path: str
    line: int
    end_line: int
    name: str  # unqualified name
    qualified_name: str  # as written in the declarator, e.g. ns::k
    is_template: bool = False
    via_macro: str | None = None  # the macro that hid `__global__`, when one did
    launch_bounds: tuple[str, ...] = ()
    facts: tuple[tuple[str, Any], ...] = ()  # filled by kernel analysis (porter.kernels)

    def to_dict(self, launches: list[Launch] | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "qualified_name": self.qualified_name,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "is_template": self.is_template,
            "via_macro": self.via_macro,
            "launch_bounds": list(self.launch_bounds),
            "launches": [l.to_dict() for l in (launches or [])],
        }
        d.update(dict(self.facts))
        return d


@dataclass(frozen=True, order=True)
class Skipped:
    """A file the scan could not or would not read, and why; never silently dropped."""

    path: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason}


@dataclass(frozen=True)
class FileResult:
    """Everything one file contributes to a scan; the unit that is cached by content hash."""

    path: str
    language: str
    lines: int
    findings: tuple[Finding, ...] = ()
    suppressed: tuple[Finding, ...] = ()
    kernels: tuple[Kernel, ...] = ()
    launches: tuple[Launch, ...] = ()
    skipped: Skipped | None = None
    parse_error_lines: int = 0


@dataclass(frozen=True)
class ScanResult:
    """A whole scan: sorted findings, kernels with their launches, file counts and skips."""

    root: str
    findings: tuple[Finding, ...]
    suppressed: tuple[Finding, ...]
    kernels: tuple[Kernel, ...]
    launches: tuple[Launch, ...]
    files: tuple[FileResult, ...]
    skipped: tuple[Skipped, ...]
    targets: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # later stages attach their results here
    # How the scan went (cache hits and misses); never serialised, so results stay byte-identical across runs.
    stats: dict[str, Any] = field(default_factory=dict, compare=False)
    # The validated rule set the findings came from (porter.rules.RuleSet), so later stages (kernel verdicts,
    # assessment, SARIF) read the same rules, project rules included, without loading them again.
    rules: Any = field(default=None, compare=False, repr=False)

    def launches_of(self, kernel: Kernel) -> list[Launch]:
        """Launch sites of this kernel: those in its own file, and those in files that define no kernel of that
        name (a launch next to its own `k` is that `k`'s, not another file's); same-file launches first."""
        index = self.__dict__.get("_launch_index")
        if index is None:
            # Built once: a linear scan per kernel made large repositories quadratic.
            by_name: dict[str, list[Launch]] = {}
            for l in self.launches:
                by_name.setdefault(l.kernel, []).append(l)
            defined_in: dict[str, set[str]] = {}
            for k in self.kernels:
                defined_in.setdefault(k.name, set()).add(k.path)
            index = (by_name, defined_in)
            object.__setattr__(self, "_launch_index", index)
        by_name, defined_in = index
        homes = defined_in.get(kernel.name, set())
        hits = [l for l in by_name.get(kernel.name, []) if l.path == kernel.path or l.path not in homes]
        return sorted(hits, key=lambda l: (l.path != kernel.path, l.path, l.line, l.column))

    def summary(self) -> dict[str, Any]:
        by_sev = {str(s): 0 for s in Severity}
        by_cat: dict[str, int] = {}
        by_rule: dict[str, int] = {}
        for f in self.findings:
            by_sev[str(f.severity)] += 1
            by_cat[f.category] = by_cat.get(f.category, 0) + 1
            by_rule[f.rule] = by_rule.get(f.rule, 0) + 1
        return {
            "findings": len(self.findings),
            "suppressed": len(self.suppressed),
            "kernels": len(self.kernels),
            "launches": len(self.launches),
            "by_severity": by_sev,
            "by_category": dict(sorted(by_cat.items())),
            "by_rule": dict(sorted(by_rule.items())),
        }

    def to_dict(self) -> dict[str, Any]:
        scanned = [f for f in self.files if f.skipped is None]
        return {
            "schema": SCHEMA_VERSION,
            "tool": {"name": "porter", "version": _version()},
            "root": self.root,
            "targets": list(self.targets),
            "summary": self.summary(),
            "files": {
                "scanned": len(scanned),
                "lines": sum(f.lines for f in scanned),
                "by_language": _count_by(scanned, lambda f: f.language),
            },
            "findings": [f.to_dict() for f in self.findings],
            "suppressed": [f.to_dict() for f in self.suppressed],
            "kernels": [k.to_dict(self.launches_of(k)) for k in self.kernels],
            # Every launch site, including launches of kernels defined outside the scanned tree.
            "launches": [l.to_dict() for l in self.launches],
            "skipped": [s.to_dict() for s in self.skipped],
            **{k: v for k, v in sorted(self.extra.items())},
        }


def _count_by(items, key) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[key(i)] = out.get(key(i), 0) + 1
    return dict(sorted(out.items()))


def _version() -> str:
    from porter import __version__

    return __version__
