"""State the assumptions an estimate rests on: the effort model's figures in words, and what the estimate leaves out."""
from __future__ import annotations

from porter.estimate.cost import Costing
from porter.estimate.effort_model import SIZES
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS


def assumptions(inputs: Inputs, scope: Scope, costing: Costing) -> list[str]:
    model = inputs.model
    d = model.data
    sizes = ", ".join(f"{k} {model.size(k).text()}" for k in SIZES if k != "none")
    kv = ", ".join(f"{k} {model.verdict_hours(k).text()}" for k in KERNEL_VERDICTS)
    ks = d["kernels"]["size"]
    unanalysed = sum(1 for kc in costing.kernels if not all(t.analysed for t in kc.verdicts.targets.values()))
    out = [
        f"Effort is in engineer-days of {model.hours_per_day:g} focused hours, for an engineer who knows CUDA and is new "
        f"to ROCm; ranges are low–likely–high and totals add the ranges of independent items (so the high end assumes "
        f"everything goes badly at once). Days are rounded to {model.round_days_to:g}.",
        f"Hours per unit of rule effort size: {sizes}. A rule counted per hit costs its size for the first hit in a "
        f"file and {model.repeat_factor:g}× for each further hit there (the same fix repeats).",
        f"Kernels cost their verdict on the hardest selected target ({kv}), scaled by length (×(lines/"
        f"{ks['reference_lines']:g})^{ks['exponent']:g}, clamped to {ks['min_factor']:g}–{ks['max_factor']:g}) and "
        f"complexity (+{d['kernels']['complexity']['per_extra_reason']:g} per extra reason, "
        f"+{d['kernels']['complexity']['template']:g} for templates); each further target needing retune/fix/rewrite adds "
        f"{d['kernels']['other_targets_share']:g}× its own cost. Device findings a kernel verdict names are costed by the kernel.",
        "Repository-wide jobs (replacing a serving stack, re-quantizing a checkpoint, CI on ROCm, validation on the "
        "target) are fixed ranges that absorb the findings they cover.",
        "Not included: performance work beyond reaching parity on the measured kernels, procurement and cluster "
        "setup, and work in code porter did not scan (skipped files, private dependencies).",
        f"Effort model: {model.source}" + (f", overridden by {model.override}" if model.override else "") + ".",
    ]
    if unanalysed:
        out.append(f"{unanalysed} kernel(s) had no kernel analysis for a selected target; they are costed as "
                   f"'{model.kernels['unanalysed']}'.")
    if scope.not_applicable:
        out.append(f"{len(scope.not_applicable)} finding(s) come from rules that do not apply to the selected target(s) and "
                   "are not costed.")
    if inputs.result.suppressed:
        out.append(f"{len(inputs.result.suppressed)} finding(s) suppressed in the source (porter: ignore) are not costed.")
    if inputs.result.skipped:
        out.append(f"{len(inputs.result.skipped)} file(s) could not be scanned (see 'skipped'); their work is not estimated.")
    pre = [t.name for t in scope.targets if t.pre_release]
    if pre:
        out.append(f"{', '.join(pre)}: pre-release profile; its facts may change.")
    return out
