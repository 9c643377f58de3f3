"""Vector compound operators across files: a use reached through includes, and a definition no use reaches.

API009 reports a project's free `operator+=(float3 &a, float3 b)` (cuda-samples' helper_math.h or its older
cutil_math.h, copied into the project); DEV053 (the `vector_compound_use` kind, porter.match.kinds.code_vectors)
reports each `a += b` on two such operands, which hip-clang rejects as ambiguous with HIP_vector_type's member. The
per-file matcher sees only the file's own includes and definitions, so a kernel file that reaches the header
through another (`kfusion.cu` -> `kfusion.h` -> `cutil_math.h`) was not flagged. Once every file is scanned:

- `reached_uses`: each C/C++/CUDA file whose include closure (quoted and angled includes that resolve to the
  repository's own files, porter.source.includes.resolve_include) reaches a file with an open API009 finding gains
  DEV053's findings at its compound assignments on that header's operator types.
- `unused_definitions`: an open API009 finding whose operator and type no DEV053 finding of the repository uses
  reads info: the definition alone compiles under HIP, only a use with two vector operands does not.

Both run only when an open API009 finding exists, and read no file: each file's scan took what they need from its
own read and parse (`file_facts`, FileResult.vectors) and its includes as written (FileResult.includes).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Mapping

from porter.match.engine import make_finding, with_fingerprints
from porter.match.kinds.code_vectors import compound_uses, defined_operators, own_operators, rule_types
from porter.model.finding import Finding, Severity, Status
from porter.model.report import FileResult, VectorFacts
from porter.rules import Rule
from porter.source.includes import resolve_include
from porter.source.parse import SourceFile

DEFINITION_RULE = "API009"
USE_RULE = "DEV053"

_DEFINED_OP = re.compile(r"\boperator\s*([-+*/%&|^]|<<|>>)=\s*\(")
_USED_OP = re.compile(r"^`([-+*/%&|^]|<<|>>)=`")


def use_pattern(rule: Rule | None) -> dict | None:
    """DEV053's `vector_compound_use` pattern, None when the rule is off or has none."""
    return next((p for p in rule.patterns if "vector_compound_use" in p), None) if rule is not None else None


def file_facts(sf: SourceFile, rule: Rule | None) -> VectorFacts | None:
    """What reached_uses needs of one parsed C/C++/CUDA file (FileResult.vectors), or None when the file names none
    of the rule's vector types (it can then neither define an operator for one nor use one: both name the type)."""
    pattern = use_pattern(rule)
    if pattern is None or rule is None or sf.root is None:
        return None
    types = rule_types(pattern)
    data = sf.data
    if not any(t.encode() in data for t in types):
        return None
    defined = defined_operators(pattern, data) if b"operator" in data else frozenset()
    uses = tuple(make_finding(rule, sf, h) for h in compound_uses(sf, pattern, types))
    return VectorFacts(tuple(sorted(defined)), tuple(sorted(own_operators(pattern, sf))), uses)


def reached_uses(findings: list[Finding], files: Mapping[str, FileResult], sources: Iterable[str],
                 rule: Rule | None) -> list[Finding]:
    """The findings with DEV053's hits in files that reach a header with an open API009 finding only through
    includes. `files`: the scan's results by path; `sources`: the repository's C/C++/CUDA paths (what an include
    may resolve to)."""
    defining = {f.path for f in findings if f.rule == DEFINITION_RULE and f.status is Status.OPEN}
    if use_pattern(rule) is None or not defining:
        return findings
    types_of = {p: frozenset(v.defined) for p in defining
                if (r := files.get(p)) is not None and (v := r.vectors) is not None}
    reached = _reaching(types_of, _includers(files, frozenset(sources)))
    have_already = {(f.path, f.line, f.column) for f in findings if f.rule == USE_RULE}
    added: list[Finding] = []
    for path in sorted(reached):
        facts = files[path].vectors
        if facts is None or not reached[path]:
            continue
        own = frozenset(facts.own)
        if reached[path] <= own:
            continue  # the file's own scan matched these already
        have = reached[path] | own
        added.extend(f for f in facts.uses
                     if dict(f.data).get("type") in have and (f.path, f.line, f.column) not in have_already)
    if not added:
        return findings
    # Fingerprints count occurrences per file and rule: recount DEV053's in the files that gained one.
    touched = {f.path for f in added}
    redo = sorted([f for f in findings if f.rule == USE_RULE and f.path in touched] + added)
    kept = [f for f in findings if not (f.rule == USE_RULE and f.path in touched)]
    return sorted(kept + with_fingerprints(redo))


