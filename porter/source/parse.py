"""Turn one file's bytes into what matchers read: a tree-sitter tree, a code-only view, lines, and functions.

C, C++ and CUDA files are parsed with tree-sitter-cuda (a superset of the C++ grammar), Python with
tree-sitter-python. Every language gets `code`: the file's bytes with comments (and, for parsed languages,
string contents) blanked to spaces at the same length, so byte offsets and line numbers stay exact and a
regex or token match on `code` can never hit a comment or a string. Qualifier macros that hide `__global__`
(`#define KERNEL __global__`) are neutralised before parsing, keeping offsets, and remembered per use.

This module holds SourceFile, Function and `parse`; beside it are tree-sitter's grammars and queries
(parse_queries), what the parser sees instead of the bytes (parse_input) and the token index (parse_tokens).
"""
from __future__ import annotations

import bisect
import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import IO, Callable, Sequence

import tree_sitter as ts

from porter.lazyre import lazy_regex
from porter.source.parse_input import (LIBRARY_QUALIFIER_MACROS, blank, blank_numeric_runs, harvest_macros,
                                       kernel_macro_bodies, neutralise_macros, unparsed_attributes)
from porter.source.parse_queries import captures, parser_for, register_root_query
from porter.source import preprocessor
from porter.source.parse_tokens import file_tokens

_PLUS_ONE = (1).__add__
HASH_COMMENT_LANGUAGES = frozenset({"cmake", "make", "meson", "bazel", "shell", "yaml", "toml", "requirements", "dockerfile", "text"})


# Patterns only some files need are compiled when first used (porter.lazyre), not at import: compiling them
# all up front was ~2 ms of every run, most of it for patterns a scan of a few C++ files never uses.

# Inside a #define body tree-sitter sees only text, so strings and comments there are found lexically.
# An unterminated comment runs to the end (as in C): matched once, not retried at every later `/*` (quadratic).
_macro_noise = lazy_regex(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)


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
    # A binary file's whole content on demand, through the source's bounded reader (porter.pipeline: `data` then
    # holds only the head), and its size; None: `data` is the whole file.
    opener: Callable[[], IO[bytes]] | None = field(default=None, repr=False)
    size: int | None = None

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
            self._tokens = file_tokens(self.code)
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


