"""Calls on objects of a declared class type, resolved to the class's member function by the object's type.

`accumulator.get(x, y)` on a file-scope `extern __device__ Surface<float4> accumulator;`, `textures[i].get_lod(..)`
on a `const Texture<float4> *textures`, `box.intersects(ray)` on a local `AABB box`, and `rgb()` on a parameter
`const RGBResidual rgb` run `Surface::get`, `Texture::get_lod`, `AABB::intersects` and `RGBResidual::operator()`:
C++ picks a member function by the static type of the object expression ([class.mfct], [over.call]). A kernel that
does its texture reads, warp reductions or inline PTX through such a wrapper does what the member does, so the
member is followed like a free helper (same-file callees in porter.kernels.facts, other files' helpers in
porter.kernels.callgraph). The call is keyed `Cls.name` (`Cls::operator()` for a call operator, as
porter.kernels.facts.member_name names it): a key only a member of that class carries, so a member call never
reaches a free function or another class's member of the same name. The type is what the nearest declaration of
the object's name says - a parameter, a local of an enclosing block, a member of the enclosing class or a
declaration at file or namespace scope - by its last name without template arguments; an object declared `auto`,
of a built-in type or not declared in the file has no key and is not followed.
"""
from __future__ import annotations

import tree_sitter as ts

# Wrappers around the object expression that keep its class: `a[i].f()`, `(*p).f()`, `(a).f()`.
_THROUGH = {"subscript_expression": "argument", "pointer_expression": "argument", "parenthesized_expression": None}
_SCOPES = ("compound_statement", "translation_unit", "declaration_list", "field_declaration_list",
           "for_statement", "for_range_loop")
_DECLARATIONS = ("declaration", "field_declaration")
_DECLARATORS = ("init_declarator", "pointer_declarator", "reference_declarator", "array_declarator",
                "parenthesized_declarator")
OPERATOR = "operator()"


def member_key(cls: str, name: str) -> str:
    """The key a member function of `cls` is followed by: `Cls.name`, or `Cls::operator()` for a call operator."""
    return f"{cls}::{OPERATOR}" if name == OPERATOR else f"{cls}.{name}"


def enclosing_class(node: ts.Node) -> str | None:
    """The name of the class or struct whose body `node` (a function definition) is written in, else None."""
    p = node.parent
    while p is not None and p.type not in ("struct_specifier", "class_specifier"):
        if p.type in ("function_definition", "translation_unit"):
            return None
        p = p.parent
    name = p.child_by_field_name("name") if p is not None else None
    return _last_name(name) if name is not None else None


def operand_class(fn: ts.Node, name: str) -> str | None:
    """The class a non-member operator function (`__device__ Fp operator*(const Fp& a, const Fp& b)` at namespace
    scope) is keyed by, `Fp`: its first parameter's declared class, whose objects argument-dependent lookup finds it
    for ([over.match.oper]); None for any other function, or a first parameter of a built-in type."""
    if not name.startswith("operator") or name == OPERATOR:
        return None
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    params = d.child_by_field_name("parameters") if d is not None else None
    first = next((p for p in params.named_children if p.type in ("parameter_declaration",
                                                                 "optional_parameter_declaration")), None) \
        if params is not None else None
    kind = first.child_by_field_name("type") if first is not None else None
    if kind is None or kind.type not in ("type_identifier", "template_type", "qualified_identifier"):
        return None
    cls = _last_name(kind)
    return cls if cls and cls.encode() not in template_type_parameters(fn) else None


