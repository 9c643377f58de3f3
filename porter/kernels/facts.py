"""Measure what a CUDA kernel does from its tree-sitter tree: shared memory, launches, warp and lane assumptions, PTX.

One walk over each kernel's body (and the same-file device functions it calls, transitively) hands every node of a
type some detector reads to the detectors registered for that type (`DETECTORS`, one detector per fact, below),
which collect the facts kernel analysis decides on. The nodes come type by type from the file's node index
(porter.kernels.nodes, sliced from the whole-file query); name nodes only where the body's text holds a name a
detector acts on. Values are folded with porter.kernels.constfold; a value that cannot be folded is recorded
with the reason under `unknown`, never guessed. Everything returned is plain JSON data (dicts, lists, ints).
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import operator
import re
import weakref
from typing import Any, Callable, Iterable

import tree_sitter as ts

from porter.kernels.constfold import (STRUCT_TYPES, Constants, Unknown, build_constants, dim3_arguments, dims, fold,
                                      fold_text, type_size)
from porter.kernels.launch_config import config_slots, fold_site
from porter.kernels.nodes import NodeIndex, walk
from porter.model.kernel import (LAUNCH_BOUNDS_ARGS, Ballot32, DeviceFunction, DeviceHelper,
                                 ExternShared, InlinePtx, Kernel, KernelFacts, LaneAssumption, LaunchBounds,
                                 LaunchConfig, SharedArray, SharedMemory, TemplateParameter, Unresolved, WarpOp,
                                 WarpSizeConstant)
from porter.source import syntax
from porter.source.parse import Function, SourceFile, descendants, unqualified

WARP_OPS = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__shfl", "__shfl_up", "__shfl_down",
    "__shfl_xor", "__ballot_sync", "__ballot", "__all_sync", "__any_sync", "__uni_sync", "__all", "__any",
    "__activemask", "__syncwarp", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__fns",
})
BALLOTS = frozenset({"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"})
FULL_MASK_32 = 0xFFFFFFFF
# PTX instruction families, longest first so `cp.async.bulk.tensor` wins over `cp.async`.
PTX_FAMILIES = sorted([
    "cp.async.bulk.tensor", "cp.async.bulk", "cp.async", "cp.reduce.async.bulk", "mma.sync", "mma.sp", "wgmma", "tcgen05",
    "ldmatrix", "stmatrix", "movmatrix", "mbarrier", "setmaxnreg", "fence.proxy.async", "elect.sync", "griddepcontrol",
    "multimem", "red", "atom", "shfl.sync", "vote", "bar", "barrier.cluster", "mapa", "getctarank", "ld", "st", "mov",
    "cvt", "prmt", "lop3", "fma", "add", "mul", "mad", "min", "max", "membar", "fence", "prefetch", "activemask",
    "redux.sync", "match.sync", "nanosleep", "clusterlaunchcontrol",
], key=len, reverse=True)
TENSOR_CORE_PTX = {"mma.sync": "mma.sync", "mma.sp": "mma.sp", "wgmma": "wgmma", "tcgen05": "tcgen05", "ldmatrix": "ldmatrix",
                   "stmatrix": "stmatrix"}
ASYNC_PTX = {"cp.async": "cp.async", "cp.async.bulk": "cp.async.bulk", "cp.async.bulk.tensor": "tma",
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
SM_COUNT = re.compile(r"multiProcessorCount|cudaDevAttrMultiProcessorCount|cudaOccupancyMaxActiveBlocksPerMultiprocessor"
                      r"|CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
SM_COUNT_BYTES = re.compile(SM_COUNT.pattern.encode())
_SM_COUNT_WORDS = tuple(w.encode() for w in SM_COUNT.pattern.split("|"))  # SM_COUNT is these literals, or'd


def _names_sm_count(text: bytes) -> bool:
    """SM_COUNT_BYTES.search(text) is not None, by a substring search per literal (a host's whole body is asked,
    and sre tries the alternation at every byte of it)."""
    return any(w in text for w in _SM_COUNT_WORDS)
LANEISH = re.compile(r"thread|tid|lane|warp|idx|blockDim|threadIdx", re.I)
NVFP4_PTX = re.compile(r"mxf4nvf4|\.ue4m3|nvfp4|kind::mxf4")
_INSTR_SPLIT = re.compile(r"[;\n]")
_OPCODE = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_:]+)*")


def measure_file(sf: SourceFile, extra_constants: dict[str, Any] | None = None,
                 alternatives: dict[str, tuple[int, ...]] | None = None) -> list[Kernel]:
    """Every kernel of a parsed CUDA file with its facts filled in. `alternatives`: constants of other files with
    a value per build (`kWarpSize` 32 or 64), which bound a shared-memory size by the largest it can be."""
    kfs = syntax.kernel_functions(sf)
    if not kfs:
        return []
    ctx = _file_context(sf, extra_constants)
    ctx.alternatives = {k: v for k, v in (alternatives or {}).items() if k not in ctx.env.sources}
    return [dataclasses.replace(kernel, facts=ctx.kernel_facts(kernel, fn)) for kernel, fn in kfs]


def measure_helpers(sf: SourceFile, extra_constants: dict[str, Any] | None = None,
                    build_names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
                    ) -> tuple[DeviceHelper, ...]:
    """The file's `__device__` functions as kernels in other files see them (porter.kernels.callgraph): each with
    the facts of its body and its same-file callees, and the calls its file does not define. Code in an arm only
    the CUDA build compiles (`#ifdef PTX_AVAILABLE` with a portable `#else`, `build_names` naming the repository's
    ROCm-side and CUDA-side macros) is left out: the helper already has its HIP path there."""
    fns = [f for f in sf.functions if f.is_device and not f.is_kernel and f.node.child_by_field_name("body") is not None]
    if not fns:
        return ()
    ctx = _file_context(sf, extra_constants)
    ctx.cuda_only = _cuda_only_lines(sf, build_names)
    return tuple(ctx.helper(f) for f in fns)


_VENDORISH = (b"hip", b"rocm", b"amd")  # in the lower-cased text (bytes.lower is ASCII, as re's IGNORECASE on bytes)


@functools.lru_cache(maxsize=8)
def _build_names_pattern(build_names: tuple[frozenset[str], frozenset[str]]) -> re.Pattern | None:
    """Found in a text that names any of the repository's build-side macros (one search instead of one per name);
    None when it has none."""
    names = (*build_names[0], *build_names[1])
    return re.compile(_grouped(n.encode() for n in names)) if names else None


def _cuda_only_lines(sf: SourceFile, build_names: tuple[frozenset[str], frozenset[str]]) -> Callable[[int], bool] | None:
    """Whether a line of the file is compiled by the CUDA build only (or by neither), or None when no line is."""
    from porter.source.preprocessor import CUDA, preprocessed

    # Only a vendor test decides a side: a file that names no ROCm-ish or build-side name has none.
    if b"#" not in sf.data:
        return None
    lower = sf.data.lower()  # one C pass: several times faster than a case-insensitive regex over the file
    names = _build_names_pattern(build_names)
    pre = preprocessed(sf)
    if not any(v in lower for v in _VENDORISH) and (names is None or not names.search(sf.data)) and not pre.toolkit_lines:
        return None
    regions = pre.build_only(CUDA, *build_names)
    if not regions:
        return None
    starts = [r.start for r in regions]

    def cuda_only(line: int) -> bool:
        i = bisect.bisect_right(starts, line) - 1
        return i >= 0 and regions[i].start <= line <= regions[i].end
    return cuda_only


def _file_context(sf: SourceFile, extra_constants: dict[str, Any] | None) -> _FileContext:
    """One context per parsed file, shared by the kernels' and the helpers' measurement."""
    ctx = sf.cache.get("kernel_context")
    if ctx is None:
        ctx = _FileContext(sf, extra_constants=extra_constants)
        sf.cache["kernel_context"] = ctx
    return ctx


# Calls never followed into another file: CUDA's own intrinsics (`__shfl_sync`, `__ldg`: a repository that defines
# one is shimming the toolkit, usually for HIP) and the warp and atomic operations detectors already read.
def followed_call(name: str) -> bool:
    return not name.startswith("__") and name not in WARP_OPS and not name.startswith("atomic")


class _FileContext:
    """Per-file state shared by its kernels: constants, functions by name, launches, host-function locals."""

    def __init__(self, sf: SourceFile, env: Constants | None = None, extra_constants: dict[str, Any] | None = None):
        # The context is kept in `sf.cache` (kernels and helpers share it), so it holds the file weakly: a strong
        # reference back would make every measured file garbage only the cyclic collector frees.
        self.sf = weakref.proxy(sf)
        self._extra_constants = extra_constants
        if env is not None:  # else built when first asked for (env)
            self.__dict__["env"] = env
        self.by_name: dict[str, list[Function]] = {}
        for f in sf.functions:
            if not f.is_kernel:
                self.by_name.setdefault(f.name, []).append(f)
        self._locals: dict[int, dict[str, Any]] = {}
        self._sm_vars: dict[int, set[str]] = {}
        self._occupancy_vars: dict[int, set[str]] = {}
        self._walks: dict[int, dict[str, Any]] = {}
        self._launch_host_types: dict[int, dict[str, int]] | None = None
        self._fact_text: dict[int, bool] = {}
        self._last_call: tuple[ts.Node, tuple[ts.Node | None, str | None]] | None = None
        self.nodes = NodeIndex(sf.root)
        self._type_params: set[str] = set()
        self.launches = syntax.launch_spans(sf)
        self.func_attrs = self._func_attributes()
        self.file_shared = self._file_scope_shared()
        self._name_offsets = _name_offsets(sf, self.file_shared)
        self._name_pattern: re.Pattern | None = None  # made where the token index cannot say (_names)
        # `using namespace cute;` makes CuTe's unqualified names (make_tensor, Tensor) CuTe's.
        self.cute_scope = b"using namespace cute" in sf.data
        self.defined = {f.name for f in sf.functions}
        self.cuda_only: Callable[[int], bool] | None = None  # set for helpers (measure_helpers)
        self.alternatives: dict[str, tuple[int, ...]] = {}  # set by measure_file

    @functools.cached_property
    def env(self) -> Constants:
        """The file's constants (porter.kernels.constfold.build_constants), built when something is first folded:
        a header of helpers that fold nothing (arithmetic on vector types) needs none."""
        return build_constants(self.sf.root, self.sf.data, self._extra_constants)

    @functools.cached_property
    def struct_sizes(self) -> dict[str, int]:
        """sizeof of the file's plain structs (struct_sizes), made when a type is first sized."""
        return struct_sizes(self.sf.root, self.env)

    # ------------------------------------------------------------------------------------------ per kernel

    def kernel_facts(self, kernel: Kernel, fn: Function) -> KernelFacts:
        unknown: list[Unresolved] = []
        tparams = _template_params(fn.node)
        env = self.env.with_template_params(p.name for p in tparams if p.name)
        self._type_params = {p.name for p in tparams if p.name and p.kind == "type"}
        device_fns = self._callees(fn)
        walks = [self._walk(fn)] + [self._walk(f) for f in device_fns]
        merged = _merge(walks)

        sites = self._launch_sites(kernel, unknown)
        shared_unknown: list[Unresolved] = []
        arrays, extern = self._shared(merged["shared_decls"], env, shared_unknown, merged["identifiers"])
        if shared_unknown and (tparams or self.alternatives):
            sized = self._bounded_shared(merged, tparams, sites, env)
            if sized is not None:
                arrays, shared_unknown = sized, []
        unknown.extend(shared_unknown)
        attr = self.func_attrs.get(kernel.name)
        shared = SharedMemory(arrays, extern, tuple(sorted({s.shared_bytes for s in sites if isinstance(s.shared_bytes, int)})),
                              attr["bytes"] if attr and isinstance(attr.get("bytes"), int) else None)
        if attr and not isinstance(attr.get("bytes"), int):
            unknown.append(Unresolved("cudaFuncAttributeMaxDynamicSharedMemorySize", attr["reason"]))
        if shared.dynamic_unsized:
            unknown.append(Unresolved("dynamic shared memory",
                                      "extern __shared__ array but no launch in this file gives a foldable size"))

        bounds = self._launch_bounds(kernel, env, unknown)
        header = self.sf.text(fn.start_byte, fn.node.child_by_field_name("body").start_byte
                              if fn.node.child_by_field_name("body") is not None else fn.end_byte)
        return KernelFacts(
            lines=kernel.end_line - kernel.line + 1,
            template_parameters=tuple(tparams),
            device_functions=tuple(DeviceFunction(f.name, f.start_line, f.end_line) for f in device_fns),
            launch_sites=tuple(sites),
            shared_memory=shared,
            launch_bounds=bounds,
            **_body_facts(merged, cluster_dims="__cluster_dims__" in header),
            calls=self._external_calls(walks),
            unknown=tuple(unknown),
        )

    def helper(self, fn: Function) -> DeviceHelper:
        """One device function as a helper of other files' kernels: the facts kernel analysis merges into a caller
        (HELPER_FACT_KEYS; None when it has none), from its body and its same-file callees."""
        skip = self.cuda_only
        walks = [self._helper_walk(f, skip) for f in [fn] + self._callees(fn, skip, helper=True)]
        calls = tuple(sorted({name for name, _ in self._external_calls(walks)}))
        # A helper has facts for its callers when some walk holds one of what _body_facts makes HELPER_FACT_KEYS of
        # (a walk of calls alone holds none): most are arithmetic, and are not merged and made KernelFacts first.
        if not any(w[k] for w in walks for k in _HELPER_WALK_KEYS):
            return DeviceHelper(fn.name, fn.start_line, fn.end_line, None, calls)
        facts = KernelFacts(lines=fn.end_line - fn.start_line + 1, **_body_facts(_merge(walks)))
        return DeviceHelper(fn.name, fn.start_line, fn.end_line, facts, calls)

    def _helper_walk(self, fn: Function, skip: Callable[[int], bool] | None) -> dict[str, Any]:
        """A helper's walk: the full one when a kernel's walk made it or its text can hold a fact (most helpers
        are arithmetic and memory moves), else its calls alone, which is all that can reach another helper."""
        memo = fn.start_byte if skip is None else (fn.start_byte, "skip")
        if memo in self._walks or self._may_hold_facts(fn):
            return self._walk(fn, skip)
        if ("calls", memo) in self._walks:
            return self._walks[("calls", memo)]
        w = self._walks[("calls", memo)] = _empty_walk()
        del w["lane_vars"]  # as a full walk leaves it (lane_array_index takes them)
        for n in self.nodes.under(fn.node.child_by_field_name("body"), ("call_expression",)):
            if skip is None or not skip(n.start_point.row + 1):
                callees(self, n, w)
        return w

    def _may_hold_facts(self, fn: Function) -> bool:
        """Whether a function's text holds any of _MAY_HOLD_FACTS (asked again at each caller's walk: kept)."""
        found = self._fact_text.get(fn.start_byte)
        if found is None:
            found = self._fact_text[fn.start_byte] = _MAY_HOLD_FACTS.search(self.sf.data, fn.start_byte,
                                                                             fn.end_byte) is not None
        return found

    def _external_calls(self, walks: list[dict[str, Any]]) -> tuple[tuple[str, int], ...]:
        """Calls of the walked bodies to functions this file does not define, as written (template arguments
        dropped) with their first line: kernel analysis follows them into other files' helpers."""
        first: dict[str, int] = {}
        for w in walks:
            for text, line in w["call_sites"]:
                name = unqualified(text)
                # `KT::sparse24_apply_kernel(p)` inside the kernel of that name (xformers) is a member of another
                # type, not the kernel calling itself: a qualified call the file defines only as a kernel (a name
                # in `defined` but not among its other functions, `by_name`) is followed.
                own = name in self.defined and not (text != name and name not in self.by_name)
                if own or not followed_call(name):
                    continue
                if text not in first or line < first[text]:
                    first[text] = line
        return tuple(sorted(first.items(), key=lambda x: (x[1], x[0])))

    def _bounded_shared(self, merged: dict[str, Any], tparams: list[TemplateParameter], sites: list[LaunchConfig],
                        env: Constants) -> tuple[SharedArray, ...] | None:
        """The static arrays sized with what the launches and the builds give, the largest case winning: template
        arguments at the launch sites (`k<256, float><<<...>>>`; a type argument that is the launching function's
        own template parameter is sized by that function's explicit instantiations in this file), and each value a
        constant of another file has per build (`kWarpSize` 32 or 64; the arrays then say "at most"). None when
        some case still leaves an array unsized."""
        reached = _reached_names(merged, self.env) if self.alternatives else set()
        choices = [(n, v) for n, v in sorted(self.alternatives.items()) if n in reached]
        if len(choices) > 3:
            return None  # too many combinations to try, and the bound would say little
        combos: list[dict[str, int]] = [{}]
        for name, values in choices:
            combos = [{**c, name: v} for c in combos for v in values]
        bindings = _site_bindings(tparams, sites, self.env, self._host_types(sites)) if tparams else []
        cases = [(c, b) for c in combos for b in (bindings or [None])]
        best = None
        for combo, binding in cases:
            base = Constants({**(binding.env.sources if binding else self.env.sources), **combo})
            case_env = base.with_template_params(binding.env.template_params if binding else env.template_params)
            case_unknown: list[Unresolved] = []
            sized, _ = self._shared(merged["shared_decls"], case_env, case_unknown, merged["identifiers"],
                                    binding.types if binding else None)
            if case_unknown:
                if choices:
                    return None  # a bound must cover every case
                continue  # as before: a launch whose arguments do not fold says nothing about the others
            total = sum(a.bytes for a in sized)
            if best is None or total > best[0]:
                best = (total, sized)
        if best is None:
            return None
        if not choices:
            return best[1]
        note = "at most: the largest over " + "; ".join(f"{n} = {', '.join(map(str, v))} (a value per build)"
                                                       for n, v in choices)
        return tuple(dataclasses.replace(a, reason=note) for a in best[1])

    def _why(self, reason: str) -> str:
        """An unknown extent's reason, saying so when the constant has a value per build (porter tried them)."""
        m = re.match(r"`(\w+)` is not a constant defined in this file$", reason)
        if m and m.group(1) in self.alternatives:
            values = ", ".join(map(str, self.alternatives[m.group(1)]))
            return f"`{m.group(1)}` has a value per build ({values}) and another part is unknown"
        return reason

    def _host_types(self, sites: list[LaunchConfig]) -> dict[int, dict[str, int]]:
        """Per launch line: the launching function's type template parameters sized by its explicit
        instantiations in this file (`run<unsigned char>(...)`), the largest over them; a parameter left out when
        some instantiation's type has no size porter knows, or when the file names none. The same for every
        kernel of the file (made once)."""
        if self._launch_host_types is not None:
            return self._launch_host_types
        out: dict[int, dict[str, int]] = {}
        self._launch_host_types = out
        by_host: dict[int, dict[str, int]] = {}
        for launch, start, _ in self.launches:
            host = self.sf.enclosing(start)
            if host is None or host.node.parent is None or host.node.parent.type != "template_declaration":
                continue
            if host.start_byte in by_host:
                if by_host[host.start_byte]:
                    out[launch.line] = by_host[host.start_byte]
                continue
            by_host[host.start_byte] = {}
            params = _template_params(host.node)
            if not any(p.kind == "type" for p in params):
                continue
            sizes: dict[str, int | None] = {}
            for m in _instantiations(host.name).finditer(self.sf.data):
                if host.start_byte <= m.start() < host.end_byte:
                    continue
                args = _balanced_template_arguments(self.sf.data, m.end() - 1)
                if args is None:
                    continue
                for p, arg in zip(params, _split_template_arguments(args)):
                    if p.kind == "type" and p.name:
                        size = type_size(arg) or self.struct_sizes.get(arg)
                        prev = sizes.get(p.name, 0)
                        sizes[p.name] = None if size is None or prev is None else max(prev, size)
            bound = by_host[host.start_byte] = {k: v for k, v in sizes.items() if v}
            if bound:
                out[launch.line] = bound
        return out

    def _callees(self, fn: Function, skip: Callable[[int], bool] | None = None, helper: bool = False) -> list[Function]:
        """The same-file device functions `fn` calls, transitively (with `skip`, calls on skipped lines left out;
        `helper`: through helper walks)."""
        seen: dict[int, Function] = {}
        todo = [fn]
        while todo:
            cur = todo.pop()
            walk = self._helper_walk(cur, skip) if helper else self._walk(cur, skip)
            for name in walk["calls"]:
                for f in self.by_name.get(name, ()):
                    if f.start_byte not in seen and f.start_byte != fn.start_byte:
                        seen[f.start_byte] = f
                        todo.append(f)
        return sorted(seen.values(), key=lambda f: f.start_byte)

    # ------------------------------------------------------------------------------------------ body walk

    def _walk(self, fn: Function, skip: Callable[[int], bool] | None = None) -> dict[str, Any]:
        """The facts of one function body: every node of a type some detector reads, in tree order, handed to the
        detectors registered for that type (DETECTORS), each of which records one fact in the walk. `skip`: lines
        (1-based) whose nodes are left out."""
        memo = fn.start_byte if skip is None else (fn.start_byte, "skip")
        if memo in self._walks:
            return self._walks[memo]
        w = _empty_walk()
        body = fn.node.child_by_field_name("body")
        # Each detector fills its own part of the walk from nodes of its own types, so the nodes go type by type
        # (each type in tree order) rather than all in one tree order: the same facts from one sort per type.
        for t in _walked():
            for n in self.nodes.under(body, (t,)):
                if skip is not None and skip(n.start_point.row + 1):
                    continue
                for detect in DETECTORS[t] if t != "call_expression" else _call_detectors(self.called(n)[1]):
                    detect(self, n, w)
        names = self._names(body)
        if names:
            # Only names some detector acts on reach the detectors, and a name outside a detector's `names` can
            # be none of them (the body's text holds every name in it): most bodies have none at all.
            shared = self.file_shared
            for n in names:
                if skip is not None and skip(n.start_point.row + 1):
                    continue
                text = n.text
                if shared and text.decode() in shared:
                    w["identifiers"].add(text.decode())
                for detect in _detectors(n.type, text):
                    detect(self, n, w)
        lane_array_index(self, fn, w, skip)
        w["lane"].sort(key=lambda x: (x.line, x.kind))
        if any(op.mask_kind == "runtime" for op in w["warp_ops"]):
            self._fold_local_masks(fn, w)
        self._walks[memo] = w
        return w

    def called(self, n: ts.Node) -> tuple[ts.Node | None, str | None]:
        """_called(n), kept for the call node the walk is at: each of its call detectors asks."""
        last = self._last_call
        if last is not None and last[0] == n:
            return last[1]
        found = _called(n)
        self._last_call = (n, found)
        return found

    def _names(self, body: ts.Node | None) -> list[ts.Node]:
        """The name nodes of a body, in tree order, that start where a name some detector acts on, or a file-scope
        `__shared__` variable's name, starts in its text (a superset of the nodes with such a text; the caller
        compares texts): no other name of the body can matter, and most bodies have none."""
        if body is None:
            return []
        out = []
        if self._name_offsets is not None:
            # Where the names stand in the body as whole tokens of the code (porter.source.parse's token index):
            # the nodes whose text is one of them start there, and only those reach a detector or `identifiers`.
            start, end = body.start_byte, body.end_byte
            found = []
            for offsets in self._name_offsets:
                i = bisect.bisect_left(offsets, start)
                found.extend(offsets[i:bisect.bisect_left(offsets, end, i)])
            found.sort()
        else:
            # Every offset where one of the names starts in the body's text (searching on from the next byte, so a
            # name inside a longer one is seen too).
            if self._name_pattern is None:
                self._name_pattern = _name_pattern(tuple(sorted(self.file_shared)))
            text = body.text
            found = [body.start_byte + m.start() for m in _overlapping(self._name_pattern, text)]
        for at in found:
            # Names are leaves, so the smallest node over that byte is the name starting there.
            n = body.descendant_for_byte_range(at, at + 1)
            if n is not None and n.type in _NAMES and n.start_byte == at:
                out.append(n)
        return out

    def _fold_local_masks(self, fn: Function, w: dict[str, Any]) -> None:
        """A mask held in a local the function never reassigns (`unsigned mask = 0xffffffff; __any_sync(mask, p)`)
        is that value: a 32-bit full mask in a variable is still one."""
        local = self._host_locals(fn)
        # A name declared twice (`unsigned mask = 0xffffffff;` in one block, `int mask = (1 << n) - 1;` in another,
        # as cuda-samples' shfl_scan does) has no one value.
        declared: dict[str, int] = {}
        for d in self.nodes.under(fn.node.child_by_field_name("body"), ("init_declarator",)):
            name = d.child_by_field_name("declarator")
            if name is not None and name.type == "identifier":
                declared[name.text.decode()] = declared.get(name.text.decode(), 0) + 1
        ops = []
        for op in w["warp_ops"]:
            once = op.mask is not None and declared.get(op.mask, 0) == 1
            value = local.get(op.mask) if op.mask_kind == "runtime" and once else None
            if isinstance(value, tuple) and value[1:] == (1, 1):  # locals fold as launch dimensions: (x, 1, 1)
                value = value[0]
            if isinstance(value, int) and not isinstance(value, bool):
                kind = "full32" if value == FULL_MASK_32 else "constant"
                op = dataclasses.replace(op, mask_kind=kind)
                if op.op == "__syncwarp" and kind == "full32" and op.line in w["partial_syncwarp"]:
                    w["partial_syncwarp"].remove(op.line)
            ops.append(op)
        w["warp_ops"] = ops

    def _arrays_of_32(self, fn: Function) -> set[str]:
        out = set()
        body = fn.node.child_by_field_name("body")
        if body is None:
            return out
        for n in self.nodes.under(body, ("array_declarator",)):
            size = n.child_by_field_name("size")
            inner = n.child_by_field_name("declarator")
            if size is not None and inner is not None and inner.type == "identifier" and fold(size, self.env) == 32:
                out.add(inner.text.decode())
        return out

    # ------------------------------------------------------------------------------------------ shared memory

    def _file_scope_shared(self) -> dict[str, ts.Node]:
        out = {}
        root = self.sf.root
        if root is None or b"__shared__" not in root.text:  # the parsed text (a qualifier macro may spell it)
            return out
        for n in root.children:
            if n.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"__shared__" for c in n.children):
                for name in _declarator_names(n):
                    out[name] = n
        return out

    def _shared(self, decls: list[ts.Node], env: Constants, unknown: list[Unresolved], identifiers: set[str],
                types: dict[str, int] | None = None) -> tuple[tuple[SharedArray, ...], tuple[ExternShared, ...]]:
        """The kernel's static and extern `__shared__` variables: its own declarations and the file-scope ones it names."""
        arrays: list[SharedArray] = []
        extern: list[ExternShared] = []
        decls = list(decls) + [d for name, d in self.file_shared.items() if name in identifiers]
        seen_nodes: set[int] = set()
        for decl in decls:
            if decl.start_byte in seen_nodes:
                continue
            seen_nodes.add(decl.start_byte)
            ty = decl.child_by_field_name("type")
            tytext = " ".join(ty.text.decode("utf-8", "replace").split()) if ty is not None else "?"
            is_extern = any(c.type == "storage_class_specifier" and c.text == b"extern" for c in decl.children)
            line = decl.start_point.row + 1
            for d in decl.children:
                if d.type not in ("identifier", "array_declarator", "init_declarator", "pointer_declarator"):
                    continue
                if d.type == "init_declarator":
                    d = d.child_by_field_name("declarator")
                name, extents_nodes, pointer = _unwrap_declarator(d)
                if is_extern:
                    extern.append(ExternShared(name, tytext, line))
                    continue
                elem = 8 if pointer else (type_size(tytext) or (types or {}).get(tytext) or self.struct_sizes.get(tytext))
                extents: list[int | str] = []
                reasons: list[str] = []
                for e in extents_nodes:
                    v = fold(e, env) if e is not None else Unknown("array without an extent")
                    if isinstance(v, Unknown):
                        extents.append(e.text.decode("utf-8", "replace") if e is not None else "")
                        reasons.append(self._why(v.reason))
                    else:
                        extents.append(int(v))
                if elem is None:
                    reasons.append(f"element type `{tytext}` is a template parameter" if tytext in env.template_params
                                   or tytext in self._type_params else f"element type `{tytext}` has no size porter "
                                   "knows without --deep (not a builtin, CUDA vector or same-file plain struct)")
                if reasons:
                    reason = "; ".join(dict.fromkeys(reasons))
                    arrays.append(SharedArray(name, tytext, line, tuple(extents), elem, None, reason))
                    unknown.append(Unresolved(f"__shared__ {name}", reason))
                else:
                    total = elem
                    for x in extents:
                        total *= x
                    arrays.append(SharedArray(name, tytext, line, tuple(extents), elem, total))
        return tuple(arrays), tuple(extern)

    # ------------------------------------------------------------------------------------------ launches

    def _launch_sites(self, kernel: Kernel, unknown: list[Unresolved]) -> list[LaunchConfig]:
        sites = []
        for launch, start, end in self.launches:
            if launch.kernel != kernel.name:
                continue
            call = _enclosing_call(self.sf.root, start)
            host = self.sf.enclosing(start)
            exprs: list[ts.Node] = []
            template_arguments = None
            if call is not None:
                if launch.kind == "chevron":
                    cfg = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
                    exprs = [c for c in cfg.named_children if c.type != "comment"] if cfg is not None else []
                    fn = call.child_by_field_name("function")
                    if fn is not None and fn.type == "template_function":
                        targs = fn.child_by_field_name("arguments")
                        template_arguments = targs.text.decode("utf-8", "replace") if targs is not None else ""
                else:
                    args = call.child_by_field_name("arguments")
                    exprs = [a for a in (args.named_children if args else []) if a.type != "comment"][1:]
            nodes = config_slots(launch.kind, exprs)
            site, why = fold_site(
                launch, nodes, self.env, self._host_locals(host) if host is not None else {},
                template_arguments=template_arguments,
                sm_count_grid=bool(nodes and host is not None and self._sm_derived(nodes[0], host)),
                in_device_code=bool(host is not None and (host.is_kernel or host.is_device)))
            unknown.extend(why)
            sites.append(site)
        return sites
    def _host_locals(self, fn: Function) -> dict[str, Any]:
        """`dim3 block(16, 6)` and `int threads = 256` in a host function, when never reassigned."""
        if fn.start_byte in self._locals:
            return self._locals[fn.start_byte]
        body = fn.node.child_by_field_name("body")
        out: dict[str, Any] = {}
        if body is None:
            self._locals[fn.start_byte] = out
            return out
        assigned: dict[str, int] = {}
        # Counted, so each type's nodes in its own order will do (no merge of the two into tree order).
        for t, field in (("assignment_expression", "left"), ("update_expression", "argument")):
            for n in self.nodes.under(body, (t,)):
                target = n.child_by_field_name(field)
                if target is not None and target.type == "identifier":
                    assigned[target.text.decode()] = assigned.get(target.text.decode(), 0) + 1
        taken = {t.decode().lstrip("&").strip() for t in map(_TEXT, self.nodes.under(body, ("pointer_expression",)))
                 if t.startswith(b"&")}
        for decl in self.nodes.under(body, ("declaration",)):
            ty = decl.child_by_field_name("type")
            tytext = ty.text.decode() if ty is not None else ""
            for d in decl.children:
                if tytext == "dim3" and d.type == "function_declarator":  # `dim3 b(X, Y)` parses as a declaration
                    name_node = d.child_by_field_name("declarator")
                    params = d.child_by_field_name("parameters")
                    if name_node is not None and params is not None and not assigned.get(name_node.text.decode()):
                        vals = [fold_text(p.text.decode(), self.env) for p in params.named_children if p.type != "comment"]
                        if vals and len(vals) <= 3 and all(not isinstance(v, Unknown) for v in vals):
                            out[name_node.text.decode()] = tuple(int(v) for v in vals) + (1,) * (3 - len(vals))
                    continue
                if d.type != "init_declarator":
                    continue
                name_node = d.child_by_field_name("declarator")
                value = d.child_by_field_name("value")
                if name_node is None or name_node.type != "identifier" or value is None:
                    continue
                name = name_node.text.decode()
                if assigned.get(name) or name in taken:
                    continue
                if tytext == "dim3":
                    if value.type == "argument_list":
                        v = dim3_arguments(value, self.env, out)
                    elif value.type == "initializer_list":
                        v = dims(value, self.env, out)
                    else:
                        v = dims(value, self.env, out)
                else:
                    if value.type in ("argument_list", "initializer_list"):
                        if len(value.named_children) != 1:
                            continue
                        value = value.named_children[0]
                    v = dims(value, self.env, out)
                if not isinstance(v, Unknown):
                    out[name] = v
        self._locals[fn.start_byte] = out
        return out

    def _sm_derived(self, grid: ts.Node, host: Function) -> bool:
        if SM_COUNT.search(grid.text.decode("utf-8", "replace")):
            return True
        if host.start_byte not in self._sm_vars:
            sm: set[str] = set()
            body = host.node.child_by_field_name("body")
            # A name is SM-derived only from a text naming the SM count: a body that names none has no such name,
            # so its nodes need not be walked (three times) to find out.
            counted = body is not None and _names_sm_count(body.text)
            # What each node adds, read once: a call naming the SM count (its `&out` argument), or a declaration or
            # assignment (its target, whether its value names the SM count, and the value's text, whose names are
            # read only once some name is SM-derived: until then no value can name one).
            steps: list[tuple[ts.Node | str, bool, bytes]] = []
            for n in self.nodes.under(body, ("init_declarator", "assignment_expression", "call_expression")) if counted else ():
                if n.type == "call_expression":
                    if SM_COUNT_BYTES.search(n.text):  # ASCII names: the bytes match where the decoded text does
                        args = n.child_by_field_name("arguments")
                        first = args.named_children[0] if args is not None and args.named_children else None
                        if first is not None and first.type == "pointer_expression":
                            steps.append((first.text.decode().lstrip("&").strip(), True, b""))
                    continue
                target = n.child_by_field_name("declarator") or n.child_by_field_name("left")
                value = n.child_by_field_name("value") or n.child_by_field_name("right")
                if target is None or value is None:
                    continue
                vtext = value.text
                steps.append((target, SM_COUNT_BYTES.search(vtext) is not None, vtext))
            value_names: dict[int, set[str]] = {}
            for _ in range(3 if counted else 0):  # propagate through a few assignments: sms -> blocks -> grid
                for i, (target, named, vtext) in enumerate(steps):
                    if not named and sm:
                        names = value_names.get(i)
                        if names is None:
                            names = value_names[i] = set(re.findall(r"[A-Za-z_]\w*", vtext.decode("utf-8", "replace")))
                        named = bool(names & sm)
                    if named:
                        sm.add(target if isinstance(target, str) else target.text.decode())
            self._sm_vars[host.start_byte] = sm
            # Only asked when some name is SM-derived (below); a body naming no SM count has none.
            self._occupancy_vars[host.start_byte] = _occupancy_outputs(body) if sm else set()
        if not self._sm_vars[host.start_byte]:
            return False
        names = set(re.findall(r"[A-Za-z_]\w*", grid.text.decode("utf-8", "replace")))
        # SM count x the occupancy API's blocks per SM is derived from the device at run time: it holds on AMD too
        # (CUs x blocks per CU). A hand-picked multiplier (`num_sms * 4`) is what is tuned for NVIDIA.
        if names & self._occupancy_vars.get(host.start_byte, set()):
            return False
        return bool(names & self._sm_vars[host.start_byte])

    def _func_attributes(self) -> dict[str, dict[str, Any]]:
        """cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, N) per kernel name."""
        out: dict[str, dict[str, Any]] = {}
        if b"MaxDynamicSharedMemorySize" not in self.sf.data:
            return out
        from porter.source.syntax import call_sites

        for fn, text, call in call_sites(self.sf):
            if unqualified(text) not in ("cudaFuncSetAttribute", "cuFuncSetAttribute"):
                continue
            args = call.child_by_field_name("arguments")
            argv = [a for a in (args.named_children if args else []) if a.type != "comment"]
            if len(argv) < 3 or "MaxDynamicSharedMemorySize" not in argv[1].text.decode() and \
                    "MAX_DYNAMIC_SHARED_SIZE_BYTES" not in argv[1].text.decode():
                continue
            name = syntax.kernel_argument(argv[0].text.decode("utf-8", "replace"))
            host = self.sf.enclosing(call.start_byte)
            v = dims(argv[2], self.env, self._host_locals(host) if host is not None else {})
            entry = {"line": call.start_point.row + 1}
            if isinstance(v, Unknown):
                entry["bytes"] = None
                entry["reason"] = v.reason
            else:
                entry["bytes"] = v[0]
            prev = out.get(name)
            if prev is None or (isinstance(entry["bytes"], int) and (prev.get("bytes") or 0) < entry["bytes"]):
                out[name] = entry
        return out

    def _launch_bounds(self, kernel: Kernel, env: Constants, unknown: list[Unresolved]) -> LaunchBounds | None:
        if not kernel.launch_bounds:
            return None
        values: list[int | None] = []
        for key, text in zip(LAUNCH_BOUNDS_ARGS, kernel.launch_bounds):
            v = fold_text(text, env)
            if isinstance(v, Unknown):
                values.append(None)
                unknown.append(Unresolved(f"__launch_bounds__ {key}", v.reason))
            else:
                values.append(int(v))
        return LaunchBounds(tuple(kernel.launch_bounds), tuple(values))


