"""Pattern kinds for source code: identifiers, regex, include, call, tree-sitter query, knowledge base, kernels.

All of them look only at code (comments and strings are blanked in `SourceFile.code`) unless a pattern asks
for `in: string` / `in: comment` / `in: any`. Identifier matching is by whole token, so `cudaLaunch` never
matches inside `cudaLaunchCooperativeKernel`.

This module holds the identifier, regex, include, call, query, kernel, launch and feature kinds; beside it are
where a hit sits (code_device), how regexes run (code_regex), the knowledge-base kinds (code_kb), `member_call`
(code_members), `constant_context` (code_constants) and `lane_mask` (code_lanes).
"""
from __future__ import annotations

import fnmatch
import functools
import re
from typing import Iterable, Iterator, NamedTuple

from porter.match.base import Hit, MatchContext, Matcher, per_object
from porter.match.kinds.code_device import in_ptx_string
from porter.match.kinds.code_regex import any_glob, compile_regex, may_run
from porter.source.parse import SourceFile, unqualified
from porter.source.parse_queries import captures
from porter.source.syntax import index, is_member_access

_FLAGS = {"ignorecase": re.I, "multiline": re.M, "dotall": re.S}


def _name_matcher(names: list[str]):
    """Exact names plus `prefix*` / glob entries, checked against one token at a time."""
    return _compiled_names(tuple(names))


@functools.lru_cache(maxsize=1024)
def _compiled_names(names: tuple[str, ...]):
    exact = frozenset(n.encode() for n in names if not any(c in n for c in "*?["))
    globs = [n for n in names if any(c in n for c in "*?[")]
    # `prefix*` (every glob of porter's rules) is bytes.startswith, asked in C; an ASCII prefix reads the same
    # on the bytes as on the token decoded as below. Other globs: fnmatchcase(tok, g) for each, as one regex.
    prefixes = tuple(g[:-1].encode() for g in globs)
    if not all(g.endswith("*") and g[:-1].isascii() and not any(c in g[:-1] for c in "*?[") for g in globs):
        prefixes = None
    glob_rx = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)) if globs else None

    def matches(tok: bytes) -> bool:
        if tok in exact:
            return True
        if prefixes is not None:
            return tok.startswith(prefixes)
        return glob_rx is not None and glob_rx.match(tok.decode("ascii", "replace")) is not None

    return exact, globs, matches, prefixes


