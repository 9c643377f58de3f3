"""Read what kernel analysis concluded about a kernel: its verdict on each target, and the code that verdict covers.

The only place in porter.estimate that reads kernel analysis (`Kernel.verdicts`, and the same-file `__device__`
functions in `Kernel.facts` the analysis followed from the kernel), so the costing stages work on their own typed
values and a change to the analysis' shape touches this module alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from porter.kernels.verdicts import CHECK_RULE
from porter.kernels.verdicts import VERDICTS as KERNEL_VERDICTS  # best to worst
from porter.model import Finding, Kernel
from porter.targets import Target

_RULE_ID = re.compile(r"[A-Z]{3}[0-9]{3}")
_NOT_ANALYSED = "not analysed: no kernel analysis for this target"


@dataclass(frozen=True)
class TargetVerdict:
    """A kernel's verdict on one target and why."""

    verdict: str  # a KERNEL_VERDICTS entry
    reasons: tuple[str, ...]  # in words ("wave64-full-mask: 0xffffffff mask ..."), or the bare ids when none say why
    ids: tuple[str, ...]  # the check and rule ids behind the verdict
    lines: frozenset[int]  # source lines the checks point at (in the kernel or a helper it calls)
    analysed: bool  # False: no analysis for this target, the verdict is the effort model's stand-in
    # What the kernel needs, one (need, verdict) per detail: the check or rule id, except that an `inline-ptx` check
    # is told apart by what the PTX does when the analysis did not ("inline-ptx-matrix" for tensor-core, TMA or
    # cluster instructions; "inline-ptx" stays for loads, stores, conversions and arithmetic that HIP builtins or
    # plain C++ replace).
    needs: tuple[tuple[str, str], ...] = ()
    # The source lines behind each need, in the order of `needs` (kernel-file lines; a helper in another file is
    # at the line of its call): where the fix is made, which porter.estimate.dedup reads to cost a shared site once.
    need_lines: tuple[tuple[int, ...], ...] = ()

    @property
    def work(self) -> tuple[str, tuple[str, ...]]:
        """What the kernel needs on this target, without the target: the verdict and the reasons behind it."""
        return self.verdict, tuple(sorted(repr(r) for r in self.reasons))

    @property
    def rules(self) -> set[str]:
        """Rule ids the verdict names (a rule with a `verdict` shows up among the reasons by its id)."""
        return ({m.group(0) for text in self.ids + self.reasons if (m := _RULE_ID.match(text))}
                | {CHECK_RULE[i] for i in self.ids if i in CHECK_RULE})


@dataclass(frozen=True)
class KernelVerdicts:
    """One kernel with its verdict on each selected target, in the order of the targets."""

    kernel: Kernel
    targets: Mapping[str, TargetVerdict]
    helpers: tuple[tuple[int, int], ...] = ()  # (first, last) lines of the same-file __device__ functions it calls

    def covers(self, f: Finding) -> bool:
        """Whether a finding is in code this kernel runs: its own body, or a __device__ helper the analysis followed
        (whose facts, such as a shuffle mask, are in the kernel's verdicts)."""
        k = self.kernel
        if f.path != k.path:
            return False
        if f.kernel == k.name and k.line <= f.line <= k.end_line:
            return True
        return f.kernel is None and any(a <= f.line <= b for a, b in self.helpers)


def inline_ptx_need(k: Kernel, matrix_families: Iterable[str]) -> str:
    """'inline-ptx-matrix' when the kernel's PTX uses a tensor-core, TMA or cluster instruction family, else
    'inline-ptx' (the names of kernel analysis' own checks, where it tells the two apart itself)."""
    facts = k.facts.merged() if k.facts is not None else None  # with the facts of helpers in other files
    families = set(facts.inline_ptx.families) if facts is not None else set()
    tensor = set(facts.tensor_cores) if facts is not None else set()
    matrix = set(matrix_families)
    return "inline-ptx-matrix" if families & matrix or tensor & matrix else "inline-ptx"


def read_kernel(k: Kernel, targets: Iterable[Target], unanalysed: str,
                matrix_families: Iterable[str] = ()) -> KernelVerdicts:
    """The kernel's verdicts on `targets`; a target without analysis gets the verdict `unanalysed`."""
    out: dict[str, TargetVerdict] = {}
    ptx_need = inline_ptx_need(k, matrix_families)
    for t in targets:
        v = k.verdict_on(t.id)
        if v is not None and v.verdict in KERNEL_VERDICTS:
            # The details say why in words; the bare id when a detail carries no message.
            reasons = tuple(f"{x.id}: {x.message}" if x.message else x.id for x in v.details)
            # An analysis that reports matrix PTX on its own leaves `inline-ptx` for the plain part.
            split = any(x.id == "inline-ptx-matrix" for x in v.details)
            kept = [x for x in v.details if x.verdict in KERNEL_VERDICTS]
            needs = tuple((ptx_need if x.id == "inline-ptx" and not split else x.id, x.verdict) for x in kept)
            out[t.id] = TargetVerdict(v.verdict, reasons or v.reasons, v.reasons,
                                      frozenset(n for x in v.details for n in x.lines), True, needs,
                                      tuple(tuple(x.lines) for x in kept))
        else:
            out[t.id] = TargetVerdict(unanalysed, (_NOT_ANALYSED,), (), frozenset(), False)
    helpers = tuple((d.line, d.end_line) for d in (k.facts.device_functions if k.facts is not None else ()))
    return KernelVerdicts(k, out, helpers)
