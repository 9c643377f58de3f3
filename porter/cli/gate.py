"""The exit gate, written once: exit 1 when a counted finding has --fail-on's severity or worse, else 0.

Counted are open findings unless --status names others: a spot a ROCm path already handles, or one kept CUDA-only
on purpose, never fails CI. `scan`, `scan --new-since/--baseline` (its new findings) and `check` all ask here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from porter.cli.base import EXIT_FINDINGS, EXIT_OK

if TYPE_CHECKING:
    from porter.model import Finding, Severity


def gate(findings: Iterable[Finding], threshold: Severity | None, status: str = "open") -> int:
    """EXIT_FINDINGS when one of `findings` of port status `status` ("all": any) is at or above `threshold`."""
    if threshold is None:
        return EXIT_OK
    from porter.model import Status

    want = None if status == "all" else Status.parse(status)
    failing = any(f.severity >= threshold and (want is None or f.status == want) for f in findings)
    return EXIT_FINDINGS if failing else EXIT_OK
