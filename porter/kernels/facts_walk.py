"""What one walk of a function body holds (porter.kernels.facts), how the walks of a kernel and its callees merge,
and the KernelFacts fields they give; the text without which a body holds no fact a helper passes on."""
from __future__ import annotations

import dataclasses
import re
from typing import Any

import tree_sitter as ts

from porter.kernels.facts_vocabulary import ASYNC_PTX, CLUSTER_PTX, NVFP4_PTX, TENSOR_CORE_PTX, grouped
from porter.model.kernel import Ballot32, InlinePtx, LaneAssumption, WarpOp, WarpSizeConstant, WaveName


@dataclasses.dataclass
class Walk:
    """What one walk of a function body found, part by part: each detector (porter.kernels.facts_detectors) adds
    to its own parts, in the order it meets their nodes. Mutable while the walk runs; a finished walk is kept per
    function and merged with its callees' (merge_walks) into the KernelFacts fields (body_facts)."""

    calls: set[str] = dataclasses.field(default_factory=set)  # names called, to follow into same-file functions
    shared_decls: list[ts.Node] = dataclasses.field(default_factory=list)  # `__shared__` declarations
    warp_ops: list[WarpOp] = dataclasses.field(default_factory=list)
    lane: list[LaneAssumption] = dataclasses.field(default_factory=list)
    ballot32: list[Ballot32] = dataclasses.field(default_factory=list)
    warpsize_const: list[WarpSizeConstant] = dataclasses.field(default_factory=list)
    wave_names: list[WaveName] = dataclasses.field(default_factory=list)  # wave-size-like names used (facts.WAVE_NAME)
    tensor: set[str] = dataclasses.field(default_factory=set)  # tensor-core features named in code
    # (feature, line) where a WMMA or async-copy feature of `tensor` / `async_copies` is named in code, so a check
    # on it can say where (and port status can read those lines: a ROCm arm's `namespace wmma = rocwmma;`)
    feature_lines: list[tuple[str, int]] = dataclasses.field(default_factory=list)
    ptx: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # inline PTX statements (facts_ptx)
    async_copies: set[str] = dataclasses.field(default_factory=set)  # async-copy features named in code
    clusters: set[str] = dataclasses.field(default_factory=set)
    atomics: list[str] = dataclasses.field(default_factory=list)
    grid_sync: list[int] = dataclasses.field(default_factory=list)  # lines
    device_launches: list[int] = dataclasses.field(default_factory=list)  # lines
    partial_syncwarp: list[int] = dataclasses.field(default_factory=list)  # lines
    identifiers: set[str] = dataclasses.field(default_factory=set)  # file-scope `__shared__` variables named
    libraries: set[str] = dataclasses.field(default_factory=set)  # NVIDIA-only device libraries named
    lane_vars: set[str] = dataclasses.field(default_factory=set)  # for lane_array_index, which empties it
    cute: set[str] = dataclasses.field(default_factory=set)  # CuTe tensor-algebra names
    call_sites: list[tuple[str, int]] = dataclasses.field(default_factory=list)  # (callee as written, line)
    # (kind, line) of code nvcc's front end accepts and clang, which hipcc is, rejects or reads otherwise
    # (porter.kernels.facts_detectors: restrict_on_value)
    clang_differs: list[tuple[str, int]] = dataclasses.field(default_factory=list)
    # (type name, line) of `a * b` / `a / b` on two values of one declared type (facts_detectors.typed_products)
    typed_products: list[tuple[str, int]] = dataclasses.field(default_factory=list)


# Text without which a function body holds none of the facts a helper passes to its callers (HELPER_FACT_KEYS):
# asm, warp intrinsics, WMMA/CuTe/CUTLASS/OptiX names, async copies, clusters, atomics, grid sync, warpSize, lane
# arithmetic with 32/31/5/16. A body without any is walked for its calls alone.
_FACT_WORDS = (b"asm", b"__shfl", b"__ballot", b"__any", b"__all", b"__uni", b"__activemask", b"__syncwarp", b"__match",
               b"__reduce", b"__fns", b"wmma", b"nvcuda", b"cute", b"cutlass", b"async", b"pipeline", b"CUtensorMap",
               b"TmaDesc", b"barrier", b"cluster", b"map_shared_rank", b"atomic", b"grid", b"warpSize",
               b"tiled_partition", b"_CP_ASYNC", b"make_", b"partition", b"retile", b"get_thread_slice", b"Tiled",
               b"_Atom", b"nvshmem", b"nccl", b"optix", b"restrict",
               # texture/surface calls and the rounded arithmetic intrinsics (facts_detectors.clang_reads_otherwise)
               b"tex1D", b"tex2D", b"tex3D", b"texCubemap", b"surf1D", b"surf2D", b"surf3D", b"surfCubemap", b"_rn",
               # wave-size constants (`WARP_SIZE`, `kWarpSize`, `wave_size`): which a ROCm arm fixes at 64 (DEV017)
               # analysis decides, so a helper that only uses one must be walked for it
               b"ARP_SIZE", b"arp_size", b"arpSize", b"arp_Size", b"AVE_SIZE", b"ave_size", b"aveSize",
               b"AVEFRONT_SIZE", b"avefrontSize", b"avefront_size", b"THREADS_PER_WARP")


