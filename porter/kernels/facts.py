"""Measure what a CUDA kernel does from its tree-sitter tree: shared memory, launches, warp and lane assumptions, PTX.

One walk over each kernel's body (and the same-file device functions it calls, transitively) hands every node of a
type some detector reads to the detectors registered for that type (`DETECTORS`, one detector per fact, in facts_detectors),
which collect the facts kernel analysis decides on. The nodes come type by type from the file's node index
(porter.kernels.nodes, sliced from the whole-file query); name nodes only where the body's text holds a name a
detector acts on. Values are folded with porter.kernels.constfold; a value that cannot be folded is recorded
with the reason under `unknown`, never guessed. Everything returned is plain JSON data (dicts, lists, ints).

This module holds the file context and the walk; its parts live beside it: the names looked for
(facts_vocabulary), the detectors and their registry (facts_detectors), lane arithmetic (facts_lanes), inline PTX
(facts_ptx), what a walk holds and the facts walks give (facts_walk), shared memory (facts_shared) and the host
side of launches (facts_launches).
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
import weakref
from typing import Any, Callable, Iterable

import tree_sitter as ts

from porter.kernels.constfold import Constants, build_constants, fold, split_template_arguments
from porter.kernels.facts_detectors import (DETECTORS, NAMES, call_detectors, call_target, callees, detectors_of,
                                            member_callees, name_offsets, operator_callees, name_pattern, overlapping, own_member,
                                            restrict_on_value, walked_types)
from porter.kernels.asm_macros import asm_macro_helpers
from porter.kernels.facts_indexing import indexed_block
from porter.kernels.facts_lanes import WARPISH_BYTES, lane_array_index
from porter.kernels.facts_launches import Dim3Write, LaunchMeasure
from porter.kernels.facts_shared import SharedMemoryMeasure, struct_sizes, template_params
from porter.kernels.facts_vocabulary import (DEVICE_COMM_NCCL, DEVICE_COMM_NVSHMEM, DEVICE_COMM_NVSHMEM_RMA, FULL_MASK_32,
                                            NCCL_DEVICE_TYPES, WARP_OPS, grouped)
from porter.kernels.facts_walk import HELPER_WALK_KEYS, MAY_HOLD_FACTS, Walk, body_facts, merge_walks
from porter.kernels.member_calls import OPERATOR, enclosing_class, enclosing_scope, member_key, operand_class
from porter.kernels.nodes import NodeIndex
from porter.model.kernel import (DeviceFunction, DeviceHelper, Kernel, KernelFacts, SharedMemory, TemplateParameter,
                                 Unresolved, WaveName)
from porter.source import syntax
from porter.source.parse import Function, SourceFile, unqualified


# A name spelt like a wave-size constant, as DEV017 (rules/device/DEV017-fixed-wave-size-64.yaml) names them: the
# uses kernel analysis matches against the constants a ROCm arm fixes at 64. `warpSize` itself is HIP's builtin.
WAVE_NAME = re.compile(rb"[A-Za-z_]\w*|\d\w*")
_WAVE_PART = re.compile(rb"WARP_SIZE|WarpSize|warpSize|Warp_Size|warp_size|WAVE_SIZE|WaveSize|wave_size|WAVEFRONT_SIZE"
                        rb"|WavefrontSize|wavefront_size|THREADS_PER_WARP|WARPSIZE|WAVESIZE|WAVEFRONTSIZE|ThreadsPerWarp"
                        rb"|threads_per_warp")  # the names DEV017 reads (rules/device/DEV017-fixed-wave-size-64.yaml)
NCCL_TYPE_WORD = re.compile(r"\b(?:" + "|".join(sorted(NCCL_DEVICE_TYPES)) + r")\b")


def measure_file(sf: SourceFile, extra_constants: dict[str, Any] | None = None,
                 alternatives: dict[str, tuple[int, ...]] | None = None) -> list[Kernel]:
    """Every kernel of a parsed CUDA file with its facts filled in. `alternatives`: constants of other files with
    a value per build (`kWarpSize` 32 or 64), which bound a shared-memory size by the largest it can be."""
    kfs = syntax.kernel_functions(sf)
    if not kfs:
        return []
    ctx = _file_context(sf, extra_constants)
    ctx.alternatives = {k: v for k, v in (alternatives or {}).items() if k not in ctx.env.sources}
    # names with a 32 and a 64 build wherever they are defined, this file too (hashinator's split_tools.h defines
    # WARPLENGTH 32 under __NVCC__ and 64 under __HIP__ above the kernels that shuffle with it)
    ctx.paired_alternatives = alternatives or {}
    return [dataclasses.replace(kernel, facts=ctx.kernel_facts(kernel, fn)) for kernel, fn in kfs]


def measure_helpers(sf: SourceFile, extra_constants: dict[str, Any] | None = None,
                    build_names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
                    ) -> tuple[DeviceHelper, ...]:
    """The file's `__device__` functions as kernels in other files see them (porter.kernels.callgraph): each with
    the facts of its body and its same-file callees, and the calls its file does not define. Code in an arm only
    the CUDA build compiles (`#ifdef PTX_AVAILABLE` with a portable `#else`, `build_names` naming the repository's
    ROCm-side and CUDA-side macros) is left out: the helper already has its HIP path there."""
    fns = [f for f in sf.functions if f.is_device and not f.is_kernel and f.node.child_by_field_name("body") is not None]
    macros = asm_macro_helpers(sf)
    if not fns:
        return macros
    ctx = _file_context(sf, extra_constants)
    ctx.cuda_only = _cuda_only_lines(sf, build_names)
    out = []
    for f in fns:
        h = ctx.helper(f)
        out.append(h)
        # a class's member function is also reached by member calls on an object of that class (`acc.get(x, y)`
        # on a `Surface<float4> acc`: porter.kernels.member_calls), under the key only that class's member has; a
        # non-member operator by operators on objects of its first parameter's class (`a * b` on Fp: Fp.operator*)
        cls = (owning_class(f) or operand_class(f.node, f.name)) if f.name != OPERATOR else None
        if cls is not None:
            out.append(dataclasses.replace(h, name=member_key(cls, f.name)))
    return tuple(out) + macros


_VENDORISH = (b"hip", b"rocm", b"amd")  # in the lower-cased text (bytes.lower is ASCII, as re's IGNORECASE on bytes)


@functools.lru_cache(maxsize=8)
def _build_names_pattern(build_names: tuple[frozenset[str], frozenset[str]]) -> re.Pattern | None:
    """Found in a text that names any of the repository's build-side macros (one search instead of one per name);
    None when it has none."""
    names = (*build_names[0], *build_names[1])
    return re.compile(grouped(n.encode() for n in names)) if names else None


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
    cuda_only.regions = tuple((r.start, r.end) for r in regions)  # type: ignore[attr-defined]
    return cuda_only


def _file_context(sf: SourceFile, extra_constants: dict[str, Any] | None) -> FileContext:
    """One context per parsed file, shared by the kernels' and the helpers' measurement."""
    ctx = sf.cache.get("kernel_context")
    if ctx is None:
        ctx = FileContext(sf, extra_constants=extra_constants)
        sf.cache["kernel_context"] = ctx
    return ctx


# Calls never followed into another file: CUDA's own intrinsics (`__shfl_sync`, `__ldg`: a repository that defines
# one is shimming the toolkit, usually for HIP) and the warp and atomic operations detectors already read.
# CUDA's own atomics (`atomicAdd`, `atomicCAS_system`, `atomicMax_block`): calls of the runtime, not of a helper, even
# where the project overloads one for a type (a double atomicAdd polyfill). A project's own `atomicAddComplexShared`
# or `atomicMaxFloat` is a helper like any other and is followed (FINUFFT's shared-memory spreading reaches
# atomicAdd_block only through one).
_CUDA_ATOMIC = re.compile(r"atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)(?:_system|_block)?\Z")


def owning_class(fn: Function) -> str | None:
    """The class whose member `fn` is: the one whose body it is written in, or the one an out-of-class definition
    names (`template <> __device__ void cuVec<uint32>::insertAggr(...) {...}`: a member function defined outside
    its class by its qualified name is that class's member, C++ [class.mfct]). A qualifier that is a namespace
    (`ns::f`) gives a key no member call names, as member calls come only from objects of a class type."""
    cls = enclosing_class(fn.node)
    if cls is not None:
        return cls
    scope = enclosing_scope(fn.node)
    return scope[1] if scope[:1] == ("scoped",) else None


def member_name(fn: Function) -> str:
    """A helper's name as calls reach it: `Cls::operator()` for a call operator of a class, defined in its body or
    outside it (`MergeKernel<K, V>::operator()() const {...}`) (two classes' operators are two helpers, not overloads
    of one), else the function's name."""
    cls = owning_class(fn) if fn.name == OPERATOR else None
    return member_key(cls, OPERATOR) if cls is not None else fn.name


def followed_call(name: str) -> bool:
    return not name.startswith("__") and name not in WARP_OPS and not _CUDA_ATOMIC.match(name)



# A function-like macro's definition (name, parameters, body) and the calls in a body: a name before `(`, maybe with
# a template argument list between (`dev_sort<T, V>(a, b)`). Keywords and casts that read like calls are not.
_FUNCTION_LIKE_MACRO = re.compile(r"([A-Za-z_]\w*)\(([^()]*)\)(.*)", re.S)
_MACRO_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;{}()<>]*>\s*)?\(")
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "do",
                        "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "defined", "asm",
                        "__asm__", "volatile"})
