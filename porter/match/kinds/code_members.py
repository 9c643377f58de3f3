"""The `member_call` pattern kind (porter.match.kinds.code): `obj.method()` on an object of a named type or from a
named initialiser (`grid.sync()` after `auto grid = cg::this_grid();`)."""
from __future__ import annotations

from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile, unqualified
from porter.source.syntax import index, scope_of


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
