"""Pattern kinds about C++ templates that nvcc accepts and hip-clang rejects.

`dependent_template_call`: a member template called on an object whose type depends on a template parameter,
without the `template` keyword (`t.load<4>(p)` where `t` is a `T` or `Tile<T>`). C++ requires `t.template load<4>(p)`
there; nvcc's EDG front end accepts the short form, clang (hip-clang, hipcc) rejects it with "missing 'template'
keyword prior to dependent template name" (tests/test_templates.py compiles the fixture with clang-19).
Read from the tree-sitter tree: tree-sitter parses the short form as a `field_expression` whose field is a
`template_method`; the long form wraps that in a `dependent_name`.
"""
from __future__ import annotations

import bisect
import operator
import re
from typing import Iterable, Iterator

from porter.kernels.nodes import NodeIndex
from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile
from porter.source.parse_queries import captures, descendants, register_root_descendants, register_root_query

_WORD = re.compile(rb"[A-Za-z_]\w*")
# Declarations whose declared names get the declared type (parameters, locals).
_DECLARATIONS = frozenset({"parameter_declaration", "optional_parameter_declaration", "declaration"})
# Both found by the combined whole-file query (porter.source.parse_queries), not by walking every node in Python:
# that walk was a tenth of a cold scan of cuda-samples.
_TEMPLATES = ("template_declaration",)
register_root_descendants("cuda", _TEMPLATES)
# Only the member template calls on a plain name are captured, not every field expression of every file (36k node
# objects made on FasterTransformer, each then read twice in Python to keep a few hundred).
_MEMBER_TEMPLATE_CALLS = register_root_query(
    "cuda", "(field_expression argument: (identifier) field: (template_method)) @call")
_START = operator.attrgetter("start_byte")


def match_dependent_template_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.tree is None or b"template" not in sf.data or b"<" not in sf.data:
        return ()
    return list(_hits(sf))