# ---------------------------------------------------------------------------------------------- helpers


@dataclasses.dataclass(frozen=True)
class _Binding:
    """A kernel's template parameters bound by one launch site's template arguments."""

    env: Constants
    types: dict[str, int]


def _split_template_arguments(text: str) -> list[str]:
    inner = text.strip()
    if inner.startswith("<") and inner.endswith(">"):
        inner = inner[1:-1]
    out, depth, cur = [], 0, []
    for ch in inner:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _reached_names(merged: dict[str, Any], env: Constants) -> set[str]:
    """The names the kernel's shared declarations use, directly or through this file's constants."""
    seen: set[str] = set()
    todo = [n for d in merged["shared_decls"] for n in re.findall(r"[A-Za-z_]\w*", d.text.decode("utf-8", "replace"))]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        src = env.sources.get(n)
        if src is not None and not isinstance(src, (int, float)):
            text = src if isinstance(src, str) else src.text.decode("utf-8", "replace")
            todo.extend(re.findall(r"[A-Za-z_]\w*", text))
    return seen


def _instantiations(name: str) -> re.Pattern:
    r"""`\bname\s*<`, spelt with the name first and the word boundary before it as a lookbehind after it when the
    name starts with a word character (the same matches): sre then skips ahead to the name instead of trying the
    boundary at every byte of the file."""
    word = re.escape(name.encode())
    if re.match(rb"\w", name.encode()):
        return re.compile(word + rb"(?<!\w" + word + rb")\s*<")
    return re.compile(rb"\b" + word + rb"\s*<")


