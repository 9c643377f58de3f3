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

Each file is read once, in the scan. `module_facts` computes a file's own part from the bytes and parse the scan
holds (FileResult.py_module, cached with the file's result): the CUDA-only functions it defines, its module-level
functions, the words it mentions, and for a file with findings its imports as written, where it uses each name it
imports, and the spans its imported calls in test positions add when read as CUDA tests (all at once), grouped by
the calls each span's check tests. Which file an import
names, whether that call is CUDA-only there and whether another module mentions a name need the other files:
`read_together` joins the files' facts at port status and reads no file.

A module is found by its dotted name's last parts (`quantum_attn.utils.checks`, `utils.checks`, `checks`), relative
imports from the importing file's package; a name two files could be is not followed. Mentions are whole words in
a file's bytes, strings and comments included, so a name a module reaches by `getattr` or lists in `__all__` counts
as mentioned and keeps its definition open. The words are kept as their 32-bit CRCs: a collision can only make a
name read as mentioned, which keeps it open.
"""
from __future__ import annotations

import base64
import re
import zlib
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import tree_sitter as ts

from porter.lazyre import lazy_regex
from porter.model.report import ImportReading, ModuleFacts
from porter.portaware.guards import CUDA, Span, cuda_only_functions, python_spans
from porter.source.parse import SourceFile
from porter.source.parse_queries import descendants

# What a module that tells the builds apart reads: PyTorch's version fields, a vendor predicate's call, Triton's
# active backend. A narrower pre-test than guards.PY_PREDICATE_HINT (whose `amd` is in every `lambda`).
_VENDOR_TEST = lazy_regex(rb"version\.(?:hip|cuda)\b|\bis_\w*(?:hip|cuda|rocm|nvidia|amd)\w*\s*\(|"
                          rb"get_current_target\(\)\.backend")
_WORD = re.compile(rb"\w+")

SpanTuple = tuple[tuple[int, int], tuple[int, int], str, int]
SpanFacts = tuple[SpanTuple, ...]


@dataclass(frozen=True)
class Joined:
    """What the project's imports add: per importing file, its spans read with the other modules' CUDA-only
    functions; per defining file, (first line, last line, "path:line" of the guard) of each function only CUDA-side
    code of another module calls."""

    spans: dict[str, list[Span]]
    callers: dict[str, list[tuple[int, int, str]]]


@dataclass(frozen=True)
class Import:
    local: str  # the name the importing file binds (`checks`, `load_tk_attention_module`)
    path: str  # the project file it comes from
    name: str | None  # the function imported by name, or None for a module


def _text(node: ts.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _crc(word: bytes) -> int:
    return zlib.crc32(word) & 0xFFFFFFFF


def _words(data: bytes) -> str:
    # each distinct word hashed once (FasterTransformer's Python: 294,688 words hashed one by one, ~2% of a cold
    # scan under cProfile); the same set of CRCs
    return base64.b64encode(array("I", sorted({_crc(w) for w in set(_WORD.findall(data))})).tobytes()).decode(
        "ascii")


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


def _resolve(dotted: str, path: str, modules: Mapping[str, str | None]) -> str | None:
    """The project file a (possibly relative) dotted module name names, from the file at `path`."""
    if dotted.startswith("."):
        dots = len(dotted) - len(dotted.lstrip("."))
        base = list(PurePosixPath(path).parts[:-1])
        if dots - 1 > len(base):
            return None
        base = base[:len(base) - (dots - 1)]
        rest = [p for p in dotted[dots:].split(".") if p]
        key = ".".join(base + rest)
        return modules.get(key) if key else None
    return modules.get(dotted)


def _written_imports(root: ts.Node) -> list[tuple[str, str, str, ts.Node]]:
    """The file's imports as written: (bound name, dotted module, imported name or "", the statement). `import a.b.c`
    binds `a` and is read only with an alias."""
    out: list[tuple[str, str, str, ts.Node]] = []
    for node in descendants(root, ("import_from_statement", "import_statement"), lang="python"):
        if node.type == "import_statement":
            for item in node.named_children:
                dotted = item.child_by_field_name("name") if item.type == "aliased_import" else item
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                if dotted is not None and alias is not None:
                    out.append((_text(alias), _text(dotted), "",
                                node))
            continue
        module = node.child_by_field_name("module_name")
        if module is None:
            continue
        for item in node.children_by_field_name("name"):
            name = item.child_by_field_name("name") if item.type == "aliased_import" else item
            alias = item.child_by_field_name("alias") if item.type == "aliased_import" else item
            if name is not None and alias is not None:
                out.append((_text(alias), _text(module),
                            _text(name), node))
    return out


def resolve(written: Iterable[tuple[str, str, str]], path: str, modules: Mapping[str, str | None]) -> list[Import]:
    """The imports of project modules and of names from them among a file's imports as written."""
    out: list[Import] = []
    for local, dotted, name in written:
        if not name:
            target = _resolve(dotted, path, modules)
            if target is not None:
                out.append(Import(local, target, None))
            continue
        sub = _resolve(dotted + ("" if dotted.endswith(".") else ".") + name, path, modules)
        if sub is not None and sub != path:
            out.append(Import(local, sub, None))
            continue
        target = _resolve(dotted, path, modules)
        if target is not None and target != path:
            out.append(Import(local, target, name))
    return out


def imports(root: ts.Node, path: str, modules: Mapping[str, str | None]) -> list[Import]:
    """The file's imports of project modules and of names from them."""
    return resolve(((a, b, c) for a, b, c, _ in _written_imports(root)), path, modules)


def _public_names(root: ts.Node) -> dict[str, int]:
    """The module-level names a file defines (functions, classes, assignments) without a leading underscore -> the
    first line of the statement that defines it first."""
    out: dict[str, int] = {}
    for node in root.named_children:
        item = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if item is None:
            continue
        if item.type in ("function_definition", "class_definition"):
            name = item.child_by_field_name("name")
            if name is not None:
                out.setdefault(_text(name), node.start_point[0] + 1)
        elif item.type == "expression_statement" and item.named_child_count == 1:
            inner = item.named_children[0]
            left = inner.child_by_field_name("left") if inner.type == "assignment" else None
            if left is not None and left.type == "identifier":
                out.setdefault(_text(left), node.start_point[0] + 1)
    return {n: line for n, line in out.items() if not n.startswith("_")}


def _functions(root: ts.Node) -> tuple[tuple[str, int, int], ...]:
    out = []
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        name = fn.child_by_field_name("name") if fn is not None and fn.type == "function_definition" else None
        if name is not None:
            out.append((_text(name), node.start_point[0] + 1, node.end_point[0] + 1))
    return tuple(out)


# Where a call's value is a test: inside `and`/`or`/`not`, an `if`/`elif`/`while` condition, a conditional
# expression, or the whole value of an assignment (a name bound to the test: guards._test_names).
_TEST_PARENTS = frozenset({"boolean_operator", "not_operator", "parenthesized_expression"})


def _in_test(node: ts.Node) -> bool:
    child, parent = node, node.parent
    while parent is not None and parent.type in _TEST_PARENTS:
        child, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in ("if_statement", "elif_clause", "while_statement", "conditional_expression"):
        return bool(parent.child_by_field_name("condition") == child or parent.type == "conditional_expression")
    if parent.type == "assignment":
        return bool(parent.child_by_field_name("right") == child)
    return child is not node


def _test_calls(root: ts.Node, written: list[tuple[str, str, str, ts.Node]]) -> list[str]:
    """How the file spells the calls of names it imports that sit in a test position (`checks.cuda_capability_
    compare` for `from .utils import checks`, `is_fp8_compile_supported` imported by name), in order."""
    bound = {local for local, _dotted, _name, _node in written}
    out: dict[str, None] = {}
    for node in descendants(root, ("call",), lang="python"):
        fn = node.child_by_field_name("function")
        if fn is None:
            continue
        text = _text(fn)
        head = text.split(".", 1)[0]
        if head not in bound or (text != head and (fn.type != "attribute" or text.count(".") != 1)):
            continue
        if _in_test(node):
            out.setdefault(text)
    return list(out)


def _facts_of(spans: list[Span]) -> SpanFacts:
    return tuple(sorted({(sp.start, sp.end, sp.side, sp.line) for sp in spans}))


def _chain(node: ts.Node) -> list[ts.Node] | None:
    """The operands of an `and` chain (parentheses dropped), or None when `node` is not one."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    op = node.child_by_field_name("operator") if node.type == "boolean_operator" else None
    if op is None or op.type != "and":
        return None
    out: list[ts.Node] = []
    for side in ("left", "right"):
        part = node.child_by_field_name(side)
        if part is None:
            return None
        out.extend(_chain(part) or [part])
    return out


Need = tuple[frozenset[str], bool]  # the imported calls a check tests, and whether any one of them suffices


def _needs(root: ts.Node, calls: list[str]) -> tuple[dict[int, Need], dict[tuple[int, tuple[int, int]], Need]]:
    """What a span's check needs of the imported calls it tests, directly or through a name bound to a value that
    makes them (`use_tk = (... and checks.cuda_capability_compare("ge", 9, 0) ...)`, then `if use_tk:`): per line
    of an `if`/`elif`/`while`/conditional expression, and per (line, start) of the right operand of an `and`. An
    `and` chain of calls and such names is true on one build if any one of its calls is CUDA-only; any other test
    needs all the calls it makes to be."""
    spelled = {c: re.compile(r"(?<![\w.])" + re.escape(c) + r"\s*\(") for c in calls}
    bound: dict[str, tuple[set[str], bool]] = {}
    for node in descendants(root, ("assignment",), lang="python"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            value = _text(right)
            found = {c for c, rx in spelled.items() if rx.search(value)}
            name = _text(left)
            if found or name in bound:
                had = bound.get(name)
                chain = _chain(right) is not None or right.type == "call"
                bound[name] = ((had[0] if had else set()) | found, chain if had is None else had[1] and chain)

    def need(test: ts.Node) -> Need:
        text = _text(test)
        got = {c for c, rx in spelled.items() if rx.search(text)}
        anyone = True
        for name, (cs, chain) in bound.items():
            if cs and re.search(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", text):
                got |= cs
                anyone = anyone and chain
        parts = _chain(test) or [test]
        anyone = anyone and all(p.type in ("call", "identifier", "comparison_operator", "attribute") for p in parts) \
            and (len(parts) > 1 or test.type in ("call", "identifier"))
        return frozenset(got), anyone

    lines: dict[int, list[Need]] = {}
    rights: dict[tuple[int, tuple[int, int]], Need] = {}
    for node in descendants(root, ("if_statement", "elif_clause", "while_statement", "conditional_expression",
                                   "boolean_operator"), lang="python"):
        line = node.start_point[0] + 1
        if node.type == "boolean_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                rights[(line, (right.start_point[0] + 1, right.start_point[1] + 1))] = need(left)
            continue
        if node.type == "conditional_expression":
            test = node.named_children[1] if len(node.named_children) == 3 else None
        else:
            test = node.child_by_field_name("condition")
        if test is not None:
            lines.setdefault(line, []).append(need(test))
    merged = {line: ns[0] if len(ns) == 1 else (frozenset().union(*(n[0] for n in ns)), False)
              for line, ns in lines.items()}
    return merged, rights


def _readings(path: str, data: bytes, sf: SourceFile, calls: list[str]) -> list[ImportReading]:
    """The spans the file's imported calls in test positions add when read as CUDA tests, all at once (one reading,
    not one per call), grouped by the calls each span's check tests (_needs; a span no such call is found for needs
    them all): the join keeps a group only when every call of it is CUDA-only."""
    base = set(_facts_of(python_spans(data, path, sf)))
    every = frozenset(calls)
    own = python_spans(data, path, sf, every)
    got = [s for s in _facts_of(own) if s not in base]
    if not got or not any(s[2] == CUDA for s in got):
        return []
    root = sf.root
    assert root is not None
    public = _public_names(root)
    more: list[tuple[tuple[int, int], tuple[int, int], str, int]] = []
    if public:
        seen = base | set(got)
        more = [s for s in _facts_of(python_spans(data, path, sf, every, frozenset(public))) if s not in seen]
    lines, rights = _needs(root, calls)
    groups: dict[tuple[tuple[str, ...], bool], tuple[list[SpanTuple], list[SpanTuple]]] = {}
    for i, spans in enumerate((got, more)):
        for s in spans:
            calls_, anyone = rights.get((s[3], s[0])) or lines.get(s[3]) or (frozenset(), False)
            group = (tuple(sorted(calls_)), anyone) if calls_ else (tuple(sorted(calls)), False)
            groups.setdefault(group, ([], []))[i].append(s)
    out = []
    for (key, anyone), (narrow, wide) in sorted(groups.items()):
        # the public names whose definitions the wider reading's own spans hold: no other module may mention
        # them; a span no such definition starts in asks it of every public name
        held = {n for n, line in public.items() for s in wide if s[0][0] <= line < s[1][0] + 1}
        out.append(ImportReading(key, tuple(narrow), tuple(wide), tuple(sorted(held if held or not wide else public)),
                                 anyone))
    return out


def module_facts(path: str, data: bytes, sf: SourceFile, findings: bool) -> ModuleFacts | None:
    """A Python file's ModuleFacts from the scan's bytes and parse `sf`; `findings`: whether the file has findings
    (only such a file's imports and readings are wanted). None when it holds nothing of use."""
    words = _words(data)
    root = sf.root
    if root is None:
        return ModuleFacts(words=words)
    cuda_only: tuple[str, ...] = ()
    functions: tuple[tuple[str, int, int], ...] = ()
    if b"def " in data:
        functions = _functions(root)
        if _VENDOR_TEST().search(data):
            cuda_only = tuple(sorted(cuda_only_functions(root, data)))
    written: list[tuple[str, str, str, ts.Node]] = []
    uses: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    readings: list[ImportReading] = []
    if findings and b"import" in data:
        written = _written_imports(root)
    if written:
        statements = [node for *_, node in written]
        by_name = {local for local, _dotted, name, _node in written if name}
        found: dict[str, list[tuple[int, int]]] = {}
        for n in descendants(root, ("identifier",), lang="python"):
            text = _text(n)
            if text in by_name and not any(s.start_byte <= n.start_byte < s.end_byte for s in statements):
                found.setdefault(text, []).append((n.start_point[0] + 1, n.start_point[1] + 1))
        uses = sorted((k, tuple(v)) for k, v in found.items())
        calls = _test_calls(root, written)
        if calls:
            readings = _readings(path, data, sf, calls)
    if not (cuda_only or functions or written or words):
        return None
    return ModuleFacts(cuda_only=cuda_only, functions=functions, words=words,
                       imports=tuple((a, b, c) for a, b, c, _ in written), uses=tuple(uses),
                       readings=tuple(readings))


def read_together(facts: Mapping[str, ModuleFacts], targets: Iterable[str],
                  own: Mapping[str, Sequence[Span]] | None = None) -> Joined:
    """The project's imports read for the Python files `targets` (the ones with findings), from every Python file's
    ModuleFacts (`facts`: path -> facts; a file missing from it is one the scan could not read). `own`: each file's
    spans read alone (PortMap.spans); the spans returned are those the imports add to them."""
    targets = [t for t in targets if t in facts and facts[t].readings]  # no reading: nothing to join
    if not targets:
        return Joined({}, {})
    modules = module_paths(sorted(facts))
    sets: dict[str, frozenset[int]] = {}

    def mentioned_elsewhere(name: str, own: set[str]) -> bool:
        key = _crc(name.encode())
        for p, f in facts.items():
            if p in own:
                continue
            if p not in sets:
                sets[p] = frozenset(array("I", base64.b64decode(f.words)))
            if key in sets[p]:
                return True
        return False

    spans: dict[str, list[Span]] = {}
    callers: dict[str, list[tuple[int, int, str]]] = {}
    for path in sorted(set(targets)):
        mine = facts[path]
        found = resolve(mine.imports, path, modules)
        external: set[str] = set()
        for imp in found:
            funcs = facts[imp.path].cuda_only if imp.path in facts else ()
            if imp.name is None:
                external |= {f"{imp.local}.{f}" for f in funcs}
            elif imp.name in funcs:
                external.add(imp.local)
        chosen = [r for r in mine.readings if (r.any_of and not external.isdisjoint(r.calls))
                  or set(r.calls) <= external]
        if not chosen:
            continue
        got: set[SpanTuple] = set()
        for r in chosen:
            got |= set(r.spans)
            if r.public and not any(mentioned_elsewhere(n, {path}) for n in r.defines):
                got |= set(r.public)
        added = [Span(a, b, side, line) for a, b, side, line in sorted(got)]
        spans[path] = added
        cuda = [sp for sp in [*(own or {}).get(path, ()), *added] if sp.side == CUDA]
        where = dict(mine.uses)
        for imp in found:
            if imp.name is None or imp.local in external or imp.path not in facts:
                continue
            holders = [next((sp for sp in cuda if sp.holds(pos)), None) for pos in where.get(imp.local, ())]
            if not holders or any(h is None for h in holders):
                continue
            node = next((f for f in facts[imp.path].functions if f[0] == imp.name), None)
            if node is None or mentioned_elsewhere(imp.name, {path, imp.path}):
                continue
            guard = holders[0]
            assert guard is not None
            callers.setdefault(imp.path, []).append((node[1], node[2], f"{path}:{guard.line}"))
    return Joined(spans, callers)
