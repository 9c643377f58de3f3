"""Render findings as SARIF 2.1.0 for GitHub code scanning: one run, documented rules, relative paths, fingerprints.

The results are what porter.model.totals.carried gives SARIF, the one rule every format follows: every finding
shown, except (unless a minimum severity is asked for) the info notes of rules whose HIP equivalent is a
rename ("hipify renames it", "a kernel is defined": hundreds of alerts with nothing to do), which are counted per
rule in a tool-execution notification (`invocations[0].toolExecutionNotifications`) and in
`properties.porter.counted_not_listed` instead. Every result carries `suppressions` (SARIF 3.27.23: all results or
none): an empty list when open; an accepted `external` one naming what handles a finding port-awareness reads as
handled or cuda-only (porter.portaware), so they are not open alerts (cuda-only ones are also notes of rank 0); an
accepted `inSource` one for a finding a `porter: ignore` comment suppresses. The run's
`properties.porter.totals` are the totals every format prints, so results + counted_not_listed reconcile with them.
`helpUri` is the rule's page (docs/rules/<ID>.md, porter.render.rule_pages): a URL, as SARIF1002 requires. Levels
follow severity (blocker/high → error, medium/low → warning, info → note); the line-independent
`Finding.fingerprint` goes under partialFingerprints["porter/v2"] (v2: a comment on the line is not part of it; the
key names the basis, so no consumer compares a v1 value with a v2 one); `primaryLocationLineHash` is left to
upload-sarif, which computes it from the checkout. The effort item a finding belongs to rides in the result's
property bag.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping
from urllib.parse import quote

from porter import __version__
from porter.estimate import Assessment
from porter.model import Finding, ScanResult, Severity, Status
from porter.model.totals import carried, merge_counted, totals
from porter.render.rule_pages import rule_url
from porter.render.safe import inert_markdown, printable
from porter.rules import Rule, RuleSet, load_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.BLOCKER: "error", Severity.HIGH: "error", Severity.MEDIUM: "warning", Severity.LOW: "warning",
         Severity.INFO: "note"}
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}
PRECISION = {"high": "high", "medium": "medium", "low": "low"}
MAX_TEXT = 1024


_ESCAPED_BYTE = re.compile(rb"\\x([89a-f][0-9a-f])")


def artifact_uri(path: str) -> str:
    """A result path as a relative URI that still addresses a file whose name is not UTF-8, its bytes
    percent-encoded. Such a name arrives surrogate-escaped, or as discovery shows it: \\xNN for each byte that is
    not UTF-8 (always 0x80 or above); both become the original bytes."""
    raw = path.encode("utf-8", "surrogateescape")
    raw = _ESCAPED_BYTE.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
    return quote(raw, safe="/")


def message_text(text: str) -> str:
    """A result's message as SARIF plain text, with no embedded link: SARIF 2.1.0 section 3.11.6 reads `[text](target)`
    in a message as a link (to a related location or any URI) and `\\]` as a literal bracket. porter's messages
    hold no link of their own, but quote the repository (CTR006 quotes an index URL up to the next space, brackets
    included), so a `]` just before `(` is escaped (no link can close without one), with any backslash run before
    it doubled so that it stays literal; porter's own `[drop-in]` reads as before."""
    return _LINK_CLOSE.sub(lambda m: m.group(1) * 2 + "\\]", text)


