"""Kernels launched through a launcher function: a host function that launches one of its own parameters.

Projects route their launches through one template (`template <typename... A> void recordLaunch(std::string tag,
int gs, int bs, size_t mem, void (*f)(A...), A... args) { f<<<gs, bs, mem>>>(args...); }`) and call it with each
kernel (`recordLaunch("SetFlags", pages, 64, 0, setFlags, flags)`). The launch in the template names a parameter,
not a kernel, so a finding at it (DEV040's spaced chevrons `f << <gs, bs >> >(...)`, which hip-clang rejects) was
tied to no kernel, while every kernel the template launches cannot run on HIP until it is fixed.

The scan records, per C/C++ file, its launchers (`launchers_of`: each host function with a parameter it launches,
by chevrons however spaced or through a launch API, and that parameter's position) and its calls that pass a name
no variable in scope declares (`passed_names`: a function or a global, the kernel when the callee is a launcher).
After the scan, `launched_through` ties a launcher's parameter to the kernels its callers pass there: a call reaches
a launcher of its name defined in its own file or in a file its include closure holds (else in the one file that
defines one); the passed name reaches a kernel of that name as a launch does (the caller's file, else its include
closure; a name still ambiguous reaches none).
"""
from __future__ import annotations

import re
from typing import Iterable

import tree_sitter as ts

from porter.kernels.nodes import NodeIndex
from porter.model.kernel import Kernel, Launcher, PassedName
from porter.source import syntax
from porter.source.parse import Function, SourceFile

# The launches a launcher writes with its parameter: chevrons however spaced (`f<<<`, `f << <`, `f< <<`).
_CHEVRONS = rb"<\s*<\s*<(?=[^;]*>\s*>\s*>\s*\()"
# A whole word launched by chevrons (a word is launched where this finds it: the word cannot start inside another)
_LAUNCHED = re.compile(rb"(?<![\w.>:])(\w+)\s*" + _CHEVRONS)
_CHEVRONS_AT = re.compile(_CHEVRONS)
_SPACE_BYTES = frozenset(b" \t\n\r\f\v")  # what \s is in a bytes pattern
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # \w in a bytes pattern
_NOT_BEFORE = frozenset(b".>:")


def launched_words(body: bytes) -> frozenset[bytes]:
    """The words _LAUNCHED finds in `body` (group 1), found from each chevron back to the word before it: the
    pattern begins with a word, so `re` tried it at every word of the body (0.80 -> 0.02 CPU-s over 2,107 C/C++
    files, the same sets). A match is a whole word (nothing of \\w before it), spaces, then the chevrons."""
    out = set()
    for m in _CHEVRONS_AT.finditer(body):
        end = m.start()
        while end > 0 and body[end - 1] in _SPACE_BYTES:
            end -= 1
        start = end
        while start > 0 and body[start - 1] in _WORD_BYTES:
            start -= 1
        if start < end and not (start > 0 and body[start - 1] in _NOT_BEFORE):
            out.add(body[start:end])
    return frozenset(out)


_WORD = re.compile(r"[A-Za-z0-9_]+")
# Argument wrappers read through to the passed name: `&k`, `(void*)k`, `(k)`, `static_cast<void*>(k)`.
_THROUGH = frozenset({"pointer_expression", "cast_expression", "parenthesized_expression"})
_NAMES = frozenset({"identifier", "qualified_identifier", "template_function"})
_LAMBDA = ("lambda_expression",)
MAX_PASSED = 4000  # passed names one file records (a generated file of calls is not a launcher's caller list)


def _declared_name(node: ts.Node | None) -> str | None:
    """The identifier a (parameter) declarator declares: `f` of `void (*f)(A...)`, `x` of `const T &x`."""
    for _ in range(16):
        if node is None:
            return None
        if node.type == "identifier":
            return node.text.decode("utf-8", "replace")
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator") or c.type == "identifier"),
                         None)
        node = inner
    return None


def parameters(f: Function) -> list[str | None]:
    """The names of a function definition's parameters, in order (None for an unnamed one)."""
    node: ts.Node | None = f.node.child_by_field_name("declarator")
    for _ in range(16):
        if node is None or node.type == "function_declarator":
            break
        node = node.child_by_field_name("declarator")
    if node is None:
        return []
    plist = node.child_by_field_name("parameters")
    if plist is None:
        return []
    return [_declared_name(p.child_by_field_name("declarator")) for p in plist.named_children
            if p.type in ("parameter_declaration", "optional_parameter_declaration",
                          "variadic_parameter_declaration")]