def enclosing_scope(node: ts.Node) -> tuple[str, ...]:
    """Who owns a function definition, for resolving a qualified call `Q::f` to it (porter.kernels.callgraph):
    ("static", Cls) for a static member of a class or struct defined in its body, ("member", Cls) for another
    member there, ("namespace", ns) for a function in a namespace (the innermost one), ("scoped", Q) for an
    out-of-class definition `Q::f(...) {...}` (Q a class or a namespace: its text does not say which), else ()."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type in ("function_declarator", "pointer_declarator", "reference_declarator"):
        decl = decl.child_by_field_name("declarator")
    if decl is not None and decl.type == "qualified_identifier":
        scope = decl.child_by_field_name("scope")
        name = _last_name(scope) if scope is not None and scope.type != "namespace_identifier" else (
            scope.text.decode("utf-8", "replace") if scope is not None else None)
        if name:
            return ("scoped", name)
    cls = enclosing_class(node)
    if cls is not None:
        static = any(c.type == "storage_class_specifier" and c.text == b"static" for c in node.children)
        return ("static" if static else "member", cls)
    p = node.parent
    while p is not None and p.type != "translation_unit":
        if p.type == "namespace_definition":
            name_node = p.child_by_field_name("name")
            if name_node is not None:
                return ("namespace", name_node.text.decode("utf-8", "replace").rsplit("::", 1)[-1])
        p = p.parent
    return ()


def member_call_key(fn: ts.Node, cache: dict) -> str | None:
    """`Cls.method` for a call whose function node is `obj.method` / `obj->method` on an object of a declared
    class type, else None. `cache`: a dict kept per file (declarations by scope)."""
    if fn.type != "field_expression":
        return None
    field = fn.child_by_field_name("field")
    obj = fn.child_by_field_name("argument")
    if field is not None and field.type == "template_method":
        # `ntt.NTT<Torus>(out, in)`: a member function template called with explicit arguments is that member
        field = field.child_by_field_name("name")
    if field is None or obj is None or field.type != "field_identifier":
        return None
    cls = _object_type(obj, cache, 0)
    if not cls or cls.encode() in template_type_parameters(fn):
        return None  # a template's type parameter is whatever each instantiation names
    return member_key(cls, field.text.decode("utf-8", "replace"))


def _object_type(obj: ts.Node | None, cache: dict, depth: int) -> str | None:
    """The class of an object expression: a declared name, or a member of one (`node.aabb`) whose class this file
    defines with that member declared in its body."""
    while obj is not None and obj.type in _THROUGH:
        sub = _THROUGH[obj.type]
        obj = obj.child_by_field_name(sub) if sub else next(iter(obj.named_children), None)
    if obj is None:
        return None
    if obj.type == "identifier":
        return declared_type(obj, cache)
    if obj.type == "this":
        # `this->Mul(a, b)`, `*this *= y` in a member function: the class whose body the function is written in
        fn = obj.parent
        while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
            fn = fn.parent
        return enclosing_class(fn) if fn is not None and fn.type == "function_definition" else None
    if obj.type == "field_expression" and depth < 4:
        outer = _object_type(obj.child_by_field_name("argument"), cache, depth + 1)
        field = obj.child_by_field_name("field")
        body = _class_body(obj, outer, cache) if outer and field is not None else None
        return (_scope(body, cache).get(field.text) or None) if body is not None and field is not None else None
    return None


# The operators an expression on an object of class type calls as `Cls.operator<op>` ([over.match.oper]): arithmetic
# and bitwise ones and their compound assignments, equality. Relational and shift operators are left out: their
# `<`/`>` read as template brackets wherever a name is unqualified (porter.source.parse.unqualified), and a wrapper
# type's arithmetic is where its work is (a prime field's Add/Mul in inline PTX, a complex or interval type's).
OPERATORS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "==", "!=",
                       "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="})


def operator_expression_key(n: ts.Node, cache: dict) -> str | None:
    """`Cls.operator*` for `a * b` (and `Cls.operator+=` for `a += b`) whose left operand is an object of a
    declared class type `Cls` (as member_call_key reads an object's type: `sh[i]` of an `FFP *sh`, `*this` in a
    member of FFP), else None. A member operator and a friend defined in the class's body (found by argument-
    dependent lookup) both carry that key (porter.kernels.facts.measure_helpers); an operator of a class this
    repository does not define resolves to nothing and is not followed."""
    op = n.child_by_field_name("operator")
    left = n.child_by_field_name("left")
    if op is None or left is None or op.type not in OPERATORS:
        return None
    while left.type == "parenthesized_expression" and left.named_child_count == 1:
        left = left.named_children[0]
    # a pointer or an array is built-in arithmetic (`bins + i` on a `pair2 bins[]`, `this + 1`, `&a + 1`): only an
    # object of the class, named or reached through `p[i]`, `*p`, `obj.member`, runs its operators
    if left.type == "this" or (left.type == "identifier" and declared_indirect(left, cache)):
        return None
    if left.type == "pointer_expression" and (o := left.child_by_field_name("operator")) is not None and o.type == "&":
        return None
    cls = _object_type(left, cache, 0)
    if not cls or cls.encode() in template_type_parameters(n):
        return None
    return member_key(cls, f"operator{op.type}")


def _class_body(node: ts.Node, cls: str, cache: dict) -> ts.Node | None:
    """The member list of the one class or struct named `cls` defined in `node`'s file, else None."""
    root, up = node, node.parent
    while up is not None:
        root, up = up, up.parent
    key = ("classes", root.start_byte, root.end_byte)
    if key not in cache:
        found: dict[str, ts.Node | None] = {}
        todo = [root]
        while todo:
            n = todo.pop()
            for c in n.named_children:
                if c.type in ("struct_specifier", "class_specifier"):
                    name, body = c.child_by_field_name("name"), c.child_by_field_name("body")
                    if name is not None and body is not None:
                        text = _last_name(name) or ""
                        found[text] = None if text in found else body  # two definitions: a guess
                # (conditional arms are the preprocessor's to read: porter.source.preprocessor)
                if c.type in ("declaration_list", "namespace_definition", "template_declaration", "declaration",
                              "type_definition", "linkage_specification", "struct_specifier", "class_specifier",
                              "field_declaration_list"):
                    todo.append(c)
        cache[key] = found
    return cache[key].get(cls)


