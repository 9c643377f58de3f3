"""The package's shape: every module imports, the module import graph has no cycle, and no module imports another
module's private (`_name`) names.

The graph is read from the source with the ast module, so an import inside a function (which Python runs later,
and which is how a cycle usually hides) counts the same as one at the top of the file.
"""
from __future__ import annotations

import ast
import functools
import gc
import importlib
import re
from pathlib import Path

import pytest

import porter
from porter.cache import collector_paused

PACKAGE_DIR = Path(porter.__file__).resolve().parent

# Accepted violations, each with the reason next to it; there are none, and a new one needs a reason to be added.
KNOWN_CYCLES: set[frozenset[str]] = set()
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()  # (importing module, imported module, name)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


@functools.lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once while tests need it (_trees_released, porter_trees): five checks here and
    three in other modules walk every module (read, never changed).
    Parsed with the cycle collector paused: the trees are acyclic, and in a test process holding the session's
    warm state each collection the parse triggered walked all of that again (the parses took ten times longer).
    Then frozen (gc.freeze): otherwise the collections after the parse walked each new tree again, young, middle and
    old generation in turn (0.9 s of the import-graph check alone); being acyclic, a dropped tree is still freed."""
    with collector_paused():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        gc.freeze()
        return tree


def release_trees() -> None:
    """Drop the parsed trees (~100 MB for porter's modules) once no test needs them, so the tests after reuse that
    memory instead of the process growing past it: a test process forks budgeted workers for the rest of the run,
    and a fork costs more the larger the process (a small scan forked from a process holding the trees: 71-82 ms of
    CPU; 59-66 ms from one that never parsed them). Python keeps most of the freed memory resident (a test worker:
    179 -> 170 MB), so this bounds the growth; it does not undo it."""
    parsed.cache_clear()
    imports_of.cache_clear()


@pytest.fixture(scope="module", autouse=True)
def _trees_released():
    """This module's checks share the trees; they go when its last test has run."""
    yield
    release_trees()


@pytest.fixture
def porter_trees():
    """`parsed` for a test of another module that walks every porter module (MODULES), the trees dropped after it."""
    yield parsed
    release_trees()


@functools.lru_cache(maxsize=None)
def imports_of(name: str) -> tuple[tuple[str, str | None], ...]:
    """(porter module imported, name taken from it or None) for every import statement anywhere in the module
    (walked once per process: the graph and the private-name checks each ask for every module's)."""
    path = MODULES[name]
    tree = parsed(path)
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
    return tuple(out)


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


# -- every path a scanned repository influences is opened through porter.contain (issue 25) -------------------------

# Calls that open, list or write a path: the builtin open, os.open/scandir/walk/listdir, glob.glob, and the pathlib
# methods that do the same (matched by attribute name: a false match only makes an entry here necessary).
FILE_ACCESS_ATTRS = {"read_bytes", "read_text", "write_bytes", "write_text", "iterdir", "glob", "rglob", "scandir",
                     "walk", "listdir", "open"}
# Each place outside porter.contain that opens a path by other means, and why no repository influences that path.
# A new one fails the test: route it through porter.contain, or add it here with the reason it is not repository-
# influenced. An entry whose call is gone fails too, so the list stays true.
DIRECT_FILE_ACCESS: dict[tuple[str, str, str], str] = {
    ("porter.cache", "Cache._packs", "os.scandir"): "the cache directory (the user's, never inside the scanned tree)",
    ("porter.budget", "_limit_memory", "open"): "the worker's own /proc/self/status",
    ("porter.budget", "_resident_bytes", "open"): "/proc/PID/statm of a worker porter has just forked",
    ("porter.cache", "installation_secret", "os.open"): "the per-installation key in the user's cache directory",
    ("porter.source.read", "WorkTree.names_under", "os.scandir"): "a build file's glob (CMake file(GLOB), a Make "
    "pattern rule) resolved under the scanned root: names only, no symlink entered, realpath checked inside the root",
    ("porter.source.discover", "_walk_files", "os.scandir"): "discovery's own walk of the scanned root: names only, "
                                                             "symlinked directories listed, never entered; every "
                                                             "read of what it lists goes through porter.contain",
    ("porter.fleet.inventory", "from_directory", "os.scandir"): "the directory of clones the user names: names "
                                                                "only; each clone is then cloned into porter's cache "
                                                                "and read from git objects",
    ("porter.translate.write", "undo_in_place", ".iterdir"): "the backup folder, after contain.real_directory "
                                                             "(each run lstat'ed, never followed)",
    ("porter.packfile", "open_pack", "os.open"): "a pack in the cache directory, read through a bounds-checked index",
    ("porter.packfile", "_temporary", "os.open"): "a new pack written in the cache directory (O_EXCL)",
    ("porter.classcode", "_load", ".read_bytes"): "porter's own dataclass code, kept beside its bytecode",
    ("porter.comment", "pr_number_from_event", ".read_text"): "$GITHUB_EVENT_PATH, written by the CI runner",
    ("porter.datafile", "_parsed", ".read_bytes"): "porter's own schemas/validated.parsed.tsv",
    ("porter.datafile", "parsed_entries", ".glob"): "porter's own data directory (scripts/validated_manifest.py)",
    ("porter.datafile", "parsed_entries", ".read_bytes"): "porter's own data directory (scripts/validated_manifest.py)",
    ("porter.kb", "_data_lines", ".read_text"): "porter's own knowledge base",
    ("porter.kb", "_load_api", ".glob"): "porter's own knowledge base",
    ("porter.kb", "_api_fields", ".read_text"): "porter's own knowledge base",
    ("porter.kernels.deep", "_candidates", "glob.glob"): "the system's /usr/lib/llvm-* (finding libclang)",
    ("porter.kernels.deep", "setup", ".write_text"): "porter's private temporary directory of shim headers",
    ("porter.kernels.deep", "_sweep_trees", "os.listdir"): "the system's temporary directory (git-tree copies of "
                                                           "killed runs)",
    ("porter.kernels.deep", "_tree_of", ".write_bytes"): "a git tree's C/C++ files, from the bytes the scan holds "
                                                          "(or git objects), into deep mode's private temporary tree",
    ("porter.kernels.deep", "_Scanner.run", ".write_bytes"): "a copy in deep mode's private sandbox (read through "
                                                             "porter.contain)",
    ("porter.pipeline", "code_digest", ".rglob"): "porter's own package (the code digest)",
    ("porter.pipeline", "code_digest", ".read_bytes"): "porter's own package (the code digest)",
    ("porter.rulecatalog", "fixture_for", ".glob"): "porter's own fixtures",
    ("porter.datafile", "rule_files", ".rglob"): "porter's own rules, or a directory the user names (a repository's "
                                                 "rules directories are expanded file by file in porter.settings)",
    ("porter.runcache", "_files", "os.scandir"): "porter's own package and data (their stat signatures)",
    ("porter.runcache", "named_files", ".rglob"): "a rules directory the user names (a repository's are expanded "
                                                  "file by file in porter.settings)",
    ("porter.schemas", "schema", ".read_text"): "porter's own schemas",
    ("porter.targets", "_profile_files", ".iterdir"): "porter's own profiles, or a directory the user names "
                                                      "(a repository's profiles are contained in porter.settings)",
    ("porter.targets", "_parse", ".walk"): "not a file: a jsonschema error path",
    ("porter.match.refine_capability", "_capability_tests", ".walk"): "not a file: ast.walk over a function's "
                                                                        "syntax tree (the FP8-threshold reader)",
    ("porter.match.refine_capability", "_capability_tests.reads_capability", ".walk"): "not a file: ast.walk over "
                                                                                         "an expression",
    ("porter.translate.engines.hipify", "HipifyClangEngine.run_one", ".read_bytes"): "hipify's output in porter's "
                                                                                      "own temporary directory",
    ("porter.translate.verify", "supports", ".write_bytes"): "a probe file in porter's own temporary directory",
    ("porter.translate.write", "check_outdir", ".iterdir"): "the output directory the user names",
    ("porter.translate.write", "_test_pause", ".write_text"): "the test hook's marker (an environment variable)",
    ("porter.translate.write", "_write_synced", "open"): "a file in the backup run directory porter just created "
                                                         "(mkdir exist_ok=False inside a contained backup folder)",
    ("porter.validated", "current_entries", ".glob"): "porter's own data and schemas",
    ("porter.validated", "current_entries", ".read_bytes"): "porter's own data and schemas",
    ("porter.validated", "_manifest", ".read_text"): "porter's own validated manifest",
    ("porter.validated", "_schemas_validated", ".glob"): "porter's own schemas",
    ("porter.validated", "_schemas_validated", ".read_bytes"): "porter's own schemas",
}


def file_access(name: str) -> set[tuple[str, str, str]]:
    """(module, enclosing function or class.method, call kind) of every call in the module that opens, lists or
    writes a path by a means other than porter.contain."""
    tree = parsed(MODULES[name])
    found: set[tuple[str, str, str]] = set()

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope + (child.name,) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                ast.ClassDef)) else scope
            if isinstance(child, ast.Call):
                kind = _access_kind(child.func)
                if kind is not None:
                    found.add((name, ".".join(scope) or "<module>", kind))
            visit(child, inner)

    visit(tree, ())
    return found


