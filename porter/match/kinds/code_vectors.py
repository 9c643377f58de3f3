"""The `vector_compound_use` pattern kind (porter.match.kinds.code): a compound assignment (`a += b`, `q *= q`)
whose two operands are the same CUDA vector type, in a file that has a free operator for it - cuda-samples'
`helper_math.h` included (it defines `void operator+=(float3 &a, float3 b)` and the like for the float, int and
uint vectors), or such an operator defined in the file itself (what API009 reports at the definition).

HIP's vector types are HIP_vector_type classes with the same compound operators as non-template members, so the
use finds two equally good candidates and hip-clang rejects it ("use of overloaded operator '+=' is ambiguous");
the definition alone compiles. A scalar right operand (`a *= 0.5f`) is not ambiguous (HIP's scalar member is a
template, which loses to the project's plain function) and is not matched.

An operand's type is read from the enclosing function: the declared type of a parameter or local named by it
(`float3 q`, `const float3 &w`), `make_float3(...)`, or a `+ - * /` expression with such an operand (helper_math's
binary operators keep the vector type). Anything else (a call, a member, an index) is not typed and not matched.
"""
from __future__ import annotations

import re
from typing import Iterable

import tree_sitter as ts

from porter.match.base import Hit, MatchContext, per_object
from porter.source import syntax
from porter.source.parse_queries import descendants
from porter.source.parse import SourceFile

_OPS = frozenset({"+=", "-=", "*=", "/="})
_ARITHMETIC = frozenset({"+", "-", "*", "/"})
_DECLARATIONS = ("parameter_declaration", "declaration")
_ASSIGNMENTS = ("assignment_expression", "function_definition")


def _compile(pattern: dict) -> tuple[frozenset[str], frozenset[str], re.Pattern[bytes]]:
    spec = pattern["vector_compound_use"]
    types = frozenset(spec["types"])
    names = b"|".join(re.escape(t.encode()) for t in sorted(types))
    include = frozenset(spec["headers"])
    defined = re.compile(rb"\boperator\s*[-+*/]=\s*\(\s*(?P<t>" + names + rb")\s*&\s*\w+\s*,\s*(?:const\s+)?(?P=t)\b")
    return types, include, defined


_read = per_object(_compile)


def _declared_types(fn: ts.Node, types: frozenset[str]) -> dict[str, str]:
    """{name: vector type} for the function's parameters and locals declared as one of `types` (by value or
    reference, not a pointer or an array). A name declared twice takes its first declaration's type. The
    declarations come from one tree-sitter query in tree order; one inside another (a lambda's, in an
    initialiser) is not read."""
    out: dict[str, str] = {}
    inside = -1
    for node in descendants(fn, _DECLARATIONS):
        if node.start_byte < inside:
            continue
        inside = node.end_byte
        t = node.child_by_field_name("type")
        name = t.text.decode("utf-8", "replace") if t is not None else ""
        if name in types:
            for d in node.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    d = d.child_by_field_name("declarator")
                if d is not None and d.type == "reference_declarator":
                    d = next((c for c in d.named_children if c.type == "identifier"), None)
                if d is not None and d.type == "identifier":
                    out.setdefault(d.text.decode("utf-8", "replace"), name)
    return out


def _type_of(node: ts.Node | None, declared: dict[str, str], depth: int = 0) -> str | None:
    if node is None or depth > 16:
        return None
    if node.type == "identifier":
        return declared.get(node.text.decode("utf-8", "replace"))
    if node.type == "parenthesized_expression" and node.named_children:
        return _type_of(node.named_children[0], declared, depth + 1)
    if node.type == "unary_expression":
        return _type_of(node.child_by_field_name("argument"), declared, depth + 1)
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        text = fn.text.decode("utf-8", "replace") if fn is not None else ""
        return text[5:] if text.startswith("make_") else None
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is None or op.type not in _ARITHMETIC:
            return None
        left = _type_of(node.child_by_field_name("left"), declared, depth + 1)
        right = _type_of(node.child_by_field_name("right"), declared, depth + 1)
        return left or right if left is None or right is None or left == right else None
    return None


def match_vector_compound_use(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Each compound assignment of two same-type vector operands, at its operator, in file order."""
    if sf.root is None or b"=" not in sf.code:
        return
    yield from compound_uses(sf, pattern, own_operators(pattern, sf))


def own_operators(pattern: dict, sf: SourceFile) -> frozenset[str]:
    """The vector types the file itself gives a free compound operator: every one of the rule's when it includes
    one of its `headers` (helper_math.h), else those it defines (`operator+=(float3 &a, float3 b)`)."""
    types, include, _ = _read(pattern)
    if any(i.header.rsplit("/", 1)[-1] in include for i in syntax.includes(sf)):
        return types
    return defined_operators(pattern, sf.code)


def rule_types(pattern: dict) -> frozenset[str]:
    """The vector types the pattern reads (`float3`, `int2`, ...)."""
    return _read(pattern)[0]


def defined_operators(pattern: dict, code: bytes) -> frozenset[str]:
    """The vector types `code` defines a free `operator+= -= *= /=(T &a, T b)` for."""
    if b"operator" not in code:  # the pattern's literal (its `\b` first kept `re` trying it at every byte)
        return frozenset()
    return frozenset(m.group("t").decode() for m in _read(pattern)[2].finditer(code))


def compound_uses(sf: SourceFile, pattern: dict, have: frozenset[str] | set[str]) -> list[Hit]:
    """Each compound assignment of two same-type vector operands whose type is in `have`, at its operator, in file
    order (porter.match.refine_vectors asks with the types of headers the file reaches through its includes, and
    the scan with every type: the uses of all the rule's types are found once per file, then filtered)."""
    if sf.root is None or not have:
        return []
    key = ("vector_compound_use", id(pattern))
    found = sf.cache.get(key)
    if found is None:
        found = sf.cache[key] = _compound_uses(sf, _read(pattern)[0])
    return [h for h in found if dict(h.values)["type"] in have]


def _compound_uses(sf: SourceFile, have: frozenset[str]) -> list[Hit]:
    types = have
    if not any(t.encode() in sf.code for t in have):
        return []
    seen: dict[int, dict[str, str]] = {}
    hits: list[Hit] = []
    named = [t.encode() for t in sorted(have)]
    for fn in sf.functions:
        body = fn.node.child_by_field_name("body")
        if body is None or not any(op.encode() in sf.code[body.start_byte:body.end_byte] for op in _OPS):
            continue
        # A use's left operand is typed by a parameter or local of the function (_declared_types), whose type is
        # spelled inside it: a function naming none of `have` has none (and is not walked).
        whole = sf.code[fn.node.start_byte:fn.node.end_byte]
        if not any(t in whole for t in named):
            continue
        nested = -1  # a nested definition is its own entry of sf.functions
        for node in descendants(body, _ASSIGNMENTS):
            if node.start_byte < nested:
                continue
            if node.type == "function_definition":
                nested = node.end_byte
                continue
            op = node.child_by_field_name("operator")
            if op is not None and op.type in _OPS:
                declared = seen.get(fn.start_byte)
                if declared is None:
                    declared = seen[fn.start_byte] = _declared_types(fn.node, types)
                left = node.child_by_field_name("left")
                lt = _type_of(left, declared) if left is not None and left.type == "identifier" else None
                if lt in have and _type_of(node.child_by_field_name("right"), declared) == lt:
                    hits.append(Hit(op.start_byte, op.end_byte, name=op.type, values=(("type", lt),)))
    return sorted(hits)
