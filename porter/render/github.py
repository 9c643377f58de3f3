"""Render findings as GitHub Actions workflow commands (`::error file=…,line=…::message`): annotations on a PR.

Values are escaped as the Actions toolkit (@actions/core) escapes them: in the message `%`, CR and LF become %25,
%0D and %0A; in properties also `:` and `,` become %3A and %2C; so no repository text can end a command or start
another. Other control characters are then made visible (porter.render.safe.printable). GitHub shows at most 10 error and
10 warning annotations per step (and 10 notices), so findings go most severe first within that budget and one
final notice says how many were left out and where to see them all.
"""
from __future__ import annotations

from porter.estimate import Assessment
from porter.model import ScanResult, Severity
from porter.render.ci import advice, most_severe_first, repository_path, rule_title
from porter.render.safe import printable

LEVEL = {Severity.BLOCKER: "error", Severity.HIGH: "error", Severity.MEDIUM: "warning", Severity.LOW: "warning",
         Severity.INFO: "notice"}
PER_STEP = 10  # annotations of each kind GitHub shows for one step


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, properties: dict[str, object], message: str) -> str:
    """One workflow command line (no newline), every value escaped."""
    props = ",".join(f"{k}={printable(escape_property(str(v)))}" for k, v in properties.items() if v is not None)
    return f"::{kind}{' ' + props if props else ''}::{printable(escape_data(message))}"


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False) -> str:
    findings = most_severe_first(result.findings)
    count = {kind: sum(1 for f in findings if LEVEL[f.severity] == kind) for kind in ("error", "warning", "notice")}
    overflow = count["error"] > PER_STEP or count["warning"] > PER_STEP or count["notice"] > PER_STEP
    # When anything is left out, the last notice is the count of it.
    budget = {"error": PER_STEP, "warning": PER_STEP, "notice": PER_STEP - 1 if overflow else PER_STEP}
    shown: list[str] = []
    left = 0
    for f in findings:
        kind = LEVEL[f.severity]
        if budget[kind] == 0:
            left += 1
            continue
        budget[kind] -= 1
        props = {"file": repository_path(result, f.path), "line": f.line, "endLine": f.end_line, "col": f.column,
                 "endColumn": f.end_column if f.end_line == f.line else None,
                 "title": f"porter {f.rule}: {rule_title(result, f.rule)}"}
        hint = advice(result, f)
        shown.append(command(kind, props, f.message + (f"\n{hint}" if hint else "")))
    if left:
        shown.append(command("notice", {"title": "porter"},
                             f"{left} more finding{'s' if left != 1 else ''} not annotated (GitHub shows "
                             f"{PER_STEP} of each kind per step): see the job summary or the SARIF upload"))
    return "".join(line + "\n" for line in shown)
