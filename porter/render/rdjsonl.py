"""Render findings as reviewdog's Diagnostic Format in JSON lines (rdjsonl), for `reviewdog -f=rdjsonl`.

One `Diagnostic` per line (reviewdog's proto/rdf/reviewdog.proto): message, location (repository-relative path
and range), severity ERROR / WARNING / INFO, source "porter", the rule id as `code`, and for a finding with a plain
renamed HIP name a suggestion that replaces the matched text. reviewdog counts columns in UTF-8 bytes; porter's
columns count characters, which is the same on the ASCII lines CUDA code is made of.

A suggestion is one click from a commit, so it is offered only where applying it cannot break a build: the matched
text must be the CUDA name HIPIFY's tables rename to exactly that HIP name (never a kernel's own name, which KRN001
matches), and the file must be one only the ROCm build compiles (a `.hip` file, or one under a ROCm directory or
named for ROCm: porter.portaware.scope). In a CUDA source the HIP name would break the NVIDIA build, so there the
finding says what to use and suggests nothing (tests/test_suggestions_build.py applies every suggestion of a
fixture pull request and compiles the result with nvcc and hipcc).

No suggestion is offered inside a CUDA source, even one that would build for both vendors: the one candidate,
DEV002's `~0ull` for a literal 32-bit full mask, is not clean on either side: nvcc 13 truncates it back to
0xffffffff with warning #69-D ("integer conversion resulted in truncation", an error under -Werror), and it compiles
only against HIP's `*_sync` intrinsics (ROCm >= 6.2), which the hipcc porter's tests run (Debian's, HIP 5.2) lacks,
so no test could apply and compile it. Such a suggestion would need a flag in its rule's data and a compile check
with a newer HIP.

reviewdog posts the message as Markdown in a review comment under the bot's name (github-pr-review,
gitlab-mr-discussion), and a message quotes the repository (an image name, a runner label, a requirement, a
repository rule's own text): it is made inert as `porter comment` makes a body (porter.render.safe.inert_markdown: no
live @mention, image, link or raw HTML; `<` shows as `&lt;` in a plain-text reporter).
"""
from __future__ import annotations

import json
import re
from typing import Any

from porter.estimate import Assessment
from porter.model import Finding, ScanResult, Severity
from porter.render.ci import most_severe_first, repository_path
from porter.render.pr_comment import advice
from porter.render.rule_pages import rule_url
from porter.render.safe import inert_markdown
from porter.rules import Rule

SEVERITY = {Severity.BLOCKER: "ERROR", Severity.HIGH: "ERROR", Severity.MEDIUM: "WARNING", Severity.LOW: "WARNING",
            Severity.INFO: "INFO"}


def diagnostic(result: ScanResult, f: Finding) -> dict[str, Any]:
    hint = advice(result, f)
    d: dict[str, Any] = {
        "message": inert_markdown(f.message + (f"\n{hint}" if hint else ""), own_tags=False),
        "location": {"path": repository_path(result, f.path),
                     "range": {"start": {"line": f.line, "column": f.column},
                               "end": {"line": f.end_line, "column": f.end_column}}},
        "severity": SEVERITY[f.severity],
        "source": {"name": "porter"},
        "code": {"value": f.rule},
    }
    rule = result.rules.get(f.rule) if result.rules is not None else None
    url = rule_url(rule, f.rule)
    if url is not None:
        d["code"]["url"] = url
    if _suggestable(f, rule):
        d["suggestions"] = [{"range": d["location"]["range"], "text": f.replacement}]
    return d


def _suggestable(f: Finding, rule: Rule | None) -> bool:
    """Whether replacing the finding's range with its replacement is safe to offer (see the module docstring)."""
    from porter.kb import load_kb
    from porter.portaware.scope import rocm_path_evidence

    if not (f.replacement and rule is not None and rule.hip_equivalent.get("kind") == "rename"
            and f.line == f.end_line and f.replacement.isidentifier() and f.snippet):
        return False
    # The snippet is the line without its indentation, so the matched name is found by its length: a CUDA name on
    # the line, as long as the range, that HIPIFY renames to exactly the replacement.
    kb = load_kb()
    width = f.end_column - f.column
    renamed = any(len(name) == width and (e := kb.get(name)) is not None and e.hip == f.replacement
                  and not e.identity for name in set(_IDENT.findall(f.snippet)))
    return renamed and rocm_path_evidence(f.path) is not None


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False) -> str:
    return "".join(json.dumps(diagnostic(result, f), ensure_ascii=False, sort_keys=True) + "\n"
                   for f in most_severe_first(result.findings))
