"""The per-file syntax index: what a parsed file calls, includes, imports, declares and defines, its kernels and
its kernel launch sites — read once from the tree and shared by every matcher and by kernel analysis.

`index(sf)` builds one SyntaxIndex per SourceFile (kept in `sf.cache`); each part is computed the first time it
is asked for, so a file pays only for the parts its rules use. Everything is in file order.

A kernel is a `function_definition` carrying `__global__` (directly or through a neutralised qualifier macro);
a launch is a `<<<...>>>` call or a call to one of the launch APIs, whose kernel argument is read through casts
and `&`. Names are unqualified so a launch of `ns::k<float>` links to the definition of `k`.
"""
from __future__ import annotations

import bisect
import functools
import operator
import re
import weakref
from typing import NamedTuple

import tree_sitter as ts

from porter.model import Kernel, Launch
from porter.source import preprocessor
from porter.source.parse import Function, SourceFile, unqualified
from porter.source.parse_queries import captures, register_root_query

# Launch API -> index of the argument that names the kernel.
LAUNCH_APIS = {
    "cudaLaunchKernel": 0,
    "cudaLaunchCooperativeKernel": 0,
    "cudaLaunchCooperativeKernelMultiDevice": None,  # takes an array of launch params
    "cudaLaunchKernelEx": 1,
    "cudaLaunchKernelExC": 1,
    "cuLaunchKernel": 0,
    "cuLaunchKernelEx": 1,
    "cuLaunchCooperativeKernel": 0,
}

_LAUNCH_API_TOKENS = frozenset(name.encode() for name in LAUNCH_APIS)
_CHEVRON = "(call_expression function: (_) (kernel_call_syntax)) @launch"
_CAST_NOISE = re.compile(r"^\s*(\((?:const\s+)?void\s*\*+\s*\)|reinterpret_cast<[^>]*>|static_cast<[^>]*>|\(|&|\*)\s*")
_PY_IMPORTS = """
(import_statement name: (dotted_name) @m)
(import_statement name: (aliased_import name: (dotted_name) @m))
(import_from_statement module_name: (dotted_name) @m)
"""
_VARIABLE_DECLARATORS = """
(init_declarator declarator: (identifier) @n)
(init_declarator declarator: (pointer_declarator declarator: (identifier) @n))
(parameter_declaration declarator: (identifier) @p)
(parameter_declaration declarator: (_ declarator: (identifier) @p))
"""
# Every declarator of every declaration (`int a, *b = 0, c[2] = {1, 2};`), for the readers that pick their shape in
# Python: patterns matching shapes under `declaration` ((declaration declarator: (identifier)), its pointer form, an
# initialised array) cost ~6 ms each of every run's query compile, as tree-sitter analyses each parse state a
# declaration can be in; one such pattern costs ~2 ms, and sorting its captures ~1.5 ms on all of cuda-samples.
_DECLARATION_DECLARATORS = "(declaration declarator: (_) @d)"
_INCLUDES = "(preproc_include path: (_) @p)"
_CALLS = "(call_expression) @c"
_PY_CALLS = "(call) @c"
_FUNCTION_DECLARATORS = "(function_declarator declarator: (_) @n)"
# Asked of nearly every file: run with the other whole-file queries in one walk (porter.source.parse_queries.captures).
for _source in (_INCLUDES, _CALLS, _VARIABLE_DECLARATORS, _DECLARATION_DECLARATORS, _FUNCTION_DECLARATORS,
                _CHEVRON):
    register_root_query("cuda", _source)
for _source in (_PY_CALLS, _PY_IMPORTS):
    register_root_query("python", _source)
_DEFINE_NAME = re.compile(rb"#[ \t]*define[ \t]+(\w+)")
# Sort keys read in C (stable sorts: ties keep their order, as with the lambdas they replace).
_START = operator.attrgetter("start_byte")
_NODE_START = operator.attrgetter("node.start_byte")
_CALLEE_START = operator.attrgetter("callee.start_byte")


def _declared(declarators: list[ts.Node]) -> list[ts.Node]:
    """Of declarations' declarators, the identifiers `(declaration declarator: (identifier))` and `(declaration
    declarator: (pointer_declarator declarator: (identifier)))` would capture, and the arrays' (`double umin[3];`,
    `int *m[2][2] = {0};`: ludwig's host array `umin` is no call of CUDA's umin)."""
    out = []
    for d in declarators:
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator")
        while d is not None and d.type in ("pointer_declarator", "array_declarator"):
            d = d.child_by_field_name("declarator")
        if d is not None and d.type == "identifier":
            out.append(d)
    return out


