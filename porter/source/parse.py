"""Turn one file's bytes into what matchers read: a tree-sitter tree, a code-only view, lines, and functions.

C, C++ and CUDA files are parsed with tree-sitter-cuda (a superset of the C++ grammar), Python with
tree-sitter-python. Every language gets `code`: the file's bytes with comments (and, for parsed languages,
string contents) blanked to spaces at the same length, so byte offsets and line numbers stay exact and a
regex or token match on `code` can never hit a comment or a string. Qualifier macros that hide `__global__`
(`#define KERNEL __global__`) are neutralised before parsing, keeping offsets, and remembered per use.
"""
from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
import threading
from dataclasses import dataclass, field
from typing import Iterator

import tree_sitter as ts

from porter.lazyre import lazy_regex

HASH_COMMENT_LANGUAGES = frozenset({"cmake", "make", "bazel", "shell", "yaml", "toml", "requirements", "dockerfile", "text"})


# Patterns only some files need are compiled when first used (porter.lazyre), not at import: compiling them
# all up front was ~2 ms of every run, most of it for patterns a scan of a few C++ files never uses.

# Bytes >= 0x80 count as identifier characters (C++ allows Unicode identifiers), so `cudaMallocé` is not cudaMalloc.
# The first character's class comes first (the look-behind then checks the one before it), so the engine skips
# from candidate to candidate instead of trying the look-behind at every byte: 2x faster, the same tokens.
_ident = lazy_regex(rb"[A-Za-z_\x80-\xff](?<![A-Za-z0-9_$\x80-\xff].)[A-Za-z0-9_\x80-\xff]*")


# Inside a #define body tree-sitter sees only text, so strings and comments there are found lexically.
# An unterminated comment runs to the end (as in C): matched once, not retried at every later `/*` (quadratic).
_macro_noise = lazy_regex(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)


# `#define NAME body` where body is only declaration qualifiers (and optionally __launch_bounds__(...)).
_QUALIFIER_WORDS = (
    "__global__|__device__|__host__|__forceinline__|__noinline__|__inline__|inline|static|extern|constexpr"
    "|__launch_bounds__\\s*\\([^()\\n]*\\)|__attribute__\\s*\\(\\([^()\\n]*\\)\\)"
)
_QUALIFIER_MACRO = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+((?:(?:" + _QUALIFIER_WORDS.encode() + rb")[ \t]*)+)"
    rb"[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?\r?$",
    re.M,
)


@functools.lru_cache(maxsize=None)
def language(name: str) -> ts.Language:
    """The tree-sitter grammar for a porter language name (cuda or python)."""
    if name == "cuda":
        import tree_sitter_cuda

        return ts.Language(tree_sitter_cuda.language())
    if name == "python":
        import tree_sitter_python

        return ts.Language(tree_sitter_python.language())
    raise ValueError(f"no tree-sitter grammar for {name!r}")


_PARSERS = threading.local()


def _parser(name: str) -> ts.Parser:
    """This thread's parser for a language, made once: a parser per file costs ~2% of the parse itself."""
    parser = getattr(_PARSERS, name, None)
    if parser is None:
        parser = ts.Parser(language(name))
        setattr(_PARSERS, name, parser)
    return parser


# tree-sitter's own limits are not used: a parse's progress callback (which can cancel it) works only with a read
# callback as the source, and the trees parsed that way made a cold cuda-samples scan ~35% slower (1.2 of 3.5 CPU-s,
# measured); a QueryCursor cancelled by its progress callback segfaults with py-tree-sitter 0.26.1 (measured on 50k
# guarded #defines). The parser worker's clock and memory cap (porter.budget) bound both instead.


def _captures(q: ts.Query, node: ts.Node) -> dict[str, list[ts.Node]]:
    """A query's captures under `node` (one place runs every query: see the note on tree-sitter's limits above)."""
    return ts.QueryCursor(q).captures(node)


@functools.lru_cache(maxsize=None)
def query(lang: str, source: str) -> ts.Query:
    """A compiled tree-sitter query, cached per process (compiling costs far more than running)."""
    return ts.Query(language(lang), source)


# The captures of queries run on one tree's root, kept while that tree is the latest one asked about. Several
# rules and matchers ask the same question of a file (its imports, calls, keyword arguments); running a query
# costs about as much as parsing, so it runs once per file. Holding the root keeps its tree alive, so a node id
# in the key can never be a freed tree's.
_ROOT_MEMO: dict = {"root": None, "caps": {}}


