"""Pattern kinds for Python source: imports (a module or any submodule of it) and uses of the project's own
vendor-named variants (`get_config_nvidia`).

Scanned Python is only parsed with tree-sitter-python, never imported or executed; Python calls are matched by
the `call` kind (porter.match.kinds.code) and `module_call` (porter.match.kinds.library).
"""
from __future__ import annotations

import bisect
import re
from typing import Any, Iterable, Iterator

from porter.match.base import Hit, MatchContext, per_object
from porter.source.parse import SourceFile
from porter.source.parse_queries import captures, descendants
from porter.source.syntax import index


def match_import(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "python":
        return
    wanted = pattern["import"]
    for node, module in index(sf).imports:
        if any(module == w or module.startswith(w + ".") for w in wanted):
            yield Hit(node.start_byte, node.end_byte, name=module)


def _variant_spec(pattern: dict) -> tuple[re.Pattern[str], re.Pattern[bytes], tuple[str, ...], frozenset[str],
                                         tuple[str, ...], frozenset[str]]:
    """The name shape (`<word>_<vendor>` as the whole name; with `twins`, the vendor as any `_` word of it), its
    quick byte test, the predicate prefixes, the words that make a name a twin of the other vendor and the `twins`
    words, read once per pattern object."""
    spec = pattern["vendor_variant"]
    vendors = "|".join(re.escape(v) for v in spec["vendors"])
    twins = tuple(w.lower() for w in spec.get("twins", ()))
    if twins:
        name = re.compile(rf"^_*(?:[A-Za-z]\w*?_)?(?:{vendors})(?:_\w*)?$", re.IGNORECASE)
        quick = re.compile(rf"(?:\b|_)(?:{vendors})(?:\b|_)".encode(), re.IGNORECASE)
    else:
        name = re.compile(rf"^[A-Za-z]\w*?_(?:{vendors})$", re.IGNORECASE)
        quick = re.compile(rf"_(?:{vendors})\b".encode(), re.IGNORECASE)
    return (name, quick, tuple(p.lower() + "_" for p in spec.get("not_prefixes", ())),
            frozenset(w.lower() for w in spec.get("not_words", ())), twins,
            frozenset(v.lower() for v in spec["vendors"]))


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
    shape, quick, predicates, others, twins, vendors = _read_variant(pattern)
    if not quick.search(sf.code):
        return ()
    return _variant_uses(sf, shape, predicates, others, twins, vendors)


def _variant_uses(sf: SourceFile, shape: re.Pattern[str], predicates: tuple[str, ...],
                  others: frozenset[str], twins: tuple[str, ...] = (),
                  vendors: frozenset[str] = frozenset()) -> Iterator[Hit]:
    candidates = [n for n, text in _file_identifiers(sf)
                  if _is_variant_name(text.decode("utf-8", "replace"), shape, predicates, others)]
    if not candidates:
        return
    own = {n.text for n in candidates if _defines(n)}
    if twins:
        yield from _twin_calls(sf, candidates, own, vendors, twins)
        yield from _twin_members(sf, candidates, vendors, twins)
        return
    for node in candidates:
        if node.text in own and _is_use(node) and not _joined_with_twin(node, others):
            yield Hit(node.start_byte, node.end_byte, name=node.text.decode("utf-8", "replace"))


def _twin_calls(sf: SourceFile, candidates: list, own: set[bytes], vendors: frozenset[str],
                twins: tuple[str, ...]) -> Iterator[Hit]:
    """Calls of a function named with a vendor word whose twin (`build_for_cuda` → `build_for_rocm`) the file also
    defines: a `cuda` word alone names a device far more often than a vendor choice (`to_cuda`, `load_cuda_kernels`),
    but a file that defines both keeps one function per vendor, and the call is where one is chosen. Not a choice
    left to make: a call where the twin is also used in the same block or in another branch of the same `if` chain
    (`if is_cuda(): f_cuda() else: f_hip()`, both computed one after the other), inside a function whose own name
    has the vendor word (the choice is at its caller), or tried under an `except`; nor an ALL-CAPS name
    (`CUDA_CHECK(err)`, a checker for calls already read as CUDA code)."""
    # Only a twin of one of the file's own variant names can make a call a choice: the file's identifiers are asked
    # whether they define a name (_defines, a step up the tree each) only when they spell such a twin, and not at
    # all when there is none (the same `chosen` as asking every identifier: a twin set is intersected with it).
    wanted = {tw for name in own if not name.isupper() for tw in _twin_names(name, vendors, twins)}
    if not wanted:
        return
    defined = {text for n, text in _file_identifiers(sf) if text in wanted and _defines(n)}
    chosen = {name: tw for name in own
              for tw in [set(_twin_names(name, vendors, twins)) & defined] if tw and not name.isupper()}
    for node in candidates:
        if node.text not in chosen or not _is_use(node):
            continue
        call = node.parent
        if call is None or call.type != "call" or call.child_by_field_name("function") != node:
            continue
        if _twin_near(call, chosen[node.text]) or _in_vendor_function(call, vendors) or _tried(call):
            continue
        yield Hit(node.start_byte, node.end_byte, name=node.text.decode("utf-8", "replace"))


def _twin_near(call, names: set[bytes]) -> bool:
    """One of `names` is used by a statement of the block holding the call's statement, or of a branch of the
    nearest `if` chain around it - statements of that block itself, not of an `if`, loop or `def` nested in it."""
    return any(n.text in names and _is_use(n) for block in _near_blocks(call) for statement in block.named_children
               if statement.type not in _COMPOUND for n in _identifiers(statement))


# Where a class's member is a value the code hands on (returns, binds, passes), not one it tests or compares.
_VALUE_PARENTS = {"return_statement": None, "argument_list": None, "assignment": "right", "keyword_argument": "value",
                  "default_parameter": "value", "typed_default_parameter": "value"}


def _twin_members(sf: SourceFile, candidates: list, vendors: frozenset[str], twins: tuple[str, ...]) -> Iterator[Hit]:
    """Members read as values (`return Target.CUDA`, `target = Backend.CUDA`, `f(Target.CUDA)`) of a class the file
    defines with both the vendor member and its twin in its own body (`class Target: CUDA = ...; HIP = ...`): a
    project that keeps one enum member per vendor chooses between them where it hands one on, as it does with twin
    functions (pystencils' `Target.auto_gpu` returns Target.HIP under `cupy.cuda.runtime.is_hip`, else
    Target.CUDA). Not a choice left to make: a comparison or test (`target == Target.CUDA`), a use in the class
    body itself, in a function named for the vendor, or beside the twin member (same block or another branch of
    the same `if` chain)."""
    pairs: dict[tuple[bytes, bytes], set[bytes]] = {}
    for node in candidates:
        owner = _class_member(node)
        if owner is not None:
            pairs.setdefault((owner, node.text), set()).update(_twin_names(node.text, vendors, twins))
    if not pairs:
        return
    wanted = set().union(*pairs.values())
    defined = {(owner, text) for n, text in _file_identifiers(sf) if text in wanted
               for owner in [_class_member(n)] if owner is not None}
    chosen = {key: tws for key, names in pairs.items()
              for tws in [{tw for tw in names if (key[0], tw) in defined}] if tws}
    for node in candidates:
        attr = node.parent
        if attr is None or attr.type != "attribute" or attr.child_by_field_name("attribute") != node:
            continue
        owner = attr.child_by_field_name("object")
        if owner is None or owner.type != "identifier" or (owner.text, node.text) not in chosen:
            continue
        parent = attr.parent
        if parent is None or parent.type not in _VALUE_PARENTS:
            continue
        field = _VALUE_PARENTS[parent.type]
        if field is not None and parent.child_by_field_name(field) != attr:
            continue
        if (_in_class_body(attr) or _in_vendor_function(attr, vendors)
                or _member_near(attr, owner.text, chosen[(owner.text, node.text)])):
            continue
        yield Hit(attr.start_byte, attr.end_byte, name=attr.text.decode("utf-8", "replace"))


def _class_member(node) -> bytes | None:
    """The name of the class whose own body assigns the identifier (`class Target: CUDA = _GPU | _CUDA`), or None."""
    assignment = node.parent
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") != node:
        return None
    statement = assignment.parent
    block = statement.parent if statement is not None and statement.type == "expression_statement" else None
    owner = block.parent if block is not None and block.type == "block" else None
    if owner is None or owner.type != "class_definition":
        return None
    name = owner.child_by_field_name("name")
    return name.text if name is not None else None


def _in_class_body(node) -> bool:
    """The node is in a class body outside any function of it (a member defined from others, a class constant)."""
    node = node.parent
    while node is not None and node.type not in ("function_definition", "class_definition"):
        node = node.parent
    return node is not None and node.type == "class_definition"


def _member_near(attr, owner: bytes, names: set[bytes]) -> bool:
    """`owner.<one of names>` is read by a statement of the blocks _near_blocks gives for `attr`."""
    return any(n.text in names and n.parent is not None and n.parent.type == "attribute"
               and n.parent.child_by_field_name("attribute") == n
               and (o := n.parent.child_by_field_name("object")) is not None and o.text == owner
               for block in _near_blocks(attr) for statement in block.named_children
               if statement.type not in _COMPOUND for n in _identifiers(statement))


def _near_blocks(call) -> list:
    """The block holding the node's statement and the branches of the nearest `if` chain around it."""
    blocks = []
    node = call
    while node is not None and node.type not in ("block", "module"):
        node = node.parent
    if node is not None:
        blocks.append(node)
    node = call.parent
    while node is not None and node.type not in ("function_definition", "class_definition", "module"):
        if node.type == "if_statement":
            blocks += [b for b in [node.child_by_field_name("consequence")] if b is not None]
            for clause in node.named_children:
                if clause.type in ("elif_clause", "else_clause"):
                    blocks += [b for b in [clause.child_by_field_name("consequence") or
                                           clause.child_by_field_name("body")] if b is not None]
            break
        node = node.parent
    return blocks


# Statements holding blocks of their own: a use inside one is not the enclosing block's own statement.
_COMPOUND = frozenset({"if_statement", "for_statement", "while_statement", "try_statement", "with_statement",
                       "function_definition", "class_definition", "decorated_definition", "match_statement"})


def _tried(node) -> bool:
    """The node is in the body of a `try` with an `except` clause in its own function: the call is attempted and its
    failure handled (comfy-kitchen tries its CUDA extension and builds the HIP one when no toolkit is found)."""
    child, node = node, node.parent
    while node is not None and node.type not in ("function_definition", "class_definition", "module"):
        if node.type == "try_statement" and child == node.child_by_field_name("body") and any(
                c.type == "except_clause" for c in node.named_children):
            return True
        child, node = node, node.parent
    return False


def _in_vendor_function(node, vendors: frozenset[str]) -> bool:
    """The node is inside a function whose name has one of the vendor words (`register_cuda_postproc_callback`)."""
    node = node.parent
    while node is not None:
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None and not vendors.isdisjoint(name.text.decode("utf-8", "replace").lower().split("_")):
                return True
        node = node.parent
    return False


def _joined_with_twin(node, others: frozenset[str]) -> bool:
    """The variant is an operand of `+`/`|` or an item of a list, tuple or set beside its other-vendor twin
    (`DEPS = DEPS_NVIDIA + DEPS_HIP`, `[configs_nvidia, configs_amd]`): both variants are kept there, each filled
    per platform by its own definition, so the spot chooses nothing."""
    parent = node.parent
    if parent is None or parent.type not in ("binary_operator", "list", "tuple", "set"):
        return False
    stem = node.text.decode("utf-8", "replace").lower().rsplit("_", 1)[0]
    for sibling in parent.named_children:
        if sibling.type == "identifier" and sibling.id != node.id:
            words = sibling.text.decode("utf-8", "replace").lower().rsplit("_", 1)
            if len(words) == 2 and words[0] == stem and words[1] in others:
                return True
    return False


def _is_variant_name(name: str, shape: re.Pattern[str], predicates: tuple[str, ...], others: frozenset[str]) -> bool:
    if not shape.match(name) or name.lower().lstrip("_").startswith(predicates):
        return False
    return others.isdisjoint(name.lower().split("_"))


def _twin_names(name: bytes, vendors: frozenset[str], twins: tuple[str, ...]) -> Iterator[bytes]:
    """`name` with each of its vendor words replaced by each twin word in the same case (`build_for_cuda` →
    `build_for_rocm`, `CUDA_FLAGS` → `ROCM_FLAGS`, `Cuda` → `Rocm`)."""
    text = name.decode("utf-8", "replace")
    parts = text.split("_")
    for i, part in enumerate(parts):
        if part.lower() not in vendors:
            continue
        for twin in twins:
            word = twin.upper() if part.isupper() else twin.capitalize() if part[:1].isupper() else twin
            yield "_".join([*parts[:i], word, *parts[i + 1:]]).encode()


def _file_identifiers(sf: SourceFile) -> list:
    """(node, text) of each identifier of the file outside comments and strings, in tree order (_identifiers of its
    root), found once per file for every vendor_variant pattern and question that reads them."""
    found = sf.cache.get("python.identifiers")
    if found is None:
        found = sf.cache["python.identifiers"] = [(n, n.text) for n in _root_identifiers(sf.root)]
    return found


# What _root_identifiers asks tree-sitter: every identifier and every string (a comment holds no identifier).
_IDENTIFIERS_AND_STRINGS = "(identifier) @i (string) @s"


def _root_identifiers(root) -> list:
    """_identifiers(root), found by one tree-sitter query instead of a Python step per node (half the time over
    FasterTransformer's Python files): the identifiers in tree order less those inside a string (an f-string's
    `{name}`, which the walk does not enter). Identifiers are leaves, so tree order is byte order; a zero-width
    one (a MISSING node error recovery made) has no place in that order nor a clear side of a string's edge, and
    a file with one is walked as before."""
    caps = captures("python", _IDENTIFIERS_AND_STRINGS, root)  # in tree order (start, then the longer first)
    found = caps.get("i", [])
    if any(n.start_byte == n.end_byte for n in found):
        return list(_identifiers(root))
    strings: list[list[int]] = []  # the strings' spans, nested ones merged into the outermost (tree order)
    for s in caps.get("s", []):
        if strings and s.start_byte < strings[-1][1]:
            strings[-1][1] = max(strings[-1][1], s.end_byte)
        else:
            strings.append([s.start_byte, s.end_byte])
    if not strings:
        return found
    starts = [a for a, _ in strings]
    out = []
    for n in found:
        i = bisect.bisect_right(starts, n.start_byte) - 1
        if i < 0 or n.start_byte >= strings[i][1]:
            out.append(n)
    return out


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



def _module_spec(pattern: dict) -> tuple[frozenset[str], frozenset[str], re.Pattern[bytes]]:
    """The vendor words, the other vendors' words and the quick byte test of a vendor_module pattern."""
    spec = pattern["vendor_module"]
    vendors = frozenset(v.lower() for v in spec["vendors"])
    quick = re.compile(rb"(?i)\b(?:" + b"|".join(re.escape(v.encode()) for v in sorted(vendors)) + rb")\b|_(?:" +
                       b"|".join(re.escape(v.encode()) for v in sorted(vendors)) + rb")\b")
    return vendors, frozenset(w.lower() for w in spec.get("not_words", ())), quick


_read_module_spec = per_object(_module_spec)


def _vendor_part(part: str, vendors: frozenset[str], others: frozenset[str]) -> bool:
    """A module path component that names one vendor's variant: the vendor word itself (`nvidia`) or a name whose
    last word it is (`tp_mlp_nvidia`), with no other vendor's word in it (`nvidia_amd_common` serves both)."""
    words = part.lower().split("_")
    return words[-1] in vendors and others.isdisjoint(words)


def match_vendor_module(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Imports of the project's own modules that a vendor's name marks as that vendor's variant - a package
    component `nvidia` (`from triton_dist.layers.nvidia.tp_mlp import TP_MLP`, `from .nvidia.ops import f`) or a
    module or imported name whose last word is the vendor (`import pkg.kernels_nvidia`, `from pkg import nvidia`).
    The project's own: a relative import, or one whose top package is a package of the repository
    (ctx.extra["local_packages"]); a library's module (`nvidia.cublas`, `cuda.bindings`) is the library rules'.
    A file that is itself part of such a variant (under a `nvidia/` directory, or named `*_nvidia.py`) importing its
    siblings is the variant's own code, not the spot that chooses it."""
    if sf.language != "python" or sf.root is None:
        return
    vendors, others, quick = _read_module_spec(pattern)
    if not quick.search(sf.code):
        return
    path = sf.path.replace("\\", "/").split("/")
    own_parts = path[:-1] + [path[-1].rsplit(".", 1)[0]]
    if any(_vendor_part(p, vendors, others) for p in own_parts):
        return
    # The project's own top packages: the repository's (a directory with __init__.py) and the directories this
    # file sits in (a namespace package without __init__.py, `python/triton_dist/models/dense.py`).
    local = (ctx.extra.get("local_packages", frozenset()) if ctx is not None else frozenset()) | frozenset(path[:-1])
    statements = descendants(sf.root, _IMPORT_STATEMENTS, lang="python")
    hits = [hit for stmt in statements for hit in _vendor_imports(stmt, vendors, others, local)]
    if not hits:
        return
    # A file that also imports the other vendor's twin (`.amd.common_ops` beside `.nvidia.common_ops`, in the
    # other arm of its platform test) already chooses per platform at these imports.
    imported = {text for stmt in statements for text in _import_texts(stmt)}
    for hit in hits:
        words = re.split(r"([._])", hit.name)
        twins = {"".join(o if w.lower() in vendors else w for w in words) for o in others}
        if imported.isdisjoint(twins):
            yield hit


# Relative imports too (`from .nvidia.ops import f`), which the syntax index's absolute imports leave out.
_IMPORT_STATEMENTS = ("import_statement", "import_from_statement")


def _imported_names(stmt) -> list:
    """The dotted-name nodes an import statement imports (`b` of `import b as c` / `from a import b as c`)."""
    names = (n.child_by_field_name("name") if n.type == "aliased_import" else n
             for n in stmt.children_by_field_name("name"))
    return [n for n in names if n is not None]


def _import_texts(stmt) -> set[str]:
    """The modules an import statement names (`a.b`, `.a.b`), and for `from a import b` also `a.b`."""
    texts = {n.text.decode("utf-8", "replace") for n in _imported_names(stmt)}
    if stmt.type == "import_statement":
        return texts
    module = stmt.child_by_field_name("module_name")
    base = module.text.decode("utf-8", "replace") if module is not None else ""
    return {base} | {f"{base}.{t}" for t in texts}


def _vendor_imports(stmt, vendors: frozenset[str], others: frozenset[str],
                    local: frozenset[str]) -> Iterator[Hit]:
    if stmt.type == "import_statement":
        for node in _imported_names(stmt):
            parts = node.text.decode("utf-8", "replace").split(".")
            if parts[0] in local and any(_vendor_part(p, vendors, others) for p in parts[1:]):
                yield Hit(node.start_byte, node.end_byte, name=".".join(parts))
        return
    module = stmt.child_by_field_name("module_name")
    if module is None:
        return
    text = module.text.decode("utf-8", "replace")
    relative = module.type == "relative_import"
    parts = [p for p in text.lstrip(".").split(".") if p]
    if not relative and (not parts or parts[0] not in local):
        return
    # The top package of an absolute import is the project's own name, never a variant; a relative one starts
    # inside the project.
    if any(_vendor_part(p, vendors, others) for p in (parts if relative else parts[1:])):
        yield Hit(module.start_byte, module.end_byte, name=text)
        return
    for node in _imported_names(stmt):
        word = node.text.decode("utf-8", "replace")
        if "." not in word and _vendor_part(word, vendors, others) and word.lower() in vendors:
            # `from pkg.kernels import nvidia`: the vendor's subpackage itself (a name `foo_nvidia` imported from
            # a module is a function or constant, vendor_variant's, which reads its uses).
            yield Hit(node.start_byte, node.end_byte, name=f"{text}.{word}")


def _tag_spec(pattern: dict) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], frozenset[str],
                                      re.Pattern[bytes]]:
    """The vendor values, the other vendors' values, the other backends' values, the torch device types, the name
    words that make a tag a device, and the quick byte test of a backend_tag pattern."""
    spec = pattern["backend_tag"]
    values = frozenset(v.lower() for v in spec["values"])
    alternatives = b"|".join(re.escape(v.encode()) for v in sorted(values))
    quick = re.compile(rb"(?i)['\"](?:" + alternatives + rb")['\"]|\.(?:" + alternatives + rb")\b")
    return (values, frozenset(v.lower() for v in spec["twins"]), frozenset(v.lower() for v in spec["backends"]),
            frozenset(v.lower() for v in spec.get("devices", ())),
            frozenset(v.lower() for v in spec.get("not_words", ())), quick)