class Include(NamedTuple):
    """An `#include`: the path node and the header as written, without quotes or brackets."""

    node: ts.Node
    header: str


class Call(NamedTuple):
    """A call expression: its callee node, the callee's text, and the whole call node."""

    callee: ts.Node
    text: str  # C/C++: as written (`ns::f`, `obj.f`); Python: dotted, white space removed
    node: ts.Node


class Import(NamedTuple):
    """A Python absolute import: the dotted-name node and the module it names."""

    node: ts.Node
    module: str


class LaunchSite(NamedTuple):
    """A kernel launch with the byte span of its callee (chevrons) or launch API name."""

    launch: Launch
    start: int
    end: int


class SyntaxIndex:
    """The syntax facts of one parsed file; build it with `index(sf)`, which caches it on the file."""

    def __init__(self, sf: SourceFile):
        # The file keeps its index (sf.cache); a strong reference back would make every parsed file a cycle that
        # only the cyclic collector frees, so dead files and their trees piled up between collections (+30 MiB
        # peak on CuTe).
        self._sf = weakref.proxy(sf)

    @property
    def functions(self) -> list[Function]:
        """Function definitions, sorted by start (parsed with the file)."""
        return self._sf.functions

    @functools.cached_property
    def includes(self) -> tuple[Include, ...]:
        """Every `#include` of a C/C++/CUDA file."""
        sf = self._sf
        if sf.language != "cuda" or sf.root is None:
            return ()
        out = []
        for node in captures("cuda", _INCLUDES, sf.root).get("p", []):
            out.append(Include(node, node.text.decode("utf-8", "replace").strip().strip('<>"').strip()))
        return tuple(sorted(out, key=_NODE_START))

    @functools.cached_property
    def calls(self) -> tuple[Call, ...]:
        """Every C/C++ call expression (member calls included: the callee is then a field_expression)."""
        sf = self._sf
        if sf.language != "cuda" or sf.root is None:
            return ()
        out = []
        for call in captures("cuda", _CALLS, sf.root).get("c", []):
            fn = call.child_by_field_name("function")
            if fn is not None:
                out.append(Call(fn, fn.text.decode("utf-8", "replace"), call))
        return tuple(sorted(out, key=_CALLEE_START))

    @functools.cached_property
    def python_calls(self) -> tuple[Call, ...]:
        """Every Python call of a name or attribute, with the dotted callee text."""
        sf = self._sf
        if sf.language != "python" or sf.root is None:
            return ()
        out = []
        for call in captures("python", _PY_CALLS, sf.root).get("c", []):
            fn = call.child_by_field_name("function")
            if fn is None or fn.type not in ("identifier", "attribute"):
                continue
            out.append(Call(fn, "".join(fn.text.decode("utf-8", "replace").split()), call))
        return tuple(sorted(out, key=_CALLEE_START))

    @functools.cached_property
    def imports(self) -> tuple[Import, ...]:
        """Every absolute import of a Python file (`import a.b`, `import a.b as c`, `from a.b import c`)."""
        sf = self._sf
        if sf.language != "python" or sf.root is None:
            return ()
        nodes = captures("python", _PY_IMPORTS, sf.root).get("m", [])
        return tuple(sorted((Import(n, n.text.decode("utf-8", "replace")) for n in nodes), key=_NODE_START))

    @functools.cached_property
    def declarators(self) -> tuple[ts.Node, ...]:
        """The declarator nodes of a C/C++ file's declarations, in file order (`int a, *b = 0;`: `a`, `*b = 0`)."""
        sf = self._sf
        if sf.language != "cuda" or sf.root is None:
            return ()
        found = captures("cuda", _DECLARATION_DECLARATORS, sf.root).get("d", [])
        return tuple(sorted(found, key=_START))

    @functools.cached_property
    def variables(self) -> dict[str, frozenset[int]]:
        """{name: scopes} for the variables and parameters a C/C++ file declares. A scope is the enclosing
        function's start byte, -1 for file scope, or -2 - offset for one parameter token of a prototype (which names
        nothing outside the prototype)."""
        names: dict[str, set[int]] = {}
        for text in self._declared:
            names.setdefault(text.decode("utf-8", "replace"), set()).update(self._scopes_of(text))
        return {k: frozenset(v) for k, v in names.items()}

    def variable_scopes(self, name: str) -> frozenset[int]:
        """variables.get(name, frozenset()) for one name, its scopes worked out only when asked (a knowledge-base
        name's uses ask for their name alone; most of a file's declared names are never asked about)."""
        memo = self._variable_scopes
        found = memo.get(name)
        if found is None:
            found = memo[name] = self._scopes_of(name.encode("utf-8")) if name.isascii() else \
                self.variables.get(name, frozenset())
        return found

    @functools.cached_property
    def _variable_scopes(self) -> dict[str, frozenset[int]]:
        return {}

    @functools.cached_property
    def _declared(self) -> dict[bytes, list[tuple[bool, int]]]:
        """{name as written: (whether a parameter, where) for each declarator naming it}, in one pass over the
        declarators (no scope looked up, nothing decoded: variable_scopes does that for the names asked)."""
        sf = self._sf
        names: dict[bytes, list[tuple[bool, int]]] = {}
        if sf.language == "cuda" and sf.root is not None:
            caps = captures("cuda", _VARIABLE_DECLARATORS, sf.root)
            # Names are looked up, never listed: the declarators need no file order here.
            declared = _declared(captures("cuda", _DECLARATION_DECLARATORS, sf.root).get("d", []))
            for n in caps.get("n", []) + declared:
                names.setdefault(n.text, []).append((False, n.start_byte))
            for n in caps.get("p", []):
                names.setdefault(n.text, []).append((True, n.start_byte))
        return names

    def _scopes_of(self, text: bytes) -> frozenset[int]:
        found = self._declared.get(text)
        if not found:
            return frozenset()
        scopes = self._scope_index
        out = set()
        for parameter, start in found:
            scope = scopes.of(start)
            out.add(-2 - start if parameter and scope == -1 else scope)
        return frozenset(out)

    @functools.cached_property
    def _scope_index(self) -> "_Scopes":
        return _Scopes(self._sf)

    @functools.cached_property
    def function_declarations(self) -> dict[str, frozenset[int]]:
        """{name: offsets of the name} for every function declarator (prototypes and members included)."""
        sf = self._sf
        names: dict[str, set[int]] = {}
        if sf.language == "cuda" and sf.root is not None:
            for node in captures("cuda", _FUNCTION_DECLARATORS, sf.root).get("n", []):
                if node.type in ("identifier", "field_identifier"):
                    names.setdefault(node.text.decode("utf-8", "replace"), set()).add(node.start_byte)
        return {k: frozenset(v) for k, v in names.items()}

    @functools.cached_property
    def defines(self) -> dict[bytes, frozenset[int]]:
        """{macro name: offsets of the name} for every `#define` in code (one pass over the file)."""
        code = self._sf.code
        found: dict[bytes, set[int]] = {}
        if b"define" in code:
            for m in _DEFINE_NAME.finditer(code):
                found.setdefault(m.group(1), set()).add(m.start(1))
        return {k: frozenset(v) for k, v in found.items()}

    @functools.cached_property
    def kernels(self) -> tuple[tuple[Kernel, Function], ...]:
        """Every `__global__` definition with the parsed function it came from, but those no build compiles."""
        sf = self._sf
        out = []
        # A definition in `#if 0`, in the `#else` of `#if 1` or in any arm inside one is skipped by every
        # preprocessor (C++ [cpp.cond]: a group whose condition is false is not processed), so it is no kernel of
        # any build: listing it gave it a verdict and effort (Librett's old transposeTiledCopy in the `#else` of
        # `#if 1` read fix), while the findings on those lines were already dropped (porter.match.refine).
        dead = (preprocessor.preprocessed(sf).dead
                if sf.language == "cuda" and preprocessor.may_hold_directives(sf.data) else frozenset())
        # A kernel whose bodies are the arms of one `#if` group after its head (preprocessor.alternative_body_spans)
        # ends at the group's `#endif`, not at the end of the arm the parser was given.
        alternatives = (preprocessor.alternative_body_spans(sf.data)
                        if sf.language == "cuda" and preprocessor.may_hold_directives(sf.data) else ())
        for f in sf.functions:
            if not f.is_kernel or f.start_line in dead:
                continue
            start_line = f.start_line
            parent = f.node.parent
            is_template = parent is not None and parent.type == "template_declaration"
            if is_template:
                start_line = parent.start_point.row + 1
            bounds: tuple[str, ...] = ()
            for c in f.node.children:
                if c.type == "launch_bounds":
                    bounds = tuple(n.text.decode("utf-8", "replace") for n in c.named_children)
            end_line = f.end_line
            for first, last, end in alternatives:
                if f.start_line < first <= f.end_line <= last:
                    end_line = max(end_line, end)  # the other bodies after the kept one are the kernel's too
            kernel = Kernel(sf.path, start_line, end_line, f.name, f.qualified_name, is_template, f.via_macro, bounds)
            out.append((kernel, f))
        return tuple(out)

    @functools.cached_property
    def launches(self) -> tuple[LaunchSite, ...]:
        """Every chevron launch and launch API call."""
        sf = self._sf
        if sf.language != "cuda" or sf.root is None:
            return ()
        out: list[LaunchSite] = []
        # The launches come with the other whole-file queries (one walk); a call's callee is its `function` field
        # and each kernel_call_syntax child its <<<...>>> (what a match of `function: (_) @callee
        # (kernel_call_syntax) @config` pairs, in the same order).
        calls = captures("cuda", _CHEVRON, sf.root).get("launch", []) if b"<<<" in sf.code else ()
        chevrons = [(call.child_by_field_name("function"), config, call) for call in calls
                    for config in call.children if config.type == "kernel_call_syntax"]
        for callee, config, call in chevrons:
            if sf.in_comment(callee.start_byte):
                continue
            text = callee.text.decode("utf-8", "replace")
            exprs = tuple(n.text.decode("utf-8", "replace") for n in config.named_children if n.type != "comment")
            targs = _template_list(text)
            if targs is None:
                targs = _this_class(sf, call)
            launch = _launch(sf, callee.start_byte, unqualified(text), "chevron", exprs, targs)
            out.append(LaunchSite(launch, callee.start_byte, config.end_byte))
        # A launch API call names the API as a code token; most files have none, and then the index of every
        # call (a node walk and a decode per call) is not needed here.
        api_calls = self.calls if not sf.tokens().keys().isdisjoint(_LAUNCH_API_TOKENS) else ()
        for fn, text, call in api_calls:
            api = unqualified(text)
            if api not in LAUNCH_APIS or fn.type == "field_expression":
                continue
            args_node = call.child_by_field_name("arguments")
            args = [a.text.decode("utf-8", "replace") for a in (args_node.named_children if args_node else [])
                    if a.type != "comment"]
            idx = LAUNCH_APIS[api]
            kernel = kernel_argument(args[idx]) if idx is not None and idx < len(args) else "<unknown>"
            rest = tuple(a for i, a in enumerate(args) if i != idx)
            out.append(LaunchSite(_launch(sf, fn.start_byte, kernel, api, rest), fn.start_byte, fn.end_byte))
        out.sort(key=lambda x: x.start)
        return tuple(out)