def launchers_of(sf: SourceFile) -> tuple[Launcher, ...]:
    """The file's host functions that launch one of their parameters, one Launcher per such parameter."""
    if sf.language != "cuda" or sf.root is None:
        return ()
    api = {(l.function, l.kernel) for l in syntax.launches(sf) if l.kind != "chevron"}
    if not api and not re.search(_CHEVRONS, sf.code):
        return ()
    out = []
    for f in sf.functions:
        if f.is_kernel:
            continue
        body = sf.code[f.start_byte:f.end_byte]
        if not re.search(_CHEVRONS, body) and not any(fn == f.name for fn, _ in api):
            continue
        launched: frozenset[bytes] | None = None
        for i, name in enumerate(parameters(f)):
            if not name:
                continue
            if (f.name, name) in api:
                out.append(Launcher(f.name, name, i, f.start_line, f.end_line))
                continue
            if _WORD.fullmatch(name):
                # every name the body launches, read once per function (a pattern per name was compiled anew for
                # each parameter: ~5% of a cuda-samples scan)
                if launched is None:
                    launched = launched_words(body)
                hit = name.encode() in launched
            else:  # a name \w does not spell (`$`, non-ASCII): searched for as written
                hit = re.search(rb"(?<![\w.>:])" + re.escape(name.encode()) + rb"\s*" + _CHEVRONS, body) is not None
            if hit:
                out.append(Launcher(f.name, name, i, f.start_line, f.end_line))
    return tuple(out)


def _name(node: ts.Node | None) -> str | None:
    """The last name of a name node (`k`, `ns::k`, `k<float>`, `obj.k`, `p->template k<T>`), read from its name
    children (never the whole text: a callee can be a generated expression of thousands of characters)."""
    for _ in range(16):
        if node is None:
            return None
        if node.type in ("identifier", "field_identifier"):
            return node.text.decode("utf-8", "replace")
        if node.type == "field_expression":
            node = node.child_by_field_name("field")
        elif node.type in ("qualified_identifier", "template_function", "template_method"):
            node = node.child_by_field_name("name")
        else:
            return None
    return None


def _passed(node: ts.Node) -> str | None:
    """The name an argument passes, read through `&`, casts and parentheses (`(void*)&ns::k<float>` -> `k`)."""
    for _ in range(8):
        if node.type in _NAMES:
            return _name(node)
        if node.type not in _THROUGH:
            return None
        if node.type == "pointer_expression" and node.child_by_field_name("operator") is not None \
                and node.child_by_field_name("operator").type != "&":
            return None
        inner = node.child_by_field_name("value") if node.type == "cast_expression" else (
            node.child_by_field_name("argument") if node.type == "pointer_expression" else
            (node.named_children[0] if node.named_children else None))
        if inner is None:
            return None
        node = inner
    return None


def passed_names(sf: SourceFile) -> tuple[PassedName, ...]:
    """The names the file's host calls pass that no variable of the file and no parameter of the calling function
    declares (a function or a global: the kernel, where the callee is a launcher), outside lambda bodies."""
    if sf.language != "cuda" or sf.root is None:
        return ()
    idx = syntax.index(sf)
    out: list[PassedName] = []
    variables: dict[str, bool] = {}
    params: dict[int, frozenset[str]] = {}
    lambdas: dict[int, list[tuple[int, int]]] = {}
    index = NodeIndex(sf.root)
    for fn, _, call in syntax.call_sites(sf):
        host = sf.enclosing(call.start_byte)
        if host is None or host.is_kernel or host.is_device:
            continue  # a launcher's callers are host functions (a kernel's own device calls pass data)
        own = params.get(host.start_byte)
        if own is None:
            own = params[host.start_byte] = frozenset(n for n in parameters(host) if n)
            lambdas[host.start_byte] = [(n.start_byte, n.end_byte) for n in index.under(host.node, _LAMBDA)
                                        if n != host.node]
        if any(a <= call.start_byte < b for a, b in lambdas[host.start_byte]):
            continue  # a lambda's body is the device code of a forall-style launch, or a callback
        callee = _name(fn)
        if not callee or callee in syntax.LAUNCH_APIS:
            continue
        args = call.child_by_field_name("arguments")
        if args is None:
            continue
        for i, a in enumerate(c for c in args.named_children if c.type != "comment"):
            name = _passed(a)
            if not name or name in own or not name.isidentifier():
                continue
            variable = variables.get(name)
            if variable is None:
                variable = variables[name] = bool(idx.variable_scopes(name))
            if variable:
                continue  # a variable of this file's (a kernel is a function: no declarator names it a variable)
            out.append(PassedName(callee, i, name, call.start_point[0] + 1))
            if len(out) >= MAX_PASSED:
                return tuple(out)
    return tuple(out)


