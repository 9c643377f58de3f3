"""A Python project's modules read together through their imports (issue 27): a guard one module establishes and
another tests.

A dual project often decides "is this NVIDIA's build" once, in a platform module, and tests it elsewhere:
QuantumAttention's `utils/checks.py` defines `cuda_capability_compare(op, major, minor)`, which returns None unless
`is_nvidia_cuda()` (`torch.version.hip is None and ...`), and `inductor/kernels/attention.py` builds its
ThunderKittens Hopper kernel only when `use_tk_tma_kernel = (... and checks.cuda_capability_compare("ge", 9, 0) and
...)` holds. porter reads each file's vendor branches alone (porter.portaware.guards); this module follows the
imports, reading the project's text and never importing it, and gives port status two things:

- the spans of a file that calls a CUDA-only function another module defines (guards.cuda_only_functions), read
  with that call as a CUDA test and with the file's public names no other module mentions read as private ones
  (guards.python_spans' `external` and `local`): a name bound to such a test confines `if name:` as the test would;
- the definition of a function a module imports from another (`from ..tk.attention import
  load_tk_attention_module`) whose every use there is CUDA-side code, when no other module of the project mentions
  its name: it runs on the CUDA build only, and what it does (a `load_inline` build with nvcc flags) is handled by
  the guard that confines its calls (PortMap.callers, with that guard's "path:line").

A module is found by its dotted name's last parts (`quantum_attn.utils.checks`, `utils.checks`, `checks`), relative
imports from the importing file's package; a name two files could be is not followed. Mentions are whole words in
a file's bytes, strings and comments included, so a name a module reaches by `getattr` or lists in `__all__` counts
as mentioned and keeps its definition open.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from porter.lazyre import lazy_regex
from porter.portaware.guards import CUDA, PY_PREDICATE_HINT, Span, cuda_only_functions, python_spans
from porter.source.parse import parse
from porter.source.parse_queries import descendants

Read = Callable[[str], "bytes | None"]

# What a module that tells the builds apart reads: PyTorch's version fields, a vendor predicate's call, Triton's
# active backend. A narrower pre-test than guards.PY_PREDICATE_HINT (whose `amd` is in every `lambda`).
_VENDOR_TEST = lazy_regex(rb"version\.(?:hip|cuda)\b|\bis_\w*(?:hip|cuda|rocm|nvidia|amd)\w*\s*\(|"
                          rb"get_current_target\(\)\.backend")


@dataclass(frozen=True)
class Reading:
    """What the project's imports add: per importing file, its spans read with the other modules' CUDA-only
    functions; per defining file, (first line, last line, "path:line" of the guard) of each function only CUDA-side
    code of another module calls."""

    spans: dict[str, list[Span]]
    callers: dict[str, list[tuple[int, int, str]]]


@dataclass(frozen=True)
class _Import:
    local: str  # the name the importing file binds (`checks`, `load_tk_attention_module`)
    path: str  # the project file it comes from
    name: str | None  # the function imported by name, or None for a module
    node: object  # the import statement


def module_paths(paths: Iterable[str]) -> dict[str, str | None]:
    """Each dotted module name's last parts -> the one project file it names (None: more than one)."""
    out: dict[str, str | None] = {}
    for path in paths:
        parts = list(PurePosixPath(path).with_suffix("").parts)
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(len(parts)):
            key = ".".join(parts[i:])
            out[key] = path if key not in out or out[key] == path else None
    return out


def _package(path: str) -> list[str]:
    parts = list(PurePosixPath(path).parts[:-1])
    return parts


def _resolve(dotted: str, path: str, modules: dict[str, str | None]) -> str | None:
    """The project file a (possibly relative) dotted module name names, from the file at `path`."""
    if dotted.startswith("."):
        dots = len(dotted) - len(dotted.lstrip("."))
        base = _package(path)
        if dots - 1 > len(base):
            return None
        base = base[:len(base) - (dots - 1)]
        rest = [p for p in dotted[dots:].split(".") if p]
        key = ".".join(base + rest)
        return modules.get(key) if key else None
    return modules.get(dotted)


def imports(root, path: str, modules: dict[str, str | None]) -> list[_Import]:
    """The file's imports of project modules and of names from them."""
    out: list[_Import] = []
    for node in descendants(root, ("import_from_statement", "import_statement"), lang="python"):
        if node.type == "import_statement":
            for item in node.named_children:
                dotted = item.child_by_field_name("name") if item.type == "aliased_import" else item
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                if dotted is None or alias is None:
                    continue  # `import a.b.c` binds `a`: read only with an alias
                target = _resolve(dotted.text.decode("utf-8", "replace"), path, modules)
                if target is not None:
                    out.append(_Import(alias.text.decode("utf-8", "replace"), target, None, node))
            continue
        module = node.child_by_field_name("module_name")
        if module is None:
            continue
        dotted = module.text.decode("utf-8", "replace")
        for item in node.children_by_field_name("name"):
            name = item.child_by_field_name("name") if item.type == "aliased_import" else item
            alias = item.child_by_field_name("alias") if item.type == "aliased_import" else item
            if name is None or alias is None:
                continue
            text = name.text.decode("utf-8", "replace")
            sub = _resolve(dotted + ("" if dotted.endswith(".") else ".") + text, path, modules)
            if sub is not None and sub != path:
                out.append(_Import(alias.text.decode("utf-8", "replace"), sub, None, node))
                continue
            target = _resolve(dotted, path, modules)
            if target is not None and target != path:
                out.append(_Import(alias.text.decode("utf-8", "replace"), target, text, node))
    return out


