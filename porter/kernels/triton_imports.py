"""Follow a Triton kernel's calls into `@triton.jit` functions that other modules of the scanned project define and
its file imports, so their facts count as the kernel's, as a same-file helper's do (porter.kernels.triton).

Triton inlines every jit function a kernel calls, wherever it is written: a kernel whose activation is
`activation_func.gelu(acc)`, with `from pkg.implementations import activation_func` at the top of its file, runs
the `tl.*` calls of `pkg/implementations/activation_func.py`. The scan records each Python file's jit functions
(TritonHelper: their dots, Triton features, line spans and their own calls through their file's imports) and each
kernel's calls through its file's imports (TritonFacts.calls, as import targets); after the scan, kernel analysis
resolves those targets here against the files the scan read and attaches what they reach as TritonFacts.imported.

An import target `a.b.c.f` names the function `f` of the module `a.b.c`: the project's file `.../a/b/c.py` or
`.../a/b/c/__init__.py` (the path's tail, at a directory boundary, so a `src/` layout or a script directory on
`sys.path` resolves too); two or more such files leave the call unresolved unless one of them shares the longest
directory prefix with the calling file (a sibling module, as a script's own directory is first on `sys.path`).
A relative import (`from .x import f`, `from .. import x` then `x.f(...)`) names exactly one path, relative to the
calling file's directory. Only files of the scan are read, so nothing outside the scanned root is followed, nothing
is imported or executed, and a module outside the root (an installed package) resolves to nothing. The walk is
bounded (MAX_DEPTH calls deep, MAX_HELPERS helpers per kernel) and visits each (file, function) once, so import
cycles end.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from porter.model.kernel import ImportedHelper, Kernel, TritonHelper

MAX_DEPTH = 4  # kernel -> a -> b -> c -> d
MAX_HELPERS = 32  # imported helpers merged into one kernel


class ModuleIndex:
    """The project's Python jit functions by file and name, and its Python files by module tail (built once per
    analysis from the scan's FileResults)."""

    def __init__(self, files: Iterable) -> None:
        self.helpers: dict[str, dict[str, TritonHelper]] = {}
        self.paths: set[str] = set()
        # the last component of each Python file's module name (`c` for a/b/c.py and a/b/c/__init__.py) -> paths
        self.by_tail: dict[str, list[str]] = {}
        for r in files:
            if r.language != "python" or not r.path.endswith(".py"):
                continue
            self.paths.add(r.path)
            parts = _module_parts(r.path)
            if parts:
                self.by_tail.setdefault(parts[-1], []).append(r.path)
            if r.triton_helpers:
                self.helpers[r.path] = {h.name: h for h in r.triton_helpers}

    def module_file(self, caller: str, module: str) -> str | None:
        """The project file an import target's module names, from `caller`'s point of view; None when the module
        is not in the scanned project or more than one file could be it."""
        if ":" in module:  # relative: `dir:..pkg.mod`
            here, _, rel = module.partition(":")
            level = len(rel) - len(rel.lstrip("."))
            base = here.split("/") if here else []
            if level - 1 > len(base):
                return None  # above the scanned root
            base = base[:len(base) - (level - 1)]
            parts = base + [p for p in rel[level:].split(".") if p]
            stem = "/".join(parts)
            for candidate in ((stem + ".py") if rel[level:] else None, (stem + "/" if stem else "") + "__init__.py"):
                if candidate is not None and candidate in self.paths:
                    return candidate
            return None
        parts = module.split(".")
        found = [p for p in self.by_tail.get(parts[-1], ()) if _module_parts(p)[-len(parts):] == parts]
        if len(found) <= 1:
            return found[0] if found else None
        # several files could be it: the one nearest the caller (most leading directories in common), if only one
        here = caller.split("/")[:-1]
        near = [(_common(here, p.split("/")[:-1]), p) for p in found]
        best = max(n for n, _ in near)
        closest = [p for n, p in near if n == best]
        return closest[0] if len(closest) == 1 else None

    def resolve(self, caller: str, target: str) -> tuple[str, TritonHelper] | None:
        """The file and jit function an import target (`pkg.mod.f`, `dir:.mod.f`) reaches from `caller`."""
        here, colon, rel = target.rpartition(":")
        dots = len(rel) - len(rel.lstrip("."))
        module, _, name = rel[dots:].rpartition(".")
        if not name or not (module or dots):
            return None  # `f` alone: an absolute import of a module, not of a function
        home = self.module_file(caller, f"{here}{colon}{'.' * dots}{module}")
        if home is None and "." in module:
            # `mod.Class.method`: the module is one part shorter and the class-qualified name is the helper's
            # (porter.kernels.triton exports static-method jit functions under it)
            owner_module, _, owner = module.rpartition(".")
            home = self.module_file(caller, f"{here}{colon}{'.' * dots}{owner_module}")
            name = f"{owner}.{name}"
        if home is None:
            return None
        helper = self.helpers.get(home, {}).get(name)
        if helper is None and home.endswith("__init__.py"):
            return self._from_submodule(home, name)
        return (home, helper) if helper is not None else None

    def _from_submodule(self, init: str, name: str) -> tuple[str, TritonHelper] | None:
        """`pkg.f` where pkg/__init__.py defines no `f`: for the code to run the package must bind `f`, which it does
        by importing it from its modules (`from .util import *`); when exactly one module directly in the package
        defines `f`, that definition is what `pkg.f` names (the package's own import lines are not read)."""
        here = init[:-len("__init__.py")]
        found = [(path, helpers[name]) for path, helpers in self.helpers.items()
                 if name in helpers and path.startswith(here) and "/" not in path[len(here):] and path != init]
        return found[0] if len(found) == 1 else None


def imported_helpers(kernel: Kernel, index: ModuleIndex) -> tuple[ImportedHelper, ...]:
    """The jit functions of other modules a Triton kernel reaches through imports, breadth first, each once, with
    the chain of calls from the kernel and the kernel-file line that starts it."""
    facts = kernel.facts.triton if kernel.facts is not None else None
    if facts is None or not facts.calls:
        return ()
    out: list[ImportedHelper] = []
    seen: set[tuple[str, str]] = set()
    todo = [(kernel.path, target, (target.rpartition(":")[2],), line, 1) for target, line in facts.calls]
    while todo and len(out) < MAX_HELPERS:
        caller, target, chain, call_line, depth = todo.pop(0)
        found = index.resolve(caller, target)
        if found is None:
            continue
        home, helper = found
        if home == kernel.path and helper.name == kernel.name or (home, helper.name) in seen:
            continue
        seen.add((home, helper.name))
        out.append(ImportedHelper(chain, home, helper.spans or ((helper.line, helper.end_line),), call_line,
                                  helper.dots, helper.uses))
        if depth < MAX_DEPTH:
            todo.extend((home, t, chain + (t.rpartition(":")[2],), call_line, depth + 1) for t, _ in helper.calls)
    return tuple(out)


def with_imported(kernel: Kernel, index: ModuleIndex):
    """The kernel's TritonFacts with `imported` set from the index (replaced, so analysing twice gives the same
    facts); the very same object when nothing changes."""
    facts = kernel.facts.triton if kernel.facts is not None else None
    if facts is None:
        return None
    reached = imported_helpers(kernel, index)
    return facts if reached == facts.imported else dataclasses.replace(facts, imported=reached)


def _module_parts(path: str) -> list[str]:
    """`a/b/c.py` -> [a, b, c]; `a/b/__init__.py` -> [a, b]."""
    parts = path[:-3].split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