def operator_call_key(fn: ts.Node, cache: dict) -> str | None:
    """`Cls::operator()` for a call `obj(...)` whose function is a variable of a declared class type, else None."""
    if fn.type != "identifier":
        return None
    cls = declared_type(fn, cache)
    if not cls or cls.encode() in template_type_parameters(fn):
        return None  # Kokkos' trampolines call the user's functor `driver()`: the launch, not the kernel, names it
    return member_key(cls, OPERATOR)


def template_functor_key(fn: ts.Node, cache: dict) -> str | None:
    """`P::operator()` for a call `obj(...)` whose function is a variable declared with a template type parameter P
    of an enclosing template (`template <typename T> __global__ void k(const T kernel) { kernel(); }`), else None:
    the launches that bind P name the class whose operator() runs (porter.kernels.callgraph.bound_functor_calls)."""
    if fn.type != "identifier":
        return None
    cls = declared_type(fn, cache)
    if not cls or cls.encode() not in template_type_parameters(fn):
        return None
    return member_key(cls, OPERATOR)


def declared_type(ident: ts.Node, cache: dict) -> str | None:
    """The class name the nearest declaration of `ident`'s name gives it (see the module's doc), else None."""
    found = _nearest_declaration(ident, cache)
    return (found[0] or None) if found is not None else None


def declared_indirect(ident: ts.Node, cache: dict) -> bool:
    """Whether the nearest declaration of `ident`'s name (as declared_type finds it) declares a pointer or an
    array (`FFP *sh`, `pair2 bins[]`), not an object of its class."""
    found = _nearest_declaration(ident, cache)
    return found is not None and found[1]


def _nearest_declaration(ident: ts.Node, cache: dict) -> tuple[str, bool] | None:
    """The nearest declaration of `ident`'s name, walking out through function parameters and scopes: the class
    name it gives ("" for a name declared with no class type) and whether it declares a pointer or an array."""
    # Asked again for the same name node: declared_indirect then declared_type for an operator's left operand, and
    # each body walked once per kind of walk (porter.kernels.facts._walk): 14,108 asks of 7,538 nodes in a cold
    # cuda-samples scan. An identifier is a leaf, so its span names it in the file's one tree the cache belongs to.
    memo = ("nearest", ident.start_byte, ident.end_byte)
    if memo in cache:
        return cache[memo]
    name = ident.text
    found_at: tuple[str, bool] | None = None
    # One `.parent` per step: tree-sitter finds a node's parent by descending from the root, so each call costs the
    # node's depth (asking twice per step was 2% of a cold cuda-samples scan, for every operator's left operand).
    parent = ident.parent
    while parent is not None:
        if parent.type == "function_definition":
            found = _parameters(parent, cache).get(name)
            if found is not None:
                found_at = found, name in cache[("indirect", "parameters", parent.start_byte, parent.end_byte)]
                break
        if parent.type in _SCOPES:
            found = _scope(parent, cache).get(name)
            if found is not None:
                found_at = found, name in cache[("indirect", "scope", parent.start_byte, parent.end_byte)]
                break
        parent = parent.parent
    cache[memo] = found_at
    return found_at


def _parameters(fn: ts.Node, cache: dict) -> dict[bytes, str]:
    key = ("parameters", fn.start_byte, fn.end_byte)
    if key not in cache:
        indirect: set[bytes] = set()
        cache[("indirect",) + key] = indirect
        out: dict[bytes, str] = {}
        d = fn.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        params = d.child_by_field_name("parameters") if d is not None else None
        for p in params.named_children if params is not None else ():
            if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                _record(p, out, None, indirect)
        cache[key] = out
    return cache[key]


