"""Attach per-target notes to findings: what a finding means on each GPU the scan is about (rule `target_notes`).

A rule may carry `target_notes: [{when: "<target predicate>", note: "..."}]`. For every selected target the first
entry whose predicate holds (porter.targets.evaluate) gives that target's note; the notes go into the finding's
data under `targets` as {target id: note}. Done after the per-file cache, so cached results stay target-free.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

from porter.model import Finding
from porter.rules import RuleSet


class TargetNotes(dict):
    """{target id: note}; hashable, so a Finding holding it can still be hashed and compared."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __lt__(self, other: "TargetNotes") -> bool:
        return sorted(self.items()) < sorted(other.items())


def notes_for(rule_notes: Iterable[tuple[str, str]], targets) -> TargetNotes:
    from porter.targets import evaluate

    out = TargetNotes()
    for t in targets:
        for when, note in rule_notes:
            if evaluate(when, t):
                out[t.id] = note
                break
    return out


def with_target_notes(findings: Iterable[Finding], ruleset: RuleSet, targets: Sequence) -> list[Finding]:
    """The findings, each of a rule with target_notes carrying its notes for `targets` (resolved Target profiles)."""
    findings = list(findings)
    if not targets or not any(r.target_notes for r in ruleset.rules):
        return findings
    cache: dict[str, TargetNotes] = {}
    # Each rule by id, the first of an id as RuleSet.get finds it (get scans the rule list: once per finding, that
    # was most of this stage on a scan with thousands of findings).
    by_id: dict[str, object] = {}
    for r in ruleset.rules:
        by_id.setdefault(r.id, r)
    out = []
    for f in findings:
        rule = by_id.get(f.rule)
        if rule is None or not rule.target_notes:
            out.append(f)
            continue
        if f.rule not in cache:
            cache[f.rule] = notes_for(rule.target_notes, targets)
        notes = cache[f.rule]
        if not notes:
            out.append(f)
            continue
        data = tuple(sorted([(k, v) for k, v in f.data if k != "targets"] + [("targets", notes)]))
        out.append(dataclasses.replace(f, data=data))
    return out