def _includers(files: Mapping[str, FileResult], sources: frozenset[str]) -> dict[str, list[str]]:
    """Repository file -> the scanned files that include it directly (itself never)."""
    out: dict[str, list[str]] = {}
    for path, r in files.items():
        for header, quoted in r.includes:
            target = resolve_include(path, header, quoted, sources)
            if target is not None and target != path:
                out.setdefault(target, []).append(path)
    return out


def _reaching(types_of: Mapping[str, frozenset[str]], includers: Mapping[str, list[str]]) -> dict[str, frozenset[str]]:
    """File -> the types of the defining headers (`types_of`) it reaches through one include or more."""
    out: dict[str, set[str]] = {}
    for header, types in types_of.items():
        seen: set[str] = set()
        todo = list(includers.get(header, ()))
        while todo:
            p = todo.pop()
            if p not in seen:
                seen.add(p)
                out.setdefault(p, set()).update(types)
                todo.extend(includers.get(p, ()))
    return {p: frozenset(t) for p, t in out.items()}


def definition_key(f: Finding) -> tuple[str, str] | None:
    """(operator, vector type) of an API009 finding (`+`, `float3`), None when its line does not say."""
    m = _DEFINED_OP.search(f.snippet)
    vector = dict(f.data).get("hit")
    return (m.group(1), str(vector)) if m is not None and vector else None


def use_key(f: Finding) -> tuple[str, str] | None:
    """(operator, vector type) of a DEV053 finding, None when its message does not say."""
    m = _USED_OP.match(f.message)
    vector = dict(f.data).get("type")
    return (m.group(1), str(vector)) if m is not None and vector else None


def unused_definitions(findings: Iterable[Finding]) -> list[Finding]:
    """The findings, an open API009 definition at info when no DEV053 finding uses its operator on its type."""
    findings = list(findings)
    used = {use_key(f) for f in findings if f.rule == USE_RULE}
    out = []
    for f in findings:
        if f.rule == DEFINITION_RULE and f.status is Status.OPEN and f.severity > Severity.INFO:
            key = definition_key(f)
            if key is not None and key not in used:
                why = (f"no `{key[0]}=` on two {key[1]} operands in the repository uses this definition (DEV053 "
                       f"reports each that does); the definition alone compiles under HIP")
                f = f.unused(why)
        out.append(f)
    return out


def guarded_uses(findings: Iterable[Finding]) -> list[Finding]:
    """The findings, each open DEV053 use whose operator and type only API009 definitions out of the HIP build
    (port status: handled or cuda-only) provide taking the status of the first of them: HIP's member is then the
    only candidate. Run after port status (porter.pipeline.complete)."""
    findings = list(findings)
    by_key: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        if f.rule == DEFINITION_RULE:
            key = definition_key(f)
            if key is not None:
                by_key.setdefault(key, []).append(f)
    out = []
    for f in findings:
        defs = by_key.get(use_key(f) or ("", ""), []) if f.rule == USE_RULE and f.status is Status.OPEN else []
        if defs and all(d.status is not Status.OPEN for d in defs):
            f = dataclasses.replace(f, status=defs[0].status, handled_by=defs[0].handled_by)
        out.append(f)
    return out