def _balanced_template_arguments(data: bytes, open_at: int) -> str | None:
    """`<...>` starting at data[open_at] == '<', balanced, on at most a few hundred bytes; None if it does not close."""
    depth = 0
    for i in range(open_at, min(len(data), open_at + 400)):
        c = data[i:i + 1]
        if c == b"<":
            depth += 1
        elif c == b">":
            depth -= 1
            if depth == 0:
                return data[open_at:i + 1].decode("utf-8", "replace")
        elif c in (b";", b"{", b"}"):
            return None
    return None


def _site_bindings(tparams: list[TemplateParameter], sites: list[LaunchConfig], env: Constants,
                   host_types: dict[int, dict[str, int]] | None = None) -> list[_Binding]:
    """One binding per distinct launch-site template argument list that binds every parameter the arrays need:
    value parameters folded to numbers, type parameters to their sizes (unfoldable ones stay unknown; a type that
    is the launching function's own template parameter is sized by `host_types`, per launch line)."""
    out = []
    hosts: dict[str, dict[str, int]] = {}
    for s in sites:
        if s.template_arguments:
            for k, v in (host_types or {}).get(s.line, {}).items():
                hosts.setdefault(s.template_arguments, {})[k] = max(v, hosts.get(s.template_arguments, {}).get(k, 0))
    for text in sorted({s.template_arguments for s in sites if s.template_arguments}):
        args = _split_template_arguments(text)
        values: dict[str, Any] = {}
        types: dict[str, int] = {}
        for p, arg in zip(tparams, args):
            if not p.name:
                continue
            if p.kind == "type":
                size = type_size(arg) or hosts.get(text, {}).get(arg)
                if size is not None:
                    types[p.name] = size
            else:
                v = fold_text(arg, env)
                if not isinstance(v, Unknown):
                    values[p.name] = v
        bound = Constants({**env.sources, **values})
        out.append(_Binding(bound.with_template_params(p.name for p in tparams if p.name and p.name not in values
                                                       and p.kind != "type"), types))
    return out


