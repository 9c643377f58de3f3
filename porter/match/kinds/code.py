"""Pattern kinds for source code: identifiers, regex, include, call, tree-sitter query, knowledge base, kernels.

All of them look only at code (comments and strings are blanked in `SourceFile.code`) unless a pattern asks
for `in: string` / `in: comment` / `in: any`. Identifier matching is by whole token, so `cudaLaunch` never
matches inside `cudaLaunchCooperativeKernel`.
"""
from __future__ import annotations

import fnmatch
import functools
import re
from typing import Iterable, Iterator, NamedTuple

from porter.match.base import Hit, MatchContext, Matcher, make_hit, per_object
from porter.match.prefilter import LiteralIndex, required_literals
from porter.match.regex import RegexSet, compile_regex as linear_regex
from porter.source.parse import SourceFile, captures, unqualified
from porter.source.preprocessor import preprocessed
from porter.source.syntax import index, is_member_access, scope_of

_FLAGS = {"ignorecase": re.I, "multiline": re.M, "dotall": re.S}


# Only nvcc compiles these files, so assembly outside any function (a #define body) is device code there.
NVCC_ONLY_SUFFIXES = (".cu", ".cuh")
_PTX_SHAPE = re.compile(rb"%|;|\\n|\{")


def in_device_code(sf: SourceFile, offset: int) -> bool:
    """Whether a byte offset is in code compiled for the GPU: inside a __global__/__device__ function (qualifier
    macros included), inside an `#if`/`#ifdef __CUDA_ARCH__` branch, or outside any function in a .cu/.cuh file.
    Host functions of any file (CPU/DSP assembly in ggml-cpu, boost's x87 rounding code) are not."""
    fn = sf.enclosing(offset)
    if fn is not None and (fn.is_kernel or fn.is_device):
        return True
    if _under_cuda_arch(sf, offset):
        return True
    return fn is None and sf.path.endswith(NVCC_ONLY_SUFFIXES)


# Warp-level work: shuffles, votes, warp syncs and reductions, cooperative-groups tiles, CUB warp primitives, tensor-
# core MMA (a warp-wide fragment layout), and calls of functions named for warps (`warp_reduce_sum(v)`).
# On RE2, reading bytes as `re` does (a whole function body is searched per ask; `\b\w*[Ww]arp` made `re` retry
# every word).
_WARP_LEVEL = linear_regex(r"__shfl|__ballot|__any_sync|__all_sync|\b__any\s*\(|\b__all\s*\(|__activemask|__syncwarp"
                           r"|__reduce_\w+_sync|__match_\w+_sync|\bWarp(?:Reduce|Scan|Load|Store|Exchange)\b|tiled_partition"
                           r"|coalesced_threads|\bwmma\b|\bmma\b|mma\.sync|ldmatrix|\b\w*[Ww]arp\w*\s*(?:<[^;(){}]*>)?\s*\(",
                           latin1=True)
