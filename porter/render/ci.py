"""What the CI formats share: which findings a run reports, in what order, at which repository path, with what advice.

A CI system addresses files from the repository's top, not from the directory porter scanned, so paths get the
scan's prefix. Findings come most severe first (then by place), which is what a per-step annotation budget keeps.
The advice is the rule's HIP/ROCm equivalent: the replacement name when there is one, else the rule's "use
instead" text. Repository text is not escaped here; each format escapes for its own syntax.
"""
from __future__ import annotations

import re

from typing import Iterable

from porter.model import Finding, ScanResult


def repository_path(result: ScanResult, path: str) -> str:
    """`path` (relative to the scanned directory) relative to the repository's top."""
    prefix = (result.stats.prefix or result.repository_prefix).strip("/")
    return f"{prefix}/{path}" if prefix else path


def most_severe_first(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-int(f.severity), f.path, f.line, f.column, f.rule))


def rule_title(result: ScanResult, rule_id: str) -> str:
    rule = result.rules.get(rule_id) if result.rules is not None else None
    return rule.title if rule is not None else rule_id


def spelled_already(f: Finding) -> bool:
    """Whether the code at the finding already reads as its HIP replacement (`__global__` on a kernel's line, a
    `<<<...>>>` launch, a same-name device function), `...` standing for any text: "use __global__" there says
    nothing, and the rule's advice is what to show."""
    if not f.replacement or not f.snippet:
        return False
    parts = [re.escape(p) for p in f.replacement.split("...")]
    text = ".*?".join(parts)
    if f.replacement[:1].isalnum() or f.replacement[:1] == "_":
        text = r"(?<![\w])" + text
    if f.replacement[-1:].isalnum() or f.replacement[-1:] == "_":
        text += r"(?![\w])"
    return re.search(text, f.snippet) is not None


def advice(result: ScanResult, f: Finding) -> str:
    """One line of what to do on ROCm, or '' when the rule says nothing."""
    rule = result.rules.get(f.rule) if result.rules is not None else None
    hip = rule.hip_equivalent if rule is not None else {}
    if f.replacement and not spelled_already(f):
        note = hip.get("note")
        return f"HIP: use {f.replacement}" + (f" ({note})" if note else "")
    if hip.get("kind") == "none":
        return "HIP: no ROCm equivalent" + (f" ({hip['note']})" if hip.get("note") else "")
    instead = (rule.docs.get("instead") if rule is not None else "") or hip.get("note") or ""
    return f"HIP: {' '.join(instead.split())}" if instead else ""