def struct_sizes(root: ts.Node | None, env: Constants) -> dict[str, int]:
    """sizeof of the file's plain structs (fields of builtin/CUDA vector types or earlier plain structs, arrays of
    foldable extents), laid out as C does: each field at its alignment, the size rounded to the largest one."""
    out: dict[str, int] = {}
    if root is None:
        return out
    if b"struct" not in root.text and b"class" not in root.text:
        return out
    for n in descendants(root, STRUCT_TYPES):
        name = n.child_by_field_name("name")
        body = n.child_by_field_name("body")
        if name is None or body is None or name.type != "type_identifier":
            continue
        offset, align, ok = 0, 1, True
        for field in body.named_children:
            if field.type == "comment":
                continue
            if field.type != "field_declaration":
                if field.type in ("access_specifier",):
                    continue
                ok = False  # methods, nested types, templates: not a plain struct porter sizes
                break
            ty = field.child_by_field_name("type")
            tytext = " ".join(ty.text.decode("utf-8", "replace").split()) if ty is not None else ""
            if any(c.type == "storage_class_specifier" and c.text == b"static" for c in field.children):
                continue
            esize = type_size(tytext) or out.get(tytext)
            declarators = [c for c in field.children if c.type in ("field_identifier", "array_declarator",
                                                                       "pointer_declarator", "bitfield_clause")]
            if esize is None or not declarators or any(c.type == "bitfield_clause" for c in declarators):
                ok = False
                break
            for d in declarators:
                a = esize if esize in (1, 2, 4, 8, 16) else 4 if esize % 4 == 0 else 2 if esize % 2 == 0 else 1
                size, a = (8, 8) if d.type == "pointer_declarator" else (esize, a)
                if d.type == "array_declarator":
                    count = 1
                    while d is not None and d.type == "array_declarator":
                        v = fold(d.child_by_field_name("size"), env)
                        if isinstance(v, Unknown) or not isinstance(v, int):
                            ok = False
                            break
                        count *= v
                        d = d.child_by_field_name("declarator")
                    size *= count
                if not ok:
                    break
                offset = (offset + a - 1) // a * a + size
                align = max(align, a)
            if not ok:
                break
        if ok and offset:
            out[name.text.decode()] = (offset + align - 1) // align * align
    return out