def _hits(sf: SourceFile) -> Iterator[Hit]:
    assert sf.tree is not None  # match_dependent_template_call asks only of parsed files
    data = sf.data
    root = sf.tree.root_node
    decls = descendants(root, _TEMPLATES)
    if not decls:
        return
    # The member template calls on a plain name, in pre-order (what a walk of each function would meet, in its
    # order); a template function with none of them in its span needs no look at its declarations.
    # Sorted by start: pre-order, as no two of them start together (one's argument is a plain name).
    calls = []
    for field in sorted(captures("cuda", _MEMBER_TEMPLATE_CALLS, root).get("call", []), key=_START):
        member, obj = field.child_by_field_name("field"), field.child_by_field_name("argument")
        if member is not None and obj is not None:  # always, by the query: for the type checker
            calls.append((field, member, obj))
    if not calls:
        return
    starts = [field.start_byte for field, _, _ in calls]
    nodes: NodeIndex | None = None
    for decl in decls:
        func = next((c for c in decl.children if c.type == "function_definition"), None)
        if func is None:
            continue
        # Nodes that start inside a function's span are its descendants (nodes nest or are disjoint).
        lo, hi = bisect.bisect_left(starts, func.start_byte), bisect.bisect_left(starts, func.end_byte)
        if lo == hi:
            continue
        params = _type_parameters(decl, data)
        if not params:
            continue
        nodes = nodes or NodeIndex(root)
        dependent = {name: param for name, param in _declared(func, data, params, nodes)}
        if not dependent:
            continue
        wanted = {p.encode() for p in params}
        for field, member, obj in calls[lo:hi]:
            var = data[obj.start_byte:obj.end_byte].decode("utf-8", "replace")
            if var not in dependent:
                continue
            nearest = _nearest_type(field, obj.text, func, data)
            if nearest is not None and not any(w in wanted for w in _WORD.findall(nearest)):
                continue  # the name in scope here is another variable, of a type no parameter names
            name_node = member.child_by_field_name("name") or member
            name = data[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
            op = "->" if b"->" in data[obj.end_byte:member.start_byte] else "."
            yield Hit(name_node.start_byte, name_node.end_byte, name=name,
                      values=(("object", var), ("op", op), ("param", dependent[var])))


# Scopes that declare names, and where: a block's declarations, a range-for's or for's loop variable, a function's or
# lambda's parameters.
_SCOPES = frozenset({"compound_statement", "for_range_loop", "for_statement", "function_definition",
                     "lambda_expression"})


def _nearest_type(node, name: bytes, stop, data: bytes) -> bytes | None:
    """The declared type text of the innermost declaration of `name` visible at `node`, searching its enclosing
    scopes up to `stop` (the template function); `auto` reads as its initialiser's text. None when none declares it
    there (a member, a global: the caller keeps what it knew)."""
    scope = node.parent
    while scope is not None:
        if scope.type in _SCOPES:
            got = _declares(scope, name, node.start_byte, data)
            if got is not None:
                return got
        if scope.id == stop.id:
            return None
        scope = scope.parent
    return None


def _declares(scope, name: bytes, before: int, data: bytes) -> bytes | None:
    if scope.type == "compound_statement":
        cands = [c for c in scope.named_children if c.type == "declaration" and c.start_byte < before]
    elif scope.type == "for_range_loop":
        decl, right = scope.child_by_field_name("declarator"), scope.child_by_field_name("right")
        ident = _identifier(decl) if decl is not None else None
        if ident is not None and ident.text == name:
            type_node = scope.child_by_field_name("type")
            text = data[type_node.start_byte:type_node.end_byte] if type_node is not None else b""
            if b"auto" in text and right is not None:
                # `for (auto& v : xs)`: v's type is what xs holds, so read xs's own declaration
                held = _nearest_type(right, right.text, scope, data) if right.type == "identifier" else None
                text += b" " + (held if held is not None else right.text)
            return text
        return None
    elif scope.type == "for_statement":
        init = scope.child_by_field_name("initializer")
        cands = [init] if init is not None and init.type == "declaration" else []
    else:
        decl = scope.child_by_field_name("declarator")
        while decl is not None and decl.type not in ("function_declarator", "abstract_function_declarator"):
            decl = decl.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        cands = [c for c in plist.named_children
                 if c.type in _DECLARATIONS or c.type.endswith("parameter_declaration")] if plist is not None else []
    for d in reversed(cands):
        type_node = d.child_by_field_name("type")
        for declarator in d.children_by_field_name("declarator"):
            ident = _identifier(declarator)
            if ident is not None and ident.text == name and type_node is not None:
                text = data[type_node.start_byte:type_node.end_byte]
                value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
                return text + (b" " + value.text if b"auto" in text and value is not None else b"")
    return None


def _type_parameters(decl, data: bytes) -> frozenset[str]:
    """The template's type parameter names (`typename T`, `class L`, `typename... Ts`)."""
    plist = decl.child_by_field_name("parameters")
    if plist is None:
        return frozenset()
    out = set()
    for p in plist.children:
        if p.type in ("type_parameter_declaration", "variadic_type_parameter_declaration",
                      "optional_type_parameter_declaration"):
            for c in p.children:
                if c.type == "type_identifier":
                    out.add(data[c.start_byte:c.end_byte].decode("utf-8", "replace"))
    return frozenset(out)


def _declared(func, data: bytes, params: frozenset[str], nodes: NodeIndex) -> Iterator[tuple[str, str]]:
    """(variable, the template parameter its type names) for the function's parameters and locals whose declared
    type mentions a type parameter (`const L& l`, `Tile<T> t`, `T* p`); `auto` is left out (its type is unknown)."""
    wanted = {p.encode() for p in params}
    # Slices of the file's nodes from the whole-file query (porter.kernels.nodes, pre-order as a walk), not a walk
    # in Python (~0.25 CPU-s of a cold FasterTransformer scan) nor a query per function (two queries compiled per
    # process, ~17 ms each, and one run per template function).
    for d in nodes.under(func, ("parameter_declaration",)):
        yield from _names_of(d, data, wanted)
    body = func.child_by_field_name("body")
    if body is not None:
        for d in nodes.under(body, ("declaration",)):
            yield from _names_of(d, data, wanted)


def _names_of(d, data: bytes, wanted: set[bytes]) -> Iterator[tuple[str, str]]:
    type_node = d.child_by_field_name("type")
    if type_node is None:
        return
    found = [w for w in _WORD.findall(data[type_node.start_byte:type_node.end_byte]) if w in wanted]
    if not found:
        return
    for decl in d.children_by_field_name("declarator"):
        ident = _identifier(decl)
        if ident is not None:
            yield data[ident.start_byte:ident.end_byte].decode("utf-8", "replace"), found[0].decode()


def _identifier(decl):
    """The declared name under a declarator (`&l`, `*p`, `t = ...`, `a[4]`)."""
    stack = [decl]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            return n
        if n.type in ("argument_list", "initializer_list", "template_argument_list"):
            continue  # an initializer's names are not the declared one
        value = n.child_by_field_name("value") if n.type == "init_declarator" else None
        stack.extend(reversed([c for c in n.children if c is not value]))
    return None