def match_identifiers(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    exact, globs, matches, prefixes = _name_matcher(pattern["identifiers"])
    toks = sf.tokens()
    if not globs:
        candidates = exact & toks.keys()
    elif prefixes is not None:
        # A token that starts with a prefix holds it, so a code without any prefix (most files) needs no walk over
        # its tokens unless an exact name is there too; otherwise the walk keeps the tokens' order.
        if any(prefix in sf.code for prefix in prefixes) or not exact.isdisjoint(toks.keys()):
            candidates = [t for t in toks if t.startswith(prefixes) or t in exact]
        else:
            candidates = []
    else:
        candidates = [t for t in toks if matches(t)]
    # Most files have none of a pattern's names: they get an empty tuple, not a generator to start and stop.
    return _identifier_hits(sf, toks, candidates) if candidates else ()


def _identifier_hits(sf: SourceFile, toks, candidates: Iterable[bytes]) -> Iterator[Hit]:
    for tok in candidates:
        for off in toks[tok]:
            if is_member_access(sf.code, off):
                continue  # obj.cudaMalloc / p->cudaMalloc is the project's own member, not the CUDA API
            yield Hit(off, off + len(tok), name=tok.decode())


class _RegexPattern(NamedTuple):
    regex: str
    flags: tuple[str, ...]
    where: str  # code, string, comment, ptx, any
    key: str  # the text it runs on: "code" (sf.code) or "data" (sf.data)
    later: str | None  # the `later` / `not_later` options: regexes with a `name` group (see _last_starts)
    not_later: str | None


def _regex_pattern(pattern: dict) -> _RegexPattern:
    where = pattern.get("in", "code")
    return _RegexPattern(pattern["regex"], tuple(pattern.get("flags", ())), where, "code" if where == "code" else "data",
                         pattern.get("later"), pattern.get("not_later"))


def _last_starts(sf: SourceFile, regex: str, key: str, text: bytes) -> dict[bytes, int]:
    """Where the last match of `regex` in `text` (as finditer finds them) whose `name` group holds each name starts:
    one pass over the file per regex, so "is this name used after here" costs a lookup per hit. A lookahead
    `(?![\\s\\S]*...(?P=hit))` asked the same by rescanning the rest of the file for every match (quadratic: a
    256 KB file of such matches took the whole per-file budget on Python's engine)."""
    memo = sf.cache.setdefault("regex.last_starts", {})
    found = memo.get((regex, key))
    if found is None:
        found = {}
        for m in compile_regex(regex).finditer(text):
            name = m.group("name")
            if name is not None:
                found[name] = m.start()
        memo[(regex, key)] = found  # only when complete: a search stopped at its time slice leaves no half answer
    return found


_read_regex = per_object(_regex_pattern)


def match_regex(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    p = _read_regex(pattern)
    where = p.where
    text = sf.code if where == "code" else sf.data
    if where == "ptx" and sf.tree is None:
        return ()
    if not may_run(p.regex, p.flags, sf, text, p.key):
        return ()  # what most patterns answer for most files: no generator to start and stop
    return _regex_hits(p, sf, text)


def _regex_hits(p: _RegexPattern, sf: SourceFile, text: bytes) -> Iterator[Hit]:
    where = p.where
    rx = compile_regex(p.regex, p.flags)  # only once a file may hold a match: many patterns never need compiling
    has_hit = "hit" in rx.groupindex
    later = _last_starts(sf, p.later, p.key, text) if p.later is not None else None
    not_later = _last_starts(sf, p.not_later, p.key, text) if p.not_later is not None else None
    for m in rx.finditer(text):
        if m.end() == m.start():
            continue
        if later is not None and later.get(m.group("hit") if has_hit else m.group(), -1) < m.end():
            continue  # the name is not used after its definition
        if not_later is not None and not_later.get(m.group("hit") if has_hit else m.group(), -1) >= m.end():
            continue
        if where == "string" and not sf.in_string(m.start()):
            continue
        if where == "ptx" and not in_ptx_string(sf, m.start()):
            continue
        if where == "comment" and not sf.in_comment(m.start()):
            continue
        start, end = m.span("hit") if has_hit and m.group("hit") is not None else m.span()
        values = tuple((k, v.decode("utf-8", "replace")) for k, v in m.groupdict().items() if v is not None)
        yield Hit(start, end, name=sf.data[start:end].decode("utf-8", "replace"), values=values)


def match_include(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cuda" or sf.root is None:
        return
    matches = any_glob(tuple(pattern["include"]))
    for node, header in index(sf).includes:
        if matches(header):
            yield Hit(node.start_byte, node.end_byte, name=header)


def match_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = set(pattern["call"])
    if sf.language == "python":
        dotted_tails = tuple("." + n for n in names if "." in n)  # one C-level endswith per call, not a generator
        for fn, dotted, call in index(sf).python_calls:
            if dotted in names or dotted.endswith(dotted_tails):
                yield Hit(fn.start_byte, call.end_byte, name=dotted)
        return
    if sf.language != "cuda" or sf.root is None:
        return
    for fn, text, call in index(sf).calls:
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


def match_kernel(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Kernel definitions (`kernel: {}`; `{template: true}` only templates, `{via_macro: true}` only macro-hidden)."""
    spec = pattern["kernel"] or {}
    for k, f in index(sf).kernels:
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
    for l, start, end in index(sf).launches:
        if kinds and l.kind not in kinds:
            continue
        if spec.get("in_device_code"):
            f = sf.enclosing(start)
            if f is None or not (f.is_kernel or f.is_device):
                continue
        yield Hit(start, end, name=l.kernel, values=_launch_values(l.kind))


@functools.lru_cache(maxsize=64)
def _launch_values(kind: str) -> tuple[tuple[str, str], ...]:
    """One values tuple per launch kind for the scan, so the engine words each kind's message once (its memo is
    keyed by the values' identity)."""
    return (("kind", kind),)


def match_feature(pattern: dict, sf: SourceFile, ctx: MatchContext, inner: Matcher) -> Iterable[Hit]:
    """Another pattern kind plus a `note` for the message: `feature: {regex: ..., in: string, note: ...}`.

    One rule can then cover several related CUDA features (TMA, wgmma, clusters) and still say, per hit,
    which one it found and what that one needs. `inner` runs the wrapped pattern (the registry passes its own
    dispatch, so this module need not know the other kinds); the rule loader has checked it is one C++ kind.
    """
    spec, note = _read_feature(pattern)
    hits = inner(spec, sf, ctx)
    if type(hits) is tuple and not hits:
        return ()  # the wrapped matcher said at once that it has no hits (see match_regex)
    return _noted(hits, note)


def _noted(hits: Iterable[Hit], note: str) -> Iterator[Hit]:
    for hit in hits:
        yield Hit(hit.start, hit.end, hit.name, hit.replacement, tuple(sorted(dict(hit.values, note=note).items())))


def _feature(pattern: dict) -> tuple[dict, str]:
    """The wrapped pattern (one object for the scan, so what its matcher reads from it is read once) and the note."""
    spec = dict(pattern["feature"])
    return spec, spec.pop("note", "")


_read_feature = per_object(_feature)
