"""Count an assessed scan's findings and files once, each with the one label every format prints it under.

Reports used to count differently ("2045 findings in 127 files" in HTML, "in 615 files" in Markdown, "in 1031 files"
from `scan`: files with costed work, files with findings, files scanned) and showed "free with hipify 179 + needs an
engineer 478" under "all findings 2045" with the rest unexplained. Here every count has a definition and a label,
and the finding counts partition: all findings = open + handled + cuda-only, and open = the open findings in the
estimate (free with hipify + needs an engineer + informational) + the open ones under optional paths + the open ones
that do not apply on the selected targets.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from porter.model import ScanResult, Status

# key → the label every format uses for it
LABELS = {
    "files_scanned": "files scanned",
    "files_with_findings": "files with findings",
    "files_with_open_findings": "files with open findings",
    "findings": "all findings",
    "open": "open",
    "handled": "handled",
    "cuda_only": "cuda-only",
    "estimated": "open, in the estimate",
    "free_with_hipify": "free with hipify",
    "needs_engineer": "needs an engineer",
    "informational": "informational",
    "optional": "open, optional (costed apart)",
    "other_targets": "open, not on these targets",
    "suppressed": "suppressed",
    "kernels": "kernels",
    "launches": "launch sites",
    "skipped": "files skipped",
}


def phrase(key: str, n: int) -> str:
    """'23 files scanned', '1 file scanned': a count with its label."""
    label = LABELS[key]
    return f"{n} {label[:4] + label[5:] if n == 1 and label.startswith('files') else label}"


@dataclass(frozen=True)
class Counts:
    files_scanned: int  # files read and matched (not skipped)
    files_with_findings: int  # distinct paths among all findings
    files_with_open_findings: int  # distinct paths among the open findings
    findings: int  # all findings, whatever their status
    open: int  # status open: work to do somewhere
    handled: int  # status handled: a ROCm path exists
    cuda_only: int  # status cuda-only: kept NVIDIA-only on purpose
    estimated: int  # open, applicable on a selected target, not optional: what the headline costs
    free_with_hipify: int
    needs_engineer: int
    informational: int
    optional: int  # open, under an optional path (contrib/, a separately built extension)
    other_targets: int  # open, but no rule target among the selected ones
    suppressed: int
    kernels: int
    launches: int
    skipped: int
    # fingerprint → the leaf row it is counted in (free_with_hipify, needs_engineer, informational, optional,
    # other_targets, handled or cuda_only), so a per-finding format (CSV) says where each row is counted
    counted_as: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "counted_as"}


def count(result: ScanResult, scope) -> Counts:
    """The counts of `result` as assessed for `scope` (porter.estimate.inputs.Scope). The statuses and files are the
    scan's totals (porter.model.totals), defined once for every format."""
    from porter.model.totals import totals

    t = totals(result)
    classes = {c: 0 for c in ("free_with_hipify", "needs_engineer", "informational")}
    for f in scope.findings:
        classes[scope.classes[f.fingerprint]] += 1
    where: dict[str, str] = {}
    for f in result.findings:
        if f.status != Status.OPEN:
            where[f.fingerprint] = "handled" if f.status == Status.HANDLED else "cuda_only"
    for f in scope.not_applicable:
        where.setdefault(f.fingerprint, "other_targets")
    for f in scope.optional_findings:
        where.setdefault(f.fingerprint, "optional")
    for f in scope.findings:
        where[f.fingerprint] = scope.classes[f.fingerprint]
    return Counts(
        files_scanned=t.files_scanned, files_with_findings=t.files_with_findings,
        files_with_open_findings=t.files_with_open_findings, findings=t.findings,
        open=t.open, handled=t.handled, cuda_only=t.cuda_only,
        estimated=len(scope.findings), **classes,
        optional=sum(1 for f in scope.optional_findings if f.status == Status.OPEN),
        other_targets=sum(1 for f in scope.not_applicable if f.status == Status.OPEN),
        suppressed=t.suppressed, kernels=t.kernels, launches=t.launches, skipped=t.skipped, counted_as=where,
    )