# Queries that almost every file of a language is asked, run together as one query (one walk of the tree instead
# of one per query: 3.5x less query time on cuda-samples, same captures in the same order). Each module registers
# the queries it runs on whole files; see register_root_query.
_ROOT_QUERIES: dict[str, list[str]] = {}
_CAPTURE_NAME = re.compile(r"@([A-Za-z_][\w.\-]*)")


def register_root_query(lang: str, source: str) -> str:
    """Declare `source` as a query run on whole `lang` files, so `captures` runs it with the others; returns it."""
    if '"' not in source and source not in _ROOT_QUERIES.setdefault(lang, []):  # a string could hold an `@`
        _ROOT_QUERIES[lang].append(source)
    return source


def warm_queries(lang: str) -> None:
    """Compile `lang`'s combined whole-file query now (no parse): a process that forks parser workers does it once
    for all of them, instead of each worker compiling it again for its first file (~0.2 s)."""
    sources = tuple(_ROOT_QUERIES.get(lang, ()))
    if sources:
        try:
            query(lang, _combined(lang, sources))
        except Exception:  # noqa: BLE001 - as in captures: then each query is compiled where it runs
            pass


def registered_root_queries(lang: str) -> tuple[str, ...]:
    """The whole-file queries of `lang` that run together (for tests and tools)."""
    return tuple(_ROOT_QUERIES.get(lang, ()))


@functools.lru_cache(maxsize=64)
def _combined(lang: str, sources: tuple[str, ...]) -> str:
    """One query of all `sources`, each one's captures renamed `q<i>__<name>` so the results split back exactly."""
    return "\n".join(_CAPTURE_NAME.sub(lambda m, i=i: f"@q{i}__{m.group(1)}", s) for i, s in enumerate(sources))


def captures(lang: str, source: str, node: ts.Node) -> dict[str, list[ts.Node]]:
    """{capture name: nodes} of a query under `node` (a fresh dict of fresh lists: callers may change them)."""
    if node.parent is not None:
        return _captures(query(lang, source), node)
    if _ROOT_MEMO["root"] is None or _ROOT_MEMO["root"] != node or _ROOT_MEMO["root"].id != node.id:
        _ROOT_MEMO["root"], _ROOT_MEMO["caps"] = node, {}
    memo = _ROOT_MEMO["caps"]
    key = (lang, source)
    if key not in memo:
        sources = tuple(_ROOT_QUERIES.get(lang, ()))
        try:
            combined = query(lang, _combined(lang, sources)) if source in sources else None
        except Exception:  # noqa: BLE001 - never expected (each part compiles alone); then each runs alone
            combined = None
        if combined is not None:
            caps = _captures(combined, node)
            split: list[dict] = [{} for _ in sources]
            for k, v in caps.items():  # `q<i>__<name>`: one pass over the captures, not one per query
                i, _, name = k.partition("__")
                split[int(i[1:])][name] = v
            for s, found in zip(sources, split):
                memo[(lang, s)] = found
        else:
            memo[key] = _captures(query(lang, source), node)
    return {k: list(v) for k, v in memo[key].items()}


def descendants(node: ts.Node | None, types: tuple[str, ...], lang: str = "cuda", vocabulary: tuple[str, ...] = (),
                memo: dict | None = None) -> list[ts.Node]:
    """`node` and the nodes under it whose type is one of `types`, in pre-order (a parent before its children,
    siblings in order), found by a tree-sitter query instead of a walk in Python.

    The query returns the right nodes but not in tree order, so they are sorted by (start, -end). That is the
    pre-order exactly unless two captured nodes share a span or one is empty (a MISSING token); then the tree is
    walked in Python instead, so the order never differs from a plain walk.

    Compiling a query costs ~15 ms whatever its size, so a caller that asks about many type sets passes one
    `vocabulary` (a superset of every `types`) and a per-file `memo`: each node is then queried once.
    """
    if node is None:
        return []
    if vocabulary:
        key = node.id
        caps = memo.get(key) if memo is not None else None
        if caps is None:
            caps = _captures(query(lang, " ".join(f"({t}) @{t}" for t in vocabulary)), node)
            if memo is not None:
                memo[key] = caps
        found = [n for t in types for n in caps.get(t, ())]
    elif node.parent is None:  # a whole file: run with the other whole-file queries when registered (below)
        found = captures(lang, descendants_query(types), node).get("n", [])
    else:
        found = _captures(query(lang, descendants_query(types)), node).get("n", [])
    if len(found) < 2:
        return found
    keys = [(n.start_byte, -n.end_byte) for n in found]
    order = sorted(range(len(found)), key=keys.__getitem__)
    prev = None
    for i in order:
        k = keys[i]
        if k == prev or k[0] == -k[1]:
            return walk_descendants(node, frozenset(types))
        prev = k
    return [found[i] for i in order]


