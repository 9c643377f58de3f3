"""Recommend what to do: a plan per blocker, per CUDA library, and per target topic (wavefront, LDS, FP8) in scope.

Each recommendation says what to replace with what, the repository-wide jobs that carry it, and what it means on
each selected target (from the effort model's `advice` topics and the notes rules attach per target).

Advice hangs under what it is about. A repository-wide job is the plan of the library its `when` names (the
CUTLASS/CuTe re-implementation under CUTLASS, not under Triton or CUB, whose findings the job happens to absorb),
and of a rule blocker whose findings it absorbs; each job is planned once, under the first recommendation that owns
it. Target facts from the model's advice topics (FP8 formats, wavefront width) go to their topic's recommendation,
not to a library whose findings mention FP8; a library keeps the notes its own rules attach per target.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

from porter.estimate.cost import Costing, Item
from porter.estimate.effort_model import Hours
from porter.estimate.inputs import Inputs, Scope
from porter.estimate.verdict import Decision
from porter.model import Finding
from porter.targets import Target, evaluate

# The advice sentence from what the library is (the map's vendor_kind) and how hard it is to replace (kind): a C++
# library is renamed by hipify and relinked, a Python package is reinstalled as its ROCm build, a serving stack is
# swapped for a ROCm one, an NVIDIA-only file is rebuilt.
_KIND_ADVICE = {
    ("cuda-library", "drop-in"): "drop-in: hipify renames the calls; link the ROCm library instead",
    ("cuda-library", "port"): "a port: the ROCm counterpart has a different API; rewrite the calls",
    ("cuda-library", "early-access"): "early access: the ROCm counterpart exists but is not production-ready; plan a fallback",
    ("cuda-library", "none"): "no ROCm equivalent: replace it",
    ("python-library", "drop-in"): "drop-in: install the package's ROCm build; the imports stay as they are",
    ("python-library", "port"): "a port: the ROCm counterpart is a different package or a fork; change the imports and calls",
    ("python-library", "early-access"): "early access: a ROCm build exists but is partial; test every call you use",
    ("python-library", "none"): "no ROCm build of this package: replace it",
    ("serving", "none"): "no ROCm build: serve the model with a ROCm serving stack instead",
    ("serving", "port"): "a port: move serving to the ROCm counterpart and rebuild its configuration",
    ("binary-format", "none"): "NVIDIA-only file: rebuild it from the source model or code for the target",
}
_ADVICE_BY_KIND = {"drop-in": "drop-in: a ROCm counterpart with the same API exists",
                   "port": "a port: the ROCm counterpart has a different API or is a fork",
                   "early-access": "early access: the ROCm counterpart exists but is not production-ready; plan a fallback",
                   "none": "no ROCm equivalent: replace it"}


def kind_advice(vendor_kind: str, kind: str) -> str:
    """The advice sentence for a library of this vendor kind and replacement kind, capitalised."""
    text = _KIND_ADVICE.get((vendor_kind, kind), _ADVICE_BY_KIND[kind])
    return text[0].upper() + text[1:]


_TOPIC_TITLES = {
    "nvfp4": "NVFP4 / FP4 data on the target",
    "fp8": "FP8 formats on the target",
    "wavefront": "Wavefront size (warp-width assumptions)",
    "lds": "Shared memory (LDS) limits",
}


def recommendations(inputs: Inputs, scope: Scope, costing: Costing, decision: Decision) -> list[dict[str, Any]]:
    """Blockers first (from the deciding 'blocked' reasons), then the other libraries, then unsaid target topics."""
    model = inputs.model
    out: list[dict[str, Any]] = []
    fp = {f.fingerprint: f for f in scope.findings}
    items = {it.id: it for it in costing.items}
    jobs = {j["id"]: j for j in model.one_offs}

    def item_ids(fs: Iterable[Finding]) -> list[str]:
        return sorted({costing.finding_item[f.fingerprint] for f in fs if f.fingerprint in costing.finding_item})

    planned: set[str] = set()

    def plan(ids: list[str], lib=None) -> list[dict[str, Any]]:
        """The repository-wide jobs among `ids` this recommendation owns (with a library: the jobs whose `when`
        names it), each job once across all recommendations."""
        steps = []
        for i in ids:
            if not i.startswith("one-off:") or i not in items or i in planned:
                continue
            job = jobs.get(i.split(":", 1)[1], {})
            if lib is not None and not any(lib.id in alt.get("libraries", ()) for alt in job.get("when", ())):
                continue
            planned.add(i)
            steps.append({"item": i, "title": items[i].title, "days": model.days_to_tenth(items[i].hours)})
        return steps

    for r in decision.reasons:
        if r.level != "blocked":
            continue
        fs = [fp[x] for x in r.findings if x in fp]
        lib = inputs.libraries.get(r.key.split(":", 1)[1]) if r.key.startswith("library:") else None
        ids = item_ids(fs)
        steps = plan(ids, lib)
        rule = inputs.rule(fs[0]) if fs else None
        text = lib.note if lib else (rule.docs.get("instead", "") if rule else "")
        if not text and steps:
            text = jobs.get(steps[0]["item"].split(":", 1)[1], {}).get("note", "")
        out.append({
            "id": f"blocker:{r.key}", "kind": "blocker", "title": r.title,
            "replacement": ", ".join(lib.rocm) if lib and lib.rocm else (fs[0].replacement if fs and fs[0].replacement else None),
            "library_kind": lib.kind if lib else None, "text": " ".join(text.split()), "plan": steps,
            "targets": _advise(fs, inputs, scope.targets), "findings": len(fs), "items": ids,
            "hours": _sum_items(items, ids).to_dict(),
        })
    seen_blockers = {r["id"].split(":", 2)[-1] for r in out if r["id"].startswith("blocker:library:")}
    per_lib: dict[str, list[Finding]] = defaultdict(list)
    for f in scope.findings:
        lib = inputs.library(f)
        if lib is not None and lib.id not in seen_blockers:
            per_lib[lib.id].append(f)
    order = list(inputs.libraries)
    for lid in sorted(per_lib, key=order.index):
        lib = inputs.libraries[lid]
        fs = per_lib[lid]
        ids = item_ids(fs)
        out.append({
            "id": f"library:{lid}", "kind": "library",
            "title": f"{lib.name} → {', '.join(lib.rocm) if lib.rocm else 'no ROCm counterpart'}",
            "replacement": ", ".join(lib.rocm) or None, "library_kind": lib.kind,
            "text": f"{kind_advice(lib.vendor_kind, lib.kind)}. {lib.note}",
            "plan": plan(ids, lib), "targets": _advise(fs, inputs, scope.targets), "findings": len(fs), "items": ids,
            "hours": _sum_items(items, ids).to_dict(),
        })
    # Topics (wavefront, LDS, FP8) whose target facts no blocker or library recommendation above already says.
    said = {text for r in out for texts in r["targets"].values() for text in texts}
    for topic in model.advice:
        fs = [f for f in scope.findings if inputs.matches(topic["when"], f)]
        if not fs:
            continue
        facts: dict[str, list[str]] = {}
        for t in scope.targets:
            text = _say(topic, t)
            if text is not None and text not in said:
                facts[t.id] = [text]
        if not facts:
            continue
        out.append({
            "id": f"topic:{topic['id']}", "kind": "topic", "title": _TOPIC_TITLES.get(topic["id"], topic["id"]),
            "replacement": None, "library_kind": None,
            "text": _depend_text(len(fs), len({f.path for f in fs})), "plan": [],
            "targets": facts, "findings": len(fs), "items": item_ids(fs), "hours": Hours().to_dict(),
        })
    return out


def _depend_text(findings: int, files: int) -> str:
    return (f"{findings} finding{'' if findings == 1 else 's'} in {files} file{'' if files == 1 else 's'} "
            f"depend{'s' if findings == 1 else ''} on this.")


def _advise(fs: list[Finding], inputs: Inputs, targets: tuple[Target, ...]) -> dict[str, list[str]]:
    """Target facts for a group of findings: {target id: [sentences]} from the notes their rules attach per target
    (the model's advice topics are recommendations of their own)."""
    out: dict[str, list[str]] = defaultdict(list)
    ids = {t.id for t in targets}
    for f in fs:
        for tid, note in _target_notes(f).items():
            if tid in ids and note not in out[tid]:
                out[tid].append(note)
    return {t.id: out[t.id] for t in targets if out.get(t.id)}


def _say(topic: Mapping[str, Any], t: Target) -> str | None:
    """What an advice topic says about one target: its first `per_target` case that holds, filled with profile fields."""
    for case in topic["per_target"]:
        if evaluate(case["if"], t):
            return case["say"].format_map(_Fields(t))
    return None


class _Fields(dict):
    """A target's profile fields for `str.format_map`; an unknown field stays as written."""

    def __init__(self, t: Target):
        super().__init__(t.fields)
        self.setdefault("name", t.name)
        self.setdefault("gfx", t.gfx)

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _target_notes(f: Finding) -> dict[str, str]:
    """Per-target notes a rule attached under data['targets'] ({id: text} or {id: {note|message: text}})."""
    raw = dict(f.data).get("targets")
    out: dict[str, str] = {}
    if isinstance(raw, Mapping):
        for tid, v in raw.items():
            if isinstance(v, str):
                out[str(tid)] = v
            elif isinstance(v, Mapping):
                text = v.get("note") or v.get("message") or v.get("advice") or ""
                if text:
                    out[str(tid)] = str(text)
    return out


def _sum_items(items: Mapping[str, Item], ids: Iterable[str]) -> Hours:
    total = Hours()
    for i in ids:
        if i in items:
            total = total + items[i].hours
    return total