_MACRO_CALLS_MAX = 256  # names one macro may reach through others (a budget on a macro web)
_CALLEE_VISITS = 4096  # (function, template binding) pairs one kernel's callee walk visits at most
_INTEGER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*")
_WORD = re.compile(r"[A-Za-z_]\w*")


def _params_of(f: Function) -> list[TemplateParameter]:
    """template_params(f.node), read once per Function: a kernel's callee walk asks it of every candidate of every
    call, per binding (5% of a cold FasterTransformer scan, each answer a walk of the parameter list and its texts).
    Kept in the Function's own __dict__ (its node and tree never change; no field, so no comparison, sees it).
    The list is the callers' to read, never to change."""
    found: list[TemplateParameter] | None = f.__dict__.get("_template_params")
    if found is None:
        found = f.__dict__["_template_params"] = template_params(f.node)
    return found


def _specialization_arguments(f: Function) -> list[str] | None:
    """The template arguments of an explicit specialization (`template <> f<uint32_t, 4>(...)`), else None (once
    per Function, as _params_of; a copy, which callers may change)."""
    found = f.__dict__.get("_specialization")
    if found is None:
        found = f.__dict__["_specialization"] = (_specialization_of(f),)
    return None if found[0] is None else list(found[0])


def _specialization_of(f: Function) -> list[str] | None:
    parent = f.node.parent
    if parent is None or parent.type != "template_declaration" or _params_of(f):
        return None
    name = f.qualified_name
    if "<" not in name or not name.endswith(">"):
        return None
    return split_template_arguments(name[name.index("<") + 1:-1])


def _defaults(cands: Iterable[Function]) -> list[str | None]:
    """The default arguments of the primary template among `cands` (None where a parameter has none)."""
    for f in cands:
        params = _params_of(f)
        if params and _specialization_arguments(f) is None:
            return [p.text.split("=", 1)[1].strip() if "=" in p.text else None for p in params]
    return []


def _resolve_arguments(args: list[str], env: dict[str, str], cands: Iterable[Function]) -> list[str | None]:
    """A call's template arguments with the caller's bound parameters replaced (None: not known here) and the
    positions it leaves out filled by the primary template's defaults."""
    out: list[str | None] = [env.get(a.strip(), a.strip()) for a in args]
    defaults = _defaults(cands)
    out.extend(defaults[len(out):])
    return out


def _may_select(spec: list[str], resolved: list[str | None]) -> bool:
    """Whether a call whose arguments resolve to `resolved` may select the specialization `spec`: no position holds
    two different integers."""
    for i, a in enumerate(spec):
        r = resolved[i] if i < len(resolved) else None
        if r is not None and _INTEGER.fullmatch(a.strip()) and _INTEGER.fullmatch(r.strip()) \
                and int(a.strip().rstrip("uUlL"), 0) != int(r.strip().rstrip("uUlL"), 0):
            return False
    return True