def index(sf: SourceFile) -> SyntaxIndex:
    """The file's syntax index, built on first use and kept with the file."""
    found = sf.cache.get("syntax")
    if found is None:
        found = sf.cache["syntax"] = SyntaxIndex(sf)
    return found


def includes(sf: SourceFile) -> tuple[Include, ...]:
    return index(sf).includes


def call_sites(sf: SourceFile) -> tuple[Call, ...]:
    return index(sf).calls


def python_calls(sf: SourceFile) -> tuple[Call, ...]:
    return index(sf).python_calls


def imports(sf: SourceFile) -> tuple[Import, ...]:
    return index(sf).imports


def kernel_functions(sf: SourceFile) -> tuple[tuple[Kernel, Function], ...]:
    return index(sf).kernels


def launch_spans(sf: SourceFile) -> tuple[LaunchSite, ...]:
    return index(sf).launches


def launches(sf: SourceFile) -> list[Launch]:
    """The file's launches but those no build compiles: in `#if 0` (preprocessor dead lines) or in an arm the
    file's own defines rule out (`#define SMALLKERNEL` ... `#ifdef SMALLKERNEL` ... `#else` / `k<T><<<...>>>`:
    preprocessor.switch_dead_spans with bare defines). Such a launch instantiates no template and sets no kernel's
    launch configuration (porter.kernels.verdicts.uninstantiated, launch_config)."""
    sites = index(sf).launches
    if not sites or not preprocessor.may_hold_directives(sf.data):
        return [site.launch for site in sites]
    pre = preprocessor.preprocessed(sf)
    spans = preprocessor.switch_dead_spans(pre, sf.data, bare=True)
    return [site.launch for site in sites if site.launch.line not in pre.dead
            and not any(a <= site.launch.line <= b for a, b in spans)]