_CALLED = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(")
_WARP_NAMED = re.compile(rb"[Ww]arp|WARP")


def warp_dependent(sf: SourceFile, start: int, end: int) -> bool:
    """Whether a `/ 32` at [start, end) divides by the hardware warp: it is outside any function (a macro, a
    constant), its line names warps (`warp_id = tid / 32`, `(tid / 32) % NUM_WARPS_Q`: the author's own word, and
    the helper that uses it may sit in another header), or its function does warp-level work itself or through a
    same-file function it calls (three calls deep). Elsewhere it splits a block's data into groups of 32 threads,
    which is as right on wave64 as on NVIDIA."""
    fn = sf.enclosing(start)
    if fn is None:
        return True
    line_start = sf.code.rfind(b"\n", 0, start) + 1
    line_end = sf.code.find(b"\n", end)
    if _WARP_NAMED.search(sf.code[line_start:line_end if line_end >= 0 else len(sf.code)]):
        return True
    return _warp_level(sf, fn, sf.cache.setdefault("code.warp_level", {}), 3)


def _warp_level(sf: SourceFile, fn, memo: dict, depth: int) -> bool:
    key = fn.start_byte
    if key in memo:
        return memo[key]
    memo[key] = False  # a recursive call chain ends here
    body = sf.code[fn.start_byte:fn.end_byte]
    found = _WARP_LEVEL.search(body) is not None
    if not found and depth > 0:
        by_name = sf.cache.get("code.functions_by_name")
        if by_name is None:
            by_name = sf.cache["code.functions_by_name"] = {}
            for f in sf.functions:
                by_name.setdefault(f.name.encode(), []).append(f)
        for name in {m.group(1) for m in _CALLED.finditer(body)}:
            if any(f is not fn and _warp_level(sf, f, memo, depth - 1) for f in by_name.get(name, ())):
                found = True
                break
    memo[key] = found
    return found


def _under_cuda_arch(sf: SourceFile, offset: int) -> bool:
    if b"__CUDA_ARCH__" not in sf.data:
        return False
    return preprocessed(sf).device_only(sf.position(offset)[0])


def in_ptx_string(sf: SourceFile, offset: int) -> bool:
    """Whether a string-literal offset holds PTX: a string of an asm statement, of a #define body, or one shaped
    like instructions (`%0`, `;`, `\\n`, `{`). A diagnostic such as `"cp_async needs SM80"` (CuTe's
    CUTE_INVALID_CONTROL_PATH messages) is prose, not PTX."""
    if not sf.in_string(offset):
        return False
    node = sf.root.descendant_for_byte_range(offset, offset + 1)
    lit = node
    while lit is not None and lit.type not in ("string_literal", "raw_string_literal", "preproc_arg", "preproc_def"):
        lit = lit.parent
    if lit is None:
        return True  # a macro body string the tree does not see as a literal
    if lit.type in ("preproc_arg", "preproc_def"):
        return True
    p = lit.parent
    while p is not None and p.type == "concatenated_string":
        p = p.parent
    if p is not None and p.type in ("gnu_asm_expression", "preproc_arg"):
        return True
    if p is not None and p.type in ("argument_list", "static_assert_declaration"):
        return False  # printf / static_assert / an error macro's message
    return bool(_PTX_SHAPE.search(lit.text))


def compile_regex(pattern: str, flags: tuple[str, ...] = ()):
    """A rule's pattern on bytes, on the linear-time engine where it can run (porter.match.regex)."""
    return linear_regex(pattern, tuple(flags))


@functools.lru_cache(maxsize=4096)
def _prefilter(pattern: str, flags: tuple[str, ...] = ()) -> tuple[frozenset[bytes] | None, bool]:
    try:
        lits, fold = required_literals(pattern, flags)
    except Exception:  # an analysis failure must never lose a hit: no prefilter
        return None, False
    if lits is None:
        return None, fold
    _LITERALS.add(lits)  # once per pattern: from then on every file is searched for these too
    return frozenset(lits), fold


def may_match(pattern: str, flags: tuple[str, ...], sf: SourceFile, text: bytes, key: str) -> bool:
    """Whether `text` (sf.code or sf.data, named by `key`) holds a literal every match of the regex needs."""
    lits, fold = _prefilter(pattern, flags)
    if lits is None:
        return True
    memo = sf.cache.get(("literals", key, fold))
    if memo is None or memo[0] != len(_LITERALS.literals):  # a pattern brought new literals: search again
        if fold:
            ck = "lower:" + key
            if ck not in sf.cache:
                sf.cache[ck] = text.lower()
            text = sf.cache[ck]
        memo = sf.cache[("literals", key, fold)] = (len(_LITERALS.literals), _LITERALS.present(text))
    return not memo[1].isdisjoint(lits)


# The literals of every regex prefilter, searched for in a file in one pass (shared by all regex patterns).
_LITERALS = LiteralIndex()
# The rules' regex patterns, searched for all at once per file (porter.match.regex.RegexSet), one set per language
# and text (code or data): a file is searched only for the patterns that can run on it; see register_regexes.
_REGEXES: dict[tuple[str, str], RegexSet] = {}


def register_regexes(patterns: Iterable[dict], languages: Iterable[str]) -> None:
    """Declare regex patterns (rule pattern objects) of rules for `languages` before the first file, so each file
    of those languages is searched for all of them in one pass and a pattern that cannot match there is not run.
    Undeclared patterns simply always run."""
    languages = tuple(languages)
    for pattern in patterns:
        if "regex" in pattern:
            key, regex, flags = ("code" if pattern.get("in", "code") == "code" else "data"), pattern["regex"], \
                tuple(pattern.get("flags", ()))
        elif "lane_mask" in pattern:
            key, regex, flags = "code", lane_mask_regex(pattern["lane_mask"]), ()
        else:
            continue
        for language in languages:
            _REGEXES.setdefault((language, key), RegexSet()).add(regex, flags)


def _may_run(pattern: str, flags: tuple[str, ...], sf: SourceFile, text: bytes, key: str) -> bool:
    """Whether a regex may match in `text`, asked the cheapest way: a file's code is searched for all of its
    language's declared patterns anyway, so for those that answer alone decides (no literal pass over the code;
    the regex itself is exact, so a looser answer for a relaxed pattern only costs a search); raw bytes are first
    checked for literals, which spares most files the set search there."""
    regexes = _REGEXES.get((sf.language, key))
    known = (pattern, flags)
    if regexes is None or known not in regexes.members:
        return may_match(pattern, flags, sf, text, key)
    if key != "code" and not may_match(pattern, flags, sf, text, key):
        return False
    # The set's answer for the file, searched once per file and set version.
    memo = sf.cache.get(("regex_set", key))
    if memo is None or memo[0] is not regexes.version:
        memo = sf.cache[("regex_set", key)] = (regexes.version, regexes.possible(text))
    return memo[1] is None or known in memo[1]


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


def _regex_pattern(pattern: dict) -> _RegexPattern:
    where = pattern.get("in", "code")
    return _RegexPattern(pattern["regex"], tuple(pattern.get("flags", ())), where, "code" if where == "code" else "data")


_read_regex = per_object(_regex_pattern)


def match_regex(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    p = _read_regex(pattern)
    where = p.where
    text = sf.code if where == "code" else sf.data
    if where == "ptx" and sf.tree is None:
        return ()
    if not _may_run(p.regex, p.flags, sf, text, p.key):
        return ()  # what most patterns answer for most files: no generator to start and stop
    return _regex_hits(p, sf, text)


def _regex_hits(p: _RegexPattern, sf: SourceFile, text: bytes) -> Iterator[Hit]:
    where = p.where
    rx = compile_regex(p.regex, p.flags)  # only once a file may hold a match: many patterns never need compiling
    has_hit = "hit" in rx.groupindex
    for m in rx.finditer(text):
        if m.end() == m.start():
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
    matches = _any_glob(tuple(pattern["include"]))
    for node, header in index(sf).includes:
        if matches(header):
            yield Hit(node.start_byte, node.end_byte, name=header)


@functools.lru_cache(maxsize=1024)
def _any_glob(globs: tuple[str, ...]):
    """`matches(name)`: any(fnmatch.fnmatchcase(name, g) for g in globs), as one regex (each glob's translation
    is anchored at both ends, and a match is tried from the start) instead of one call per glob."""
    if not globs:
        return lambda name: False
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)).match


