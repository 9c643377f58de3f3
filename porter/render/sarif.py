"""Render findings as SARIF 2.1.0 for GitHub code scanning: one run, documented rules, relative paths, fingerprints.

Suppressed findings are left out (code scanning would show them as open alerts), and so, unless a minimum severity
is asked for, are notes that only say hipify renames a name or that a kernel is defined (info findings of a rule
whose HIP equivalent is a rename: hundreds of alerts with nothing to do). Findings port-awareness reads as handled
or cuda-only (porter.portaware) carry an external, accepted `suppressions` entry naming what handles them or keeps
them NVIDIA-only, so they are not open alerts; cuda-only ones are also notes of rank 0. `helpUri` is the rule's
page (docs/rules/<ID>.md, porter.render.rule_pages): a URL, as SARIF1002 requires. Levels follow severity
(blocker/high → error, medium/low → warning, info → note); the line-independent `Finding.fingerprint` goes under
partialFingerprints["porter/v1"]; `primaryLocationLineHash` is left to upload-sarif, which computes it from the
checkout. The effort item a finding belongs to rides in the result's property bag.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable
from urllib.parse import quote

from porter import __version__
from porter.estimate import Assessment
from porter.model import Finding, ScanResult, Severity, Status
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
    """The findings code scanning gets: those at or above `min_severity` when one is asked for, else all but the
    info notes of rename rules (see the module docstring)."""
    if min_severity is not None:
        return [f for f in findings if f.severity >= min_severity]
    by_id = {r.id: r for r in rules.rules}

    def rename_note(f: Finding) -> bool:
        rule = by_id.get(f.rule)
        return f.severity == Severity.INFO and rule is not None and rule.hip_equivalent.get("kind") == "rename"
    return [f for f in findings if not rename_note(f)]


def to_sarif(result: ScanResult, assessment: Assessment | None = None, rules: RuleSet | None = None,
             prefix: str = "", min_severity: Severity | None = None, filtered: bool = False) -> dict[str, Any]:
    """SARIF 2.1.0 for code scanning. URIs are relative to the repository top (`prefix` is the scanned directory
    relative to it), since GitHub resolves them against the repository, not against the directory porter scanned.
    `filtered`: the result's findings are already the uploaded ones (porter.render.sarif_baseline)."""
    rules = rules or result.rules or load_rules()
    base = artifact_uri(prefix.strip("/")) + "/" if prefix.strip("/") else ""
    by_id = {r.id: r for r in rules.rules}
    findings = list(result.findings) if filtered else uploaded(result.findings, rules, min_severity)
    used = sorted({f.rule for f in findings})
    index = {rid: i for i, rid in enumerate(used)}
    items = assessment.finding_item if assessment is not None else {}
    results = []
    for f in findings:
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
        if f.status is Status.HANDLED:
            # Already done for ROCm: an accepted, externally decided suppression, so code scanning shows no alert.
            port["suppressions"] = [{"kind": "external", "status": "accepted",
                                     "justification": _clip(f"handled for ROCm by {f.handled_by}", 256)}]
        elif f.status is Status.CUDA_ONLY:
            # Kept NVIDIA-only on purpose (optional work): suppressed like handled code, and ranked last.
            port["suppressions"] = [{"kind": "external", "status": "accepted",
                                     "justification": _clip(f"kept NVIDIA-only by {f.handled_by}", 256)}]
            port["rank"] = 0.0
        results.append({
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
            "partialFingerprints": {"porter/v1": f.fingerprint},
            "properties": {"porter": props},
        })
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "porter",
            "semanticVersion": __version__,
            "version": __version__,
            "informationUri": "https://github.com/porter-rocm/porter",
            "rules": [_rule_descriptor(by_id.get(rid), rid) for rid in used],
        }},
        "automationDetails": {"id": "porter/"},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the scanned repository's root"}}},
        "results": results,
    }
    if assessment is not None:
        run["properties"] = {"porter": {"verdict": assessment.verdict, "effort": assessment.effort(),
                                        "targets": [t.id for t in assessment.targets], "headline": assessment.headline}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False,
           rules: RuleSet | None = None, prefix: str = "", min_severity: Severity | None = None) -> str:
    return json.dumps(to_sarif(result, assessment, rules, prefix, min_severity), indent=2, ensure_ascii=False) + "\n"