def descendants_query(types: tuple[str, ...]) -> str:
    """The query `descendants` runs for `types`."""
    return "[" + " ".join(f"({t})" for t in types) + "] @n"


def register_root_descendants(lang: str, types: tuple[str, ...]) -> None:
    """Declare that whole `lang` files are asked `descendants(root, types)`: the walk then joins the combined
    whole-file query (see register_root_query) instead of walking the tree once more."""
    register_root_query(lang, descendants_query(types))


def walk_descendants(node: ts.Node, types: frozenset[str]) -> list[ts.Node]:
    """`node` and the nodes under it whose type is in `types`, in pre-order, by walking the subtree in Python
    (cheaper than a query for a small subtree)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in types:
            out.append(n)
        stack.extend(reversed(n.children))
    return out


_CUDA_STRUCTURE = """
(comment) @comment
(string_literal) @quoted
(raw_string_literal) @string
(char_literal) @string
(system_lib_string) @string
(preproc_arg) @macro
(function_definition) @function
"""
_PY_STRUCTURE = """
(comment) @comment
(string_content) @string
(function_definition) @function
"""
_ERRORS = "(ERROR) @e"
register_root_query("cuda", _CUDA_STRUCTURE)
register_root_query("python", _PY_STRUCTURE)
for _lang in ("cuda", "python"):  # asked of every file with a parse error: one more pattern, not another walk
    register_root_query(_lang, _ERRORS)


@dataclass(frozen=True)
class Function:
    """A function definition: where it is, its name, and whether it is a CUDA kernel or device function."""

    name: str
    qualified_name: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    is_kernel: bool
    is_device: bool
    via_macro: str | None
    node: ts.Node = field(compare=False, repr=False)


@dataclass(eq=False)
class SourceFile:
    """One file ready for matching. `data` is the original bytes; `code` hides comments and strings."""

    path: str
    language: str
    data: bytes
    code: bytes
    tree: ts.Tree | None
    comment_spans: list[tuple[int, int]]
    string_spans: list[tuple[int, int]]
    functions: list[Function]
    macro_uses: dict[int, str]  # byte offset of a neutralised qualifier macro use -> macro name
    line_starts: list[int]
    error_lines: int = 0
    _tokens: dict[bytes, list[int]] | None = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)  # per-file memo for matchers (e.g. call sites)

    @property
    def lines(self) -> int:
        if not self.data:
            return 0
        return len(self.line_starts) - (1 if self.data.endswith(b"\n") else 0)

    @property
    def root(self) -> ts.Node | None:
        return self.tree.root_node if self.tree is not None else None

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset; this column counts bytes (findings convert to characters)."""
        i = bisect.bisect_right(self.line_starts, offset) - 1
        return i + 1, offset - self.line_starts[i] + 1

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.data.find(b"\n", start)
        return self.data[start: end if end >= 0 else len(self.data)].decode("utf-8", "replace")

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def tokens(self) -> dict[bytes, list[int]]:
        """Identifier-shaped tokens in code (not comments or strings) with their byte offsets, in order of first
        occurrence (a mapping like a dict; a token's offsets are found when first asked for)."""
        if self._tokens is None:
            self._tokens = _file_tokens(self.code)
        return self._tokens

    def enclosing(self, offset: int) -> Function | None:
        """The innermost function definition containing a byte offset (binary search: it is asked per finding)."""
        index = self.cache.get("function_index")
        if index is None:
            starts, reach, furthest = [], [], -1
            for f in self.functions:  # sorted by start; definitions nest or are disjoint
                starts.append(f.start_byte)
                furthest = max(furthest, f.end_byte)
                reach.append(furthest)
            index = self.cache["function_index"] = (starts, reach)
        starts, reach = index
        i = bisect.bisect_right(starts, offset) - 1
        # Walk back only while some earlier definition still extends past the offset (an enclosing one).
        while i >= 0 and reach[i] > offset:
            f = self.functions[i]
            if offset < f.end_byte:
                return f
            i -= 1
        return None

    def in_comment(self, start: int) -> bool:
        return _in_spans(self.comment_spans, start)

    def in_string(self, start: int) -> bool:
        return _in_spans(self.string_spans, start)