def match_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = set(pattern["call"])
    if sf.language == "python":
        for fn, dotted, call in index(sf).python_calls:
            if dotted in names or any(dotted.endswith("." + n) for n in names if "." in n):
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


# How a knowledge-base library reads in a message, and the ROCm backend its `roc` names belong to.
LIBRARY_NAMES = {
    "runtime": "CUDA runtime", "driver": "CUDA driver", "device": "CUDA device", "rtc": "NVRTC",
    "cucomplex": "cuComplex", "cublas": "cuBLAS", "cusparse": "cuSPARSE", "cusolver": "cuSOLVER", "cufft": "cuFFT",
    "curand": "cuRAND", "cudnn": "cuDNN", "cub": "CUB",
}
ROC_LIBRARIES = {
    "cublas": "rocBLAS", "cusparse": "rocSPARSE", "cusolver": "rocSOLVER", "cufft": "rocFFT", "curand": "rocRAND",
    "cudnn": "MIOpen", "cub": "rocPRIM",
}


def match_kb(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Identifiers the knowledge base knows, filtered by `status` and `library` lists.

    Options: `not_library`; `skip_identity` (names HIP spells the same need no rename); `prefer_roc` (libraries
    whose hip* names are not a usable port, e.g. cuDNN's retired hipDNN, so the roc* name is the replacement);
    `require_next` ({name: text} — the name counts only when that text follows it, e.g. `texture<`);
    `add` (entries HIPIFY's tables lack, or notes for entries they have: [{cuda, status, library, hip?, note}]);
    `hip_headers` (declared | renamed | missing: keep a name only when HIP's real headers, per rules/kb/hip_names.tsv,
    declare it / spell it differently / lack it; names that table does not list count as declared).
    """
    spec = pattern["kb"]
    choose = _kb_choice(ctx, spec)
    known = _kb_candidates(sf, ctx)
    if choose.added_tokens:
        known = sorted(set(known) | (choose.added_tokens & sf.tokens().keys()))
    memo, require_next = choose.memo, choose.require_next
    for tok in known:
        chosen = memo.get(tok, _UNASKED)
        if chosen is _UNASKED:
            chosen = memo[tok] = _kb_chosen(choose, ctx, tok.decode())
        if chosen is None:
            continue
        name, replacement, values = chosen
        after = require_next.get(tok)
        width = len(name)
        for off in _kb_uses(sf, tok, name):
            if after is not None and not _followed_by(sf.code, off + len(tok), after):
                continue
            yield make_hit((off, off + width, name, replacement, values, None))


_UNASKED = object()


class _KbChoice(NamedTuple):
    """One kb pattern's options, read once, and its answer per name asked so far (`memo`: name -> what
    `_kb_chosen` returned), which depends only on the options and the knowledge base, not on the file."""

    spec: dict
    statuses: frozenset[str]
    libraries: frozenset[str]
    skip_libraries: frozenset[str]
    prefer_roc: frozenset[str]
    require_next: dict[bytes, bytes]
    added: dict[str, dict]
    added_tokens: frozenset[bytes]  # the `added` names as tokens
    hip_headers: str | None
    memo: dict


def _kb_choice(ctx: MatchContext, spec: dict) -> _KbChoice:
    memos = ctx.memo.setdefault("kb.choice", {})  # id(spec) -> choice; the choice holds the spec, so ids stay unique
    choice = memos.get(id(spec))
    if choice is None or choice.spec is not spec:
        choice = memos[id(spec)] = _KbChoice(
            spec, frozenset(spec.get("status", ())), frozenset(spec.get("library", ())),
            frozenset(spec.get("not_library", ())), frozenset(spec.get("prefer_roc", ())),
            {k.encode(): v.encode() for k, v in (spec.get("require_next") or {}).items()},
            {e["cuda"]: e for e in spec.get("add", ())}, frozenset(e["cuda"].encode() for e in spec.get("add", ())),
            spec.get("hip_headers"), {})
    return choice


def _kb_chosen(choice: _KbChoice, ctx: MatchContext, name: str) -> tuple[str, str | None, tuple] | None:
    """(name, replacement, message values) when the pattern reports `name`, else None."""
    spec, added, hip_headers = choice.spec, choice.added, choice.hip_headers
    entry = ctx.kb.get(name)
    if entry is None:
        extra = added.get(name)
        if extra is None:
            return None
        from porter.kb import ApiEntry

        entry = ApiEntry(cuda=name, hip=extra.get("hip"), status=extra["status"], library=extra["library"],
                         section="porter rule data")
    if choice.statuses and entry.status not in choice.statuses:
        return None
    if choice.libraries and entry.library not in choice.libraries:
        return None
    if entry.library in choice.skip_libraries:
        return None
    if spec.get("skip_identity") and entry.identity:
        return None
    values = _kb_values(entry, choice.prefer_roc, added.get(name, {}).get("note", ""))
    if hip_headers:
        found = _hip_name(name)
        if found is None and hip_headers != "declared" or found is not None and found.state != hip_headers:
            return None
        if found is not None:
            values = tuple(sorted(dict(values, hip_since=found.first_hip, hip_checked=found.checked_up_to,
                                       hip_spelling=found.hip_spelling).items()))
            if found.state == "renamed":
                values = tuple(sorted(dict(values, replacement=found.hip_spelling, hip=found.hip_spelling,
                                           advice=f"HIP's headers (checked up to HIP {found.checked_up_to}) "
                                                  f"spell it {found.hip_spelling}").items()))
            elif found.state == "missing":
                values = tuple(sorted(dict(values, advice=f"HIP's headers (checked up to HIP {found.checked_up_to}) "
                                           "do not declare it: write a helper or rewrite the call").items()))
    return name, dict(values)["replacement"] or None, values


def _kb_uses(sf: SourceFile, tok: bytes, name: str) -> list[int]:
    """The offsets of `tok` that use the name as a free name: not a member (`obj.name`), not where the file defines
    it, not where a variable of the file shadows it (`int texture = 3;`). The same for every kb pattern."""
    memo = sf.cache.setdefault("kb.uses", {})
    uses = memo.get(tok)
    if uses is None:
        shadowed = index(sf).variables.get(name, frozenset())
        defined_here = _defined_locally(sf, name)
        uses = memo[tok] = [
            off for off in sf.tokens()[tok]
            if not (is_member_access(sf.code, off) or off in defined_here
                    or shadowed and (-1 in shadowed or -2 - off in shadowed or scope_of(sf, off) in shadowed))]
    return uses


def _hip_name(name: str):
    from porter.kb import hip_names

    return hip_names().get(name)


def _kb_candidates(sf: SourceFile, ctx: MatchContext) -> list[bytes]:
    """The file's tokens the knowledge base knows, sorted: one set intersection per file, shared by every kb
    pattern."""
    if "kb_candidates" not in sf.cache:
        sf.cache["kb_candidates"] = sorted(ctx.kb_tokens.intersection(sf.tokens()))
    return sf.cache["kb_candidates"]


def _followed_by(code: bytes, pos: int, text: bytes) -> bool:
    """Whether `text` comes next after optional white space (without copying the rest of the file)."""
    while pos < len(code) and code[pos] in b" \t\r\n":
        pos += 1
    return code.startswith(text, pos)


def _kb_values(entry, prefer_roc: set[str], note: str) -> tuple[tuple[str, str], ...]:
    """Message values for one knowledge-base entry; `advice` is the sentence that says what to do instead."""
    return _entry_values(entry, entry.library in prefer_roc, note)


@functools.lru_cache(maxsize=8192)  # one entry is hit many times in a scan (cudaMalloc, cudaMemcpy, ...)
def _entry_values(entry, use_roc: bool, note: str) -> tuple[tuple[str, str], ...]:
    library_name = LIBRARY_NAMES.get(entry.library, entry.library)
    roc_library = ROC_LIBRARIES.get(entry.library, "ROCm")
    replacement = (entry.roc if use_roc else entry.hip) or ""
    if use_roc:
        advice = (f"port by hand to {roc_library} ({entry.roc})" if entry.roc
                  else f"port by hand to {roc_library}, which has no direct counterpart")
    elif entry.status == "unsupported":
        advice = (f"{roc_library} has {entry.roc}; otherwise rewrite by hand" if entry.roc
                  else "rewrite by hand")
    elif entry.hip:
        advice = "HIP keeps the same name" if entry.identity else f"hipify maps it to {entry.hip}"
        if entry.hip_deprecated:
            advice += f", itself deprecated since HIP {entry.hip_deprecated}"
    elif entry.status == "same_name":
        advice = "compare its behaviour with HIP's device headers"
    else:
        advice = "no HIP name"
    if note:
        advice = note
    since = (f"removed in {library_name} {entry.cuda_removed}" if entry.cuda_removed
             else f"deprecated since {library_name} {entry.cuda_deprecated}" if entry.cuda_deprecated
             else "")
    return (("advice", advice), ("deprecated", entry.cuda_deprecated or ""), ("hip", entry.hip or "none"),
            ("library", entry.library), ("library_name", library_name), ("removed", entry.cuda_removed or ""),
            ("replacement", replacement), ("roc", entry.roc or ""), ("since", since), ("status", entry.status))


def match_kb_header(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`#include`s the knowledge base's header map knows (`kb_header: {status: [...], not_include: [globs]}`)."""
    if sf.language != "cuda" or sf.root is None:
        return
    from porter.source.includes import project_header

    memo = ctx.memo.setdefault("kb_header", {}).setdefault(id(pattern), (pattern, {}))
    if memo[0] is not pattern:  # another pattern object now has that id
        memo = ctx.memo["kb_header"][id(pattern)] = (pattern, {})
    answers = memo[1]
    own = ctx.extra.get("repository_files") or frozenset()
    for node, header in index(sf).includes:
        answer = answers.get(header, _UNASKED)
        if answer is _UNASKED:  # what the pattern says of a header is the same in every file
            answer = answers[header] = _kb_header_answer(pattern["kb_header"] or {}, header, ctx)
        if answer is None:
            continue
        if own and project_header(sf.path, header, node.type == "string_literal", own):
            continue
        replacement, values = answer
        yield Hit(node.start_byte, node.end_byte, name=header, replacement=replacement, values=values)


def _kb_header_answer(spec: dict, header: str, ctx: MatchContext) -> tuple[str | None, tuple] | None:
    """(replacement, message values) when the pattern reports an #include of `header`, else None."""
    if _any_glob(tuple(spec.get("not_include", ())))(header):
        return None
    statuses = set(spec.get("status", ()))
    entry = ctx.kb.header(header)
    if entry is None or (statuses and entry.status not in statuses):
        return None
    if entry.status == "rename":
        advice = f"include <{entry.hip}> instead"
    elif entry.status == "drop":
        advice = "delete the include"
    elif entry.hip:
        advice = f"port by hand to <{entry.hip}>"
    else:
        advice = "no ROCm counterpart"
    values = (("advice", advice), ("hip", entry.hip or "none"), ("library", entry.library),
              ("note", entry.note or advice), ("status", entry.status))
    return (entry.hip if entry.status == "rename" else None), values


_WORD = re.compile(r"\w+", re.A)


@functools.lru_cache(maxsize=8192)  # asked per file for each knowledge-base name it uses
def _is_word(name: str) -> bool:
    return _WORD.fullmatch(name) is not None


def _defined_locally(sf: SourceFile, name: str) -> set[int]:
    """Offsets where the file itself defines `name` (a #define or a function), which are not uses of the CUDA API."""
    memo = sf.cache.setdefault("defined_locally", {})
    if name not in memo:
        memo[name] = _find_defined_locally(sf, name)
    return memo[name]


def _find_defined_locally(sf: SourceFile, name: str) -> set[int]:
    out = set()
    by_name = sf.cache.get("code.function_names")
    if by_name is None:  # asked for each candidate name: one pass over the functions per file, not per name
        by_name = sf.cache["code.function_names"] = {}
        for f in sf.functions:
            by_name.setdefault(f.name, []).append(f)
    for f in by_name.get(name, ()):
        node = f.node.child_by_field_name("declarator")
        while node is not None and node.type != "identifier" and node.named_child_count:
            node = node.child_by_field_name("declarator") or node.named_children[0]
        if node is not None:
            out.add(node.start_byte)
    # Declarations such as a member `void* cudaMalloc(size_t);` name the project's own function.
    out |= index(sf).function_declarations.get(name, frozenset())
    if not _is_word(name):
        for m in re.finditer(rb"#[ \t]*define[ \t]+(" + re.escape(name.encode()) + rb")\b", sf.code):
            out.add(m.start(1))
        return out
    # Every #define's name at once (the same matches as a per-name `define NAME\b` search, one pass per file).
    out |= index(sf).defines.get(name.encode(), frozenset())
    return out


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


def match_member_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`obj.method()` where obj is declared with one of `types` or initialised by a call to one of `inits`.

    `member_call: {method: sync, types: [grid_group], inits: [this_grid]}` finds `grid.sync()` after
    `auto grid = cg::this_grid();` and the direct `cg::this_grid().sync()`, but not `block.sync()`.
    """
    spec = pattern["member_call"]
    if sf.language != "cuda" or sf.root is None:
        return
    types, inits = set(spec.get("types", ())), set(spec.get("inits", ()))
    objects = _typed_variables(sf, types, inits)
    for fn, text, call in index(sf).calls:
        if fn.type != "field_expression":
            continue
        field_node, obj = fn.child_by_field_name("field"), fn.child_by_field_name("argument")
        if field_node is None or obj is None or field_node.text.decode() != spec["method"]:
            continue
        if obj.type == "identifier" and (scope_of(sf, obj.start_byte), obj.text.decode()) in objects:
            yield Hit(fn.start_byte, call.end_byte, name=obj.text.decode())
        elif obj.type == "call_expression" and _callee_name(obj) in inits:
            yield Hit(fn.start_byte, call.end_byte, name=_callee_name(obj))


def _callee_name(call) -> str:
    fn = call.child_by_field_name("function")
    return unqualified(fn.text.decode("utf-8", "replace")) if fn is not None else ""


def _typed_variables(sf: SourceFile, types: set[str], inits: set[str]) -> set[tuple[int, str]]:
    """(enclosing function, name) of variables and parameters declared with a type whose last part is in `types`,
    or initialised from a call to one of `inits` (a name means different things in different functions).

    Such a declaration holds the type's or initialiser's last name part as a token, so only the declarations
    around those tokens are read (a tree-sitter query over every declaration cost a 20 ms compile per scan)."""
    out: set[tuple[int, str]] = set()
    toks = sf.tokens()
    seen: set[int] = set()
    for name in sorted(types | inits):
        for off in toks.get(name.encode(), ()):
            node = sf.root.descendant_for_byte_range(off, off + len(name))
            while node is not None:
                if node.type in ("declaration", "parameter_declaration") and node.id not in seen:
                    seen.add(node.id)
                    for type_node, var, value in _declared(node):
                        _add_typed(sf, out, type_node, var, value, types, inits)
                node = node.parent
    return out


def _declared(decl) -> Iterable[tuple[object, object, object]]:
    """(type, declarator, initialiser or None) of a declaration or parameter, as the query
    `(declaration type: (_) declarator: (init_declarator declarator: (_) value: (_)))`,
    `(declaration type: (_) declarator: (identifier))` and `(parameter_declaration type: (_) declarator: (_))`
    match them."""
    type_node = decl.child_by_field_name("type")
    if type_node is None or not type_node.is_named:
        return
    for d in decl.children_by_field_name("declarator"):
        if decl.type == "parameter_declaration":
            if d.is_named:
                yield type_node, d, None
        elif d.type == "init_declarator":
            var, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
            if var is not None and var.is_named and value is not None and value.is_named:
                yield type_node, var, value
        elif d.type == "identifier":
            yield type_node, d, None


def _add_typed(sf: SourceFile, out: set, type_node, var, value, types: set[str], inits: set[str]) -> None:
    while var.type in ("reference_declarator", "pointer_declarator") and var.named_child_count:
        var = var.named_children[-1]
    if var.type != "identifier":
        return
    type_name = unqualified(type_node.text.decode("utf-8", "replace"))
    if type_name in types or (value is not None and value.type == "call_expression" and _callee_name(value) in inits):
        out.add((scope_of(sf, var.start_byte), var.text.decode()))


# Where a name sits when C++ needs a compile-time constant there: node type -> the child field holding the constant
# (None: anywhere inside the node).
_CONSTANT_SLOTS = {
    "array_declarator": "size",
    "template_argument_list": None,
    "static_assert_declaration": "condition",
    "case_statement": "value",
    "enumerator": "value",
    "launch_bounds": None,
    "optional_parameter_declaration": "default_value",
    "bitfield_clause": None,
    "alignas_qualifier": None,
}
_CONTEXT_NAMES = {
    "array_declarator": "an array extent", "template_argument_list": "a template argument",
    "static_assert_declaration": "a static_assert", "case_statement": "a case label", "enumerator": "an enumerator",
    "launch_bounds": "__launch_bounds__", "optional_parameter_declaration": "a template parameter default",
    "bitfield_clause": "a bit-field width", "alignas_qualifier": "alignas", "if": "an #if condition",
    "elif": "an #elif condition", "constexpr": "a constexpr or static const initialiser",
    "define": "an object-like #define body",
}
# Statements end the upward walk: a name inside one is an ordinary run-time expression.
_RUNTIME_STOPS = frozenset({
    "expression_statement", "return_statement", "if_statement", "for_statement", "while_statement",
    "do_statement", "compound_statement", "function_definition", "argument_list", "parameter_list",
    "condition_clause", "field_expression", "subscript_expression", "call_expression",
})


def match_constant_context(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Uses of `names` where a compile-time constant is required (array extents, template arguments,
    constexpr/static const initialisers, static_assert, case labels, object-like #define bodies)."""
    if sf.language != "cuda" or sf.root is None:
        return
    toks = sf.tokens()
    for name in pattern["constant_context"]:
        for off in toks.get(name.encode(), ()):
            if is_member_access(sf.code, off):
                continue
            context = _constant_context(sf, off, off + len(name))
            if context:
                yield Hit(off, off + len(name), name=name, values=(("context", _CONTEXT_NAMES[context]),))


def _constant_context(sf: SourceFile, start: int, end: int) -> str | None:
    # A name on a conditional directive's lines: the preprocessor reader says which (an #if or #elif condition
    # needs a constant; an #ifdef only asks whether it is defined).
    directive = preprocessed(sf).conditional_at(sf.position(start)[0]) if b"#" in sf.data else None
    if directive is not None:
        return directive if directive in ("if", "elif") else None
    node = sf.root.descendant_for_byte_range(start, end)
    child = None
    while node is not None:
        kind = node.type
        if kind == "preproc_arg":
            parent = node.parent
            return "define" if parent is not None and parent.type == "preproc_def" else None
        if kind in _CONSTANT_SLOTS:
            slot = _CONSTANT_SLOTS[kind]
            # tree-sitter spells a function parameter's default (`int width = warpSize`, a run-time value) like a
            # template parameter's: only the latter needs a constant.
            if kind == "optional_parameter_declaration" and (node.parent is None or node.parent.type != "template_parameter_list"):
                return None
            if slot is None or node.child_by_field_name(slot) == child:
                return kind
        if kind in ("init_declarator", "declaration", "field_declaration"):
            decl = node if kind != "init_declarator" else node.parent
            if decl is not None and child != (node.child_by_field_name("declarator") if kind == "init_declarator" else None):
                words = {c.text.decode() for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")}
                if "constexpr" in words or ("static" in words and "const" in words):
                    return "constexpr"
            if kind != "init_declarator":
                return None
        if kind in _RUNTIME_STOPS:
            return None
        child, node = node, node.parent
    return None


# Spellings of an all-lanes mask that is 32 bits wide in value or in type: 0xffffffff (any case or suffix: the value
# still names lanes 0-31 only), ~0 and ~0u, -1, 4294967295, UINT32_MAX, UINT_MAX. HIP's *_sync intrinsics
# static_assert a 64-bit mask type, so even -1 (an int) fails to compile; ~0ull and -1ll are correct and not listed.
FULL_MASK = re.compile(
    rb"^\(*\s*(?:0[xX][fF]{8}[uUlL]*|~\s*0[uU]?|-\s*1|4294967295[uUlL]*|UINT32_MAX|UINT_MAX"
    rb"|(?:uint32_t|unsigned(?:\s+int)?|std::uint32_t)\s*\(\s*-\s*1\s*\)|static_cast\s*<\s*(?:uint32_t|unsigned(?:\s+int)?)\s*>\s*\(\s*-\s*1\s*\))\s*\)*$"
)


# A call's name must not follow a word character, `.` or `>` (a member or a longer name), as (?<![\w.>]) says.
_LANE_CALL_GUARD = r"(?<![\w.>])"
_AFTER_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.>")


def lane_mask_regex(names: Iterable[str]) -> str:
    """The regex a lane_mask pattern runs: a call of one of `names` and its first argument (group `hit`)."""
    return _LANE_CALL_GUARD + _lane_mask_call(names)


def _lane_mask_call(names: Iterable[str]) -> str:
    arg = r"(?P<hit>[^,()]*(?:\([^()]*\)[^,()]*)*)"
    return r"(?P<fn>" + "|".join(re.escape(n) for n in names) + r")\s*\(" + arg + r"[,)]"


# Each lane_mask pattern's regex, spelled once for the scan instead of once per file.
_lane_mask_source = per_object(lambda pattern: lane_mask_regex(pattern["lane_mask"]))
# What match_lane_mask searches with: the regex without its leading guard, which it checks itself. On `re` either
# way (the guard kept the whole regex there), but a regex that starts with the names lets `re` skip to their first
# characters, where one that starts with a look-behind is tried at every byte of the file.
_lane_mask_call_rx = per_object(lambda pattern: re.compile(_lane_mask_call(pattern["lane_mask"]).encode()))


def match_lane_mask(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """A full 32-bit lane mask passed as the first argument of a warp intrinsic (`lane_mask: [__shfl_sync, ...]`),
    written as a literal or through a name the file defines as one (`#define FULL_MASK 0xffffffff`)."""
    source = _lane_mask_source(pattern)
    if not _may_run(source, (), sf, sf.code, "code"):
        return ()
    return _lane_mask_hits(_lane_mask_call_rx(pattern), sf)


def _lane_mask_hits(rx, sf: SourceFile) -> Iterator[Hit]:
    """What `finditer` of the whole lane_mask regex finds: a match of `rx` whose start fails the guard is no match,
    and the search goes on from the next byte, as finditer's would."""
    code = sf.code
    mask_names = None
    pos = 0
    while True:
        m = rx.search(code, pos)
        if m is None:
            return
        start = m.start()
        if start and code[start - 1] in _AFTER_NAME:
            pos = start + 1
            continue
        pos = m.end()
        text = m.group("hit").strip()
        if not FULL_MASK.match(text):
            if mask_names is None:
                mask_names = _full_mask_names(sf)  # only for a file with a call whose mask is not a literal
            if text not in mask_names:
                continue
        # The span runs from the intrinsic's name to the end of the mask, so the finding sits on the call's line.
        trail = len(m.group("hit")) - len(m.group("hit").rstrip())
        yield Hit(m.start("fn"), m.end("hit") - trail, name=m.group("fn").decode(),
                  values=(("mask", text.decode("utf-8", "replace")),))


_MASK_LITERAL = rb"\(*\s*(?:0[xX][fF]{8}[uUlL]*|~\s*0[uU]?|-\s*1|4294967295[uUlL]*|UINT32_MAX|UINT_MAX)\s*\)*"
# Anchored on the mask literal itself, so the search is linear in the file (a lazy `[^;]+?` per word was not).
_MASK_DEFINE = re.compile(rb"#[ \t]*define[ \t]+(\w+)[ \t]+" + _MASK_LITERAL + rb"[ \t]*$", re.M)
_MASK_VARIABLE = re.compile(rb"\b(\w+)\s*(?:=|\{)\s*" + _MASK_LITERAL + rb"\s*\}?\s*;")


def _full_mask_names(sf: SourceFile) -> set[bytes]:
    """Names the file defines as a full 32-bit mask, by #define or by a (const) variable initialiser."""
    if "full_mask_names" not in sf.cache:
        out = {m.group(1) for m in _MASK_DEFINE.finditer(sf.code)}
        out |= {m.group(1) for m in _MASK_VARIABLE.finditer(sf.code)}
        sf.cache["full_mask_names"] = out
    return sf.cache["full_mask_names"]