# ------------------------------------------------------------------------------------------ detectors
# One detector per fact: each reads one kind of node and records one fact in the walk `w` of a function body
# (porter.model.kernel.KernelFacts is what they add up to). `_FileContext._walk` visits every node of their types
# once and hands it to the detectors registered for its type, so a new fact is one function and one `@detects`
# line (a new node type also joins porter.kernels.nodes.INDEXED, else the walk of that type is done in Python).

Detector = Callable[["_FileContext", ts.Node, dict[str, Any]], None]
DETECTORS: dict[str, list[Detector]] = {}
_NAMES = ("identifier", "type_identifier", "namespace_identifier", "field_identifier")
# Detectors that act only on a node whose text is one of a few names (`this_grid`, `warpSize`): the walk calls
# them for those nodes only. A body is mostly names, and each name otherwise went through every name detector;
# every detector of names is one of these, so a body whose text holds none of their names is not asked for names.
_WANTED: dict[Detector, frozenset[bytes]] = {}
_CALLS: dict[tuple[str, bytes], tuple[Detector, ...]] = {}  # (node type, text) -> its detectors, in order
# Detectors of calls that act only on calls of some names (`__shfl_sync`, `atomicAdd`): a predicate on the call's
# unqualified name (None for a member call, `g.sync()`). A body's calls are mostly others, and each call otherwise
# went through every call detector; the walk names each call once and hands it to the detectors of that name.
_CALL_WANTED: dict[Detector, Callable[[str | None], bool]] = {}
_BY_CALLEE: dict[str | None, tuple[Detector, ...]] = {}  # callee name -> its call detectors, in order
_DERIVED: dict[str, Any] = {}  # from the registry, made when first asked: see _walked and _name_pattern


