"""Pattern kinds for Python source: imports (a module or any submodule of it) and uses of the project's own
vendor-named variants (`get_config_nvidia`).

Scanned Python is only parsed with tree-sitter-python, never imported or executed; Python calls are matched by
the `call` kind (porter.match.kinds.code) and `module_call` (porter.match.kinds.library).
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from porter.match.base import Hit, MatchContext, per_object
from porter.source.parse import SourceFile
from porter.source.syntax import index


def match_import(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "python":
        return
    wanted = pattern["import"]
    for node, module in index(sf).imports:
        if any(module == w or module.startswith(w + ".") for w in wanted):
            yield Hit(node.start_byte, node.end_byte, name=module)


def _variant_spec(pattern: dict) -> tuple[re.Pattern[str], re.Pattern[bytes], tuple[str, ...], frozenset[str]]:
    """The name shape (`<word>_<vendor>` as the whole name), its quick byte test, the predicate prefixes and the
    words that make a name a twin of the other vendor, read once per pattern object."""
    spec = pattern["vendor_variant"]
    vendors = "|".join(re.escape(v) for v in spec["vendors"])
    name = re.compile(rf"^[A-Za-z]\w*?_(?:{vendors})$", re.IGNORECASE)
    quick = re.compile(rf"_(?:{vendors})\b".encode(), re.IGNORECASE)
    return (name, quick, tuple(p.lower() + "_" for p in spec.get("not_prefixes", ())),
            frozenset(w.lower() for w in spec.get("not_words", ())))


_read_variant = per_object(_variant_spec)
# Where an identifier is not a use of the name: it names the thing being defined, imported or bound there.
_BINDING_FIELDS = {("function_definition", "name"), ("class_definition", "name"), ("keyword_argument", "name"),
                   ("attribute", "attribute"), ("assignment", "left"), ("augmented_assignment", "left"),
                   ("for_statement", "left"), ("default_parameter", "name"), ("typed_parameter", None),
                   ("typed_default_parameter", "name")}
_NOT_USES = frozenset({"import_from_statement", "import_statement", "parameters", "lambda_parameters",
                       "aliased_import", "global_statement", "nonlocal_statement"})


def match_vendor_variant(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Uses (a binding's value, an argument, a call) of names the file itself defines - a `def`, a `class` or a
    module-level assignment - or imports from a relative module, whose last word is a vendor (`round_triton_nvidia`,
    `get_max_autotune_config_nvidia`): the spot that picks the project's NVIDIA variant. Predicates (`is_nvidia`) and
    names that also carry another vendor's word (`probe_rocm_with_nvidia`) are not variants."""
    if sf.language != "python" or sf.root is None:
        return ()
    shape, quick, predicates, others = _read_variant(pattern)
    if not quick.search(sf.code):
        return ()
    return _variant_uses(sf, shape, predicates, others)


def _variant_uses(sf: SourceFile, shape: re.Pattern[str], predicates: tuple[str, ...],
                  others: frozenset[str]) -> Iterator[Hit]:
    candidates = [n for n in _identifiers(sf.root) if _is_variant_name(n.text.decode("utf-8", "replace"), shape,
                                                                         predicates, others)]
    if not candidates:
        return
    own = {n.text for n in candidates if _defines(n)}
    for node in candidates:
        if node.text in own and _is_use(node):
            yield Hit(node.start_byte, node.end_byte, name=node.text.decode("utf-8", "replace"))


def _is_variant_name(name: str, shape: re.Pattern[str], predicates: tuple[str, ...], others: frozenset[str]) -> bool:
    if not shape.match(name) or name.lower().startswith(predicates):
        return False
    return others.isdisjoint(name.lower().split("_"))


def _identifiers(root) -> Iterator:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            yield node
        elif node.type not in ("comment", "string"):
            stack.extend(reversed(node.children))


def _field_of(node) -> tuple[str, str | None]:
    parent = node.parent
    for i, child in enumerate(parent.children):
        if child.id == node.id:
            return parent.type, parent.field_name_for_child(i)
    return parent.type, None


def _defines(node) -> bool:
    """The identifier is the name of a def/class, a module-level assignment's target, or a name imported from a
    relative module (the project's own)."""
    parent = node.parent
    if parent is None:
        return False
    kind, field = _field_of(node)
    if (kind, field) in (("function_definition", "name"), ("class_definition", "name")):
        return True
    if kind == "assignment" and field == "left":
        return parent.parent is not None and parent.parent.type == "expression_statement" and \
            parent.parent.parent is not None and parent.parent.parent.type == "module"
    statement = parent
    while statement is not None and statement.type not in ("import_from_statement", "module"):
        statement = statement.parent
    if statement is None or statement.type != "import_from_statement":
        return False
    module = statement.child_by_field_name("module_name")
    return module is not None and module.type == "relative_import" and not (
        module.start_byte <= node.start_byte < module.end_byte)


def _is_use(node) -> bool:
    """Not where the name is bound (def, class, import, assignment target, parameter, keyword name, attribute)."""
    kind, field = _field_of(node)
    if (kind, field) in _BINDING_FIELDS or (kind, None) in _BINDING_FIELDS:
        return False
    if kind in ("pattern_list", "tuple_pattern") and node.parent.parent is not None and \
            node.parent.parent.type in ("assignment", "for_statement"):
        return False
    ancestor = node.parent
    while ancestor is not None and ancestor.type not in ("module", "block"):
        if ancestor.type in _NOT_USES:
            return False
        ancestor = ancestor.parent
    return True


def enum_member_definition(sf: SourceFile, offset: int) -> str | None:
    """The class whose member the identifier at `offset` defines with a plain number (`NVFP4 = 18`, `NVFP4 = auto()`
    in a class body: an enum's member names a value, it runs nothing), or None."""
    if sf.root is None:
        return None
    node = sf.root.named_descendant_for_byte_range(offset, offset + 1)
    if node is None or node.type != "identifier" or node.parent is None or _field_of(node) != ("assignment", "left"):
        return None
    right = node.parent.child_by_field_name("right")
    number = right is not None and (right.type in ("integer", "float") or right.type == "call" and
                                    right.text.replace(b" ", b"") in (b"auto()", b"enum.auto()"))
    statement = node.parent.parent
    block = statement.parent if statement is not None and statement.type == "expression_statement" else None
    owner = block.parent if block is not None and block.type == "block" else None
    if not number or owner is None or owner.type != "class_definition":
        return None
    name = owner.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None else None

