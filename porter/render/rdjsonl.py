"""Render findings as reviewdog's Diagnostic Format in JSON lines (rdjsonl), for `reviewdog -f=rdjsonl`.

One `Diagnostic` per line (reviewdog's proto/rdf/reviewdog.proto): message, location (repository-relative path
and range), severity ERROR / WARNING / INFO, source "porter", the rule id as `code`, and for a finding with a plain
renamed HIP name a suggestion that replaces the matched text. reviewdog counts columns in UTF-8 bytes; porter's
columns count characters, which is the same on the ASCII lines CUDA code is made of.
"""
from __future__ import annotations

import json

from porter.model import ScanResult, Severity
from porter.render.ci import advice, most_severe_first, repository_path

SEVERITY = {Severity.BLOCKER: "ERROR", Severity.HIGH: "ERROR", Severity.MEDIUM: "WARNING", Severity.LOW: "WARNING",
            Severity.INFO: "INFO"}
RULES_URL = "https://github.com/porter-rocm/porter/blob/main/docs/rules.md"


def diagnostic(result: ScanResult, f) -> dict:
    hint = advice(result, f)
    d = {
        "message": f.message + (f"\n{hint}" if hint else ""),
        "location": {"path": repository_path(result, f.path),
                     "range": {"start": {"line": f.line, "column": f.column},
                               "end": {"line": f.end_line, "column": f.end_column}}},
        "severity": SEVERITY[f.severity],
        "source": {"name": "porter"},
        "code": {"value": f.rule, "url": f"{RULES_URL}#{f.rule.lower()}"},
    }
    rule = result.rules.get(f.rule) if result.rules is not None else None
    if (f.replacement and rule is not None and rule.hip_equivalent.get("kind") == "rename" and f.line == f.end_line
            and f.replacement.isidentifier()):
        d["suggestions"] = [{"range": d["location"]["range"], "text": f.replacement}]
    return d


def render(result: ScanResult, assessment=None, explain: bool = False) -> str:
    return "".join(json.dumps(diagnostic(result, f), ensure_ascii=False, sort_keys=True) + "\n"
                   for f in most_severe_first(result.findings))
