"""The `constant_context` pattern kind (porter.match.kinds.code): a name used where C++ needs a compile-time constant
(array extents, template arguments, constexpr initialisers, `#if` conditions, ...), as `warpSize` may not be."""
from __future__ import annotations

from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile
from porter.source.preprocessor import preprocessed
from porter.source.syntax import is_member_access


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
            if is_member_access(sf.code, off) or _scope_qualified(sf.code, off):
                continue
            context = _constant_context(sf, off, off + len(name))
            if context:
                yield Hit(off, off + len(name), name=name, values=(("context", _CONTEXT_NAMES[context]),))


def _scope_qualified(code: bytes, offset: int) -> bool:
    """Whether the token at `offset` is qualified by a named scope (`GpuConfig::warpSize`, `cfg::Tile<T>::warpSize`):
    a member or namespace variable of the project's own, which a class may declare `static constexpr`. HIP's
    warpSize is a global-namespace name, so only `::warpSize` with nothing named before it can be HIP's."""
    i = offset - 1
    while i >= 0 and code[i] in b" \t":
        i -= 1
    if i < 1 or code[i - 1:i + 1] != b"::":
        return False
    i -= 2
    while i >= 0 and code[i] in b" \t":
        i -= 1
    # an identifier or a template argument list's `>` names the scope; anything else (`(::warpSize`) is the global
    return i >= 0 and (code[i:i + 1].isalnum() or code[i:i + 1] in (b"_", b">"))


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