def _public_names(root) -> set[str]:
    """The module-level names a file defines (functions, classes, assignments) without a leading underscore."""
    out = set()
    for node in root.named_children:
        item = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if item is None:
            continue
        if item.type in ("function_definition", "class_definition"):
            name = item.child_by_field_name("name")
            if name is not None:
                out.add(name.text.decode("utf-8", "replace"))
        elif item.type == "expression_statement" and item.named_child_count == 1:
            inner = item.named_children[0]
            left = inner.child_by_field_name("left") if inner.type == "assignment" else None
            if left is not None and left.type == "identifier":
                out.add(left.text.decode("utf-8", "replace"))
    return {n for n in out if not n.startswith("_")}


def _definition(root, name: str):
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is not None and fn.type == "function_definition":
            n = fn.child_by_field_name("name")
            if n is not None and n.text.decode("utf-8", "replace") == name:
                return node
    return None


def read_together(files: dict[str, str], targets: Iterable[str], read: Read) -> Reading:
    """The project's imports read for the Python files `targets` (the ones with findings): `files` maps every
    discovered path to its language, `read` gives a file's bytes (None when unreadable or over the size limit)."""
    py = sorted(p for p, lang in files.items() if lang == "python")
    targets = [t for t in targets if files.get(t) == "python"]
    if not targets:
        return Reading({}, {})
    modules = module_paths(py)
    texts: dict[str, bytes | None] = {}
    parsed: dict[str, object] = {}
    predicates: dict[str, frozenset[str]] = {}

    def text(path: str) -> bytes | None:
        if path not in texts:
            texts[path] = read(path)
        return texts[path]

    def root(path: str):
        if path not in parsed:
            data = text(path)
            parsed[path] = parse(path, "python", data).root if data is not None else None
        return parsed[path]

    def cuda_functions(path: str) -> frozenset[str]:
        if path not in predicates:
            data = text(path)
            predicates[path] = cuda_only_functions(root(path), data) \
                if data is not None and PY_PREDICATE_HINT.search(data) else frozenset()
        return predicates[path]

    words: dict[str, frozenset[bytes]] = {}

    def mentioned_elsewhere(name: str, own: set[str]) -> bool:
        key = name.encode()
        for p in py:
            if p in own:
                continue
            if p not in words:
                data = text(p)
                words[p] = frozenset(re.findall(rb"\w+", data)) if data is not None else frozenset()
            if key in words[p]:
                return True
        return False

    # A module that can define a CUDA-only function reads the build's vendor (_VENDOR_TEST) and defines a function;
    # a file imports it only on an import line that spells the module's name (its file stem, or its package's for
    # __init__.py). Only such files are parsed.
    stems = set()
    for p in py:
        data = text(p)
        if data is not None and b"def " in data and _VENDOR_TEST().search(data):
            pure = PurePosixPath(p)
            stems.add((pure.parent.name if pure.stem == "__init__" else pure.stem).encode())
    stems.discard(b"")
    if not stems:
        return Reading({}, {})
    spelled = re.compile(rb"(?m)^[ \t]*(?:from|import)[ \t][^\n]*(?<![\w])(?:"
                         + rb"|".join(re.escape(s) for s in sorted(stems)) + rb")(?!\w)")

    spans: dict[str, list[Span]] = {}
    callers: dict[str, list[tuple[int, int, str]]] = {}
    for path in targets:
        data = text(path)
        if data is None or b"import" not in data or not spelled.search(data):
            continue
        tree = root(path)
        if tree is None:
            continue
        found = imports(tree, path, modules)
        external = set()
        for imp in found:
            funcs = cuda_functions(imp.path)
            if imp.name is None:
                external |= {f"{imp.local}.{f}" for f in funcs}
            elif imp.name in funcs:
                external.add(imp.local)
        if not external:
            continue
        local = frozenset(n for n in _public_names(tree) if not mentioned_elsewhere(n, {path}))
        sf = parse(path, "python", data)
        mine = python_spans(data, path, sf, frozenset(external), local)
        spans[path] = mine
        cuda = [sp for sp in mine if sp.side == CUDA]
        for imp in found:
            if imp.name is None or imp.local in external:
                continue
            where = [n for n in descendants(sf.root, ("identifier",), lang="python")
                     if n.text.decode("utf-8", "replace") == imp.local and not _inside(n, imp.node)]
            holders = [next((sp for sp in cuda if sp.holds((n.start_point[0] + 1, n.start_point[1] + 1))), None)
                       for n in where]
            if not where or any(h is None for h in holders):
                continue
            defining = root(imp.path)
            node = _definition(defining, imp.name) if defining is not None else None
            if node is None or mentioned_elsewhere(imp.name, {path, imp.path}):
                continue
            guard = holders[0]
            callers.setdefault(imp.path, []).append(
                (node.start_point[0] + 1, node.end_point[0] + 1, f"{path}:{guard.line}"))
    return Reading(spans, callers)


def _inside(node, outer) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte
