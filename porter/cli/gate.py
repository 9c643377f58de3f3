"""The exit gate, written once: exit 1 when a counted finding has --fail-on's severity or worse, else 0.

Counted are open findings unless --status names others: a spot a ROCm path already handles, or one kept CUDA-only
on purpose, never fails CI. `scan`, `scan --new-since/--baseline` (its new findings) and `check` all ask here. A
file porter meant to read and could not (over a limit, past its budget, a porter bug: ScanResult.unseen) fails a
`scan` gate too: a pull request must not hide code from the gate by making porter skip it. On a change
(`--new-since`, `--baseline`) a kernel verdict the change makes worse on an open kernel counts too, as a finding of
its verdict's severity (porter.diff.KERNEL_SEVERITY: `fix` medium, `rewrite` high): a new kernel with more shared
memory than any AMD target has is ROCm work the change adds, though no rule's finding says so.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from porter.cli.base import EXIT_FINDINGS, EXIT_OK

if TYPE_CHECKING:
    from porter.diff import KernelChange
    from porter.model import Finding, Severity, Skipped


def gate(findings: Iterable[Finding], threshold: Severity | None, status: str = "open",
         kernels: Iterable[KernelChange] = ()) -> int:
    """EXIT_FINDINGS when one of `findings` of port status `status` ("all": any) is at or above `threshold`, or one
    of a change's kernel verdict changes `kernels` is (porter.diff.gating_kernels)."""
    if threshold is None:
        return EXIT_OK
    from porter.diff import gating_kernels
    from porter.model import Status

    want = None if status == "all" else Status.parse(status)
    failing = any(f.severity >= threshold and (want is None or f.status == want) for f in findings)
    return EXIT_FINDINGS if failing or gating_kernels(kernels, threshold) else EXIT_OK


def unseen_warning(files: tuple[Skipped, ...], changed: bool, gated: bool) -> str:
    """The warning naming the files ScanResult.unseen returned (the first three with their reasons)."""
    from porter.render.safe import printable  # a file name may hold terminal escapes: shown, never sent

    named = "; ".join(printable(f"{s.path}: {s.reason}") for s in files[:3]) + (" ..." if len(files) > 3 else "")
    return (f"warning: {len(files)} {'changed ' if changed else ''}file(s) could not be scanned ({named})"
            + ("; --fail-on fails rather than pass code it did not see" if gated else ""))
