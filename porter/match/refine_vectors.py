"""Vector compound operators across files: a use reached through includes, and a definition no use reaches.

API009 reports a project's free `operator+=(float3 &a, float3 b)` (cuda-samples' helper_math.h or its older
cutil_math.h, copied into the project); DEV053 (the `vector_compound_use` kind, porter.match.kinds.code_vectors)
reports each `a += b` on two such operands, which hip-clang rejects as ambiguous with HIP_vector_type's member. The
per-file matcher sees only the file's own includes and definitions, so a kernel file that reaches the header
through another (`kfusion.cu` -> `kfusion.h` -> `cutil_math.h`) was not flagged. Once every file is scanned:

- `reached_uses`: each C/C++/CUDA file whose include closure (quoted and angled includes that resolve to the
  repository's own files, porter.source.includes.resolve_include) reaches a file with an open API009 finding is
  matched again with that header's operator types, and its new DEV053 hits are added.
- `unused_definitions`: an open API009 finding whose operator and type no DEV053 finding of the repository uses
  reads info: the definition alone compiles under HIP, only a use with two vector operands does not.

Both run only when an open API009 finding exists, read only the scan's own files (C/C++/CUDA ones, each up to the
caller's per-file limit, READ_BUDGET bytes in all: past it the rest are not followed) and parse only those that
reach a definition and name one of its types (PARSE_BUDGET files at most, in path order).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable

from porter.match.engine import make_finding, with_fingerprints
from porter.match.kinds.code_vectors import compound_uses, defined_operators, own_operators
from porter.model.finding import Finding, Severity, Status
from porter.rules import Rule
from porter.source.includes import resolve_include
from porter.source.parse import parse

DEFINITION_RULE = "API009"
USE_RULE = "DEV053"

READ_BUDGET = 256 * 1024 * 1024  # bytes of C/C++/CUDA files read to follow includes
PARSE_BUDGET = 2000  # files parsed again with a header's operator types

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_DEFINED_OP = re.compile(r"\boperator\s*([-+*/%&|^]|<<|>>)=\s*\(")
_USED_OP = re.compile(r"^`([-+*/%&|^]|<<|>>)=`")


def _includes(path: str, code: bytes, files: frozenset[str]) -> list[str]:
    """The repository files `code` (at `path`) includes directly."""
    out = []
    for m in _INCLUDE.finditer(code):
        target = resolve_include(path, m.group(2).decode("utf-8", "replace").strip(), m.group(1) == b'"', files)
        if target is not None and target != path:
            out.append(target)
    return out


def _closure(start: str, graph: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(graph.get(p, ()))
    return seen


def reached_uses(findings: list[Finding], sources: dict[str, str], read: Callable[[str], bytes | None],
                 rule: Rule | None, macros: dict[str, str] | None = None) -> list[Finding]:
    """The findings with DEV053's hits in files that reach a header with an open API009 finding only through
    includes. `sources`: the scan's C/C++/CUDA files (path -> language); `read`: a file's bytes (None: unreadable)."""
    defining = {f.path for f in findings if f.rule == DEFINITION_RULE and f.status is Status.OPEN}
    if rule is None or not defining:
        return findings
    pattern = next((p for p in rule.patterns if "vector_compound_use" in p), None)
    if pattern is None:
        return findings
    files = frozenset(sources)
    codes: dict[str, bytes | None] = {}
    spent = 0
    for p in sorted(files):
        if spent > READ_BUDGET:
            break
        codes[p] = read(p)
        spent += len(codes[p] or b"")
    graph = {p: _includes(p, c, files) for p, c in codes.items() if c is not None}
    types_of = {p: defined_operators(pattern, c) for p in defining if (c := codes.get(p)) is not None}
    have_already = {(f.path, f.line, f.column) for f in findings if f.rule == USE_RULE}
    added: list[Finding] = []
    parsed = 0
    for path in sorted(graph):
        reached = frozenset(t for h in _closure(path, graph) & types_of.keys() for t in types_of[h])
        code = codes[path]
        if not reached or code is None or not any(t.encode() in code for t in reached):
            continue
        if parsed >= PARSE_BUDGET:
            break
        parsed += 1
        sf = parse(path, sources[path], code, macros)
        own = own_operators(pattern, sf)
        if reached <= own:
            continue  # the file's own scan matched these already
        new = [make_finding(rule, sf, h) for h in compound_uses(sf, pattern, reached | own)]
        added.extend(f for f in new if (f.path, f.line, f.column) not in have_already)
    if not added:
        return findings
    # Fingerprints count occurrences per file and rule: recount DEV053's in the files that gained one.
    touched = {f.path for f in added}
    redo = sorted([f for f in findings if f.rule == USE_RULE and f.path in touched] + added)
    kept = [f for f in findings if not (f.rule == USE_RULE and f.path in touched)]
    return sorted(kept + with_fingerprints(redo))


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
                f = dataclasses.replace(f, severity=Severity.INFO,
                                        data=tuple(sorted({**dict(f.data), "unused": why}.items())))
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