def launched_through(files: Iterable, kernels: Iterable[Kernel], index) -> dict[tuple[str, int, str], list[Kernel]]:
    """(launcher's path, a line of it, the launched parameter) -> the kernels the launcher's callers pass there,
    for every Launcher of the scan's FileResults (`index`: porter.kernels.callgraph.HelperIndex, for include
    closures). Keyed by every Launcher's first line; `kernels_at` looks a finding's line up."""
    files = list(files)
    launchers: dict[str, list[tuple[str, Launcher]]] = {}
    for r in files:
        for l in getattr(r, "launchers", ()):
            launchers.setdefault(l.function, []).append((r.path, l))
    if not launchers:
        return {}
    by_name: dict[str, list[Kernel]] = {}
    for k in kernels:
        by_name.setdefault(k.name, []).append(k)
    out: dict[tuple[str, int, str], list[Kernel]] = {}
    for r in files:
        for p in getattr(r, "passed", ()):
            homes = [(path, l) for path, l in launchers.get(p.callee, ()) if l.index == p.index]
            if not homes:
                continue
            if len({path for path, _ in homes}) > 1:
                reach = index.closure(r.path) if index is not None else frozenset()
                homes = [(path, l) for path, l in homes if path == r.path] or [
                    (path, l) for path, l in homes if path in reach]
                if len({path for path, _ in homes}) != 1:
                    continue
            found = by_name.get(p.name, [])
            if len({k.path for k in found}) > 1:
                reach = index.closure(r.path) if index is not None else frozenset()
                found = [k for k in found if k.path == r.path] or [k for k in found if k.path in reach]
            if len({k.path for k in found}) != 1:
                continue
            for path, l in homes:
                got = out.setdefault((path, l.line, l.parameter), [])
                got.extend(k for k in found if k not in got)
    return out


def kernels_at(through: dict[tuple[str, int, str], list[Kernel]], files_launchers: dict[str, list[Launcher]],
               path: str, line: int, name: str) -> list[Kernel]:
    """The kernels a launch of `name` at `path:line` reaches when `name` is a parameter of the launcher there."""
    for l in files_launchers.get(path, ()):
        if l.parameter == name and l.line <= line <= l.end_line:
            return through.get((path, l.line, name), [])
    return []


# A #define with its parameter list and its body (continuation lines joined by the backslashes).
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(?:\(([^()\n]*)\))?((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
# A launch a macro body writes: the callee token (a pasted one, `__expand_VC_##lb`, or a plain word), template
# arguments, then the chevrons.
_MACRO_LAUNCH = re.compile(rb"(?<![\w.>:#])((?:\w+\s*##\s*)*\w+)\s*(?:<[^<>;{}]*(?:<[^<>;{}]*>[^<>;{}]*)*>)?\s*"
                           + _CHEVRONS)
_CONTINUED = re.compile(rb"\\(?=\r?\n)")
MAX_MACRO_LAUNCHES = 200


def macro_launches(data: bytes) -> tuple[str, ...]:
    """The kernels the file's #define bodies launch, as fnmatch-style patterns: a pasted callee's macro parameters
    read `*` (`#define Launch_Expand_VC(lb, ...) __expand_VC_##lb<Queue, Normal><<<...>>>(...)` gives
    `__expand_VC_*`), a plain word stays itself; a macro parameter launched whole (`#define RUN(k) k<<<1, 1>>>()`)
    gives nothing here, the kernel is the name its use passes (passed_names). The scan reads a launch only in parsed
    code, where a macro body is a directive's text: without these a kernel whose only launch a macro pastes reads
    as launched nowhere (GSWITCH's expand kernels, heldout44). Sorted, at most MAX_MACRO_LAUNCHES."""
    if b"define" not in data or b"<<<" not in data:
        return ()
    out: set[str] = set()
    for m in _DEFINE.finditer(data):
        body = _CONTINUED.sub(b"  ", m.group(2))  # `__expand_VC_##lb<Queue, Normal> \` then `<<<...>>>`
        if b"<<<" not in body:
            continue
        params = {p.strip() for p in (m.group(1) or b"").split(b",")}
        for launch in _MACRO_LAUNCH.finditer(body):
            parts = [p.strip() for p in launch.group(1).split(b"##")]
            if len(parts) == 1 and parts[0] in params:
                continue
            out.add("".join("*" if p in params else p.decode("utf-8", "replace") for p in parts))
    return tuple(sorted(out)[:MAX_MACRO_LAUNCHES])
