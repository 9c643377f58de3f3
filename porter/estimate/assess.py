"""Turn a scan into a migration assessment: a verdict, an effort range in engineer-days, and where it comes from.

`assess(result, targets, model)` is a pure function of its inputs: it reads the findings and kernel verdicts of a
ScanResult, the rules' effort sizes and HIP equivalents, the CUDA-library map and the effort model, and runs the
stages of porter.estimate over them — cost (items of hours), verdict (and its reasons), breakdowns, advice and
assumptions — into an `Assessment`. Every hour in it belongs to one costed item (a rule's hits in one file, a
kernel, or a repository-wide job such as replacing TensorRT-LLM), and every item lists the fingerprints of the
findings behind it, so each figure in a report can be traced back to lines of code.

Verdicts, worst first: blocked (depends on something with no ROCm equivalent until it is replaced), port (manual
porting or retuning), mechanical (hipify plus review), ready (a container or version change; also "nothing to
port" when there is no CUDA at all).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from porter.estimate.advice import recommendations
from porter.estimate.assumptions import assumptions
from porter.estimate.breakdowns import breakdowns
from porter.estimate.cost import Item, cost
from porter.estimate.effort_model import EffortModel, Hours, load_effort_model
from porter.estimate.inputs import Inputs
from porter.estimate.verdict import VERDICT_MEANING, Reason, decide
from porter.libraries import Library, load_libraries
from porter.model import ScanResult
from porter.rules import RuleSet, load_rules
from porter.targets import Target

UNIT = "engineer-days"


@dataclass(frozen=True)
class Assessment:
    """What it takes to run a scanned repository on the selected AMD targets."""

    verdict: str
    nothing_to_port: bool
    headline: str
    reasons: tuple[Reason, ...]
    hours: Hours
    days: Hours
    targets: tuple[dict[str, Any], ...]
    items: tuple[Item, ...]
    breakdowns: dict[str, Any]
    recommendations: tuple[dict[str, Any], ...]
    assumptions: tuple[str, ...]
    model: EffortModel = field(compare=False)
    finding_item: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → item id
    finding_class: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → CLASSES entry

    @property
    def deciding(self) -> list[Reason]:
        return [r for r in self.reasons if r.level == self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "meaning": VERDICT_MEANING[self.verdict],
            "nothing_to_port": self.nothing_to_port,
            "headline": self.headline,
            "reasons": [r.to_dict(r.level == self.verdict) for r in self.reasons],
            "effort": {**self.days.to_dict(), "unit": UNIT, "hours": self.hours.to_dict()},
            "targets": list(self.targets),
            "breakdowns": self.breakdowns,
            "items": [i.to_dict(self.model) for i in self.items],
            "recommendations": list(self.recommendations),
            "assumptions": list(self.assumptions),
            "model": {"source": self.model.source, "override": self.model.override,
                      "hours_per_day": self.model.hours_per_day},
        }


def assess(
    result: ScanResult,
    targets: list[Target],
    model: EffortModel | None = None,
    rules: RuleSet | None = None,
    libraries: Mapping[str, Library] | None = None,
) -> Assessment:
    """Assess a scan for `targets` (at least one) with an effort model (default: the shipped one)."""
    if not targets:
        raise ValueError("assess needs at least one target")
    model = model or load_effort_model()
    rules = rules or result.rules or load_rules()
    libraries = libraries if libraries is not None else load_libraries()
    inputs = Inputs.of(result, model, rules, libraries)
    scope = inputs.scope(targets)
    costing = cost(inputs, scope)
    decision = decide(inputs, scope, costing.kernels)
    per_target = []
    for t in targets:
        one = inputs.scope([t])
        one_cost = cost(inputs, one)
        one_decision = decide(inputs, one, one_cost.kernels)
        per_target.append({
            "id": t.id, "name": t.name, "gfx": t.gfx, "pre_release": t.pre_release, "verdict": one_decision.verdict,
            "effort": {**model.days(one_cost.hours).to_dict(), "unit": UNIT},
            "deciding": [r.title for r in one_decision.reasons if r.level == one_decision.verdict],
        })
    nothing = not scope.findings and not result.kernels
    days = model.days(costing.hours)
    scanned = sum(1 for f in result.files if f.skipped is None)
    names = ", ".join(t.name for t in targets)
    if nothing:
        headline = (f"Nothing to port: no CUDA found in {scanned} scanned file{'' if scanned == 1 else 's'}"
                    + (f" ({len(scope.not_applicable)} finding{' does' if len(scope.not_applicable) == 1 else 's do'} not apply to {names})" if result.findings else "")
                    + ".")
        verdict = "ready"
    else:
        verdict = decision.verdict
        headline = (f"{verdict.capitalize()} ({VERDICT_MEANING[verdict]}): {days.low:g}–{days.high:g} engineer-days, "
                    f"likely {days.likely:g}, for {names}.")
    return Assessment(
        verdict=verdict,
        nothing_to_port=nothing,
        headline=headline,
        reasons=decision.reasons,
        hours=costing.hours,
        days=days,
        targets=tuple(per_target),
        items=tuple(sorted(costing.items, key=lambda i: (-i.hours.likely, i.id))),
        breakdowns=breakdowns(inputs, scope, costing),
        recommendations=tuple(recommendations(inputs, scope, costing, decision)),
        assumptions=tuple(assumptions(inputs, scope, costing)),
        model=model,
        finding_item=dict(costing.finding_item),
        finding_class=dict(scope.classes),
    )


def attach(result: ScanResult, assessment: Assessment) -> ScanResult:
    """The scan with its assessment under `extra['assessment']`, so `to_dict` carries both."""
    return dataclasses.replace(result, extra={**result.extra, "assessment": assessment.to_dict()})