# ... or a lane constant standing alone (`\b32\b`), spelt literal first and the word boundary before it as a
# lookbehind after it: a leading `\b` keeps sre from skipping ahead to a literal's first byte.
MAY_HOLD_FACTS = re.compile(grouped(_FACT_WORDS)
                            + rb"|3[12](?<!\w3[12])\b|0x1[fF](?<!\w0x1[fF])\b|5(?<!\w5)\b|16(?<!\w16)\b")


# The walk's parts body_facts makes the HELPER_FACT_KEYS of (inline_ptx and the PTX-spelt features from "ptx").
HELPER_WALK_KEYS = ("warp_ops", "lane", "ballot32", "warpsize_const", "wave_names", "tensor", "ptx", "async_copies", "clusters",
                    "atomics", "grid_sync", "device_launches", "partial_syncwarp", "libraries", "cute", "clang_differs",
                    "typed_products")  # (feature_lines goes with `tensor` / `async_copies`: never alone)


def body_facts(merged: Walk, cluster_dims: bool = False) -> dict[str, Any]:
    """The KernelFacts fields walked bodies give, the same for a kernel and for a helper other files' kernels call
    (so a helper's facts merge into its callers field by field): tensor-core, async-copy and cluster features named
    in code or spelled in their PTX. `cluster_dims`: the kernel's declaration carries `__cluster_dims__`."""
    ptx = merged.ptx
    families = sorted({f for s in ptx for f in s["families"]})
    tensor = set(merged.tensor) | {TENSOR_CORE_PTX[f] for f in families if f in TENSOR_CORE_PTX}
    if any(NVFP4_PTX.search(s["text"]) for s in ptx):
        tensor.add("nvfp4-mma")
    asyncs = set(merged.async_copies) | {ASYNC_PTX[f] for f in families if f in ASYNC_PTX}
    clusters = set(merged.clusters) | {CLUSTER_PTX[f] for f in families if f in CLUSTER_PTX}
    if cluster_dims:
        clusters.add("__cluster_dims__")
    return dict(
        warp_ops=tuple(merged.warp_ops),
        lane_assumptions=tuple(merged.lane),
        ballot_32bit=tuple(merged.ballot32),
        warpsize_constant=tuple(merged.warpsize_const),
        wave_names=tuple(sorted(set(merged.wave_names), key=lambda x: (x.line, x.name))),
        tensor_cores=tuple(sorted(tensor)),
        inline_ptx=InlinePtx(len(ptx), tuple(families), tuple(sorted({s["line"] for s in ptx}))),
        async_copies=tuple(sorted(asyncs)),
        clusters=tuple(sorted(clusters)),
        atomics=tuple(sorted(set(merged.atomics))),
        grid_sync=tuple(sorted(set(merged.grid_sync))),
        device_launches=tuple(merged.device_launches),
        partial_syncwarp=tuple(merged.partial_syncwarp),
        cuda_libraries=tuple(sorted(merged.libraries)),
        cute_tensor=tuple(sorted(merged.cute)),
        clang_differs=tuple(sorted(set(merged.clang_differs))),
        typed_products=tuple(sorted(set(merged.typed_products))),
        feature_lines=tuple(sorted(set(merged.feature_lines))),
    )


def merge_walks(walks: list[Walk]) -> Walk:
    """The walks of a kernel and its callees as one: each set part the union, each list part the walks' in order
    (warp operations and lane assumptions then sorted by line)."""
    out = Walk()
    for f in dataclasses.fields(Walk):
        parts = [getattr(w, f.name) for w in walks]
        if isinstance(parts[0], set):
            setattr(out, f.name, set().union(*parts))
        else:
            setattr(out, f.name, [x for part in parts for x in part])
    out.warp_ops.sort(key=lambda x: (x.line, x.op))
    out.lane.sort(key=lambda x: (x.line, x.kind))
    return out