# Bytes that continue an identifier, and the ones a token may not follow (`$` too: `a$b` holds the token `a` only).
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") | frozenset(range(0x80, 0x100))
_NOT_AFTER = _IDENT_BYTES | {ord("$")}
_DIGITS = frozenset(b"0123456789")
# Every byte that cannot be part of an identifier to a space, so bytes.split() yields the identifier-ish runs.
_TO_WORDS = bytes(b if b in _IDENT_BYTES else 0x20 for b in range(256))


class _Tokens(dict):
    """{token: offsets} whose keys are all known up front and whose offsets are found per token when first read:
    matchers ask the offsets of a few dozen tokens of the thousands a file has. Reading items() or values() finds
    them all."""

    __slots__ = ("_code", "_complete")

    def __init__(self, code: bytes, keys: dict):
        super().__init__(keys)
        self._code = code
        self._complete = False

    def __getitem__(self, tok: bytes) -> list[int]:
        offsets = dict.__getitem__(self, tok)
        if offsets is None:
            offsets = _token_offsets(self._code, tok)
            dict.__setitem__(self, tok, offsets)
        return offsets

    def get(self, tok, default=None):
        return self[tok] if tok in self else default

    def _fill(self) -> None:
        if not self._complete:
            dict.update(self, _regex_tokens(self._code))
            self._complete = True

    def items(self):
        self._fill()
        return dict.items(self)

    def values(self):
        self._fill()
        return dict.values(self)


def _token_offsets(code: bytes, tok: bytes) -> list[int]:
    """Where `tok` (a token of `code`) occurs as a whole token: what _ident().finditer finds for it."""
    out = []
    n, end = len(tok), len(code)
    at = code.find(tok)
    while at >= 0:
        after = at + n
        if (at == 0 or code[at - 1] not in _NOT_AFTER) and (after == end or code[after] not in _IDENT_BYTES):
            out.append(at)
        at = code.find(tok, after)
    return out


def _regex_tokens(code: bytes) -> dict[bytes, list[int]]:
    """Every token of `code` with all its offsets, by _ident() (the definition the faster paths must agree with)."""
    toks: dict[bytes, list[int]] = {}
    for m in _ident().finditer(code):
        toks.setdefault(m.group(), []).append(m.start())
    return toks


def _file_tokens(code: bytes) -> dict[bytes, list[int]]:
    if b"$" in code:  # rare; the runs below would take `b` of `a$b` for a token
        return _regex_tokens(code)
    # The identifier-ish runs in C (translate + split) instead of a regex match per token; a run that starts with
    # a digit is a number, never a token, and no identifier starts inside a run.
    keys = dict.fromkeys(code.translate(_TO_WORDS).split())
    for k in [k for k in keys if k[0] in _DIGITS]:
        del keys[k]
    return _Tokens(code, keys)


