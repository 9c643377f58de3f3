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
from porter.estimate.counts import Counts, count
from porter.estimate.cost import Costing, Item, cost
from porter.estimate.effort_model import EffortModel, Hours, load_effort_model
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.shares import with_shares
from porter.estimate.verdict import VERDICT_MEANING, Reason, decide
from porter.estimate.wording import effort_text
from porter.libraries import Library, load_libraries
from porter.model import ScanResult, Status
from porter.model.assessment import (Breakdowns, HandledCounts, OptionalWork, Range, Recommendation,
                                     TargetLine)
from porter.rules import RuleSet, load_rules
from porter.targets import Target

UNIT = "engineer-days"


@dataclass(frozen=True)
class ScopeLine:
    """One line of scope beside the headline: feature parity (the minimal port plus the features a project keeps
    optional) or retuning per target. Days are rounded once, here."""

    name: str  # parity | tuning
    hours: Hours
    days: Hours
    mean_hours: float
    findings: int = 0
    kernels: int = 0
    reasons: tuple[tuple[str, str], ...] = ()  # (what, why) of the spots beyond the minimal port
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "hours": self.hours.to_dict(), "days": self.days.to_dict(),
                "mean_hours": round(self.mean_hours, 2), "findings": self.findings, "kernels": self.kernels,
                "reasons": [{"what": w, "why": y} for w, y in self.reasons], "text": self.text}


