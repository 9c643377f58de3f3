"""The headline totals of a scan, counted once, and which findings each output format carries: every renderer reads
these, none counts or filters on its own.

The rule (docs/reports.md, "Every format, the same totals"): every format carries every finding the run shows —
after `--status` and `--min-severity`, which narrow what is shown for all formats alike — and prints the same
totals: findings by port status (open, handled, cuda-only), each by severity, and the files scanned, with findings
and with open findings. JSON, CSV and the console list every finding; Markdown and HTML list them behind the
effort items and print the totals table. SARIF alone shows fewer by design, and says so in SARIF's own fields:
its results are every shown finding except the info notes of rules whose HIP equivalent is a rename ("hipify
renames it", "a kernel is defined": hundreds of code-scanning alerts with nothing to do), which one tool-execution
notification per rule counts instead (by status, in the run's properties), unless a minimum severity is asked for; handled and
cuda-only findings carry an accepted `external` suppression; findings a `porter: ignore` comment suppresses are
results with an accepted `inSource` suppression. So results + the notifications' counts = findings + suppressed,
and the run's `properties.porter.totals` is this module's dictionary.

Before this, each renderer filtered and counted for itself: on pjreddie/darknet JSON listed 489 findings and SARIF
202 results with nothing saying where the other 287 went.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol

from porter.model.finding import Finding, Severity, Status


class Scanned(Protocol):
    """What the totals read of a scan (porter.model.report.ScanResult, named here, not imported: the report's JSON
    summary reads this module)."""

    @property
    def findings(self) -> tuple[Finding, ...]: ...
    @property
    def suppressed(self) -> tuple[Finding, ...]: ...
    @property
    def files(self) -> tuple[Any, ...]: ...
    @property
    def kernels(self) -> tuple[Any, ...]: ...
    @property
    def launches(self) -> tuple[Any, ...]: ...
    @property
    def skipped(self) -> tuple[Any, ...]: ...

# Status keys as JSON and every table spell them (Status values, "cuda-only" as a key: cuda_only)
STATUS_KEYS = {Status.OPEN: "open", Status.HANDLED: "handled", Status.CUDA_ONLY: "cuda_only"}
SEVERITIES = tuple(reversed(Severity))  # worst first, as every table lists them


@dataclass(frozen=True)
class Totals:
    """What every format's headline says about one shown scan."""

    findings: int
    # status key → severity name → count (every status and severity present, zeros included)
    by_status: Mapping[str, Mapping[str, int]]
    files_scanned: int  # files read and matched (not skipped)
    files_with_findings: int  # distinct paths among the findings
    files_with_open_findings: int  # distinct paths among the open findings
    suppressed: int  # findings a `porter: ignore` comment (or the configuration) suppresses: not among `findings`
    kernels: int
    launches: int
    skipped: int

    def status(self, key: str) -> int:
        return sum(self.by_status[key].values())

    @property
    def open(self) -> int:
        return self.status("open")

    @property
    def handled(self) -> int:
        return self.status("handled")

    @property
    def cuda_only(self) -> int:
        return self.status("cuda_only")

    def severity(self, name: str) -> int:
        return sum(per[name] for per in self.by_status.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "findings": self.findings, "open": self.open, "handled": self.handled, "cuda_only": self.cuda_only,
            "by_status": {k: dict(v) for k, v in self.by_status.items()},
            "files_scanned": self.files_scanned, "files_with_findings": self.files_with_findings,
            "files_with_open_findings": self.files_with_open_findings, "suppressed": self.suppressed,
            "kernels": self.kernels, "launches": self.launches, "skipped": self.skipped,
        }


def by_status(findings: Iterable[Finding]) -> dict[str, dict[str, int]]:
    """status key → severity name (worst first) → count, zeros included."""
    n = Counter((f.status, f.severity) for f in findings)
    return {key: {str(s): n[(st, s)] for s in SEVERITIES} for st, key in STATUS_KEYS.items()}


def totals(result: Scanned) -> Totals:
    """The totals of the findings `result` shows (after --status and --min-severity)."""
    fs = result.findings
    return Totals(
        findings=len(fs), by_status=by_status(fs),
        files_scanned=sum(1 for f in result.files if f.skipped is None),
        files_with_findings=len({f.path for f in fs}),
        files_with_open_findings=len({f.path for f in fs if f.status is Status.OPEN}),
        suppressed=len(result.suppressed), kernels=len(result.kernels), launches=len(result.launches),
        skipped=len(result.skipped),
    )


def status_phrase(t: Totals) -> str:
    """'336 open (1 medium, 8 low, 327 info), 0 handled, 153 cuda-only (124 high, 29 medium)': each status with its
    severities, the console's and every title's words."""
    parts = []
    for key, word in (("open", "open"), ("handled", "handled"), ("cuda_only", "cuda-only")):
        sev = ", ".join(f"{n} {s}" for s, n in t.by_status[key].items() if n)
        parts.append(f"{t.status(key)} {word}" + (f" ({sev})" if sev else ""))
    return ", ".join(parts)


def rename_note(f: Finding, rules: Any) -> bool:
    """An info finding of a rule whose HIP equivalent is a rename: hipify does it, nobody acts on it."""
    if f.severity != Severity.INFO:
        return False
    rule = rules.get(f.rule) if rules is not None else None
    return rule is not None and rule.hip_equivalent.get("kind") == "rename"


@dataclass(frozen=True)
class Carried:
    """The findings a format lists as entries of its own, and those it counts without listing."""

    findings: tuple[Finding, ...]
    # rule id → status key → findings counted, not listed (nonzero statuses only; SARIF's notifications)
    counted_apart: Mapping[str, Mapping[str, int]]

    @property
    def left_out(self) -> int:
        return sum(n for per in self.counted_apart.values() for n in per.values())


def carried(fmt: str, findings: Iterable[Finding], rules: Any, min_severity: Severity | None = None) -> Carried:
    """The findings format `fmt` lists: all of them, except in SARIF without a minimum severity asked for, where the
    info notes of rename rules are counted per rule and status instead (see the module docstring)."""
    fs = tuple(findings)
    if fmt != "sarif" or min_severity is not None:
        return Carried(fs, {})
    kept, apart = [], Counter[tuple[str, str]]()
    for f in fs:
        if rename_note(f, rules):
            apart[(f.rule, STATUS_KEYS[f.status])] += 1
        else:
            kept.append(f)
    per: dict[str, dict[str, int]] = {}
    for (rid, key), n in sorted(apart.items()):
        per.setdefault(rid, {})[key] = n
    return Carried(tuple(kept), per)


def merge_counted(*parts: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Counted-apart tallies added up (rule id → status key → n)."""
    out: dict[str, dict[str, int]] = {}
    for part in parts:
        for rid, per in part.items():
            for key, n in per.items():
                out.setdefault(rid, {})[key] = out.get(rid, {}).get(key, 0) + n
    return {rid: dict(sorted(per.items())) for rid, per in sorted(out.items())}