class _Scopes:
    """scope_of for many offsets of one file: the last definition starting at or before an offset is the innermost
    one when it still contains it (a later one would start after the offset); only where it ended before the
    offset (a definition nested in another, then left) is the file asked to walk back."""

    def __init__(self, sf: SourceFile):
        self._sf = sf
        self._starts = [f.start_byte for f in sf.functions]
        self._ends = [f.end_byte for f in sf.functions]

    def of(self, offset: int) -> int:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return -1
        if offset < self._ends[i]:
            return self._starts[i]
        return scope_of(self._sf, offset)


def scope_of(sf: SourceFile, offset: int) -> int:
    """Where a name at `offset` is scoped: its enclosing function's start byte, or -1 at file scope."""
    f = sf.enclosing(offset)
    return f.start_byte if f is not None else -1


def kernel_argument(arg: str) -> str:
    """The kernel's name from a launch API argument such as `(void*)&ns::k<float>`."""
    prev = None
    while prev != arg:
        prev = arg
        arg = _CAST_NOISE.sub("", arg).rstrip(") ")
    return unqualified(arg) or "<unknown>"


def is_member_access(code: bytes, offset: int) -> bool:
    """Whether the token at `offset` follows `.` or `->` (a member of the project's own object, not a free name)."""
    i = offset - 1
    while i >= 0 and code[i] in b" \t":
        i -= 1
    return i >= 0 and (code[i:i + 1] == b"." or code[i - 1:i + 1] == b"->")


