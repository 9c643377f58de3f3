"""Pattern kinds for Python source: imports (a module or any submodule of it).

Scanned Python is only parsed with tree-sitter-python, never imported or executed; Python calls are matched by
the `call` kind (porter.match.kinds.code) and `module_call` (porter.match.kinds.library).
"""
from __future__ import annotations

from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile
from porter.source.syntax import index


def match_import(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "python":
        return
    wanted = pattern["import"]
    for node, module in index(sf).imports:
        if any(module == w or module.startswith(w + ".") for w in wanted):
            yield Hit(node.start_byte, node.end_byte, name=module)
