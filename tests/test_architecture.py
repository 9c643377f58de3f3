"""The package's shape: every module imports, the module import graph has no cycle, and no module imports another
module's private (`_name`) names.

The graph is read from the source with the ast module, so an import inside a function (which Python runs later,
and which is how a cycle usually hides) counts the same as one at the top of the file.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import porter

PACKAGE_DIR = Path(porter.__file__).resolve().parent

# Accepted violations, each with the reason next to it; there are none, and a new one needs a reason to be added.
KNOWN_CYCLES: set[frozenset[str]] = set()
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()  # (importing module, imported module, name)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def imports_of(name: str) -> list[tuple[str, str | None]]:
    """(porter module imported, name taken from it or None) for every import statement anywhere in the module."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((a.name, None) for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in MODULES:
                    out.append((sub, None))  # `from pkg import module`
                    if base in MODULES:
                        out.append((base, None))
                elif base in MODULES:
                    out.append((base, a.name))
    return out


def graph() -> dict[str, set[str]]:
    return {name: {target for target, _ in imports_of(name) if target != name} for name in MODULES}


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan), each one a cycle or a knot of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"porter.__main__"}))  # __main__ runs the CLI when imported
def test_every_module_imports(name):
    assert importlib.import_module(name).__name__ == name


def test_module_import_graph_has_no_cycle():
    found = set(cycles(graph()))
    assert found - KNOWN_CYCLES == set(), sorted(sorted(c) for c in found - KNOWN_CYCLES)
    assert KNOWN_CYCLES - found == set(), "a known cycle is gone: delete it from KNOWN_CYCLES"


def test_no_module_imports_a_private_name_from_another():
    found = {(name, target, taken) for name in MODULES for target, taken in imports_of(name)
             if taken is not None and taken.startswith("_") and not taken.startswith("__")}
    found |= {(name, target, target.rpartition(".")[2]) for name in MODULES for target, taken in imports_of(name)
              if taken is None and target.rpartition(".")[2].startswith("_") and not target.endswith("__init__")
              and not target.rpartition(".")[2].startswith("__")}
    assert found - KNOWN_PRIVATE_IMPORTS == set(), sorted(found - KNOWN_PRIVATE_IMPORTS)
    assert KNOWN_PRIVATE_IMPORTS - found == set(), "a known private import is gone: delete it from the list"


def test_cycle_finder_sees_a_function_level_cycle():
    # The detector itself: a -> b at the top and b -> a inside a function is one cycle; c alone is none.
    assert cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [frozenset({"a", "b"})]
