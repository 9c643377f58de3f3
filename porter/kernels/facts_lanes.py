"""Lane and warp-width arithmetic in a kernel body (porter.kernels.facts): `tid % 32`, `lane & kWarpMask`,
shuffle-reduction loops that start at 16, and 32-wide arrays indexed by a lane."""
from __future__ import annotations

import re
from typing import Callable

import tree_sitter as ts

from porter.kernels.constfold import fold
from porter.kernels.facts_vocabulary import LANEISH
from porter.kernels.nodes import walk
from porter.kernels.facts_walk import Walk
from porter.model.kernel import LaneAssumption
from porter.source.parse import Function, unqualified

def lane_expr(n: ts.Node) -> bool:
    text = n.text.decode("utf-8", "replace")
    return bool(re.search(r"%\s*32\b|&\s*(?:31|0x1[fF])\b|laneid|lane_id|\blane\b", text))


def lane_literal(n: ts.Node) -> str | None:
    op = n.child_by_field_name("operator")
    right = n.child_by_field_name("right")
    left = n.child_by_field_name("left")
    if op is None or right is None or left is None or right.type != "number_literal":
        return None
    r = right.text.decode().rstrip("uUlL")
    o = op.type
    kind = None
    if o == "%" and r == "32":
        kind = "% 32"
    elif o == "/" and r == "32":
        kind = "/ 32"
    elif o == "&" and r.lower() in ("31", "0x1f"):
        kind = "& 31"
    elif o == ">>" and r == "5":
        kind = ">> 5"
    if kind and LANEISH.search(left.text.decode("utf-8", "replace")):
        return kind
    return None


_SHFL_WIDTH_32 = re.compile(rb"__shfl\w*\s*\((?:[^();]|\([^()]*\))*,\s*32\s*\)")
# A constant named for the warp (WARP_SIZE, kWarpSize, kWarp, warp_threads, THREADS_PER_WARP)
WARPISH = re.compile(r"warp", re.I)
WARPISH_BYTES = re.compile(rb"(?i)warp")
LANE_VALUES = {"%": (32, "% {}"), "/": (32, "/ {}"), "&": (31, "& {}"), ">>": (5, ">> {}")}


def _warp_constant(ctx, node: ts.Node, want: int) -> str | None:
    """`node`'s name when it is a warp-named constant that folds to `want` in every build (a constant the
    repository defines per build, 32 for CUDA and 64 for ROCm, is already ported: ctx.alternatives)."""
    if node.type not in ("identifier", "qualified_identifier"):
        return None
    name = node.text.decode("utf-8", "replace")
    if not WARPISH.search(name) or unqualified(name) in ctx.alternatives:
        return None
    return name if fold(node, ctx.env) == want else None


def lane_constant(ctx, n: ts.Node) -> str | None:
    """`tid % WARP_SIZE`, `lane & kWarpMask`, `tid / kWarp` with the constant 32 (31 for &, 5 for >>)."""
    op, right, left = n.child_by_field_name("operator"), n.child_by_field_name("right"), n.child_by_field_name("left")
    if op is None or right is None or left is None or op.type not in LANE_VALUES:
        return None
    want, kind = LANE_VALUES[op.type]
    name = _warp_constant(ctx, right, want)
    if name is None or not LANEISH.search(left.text.decode("utf-8", "replace")):
        return None
    return kind.format(f"{name} (= {want})")


def reduction_loop(n: ts.Node, ctx=None) -> str | None:
    """`for (int o = 16; o > 0; o >>= 1)` (or /= 2) around a shuffle: a reduction over 32 lanes; also from a
    warp-size constant the project defines as 32 (`o = WARP_SIZE / 2`)."""
    init = n.child_by_field_name("initializer")
    update = n.child_by_field_name("update")
    if init is None or update is None:
        return None
    m = re.search(r"=\s*(16|32)\b", init.text.decode("utf-8", "replace"))
    start = m.group(1) if m else _warp_start(ctx, init) if ctx is not None else None
    if start is None:
        return None
    u = update.text.decode("utf-8", "replace").replace(" ", "")
    body = n.child_by_field_name("body")
    if not re.search(r">>=1|/=2|=\w+/2|=\w+>>1|<<=1|\*=2", u):
        # upward loops `for (o = 1; o < 32; o <<= 1)` are caught by the `< 32` bound instead
        return None
    if body is not None and b"__shfl" in body.text and not _SHFL_WIDTH_32.search(body.text):
        return f"reduction loop from {start}"
    return None


def _warp_start(ctx, init: ts.Node) -> str | None:
    """The start of a loop initialised from a warp-named constant (`o = WARP_SIZE / 2`) when it folds to 16 or 32
    in every build, spelt as written: "WARP_SIZE / 2 (= 16)"; none when the constant is 64 (a ROCm arm's value)."""
    if not WARPISH_BYTES.search(init.text):  # no warp-named constant in it
        return None
    for d in walk(init, ("init_declarator", "assignment_expression")):
        value = d.child_by_field_name("value") or d.child_by_field_name("right")
        if value is None:
            continue
        ids = [(x, x.text.decode("utf-8", "replace")) for x in walk(value, ("identifier",))]
        names = [name for _, name in ids]
        warp = [x for x, name in ids if WARPISH.search(name)]
        # A warp constant of 64 is the ROCm build's value (no NVIDIA warp has 64 lanes): its arm is what the HIP
        # build compiles, and a loop from 64 / 2 = 32 reduces over all 64 lanes, right on wave64 (DEV017 reports
        # the fixed 64 for wave32 targets).
        if warp and not any(x in ctx.alternatives for x in names) and not any(fold(x, ctx.env) == 64 for x in warp):
            v = fold(value, ctx.env)
            if v in (16, 32):
                return f"{value.text.decode('utf-8', 'replace')} (= {v})"
    return None


def lane_array_index(ctx, fn: Function, w: Walk, skip: Callable[[int], bool] | None = None) -> None:
    """32-wide arrays indexed by a lane (`__shared__ float s[32]; s[lane] = ...`): needs the whole body's lane
    variables, so it runs after the walk; the body's subscripts are read only when it declares such an array
    (most declare none). `skip`: lines (1-based) whose subscripts are left out, as the walk leaves their nodes."""
    arrays32 = ctx._arrays_of_32(fn)
    lane_vars, w.lane_vars = w.lane_vars, set()  # read here only: a finished walk holds none
    if not arrays32:
        return
    for sub in ctx.nodes.under(fn.node.child_by_field_name("body"), ("subscript_expression",)):
        if skip is not None and skip(sub.start_point.row + 1):
            continue
        arg = sub.child_by_field_name("argument")
        idx = sub.child_by_field_name("indices") or (sub.named_children[1] if len(sub.named_children) > 1 else None)
        if arg is None or idx is None or arg.text.decode() not in arrays32:
            continue
        itext = idx.text.decode("utf-8", "replace")
        if any(v in re.findall(r"[A-Za-z_]\w*", itext) for v in lane_vars) or lane_expr(idx):
            w.lane.append(LaneAssumption(sub.start_point.row + 1, "array[32] indexed by lane",
                                            sub.text.decode("utf-8", "replace")))
