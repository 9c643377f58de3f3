"""The names kernel measurement looks for (porter.kernels.facts): warp operations, PTX families and what they mean,
async-copy, cluster, WMMA and CuTe names, the SM-count APIs, and the regex helper that groups such word lists."""
from __future__ import annotations

import re
from typing import Iterable

from porter.kernels import ptx as ptx_table

WARP_OPS = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__shfl", "__shfl_up", "__shfl_down",
    "__shfl_xor", "__ballot_sync", "__ballot", "__all_sync", "__any_sync", "__uni_sync", "__all", "__any",
    "__activemask", "__syncwarp", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__fns",
})
BALLOTS = frozenset({"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"})
FULL_MASK_32 = 0xFFFFFFFF
# A kernel's opt-in to more dynamic shared memory than CUDA's 48 KiB default: the setters and the attribute's names
# (runtime `cudaFuncAttributeMaxDynamicSharedMemorySize`, driver `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`),
# one table for the facts that measure it, the `shared_opt_in` pattern kind and the verdicts that read its findings.
OPT_IN_SETTERS = frozenset({"cudaFuncSetAttribute", "cuFuncSetAttribute"})
OPT_IN_ATTRIBUTES = ("MaxDynamicSharedMemorySize", "MAX_DYNAMIC_SHARED_SIZE_BYTES")
# PTX instruction families: the PTX table's (rules/kb/ptx.yaml, porter.kernels.ptx) and the ones facts below map
# to tensor-core, async and cluster features; an instruction's family is the longest dotted prefix among them, so
# `cp.async.bulk.tensor` wins over `cp.async` and `ld.global.nc` over `ld`.
PTX_FAMILIES = sorted(ptx_table.family_names() | {
    "cp.async.bulk.tensor", "cp.async.bulk", "cp.async", "cp.reduce.async.bulk", "mma.sync", "mma.sp", "wgmma", "tcgen05",
    "ldmatrix", "stmatrix", "movmatrix", "mbarrier", "setmaxnreg", "fence.proxy.async", "elect.sync", "griddepcontrol",
    "multimem", "red", "atom", "shfl.sync", "vote", "bar", "barrier.cluster", "mapa", "getctarank", "ld", "st", "mov",
    "cvt", "prmt", "lop3", "fma", "add", "mul", "mad", "min", "max", "membar", "fence", "prefetch", "activemask",
    "redux.sync", "match.sync", "nanosleep", "clusterlaunchcontrol",
}, key=len, reverse=True)


TENSOR_CORE_PTX = {"mma.sync": "mma.sync", "mma.sp": "mma.sp", "wgmma": "wgmma", "tcgen05": "tcgen05", "ldmatrix": "ldmatrix",
                   "stmatrix": "stmatrix"}
# Plain `cp.async` (SM80) is not here: it is a synchronous copy into LDS on AMD, a fix the PTX table names; the
# bulk / tensor copies and their barriers have no such equivalent.
ASYNC_PTX = {"cp.async.bulk": "cp.async.bulk", "cp.async.bulk.tensor": "tma",
             "cp.reduce.async.bulk": "cp.async.bulk", "mbarrier": "mbarrier", "fence.proxy.async": "tma"}
CLUSTER_PTX = {"barrier.cluster": "cluster-barrier", "mapa": "dsmem", "getctarank": "dsmem"}
ASYNC_IDENTIFIERS = {
    "memcpy_async": "memcpy_async", "__pipeline_memcpy_async": "pipeline", "pipeline": "pipeline",
    "make_pipeline": "pipeline", "__pipeline_commit": "pipeline", "__pipeline_wait_prior": "pipeline",
    "CUtensorMap": "tma", "cp_async_bulk_tensor_1d_global_to_shared": "tma", "cp_async_bulk_tensor_2d_global_to_shared": "tma",
    "cp_async_bulk_tensor_3d_global_to_shared": "tma", "cp_async_bulk_tensor_2d_shared_to_global": "tma",
    "fence_proxy_async_shared_cta": "tma", "barrier": "cuda::barrier", "barrier_arrive_tx": "mbarrier",
    "cudaTmaDesc": "tma", "CUtensorMap_st": "tma",
    # CuTe's / CUTLASS's spellings of the SM80 async copy (cp.async.commit_group / wait_group).
    "cp_async_fence": "cp.async", "cp_async_wait": "cp.async", "SM80_CP_ASYNC_CACHEALWAYS": "cp.async",
    "SM80_CP_ASYNC_CACHEGLOBAL": "cp.async",
}
CLUSTER_IDENTIFIERS = {"this_cluster": "cluster_group", "cluster_group": "cluster_group", "map_shared_rank": "dsmem",
                       "__cluster_dims__": "__cluster_dims__", "cluster_sync": "cluster-barrier",
                       "cudaLaunchAttributeClusterDimension": "cluster-launch"}