_read_tag_spec = per_object(_tag_spec)


def match_backend_tag(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """The vendor's value of the project's backend tag, set in an `if` chain that has no arm for the twin vendor:
    `SYSTEM = "cuda"` in `if ...: SYSTEM = "cuda" elif ...: SYSTEM = "ipex" else: SYSTEM = "cpu"`, where every later
    `SYSTEM == "cuda"` test picks that vendor's kernels. A tag is a name the arms of one chain assign different plain
    strings, one of them a vendor value (`values`) and another a backend word (`backends`); the file assigning the
    name a twin value anywhere (`"rocm"`) already gives that vendor its own tag. A torch device is not a tag: a name
    with a `not_words` word (`device`), or a chain whose values are all torch device types (`devices`: `"cuda"` is
    the ROCm device's name too) under a name without a backend word (`system`, `platform`, `backend`, ...).
    A value is a plain string or a constant's member read by its last name (`backend = gs.cuda` beside `gs.metal`,
    Genesis' backend enum; never a `torch.` attribute, whose `torch.cuda` is the ROCm device module too), and an
    arm's assignments include those of the `if` chains nested in it (`if torch.cuda.is_available(): if hip: ...
    else: backend = gs.cuda` is one arm of the chain whose next arm sets `gs.metal`)."""
    if sf.language != "python" or sf.root is None:
        return
    values, twins, backends, devices, not_words, quick = _read_tag_spec(pattern)
    if not quick.search(sf.data):  # the strings themselves (sf.code has them blanked)
        return
    assigned: dict[bytes, set[str]] = {}
    chains = []
    for stmt in descendants(sf.root, ("if_statement",), lang="python"):
        if stmt.parent is not None and stmt.parent.type in ("elif_clause", "else_clause"):
            continue
        arms = [stmt.child_by_field_name("consequence")] + [
            c.child_by_field_name("consequence") or c.child_by_field_name("body")
            for c in stmt.named_children if c.type in ("elif_clause", "else_clause")]
        chains.append([_string_assignments(arm) for arm in arms if arm is not None])
    for node in descendants(sf.root, ("assignment",), lang="python"):
        pair = _string_assignment(node)
        if pair is not None:
            assigned.setdefault(pair[0], set()).add(pair[1])
    seen: set[int] = set()  # a nested chain's assignment is its own chain's and its enclosing arm's: one hit
    for chain in chains:
        by_name: dict[bytes, list[tuple[str, Any]]] = {}
        for arm in chain:
            for name, value, node in arm:
                by_name.setdefault(name, []).append((value, node))
        for name, pairs in by_name.items():
            chain_values = {v for v, _ in pairs}
            words = set(re.split(r"[^a-z0-9]+", re.sub(rb"([a-z0-9])([A-Z])", rb"\1_\2", name).decode(
                "utf-8", "replace").lower()))
            if (not words.isdisjoint(not_words) or chain_values.isdisjoint(values)
                    or (chain_values - values).isdisjoint(backends) or not twins.isdisjoint(assigned.get(name, ()))):
                continue
            if chain_values <= devices and words.isdisjoint(_TAG_WORDS):
                continue
            for value, node in pairs:
                if value in values and node.start_byte not in seen:
                    seen.add(node.start_byte)
                    yield Hit(node.start_byte, node.end_byte, name=name.decode("utf-8", "replace"),
                              values=(("value", value),))


# Words of a name that make it a backend tag even when its values are all torch device types.
_TAG_WORDS = frozenset({"system", "platform", "backend", "vendor", "accelerator", "hardware", "hw", "gpu"})


def _string_assignments(block) -> list:
    """(name, lower-cased value, statement) for each `name = "plain string"` / `name = const.member` statement in
    the block, directly or in an arm of an `if` chain nested in it (the nested chain chooses within this arm)."""
    out = []
    for statement in block.named_children:
        if statement.type == "expression_statement" and statement.named_child_count == 1:
            node = statement.named_children[0]
            pair = _string_assignment(node) if node.type == "assignment" else None
            if pair is not None:
                out.append((pair[0], pair[1], statement))
        elif statement.type == "if_statement":
            arms = [statement.child_by_field_name("consequence")] + [
                c.child_by_field_name("consequence") or c.child_by_field_name("body")
                for c in statement.named_children if c.type in ("elif_clause", "else_clause")]
            for arm in arms:
                if arm is not None:
                    out.extend(_string_assignments(arm))
    return out


def _string_assignment(node) -> tuple[bytes, str] | None:
    """(target text, lower-cased value) of `name = "plain string"` / `self.name = "..."`, or of `name = const.member`
    read by the member's name (`gs.cuda` is "cuda"; not a `torch.` attribute), else None."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("identifier", "attribute"):
        return None
    if right.type == "attribute":
        member, owner = right.child_by_field_name("attribute"), right.child_by_field_name("object")
        if member is None or owner is None or owner.type not in ("identifier", "attribute") or \
                owner.text.split(b".", 1)[0] == b"torch":
            return None
        return left.text, member.text.decode("utf-8", "replace").lower()
    if right.type != "string":
        return None
    if any(c.type == "interpolation" for c in right.named_children):
        return None
    content = [c for c in right.named_children if c.type == "string_content"]
    text = content[0].text.decode("utf-8", "replace") if len(content) == 1 else ""
    return left.text, text.strip().lower()
