"""What one walk of a function body holds (porter.kernels.facts), how the walks of a kernel and its callees merge,
and the KernelFacts fields they give; the text without which a body holds no fact a helper passes on."""
from __future__ import annotations

import re
from typing import Any

from porter.kernels.facts_vocabulary import ASYNC_PTX, CLUSTER_PTX, NVFP4_PTX, TENSOR_CORE_PTX, grouped
from porter.model.kernel import InlinePtx

def empty_walk() -> dict[str, Any]:
    return {"calls": set(), "shared_decls": [], "warp_ops": [], "lane": [], "ballot32": [], "warpsize_const": [],
            "tensor": set(), "ptx": [], "async": set(), "clusters": set(), "atomics": [], "grid_sync": [],
            "device_launches": [], "partial_syncwarp": [], "identifiers": set(),
            "libraries": set(), "lane_vars": set(), "cute": set(), "call_sites": []}


# Text without which a function body holds none of the facts a helper passes to its callers (HELPER_FACT_KEYS):
# asm, warp intrinsics, WMMA/CuTe/CUTLASS names, async copies, clusters, atomics, grid sync, warpSize, lane
# arithmetic with 32/31/5/16. A body without any is walked for its calls alone.
_FACT_WORDS = (b"asm", b"__shfl", b"__ballot", b"__any", b"__all", b"__uni", b"__activemask", b"__syncwarp", b"__match",
               b"__reduce", b"__fns", b"wmma", b"nvcuda", b"cute", b"cutlass", b"async", b"pipeline", b"CUtensorMap",
               b"TmaDesc", b"barrier", b"cluster", b"map_shared_rank", b"atomic", b"grid", b"warpSize",
               b"tiled_partition", b"_CP_ASYNC", b"make_", b"partition", b"retile", b"get_thread_slice", b"Tiled",
               b"_Atom")



# ... or a lane constant standing alone (`\b32\b`), spelt literal first and the word boundary before it as a
# lookbehind after it: a leading `\b` keeps sre from skipping ahead to a literal's first byte.
MAY_HOLD_FACTS = re.compile(grouped(_FACT_WORDS)
                             + rb"|3[12](?<!\w3[12])\b|0x1[fF](?<!\w0x1[fF])\b|5(?<!\w5)\b|16(?<!\w16)\b")


# The walk's parts body_facts makes the HELPER_FACT_KEYS of (inline_ptx and the PTX-spelt features from "ptx").
HELPER_WALK_KEYS = ("warp_ops", "lane", "ballot32", "warpsize_const", "tensor", "ptx", "async", "clusters", "atomics",
                     "grid_sync", "device_launches", "partial_syncwarp", "libraries", "cute")


def body_facts(merged: dict[str, Any], cluster_dims: bool = False) -> dict[str, Any]:
    """The KernelFacts fields walked bodies give, the same for a kernel and for a helper other files' kernels call
    (so a helper's facts merge into its callers field by field): tensor-core, async-copy and cluster features named
    in code or spelled in their PTX. `cluster_dims`: the kernel's declaration carries `__cluster_dims__`."""
    ptx = merged["ptx"]
    families = sorted({f for s in ptx for f in s["families"]})
    tensor = set(merged["tensor"]) | {TENSOR_CORE_PTX[f] for f in families if f in TENSOR_CORE_PTX}
    if any(NVFP4_PTX.search(s["text"]) for s in ptx):
        tensor.add("nvfp4-mma")
    asyncs = set(merged["async"]) | {ASYNC_PTX[f] for f in families if f in ASYNC_PTX}
    clusters = set(merged["clusters"]) | {CLUSTER_PTX[f] for f in families if f in CLUSTER_PTX}
    if cluster_dims:
        clusters.add("__cluster_dims__")
    return dict(
        warp_ops=tuple(merged["warp_ops"]),
        lane_assumptions=tuple(merged["lane"]),
        ballot_32bit=tuple(merged["ballot32"]),
        warpsize_constant=tuple(merged["warpsize_const"]),
        tensor_cores=tuple(sorted(tensor)),
        inline_ptx=InlinePtx(len(ptx), tuple(families), tuple(sorted({s["line"] for s in ptx}))),
        async_copies=tuple(sorted(asyncs)),
        clusters=tuple(sorted(clusters)),
        atomics=tuple(sorted(set(merged["atomics"]))),
        grid_sync=tuple(sorted(set(merged["grid_sync"]))),
        device_launches=tuple(merged["device_launches"]),
        partial_syncwarp=tuple(merged["partial_syncwarp"]),
        cuda_libraries=tuple(sorted(merged["libraries"])),
        cute_tensor=tuple(sorted(merged["cute"])),
    )


def merge_walks(walks: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in walks[0]:
        if isinstance(walks[0][key], set):
            out[key] = set().union(*(w[key] for w in walks))
        else:
            out[key] = [x for w in walks for x in w[key]]
    out["warp_ops"].sort(key=lambda x: (x.line, x.op))
    out["lane"].sort(key=lambda x: (x.line, x.kind))
    return out