def _in_spans(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def parse(path: str, language_name: str, data: bytes, macros: dict[str, str] | None = None,
          comment_spans: Sequence[int] | None = None) -> SourceFile:
    """Parse `data` as `language_name` (a porter language) into a SourceFile.

    `macros` are qualifier macros defined in other files of the repository (see harvest_macros). `comment_spans`:
    porter.source.preprocessor.comment_spans(data) (flat) when the caller already has them (the repository facts' lex).
    """
    # Each line's length plus its newline, summed: mapped in C (a generator stepped once per line was ~5% of a scan).
    line_starts = list(itertools.accumulate(map(_PLUS_ONE, map(len, data.split(b"\n")[:-1])), initial=0))
    if language_name == "cuda":
        return _parse_cuda(path, data, line_starts, macros, comment_spans)
    if language_name == "python":
        return _parse_python(path, data, line_starts)
    comments = _hash_comment_spans(data, language_name) if language_name in HASH_COMMENT_LANGUAGES else []
    code = blank(data, comments)
    return SourceFile(path, language_name, data, code, None, comments, [], [], {}, line_starts)


def _parse_cuda(path: str, data: bytes, line_starts: list[int], macros: dict[str, str] | None,
                comment_spans: Sequence[int] | None = None) -> SourceFile:
    macros = {**LIBRARY_QUALIFIER_MACROS, **(macros or {})}
    parse_input, macro_uses, global_macros = neutralise_macros(data, macros)
    parse_input = blank_numeric_runs(parse_input)
    # A kernel defined inside a #define body (issue 27 class 5) is parsed as the code it expands to.
    parse_input = kernel_macro_bodies(parse_input, macro_uses, global_macros)
    if comment_spans is not None and (parse_input is data or parse_input == data):
        preprocessor.known_comment_spans(parse_input, comment_spans)  # the pass for braces then lexes no comments
    # One arm of an #if group whose arms split braces (issue 27 class 5): a kernel must not swallow its launcher.
    unbraced = parse_input
    parse_input = preprocessor.one_arm_for_braces(parse_input)
    if b"__cluster_dims__" in parse_input or b"__align__" in parse_input or b"__maxnreg__" in parse_input or b"__block_size__" in parse_input:
        parse_input = unparsed_attributes().sub(lambda m: b" " * len(m.group()), parse_input)
    tree = parser_for("cuda").parse(parse_input)
    caps = captures("cuda", _CUDA_STRUCTURE, tree.root_node)
    comments = _spans(caps.get("comment", []))
    strings = _spans(caps.get("string", [])) + _spans(caps.get("quoted", []), inner=True)
    if parse_input is not unbraced:
        blanked_comments, blanked_raw = _unparsed_comments(data, parse_input)
        comments += blanked_comments
        strings += blanked_raw
    for node in caps.get("macro", []):
        for m in _macro_noise().finditer(data, node.start_byte, node.end_byte):
            if m.end() <= node.end_byte:
                (comments if m.group().startswith(b"/") else strings).append((m.start(), m.end()))
    comments.sort()
    strings.sort()
    code = blank(data, comments + strings)
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


def _unparsed_comments(data: bytes, parsed: bytes) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The comments (and raw strings) of `data` the parser never saw: those in the arms and directive lines
    preprocessor.one_arm_for_braces blanked to spaces in `parsed` (the `#else` arm of a group whose arms split
    braces, a `// ...` after its `#else`). The parse tree has no comment node there, yet the regex rules read every
    arm, so without them such a comment's words stay in `code` and match as code (stormm's
    `// In order to conserve register pressure` read as the `register` storage class)."""
    comments: list[tuple[int, int]] = []
    raw: list[tuple[int, int]] = []
    for start, end in preprocessor.lexed_comment_spans(data):
        if parsed[start:end] == data[start:end]:
            continue  # parsed as it is: the tree has it
        (comments if data.startswith(b"/", start) else raw).append((start, end))
    return comments, raw


def _parse_python(path: str, data: bytes, line_starts: list[int]) -> SourceFile:
    tree = parser_for("python").parse(data)
    caps = captures("python", _PY_STRUCTURE, tree.root_node)
    comments = sorted(_spans(caps.get("comment", [])))  # sorted: in_comment/in_string bisect these lists
    strings = sorted(_spans(caps.get("string", [])))
    code = blank(data, comments + strings)
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


# `^[^\S\n]*`, not `^\s*`: the same lines, but `re` no longer runs over every blank line after each line start
# (quadratic: 32 KB of blank lines took 7 s).
_from_triton_jit = lazy_regex(rb"^[^\S\n]*from\s+triton\s+import\s+[^\n]*\bjit\b", re.M)


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
    pasted = data[name_node.start_byte:name_node.end_byte] if name_node is not None else b""
    if b"##" in pasted:
        # A name pasted in a macro body (`k_##T##_##Name`): the parser read `k___T___Name`; the kernel is named by
        # its last pasted operand, the macro parameter one use of the macro names it by.
        qualified = pasted.decode("utf-8", "replace")
        return _function(node, qualified, pasted.rsplit(b"##", 1)[1].strip().decode("utf-8", "replace"),
                         data, macro_uses, global_macros, device_macros)
    return _function(node, qualified, unqualified(qualified), data, macro_uses, global_macros, device_macros)


def _function(node: ts.Node, qualified: str, name: str, data: bytes, macro_uses: dict[int, str],
              global_macros: set[str], device_macros: set[str]) -> Function:
    decl = node.child_by_field_name("declarator")
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
        for off, used in macro_uses.items():
            if lo <= off < decl_start and used in global_macros:
                via_macro = used
                is_kernel = True
            elif lo <= off < decl_start and used in device_macros:
                is_device = True
    return Function(
        name=name,
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
    name = decl.child_by_field_name("declarator")
    # `__global__ void (k)(...)` (parenthesised, so no function-like macro `k` expands there) and `void k
    # [[gnu::used]] (...)`: the name inside. A parenthesised declarator that holds more (`void (*f(int))(float)`, a
    # function returning a function pointer) names the inner function.
    while name is not None and name.type in _NAME_WRAPPERS:
        inner = name.named_children[0] if name.named_children else None
        if inner is not None and "declarator" in inner.type and inner.type not in _NAME_WRAPPERS:
            return function_name_node(inner)
        name = inner
    return name


_NAME_WRAPPERS = frozenset({"parenthesized_declarator", "attributed_declarator"})


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
    last = base.rsplit("::", 1)[-1].strip()
    # `FD::template mul<N>`: the keyword that marks a dependent member template is not part of the name
    if last.startswith("template") and last[8:9].isspace():
        last = last[9:].strip()
    return last or name


_START = operator.attrgetter("start_byte")
_END = operator.attrgetter("end_byte")


def _spans(nodes, inner: bool = False) -> list[tuple[int, int]]:
    """The nodes' (start, end) byte spans; `inner`: within their first and last byte (a string literal's quotes,
    kept so the surrounding code still reads as a string expression). Read with map: a file has thousands."""
    spans = zip(map(_START, nodes), map(_END, nodes))
    if inner:
        return [(s + 1, max(s + 1, e - 1)) for s, e in spans]
    return list(spans)


def _hash_comment_spans(data: bytes, lang: str) -> list[tuple[int, int]]:
    """`#` comments: anywhere outside quotes in CMake (and its bracket comments, `#[==[ ... ]==]`, which run over
    lines: the documentation block of a vendored Find module); at line start only in Dockerfiles; after blank
    elsewhere."""
    spans = []
    if lang == "dockerfile":
        rx = re.compile(rb"^[ \t]*#[^\n]*", re.M)
    elif lang == "cmake":
        # an escape outside quotes first (`\"` in `-DDATE=\"${DATE}\"` is a character of an unquoted argument, not
        # an opening quote: https://cmake.org/cmake/help/latest/manual/cmake-language.7.html#escape-sequences).
        # An escape may be a backslash before the newline (a quoted argument's line continuation, MRay's `"... \`
        # over three lines): re.S lets `\\.` take it, else the string's match failed there and every later quote
        # was read the wrong way round, `#` comments as code and code as strings.
        rx = re.compile(rb'\\.|"(?:\\.|[^"\\])*"|#\[(=*)\[[\s\S]*?\]\1\]|#[^\n]*', re.S)
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