def _scope(scope: ts.Node, cache: dict) -> dict[bytes, str]:
    """name -> class name ("" where the scope declares the name with no class type, or with two types)."""
    key = ("scope", scope.start_byte, scope.end_byte)
    if key not in cache:
        indirect: set[bytes] = set()
        cache[("indirect",) + key] = indirect
        out: dict[bytes, str] = {}
        children = list(scope.named_children)
        if scope.type == "for_range_loop":
            children = [scope]
        # a type alias of the scope (`using Cache = SimpleKNNCache<K, V>;`, `typedef Cache<K> C;`) names the class
        # its variables have (ggnn's `Cache cache(...)` is a SimpleKNNCache, whose fetch the kernel runs)
        aliases = {}
        for c in children:
            if c.type == "alias_declaration":
                name, target = c.child_by_field_name("name"), c.child_by_field_name("type")
                target = target.child_by_field_name("type") if target is not None else None
            elif c.type == "type_definition":
                name, target = c.child_by_field_name("declarator"), c.child_by_field_name("type")
            else:
                continue
            cls = _last_name(target) if target is not None and target.type in (
                "type_identifier", "template_type", "qualified_identifier") else None
            if name is not None and name.type == "type_identifier" and cls:
                aliases[name.text.decode("utf-8", "replace")] = cls
        for c in children:
            if c.type in _DECLARATIONS or c.type == "for_range_loop":
                _record(c, out, aliases, indirect)
            elif c.type == "linkage_specification":  # extern "C" { ... } declares at the enclosing scope
                body = c.child_by_field_name("body")
                for d in ([body] if body is not None and body.type in _DECLARATIONS else
                          body.named_children if body is not None else ()):
                    if d.type in _DECLARATIONS:
                        _record(d, out, None, indirect)
        cache[key] = out
    return cache[key]


def _record(decl: ts.Node, out: dict[bytes, str], aliases: dict[str, str] | None = None,
            indirect: set[bytes] | None = None) -> None:
    """Record each name `decl` declares with its class (see _scope); into `indirect` the names declared as a
    pointer or an array."""
    kind = decl.child_by_field_name("type")
    cls = _last_name(kind) if kind is not None and kind.type in ("type_identifier", "template_type",
                                                                 "qualified_identifier") else ""
    if cls and aliases and kind is not None and kind.type == "type_identifier":
        cls = aliases.get(cls, cls)
    # In a function body, `Cache cache(D, measure, k);` is an object built from three locals, which a parser that
    # does not know D is no type reads as a function declaration (C++'s most vexing parse): a local function
    # declaration is rare in device code, an object constructed from locals is common (ggnn's query kernels).
    local = decl.parent is not None and decl.parent.type == "compound_statement"
    for d in decl.children_by_field_name("declarator"):
        pointer = False
        while d is not None and (d.type in _DECLARATORS or (local and d.type == "function_declarator")):
            pointer = pointer or d.type in ("pointer_declarator", "array_declarator")
            d = d.child_by_field_name("declarator") or next(iter(d.named_children), None)
        if d is not None and d.type in ("identifier", "field_identifier"):
            name = d.text
            out[name] = cls if out.get(name, cls) == cls else ""
            if pointer and indirect is not None:
                indirect.add(name)


def _last_name(node: ts.Node) -> str | None:
    """`ns::Texture<float4>` -> `Texture`."""
    while node is not None and node.type in ("qualified_identifier", "template_type"):
        node = node.child_by_field_name("name")
    return node.text.decode("utf-8", "replace") if node is not None and node.type == "type_identifier" else None


def template_type_parameters(n: ts.Node) -> set[bytes]:
    """The type parameter names (template template parameters too) of the template declarations enclosing `n`."""
    names: set[bytes] = set()
    p = n.parent
    while p is not None:
        if p.type == "template_declaration":
            params = p.child_by_field_name("parameters")
            for c in params.named_children if params is not None else ():
                if c.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                    names.update(x.text for x in c.named_children if x.type == "type_identifier")
                elif c.type == "template_template_parameter_declaration":
                    names.update(x.text for d in c.named_children if d.type in (
                        "type_parameter_declaration", "optional_type_parameter_declaration")
                        for x in d.named_children if x.type == "type_identifier")
        p = p.parent
    return names
