"""Read the text a project's own ROCm path rewrites in CUDA source at run time: `str.replace` on kernel source.

A project that compiles CUDA templates at run time (NVRTC/hipRTC, a torch JIT extension) may port them for ROCm by
rewriting their text just before compiling: OpenEquivariance's extension loaders do, under `if torch.version.hip:`,
`kernel.replace("__shfl_down_sync(FULL_MASK,", "__shfl_down(")` and `kernel.replace("__syncwarp();",
"__threadfence_block();")` on every generated kernel
(https://github.com/PASSIONLab/OpenEquivariance/blob/main/openequivariance/openequivariance/_torch/extlib/__init__.py).
The CUDA text such a call replaces, wherever the project's C/C++ sources spell it, is what the ROCm build never
compiles: handled, by the `replace` line.

`rocm_rewrites(root, spans)` reads one Python file's parse: each `.replace(OLD, NEW)` call with two plain string
literals inside a ROCm-side span of a runtime vendor check (porter.portaware.guards). OLD must look like code, not a
word: a call's opening (`name(`), a statement (`...;`) or a `__`-builtin, at least six characters, so
`path.replace("cuda", "hip")` or `name.replace("_", "-")` count for nothing.
"""
from __future__ import annotations

import re
from typing import Iterable

from porter.source.parse_queries import descendants

Pos = tuple[int, int]

# Code, not a word: a call's opening, a statement's end, or a compiler builtin's `__` name.
_CODE = re.compile(r"^\s*(?:__\w+|[A-Za-z_]\w*\s*\(.*|.*;\s*)$", re.S)


def _literal(node) -> str | None:
    """The value of a plain string literal node (no prefix such as f or b, no escape, no interpolation), or None."""
    if node.type != "string":
        return None
    parts = [c for c in node.children if c.type not in ("string_start", "string_end")]
    start = next((c for c in node.children if c.type == "string_start"), None)
    if start is None or start.text.lstrip(b"\"'") or any(c.type != "string_content" for c in parts):
        return None  # a prefixed literal (f"...", b"..."), an interpolation or an escape sequence
    text = b"".join(c.text for c in parts).decode("utf-8", "replace")
    return None if "\\" in text else text


def rocm_rewrites(root, spans: Iterable[tuple[Pos, Pos, str, int]]) -> list[tuple[int, str]]:
    """(line, OLD) of each `x.replace(OLD, NEW)` with literal arguments inside a ROCm-side span (start, end, side,
    check line), OLD looking like code (see above)."""
    rocm = [(a, b) for a, b, side, _line in spans if side == "rocm"]
    if not rocm:
        return []
    out = []
    for node in descendants(root, ("call",), lang="python"):
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None or fn.type != "attribute":
            continue
        attr = fn.child_by_field_name("attribute")
        if attr is None or attr.text != b"replace" or args.named_child_count != 2:
            continue
        old, new = (_literal(a) for a in args.named_children)
        if old is None or new is None or len(old) < 6 or not _CODE.match(old):
            continue
        at = (node.start_point[0] + 1, node.start_point[1] + 1)
        if any(a <= at < b for a, b in rocm):
            out.append((at[0], old))
    return out


def rewritten_at(row: str, column: int, end_column: int | None, rewrites: dict[str, str]) -> str | None:
    """The "path:line" of a rewrite whose OLD text, spelled in `row`, overlaps the finding's columns [column,
    end_column) (1-based; to the row's end when end_column is None), or None."""
    end = end_column - 1 if end_column and end_column > column else len(row)
    for old, where in rewrites.items():
        at = row.find(old)
        while at >= 0:
            if at < end and column - 1 < at + len(old):
                return where
            at = row.find(old, at + 1)
    return None