def detects(*node_types: str, names: Iterable[str] | None = None,
            calls: Callable[[str | None], bool] | None = None) -> Callable[[Detector], Detector]:
    """Register a detector for nodes of `node_types`; with `names`, only for such a node whose text is one of them
    (the detector must do nothing for any other). A detector of name nodes (_NAMES) must give its `names`. With
    `calls` (call_expression detectors only), only for a call whose unqualified callee name (None for a member
    call) it is true of: the detector must do nothing for any other call."""
    if names is None and set(node_types) & set(_NAMES):
        raise ValueError("a detector of name nodes says which names it acts on (names=...)")
    if calls is not None and set(node_types) != {"call_expression"}:
        raise ValueError("calls=... selects calls by their callee: call_expression detectors only")

    def register(detector: Detector) -> Detector:
        for t in node_types:
            DETECTORS.setdefault(t, []).append(detector)
        if names is not None:
            _WANTED[detector] = frozenset(n.encode() for n in names)
        if calls is not None:
            _CALL_WANTED[detector] = calls
        _CALLS.clear()
        _BY_CALLEE.clear()
        _DERIVED.clear()
        return detector
    return register


def _walked() -> tuple[str, ...]:
    """The node types with detectors, names aside (the walk asks for those apart)."""
    if "walked" not in _DERIVED:
        _DERIVED["walked"] = tuple(t for t in DETECTORS if t not in _NAMES)
    return _DERIVED["walked"]


def _name_pattern(shared: tuple[str, ...] = ()) -> re.Pattern:
    """Found where a name some detector of names acts on, or one of `shared` (the file's file-scope `__shared__`
    variables), starts. The names are grouped by their first byte, which sre tries several times faster than a
    plain list of alternatives (most bodies hold none of them, and all of their text is tried)."""
    if shared or "names" not in _DERIVED:
        pattern = re.compile(_grouped(set().union(*_WANTED.values(), (n.encode() for n in shared))) or rb"(?!)")
        if shared:
            return pattern
        _DERIVED["names"] = pattern
    return _DERIVED["names"]


def _call_detectors(name: str | None) -> tuple[Detector, ...]:
    """The detectors a call of `name` (its unqualified callee; None for a member call) goes to, in registration
    order."""
    found = _BY_CALLEE.get(name)
    if found is None:
        found = tuple(d for d in DETECTORS.get("call_expression", ())
                      if d not in _CALL_WANTED or _CALL_WANTED[d](name))
        if len(_BY_CALLEE) < 100_000:  # callee names repeat; bounded as _detectors is
            _BY_CALLEE[name] = found
    return found


def _overlapping(pattern: re.Pattern, text: bytes) -> Iterable[re.Match]:
    """The matches of `pattern` starting at every offset of `text` it matches at (each next search starts one byte
    after the last match's start, so a match inside a longer one is found too)."""
    m = pattern.search(text)
    while m is not None:
        yield m
        m = pattern.search(text, m.start() + 1)


def _name_offsets(sf: SourceFile, shared: Iterable[str]) -> list[list[int]] | None:
    """For each name some detector of names acts on, and each of `shared` (the file-scope `__shared__` variables),
    that is a token of the file's code: its offsets there (porter.source.parse's token index, which the matchers
    made already). A name node with one of those texts starts at one of them: outside comments and strings the
    parsed text is the file's, but for macro uses blanked to spaces. None where the index and the parser may split
    words differently (non-ASCII bytes, `$`): the caller then searches the body's text instead."""
    code = sf.code
    if b"$" in code or not code.isascii():
        return None
    tokens = sf.tokens()
    wanted = _DERIVED.get("wanted")
    if wanted is None:
        wanted = _DERIVED["wanted"] = frozenset().union(*_WANTED.values())
    names = [t for t in wanted | {n.encode() for n in shared} if t in tokens]
    return [tokens[t] for t in sorted(names)]


def _detectors(node_type: str, text: bytes) -> tuple[Detector, ...]:
    """The detectors a node of `node_type` with `text` goes to, in registration order."""
    key = (node_type, text)
    found = _CALLS.get(key)
    if found is None:
        found = tuple(d for d in DETECTORS.get(node_type, ()) if d not in _WANTED or text in _WANTED[d])
        if len(_CALLS) < 100_000:  # names repeat; a file of unique names must not grow this without bound
            _CALLS[key] = found
    return found