def _bind(f: Function, resolved: list[str | None]) -> tuple[tuple[str, str], ...]:
    """`f`'s template parameters bound to the call's resolved arguments (those that are integers or names that are
    not `f`'s own parameters), as a sorted tuple."""
    params = [p.name for p in _params_of(f)]
    out = {}
    for name, value in zip(params, resolved):
        if name and value is not None and value not in params:
            out[name] = value
    return tuple(sorted(out.items()))


class FileContext(SharedMemoryMeasure, LaunchMeasure):
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
                # a member function also by its class (`Surface.get`), as member calls on a typed object name it
                cls = owning_class(f) or operand_class(f.node, f.name)
                if cls is not None:
                    self.by_name.setdefault(member_key(cls, f.name), []).append(f)
        self.declarations: dict = {}  # declarations by scope (porter.kernels.member_calls)
        self._locals: dict[int, dict[str, Any]] = {}
        self._scoped_locals: dict[int, dict[str, list[tuple[int, int, int, Any]]]] = {}  # (_host_locals)
        self._writes: dict[int, dict[str, list[tuple[int, int, int, Any]]]] = {}  # reassigned locals (_host_locals)
        self._dim3_writes: dict[int, dict[str, list[Dim3Write]]] = {}  # dim3 locals set member by member
        self._sm_vars: dict[int, set[str]] = {}
        self._occupancy_vars: dict[int, set[str]] = {}
        self._walks: dict[Any, Walk] = {}  # by the function's start (and whether lines are skipped)
        self._template_call_memo: dict[tuple[int, str, frozenset[str]], list[list[str]]] = {}  # (_template_calls)
        self._declared: dict[int, frozenset[str]] = {}  # by the function's start: its parameters' and variables' names
        self._launch_host_types: dict[int, dict[str, int]] | None = None
        self._fact_text: dict[int, bool] = {}
        self._launchers: dict[int, bool] = {}  # by the function's start (_host_launcher)
        self._last_call: tuple[ts.Node, tuple[ts.Node | None, str | None]] | None = None
        self.nodes = NodeIndex(sf.root)
        self._type_params: set[str] = set()
        self.launches = syntax.launch_spans(sf)
        self.func_attrs = self._func_attributes()
        self.file_shared = self._file_scope_shared()
        self._name_offsets = name_offsets(sf, self.file_shared)
        self._name_pattern: re.Pattern | None = None  # made where the token index cannot say (_names)
        # `using namespace cute;` makes CuTe's unqualified names (make_tensor, Tensor) CuTe's.
        self.cute_scope = b"using namespace cute" in sf.data
        self.defined = {f.name for f in sf.functions}
        self.cuda_only: Callable[[int], bool] | None = None  # set for helpers (measure_helpers)
        self.alternatives: dict[str, tuple[int, ...]] = {}  # set by measure_file
        self.paired_alternatives: dict[str, tuple[int, ...]] = {}  # set by measure_file: this file's too

    @functools.cached_property
    def env(self) -> Constants:
        """The file's constants (porter.kernels.constfold.build_constants), built when something is first folded:
        a header of helpers that fold nothing (arithmetic on vector types) needs none."""
        return build_constants(self.sf.root, self.sf.data, self._extra_constants)

    @functools.cached_property
    def _fallback_spans(self) -> tuple[tuple[int, int], ...]:
        """(first, last) lines of the arms hip-clang never compiles because a CUDA toolkit version or nvcc's macro
        decides a group whose `#else` holds the HIP path (preprocessor.toolkit_fallback_spans), or no build compiles
        because the file's own switch constant decides it (`#define GPUJPEG_IDCT_USE_ASM 0` / `#if
        GPUJPEG_IDCT_USE_ASM`: preprocessor.switch_dead_spans), sorted."""
        if b"#" not in self.sf.data:
            return ()
        from porter.source.preprocessor import preprocessed, switch_dead_spans, toolkit_fallback_spans

        pre = preprocessed(self.sf)
        return tuple(sorted(switch_dead_spans(pre, self.sf.data) + (
            toolkit_fallback_spans(pre) if b"VERSION" in self.sf.data or b"__NVCC__" in self.sf.data else ())))

    @functools.cached_property
    def toolkit_fallback(self) -> Callable[[int], bool] | None:
        """Whether a line sits in one of the _fallback_spans: a kernel's facts are those of the code the ROCm build
        compiles there (libSGM's width-32 `__shfl_xor` fallback, not the `#if CUDA_VERSION >= 9000` arm's
        `__shfl_xor_sync(0xffffffff, ...)`). None when the file has no such arm."""
        spans = self._fallback_spans
        if not spans:
            return None
        starts = [a for a, _ in spans]
        # the furthest end of the spans starting at or before each one: some span holds a line exactly when that of
        # the last span starting at or before it reaches it (nested arms included), one bisection per line
        reach = list(itertools.accumulate((b for _, b in spans), max))

        def dropped(line: int) -> bool:
            i = bisect.bisect_right(starts, line) - 1
            return i >= 0 and reach[i] >= line
        return dropped

    @functools.cached_property
    def struct_sizes(self) -> dict[str, int]:
        """sizeof of the file's plain structs (struct_sizes), made when a type is first sized."""
        return struct_sizes(self.sf.root, self.env)

    # ------------------------------------------------------------------------------------------ per kernel

    def kernel_facts(self, kernel: Kernel, fn: Function) -> KernelFacts:
        unknown: list[Unresolved] = []
        tparams = _params_of(fn)
        env = self.env.with_template_params(p.name for p in tparams if p.name)
        self._type_params = {p.name for p in tparams if p.name and p.kind == "type"}
        device_fns = self._callees(fn)
        fallback = self.toolkit_fallback
        walks = [self._walk(fn, fallback, "toolkit")] + [self._walk(f, fallback, "toolkit") for f in device_fns]
        merged = merge_walks(walks)
        header = self.sf.text(fn.start_byte, fn.node.child_by_field_name("body").start_byte
                              if fn.node.child_by_field_name("body") is not None else fn.end_byte)
        # A kernel handed NCCL's device communicator or window (`const ncclDevComm_t comm`) talks through NCCL's
        # device API even when its calls go through the project's own wrapper object.
        if "nccl" in header and NCCL_TYPE_WORD.search(header):
            merged.libraries.add(DEVICE_COMM_NCCL)
        # NVSHMEM data movement makes the kernel a transport only when its own body issues it (pplx's and DeepEP's
        # dispatch/combine); one reached through a device function (a barrier built on remote atomics, SuperLU's
        # message forwarding under its waits) is NVSHMEM device code like a wait (judged a fix in heldout6/7).
        if DEVICE_COMM_NVSHMEM_RMA in merged.libraries and DEVICE_COMM_NVSHMEM_RMA not in walks[0].libraries:
            merged.libraries = (merged.libraries - {DEVICE_COMM_NVSHMEM_RMA}) | {DEVICE_COMM_NVSHMEM}

        sites = self._launch_sites(kernel, unknown)
        shared_unknown: list[Unresolved] = []
        arrays, extern = self._shared(merged.shared_decls, env, shared_unknown, merged.identifiers)
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
        return KernelFacts(
            lines=kernel.end_line - kernel.line + 1,
            template_parameters=tuple(tparams),
            device_functions=tuple(DeviceFunction(f.name, f.start_line, f.end_line, self.markers(f)) for f in device_fns),
            launch_sites=tuple(sites),
            shared_memory=shared,
            launch_bounds=bounds,
            **self._with_dropped(body_facts(merged, cluster_dims="__cluster_dims__" in header), fn),
            calls=self._external_calls(walks),
            unknown=tuple(unknown),
            tensor_arch_arms=_tensor_arch_arms(self.sf, fn.start_line, fn.end_line)
            if merged.tensor or any(s["families"] for s in merged.ptx) else (),
            wave_arms=self._wave_arms([(fn.start_line, fn.end_line)] + [(f.start_line, f.end_line) for f in device_fns]),
            indexed_block=indexed_block(fn.node.child_by_field_name("body"), env, self.nodes),
            skipped_arms=self._skipped_arms([(fn.start_line, fn.end_line)]
                                            + [(f.start_line, f.end_line) for f in device_fns]),
            named_outside=self._named_outside(kernel)[0] if kernel.is_template else True,
            named_dead=self._named_outside(kernel)[1] if kernel.is_template else False,
        )

    def _named_outside(self, kernel: Kernel) -> tuple[bool, bool]:
        """Whether the kernel's name is a code token of its file outside its definition (kernel.line ..
        end_line) on a line some build compiles: not in `#if 0` (preprocessor dead lines) nor in an arm the file's
        own defines rule out (switch_dead_spans, bare defines included), as syntax.launches reads them; and whether
        it is such a token only on lines no build compiles (KernelFacts.named_dead)."""
        from porter.source import preprocessor

        key = (kernel.name, kernel.line)
        memo = self.sf.cache.setdefault("facts.named_outside", {})
        if key in memo:
            return memo[key]
        sf = self.sf
        offsets = sf.tokens().get(kernel.name.encode(), [])
        lines = [sf.position(o)[0] for o in offsets]
        lines = [l for l in lines if not kernel.line <= l <= kernel.end_line]
        if not lines or not preprocessor.may_hold_directives(sf.data):
            got = (bool(lines), False)
        else:
            pre = preprocessor.preprocessed(sf)
            spans = preprocessor.switch_dead_spans(pre, sf.data, bare=True)
            live = any(l not in pre.dead and not any(a <= l <= b for a, b in spans) for l in lines)
            got = (live, not live)
        memo[key] = got
        return got

    def _skipped_arms(self, spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        """The toolkit_fallback arms that overlap `spans` (the kernel and its same-file callees; an arm may hold the
        whole kernel)."""
        return tuple(a for a in self._fallback_spans if any(a[0] <= hi and a[1] >= lo for lo, hi in spans))

    def _wave_arms(self, spans: list[tuple[int, int]]) -> tuple[tuple[int, int, int], ...]:
        """The wave-size arms (preprocessor.wave_size_arms) inside `spans` whose name no file of the repository
        defines (not a constant here, nor one defined per build: ctx.alternatives), so the build passes it per
        device (`-DWARP_SIZE=` from the device's warp size) and each target compiles its own arm."""
        return tuple((a, b, wave) for a, b, wave, name in self._file_wave_arms
                     if name not in self.env.sources and name not in self.alternatives
                     and any(lo <= a and b <= hi for lo, hi in spans))

    @functools.cached_property
    def _file_wave_arms(self) -> tuple[tuple[int, int, int, str], ...]:
        """The file's wave-size arms (preprocessor.wave_size_arms), asked once per file (each kernel reads them): the
        file's search for a warp-like name ran again for every kernel."""
        if b"==" not in self.sf.data or not WARPISH_BYTES.search(self.sf.data):
            return ()
        from porter.source.preprocessor import preprocessed, wave_size_arms  # as in _tensor_arch_arms

        return wave_size_arms(preprocessed(self.sf))

    def _with_dropped(self, body: dict[str, Any], fn: Function) -> dict[str, Any]:
        """`body` (body_facts) with DROPPED_ON_HIP among its clang differences when hip-clang compiles the kernel's
        definition to nothing (preprocessor.hip_dropping_arm: an arm only NVIDIA's compiler or toolkit macros
        select, `#if __CUDACC_VER_MAJOR__ >= 8` around a whole file) and no arm HIP may compile defines a kernel
        of that name in its place (`#if __CUDA_ARCH__ < 750` stub / `#else` real kernel): the kernel is missing
        from the ROCm build, silently when its launches sit in the same arm. At the arm's directive line."""
        if b"#" not in self.sf.data:
            return body
        from porter.source.preprocessor import hip_dropping_arm, preprocessed  # as in _tensor_arch_arms

        pre = preprocessed(self.sf)
        arm = hip_dropping_arm(pre, fn.start_line)
        if arm is None or any(f.is_kernel and f.name == fn.name and f.start_line != fn.start_line
                              and hip_dropping_arm(pre, f.start_line) is None for f in self.sf.functions):
            return body
        return {**body, "clang_differs": tuple(sorted(set(body["clang_differs"]) | {(DROPPED_ON_HIP, arm)}))}

    def helper(self, fn: Function) -> DeviceHelper:
        """One device function as a helper of other files' kernels: the facts kernel analysis merges into a caller
        (HELPER_FACT_KEYS; None when it has none), from its body and its same-file callees."""
        skip = self.cuda_only
        callees = self._callees(fn, skip, helper=True)
        walks = [self._helper_walk(f, skip) for f in [fn] + callees]
        calls = tuple(sorted({name for name, _ in self._external_calls(walks)}))
        # A helper has facts for its callers when some walk holds one of what body_facts makes HELPER_FACT_KEYS of
        # (a walk of calls alone holds none): most are arithmetic, and are not merged and made KernelFacts first.
        spans = tuple(dict.fromkeys((f.start_line, f.end_line) for f in callees
                                    if not (f.start_line >= fn.start_line and f.end_line <= fn.end_line)))
        regions = getattr(skip, "regions", ())
        cuda_only = tuple((max(a, lo), min(b, hi)) for lo, hi in ((fn.start_line, fn.end_line), *spans)
                          for a, b in regions if a <= hi and b >= lo)
        name = member_name(fn)
        markers = self.markers(fn)
        scope = enclosing_scope(fn.node)
        if not any(getattr(w, k) for w in walks for k in HELPER_WALK_KEYS):
            return DeviceHelper(name, fn.start_line, fn.end_line, None, calls, cuda_only, markers, spans, scope)
        merged = merge_walks(walks)
        if DEVICE_COMM_NVSHMEM_RMA in merged.libraries:  # a caller's own body decides (kernel_facts)
            merged.libraries = (merged.libraries - {DEVICE_COMM_NVSHMEM_RMA}) | {DEVICE_COMM_NVSHMEM}
        facts = KernelFacts(lines=fn.end_line - fn.start_line + 1, **body_facts(merged))
        return DeviceHelper(name, fn.start_line, fn.end_line, facts, calls, cuda_only, markers, spans, scope)

    def markers(self, fn: Function) -> tuple[str, ...]:
        """The qualifier macros written in `fn`'s declaration before its name (porter.source.parse records each use
        it rewrote) when no `__device__` is written there itself: what alone makes it device code. A `constexpr`
        function has none: clang makes it implicitly `__host__ __device__` (checked with clang-22 -x hip)."""
        uses = self.sf.macro_uses
        if not uses or fn.is_kernel:
            return ()
        node = fn.node
        lo = node.parent.start_byte if node.parent is not None and node.parent.type == "template_declaration" \
            else node.start_byte
        decl = node.child_by_field_name("declarator")
        hi = decl.start_byte if decl is not None else node.end_byte
        if b"__device__" in self.sf.data[lo:hi] or b"constexpr" in self.sf.data[lo:hi]:
            return ()
        return tuple(dict.fromkeys(name for at, name in sorted(uses.items()) if lo <= at < hi))

    def _helper_walk(self, fn: Function, skip: Callable[[int], bool] | None) -> Walk:
        """A helper's walk: the full one when a kernel's walk made it or its text can hold a fact (most helpers
        are arithmetic and memory moves), else its calls alone, which is all that can reach another helper."""
        memo = fn.start_byte if skip is None else (fn.start_byte, "skip")
        if memo in self._walks or self._may_hold_facts(fn):
            return self._walk(fn, skip)
        if ("calls", memo) in self._walks:
            return self._walks[("calls", memo)]
        w = self._walks[("calls", memo)] = Walk()
        for n in self.nodes.under(fn.node.child_by_field_name("body"), ("call_expression",)):
            if skip is None or not skip(n.start_point.row + 1):
                callees(self, n, w)
                member_callees(self, n, w)
        for n in self.nodes.under(fn.node.child_by_field_name("body"), ("binary_expression", "assignment_expression")):
            if skip is None or not skip(n.start_point.row + 1):
                operator_callees(self, n, w)
        self._drop_local_callables(fn, w)
        return w

    def _may_hold_facts(self, fn: Function) -> bool:
        """Whether a function's text holds any of MAY_HOLD_FACTS (asked again at each caller's walk: kept)."""
        found = self._fact_text.get(fn.start_byte)
        if found is None:
            found = self._fact_text[fn.start_byte] = MAY_HOLD_FACTS.search(self.sf.data, fn.start_byte,
                                                                             fn.end_byte) is not None
        return found

    def _external_calls(self, walks: list[Walk]) -> tuple[tuple[str, int], ...]:
        """Calls of the walked bodies to functions this file does not define, as written (template arguments
        dropped) with their first line: kernel analysis follows them into other files' helpers."""
        first: dict[str, int] = {}
        for w in walks:
            for text, line in w.call_sites:
                name = unqualified(text)
                # `KT::sparse24_apply_kernel(p)` inside the kernel of that name (xformers) is a member of another
                # type, not the kernel calling itself: a qualified call the file defines only as a kernel (a name
                # in `defined` but not among its other functions, `by_name`) is followed.
                own = name in self.defined and not (text != name and name not in self.by_name)
                # `T::operator()` (a call on a parameter of template type T) is this file's only when a class of
                # this file is T's binding: the file defining some other class's operator() does not make it so
                if text.endswith("::" + OPERATOR):
                    own = text in self.by_name
                # a member call on a typed object (`Surface.get`) whose class this file defines is a same-file callee
                own = own or ("." in name and name in self.by_name)
                # `WarpReduce<>::atomicMax(v, p)` (hornet's xlib) is a member of the project's own type, not CUDA's
                # atomic: a name qualified by a scope other than the global one is followed whatever it is called.
                member = "::" in text and not text.startswith("::")
                if own or not (followed_call(name) or (member and name.startswith("atomic"))):
                    continue
                if text not in first or line < first[text]:
                    first[text] = line
        return tuple(sorted(first.items(), key=lambda x: (x[1], x[0])))



    def _callees(self, fn: Function, skip: Callable[[int], bool] | None = None, helper: bool = False) -> list[Function]:
        """The same-file device functions `fn` calls, transitively (with `skip`, calls on skipped lines left out;
        `helper`: through helper walks). An explicit specialization (`template <> f<uint32_t, 4>(...)`) is reached
        only from a call whose template arguments may select it: the call's own, with the caller's template
        parameters replaced by what its callers bound them to and missing ones by the primary template's defaults
        (`median<uint32_t, 4>(buf)` -> `dev_sort<T, V>` is `dev_sort<uint32_t, 4>`; `median(buf)` leaves V at its
        default 1, which selects neither `<uint32_t, 2>` nor `<uint32_t, 4>`). Only a value argument known on both
        sides and different rules a specialization out: a type may be spelt by an alias."""
        seen: dict[int, Function] = {}
        visited: set[tuple[int, tuple[tuple[str, str], ...]]] = set()
        todo: list[tuple[Function, tuple[tuple[str, str], ...]]] = [(fn, ())]
        budget = _CALLEE_VISITS
        macros = self.macro_calls
        while todo and budget > 0:
            budget -= 1
            cur, env = todo.pop()
            walk = self._helper_walk(cur, skip) if helper else self._walk(cur, skip)
            for name in [n for c in walk.calls for n in ((c,) + macros.get(c, ()))]:
                cands = self.by_name.get(name, ())
                templated = any(f.node.parent is not None and f.node.parent.type == "template_declaration"
                                for f in cands)
                calls = self._template_calls(cur, name, walk.calls) if templated else None
                # the calls' arguments resolved once for all of the name's candidates (they depend on the calls,
                # the binding and the candidates, not on which candidate is tried: asked per candidate, they were
                # 5% of a cold FasterTransformer scan)
                resolved: list[list[str | None]] | None = None
                for f in cands:
                    if f.start_byte == fn.start_byte or self._host_launcher(f):
                        continue
                    bindings: list[tuple[tuple[str, str], ...]] = [()]
                    if calls is not None:
                        # one visit per distinct binding the calls give (`median<uint32_t, 4>(buf)` and
                        # `median(buf_u8)` in one kernel reach the network below with V = 4 and with V = 1)
                        if resolved is None:
                            resolved = [_resolve_arguments(args, dict(env), cands) for args in calls] or [
                                _resolve_arguments([], dict(env), cands)]
                            # each distinct argument list once: the answers below (any, a set of bindings) do
                            # not depend on repeats (FasterTransformer: 79,529 bindings made for 24,955 sets)
                            resolved = [list(r) for r in dict.fromkeys(tuple(r) for r in resolved)]
                        spec = _specialization_arguments(f)
                        if spec is not None:
                            bindings = [()] if any(_may_select(spec, r) for r in resolved) else []
                        else:
                            bindings = sorted({_bind(f, r) for r in resolved})
                    for bound in bindings:
                        key = (f.start_byte, bound)
                        if key in visited:
                            continue
                        visited.add(key)
                        seen[f.start_byte] = f
                        todo.append((f, bound))
        return sorted(seen.values(), key=lambda f: f.start_byte)

    def _template_calls(self, cur: Function, name: str, called: set[str] | frozenset[str]) -> list[list[str]]:
        """The explicit template argument lists (empty when none) of each call of `name` in `cur`'s body, and in
        the bodies of the same-file macros `cur` invokes."""
        memo = (cur.start_byte, name, frozenset(called))
        found = self._template_call_memo.get(memo)
        if found is not None:
            return found
        short = re.escape(name.rsplit(".", 1)[-1].rsplit("::", 1)[-1])
        pattern = re.compile(r"\b" + short + r"\s*(?:<([^;{}()]*)>)?\s*\(")
        texts = [self.sf.code[cur.start_byte:cur.end_byte].decode("utf-8", "replace")]
        bodies = self.macro_bodies
        texts.extend(b for c in called for b in bodies.get(c, ()))
        found = self._template_call_memo[memo] = [split_template_arguments(m.group(1)) if m.group(1) is not None
                                                  else [] for t in texts for m in pattern.finditer(t)]
        return found

    @functools.cached_property
    def macro_calls(self) -> dict[str, tuple[str, ...]]:
        """The names each function-like macro of the file calls in its body, through the file's other
        function-like macros (issue 27 class 2): `#define SWAP_OP(i, j) dev_sort<T, V>(buf[i], buf[j])` invoked in a
        device function is a call of `dev_sort` once preprocessed, so libSGM's median kernel reaches the
        `__vcmpgtu4` of `dev_sort<uint32_t, 4>` only through it. A macro defined several times (per build) calls
        what any of its definitions call; the macro's parameters are no calls."""
        direct: dict[str, set[str]] = {}
        for macro, (params, body) in self._function_like_macros:
            names = {c for c in _MACRO_CALL.findall(body) if c not in params and c not in _NOT_CALLS}
            direct.setdefault(macro, set()).update(names)
        out: dict[str, tuple[str, ...]] = {}
        for name in direct:
            seen: set[str] = set()
            todo = [name]
            while todo and len(seen) < _MACRO_CALLS_MAX:
                for c in direct.get(todo.pop(), ()):
                    if c not in seen and c != name:
                        seen.add(c)
                        todo.append(c)
            if seen:
                out[name] = tuple(sorted(seen))
        return out

    @functools.cached_property
    def _function_like_macros(self) -> tuple[tuple[str, tuple[frozenset[str], str]], ...]:
        """(name, (parameters, body)) of each function-like `#define` of the file, in order."""
        if b"#" not in self.sf.data or b"define" not in self.sf.data:
            return ()
        from porter.source.preprocessor import preprocessed

        out = []
        for d in preprocessed(self.sf).directives:
            m = _FUNCTION_LIKE_MACRO.match(d.text) if d.kind == "define" else None
            if m is not None:
                out.append((m.group(1), (frozenset(p.strip() for p in m.group(2).split(",")), m.group(3).strip())))
        return tuple(out)

    @functools.cached_property
    def macro_bodies(self) -> dict[str, tuple[str, ...]]:
        """The bodies of each function-like macro of the file, and of the file's macros it calls (macro_calls)."""
        own: dict[str, list[str]] = {}
        for macro, (_, body) in self._function_like_macros:
            own.setdefault(macro, []).append(body)
        calls = self.macro_calls
        return {m: tuple(bodies) + tuple(b for c in calls.get(m, ()) for b in own.get(c, ()))
                for m, bodies in own.items()}

    def _host_launcher(self, fn: Function) -> bool:
        """Whether `fn` is host code device code cannot call: not declared `__device__` and holding a `<<<...>>>`
        launch (a kernel's host launcher). A kernel calling `::max(a, b)` in a file whose host launcher of that
        kernel is also named `max` (hornet's DeviceReduce) reaches the math function, not the launcher; following
        the launcher gave the kernel its launches as dynamic parallelism (rewrite). Functions with no qualifier
        and no launch stay followed: their `__device__` may hide in a macro defined outside the tree."""
        if fn.is_device:
            return False
        found = self._launchers.get(fn.start_byte)
        if found is None:
            found = self._launchers[fn.start_byte] = any(
                fn.start_byte <= s.start < fn.end_byte and s.launch.kind == "chevron" for s in self.launches)
        return found

    # ------------------------------------------------------------------------------------------ body walk

    def _walk(self, fn: Function, skip: Callable[[int], bool] | None = None, kind: str = "skip") -> Walk:
        """The facts of one function body: every node of a type some detector reads, in tree order, handed to the
        detectors registered for that type (DETECTORS), each of which records one fact in the walk. `skip`: lines
        (1-based) whose nodes are left out; `kind` names which skip it is (the helpers' CUDA-only arms, the
        kernels' toolkit fallbacks), so the memo keeps the walks apart."""
        memo = fn.start_byte if skip is None else (fn.start_byte, kind)
        if memo in self._walks:
            return self._walks[memo]
        w = Walk()
        body = fn.node.child_by_field_name("body")
        # Each detector fills its own part of the walk from nodes of its own types, so the nodes go type by type
        # (each type in tree order) rather than all in one tree order: the same facts from one sort per type.
        for t in walked_types():
            for n in self.nodes.under(body, (t,)):
                if skip is not None and skip(n.start_point.row + 1):
                    continue
                for detect in DETECTORS[t] if t != "call_expression" else call_detectors(self.called(n)[1]):
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
                    w.identifiers.add(text.decode())
                for detect in detectors_of(n.type, text):
                    detect(self, n, w)
        if body is not None and b"restrict" in self.sf.data[fn.start_byte:body.start_byte]:
            # the parameters are outside the body: `__restrict__ T *dst` there is the same error
            for n in self.nodes.under(fn.node, ("parameter_declaration",)):
                if n.start_byte < body.start_byte and not (skip is not None and skip(n.start_point.row + 1)):
                    restrict_on_value(self, n, w)
        w.wave_names = self._wave_names(body, skip)
        lane_array_index(self, fn, w, skip)
        w.lane.sort(key=lambda x: (x.line, x.kind))
        if any(op.mask_kind == "runtime" for op in w.warp_ops):
            self._fold_local_masks(fn, w)
        self._drop_local_callables(fn, w)
        self._walks[memo] = w
        return w

    def _wave_names(self, body: ts.Node | None, skip: Callable[[int], bool] | None) -> list[WaveName]:
        """The uses of wave-size-like names (`WARP_SIZE`, `sundials::hip::WARP_SIZE`, `kWarpSize`) in a body, as
        code (a comment or a string that mentions one is not a use); `warpSize`, HIP's own, is not one, but a
        project's `GpuConfig::warpSize` (a member of its scope, SPH-EXA's 64 under __HIPCC__) is."""
        if body is None:
            return []
        paired = self._paired_wave_names
        if _WAVE_PART.search(self.sf.data, body.start_byte, body.end_byte) is None and (
                paired is None or paired.search(self.sf.data, body.start_byte, body.end_byte) is None):
            return []
        out = []
        for m in WAVE_NAME.finditer(self.sf.data, body.start_byte, body.end_byte):
            word = m.group()
            if _WAVE_PART.search(word) is None and (paired is None or paired.fullmatch(word) is None):
                continue
            n = body.descendant_for_byte_range(m.start(), m.end())
            if n is None or n.type not in NAMES or n.text != word:
                continue
            if word == b"warpSize" and not own_member(n):
                continue  # HIP's own, right on every target; `GpuConfig::warpSize` is the project's constant
            line = n.start_point.row + 1
            if skip is None or not skip(line):
                out.append(WaveName(line, word.decode()))
        return out

    @functools.cached_property
    def _paired_wave_names(self) -> re.Pattern[bytes] | None:
        """Constants defined both as 32 and as 64 (`alternatives`, this file's own too: Librett's TILEDIM, 32 in the
        CUDA arm and 64 in the HIP one), whatever their names: a use is a wave-size use when DEV017 finds the 64 fixed
        for every AMD GPU (porter.kernels.verdicts.wave64_uses decides with the findings)."""
        names = sorted(n for n, v in self.paired_alternatives.items() if 32 in v and 64 in v and re.fullmatch(r"\w+", n))
        return re.compile(rb"\b(?:" + b"|".join(n.encode() for n in names) + rb")\b") if names else None

    def _drop_local_callables(self, fn: Function, w: Walk) -> None:
        """Calls of a parameter or local variable of `fn` (`driver()` on `const DriverType& driver = ...`, a
        functor or function pointer) left out of the walk's calls: they run the object's `operator()`, not a function
        that happens to share its name. Kokkos's launch trampolines call their functor `driver()`, and its task queue
        defines a `__device__ static void driver(...)` whose 32-bit-mask shuffles were merged into every trampoline
        (issue 27, heldout10)."""
        bare = {text for text, _ in w.call_sites if text.isidentifier()}
        if not bare:
            return
        local = bare & self._local_names(fn)
        if local:
            w.call_sites = [(text, line) for text, line in w.call_sites if text not in local]
            w.calls -= local

    def _local_names(self, fn: Function) -> frozenset[str]:
        """The names `fn` declares as parameters or variables (its own declarations, not nested lambdas')."""
        found = self._declared.get(fn.start_byte)
        if found is None:
            names: set[str] = set()
            # The declarations come from the file's node index (the whole-file query's captures, cut to the
            # function's bytes): a walk in Python of every named node of each function with a call was ~4% of a
            # cuda-samples scan. One inside a nested lambda is the lambda's own (within a lambda's bytes, then
            # confirmed by its ancestors).
            lambdas = [(n.start_byte, n.end_byte) for n in self.nodes.under(fn.node, ("lambda_expression",))
                       if n != fn.node]
            for n in (n for t in _DECLARING for n in self.nodes.under(fn.node, (t,))):
                if lambdas and _in_lambda(n, fn.node, lambdas):
                    continue
                d = n.child_by_field_name("declarator")
                # a declaration's declarators: `int a = 1, b;` holds two init_declarators
                targets = [d] if n.type != "declaration" else [c for c in n.named_children
                                                              if c.type.endswith("declarator") or c.type == "identifier"]
                for t in targets:
                    name = _declared_name(t)
                    if name is not None:
                        names.add(name)
            found = self._declared[fn.start_byte] = frozenset(names)
        return found

    def called(self, n: ts.Node) -> tuple[ts.Node | None, str | None]:
        """call_target(n), kept for the call node the walk is at: each of its call detectors asks."""
        last = self._last_call
        if last is not None and last[0] == n:
            return last[1]
        found = call_target(n)
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
                self._name_pattern = name_pattern(tuple(sorted(self.file_shared)))
            text = body.text
            found = [body.start_byte + m.start() for m in overlapping(self._name_pattern, text)]
        for at in found:
            # Names are leaves, so the smallest node over that byte is the name starting there.
            n = body.descendant_for_byte_range(at, at + 1)
            if n is not None and n.type in NAMES and n.start_byte == at:
                out.append(n)
        return out

    def _fold_local_masks(self, fn: Function, w: Walk) -> None:
        """A mask held in a local the function never reassigns (`unsigned mask = 0xffffffff; __any_sync(mask, p)`)
        is that value: a 32-bit full mask in a variable is still one."""
        local = self._host_locals(fn)
        # A name declared twice (`unsigned mask = 0xffffffff;` in one block, `int mask = (1 << n) - 1;` in another,
        # as cuda-samples' shfl_scan does) has no one value.
        declared: dict[str, int] = {}
        types: dict[str, str] = {}  # the declared type of each (`const unsigned`): it, not the name, is the mask's width
        every_type: dict[str, list[str]] = {}  # each declaration's type, for a name declared more than once
        for d in self.nodes.under(fn.node.child_by_field_name("body"), ("init_declarator",)):
            name = d.child_by_field_name("declarator")
            if name is not None and name.type == "identifier":
                declared[name.text.decode()] = declared.get(name.text.decode(), 0) + 1
                decl = d.parent
                ty = decl.child_by_field_name("type") if decl is not None and decl.type == "declaration" else None
                if ty is not None:
                    quals = [c.text.decode() for c in decl.children if c.type == "type_qualifier"]
                    types[name.text.decode()] = " ".join([*quals, *ty.text.decode("utf-8", "replace").split()])
                    every_type.setdefault(name.text.decode(), []).append(types[name.text.decode()])
        ops = []
        for op in w.warp_ops:
            once = op.mask is not None and declared.get(op.mask, 0) == 1
            value = local.get(op.mask) if op.mask is not None and op.mask_kind == "runtime" and once else None
            if isinstance(value, tuple) and value[1:] == (1, 1):  # locals fold as launch dimensions: (x, 1, 1)
                value = value[0]
            if isinstance(value, int) and not isinstance(value, bool):
                kind = "full32" if value == FULL_MASK_32 else "constant"
                # `full (const unsigned)`: the checks read the mask's width from its type, not from its name
                mask = f"{op.mask} ({types[op.mask]})" if op.mask in types else op.mask
                op = dataclasses.replace(op, mask_kind=kind, mask=mask)
                if op.op == "__syncwarp" and kind == "full32" and op.line in w.partial_syncwarp:
                    w.partial_syncwarp.remove(op.line)
            elif op.mask_kind == "runtime" and op.mask in types and len(every_type.get(op.mask, ())) == declared[op.mask]:
                # computed at run time: its declared types (each declaration's, in order) still decide whether HIP's
                # *_sync accept it
                op = dataclasses.replace(op, mask=f"{op.mask} ({'; '.join(dict.fromkeys(every_type[op.mask]))})")
            ops.append(op)
        w.warp_ops = ops

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


# The nodes that declare a name in a function (FileContext._local_names), all in porter.kernels.nodes.INDEXED.
_DECLARING = ("parameter_declaration", "optional_parameter_declaration", "declaration", "for_range_loop",
              "condition_clause")


def _in_lambda(n: ts.Node, top: ts.Node, lambdas: list[tuple[int, int]]) -> bool:
    """Whether `n` lies under a lambda_expression below `top` (`lambdas`: those lambdas' byte ranges). Only a node
    within one's bytes can be; its ancestors up to `top` say whether it is (an empty node at a lambda's edge may
    lie just outside it)."""
    start, end = n.start_byte, n.end_byte
    if not any(a <= start and end <= b for a, b in lambdas):
        return False
    p = n.parent
    while p is not None and p != top:
        if p.type == "lambda_expression":
            return True
        p = p.parent
    return False


def _declared_name(d: ts.Node | None) -> str | None:
    """The variable a declarator declares (`x`, `&x`, `*x`, `x[4]`, `x = ...`), or None for a function declarator
    (a prototype declares no callable object) and anything else."""
    while d is not None:
        if d.type == "identifier":
            return d.text.decode("utf-8", "replace")
        if d.type in ("init_declarator", "reference_declarator", "pointer_declarator", "array_declarator",
                      "parenthesized_declarator"):
            d = d.child_by_field_name("declarator") or next((c for c in d.named_children if c.type != "type_qualifier"), None)
            continue
        return None
    return None


# The KernelFacts.clang_differs kind of a kernel whose definition hip-clang compiles to nothing (FileContext._with_dropped;
# rules/kb/kernel_checks.yaml).
DROPPED_ON_HIP = "dropped-on-hip"
_TENSOR_WORD = re.compile(rb"\bwmma\b|\bnvcuda\b|\bmma\.sync\b|\bmma_sync\b|\bwgmma\b|\bldmatrix\b")


def _tensor_arch_arms(sf: SourceFile, first: int, last: int) -> tuple[int, ...]:
    """Lines of the `#if`/`#elif` arms testing __CUDA_ARCH__ between lines `first` and `last` (a function's) whose
    body names tensor-core code (_TENSOR_WORD), read from the file's one preprocessor pass."""
    from porter.source.preprocessor import preprocessed  # as in _cuda_only_lines: loaded when a kernel asks

    out = []
    starts = sf.line_starts
    for g in preprocessed(sf).groups:
        for arm in g.arms:
            if not (first <= arm.line <= last) or arm.kind == "else" or "__CUDA_ARCH__" not in arm.text \
                    or arm.last < arm.end_line + 1:
                continue
            a = starts[arm.end_line] if arm.end_line < len(starts) else len(sf.data)
            b = starts[arm.last] if arm.last < len(starts) else len(sf.data)
            if _TENSOR_WORD.search(sf.data, a, b):
                out.append(arm.line)
    return tuple(sorted(out))

