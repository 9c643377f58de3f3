"""State the assumptions an estimate rests on: the effort model's figures in words, and what the estimate leaves out."""
from __future__ import annotations

from porter.estimate.cost import Costing
from porter.estimate.effort_model import SIZES
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS


def assumptions(inputs: Inputs, scope: Scope, costing: Costing, chip=None) -> list[str]:
    model = inputs.model
    d = model.data
    sizes = ", ".join(f"{k} {model.size(k).text()}" for k in SIZES if k != "none")
    kv = ", ".join(f"{k} {model.verdict_hours(k).text()}" for k in KERNEL_VERDICTS)
    ks = d["kernels"]["size"]
    unanalysed = sum(1 for kc in costing.kernels if not all(t.analysed for t in kc.verdicts.targets.values()))
    out = [
        f"Effort is in engineer-days of {model.hours_per_day:g} focused hours, for an engineer who knows CUDA and is new "
        f"to ROCm. Each item is a low–likely–high range read as a PERT distribution; the items are combined as "
        f"independent (means and variances add) and the headline range is the 10th to 90th percentile of the sum, "
        f"likely its median, not the sum of every item's worst case. Independence narrows the range as items add "
        f"up: it does not cover a systematic error of the model itself (docs/effort-model.md gives the calibration's "
        f"error on public ports). Days are rounded to {model.round_days_to:g}.",
        f"Hours per unit of rule effort size: {sizes}. Hits of one rule or one library in one file follow a "
        f"saturating curve: the first costs its size, each further one {model.repeat_factor:g}× at first and less "
        f"after" + (f", {model.saturation:g}× the size at most" if model.saturation else "") + " (the same fix repeats).",
        f"Kernels cost what they need on the hardest selected target — inline PTX that only loads, stores or "
        f"converts is a small fix, tensor-core PTX, TMA and clusters a rewrite — else their verdict ({kv}), scaled by length (×(lines/"
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
    scales = {k: model.scale(k) for k in ("kernel", "finding", "one-off")}
    if any(v != 1 for v in scales.values()):
        out.append("Calibration multipliers (fitted on past ports, see docs/effort-model.md): "
                   + ", ".join(f"{k} items × {v:g}" for k, v in scales.items()) + ".")
    if chip is not None:
        out.append(f"Several targets: the headline costs the work for {', '.join(t.name for t in chip)} "
                   f"({chip[0].gfx}), the costliest chip; targets sharing a gfx are costed once, and the work for one "
                   "chip carries most of the others' (each target's own estimate is in the per-target lines).")
    if scope.optional_findings or scope.optional_kernels:
        out.append(f"{len(scope.optional_findings)} finding(s) and {len(scope.optional_kernels)} kernel(s) are optional "
                   "(kept CUDA-only, or under optional paths such as contrib/): costed on the optional line, never in "
                   "the headline or the verdict.")
    if scope.handled:
        out.append(f"{scope.handled} finding(s) already have a ROCm path (status handled) and are not costed.")
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