@dataclass(frozen=True)
class Assessment:
    """What it takes to run a scanned repository on the selected AMD targets."""

    verdict: str
    nothing_to_port: bool
    headline: str
    reasons: tuple[Reason, ...]
    hours: Hours  # P10, median, P90 of the items combined as independent
    days: Hours
    targets: tuple[TargetLine, ...]
    items: tuple[Item, ...]
    breakdowns: Breakdowns
    recommendations: tuple[Recommendation, ...]
    assumptions: tuple[str, ...]
    model: EffortModel = field(compare=False)
    optional: OptionalWork | None = None  # the optional work, costed apart (see `_optional`); None when there is none
    handled: HandledCounts | None = None  # handled/open spot counts (see `handled_counts`), None when nothing is handled
    costed_target: str | None = None  # with several targets: the one whose work the headline costs
    finding_item: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → item id
    finding_class: Mapping[str, str] = field(default_factory=dict, compare=False)  # fingerprint → CLASSES entry
    mean_hours: float = 0.0  # the items' PERT means added up: what a spreadsheet of the items sums to
    parity: ScopeLine | None = None  # feature parity; None when the minimal port is all of it
    tuning: ScopeLine | None = None  # retuning per target (not in the headline); None when nothing is to retune
    templates: tuple[Any, ...] = ()  # porter.estimate.cost.TemplateGroup: kernels costed once as copies
    fix_sites: tuple[Any, ...] = ()  # porter.estimate.cost.FixSite: shared places fixed once
    counts: Counts | None = None  # every count a report prints, defined once (porter.estimate.counts)

    @property
    def deciding(self) -> list[Reason]:
        return [r for r in self.reasons if r.level == self.verdict]

    def effort(self) -> dict[str, Any]:
        """The headline effort as the JSON report and SARIF's run properties give it."""
        return {**self.days.to_dict(), "unit": UNIT, "hours": self.hours.to_dict(), "range": "P10–P90",
                "mean_hours": round(self.mean_hours, 2)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "meaning": VERDICT_MEANING[self.verdict],
            "nothing_to_port": self.nothing_to_port,
            "headline": self.headline,
            "reasons": [r.to_dict(r.level == self.verdict) for r in self.reasons],
            "effort": self.effort(),
            "targets": [t.to_dict() for t in self.targets],
            "breakdowns": self.breakdowns.to_dict(),
            "counts": self.counts.to_dict() if self.counts else None,
            "items": [i.to_dict(self.model) for i in self.items],
            "optional": self.optional.to_dict() if self.optional else None,
            "scope": {"minimal": {"hours": self.hours.to_dict(), "days": self.days.to_dict(),
                                  "mean_hours": round(self.mean_hours, 2)},
                      "parity": self.parity.to_dict() if self.parity else None},
            "tuning": self.tuning.to_dict() if self.tuning else None,
            "templates": [{"name": g.name, "path": g.path, "line": g.line, "count": g.count, "files": len(g.paths),
                           "item": g.item, "hours": g.hours.to_dict(), "text": g.text} for g in self.templates],
            "fix_sites": [{"site": x.label, "need": x.need, "kernels": x.kernels, "item": x.item,
                           "hours": x.hours.to_dict()} for x in self.fix_sites],
            "handled": self.handled.to_dict() if self.handled else None,
            "costed_target": self.costed_target,
            "recommendations": [r.to_dict() for r in self.recommendations],
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
    per_target = []
    single: dict[str, tuple[Target, Any]] = {}  # gfx → (its costliest target, that target's costing)
    for t in targets:
        one = inputs.scope([t])
        one_cost = cost(inputs, one)
        one_decision = decide(inputs, one, one_cost.kernels)
        per_target.append(TargetLine(
            t.id, t.name, t.gfx, t.pre_release, one_decision.verdict, Range.of(model.days(one_cost.hours).to_dict()),
            UNIT, tuple(r.title for r in one_decision.reasons if r.level == one_decision.verdict)))
        if t.gfx not in single or one_cost.mean > single[t.gfx][1].mean:
            single[t.gfx] = (t, one_cost)
    # Targets that share a gfx are one chip: their work is costed once, together. The headline is the costliest
    # chip's work: the port for one chip carries the others' (their own differences are in the per-target lines).
    gfx = max(single, key=lambda g: (single[g][1].mean, g))
    chip = [t for t in targets if t.gfx == gfx]
    costed = inputs.scope(chip)
    costing = cost(inputs, costed)
    decision = decide(inputs, scope, cost(inputs, scope).kernels) if len(single) > 1 else decide(inputs, costed, costing.kernels)
    optional = _optional(inputs, costed, costing)
    parity = _parity(inputs, costed, costing)
    tuning = _tuning(model, costing, chip)
    nothing = not scope.findings and not scope.kernels and not scope.optional_findings and not scope.optional_kernels
    days = model.days(costing.hours)
    scanned = sum(1 for f in result.files if f.skipped is None)
    names = ", ".join(t.name for t in targets)
    if nothing:
        headline = (f"Nothing to port: no CUDA found in {scanned} scanned file{'' if scanned == 1 else 's'}"
                    + (f" ({len(scope.not_applicable)} finding{' does' if len(scope.not_applicable) == 1 else 's do'} not apply to {names})" if result.findings else "")
                    + ".")
        if scope.handled:
            headline = f"Nothing left to port: every one of the {scope.handled} CUDA spot(s) is handled."
        verdict = "ready"
    else:
        verdict = decision.verdict
        # The effort as the reports write it (a few hours in hours, not "0–1 days"), from the same rounded days.
        headline = (f"{verdict.capitalize()} ({VERDICT_MEANING[verdict]}): "
                    f"{effort_text(days.rounded(), costing.hours)}, for {names}.")
    return Assessment(
        verdict=verdict,
        nothing_to_port=nothing,
        headline=headline,
        reasons=decision.reasons,
        hours=costing.hours,
        days=days,
        targets=tuple(per_target),
        items=tuple(sorted(costing.items, key=lambda i: (-i.hours.likely, i.id))),
        breakdowns=Breakdowns.of(with_shares(breakdowns(inputs, costed, costing, scope.targets), days, costing.hours,
                                             sorted(costing.items, key=lambda i: (-i.hours.likely, i.id)),
                                             model.hours_per_day)),
        recommendations=tuple(map(Recommendation.of, recommendations(inputs, scope, costing, decision))),
        assumptions=tuple(assumptions(inputs, costed, costing, chip if len(single) > 1 else None)),
        model=model,
        optional=optional,
        handled=handled_counts(result, scope),
        costed_target=chip[0].id if len(single) > 1 else None,
        finding_item=dict(costing.finding_item),
        finding_class=dict(scope.classes),
        mean_hours=costing.mean,
        parity=parity,
        tuning=tuning,
        templates=costing.templates,
        fix_sites=costing.sites,
        counts=count(result, costed),
    )


def _parity(inputs: Inputs, scope: Scope, costing: Costing) -> ScopeLine | None:
    """Feature parity: the minimal port's scope plus what it leaves for parity, costed as one port."""
    if not scope.parity_findings and not scope.parity_kernels:
        return None
    full = cost(inputs, scope.with_parity())
    model = inputs.model
    days = model.days(full.hours)
    whats = sorted({w for w, _ in scope.parity_reasons})
    return ScopeLine("parity", full.hours, days, full.mean, len(scope.parity_findings), len(scope.parity_kernels),
                     scope.parity_reasons,
                     f"Feature parity: {effort_text(days.rounded(), full.hours)}, with "
                     f"{len(scope.parity_kernels)} kernel(s) and {len(scope.parity_findings)} finding(s) a minimal port "
                     f"leaves out ({', '.join(whats[:4])}{' …' if len(whats) > 4 else ''}).")


def _tuning(model: EffortModel, costing: Costing, chip: list[Target]) -> ScopeLine | None:
    """Retuning (Triton num_warps, __launch_bounds__) for the costed chip: after the port, never in it."""
    if costing.tuning.likely <= 0:
        return None
    from porter.estimate.ranges import percentiles, pert

    s = pert(costing.tuning)
    hours = percentiles(s)
    days = model.days(hours)
    return ScopeLine("tuning", hours, days, s.mean,
                     text=f"Retuning after the port, not in the headline: {effort_text(days.rounded(), hours)} for "
                          f"NVIDIA-tuned num_warps and __launch_bounds__.")


def _optional(inputs: Inputs, scope: Scope, costing: Costing) -> OptionalWork | None:
    """Optional work (cuda-only spots, contrib/ and other optional paths), costed apart: never in the headline."""
    opt = scope.optional()
    if not opt.findings and not opt.kernels:
        return None
    extra = cost(inputs, opt, skip_jobs=costing.jobs)
    model = inputs.model
    days = model.days(extra.hours)
    paths = sorted({f.path for f in opt.findings} | {k.path for k in opt.kernels})
    return OptionalWork(
        len(opt.findings), len(opt.kernels), len(paths), Range.of(extra.hours.to_dict()), Range.of(days.to_dict()),
        round(extra.mean, 2),
        (f"Optional (not in the headline or the verdict): {effort_text(days.rounded(), extra.hours)}, "
         f"for {len(opt.findings)} finding(s) and {len(opt.kernels)} kernel(s) in "
         f"{len(paths)} file(s) kept CUDA-only or under optional paths."),
        tuple(i.to_dict(model) for i in sorted(extra.items, key=lambda i: (-i.hours.likely, i.id))))


def handled_counts(result: ScanResult, scope: Scope) -> HandledCounts | None:
    """How much of the port is already done: the port-awareness stage's own counts when it gives them
    (`result.port_status`), else the statuses of the findings in scope."""
    given = result.port_status
    if given is not None:
        handled, open_, cuda_only = given.findings.handled, given.findings.open, given.findings.cuda_only
        total = handled + open_ + cuda_only
    else:
        live = scope.findings + scope.optional_findings
        handled, total = scope.handled, scope.spots
        cuda_only = sum(1 for f in live if f.status == Status.CUDA_ONLY)
        open_ = len(live) - cuda_only
    if not handled:
        return None
    share = round(100 * handled / total) if total else 0
    return HandledCounts(handled, open_, total, share, cuda_only,
                         f"{handled} of {total} spots handled ({share}%); {open_} open"
                         + (f", {cuda_only} kept CUDA-only." if cuda_only else "."))


def attach(result: ScanResult, assessment: Assessment) -> ScanResult:
    """The scan with its assessment attached (`assessment`), so `to_dict` carries both."""
    return dataclasses.replace(result, assessment=assessment)