_LINK_CLOSE = re.compile(r"(\\*)\](?=\()")


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rule_descriptor(rule: Rule | None, rid: str) -> dict[str, Any]:
    if rule is None:
        return {"id": rid, "shortDescription": {"text": rid}, "fullDescription": {"text": rid},
                "help": {"text": rid}, "defaultConfiguration": {"level": "warning"}}
    level = LEVEL[rule.severity]
    # A rule from outside porter (a repository's porter.toml names it) is the repository's text: control characters
    # shown as escapes everywhere, and its help Markdown (rendered on the code-scanning alert) made inert as a PR
    # comment is (porter.render.safe.inert_markdown: code spans kept; no live link, bare URL, image, @mention, raw HTML).
    md = inert_markdown if rule.external else str
    docs = {k: printable(v) for k, v in rule.docs.items()}
    hip = {k: printable(str(v)) for k, v in rule.hip_equivalent.items()}
    title = printable(rule.title)
    hip_line = f"HIP/ROCm: {hip.get('kind')}" + (f" → {hip['name']}" if hip.get("name") else "") + (
        f" ({hip['note']})" if hip.get("note") else "")
    help_text = "\n\n".join(x for x in (f"What it does: {docs.get('what', '')}", f"Why: {docs.get('why', '')}",
                                          f"Instead: {docs.get('instead', '')}", hip_line) if x)
    help_md = "\n\n".join(x for x in (
        f"**What it does.** {md(docs.get('what', ''))}", f"**Why it matters on AMD.** {md(docs.get('why', ''))}",
        f"**Use instead.** {md(docs.get('instead', ''))}", f"**HIP/ROCm:** {md(hip_line[10:])}",
        ("**References:** " + ", ".join(md(r) for r in rule.references)) if rule.references else "") if x)
    tags = ["portability", "cuda", rule.category,
            "hipify-auto" if hip.get("kind") == "rename" else "no-rocm-equivalent" if hip.get("kind") == "none" else "manual-port"]
    tags += [printable(t) for t in rule.tags if t not in tags]
    return {
        "id": rule.id,
        "name": title[:255],
        "shortDescription": {"text": _clip(title)},
        "fullDescription": {"text": _clip(docs.get("what") or title)},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": tags[:20], "precision": PRECISION[str(rule.confidence)],
                       "problem.severity": PROBLEM_SEVERITY[level],
                       "porter.effort": dict(rule.effort)},
        **({"helpUri": url} if (url := _help_uri(rule)) else {}),
    }


def _help_uri(rule: Rule) -> str | None:
    """The rule's page (docs/rules/<ID>.md, generated from the rule data), or for a rule from outside porter its
    first reference that is a URL by itself: SARIF1002 wants a valid URI, never prose after it."""
    url = rule_url(rule, rule.id)
    if url is None:
        url = next((r for r in rule.references if _PLAIN_URL.fullmatch(r)), None)
    return url


# A repository rule's reference used as helpUri only when it is a plain http(s) URL: RFC 3986's characters, no
# space, quote, `<` or control character (code scanning links it).
_PLAIN_URL = re.compile(r"https?://[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]+")


def uploaded(findings: Iterable[Finding], rules: RuleSet, min_severity: Severity | None = None) -> list[Finding]:
    """The findings SARIF lists as results (porter.model.totals.carried: the one rule for every format)."""
    return list(carried("sarif", findings, rules, min_severity).findings)


def _result(f: Finding, index: dict[str, int], base: str, items: Any, suppression: dict[str, Any] | None) -> dict[str, Any]:
    props: dict[str, Any] = {"category": f.category, "severity": str(f.severity), "confidence": str(f.confidence)}
    if f.replacement:
        props["replacement"] = f.replacement
    if f.kernel:
        props["kernel"] = f.kernel
    if f.fingerprint in items:
        props["effortItem"] = items[f.fingerprint]
    props["status"] = str(f.status)
    if f.handled_by:
        props["handledBy"] = f.handled_by
    port: dict[str, Any] = {}
    # SARIF 3.27.23: a run's results carry `suppressions` all or none, so an open one has an empty list.
    if suppression is not None:
        # a `porter: ignore` comment: suppressed in the source, as semgrep's nosemgrep and CodeQL's alert comments are
        props["suppressed"] = True
        port["suppressions"] = [suppression]
    elif f.status is Status.HANDLED:
        # Already done for ROCm: an accepted, externally decided suppression, so code scanning shows no alert.
        port["suppressions"] = [{"kind": "external", "status": "accepted",
                                 "justification": _clip(printable(f"handled for ROCm by {f.handled_by}"), 256)}]
    elif f.status is Status.CUDA_ONLY:
        # Kept NVIDIA-only on purpose (optional work): suppressed like handled code, and ranked last.
        port["suppressions"] = [{"kind": "external", "status": "accepted",
                                 "justification": _clip(printable(f"kept NVIDIA-only by {f.handled_by}"), 256)}]
        port["rank"] = 0.0
    else:
        port["suppressions"] = []
    return {
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": "note" if f.status is Status.CUDA_ONLY else LEVEL[f.severity],
        **port,
        "message": {"text": message_text(f.message)},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": base + artifact_uri(f.path), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": f.line, "startColumn": f.column, "endLine": f.end_line,
                       "endColumn": max(f.end_column, f.column + 1 if f.end_line == f.line else f.end_column),
                       **({"snippet": {"text": printable(f.snippet)}} if f.snippet else {})},
        }}],
        "partialFingerprints": {"porter/v2": f.fingerprint},
        # Names from the repository (a path in effortItem or handledBy, a kernel name) shown as the message is: a
        # viewer rendering properties must not be steered by a bidi override in a file name (Trojan Source).
        "properties": {"porter": {k: printable(v) if isinstance(v, str) else v for k, v in props.items()}},
    }