def _in_spans(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def parse(path: str, language_name: str, data: bytes, macros: dict[str, str] | None = None) -> SourceFile:
    """Parse `data` as `language_name` (a porter language) into a SourceFile.

    `macros` are qualifier macros defined in other files of the repository (see harvest_macros).
    """
    line_starts = list(itertools.accumulate((len(line) + 1 for line in data.split(b"\n")[:-1]), initial=0))
    if language_name == "cuda":
        return _parse_cuda(path, data, line_starts, macros)
    if language_name == "python":
        return _parse_python(path, data, line_starts)
    comments = _hash_comment_spans(data, language_name) if language_name in HASH_COMMENT_LANGUAGES else []
    code = _blank(data, comments)
    return SourceFile(path, language_name, data, code, None, comments, [], [], {}, line_starts)


# `#define DEFINE_KERNEL(name, ...) template <...> __global__ void name(Params p)`: a macro that declares a kernel
# whose name is one of its parameters (flash-attention's main kernels are written this way).
_function_macro = lazy_regex(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)


def line_matches(pattern: re.Pattern, data: bytes, words: tuple[bytes, ...]) -> Iterator[re.Match]:
    """What `pattern.finditer(data)` gives, for a MULTILINE pattern whose every match starts at a line start and
    ends within that line, and only on lines that contain one of `words`: those lines are found with bytes.find
    (memchr speed) instead of trying the pattern at every byte of the file."""
    starts = set()
    for word in words:
        at = data.find(word)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            starts.add(start)
            end = data.find(b"\n", at)
            at = data.find(word, end) if end >= 0 else -1
    for start in sorted(starts):
        m = pattern.match(data, start)
        if m is not None:
            yield m


def harvest_macros(data: bytes) -> dict[str, str]:
    """Macros that hide kernels: qualifier-only ones (`#define KERNEL_ENTRY __global__ __launch_bounds__(256)`)
    as {name: body}, and function-like kernel declarators as {"NAME()": index of the parameter naming the kernel}."""
    if b"define" not in data:
        return {}
    out: dict[str, str] = {}
    for m in line_matches(_QUALIFIER_MACRO, data, (b"define",)):
        name, body = m.group(1).decode(), m.group(2).decode().strip()
        # A macro defined per compiler (`#if defined(__NVCC__) ... __forceinline__ __device__ #else inline`, as
        # CUTLASS and CuTe do) keeps its nvcc arm: the CUDA build is the one porter reads device code for.
        if name not in out or not ("__device__" in out[name] or "__global__" in out[name]):
            out[name] = body
    if b"__global__" in data:
        # What _function_macro().finditer(data) finds, tried only on lines holding `define` (the pattern at every
        # byte was most of this function's time); a match on a line inside the previous one's continuation
        # lines is skipped, as finditer would not see it.
        end = -1
        for m in line_matches(_function_macro(), data, (b"define",)):
            if m.start() < end:
                continue
            end = m.end()
            body = m.group(3)
            if b"__global__" not in body:
                continue
            params = [p.strip() for p in m.group(2).split(b",")]
            for i, p in enumerate(params):
                if p and p != b"..." and re.search(rb"__global__[^;{]*\b" + re.escape(p) + rb"\s*\(", body):
                    out[m.group(1).decode() + "()"] = str(i)
                    break
    return out


def neutralise_macros(data: bytes, known: dict[str, str] | None = None) -> tuple[bytes, dict[int, str], set[str]]:
    """Replace uses of kernel-hiding macros with same-length text tree-sitter understands.

    `known` adds macros defined elsewhere in the repository (a kernel's `KERNEL_ENTRY` usually lives in a header).
    Returns the new bytes, {offset of each use: macro name} and the names of macros that make a kernel.
    A qualifier macro whose name is at least as long as `__global__` becomes `__global__` padded with spaces; a
    shorter one becomes spaces and the kernel is recognised from the recorded use instead. A function-like kernel
    declarator `DEFINE_KERNEL(k, ...)` becomes `void k()` padded with spaces, recognised the same way.
    """
    known = dict(known or {})
    known.update(harvest_macros(data))
    declarators = {k[:-2].encode(): int(v) for k, v in known.items() if k.endswith("()")}
    macros = {k.encode(): v.encode() for k, v in known.items() if not k.endswith("()")}
    uses: dict[int, str] = {}
    global_macros = {n.decode() for n in declarators} | {n.decode() for n, body in macros.items() if b"__global__" in body}
    out = bytearray(data)
    if declarators:
        _expand_kernel_declarators(data, out, declarators, uses)
    names = []
    heads: dict[bytes, bool] = {}  # names sharing a head (CUTLASS_*, CUTE_*, C10_*) are looked for only if it is there
    for n in macros:
        head = n[:4]
        present = heads.get(head)
        if present is None:
            present = heads[head] = head in data
        if present and n in data:
            names.append(n)
    if names:
        pattern = re.compile(rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                             + rb")(?![A-Za-z0-9_])")
        define_lines = {m.start(1) for m in _QUALIFIER_MACRO.finditer(data)}
        for m in pattern.finditer(data):
            if m.start() in define_lines:
                continue
            name = m.group(1)
            n = len(name)
            keyword = b"__global__" if b"__global__" in macros[name] else b"__device__" if b"__device__" in macros[name] else b""
            out[m.start(): m.end()] = keyword.ljust(n) if len(keyword) <= n else b" " * n
            uses[m.start()] = name.decode()
    if not uses:
        return data, {}, set()
    return bytes(out), uses, global_macros


def parses_alike(data: bytes, macros: dict[str, str] | None) -> bool:
    """Whether `parse(path, "cuda", data, macros)` builds the same tree as `parse(path, "cuda", data)`: the
    repository's macros change no byte the parser sees (most files use none of them)."""
    if not macros or not any(name.removesuffix("()").encode() in data for name in macros):
        return True
    return neutralise_macros(data, {**LIBRARY_QUALIFIER_MACROS, **macros})[0] == \
        neutralise_macros(data, LIBRARY_QUALIFIER_MACROS)[0]


def _expand_kernel_declarators(data: bytes, out: bytearray, declarators: dict[bytes, int], uses: dict[int, str]) -> None:
    """Rewrite `MACRO(name, args...)` uses (on one line, outside #define) as `void name()` of the same length."""
    pattern = re.compile(rb"(?<![A-Za-z0-9_#])(" + b"|".join(re.escape(n) for n in declarators) + rb")[ \t]*\(")
    for m in pattern.finditer(data):
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if data[line_start:m.start()].lstrip().startswith(b"#"):
            continue  # the #define itself, or another directive
        depth, i, args, arg_start = 0, m.end() - 1, [], m.end()
        while i < len(data) and data[i] != 0x0A:
            c = data[i]
            if c in b"(<[{":
                depth += 1
            elif c in b")>]}":
                depth -= 1
                if depth == 0:
                    args.append(data[arg_start:i].strip())
                    break
            elif c == 0x2C and depth == 1:
                args.append(data[arg_start:i].strip())
                arg_start = i + 1
            i += 1
        else:
            continue  # the use spans lines: left alone
        index = declarators[m.group(1)]
        if index >= len(args) or not re.fullmatch(rb"[A-Za-z_]\w*", args[index]):
            continue
        repl = b"void " + args[index] + b"()"
        span = i + 1 - m.start()
        if len(repl) > span:
            continue
        out[m.start():i + 1] = repl.ljust(span)
        uses[m.start()] = m.group(1).decode()


# Attributes tree-sitter-cuda cannot parse between a declaration's specifiers and its name; blanked (same length)
# in the parser's input only, so the kernel they decorate is still seen and offsets stay exact.
_unparsed_attributes = lazy_regex(rb"\b(?:__cluster_dims__|__align__|__maxnreg__|__block_size__)\s*\([^()\n]*\)")


# Lines holding only numeric literals (embedded cubins, lookup tables): runs of them make hundreds of thousands of
# number nodes that slow every tree query and say nothing a rule reads, so the parser sees them blanked; `data`
# keeps every byte. Matched line by line: a single repeated pattern over a 3 MB table costs ~400 MB in `re`. On
# `re`, not RE2: RE2 finds cuda-samples' few candidates faster (0.9 vs 6 ms), but FasterTransformer's embedded
# cubins are hundreds of thousands of numeric lines, and each RE2 match costs several Python calls in its binding
# (the whole-tree scan took 2.2 CPU-s longer).
_NUMERIC_LINE = re.compile(
    rb"^[ \t]*(?:[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)[uUlLfF]*[ \t]*,[ \t]*)+\r?$", re.M)
_NUMERIC_RUN_MIN_LINES = 32
_NUMERIC_RUN_MIN_FILE = 16 * 1024


def _blank_numeric_runs(buf: bytes) -> bytes:
    if len(buf) < _NUMERIC_RUN_MIN_FILE or buf.count(b",") < 256:
        return buf
    runs: list[tuple[int, int]] = []
    start = end = -1
    count = 0
    for m in _NUMERIC_LINE.finditer(buf):
        if m.start() == end + 1 and start >= 0:  # the next line directly follows the run
            end, count = m.end(), count + 1
            continue
        if count >= _NUMERIC_RUN_MIN_LINES:
            runs.append((start, end))
        start, end, count = m.start(), m.end(), 1
    if count >= _NUMERIC_RUN_MIN_LINES:
        runs.append((start, end))
    return _blank(buf, runs) if runs else buf


# Qualifier macros of the CUDA C++ libraries device code is written with, as their public headers define them for
# nvcc: CUTLASS's include/cutlass/detail/helper_macros.hpp, CuTe's include/cute/config.hpp, PyTorch's
# c10/macros/Macros.h. They stand in when the library's headers are not in the scanned tree (a submodule left out
# of the checkout: xformers' `CUTLASS_DEVICE` helpers were host code to porter); a definition the repository has
# comes first.
LIBRARY_QUALIFIER_MACROS = {
    "CUTLASS_DEVICE": "__forceinline__ __device__",
    "CUTLASS_HOST_DEVICE": "__forceinline__ __device__ __host__",
    "CUTLASS_GLOBAL": "__global__ static",
    "CUTE_DEVICE": "__forceinline__ __device__",
    "CUTE_HOST_DEVICE": "__forceinline__ __host__ __device__",
    "C10_DEVICE": "__device__",
    "C10_HOST_DEVICE": "__host__ __device__",
}


def _parse_cuda(path: str, data: bytes, line_starts: list[int], macros: dict[str, str] | None) -> SourceFile:
    macros = {**LIBRARY_QUALIFIER_MACROS, **(macros or {})}
    parse_input, macro_uses, global_macros = neutralise_macros(data, macros)
    parse_input = _blank_numeric_runs(parse_input)
    if b"__cluster_dims__" in parse_input or b"__align__" in parse_input or b"__maxnreg__" in parse_input or b"__block_size__" in parse_input:
        parse_input = _unparsed_attributes().sub(lambda m: b" " * len(m.group()), parse_input)
    tree = _parser("cuda").parse(parse_input)
    caps = captures("cuda", _CUDA_STRUCTURE, tree.root_node)
    comments = _spans(caps.get("comment", []))
    strings = _spans(caps.get("string", [])) + _spans(caps.get("quoted", []), inner=True)
    for node in caps.get("macro", []):
        for m in _macro_noise().finditer(data, node.start_byte, node.end_byte):
            if m.end() <= node.end_byte:
                (comments if m.group().startswith(b"/") else strings).append((m.start(), m.end()))
    comments.sort()
    strings.sort()
    code = _blank(data, comments + strings)
    # Qualifier macros too short to be rewritten as `__device__` (`#define DEVICE __device__ inline`) still make
    # a device function: recognised from the recorded use, as kernels are.
    device_macros = set()
    if macro_uses:
        known = {**(macros or {}), **harvest_macros(data)}
        device_macros = {n for n, body in known.items() if "__device__" in body}
    functions = [_cuda_function(n, data, macro_uses, global_macros, device_macros) for n in caps.get("function", [])]
    functions.sort(key=lambda f: f.start_byte)
    return SourceFile(path, "cuda", data, code, tree, comments, strings, functions, macro_uses, line_starts,
                      error_lines=_error_lines(tree, "cuda"))


def _parse_python(path: str, data: bytes, line_starts: list[int]) -> SourceFile:
    tree = _parser("python").parse(data)
    caps = captures("python", _PY_STRUCTURE, tree.root_node)
    comments = sorted(_spans(caps.get("comment", [])))  # sorted: in_comment/in_string bisect these lists
    strings = sorted(_spans(caps.get("string", [])))
    code = _blank(data, comments + strings)
    functions = []
    triton = b"triton" in data
    bare_jit = triton and _from_triton_jit().search(data) is not None
    for n in caps.get("function", []):
        name_node = n.child_by_field_name("name")
        name = name_node.text.decode("utf-8", "replace") if name_node else "<anonymous>"
        jit = triton and _triton_jit(n, bare_jit)  # a Triton kernel: findings in it name it, as in a __global__ one
        functions.append(Function(name, name, n.start_byte, n.end_byte, n.start_point.row + 1, n.end_point.row + 1,
                                  jit, jit, None, n))
    functions.sort(key=lambda f: f.start_byte)
    return SourceFile(path, "python", data, code, tree, comments, strings, functions, {}, line_starts,
                      error_lines=_error_lines(tree, "python"))


_triton_jit_decorator = lazy_regex(rb"^@\s*triton\s*\.\s*jit\b")


_bare_jit_decorator = lazy_regex(rb"^@\s*jit\b")


_from_triton_jit = lazy_regex(rb"^\s*from\s+triton\s+import\s+[^\n]*\bjit\b", re.M)


def _triton_jit(node: ts.Node, bare_jit: bool) -> bool:
    """Whether a Python function definition is decorated `@triton.jit` (or `@jit` in a file that imports it from
    triton); porter.kernels.triton tells its kernels from its inlined helpers."""
    parent = node.parent
    return parent is not None and parent.type == "decorated_definition" and any(
        c.type == "decorator"
        and (_triton_jit_decorator().match(c.text) or (bare_jit and _bare_jit_decorator().match(c.text)))
        for c in parent.children)


def _cuda_function(node: ts.Node, data: bytes, macro_uses: dict[int, str], global_macros: set[str],
                   device_macros: set[str] = frozenset()) -> Function:
    decl = node.child_by_field_name("declarator")
    name_node = function_name_node(decl)
    qualified = name_node.text.decode("utf-8", "replace") if name_node is not None else "<anonymous>"
    child_types = {c.type for c in node.children}
    is_kernel = "__global__" in child_types
    via_macro = None
    is_device = "__device__" in child_types
    if macro_uses:  # asked only then: a node's parent and previous sibling are found by walking from the root
        decl_start = decl.start_byte if decl is not None else node.end_byte
        # A macro use inside the declaration's specifiers (before its declarator) may be what made this a kernel.
        prev = node.prev_sibling
        lo = prev.end_byte if prev is not None else node.start_byte
        parent = node.parent
        if parent is not None and parent.type == "template_declaration":
            lo = parent.start_byte
        for off, name in macro_uses.items():
            if lo <= off < decl_start and name in global_macros:
                via_macro = name
                is_kernel = True
            elif lo <= off < decl_start and name in device_macros:
                is_device = True
    return Function(
        name=unqualified(qualified),
        qualified_name=qualified,
        start_byte=node.start_byte,
        end_byte=node.end_byte,
        start_line=node.start_point.row + 1,
        end_line=node.end_point.row + 1,
        is_kernel=is_kernel,
        is_device=is_device,
        via_macro=via_macro,
        node=node,
    )


def function_name_node(decl: ts.Node | None) -> ts.Node | None:
    """The name inside a (possibly pointer/reference-wrapped) function declarator."""
    while decl is not None and decl.type != "function_declarator":
        nxt = decl.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in decl.named_children if "declarator" in c.type), None)
        decl = nxt
    if decl is None:
        return None
    return decl.child_by_field_name("declarator")