@detects(*_NAMES, names=WMMA_IDENTIFIERS)
def wmma_fragments(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    if n.text.decode() in WMMA_IDENTIFIERS:
        w["tensor"].add("wmma")


@detects("namespace_identifier", names=CUDA_ONLY_NAMESPACES)
def cuda_only_namespaces(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`cutlass::`, `cute::`: NVIDIA-only device libraries with no ROCm build."""
    name = n.text.decode()
    if name in CUDA_ONLY_NAMESPACES:
        w["libraries"].add(CUDA_ONLY_NAMESPACES[name])


@detects(*_NAMES, names=CUTE_TENSOR_NAMES)
def cute_tensor_names(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """CuTe tensor algebra (`cute::make_tensor`, or unqualified under `using namespace cute`)."""
    name = n.text.decode()
    if name in CUTE_TENSOR_NAMES:
        p = n.parent
        qualified = p is not None and p.type == "qualified_identifier" and p.text.decode().lstrip(":").startswith("cute::")
        if qualified or ctx.cute_scope:
            w["cute"].add(name)


@detects(*_NAMES, names=ASYNC_IDENTIFIERS)
def async_copy_names(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    name = n.text.decode()
    # `barrier` and `pipeline` are common words: only cuda::'s count.
    if name in ASYNC_IDENTIFIERS and (name not in ("barrier", "pipeline") or _in_cuda_ns(n)):
        w["async"].add(ASYNC_IDENTIFIERS[name])


@detects(*_NAMES, names=CLUSTER_IDENTIFIERS)
def cluster_names(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    name = n.text.decode()
    if name in CLUSTER_IDENTIFIERS:
        w["clusters"].add(CLUSTER_IDENTIFIERS[name])


@detects(*_NAMES, names=("this_grid",))
def grid_group_name(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    if n.text == b"this_grid":
        w["grid_sync"].append(n.start_point.row + 1)


@detects(*_NAMES, names=("warpSize",))
def warpsize_constant(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`warpSize` where a constant expression is needed (not constexpr since ROCm 7.0)."""
    if n.text == b"warpSize" and _constant_context(n):
        w["warpsize_const"].append(WarpSizeConstant(n.start_point.row + 1, _stmt_text(n)))


@detects("declaration")
def shared_declarations(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`__shared__` declarations, sized later with the kernel's template bindings."""
    if b"__shared__" in n.text and any(c.type == "type_qualifier" and c.text == b"__shared__" for c in n.children):
        w["shared_decls"].append(n)


_BALLOT_TEXT = re.compile(b"|".join(re.escape(b.encode()) for b in sorted(BALLOTS)))


@detects("declaration")
def ballot_in_32_bits(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """A ballot or active mask kept in a 32-bit integer (HIP returns 64 bits)."""
    if not _BALLOT_TEXT.search(n.text):  # no ballot named in the declaration, so in none of its values
        return
    ty = n.child_by_field_name("type")
    if ty is None:
        return
    tytext = " ".join(ty.text.decode().split())
    if tytext not in ("unsigned", "unsigned int", "uint32_t", "int", "uint", "std::uint32_t", "int32_t"):
        return
    for d in n.children:
        if d.type != "init_declarator":
            continue
        value = d.child_by_field_name("value")
        if value is None or not _BALLOT_TEXT.search(value.text):  # no ballot named: no identifier to look at
            continue
        names = {unqualified(c.text.decode()) for c in walk(value, ("identifier",))}
        hit = names & BALLOTS
        if hit:
            w["ballot32"].append(Ballot32(d.start_point.row + 1, tytext, sorted(hit)[0]))


@detects("declaration")
def lane_variables(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Variables initialised with a lane expression (`int lane = threadIdx.x % 32`), for lane_array_index."""
    text = n.text
    if b"%" not in text and b"&" not in text and b"lane" not in text:  # what any lane expression (_lane_expr) has
        return
    for d in n.children:
        if d.type == "init_declarator":
            name_node = d.child_by_field_name("declarator")
            value = d.child_by_field_name("value")
            if name_node is not None and value is not None and _lane_expr(value):
                w["lane_vars"].add(name_node.text.decode())


def _called(n: ts.Node) -> tuple[ts.Node | None, str | None]:
    """A call's function node and, unless it is a member call (`g.sync()`), its unqualified name."""
    fn = n.child_by_field_name("function")
    if fn is None:
        return None, None
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    if fn.type == "field_expression":
        return fn, None
    return fn, unqualified(fn.text.decode("utf-8", "replace"))


def _arguments(n: ts.Node) -> list[ts.Node]:
    args = n.child_by_field_name("arguments")
    return [a for a in (args.named_children if args is not None else []) if a.type != "comment"]


@detects("call_expression")
def device_launches(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`k<<<...>>>` inside device code: dynamic parallelism."""
    if b"<<<" in n.text and any(c.type == "kernel_call_syntax" for c in n.children):
        w["device_launches"].append(n.start_point.row + 1)


@detects("call_expression", calls=lambda name: name is not None)
def callees(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Names the body calls, to follow into same-file device functions."""
    fn, name = ctx.called(n)
    if name is not None:
        w["calls"].add(name)
        text = fn.text.decode("utf-8", "replace").split("<", 1)[0]  # `ns::f<T, 4>` is called as `ns::f`
        w["call_sites"].append(("".join(text.split()), n.start_point.row + 1))


@detects("call_expression", calls=WARP_OPS.__contains__)
def warp_operations(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Shuffles, votes, `__syncwarp` and their masks (a partial `__syncwarp` mask is recorded apart)."""
    _, name = ctx.called(n)
    if name not in WARP_OPS:
        return
    line = n.start_point.row + 1
    op = WarpOp(name, line)
    if name.endswith("_sync") or name == "__syncwarp":
        argv = _arguments(n)
        mask_node = argv[0] if argv else None
        mask_text = mask_node.text.decode("utf-8", "replace") if mask_node is not None else "(default: all lanes)"
        # A bare __syncwarp() syncs the whole warp or wavefront: it spells no 32-bit mask.
        value = fold(mask_node, ctx.env) if mask_node is not None else None
        kind = ("default" if mask_node is None else "full32" if value == FULL_MASK_32
                else "constant" if isinstance(value, int) else "runtime")
        op = WarpOp(name, line, mask_text, kind)
        if name == "__syncwarp" and kind not in ("full32", "default"):
            w["partial_syncwarp"].append(line)
    # An explicit width (`__shfl_xor_sync(m, v, o, 32)`, `__shfl_down(v, d, THREADS_PER_WARP)`) makes a shuffle work
    # in groups of that many lanes on any wave size; 32 is a logical 32-lane shuffle (see _wave_checks).
    if name.startswith("__shfl"):
        argv = _arguments(n)
        at = 3 if name.endswith("_sync") else 2
        if len(argv) > at:
            width = fold(argv[at], ctx.env)
            if isinstance(width, int):
                op = dataclasses.replace(op, width=width)
    w["warp_ops"].append(op)


@detects("call_expression", calls=lambda name: name is not None and name not in WARP_OPS
         and (name.startswith("atomic") or name == "atomic_ref"))
def atomics(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    _, name = ctx.called(n)
    if name is not None and name not in WARP_OPS and (name.startswith("atomic") or name == "atomic_ref"):
        w["atomics"].append(name)


@detects("call_expression", calls=lambda name: name in (None, "grid_sync", "sync"))
def grid_sync_calls(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`grid.sync()`, `grid_sync()`, `sync(grid)`: grid-wide synchronisation (cooperative launch)."""
    fn, name = ctx.called(n)
    if fn is None:
        return
    if name is None:
        field = fn.child_by_field_name("field")
        obj = fn.child_by_field_name("argument")
        if field is not None and field.text == b"sync" and obj is not None and "grid" in obj.text.decode().lower():
            w["grid_sync"].append(n.start_point.row + 1)
        return
    if name in WARP_OPS or name.startswith("atomic") or name == "atomic_ref":
        return
    if name == "grid_sync" or (name == "sync" and (argv := _arguments(n)) and "grid" in argv[0].text.decode().lower()):
        w["grid_sync"].append(n.start_point.row + 1)


@detects("call_expression", calls=lambda name: name == "tiled_partition")
def tiled_partition_32(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """`tiled_partition<32>`: a 32-lane group written into the code."""
    _, name = ctx.called(n)
    if name != "tiled_partition":
        return
    targs = n.child_by_field_name("function")
    if targs is not None and targs.type == "template_function" and b"32" in targs.text:
        w["lane"].append(LaneAssumption(n.start_point.row + 1, "tiled_partition<32>", targs.text.decode()))


@detects("gnu_asm_expression")
def inline_ptx(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Inline PTX statements and their instruction families (AMD GCN assembly is not PTX)."""
    ptx = _ptx(n)
    if ptx["families"] and not _amdgcn(ptx):
        w["ptx"].append(ptx)


@detects("binary_expression")
def lane_literals(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Lane arithmetic written with 32 (`tid % 32`, `lane & 31`, `tid / 32`), or with a warp-size constant the
    project defines as 32 (`tid % WARP_SIZE` under `#define WARP_SIZE 32` in a header)."""
    op = n.child_by_field_name("operator")
    if op is None or op.type not in _LANE_VALUES:  # neither reads any other operator: most of a body's arithmetic
        return
    lane = _lane_literal(n) or _lane_constant(ctx, n)
    if lane:
        w["lane"].append(LaneAssumption(n.start_point.row + 1, lane, n.text.decode("utf-8", "replace")))


@detects("for_statement")
def reduction_loops(ctx, n: ts.Node, w: dict[str, Any]) -> None:
    """Shuffle-reduction loops that start at 16 (`for (o = 16; o > 0; o >>= 1)`): five steps cover 32 lanes only."""
    if b"__shfl" not in n.text:  # no shuffle in the loop, so none in its body (_reduction_loop asks the body)
        return
    red = _reduction_loop(n, ctx)
    if red:
        w["lane"].append(LaneAssumption(n.start_point.row + 1, red, _first_line(n)))


def lane_array_index(ctx, fn: Function, w: dict[str, Any], skip: Callable[[int], bool] | None = None) -> None:
    """32-wide arrays indexed by a lane (`__shared__ float s[32]; s[lane] = ...`): needs the whole body's lane
    variables, so it runs after the walk; the body's subscripts are read only when it declares such an array
    (most declare none). `skip`: lines (1-based) whose subscripts are left out, as the walk leaves their nodes."""
    arrays32 = ctx._arrays_of_32(fn)
    lane_vars = w.pop("lane_vars")
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
        if any(v in re.findall(r"[A-Za-z_]\w*", itext) for v in lane_vars) or _lane_expr(idx):
            w["lane"].append(LaneAssumption(sub.start_point.row + 1, "array[32] indexed by lane",
                                            sub.text.decode("utf-8", "replace")))


def _empty_walk() -> dict[str, Any]:
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


def _grouped(words: Iterable[bytes]) -> bytes:
    """An alternation of `words` grouped by their first byte (longest first within a group): it matches where the
    plain list does, and sre tries it several times faster (it is tried at every offset of a text without one)."""
    by_first: dict[bytes, list[bytes]] = {}
    for word in sorted(set(words), key=lambda b: (-len(b), b)):
        by_first.setdefault(word[:1], []).append(word[1:])
    return b"|".join(re.escape(first) + b"(?:" + b"|".join(re.escape(rest) for rest in rests) + b")"
                     for first, rests in sorted(by_first.items()))


# ... or a lane constant standing alone (`\b32\b`), spelt literal first and the word boundary before it as a
# lookbehind after it: a leading `\b` keeps sre from skipping ahead to a literal's first byte.
_MAY_HOLD_FACTS = re.compile(_grouped(_FACT_WORDS)
                             + rb"|3[12](?<!\w3[12])\b|0x1[fF](?<!\w0x1[fF])\b|5(?<!\w5)\b|16(?<!\w16)\b")


# The walk's parts _body_facts makes the HELPER_FACT_KEYS of (inline_ptx and the PTX-spelt features from "ptx").
_HELPER_WALK_KEYS = ("warp_ops", "lane", "ballot32", "warpsize_const", "tensor", "ptx", "async", "clusters", "atomics",
                     "grid_sync", "device_launches", "partial_syncwarp", "libraries", "cute")


def _body_facts(merged: dict[str, Any], cluster_dims: bool = False) -> dict[str, Any]:
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


def _merge(walks: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in walks[0]:
        if isinstance(walks[0][key], set):
            out[key] = set().union(*(w[key] for w in walks))
        else:
            out[key] = [x for w in walks for x in w[key]]
    out["warp_ops"].sort(key=lambda x: (x.line, x.op))
    out["lane"].sort(key=lambda x: (x.line, x.kind))
    return out


_TEXT = operator.attrgetter("text")
_OCCUPANCY = re.compile(rb"\b(?:cuda|hip)OccupancyMaxActiveBlocksPerMultiprocessor\w*\s*\(\s*&\s*([A-Za-z_]\w*)")


def _occupancy_outputs(body: ts.Node | None) -> set[str]:
    """Variables the occupancy API writes (`cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, 0)`)."""
    return {m.group(1).decode() for m in _OCCUPANCY.finditer(body.text)} if body is not None else set()


def _template_params(fn_node: ts.Node) -> list[TemplateParameter]:
    parent = fn_node.parent
    if parent is None or parent.type != "template_declaration":
        return []
    plist = parent.child_by_field_name("parameters")
    out = []
    for p in plist.named_children if plist is not None else ():
        if p.type == "comment":
            continue
        name = None
        for c in reversed(p.named_children):
            if c.type in ("identifier", "type_identifier"):
                name = c.text.decode()
                break
        if p.type in ("optional_parameter_declaration", "optional_type_parameter_declaration"):
            nm = p.child_by_field_name("declarator") or p.child_by_field_name("name")
            name = nm.text.decode() if nm is not None else name
        kind = "type" if "type_parameter" in p.type else "value"
        out.append(TemplateParameter(name, kind, p.text.decode("utf-8", "replace")))
    return out


def _unwrap_declarator(d: ts.Node) -> tuple[str, list[ts.Node | None], bool]:
    extents: list[ts.Node | None] = []
    pointer = False
    while d is not None and d.type != "identifier":
        if d.type == "array_declarator":
            extents.append(d.child_by_field_name("size"))
        elif d.type == "pointer_declarator":
            pointer = True
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            break
        d = nxt
    return (d.text.decode("utf-8", "replace") if d is not None else "?"), list(reversed(extents)), pointer


def _declarator_names(decl: ts.Node) -> list[str]:
    names = []
    for d in decl.children:
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator")
        if d is not None and d.type in ("identifier", "array_declarator", "pointer_declarator"):
            names.append(_unwrap_declarator(d)[0])
    return names


def _enclosing_call(root: ts.Node, offset: int) -> ts.Node | None:
    n = root.descendant_for_byte_range(offset, offset + 1)
    while n is not None and n.type != "call_expression":
        n = n.parent
    return n


def _in_cuda_ns(n: ts.Node) -> bool:
    p = n.parent
    return p is not None and p.type == "qualified_identifier" and p.text.decode().startswith(("cuda::", "::cuda::"))


_CONST_CONTEXTS = {"array_declarator", "template_argument_list", "static_assert_declaration", "enumerator", "case_statement",
                   "preproc_def"}


def _constant_context(n: ts.Node) -> bool:
    """Whether an identifier sits where C++ needs a constant: array bound, template argument, static_assert, constexpr."""
    p = n.parent
    while p is not None and p.type not in ("compound_statement", "function_definition", "translation_unit",
                                           "expression_statement", "for_statement", "if_statement"):
        if p.type in _CONST_CONTEXTS:
            if p.type == "array_declarator" and n.start_byte < (p.child_by_field_name("size") or p).start_byte:
                return False
            return True
        if p.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in p.children):
            return True
        p = p.parent
    return False


def _stmt_text(n: ts.Node) -> str:
    p = n
    while p.parent is not None and p.parent.type not in ("compound_statement", "translation_unit"):
        p = p.parent
    return _first_line(p)


def _first_line(n: ts.Node) -> str:
    return n.text.decode("utf-8", "replace").split("\n")[0].strip()[:160]


def _lane_expr(n: ts.Node) -> bool:
    text = n.text.decode("utf-8", "replace")
    return bool(re.search(r"%\s*32\b|&\s*(?:31|0x1[fF])\b|laneid|lane_id|\blane\b", text))


def _lane_literal(n: ts.Node) -> str | None:
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
_LANE_VALUES = {"%": (32, "% {}"), "/": (32, "/ {}"), "&": (31, "& {}"), ">>": (5, ">> {}")}


def _warp_constant(ctx, node: ts.Node, want: int) -> str | None:
    """`node`'s name when it is a warp-named constant that folds to `want` in every build (a constant the
    repository defines per build, 32 for CUDA and 64 for ROCm, is already ported: ctx.alternatives)."""
    if node.type not in ("identifier", "qualified_identifier"):
        return None
    name = node.text.decode("utf-8", "replace")
    if not WARPISH.search(name) or unqualified(name) in ctx.alternatives:
        return None
    return name if fold(node, ctx.env) == want else None


def _lane_constant(ctx, n: ts.Node) -> str | None:
    """`tid % WARP_SIZE`, `lane & kWarpMask`, `tid / kWarp` with the constant 32 (31 for &, 5 for >>)."""
    op, right, left = n.child_by_field_name("operator"), n.child_by_field_name("right"), n.child_by_field_name("left")
    if op is None or right is None or left is None or op.type not in _LANE_VALUES:
        return None
    want, kind = _LANE_VALUES[op.type]
    name = _warp_constant(ctx, right, want)
    if name is None or not LANEISH.search(left.text.decode("utf-8", "replace")):
        return None
    return kind.format(f"{name} (= {want})")


def _reduction_loop(n: ts.Node, ctx=None) -> str | None:
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
    in every build, spelt as written: "WARP_SIZE / 2 (= 16)"."""
    if not WARPISH_BYTES.search(init.text):  # no warp-named constant in it
        return None
    for d in walk(init, ("init_declarator", "assignment_expression")):
        value = d.child_by_field_name("value") or d.child_by_field_name("right")
        if value is None:
            continue
        names = [x.text.decode("utf-8", "replace") for x in walk(value, ("identifier",))]
        warp = [x for x in names if WARPISH.search(x)]
        if warp and not any(x in ctx.alternatives for x in names):
            v = fold(value, ctx.env)
            if v in (16, 32):
                return f"{value.text.decode('utf-8', 'replace')} (= {v})"
    return None


# AMD GCN mnemonics and builtins: assembly HIP code is meant to use, never PTX.
AMDGCN_ASM = re.compile(r"^(?:v|s|ds|buffer|global|flat|scratch|image|exp)_[a-z0-9_]+$|^__builtin_amdgcn_")


def _amdgcn(ptx: dict[str, Any]) -> bool:
    return all(AMDGCN_ASM.match(f) for f in ptx["families"])


_PTX_FAMILY_SET = frozenset(PTX_FAMILIES)


def _ptx_family(opcode: str) -> str | None:
    """The longest of PTX_FAMILIES that is the opcode or a dotted prefix of it (`cp.async.bulk.tensor.2d...`)."""
    parts = opcode.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in _PTX_FAMILY_SET:
            return prefix
    return None


def _string_literals(node: ts.Node) -> list[ts.Node]:
    """The string literals at or under `node`, in tree order (a string literal holds none, so none is entered)."""
    out: list[ts.Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "string_literal":
            out.append(n)
        else:
            stack.extend(reversed(n.children))
    return out


def _string_text(s: ts.Node) -> str:
    """A string literal's characters as written (escapes kept): its contents and escapes, which are all of what
    lies between its quotes (the grammar gives a string literal no other child); read from the children when the
    literal is not one closed `"..."` without errors (a prefix, a missing quote, a line continuation)."""
    text = s.text
    if (text[:1] == b'"' and text[-1:] == b'"' and len(text) >= 2 and not s.has_error
            and s.child_count == s.named_child_count + 2):
        return text[1:-1].decode("utf-8", "replace")
    return "".join(c.text.decode("utf-8", "replace") for c in s.named_children
                   if c.type in ("string_content", "escape_sequence"))


def _ptx(n: ts.Node) -> dict[str, Any]:
    code = n.child_by_field_name("assembly_code")
    parts = []
    if code is not None:
        nodes = [code] if code.type == "string_literal" else [c for c in code.named_children if c.type == "string_literal"]
        if code.type == "concatenated_string" or not nodes:
            nodes = _string_literals(code)
        for s in nodes:
            parts.append(_string_text(s))
    text = "\n".join(parts).replace("\\n", "\n").replace("\\t", " ")
    families = set()
    for instr in _INSTR_SPLIT.split(text):
        instr = instr.strip().lstrip("{}").strip()
        if not instr or instr.startswith((".reg", ".shared", ".local", ".param", "//", "}")) or instr.endswith(":"):
            continue
        if instr.startswith("@"):
            instr = instr.split(None, 1)[1] if " " in instr else ""
        opcode = instr.split()[0] if instr.split() else ""
        if not _OPCODE.fullmatch(opcode):
            continue  # operands of an instruction split over lines (`{%0,%1},`), not a mnemonic
        families.add(_ptx_family(opcode) or opcode.split(".")[0])
    families.discard("")
    return {"line": n.start_point.row + 1, "families": sorted(families), "text": text}
