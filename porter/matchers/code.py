"""Pattern kinds for source code: identifiers, regex, include, call, tree-sitter query, knowledge base, kernels.

All of them look only at code (comments and strings are blanked in `SourceFile.code`) unless a pattern asks
for `in: string` / `in: comment` / `in: any`. Identifier matching is by whole token, so `cudaLaunch` never
matches inside `cudaLaunchCooperativeKernel`.
"""
from __future__ import annotations

import fnmatch
import functools
import re
from typing import Iterable

from porter import launches
from porter.matchers.base import Hit, MatchContext
from porter.parse import SourceFile, captures, unqualified

_FLAGS = {"ignorecase": re.I, "multiline": re.M, "dotall": re.S}


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str, flags: tuple[str, ...] = ()) -> re.Pattern[bytes]:
    f = 0
    for name in flags:
        f |= _FLAGS[name]
    return re.compile(pattern.encode(), f)


def _name_matcher(names: list[str]):
    """Exact names plus `prefix*` / glob entries, checked against one token at a time."""
    exact = {n.encode() for n in names if not any(c in n for c in "*?[")}
    globs = [n for n in names if any(c in n for c in "*?[")]

    def matches(tok: bytes) -> bool:
        if tok in exact:
            return True
        return bool(globs) and any(fnmatch.fnmatchcase(tok.decode("ascii", "replace"), g) for g in globs)

    return exact, globs, matches


