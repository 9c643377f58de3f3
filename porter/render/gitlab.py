"""Render findings as a GitLab Code Quality report (a JSON array), for `artifacts: reports: codequality:`.

Each issue has the fields GitLab reads: `description`, `check_name` (the rule id), a `fingerprint` unique in the
report (porter's line-independent fingerprint, so GitLab's MR widget tells new from resolved across line moves),
`severity` (info, minor, major, critical, blocker), `location.path` from the repository top and
`location.lines.begin`; plus `type`, `categories` and `engine_name` from the Code Climate spec GitLab follows.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from porter.estimate import Assessment
from porter.model import ScanResult, Severity
from porter.render.ci import advice, most_severe_first, repository_path, rule_title

SEVERITY = {Severity.INFO: "info", Severity.LOW: "minor", Severity.MEDIUM: "major", Severity.HIGH: "critical",
            Severity.BLOCKER: "blocker"}


def issues(result: ScanResult) -> list[dict[str, Any]]:
    out, seen = [], set()
    for f in most_severe_first(result.findings):
        fp = f.fingerprint or hashlib.sha256(f"{f.rule}\0{f.path}\0{f.line}\0{f.column}".encode()).hexdigest()
        n = 0
        while fp in seen:  # GitLab drops issues with a repeated fingerprint
            n += 1
            fp = hashlib.sha256(f"{f.fingerprint}\0{n}".encode()).hexdigest()[:20]
        seen.add(fp)
        hint = advice(result, f)
        out.append({
            "type": "issue",
            "check_name": f.rule,
            "description": f"{f.rule}: {f.message}" + (f" {hint}" if hint else ""),
            "content": {"body": rule_title(result, f.rule)},
            "categories": ["Compatibility"],
            "severity": SEVERITY[f.severity],
            "fingerprint": fp,
            "location": {"path": repository_path(result, f.path), "lines": {"begin": f.line, "end": f.end_line}},
            "engine_name": "porter",
        })
    return out


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False) -> str:
    return json.dumps(issues(result), indent=2, ensure_ascii=False) + "\n"