WMMA_IDENTIFIERS = frozenset({"wmma", "nvcuda"})
# C++ namespaces of NVIDIA-only device libraries (no ROCm build): a kernel that names them needs porting off them.
CUDA_ONLY_NAMESPACES = {"cutlass": "cutlass", "cute": "cute"}
# GPU-initiated communication from device code, by library (porter.kernels.checks, rules/kb/kernel_checks.yaml):
# NVSHMEM's device API (`nvshmem_*`, `nvshmemx_*`, and the IBGDA internals `nvshmemi_ibgda_*` that DeepEP-style code
# calls directly) has rocSHMEM counterparts (a fix for a kernel that waits or synchronises; one that moves data over
# it, NVSHMEM_RMA below, is a transport redesign, as the judged sets read DeepEP and pplx-kernels); NCCL's device API (device
# communicator, windows, GIN requests) has none on ROCm, where RCCL's collectives are host-initiated (a redesign).
# The NCCL names are the device API's types, which a kernel holds in its parameters even when its calls go through
# the project's own wrapper.
DEVICE_COMM_NVSHMEM = "nvshmem"
DEVICE_COMM_NVSHMEM_RMA = "nvshmem-rma"
DEVICE_COMM_NCCL = "nccl-device"
DEVICE_COMM = frozenset({DEVICE_COMM_NVSHMEM, DEVICE_COMM_NVSHMEM_RMA, DEVICE_COMM_NCCL})
# NVSHMEM device calls that move data to or from another PE (puts, gets, single-element p/g, remote signals and
# atomics, IBGDA's RDMA and AMO internals), by the word after the library prefix: a kernel built on them is a
# transport (MoE dispatch/combine over per-warp RDMA), not a kernel that waits on a flag or a barrier.
NVSHMEM_RMA = re.compile(r"(?:nvshmemx?|nvshmemi_ibgda)_(?:\w+_)?(?:put|get|iput|iget|putmem|getmem|p|g|signal_op|"
                         r"atomic|amo|rma)(?:_|$)")
NCCL_DEVICE_TYPES = frozenset({"ncclDevComm", "ncclDevComm_t", "ncclWindow_t", "ncclGin", "ncclGinRequest_t",
                               "ncclTeam", "ncclTeam_t", "ncclLsaBarrierSession", "ncclGinBarrierSession"})


# OptiX device programs: NVIDIA's ray-tracing API, whose programs (`__raygen__*`, `__anyhit__*`, `__closesthit__*`,
# `__intersection__*`, `__miss__*`) are `__global__` functions compiled into an OptiX pipeline and run by optixLaunch,
# reading the ray through `optix*` device calls (optixGetLaunchIndex, optixTrace, optixGetPayload_N, ...). ROCm has
# no OptiX: AMD's ray tracing for HIP is HIP RT, a library with its own traversal model (no pipeline, no shader
# binding table, no payload registers), so such a program is rewritten on it, not renamed (issue 27, heldout12).
CUDA_ONLY_OPTIX = "optix"
OPTIX_DEVICE_CALL = re.compile(r"optix[A-Z]\w*")


def optix_call(callee: str | None) -> bool:
    """Whether a call's unqualified callee is an OptiX device function (`optixGetPayload_0`, `optixTrace`)."""
    return bool(callee) and OPTIX_DEVICE_CALL.fullmatch(callee) is not None


def device_comm(callee: str | None) -> str | None:
    """The device-communication library a call's callee belongs to, or None."""
    if not callee:
        return None
    if callee.startswith(("nvshmem_", "nvshmemx_", "nvshmemi_ibgda")):
        return DEVICE_COMM_NVSHMEM_RMA if NVSHMEM_RMA.match(callee) else DEVICE_COMM_NVSHMEM
    if callee.startswith("ncclGin") or callee in NCCL_DEVICE_TYPES:
        return DEVICE_COMM_NCCL
    return None
# CuTe's tensor algebra: tensors over layouts, their partitions among threads, tiled copies and tiled MMAs. Code
# written in it is a kernel in CuTe's own language (no ROCm build; the port is a rewrite on CK / CK-Tile), unlike a
# use of CUTLASS's utility types (`cutlass::Array`, stride helpers), which plain C++ replaces.
CUTE_TENSOR_NAMES = frozenset({
    "make_tensor", "make_fragment_like", "make_identity_tensor", "local_tile", "local_partition", "partition_S",
    "partition_D", "partition_A", "partition_B", "partition_C", "partition_fragment_A", "partition_fragment_B",
    "partition_fragment_C", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
    "make_tiled_mma", "TiledMMA", "TiledCopy", "MMA_Atom", "Copy_Atom", "get_thread_slice", "retile_S", "retile_D",
    "make_gmem_ptr", "make_smem_ptr", "make_rmem_ptr",
})
# Of those, the names that only view memory as a tensor (a pointer with a layout): a kernel whose CuTe is these alone
# indexes global or shared memory through them and ports as plain pointer arithmetic (a fix, like CUTLASS's utility
# types), not a rewrite of a kernel written in the algebra (issue 27, heldout12: FlashMLA's split-KV combine, CuTe
# gmem tensors over warp shuffles, judged a fix on every target).
CUTE_VIEW_NAMES = frozenset({"make_tensor", "make_gmem_ptr", "make_smem_ptr", "make_rmem_ptr"})
SM_COUNT = re.compile(r"multiProcessorCount|cudaDevAttrMultiProcessorCount|cudaOccupancyMaxActiveBlocksPerMultiprocessor"
                      r"|CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
SM_COUNT_BYTES = re.compile(SM_COUNT.pattern.encode())
SM_COUNT_WORDS = tuple(w.encode() for w in SM_COUNT.pattern.split("|"))  # SM_COUNT is these literals, or'd


LANEISH = re.compile(r"thread|tid|lane|warp|idx|blockDim|threadIdx", re.I)
NVFP4_PTX = re.compile(r"mxf4nvf4|\.ue4m3|nvfp4|kind::mxf4")


def grouped(words: Iterable[bytes]) -> bytes:
    """An alternation of `words` grouped by their first byte (longest first within a group): it matches where the
    plain list does, and sre tries it several times faster (it is tried at every offset of a text without one)."""
    by_first: dict[bytes, list[bytes]] = {}
    for word in sorted(set(words), key=lambda b: (-len(b), b)):
        by_first.setdefault(word[:1], []).append(word[1:])
    return b"|".join(re.escape(first) + b"(?:" + b"|".join(re.escape(rest) for rest in rests) + b")"
                     for first, rests in sorted(by_first.items()))