def match_identifiers(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    exact, globs, matches = _name_matcher(pattern["identifiers"])
    toks = sf.tokens()
    candidates = (exact & toks.keys()) if not globs else [t for t in toks if matches(t)]
    for tok in candidates:
        for off in toks[tok]:
            if _is_member_access(sf.code, off):
                continue  # obj.cudaMalloc / p->cudaMalloc is the project's own member, not the CUDA API
            yield Hit(off, off + len(tok), name=tok.decode())


def _is_member_access(code: bytes, off: int) -> bool:
    i = off - 1
    while i >= 0 and code[i] in b" \t":
        i -= 1
    return i >= 0 and (code[i:i + 1] == b"." or code[i - 1:i + 1] == b"->")


def match_regex(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    rx = compile_regex(pattern["regex"], tuple(pattern.get("flags", ())))
    where = pattern.get("in", "code")
    text = sf.code if where == "code" else sf.data
    for m in rx.finditer(text):
        if m.end() == m.start():
            continue
        if where == "string" and not sf.in_string(m.start()):
            continue
        if where == "comment" and not sf.in_comment(m.start()):
            continue
        start, end = m.span("hit") if "hit" in rx.groupindex and m.group("hit") is not None else m.span()
        values = tuple((k, v.decode("utf-8", "replace")) for k, v in m.groupdict().items() if v is not None)
        yield Hit(start, end, name=sf.data[start:end].decode("utf-8", "replace"), values=values)


def match_include(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cuda" or sf.root is None:
        return
    for node, header in includes(sf):
        if any(fnmatch.fnmatchcase(header, g) for g in pattern["include"]):
            yield Hit(node.start_byte, node.end_byte, name=header)


def includes(sf: SourceFile) -> list:
    """(node, header path without quotes or brackets) for every #include in a C/C++/CUDA file."""
    if "includes" not in sf.cache:
        out = []
        for node in captures("cuda", "(preproc_include path: (_) @p)", sf.root).get("p", []):
            header = node.text.decode("utf-8", "replace").strip().strip('<>"').strip()
            out.append((node, header))
        sf.cache["includes"] = sorted(out, key=lambda x: x[0].start_byte)
    return sf.cache["includes"]


def call_sites(sf: SourceFile) -> list:
    """(callee node, callee text, call node) for every C/C++ call expression, in file order."""
    if "calls" not in sf.cache:
        out = []
        for call in captures("cuda", "(call_expression) @c", sf.root).get("c", []):
            fn = call.child_by_field_name("function")
            if fn is None:
                continue
            out.append((fn, fn.text.decode("utf-8", "replace"), call))
        sf.cache["calls"] = sorted(out, key=lambda x: x[0].start_byte)
    return sf.cache["calls"]


def match_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = set(pattern["call"])
    if sf.language == "python":
        from porter.matchers.python import python_calls

        for fn, dotted, call in python_calls(sf):
            if dotted in names or any(dotted.endswith("." + n) for n in names if "." in n):
                yield Hit(fn.start_byte, call.end_byte, name=dotted)
        return
    if sf.language != "cuda" or sf.root is None:
        return
    for fn, text, call in call_sites(sf):
        if fn.type in ("field_expression",):
            continue  # member calls are the project's own methods
        name = unqualified(text)
        if name in names or text in names:
            yield Hit(fn.start_byte, fn.end_byte, name=name)


def match_query(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.root is None:
        return
    caps = captures(sf.language, pattern["query"], sf.root)
    nodes = caps.get("hit") or next(iter(caps.values()), [])
    for node in nodes:
        if sf.in_comment(node.start_byte):
            continue
        yield Hit(node.start_byte, node.end_byte, name=node.text.decode("utf-8", "replace").split("\n")[0])


def match_kb(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Identifiers the knowledge base knows, filtered by `status` and `library` lists."""
    spec = pattern["kb"]
    statuses = set(spec.get("status", ()))
    libraries = set(spec.get("library", ()))
    skip_libraries = set(spec.get("not_library", ()))
    kb = ctx.kb
    toks = sf.tokens()
    for tok in sorted(ctx.kb_tokens & toks.keys()):
        name = tok.decode()
        entry = kb.get(name)
        if entry is None:
            continue
        if statuses and entry.status not in statuses:
            continue
        if libraries and entry.library not in libraries:
            continue
        if entry.library in skip_libraries:
            continue
        defined_here = _defined_locally(sf, name)
        for off in toks[name.encode()]:
            if _is_member_access(sf.code, off) or off in defined_here:
                continue
            yield Hit(off, off + len(name), name=name, replacement=entry.hip,
                      values=(("hip", entry.hip or "none"), ("library", entry.library), ("status", entry.status),
                              ("removed", entry.cuda_removed or ""), ("deprecated", entry.cuda_deprecated or "")))


def _defined_locally(sf: SourceFile, name: str) -> set[int]:
    """Offsets where the file itself defines `name` (a #define or a function), which are not uses of the CUDA API."""
    out = set()
    for f in sf.functions:
        if f.name == name:
            node = f.node.child_by_field_name("declarator")
            while node is not None and node.type != "identifier" and node.named_child_count:
                node = node.child_by_field_name("declarator") or node.named_children[0]
            if node is not None:
                out.add(node.start_byte)
    for m in re.finditer(rb"#[ \t]*define[ \t]+(" + re.escape(name.encode()) + rb")\b", sf.code):
        out.add(m.start(1))
    return out


def match_kernel(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Kernel definitions (`kernel: {}`; `{template: true}` only templates, `{via_macro: true}` only macro-hidden)."""
    spec = pattern["kernel"] or {}
    for k, f in launches.kernel_functions(sf):
        if spec.get("template") is not None and bool(spec["template"]) != k.is_template:
            continue
        if spec.get("via_macro") is not None and bool(spec["via_macro"]) != (k.via_macro is not None):
            continue
        node = f.node.child_by_field_name("declarator")
        start = node.start_byte if node is not None else f.start_byte
        yield Hit(start, start + len(k.qualified_name), name=k.name)


def match_launch(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Launch sites (`launch: {kinds: [chevron, cudaLaunchKernel, ...], in_device_code: bool}`)."""
    spec = pattern["launch"] or {}
    kinds = set(spec.get("kinds", ()))
    for l, start, end in launches.launch_spans(sf):
        if kinds and l.kind not in kinds:
            continue
        if spec.get("in_device_code"):
            f = sf.enclosing(start)
            if f is None or not (f.is_kernel or f.is_device):
                continue
        yield Hit(start, end, name=l.kernel, values=(("kind", l.kind),))


MATCHERS = {
    "identifiers": match_identifiers,
    "regex": match_regex,
    "include": match_include,
    "call": match_call,
    "query": match_query,
    "kb": match_kb,
    "kernel": match_kernel,
    "launch": match_launch,
}
