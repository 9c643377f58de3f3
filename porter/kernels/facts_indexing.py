"""The block size a kernel's own indexing assumes (porter.kernels.facts): `blockIdx.x * C + threadIdx.x` with C a
constant is one element per thread of blocks of exactly C threads, whatever launches it (RELION's
`bid * SUMW_BLOCK_SIZE + tid`, its launches outside the scanned tree). Read only for 1-D kernels that never read
blockDim (one that does sizes itself by the launch), and only used where no launch gives the block size."""
from __future__ import annotations

from typing import Any

import tree_sitter as ts

from porter.kernels.constfold import Unknown, fold
from porter.kernels.nodes import NodeIndex

_BLOCK, _THREAD = "blockIdx.x", "threadIdx.x"


def _strip(n: ts.Node | None) -> ts.Node | None:
    """The expression under parentheses and casts (`(long)(bid)` is `bid`)."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.child_by_field_name("value") if n.type == "cast_expression" else (
            n.named_children[0] if n.named_children else None)
    return n


def _aliases(body: ts.Node, nodes: NodeIndex) -> dict[str, str]:
    """Locals initialised from blockIdx.x or threadIdx.x and never written again (`int bid = blockIdx.x;`)."""
    written: set[str] = set()
    for n in nodes.under(body, ("assignment_expression", "update_expression")):
        target = n.child_by_field_name("left" if n.type == "assignment_expression" else "argument")
        if target is not None and target.type == "identifier":
            written.add(target.text.decode())
    out: dict[str, str] = {}
    for d in nodes.under(body, ("init_declarator",)):
        name, value = d.child_by_field_name("declarator"), _strip(d.child_by_field_name("value"))
        if name is None or name.type != "identifier" or value is None or name.text.decode() in written:
            continue
        text = b"".join(value.text.split()).decode("utf-8", "replace")
        if text in (_BLOCK, _THREAD):
            out[name.text.decode()] = text
    return out


def _role(n: ts.Node | None, aliases: dict[str, str]) -> str | None:
    n = _strip(n)
    if n is None:
        return None
    text = b"".join(n.text.split()).decode("utf-8", "replace")
    return text if text in (_BLOCK, _THREAD) else aliases.get(text) if n.type == "identifier" else None


def indexed_block(body: ts.Node | None, env: Any, nodes: NodeIndex) -> tuple[int, int] | None:
    """(C, line) for the kernel body's `blockIdx.x * C + threadIdx.x` (either order, through aliases), or None:
    no such index, C not a constant, two different C, a 2-D/3-D kernel, or one that reads blockDim."""
    if body is None or b"blockIdx" not in body.text or b"threadIdx" not in body.text:
        return None
    if any(w in body.text for w in (b"threadIdx.y", b"threadIdx.z", b"blockDim")):
        return None
    aliases = _aliases(body, nodes)
    found: dict[int, int] = {}
    for n in nodes.under(body, ("binary_expression",)):
        op = n.child_by_field_name("operator")
        if op is None or op.type != "+":
            continue
        left, right = _strip(n.child_by_field_name("left")), _strip(n.child_by_field_name("right"))
        for thread, product in ((right, left), (left, right)):
            if _role(thread, aliases) != _THREAD or product is None or product.type != "binary_expression":
                continue
            pop = product.child_by_field_name("operator")
            if pop is None or pop.type != "*":
                continue
            a, b = product.child_by_field_name("left"), product.child_by_field_name("right")
            for block, size in ((a, b), (b, a)):
                if _role(block, aliases) == _BLOCK:
                    v = fold(size, env)
                    if isinstance(v, int) and not isinstance(v, bool) and v > 0 and not isinstance(v, Unknown):
                        found.setdefault(v, n.start_point.row + 1)
    if len(found) != 1:
        return None
    ((size, line),) = found.items()
    return size, line