def _launch(sf: SourceFile, offset: int, kernel: str, kind: str, config: tuple[str, ...],
            template_arguments: str | None = None) -> Launch:
    line, col = sf.position(offset)
    f = sf.enclosing(offset)
    return Launch(sf.path, line, col, kernel, kind, config, f.name if f else None, template_arguments)


_THIS = re.compile(rb"[\s(]*\*[\s(]*this[\s)]*")


def _this_class(sf: SourceFile, call: ts.Node) -> str | None:
    """`<Cls>` for a chevron launch without template arguments whose one argument is `*this`, written in a member
    function of class Cls (`merge<<<n, b>>>((*this))` in `MergeKernel::launch`): the kernel template's parameter is
    deduced from that argument, so the launch instantiates it with the class (C++ [temp.deduct.call]); a functor
    kernel (`template <typename T> __global__ void merge(const T kernel) { kernel(); }`) then runs
    `Cls::operator()` (porter.kernels.callgraph.bound_functor_calls). None otherwise."""
    args = call.child_by_field_name("arguments")
    named = [a for a in (args.named_children if args is not None else ()) if a.type != "comment"]
    if len(named) != 1 or b"this" not in named[0].text or not _THIS.fullmatch(named[0].text):
        return None
    f = sf.enclosing(call.start_byte)
    if f is None:
        return None
    from porter.kernels.member_calls import enclosing_class, enclosing_scope

    # the class whose body holds the member function, or the one an out-of-class definition names (`S::launch`), as
    # porter.kernels.facts.owning_class reads it
    cls = enclosing_class(f.node)
    if cls is None:
        scope = enclosing_scope(f.node)
        cls = scope[1] if scope[:1] == ("scoped",) else None
    return f"<{cls}>" if cls else None


def _template_list(callee: str) -> str | None:
    """The template argument list a chevron launch's callee ends with (`ns::k<float, 4>` -> `<float, 4>`), or None.
    The list opens at the `<` that balances the final `>`."""
    text = callee.rstrip()
    if not text.endswith(">"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(text[i], 0)
        if depth == 0:
            return " ".join(text[i:].split())
    return None
