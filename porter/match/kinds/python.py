"""Pattern kinds for Python source: imports (a module or any submodule of it) and calls by dotted name.

Scanned Python is only parsed with tree-sitter-python, never imported or executed.
"""
from __future__ import annotations

from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile, captures

_IMPORTS = """
(import_statement name: (dotted_name) @m)
(import_statement name: (aliased_import name: (dotted_name) @m))
(import_from_statement module_name: (dotted_name) @m)
"""


def imports(sf: SourceFile) -> list:
    """(node, dotted module name) for every absolute import in a Python file, in order."""
    if "imports" not in sf.cache:
        nodes = captures("python", _IMPORTS, sf.root).get("m", []) if sf.root is not None else []
        sf.cache["imports"] = sorted(((n, n.text.decode("utf-8", "replace")) for n in nodes), key=lambda x: x[0].start_byte)
    return sf.cache["imports"]


def python_calls(sf: SourceFile) -> list:
    """(function node, dotted callee text with whitespace removed, call node) for every Python call."""
    if "pycalls" not in sf.cache:
        out = []
        if sf.root is not None:
            for call in captures("python", "(call) @c", sf.root).get("c", []):
                fn = call.child_by_field_name("function")
                if fn is None or fn.type not in ("identifier", "attribute"):
                    continue
                out.append((fn, "".join(fn.text.decode("utf-8", "replace").split()), call))
        sf.cache["pycalls"] = sorted(out, key=lambda x: x[0].start_byte)
    return sf.cache["pycalls"]


def match_import(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "python":
        return
    wanted = pattern["import"]
    for node, module in imports(sf):
        if any(module == w or module.startswith(w + ".") for w in wanted):
            yield Hit(node.start_byte, node.end_byte, name=module)


MATCHERS = {"import": match_import}