def _access_kind(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return "open" if func.id == "open" else None
    if not isinstance(func, ast.Attribute) or func.attr not in FILE_ACCESS_ATTRS:
        return None
    base = func.value
    if isinstance(base, ast.Name) and base.id == "contain":
        return None  # the choke point itself
    if isinstance(base, ast.Name) and base.id in ("os", "io", "glob"):
        return f"{base.id}.{func.attr}"
    if func.attr == "open":
        return None  # x.open(...) on something other than os/io: git.Repo, tarfile members (none open a path here)
    return "." + func.attr


def test_repository_paths_are_opened_only_through_contain():
    found = set().union(*(file_access(n) for n in MODULES if n != "porter.contain"))
    assert found - set(DIRECT_FILE_ACCESS) == set(), sorted(found - set(DIRECT_FILE_ACCESS))
    assert set(DIRECT_FILE_ACCESS) - found == set(), "an allowed direct access is gone: delete it from the list"


def test_the_file_access_finder_sees_each_kind():
    src = ("import os\nfrom porter import contain\ndef f(p):\n    open(p)\n    p.read_bytes()\n    os.scandir(p)\n"
           "    contain.read_bytes(p, 1)\nclass C:\n    def m(self, p):\n        p.rglob('*')\n")
    tree = ast.parse(src)
    calls = [(n.func, n.lineno) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert sorted((line, _access_kind(f)) for f, line in calls) == [
        (4, "open"), (5, ".read_bytes"), (6, "os.scandir"), (7, None), (10, ".rglob")]


# ------------------------------------------------------------------------------------------ one preprocessor reader

PREPROCESSOR = "porter.source.preprocessor"
# A string that reads conditional directives: a regex for `#if`/`#ifdef`/`#elif`/`#else`/`#endif`, or tree-sitter's
# names for their nodes. Docstrings are prose and not searched.
_KEYWORD = r"(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)"
DIRECTIVE_READER = re.compile(rf"{_KEYWORD}\|{_KEYWORD}\b"  # an alternation of directive keywords
                              rf"|#(?:\[ \\t\]\*|\\s\*| \*|\\s\+|\[ \\t\]\+)\(?(?:\?:)?{_KEYWORD}\b"  # `#[ \t]*if`, `#\s*(?:endif`
                              r"|preproc_(?:if|ifdef|elif|elifdef|else)\b")  # tree-sitter's directive nodes
# Accepted readers, each with its reason.
OTHER_DIRECTIVE_READERS = {
    # translate rewrites the text of condition lines in its own output (a header-guard name for HIP's); it asks no
    # question of the scanned file's arms.
    "porter.translate.fixups",
    # port-awareness reads GNU make's own conditionals (`ifeq`/`ifdef`/`endif` in a Makefile) and a shell script's
    # `if`/`elif`/`fi` (shell_vendor_arms), never C's directives.
    "porter.portaware.scope",
    # CMake's if()/elseif()/else()/endif() commands, never C's directives.
    "porter.source.cmake_conditions",
}


def directive_readers(name: str) -> set[int]:
    """Lines of the module's string constants (not docstrings) that read conditional directives."""
    tree = parsed(MODULES[name])
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and id(n) not in docs:
            text = n.value.decode("latin-1") if isinstance(n.value, bytes) else n.value
            if DIRECTIVE_READER.search(text):
                out.add(n.lineno)
    return out


def test_only_the_preprocessor_reads_directives():
    readers = {n for n in MODULES if n != PREPROCESSOR and directive_readers(n)}
    assert readers - OTHER_DIRECTIVE_READERS == set(), sorted(readers - OTHER_DIRECTIVE_READERS)
    assert OTHER_DIRECTIVE_READERS - readers == set(), "an accepted reader is gone: delete it from the list"
    assert directive_readers(PREPROCESSOR), "the preprocessor's own lexer must be seen by the finder"


def test_the_directive_reader_finder_sees_regexes_and_node_names(tmp_path):
    src = ('"""A docstring about #ifdef USE_ROCM is prose."""\nimport re\n'
           'A = re.compile(rb"#[ \\t]*(if|ifdef|elif|else|endif)\\b")\n'  # 3
           'B = ("preproc_if", "preproc_ifdef")\n'  # 4
           'C = "a #pragma once, an #if condition"\n'
           'D = re.compile(r"#\\s*endif")\n')  # 6
    path = tmp_path / "m.py"
    path.write_text(src)
    MODULES["tmp.m"] = path
    try:
        assert directive_readers("tmp.m") == {3, 4, 6}
    finally:
        del MODULES["tmp.m"]


def _reaches_into_private_methods(tree: ast.AST) -> list[str]:
    """`self.<held>._private(...)` calls: an object calling a private method of an object it holds."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            held = node.func.value
            if (node.func.attr.startswith("_") and not node.func.attr.startswith("__")
                    and isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name)
                    and held.value.id == "self"):
                out.append(f"{ast.unparse(node.func)} (line {node.lineno})")
    return out


def test_no_object_calls_a_private_method_of_an_object_it_holds():
    # history's points called its GitTree's _link_target: the held object gives a public method instead.
    found = {name: hits for name in MODULES if (hits := _reaches_into_private_methods(parsed(MODULES[name])))}
    assert found == {}
    assert _reaches_into_private_methods(ast.parse("class A:\n def f(self):\n  return self.source._link_target(1)\n")) \
        == ["self.source._link_target (line 3)"]