def _counted_text(rid: str, per: Mapping[str, int]) -> str:
    n = sum(per.values())
    statuses = ", ".join(f"{v} {k.replace('_', '-')}" for k, v in per.items())
    return (f"{n} info finding{'' if n == 1 else 's'} of {rid} (hipify renames it; {statuses}) counted in the totals, "
            "not listed as results; `porter scan --min-severity info` lists them")


COUNTED = "porter/counted-not-listed"
COUNTED_DESCRIPTOR = {
    "id": COUNTED, "name": "CountedNotListed",
    "shortDescription": {"text": "Findings counted in the run's totals but not listed as results."},
    "fullDescription": {"text": "Info notes of a rule whose HIP equivalent is a rename (hipify does it): counted in "
                                "properties.porter.totals and counted_not_listed, listed with --min-severity info."},
    "defaultConfiguration": {"level": "note"},
}
IN_SOURCE = {"kind": "inSource", "status": "accepted", "justification": "a porter: ignore comment"}


def to_sarif(result: ScanResult, assessment: Assessment | None = None, rules: RuleSet | None = None,
             prefix: str = "", min_severity: Severity | None = None, filtered: bool = False,
             counted_apart: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any]:
    """SARIF 2.1.0 for code scanning. URIs are relative to the repository top (`prefix` is the scanned directory
    relative to it), since GitHub resolves them against the repository, not against the directory porter scanned.
    `filtered`: the result's findings are already the listed ones and `counted_apart` what was left out of them
    (porter.render.sarif_baseline); then the `porter: ignore` findings are not listed either."""
    rules = rules or result.rules or load_rules()
    base = artifact_uri(prefix.strip("/")) + "/" if prefix.strip("/") else ""
    by_id = {r.id: r for r in rules.rules}
    if filtered:
        findings, apart, ignored = list(result.findings), merge_counted(counted_apart or {}), []
    else:
        carry = carried("sarif", result.findings, rules, min_severity)
        findings, apart, ignored = list(carry.findings), merge_counted(carry.counted_apart), list(result.suppressed)
    used = sorted({f.rule for f in findings} | {f.rule for f in ignored} | set(apart))
    index = {rid: i for i, rid in enumerate(used)}
    items = assessment.finding_item if assessment is not None else {}
    results = [_result(f, index, base, items, None) for f in findings]
    results += [_result(f, index, base, items, IN_SOURCE) for f in ignored]
    # What SARIF counts without listing, in SARIF's own words: one tool notification per rule (SARIF 3.58).
    notes = [{"descriptor": {"id": COUNTED, "index": 0}, "associatedRule": {"id": rid, "index": index[rid]},
              "level": "note", "message": {"text": _counted_text(rid, per)}}
             for rid, per in sorted(apart.items())]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "porter",
            "semanticVersion": __version__,
            "version": __version__,
            "informationUri": "https://github.com/porter-rocm/porter",
            "rules": [_rule_descriptor(by_id.get(rid), rid) for rid in used],
            **({"notifications": [COUNTED_DESCRIPTOR]} if notes else {}),
        }},
        "automationDetails": {"id": "porter/"},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the scanned repository's root"}}},
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}],
        "results": results,
    }
    # The totals every format prints (porter.model.totals), and how this run's results add up to them, status by
    # status (properties.porter.status) and severity: results without an inSource suppression + counted_not_listed
    # = the findings; inSource suppressions = suppressed.
    porter: dict[str, Any] = {"totals": totals(result).to_dict(), "counted_not_listed": apart}
    if assessment is not None:
        porter.update({"verdict": assessment.verdict, "effort": assessment.effort(),
                       "targets": [t.id for t in assessment.targets], "headline": assessment.headline})
    run["properties"] = {"porter": porter}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False,
           rules: RuleSet | None = None, prefix: str = "", min_severity: Severity | None = None) -> str:
    return json.dumps(to_sarif(result, assessment, rules, prefix, min_severity), indent=2, ensure_ascii=False) + "\n"