def unqualified(name: str) -> str:
    """`ns::k<T>` -> `k`: the name a launch site and a definition share."""
    if "<" not in name and ":" not in name:
        return name.strip()  # the common case, on the hot path of every call site
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    base = "".join(out).strip()
    return base.rsplit("::", 1)[-1].strip() or name


_START = operator.attrgetter("start_byte")
_END = operator.attrgetter("end_byte")


def _spans(nodes, inner: bool = False) -> list[tuple[int, int]]:
    """The nodes' (start, end) byte spans; `inner`: within their first and last byte (a string literal's quotes,
    kept so the surrounding code still reads as a string expression). Read with map: a file has thousands."""
    spans = zip(map(_START, nodes), map(_END, nodes))
    if inner:
        return [(s + 1, max(s + 1, e - 1)) for s, e in spans]
    return list(spans)


# Every byte to a space except newlines, which keep line numbers exact (bytes.translate: C speed, no regex state).
_TO_BLANK = bytes(10 if b == 10 else 32 for b in range(256))


def _blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    if not spans:
        return data
    out = bytearray(data)
    for s, e in spans:
        out[s:e] = data[s:e].translate(_TO_BLANK)
    return bytes(out)


def _hash_comment_spans(data: bytes, lang: str) -> list[tuple[int, int]]:
    """`#` comments: anywhere outside quotes in CMake; at line start only in Dockerfiles; after blank elsewhere."""
    spans = []
    if lang == "dockerfile":
        rx = re.compile(rb"^[ \t]*#[^\n]*", re.M)
    elif lang == "cmake":
        rx = re.compile(rb'"(?:\\.|[^"\\])*"|#[^\n]*')
    else:
        rx = re.compile(rb"(?:^|(?<=[ \t]))#[^\n]*", re.M)
    for m in rx.finditer(data):
        if m.group().lstrip().startswith(b"#"):
            spans.append((m.start(), m.end()))
    return spans


def _error_lines(tree: ts.Tree, lang: str) -> int:
    """How many lines tree-sitter could not parse (reported, so a reader knows how much was seen)."""
    if not tree.root_node.has_error:
        return 0
    rows: set[int] = set()
    for n in captures(lang, _ERRORS, tree.root_node).get("e", []):
        rows.update(range(n.start_point.row, n.end_point.row + 1))
    return len(rows)
