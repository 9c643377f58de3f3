"""Kernels and their launch sites as found in the source, and what kernel analysis measures and decides about them.

`Launch` and `Kernel` come from the parse tree (porter.source.syntax); `KernelFacts` (with its parts: shared memory,
folded launch configurations, warp and lane assumptions, PTX) from measuring a kernel (porter.kernels.facts);
`TargetVerdict` from judging those facts on one AMD target (porter.kernels.verdicts). All are frozen: a later stage
returns new values with `dataclasses.replace`, and `to_dict` gives the JSON contract (porter/schemas/scan.schema.json).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from porter.model.finding import Status


@dataclass(frozen=True, order=True)
class Launch:
    """A kernel launch site: `k<<<...>>>(...)` or a launch API call."""

    path: str
    line: int
    column: int
    kernel: str  # the launched kernel's name as written at the site (template arguments stripped)
    kind: str  # chevron | cudaLaunchKernel | cudaLaunchCooperativeKernel | cuLaunchKernel | ...
    config: tuple[str, ...] = ()  # the launch configuration expressions as written (grid, block, smem, stream)
    function: str | None = None  # the function the launch is written in
    # a chevron launch's template argument list as written at the site (`<NormalizeL2>`), None when it has none:
    # what binds the kernel's template parameters when the launch is in another file than the kernel
    template_arguments: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "kernel": self.kernel,
            "kind": self.kind,
            "config": list(self.config),
            "function": self.function,
        }


@dataclass(frozen=True, order=True)
class Launcher:
    """A host function that launches one of its own parameters (`template <typename... A> void recordLaunch(int gs,
    int bs, void (*f)(A...), A... args) { f<<<gs, bs>>>(args...); }`): the kernel it launches is the one each call
    passes at that parameter's position (porter.kernels.launchers)."""

    function: str  # the launcher's unqualified name
    parameter: str  # the launched parameter's name
    index: int  # its position in the parameter list (0-based)
    line: int  # the function's first and last line
    end_line: int


@dataclass(frozen=True, order=True)
class PassedName:
    """A call in C/C++ code passing a name that no variable in scope declares (`recordLaunch("tag", n, 64, 0,
    setFlags, ...)`): a function, where the callee is a Launcher, the kernel it launches."""

    callee: str  # the called function's unqualified name
    index: int  # the argument's position (0-based)
    name: str  # the passed name, unqualified, casts, `&` and template arguments left off
    line: int


# ------------------------------------------------------------------------------------------ measured facts


@dataclass(frozen=True)
class Unresolved:
    """A value kernel analysis could not determine, and why (it is never guessed)."""

    what: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"what": self.what, "reason": self.reason}


@dataclass(frozen=True)
class TemplateParameter:
    name: str | None
    kind: str  # type | value
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class DeviceFunction:
    """A same-file device function the kernel calls (transitively); its body counts as the kernel's."""

    name: str
    line: int
    end_line: int
    # The qualifier macros that alone make it device code (`_CPU_AND_GPU_CODE_ inline float f(...)`, no `__device__`
    # written): kernel analysis asks whether HIP defines one without `__device__` (DEV041). Not serialised.
    markers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "line": self.line, "end_line": self.end_line}


@dataclass(frozen=True)
class DeviceHelper:
    """A `__device__` function of one file, as other files' kernels see it (porter.kernels.callgraph follows calls
    into it): its facts with those of the same-file device functions it calls (None: nothing kernel analysis
    checks), and the names it calls that its own file does not define (followed across files)."""

    name: str
    line: int
    end_line: int
    facts: KernelFacts | None = None
    calls: tuple[str, ...] = ()
    # Line ranges of the helper only the CUDA build compiles (left out of its facts; findings there are not the
    # calling kernels' open work either: porter.kernels.verdicts).
    cuda_only: tuple[tuple[int, int], ...] = ()
    # The qualifier macros that alone make it device code, as DeviceFunction.markers. Not serialised.
    markers: tuple[str, ...] = ()
    # Line ranges of the same-file functions it calls, transitively (the bodies its facts already merge): a finding
    # there is in code the helper runs (`memory::load` -> `ld` -> `ld_single`'s `__ldcg`), so it is the calling
    # kernel's too (porter.kernels.callgraph.helper_spans).
    callee_spans: tuple[tuple[int, int], ...] = ()
    # Who owns it (porter.kernels.member_calls.enclosing_scope): ("static", Cls), ("member", Cls), ("namespace", ns),
    # ("scoped", Q) or (); a qualified call `Q::f` several files define `f` for picks by it (callgraph.resolve).
    scope: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "line": self.line, "end_line": self.end_line, "calls": list(self.calls),
             "facts": self.facts.to_dict() if self.facts is not None else None}
        if self.cuda_only:
            d["cuda_only"] = [list(r) for r in self.cuda_only]
        if self.callee_spans:
            d["callee_spans"] = [list(r) for r in self.callee_spans]
        return d


@dataclass(frozen=True)
class HelperCall:
    """A device helper defined in another file that a kernel reaches (set by kernel analysis, never by measuring):
    the call chain as written from the kernel (`flash::compute_attn`, then any further helpers), where the helper
    whose facts are merged is defined, and the kernel-file line of the first call of the chain."""

    chain: tuple[str, ...]
    path: str
    line: int
    call_line: int
    facts: KernelFacts

    @property
    def where(self) -> str:
        return f"{' → '.join(self.chain)} ({self.path}:{self.line})"

    def to_dict(self) -> dict[str, Any]:
        facts = self.facts.to_dict()
        keep = {k: facts[k] for k in HELPER_FACT_KEYS if facts.get(k) not in (None, [], {}, {"statements": 0, "families": [], "lines": []})}
        return {"chain": list(self.chain), "path": self.path, "line": self.line, "call_line": self.call_line,
                "facts": keep}


# The facts of a helper that count for the kernels calling it (its shared memory and launches do not).
HELPER_FACT_KEYS = ("async_copies", "atomics", "ballot_32bit", "clusters", "cuda_libraries", "cute_tensor",
                    "device_launches", "grid_sync", "inline_ptx", "lane_assumptions", "partial_syncwarp",
                    "tensor_cores", "warp_ops", "warpsize_constant", "wave_names", "clang_differs")


@dataclass(frozen=True)
class LaunchConfig:
    """One launch site of a kernel with its grid, block and dynamic shared memory folded to numbers where possible
    (None: not foldable; the reason is among the kernel's `unknown`)."""

    path: str
    line: int
    kind: str
    config: tuple[str, ...]
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    shared_bytes: int | None = None
    template_arguments: str | None = None  # `<...>` of a chevron launch of a template kernel
    sm_count_grid: bool = False  # the grid is derived from the SM count / occupancy API
    in_device_code: bool = False
    # The grid is computed from the occupancy API's resident blocks per SM (x the SM count): every block resident at
    # once on the device it runs on, NVIDIA's or AMD's, as a cooperative launch needs (porter.kernels.verdicts).
    occupancy_grid: bool = False
    # Written in another file than the kernel: folded from literals only, without that file's constants.
    remote: bool = False
    # A block that does not fold but is built of 32-thread warps (`32 * warpCount`, `(n + 31) / 32 * 32`,
    # `dim3 block(std::min(32, n), rows)`): the expression that says so (porter.kernels.facts_launches.warp_built).
    warp_built: str | None = None

    @property
    def threads(self) -> int | None:
        return self.block[0] * self.block[1] * self.block[2] if self.block else None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path, "line": self.line, "kind": self.kind, "config": list(self.config)}
        grid = list(self.grid) if self.grid is not None else None
        block = list(self.block) if self.block is not None else None
        if self.remote:
            d.update(grid=grid, block=block, shared_bytes=self.shared_bytes, remote=True, threads=self.threads)
            return d
        if self.template_arguments is not None:
            d["template_arguments"] = self.template_arguments
        d.update(grid=grid, block=block, threads=self.threads, shared_bytes=self.shared_bytes,
                 sm_count_grid=self.sm_count_grid, in_device_code=self.in_device_code)
        if self.warp_built is not None:
            d["warp_built"] = self.warp_built
        return d


@dataclass(frozen=True)
class SharedArray:
    """A static `__shared__` variable; `bytes` is None when an extent or the element size is unknown (`reason`)."""

    name: str
    type: str
    line: int
    extents: tuple[int | str, ...]  # folded extents, or the extent's text when it does not fold
    element_bytes: int | None
    bytes: int | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "type": self.type, "line": self.line, "extents": list(self.extents),
             "element_bytes": self.element_bytes, "bytes": self.bytes}
        if self.reason is not None:
            d["reason"] = self.reason
        return d


@dataclass(frozen=True)
class ExternShared:
    """An `extern __shared__` array: sized at launch (dynamic shared memory)."""

    name: str
    type: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "line": self.line}


@dataclass(frozen=True)
class SharedMemory:
    """Shared memory per block: static arrays plus the largest dynamic size any launch or attribute gives."""

    arrays: tuple[SharedArray, ...] = ()
    extern_arrays: tuple[ExternShared, ...] = ()
    launch_bytes: tuple[int, ...] = ()  # distinct dynamic sizes of this file's foldable launches, ascending
    max_dynamic_attribute: int | None = None  # cudaFuncAttributeMaxDynamicSharedMemorySize, when foldable

    @property
    def static_bytes(self) -> int | None:
        return self.static_bytes_min if all(a.bytes is not None for a in self.arrays) else None

    @property
    def static_bytes_min(self) -> int:
        return sum(a.bytes for a in self.arrays if a.bytes is not None)

    @property
    def dynamic_max(self) -> int:
        return max(self.launch_bytes + ((self.max_dynamic_attribute,) if self.max_dynamic_attribute else ()), default=0)

    @property
    def total_bytes(self) -> int | None:
        static = self.static_bytes
        return static + self.dynamic_max if static is not None else None

    @property
    def total_bytes_min(self) -> int:
        return self.static_bytes_min + self.dynamic_max


    @property
    def dynamic_unsized(self) -> bool:
        """An extern array that no foldable launch or attribute gives a size."""
        return bool(self.extern_arrays) and not self.launch_bytes and not self.max_dynamic_attribute

    def to_dict(self) -> dict[str, Any]:
        return {
            "arrays": [a.to_dict() for a in self.arrays],
            "static_bytes": self.static_bytes,
            "static_bytes_min": self.static_bytes_min,
            "dynamic": {"extern_arrays": [e.to_dict() for e in self.extern_arrays], "launch_bytes": list(self.launch_bytes),
                        "max_dynamic_attribute": self.max_dynamic_attribute},
            "total_bytes": self.total_bytes,
            "total_bytes_min": self.total_bytes_min,
        }


LAUNCH_BOUNDS_ARGS = ("max_threads", "min_blocks", "max_blocks_per_cluster")


@dataclass(frozen=True)
class LaunchBounds:
    """`__launch_bounds__(...)` as written and folded, one value per argument given (None: not foldable)."""

    text: tuple[str, ...]
    values: tuple[int | None, ...]

    def _arg(self, i: int) -> int | None:
        return self.values[i] if i < len(self.values) else None

    @property
    def max_threads(self) -> int | None:
        return self._arg(0)

    @property
    def min_blocks(self) -> int | None:
        return self._arg(1)

    def to_dict(self) -> dict[str, Any]:
        return {"text": list(self.text), **dict(zip(LAUNCH_BOUNDS_ARGS, self.values))}


@dataclass(frozen=True)
class WarpOp:
    """A warp-level intrinsic call; `_sync` forms carry their mask as written and how it folds."""

    op: str
    line: int
    mask: str | None = None
    mask_kind: str | None = None  # full32 | constant | runtime
    width: int | None = None  # a shuffle's explicit width argument, folded (32: a logical 32-lane shuffle)
    offset: int | None = None  # a xor/down/up shuffle's lane offset, folded (None: a loop variable or unknown)
    # An explicit width argument that does not fold (a template parameter `GROUP_SIZE`), as written; None when the
    # width folded or none is given. Not serialised (the checks read it; reports keep their shape).
    width_text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"op": self.op, "line": self.line}
        if self.mask is not None:
            d.update(mask=self.mask, mask_kind=self.mask_kind)
        if self.width is not None:
            d["width"] = self.width
        if self.offset is not None:
            d["offset"] = self.offset
        return d


@dataclass(frozen=True)
class LaneAssumption:
    """Code that hard-codes 32 lanes (`% 32`, `>> 5`, a reduction loop from 16, ...)."""

    line: int
    kind: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class Ballot32:
    """A ballot/activemask result stored in a 32-bit integer, or a lane mask built in one by shifting by the lane
    index (op `<< lane`: porter.kernels.facts_detectors.lane_shift_in_32_bits)."""

    line: int
    type: str
    op: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "type": self.type, "op": self.op}


@dataclass(frozen=True)
class WarpSizeConstant:
    """`warpSize` where C++ needs a constant expression."""

    line: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text}


@dataclass(frozen=True)
class WaveName:
    """A use of a name spelt like a wave-size constant (`WARP_SIZE`, `kWarpSize`, `warp_size`; not the builtin
    `warpSize`) in device code: kernel analysis looks up which of them a ROCm arm fixes at 64 (DEV017)."""

    line: int
    name: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "name": self.name}


@dataclass(frozen=True)
class InlinePtx:
    statements: int = 0
    families: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"statements": self.statements, "families": list(self.families), "lines": list(self.lines)}


@dataclass(frozen=True)
class DeepRefinement:
    """What deep mode (libclang) changed for one kernel."""

    resolved: tuple[str, ...]
    still_unknown: tuple[str, ...]
    seconds: float
    constants_from: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"resolved": list(self.resolved), "still_unknown": list(self.still_unknown), "seconds": self.seconds,
                "constants_from": list(self.constants_from)}


@dataclass(frozen=True)
class TritonConfig:
    """One `triton.Config` of an autotune list (or a launch's keywords): its meta-parameters as written and the
    num_warps / num_stages values it can take (several when the Config sits in a comprehension over literals)."""

    line: int
    meta: tuple[tuple[str, str], ...] = ()  # (name, value as written), e.g. ("BLOCK_M", "128")
    num_warps: tuple[int, ...] = ()
    num_stages: tuple[int, ...] = ()
    num_ctas: tuple[int, ...] = ()
    amd_options: tuple[str, ...] = ()  # waves_per_eu, matrix_instr_nonkdim, kpack: tuned for AMD
    path: str | None = None  # a launch written in another file than the kernel; None: the kernel's own file
    # Configs the Config's comprehension makes over its other meta-parameters (`for m in block_m for n in block_n`):
    # at least 2 when a loop the Config reads runs over anything but one value; 1 for a Config written once.
    variants: int = 1
    # num_warps is the larger branch of a conditional on the input (`8 if tiles == 1 else 32`): reached, so it counts
    # against the workgroup limit, but not an NVIDIA tuning choice to re-tune.
    branch: bool = False
    # A launch's num_warps is a local set from a test of the NVIDIA generation (`num_warps, num_stages =
    # get_num_warps_stages(d, b, IS_HOPPER_GPU)`, `8 if is_hopper() else 4`): the name tested, as written.
    arch: str | None = None
    # A test of the ROCm platform (`"1" if torch.version.hip else "2"`, `8 if is_hip() else 4`) that picks one of
    # this Config's values, in the Config or the comprehension it sits in: its authors ran it on ROCm. As written.
    rocm_test: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"line": self.line, "meta": dict(self.meta), "num_warps": list(self.num_warps),
                             "num_stages": list(self.num_stages)}
        if self.arch is not None:
            d["arch"] = self.arch
        if self.path is not None:
            d["path"] = self.path
        if self.variants != 1:
            d["variants"] = self.variants
        if self.branch:
            d["branch"] = True
        if self.num_ctas:
            d["num_ctas"] = list(self.num_ctas)
        if self.amd_options:
            d["amd_options"] = list(self.amd_options)
        if self.rocm_test is not None:
            d["rocm_test"] = self.rocm_test
        return d


@dataclass(frozen=True)
class TritonDot:
    """A `tl.dot` call: its (M, N, K) block names when the kernel's constexpr names say them, the sizes those names
    take in the autotune configs and launches, and the input precision it asks for."""

    line: int
    shape: tuple[str, ...] = ()  # ("BLOCK_M", "BLOCK_N", "BLOCK_K"), or () when the names do not say
    sizes: tuple[tuple[int, ...], ...] = ()  # distinct folded (M, N, K) values, ascending
    input_precision: str | None = None  # as written: "tf32", "ieee", "tf32x3", or "allow_tf32" for allow_tf32=True
    scaled: bool = False  # tl.dot_scaled (microscaled formats)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"line": self.line, "shape": list(self.shape), "sizes": [list(s) for s in self.sizes],
                             "input_precision": self.input_precision}
        if self.scaled:
            d["scaled"] = True
        return d


@dataclass(frozen=True)
class TritonUse:
    """A Triton feature the kernel uses, by kind: atomic, fp8, inline-asm, cuda-extra, legacy-libdevice,
    autotune-positional, math-libdevice, tensor-descriptor, host-tma, system-atomic."""

    kind: str
    name: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "line": self.line}


@dataclass(frozen=True)
class TritonHelper:
    """A `@triton.jit` function of one Python file as Triton kernels in other modules of the project see it
    (porter.kernels.triton_imports follows their imports into it): where it and the same-file jit functions it calls
    are written, the tl.dot calls and Triton features of those bodies (lines of its own file), and the calls those
    bodies make through the file's imports (`pkg.mod.f`, or `dir/of/file:.mod.f` for a relative import)."""

    name: str
    line: int
    end_line: int
    spans: tuple[tuple[int, int], ...] = ()  # its own definition's lines first, then each same-file helper's
    dots: tuple[TritonDot, ...] = ()
    uses: tuple[TritonUse, ...] = ()
    calls: tuple[tuple[str, int], ...] = ()  # (import target, line)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "line": self.line, "end_line": self.end_line,
                "spans": [list(s) for s in self.spans], "dots": [d.to_dict() for d in self.dots],
                "uses": [u.to_dict() for u in self.uses], "calls": [list(c) for c in self.calls]}


@dataclass(frozen=True)
class ImportedHelper:
    """A jit function of another module of the project that a Triton kernel reaches through imports (set by kernel
    analysis, never by measuring): the chain of calls from the kernel, where the helper is written (its file, its
    lines and its same-file helpers'), the kernel-file line of the first call of the chain, and its dots and
    features (lines of its own file)."""

    chain: tuple[str, ...]
    path: str
    spans: tuple[tuple[int, int], ...]
    call_line: int
    dots: tuple[TritonDot, ...] = ()
    uses: tuple[TritonUse, ...] = ()

    @property
    def line(self) -> int:
        return self.spans[0][0]

    @property
    def where(self) -> str:
        return f"{' → '.join(self.chain)} ({self.path}:{self.line})"

    def to_dict(self) -> dict[str, Any]:
        return {"chain": list(self.chain), "path": self.path, "line": self.line, "call_line": self.call_line}


@dataclass(frozen=True)
class TritonFacts:
    """What a Triton kernel (`@triton.jit`) is made of: its decorators, constexpr parameters, autotune configs,
    launches with their keywords, tl.dot calls and the features that matter on AMD (porter.kernels.triton)."""

    decorators: tuple[str, ...] = ()  # jit, autotune, heuristics, as written without the module
    constexpr_parameters: tuple[str, ...] = ()
    configs: tuple[TritonConfig, ...] = ()  # autotune configs
    heuristics: tuple[str, ...] = ()  # meta-parameters @triton.heuristics computes
    launches: tuple[TritonConfig, ...] = ()  # same-file `kernel[grid](...)` sites with their keywords
    dots: tuple[TritonDot, ...] = ()
    uses: tuple[TritonUse, ...] = ()
    # Set by kernel analysis, never by measuring: launches of this kernel written in other files (replaced on
    # each analysis, so analysing twice gives the same facts).
    remote_launches: tuple[TritonConfig, ...] = ()
    # Measured, not serialised: the kernel's calls (import target, line) through its file's imports into what may
    # be a jit function of another module of the project (porter.kernels.triton_imports resolves them).
    calls: tuple[tuple[str, int], ...] = ()
    # Set by kernel analysis (replaced on each analysis): the jit functions of other modules those calls reach.
    imported: tuple[ImportedHelper, ...] = ()

    @property
    def all_uses(self) -> tuple[TritonUse, ...]:
        """The kernel's own Triton features and those of the jit functions it imports, the latter at the
        kernel-file line that calls into them (a line of another file would point into the wrong source)."""
        if not self.imported:
            return self.uses
        moved = {replace(u, line=h.call_line) for h in self.imported for u in h.uses}
        return self.uses + tuple(sorted(moved - set(self.uses), key=lambda u: (u.line, u.kind, u.name)))

    @property
    def all_dots(self) -> tuple[TritonDot, ...]:
        """The kernel's own tl.dot calls and those of the jit functions it imports (at the calling line)."""
        if not self.imported:
            return self.dots
        return self.dots + tuple(replace(d, line=h.call_line) for h in self.imported for d in h.dots)

    @property
    def tuned(self) -> tuple[TritonConfig, ...]:
        """Everything that sets num_warps / num_stages for this kernel: configs, then launches (own, then remote)."""
        return self.configs + self.launches + self.remote_launches

    @property
    def num_warps(self) -> tuple[int, ...]:
        """Every num_warps value written for this kernel (configs and launches), ascending."""
        return tuple(sorted({w for c in self.tuned for w in c.num_warps}))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
                "decorators": list(self.decorators), "constexpr_parameters": list(self.constexpr_parameters),
                "configs": [c.to_dict() for c in self.configs], "heuristics": list(self.heuristics),
                "launches": [c.to_dict() for c in self.launches + self.remote_launches],
                "dots": [d.to_dict() for d in self.dots],
                "uses": [u.to_dict() for u in self.uses], "num_warps": list(self.num_warps)}
        if self.imported:
            d["imported"] = [h.to_dict() for h in self.imported]
            d["imported_uses"] = [u.to_dict() for u in self.all_uses[len(self.uses):]]
        return d


@dataclass(frozen=True)
class KernelFacts:
    """Everything measured about one kernel (its body and the same-file device functions it calls)."""

    lines: int
    template_parameters: tuple[TemplateParameter, ...] = ()
    device_functions: tuple[DeviceFunction, ...] = ()
    launch_sites: tuple[LaunchConfig, ...] = ()  # launches in the kernel's own file
    shared_memory: SharedMemory = SharedMemory()
    launch_bounds: LaunchBounds | None = None
    warp_ops: tuple[WarpOp, ...] = ()
    lane_assumptions: tuple[LaneAssumption, ...] = ()
    ballot_32bit: tuple[Ballot32, ...] = ()
    warpsize_constant: tuple[WarpSizeConstant, ...] = ()
    wave_names: tuple[WaveName, ...] = ()  # wave-size-like names the body uses (WaveName), by line
    tensor_cores: tuple[str, ...] = ()  # wmma, mma.sync, wgmma, tcgen05, nvfp4-mma, ...
    inline_ptx: InlinePtx = InlinePtx()
    async_copies: tuple[str, ...] = ()  # cp.async, tma, mbarrier, memcpy_async, pipeline, ...
    clusters: tuple[str, ...] = ()  # cluster_group, dsmem, __cluster_dims__, ...
    atomics: tuple[str, ...] = ()
    grid_sync: tuple[int, ...] = ()  # lines
    device_launches: tuple[int, ...] = ()  # lines of launches inside device code
    partial_syncwarp: tuple[int, ...] = ()  # lines
    cuda_libraries: tuple[str, ...] = ()  # NVIDIA-only C++ libraries the body uses directly (cutlass, cute)
    cute_tensor: tuple[str, ...] = ()  # CuTe tensor-algebra names the body uses (make_tensor, partition_*, tiled copy/MMA)
    # (kind, line) of code nvcc accepts and clang (hipcc) rejects or reads otherwise: `__restrict__ T *p` with T a
    # value type ("restrict-value-type"); porter.kernels.facts_detectors.restrict_on_value
    clang_differs: tuple[tuple[str, int], ...] = ()
    # (type name, line) of products and quotients of two values of one declared type, which kernel analysis resolves
    # against the repository's CUDA complex types into clang_differs (porter.kernels.complex_types); not serialised
    typed_products: tuple[tuple[str, int], ...] = ()
    # (feature, line) where each WMMA / async-copy feature is named in code (a helper's at the kernel's call line):
    # the lines of the wmma and async-copy checks (porter.kernels.checks); not serialised
    feature_lines: tuple[tuple[str, int], ...] = ()
    # (first line, last line, wave size) of the arms in the kernel and its same-file device functions that the
    # preprocessor compiles only on that wave size (`#if WARP_SIZE == 32` / `#elif WARP_SIZE == 64`, the name set per
    # device: porter.source.preprocessor.wave_size_arms); the checks of one target skip the others; not serialised
    wave_arms: tuple[tuple[int, int, int], ...] = ()
    calls: tuple[tuple[str, int], ...] = ()  # calls (as written, line) its own file does not define: followed by analysis
    unknown: tuple[Unresolved, ...] = ()  # what measuring could not determine
    # Lines of the `#if`/`#elif` tests of __CUDA_ARCH__ in the kernel's body whose arm holds its tensor-core code
    # (nvcuda::wmma, mma): when DEV016 says that arm leaves HIP nothing, the kernel's matrix path is gone on AMD.
    tensor_arch_arms: tuple[int, ...] = ()
    # Set by kernel analysis (analyse), never by measuring: launches written in other files, when the kernel's own
    # file launches it nowhere, and what could not be folded about them. Replaced, never appended, on each analysis.
    remote_launch_sites: tuple[LaunchConfig, ...] = ()
    remote_unknown: tuple[Unresolved, ...] = ()
    # Set by kernel analysis: no cudaFuncSetAttribute(..., MaxDynamicSharedMemorySize, ...) can reach this kernel
    # (none in its file, in the files that launch it, nor - when no launch of it is known - anywhere), so CUDA caps
    # its dynamic shared memory at the 48 KiB default (porter.kernels.checks._lds_check).
    dynamic_default_cap: bool = False
    # Set by kernel analysis: every launch of the kernel porter knows (at least one) is a cooperative launch
    # (cudaLaunchCooperativeKernel, cuLaunchCooperativeKernel: hipLaunchCooperativeKernel on HIP), so its grid sync
    # has the co-resident grid it needs (porter.kernels.checks._grid_checks).
    cooperative_launch: bool = False
    deep: DeepRefinement | None = None  # set by deep mode
    triton: TritonFacts | None = None  # a Triton kernel's own facts (porter.kernels.triton); None for CUDA kernels
    # Set by kernel analysis: device helpers in other files the kernel calls (porter.kernels.callgraph), whose facts
    # count as the kernel's (see `merged`). Replaced, never appended, on each analysis.
    helpers: tuple[HelperCall, ...] = ()
    # (C, line) of the kernel's own `blockIdx.x * C + threadIdx.x` in a 1-D kernel that never reads blockDim: the
    # block size its indexing assumes (porter.kernels.facts_indexing), judged only where no launch gives one.
    indexed_block: tuple[int, int] | None = None
    # (first line, last line) of the arms in the kernel and its same-file device functions that the ROCm build
    # never compiles (a toolkit-version test with a HIP `#else`, a file switch set off): measuring skipped them, and
    # the verdict counts no finding there; not serialised
    skipped_arms: tuple[tuple[int, int], ...] = ()
    # Whether the kernel's name appears in its file's code outside the kernel's own definition, on a line some
    # build compiles (`auto k = name<...>;`, an explicit instantiation, a launch): what may instantiate a template
    # kernel besides the launches porter records (porter.kernels.verdicts.uninstantiated). True when not measured;
    # not serialised.
    named_outside: bool = True
    # Whether, besides, the name does appear outside the definition in its file, but only on lines no build compiles
    # (a launch in an `#else` arm the file's own `#define` rules out: nsparse's hash_symbolic_gl2): the file is where
    # the project instantiates it, and it no longer does. False when not measured; not serialised.
    named_dead: bool = False

    def merged(self) -> KernelFacts:
        """The facts with those of the helpers in other files added (at the kernel-file line of each call), which
        is what the checks judge; the kernel's own facts when it calls none."""
        if not self.helpers:
            return self
        return merge_helpers(self, self.helpers)

    @property
    def sites(self) -> tuple[LaunchConfig, ...]:
        """Every launch site kernel analysis knows of: this file's, else other files'."""
        return self.launch_sites + self.remote_launch_sites

    @property
    def unresolved(self) -> tuple[Unresolved, ...]:
        return self.unknown + self.remote_unknown

    @property
    def warp_masks(self) -> tuple[str, ...]:
        return tuple(sorted({w.mask for w in self.warp_ops if w.mask}))

    @property
    def sm_count_grid(self) -> tuple[int, ...]:
        """Lines of same-file launches whose grid comes from the SM count."""
        return tuple(sorted({s.line for s in self.launch_sites if s.sm_count_grid}))

    def to_dict(self) -> dict[str, Any]:
        """The facts' JSON keys, sorted by name (the contract predates the dataclass and kept that order)."""
        d: dict[str, Any] = {
            "async_copies": list(self.async_copies),
            "atomics": list(self.atomics),
            "ballot_32bit": [b.to_dict() for b in self.ballot_32bit],
            "clusters": list(self.clusters),
            "device_functions": [f.to_dict() for f in self.device_functions],
            "device_launches": list(self.device_launches),
            "grid_sync": list(self.grid_sync),
            "inline_ptx": self.inline_ptx.to_dict(),
            "lane_assumptions": [x.to_dict() for x in self.lane_assumptions],
            "launch_bounds_values": self.launch_bounds.to_dict() if self.launch_bounds is not None else None,
            "launch_sites": [s.to_dict() for s in self.sites],
            "lines": self.lines,
            "partial_syncwarp": list(self.partial_syncwarp),
            "shared_memory": self.shared_memory.to_dict(),
            "sm_count_grid": list(self.sm_count_grid),
            "template_parameters": [p.to_dict() for p in self.template_parameters],
            "tensor_cores": list(self.tensor_cores),
            "unknown": [u.to_dict() for u in self.unresolved],
            "warp_masks": list(self.warp_masks),
            "warp_ops": [w.to_dict() for w in self.warp_ops],
            "warpsize_constant": [w.to_dict() for w in self.warpsize_constant],
        }
        if self.cuda_libraries:
            d["cuda_libraries"] = list(self.cuda_libraries)
        if self.cute_tensor:
            d["cute_tensor"] = list(self.cute_tensor)
        if self.clang_differs:
            d["clang_differs"] = [[kind, line] for kind, line in self.clang_differs]
        if self.wave_names:
            d["wave_names"] = [w.to_dict() for w in self.wave_names]
        if self.tensor_arch_arms:
            d["tensor_arch_arms"] = list(self.tensor_arch_arms)
        if self.helpers:
            d["helpers"] = [h.to_dict() for h in self.helpers]
        if self.indexed_block is not None:
            d["indexed_block"] = {"threads": self.indexed_block[0], "line": self.indexed_block[1]}
        if self.deep is not None:
            d["deep"] = self.deep.to_dict()
        if self.triton is not None:
            d["triton"] = self.triton.to_dict()
        return d


def merge_helpers(facts: KernelFacts, helpers: tuple[HelperCall, ...]) -> KernelFacts:
    """`facts` with the helpers' facts (HELPER_FACT_KEYS) added, each at the line where the kernel's file calls it
    (a line of another file would point into the wrong source)."""
    warp, lane, ballot, wsize, tensor, asyncs, clusters, libs, cute = [], [], [], [], set(), set(), set(), set(), set()
    waves: list[WaveName] = []
    atomics, grid, device, partial = [], [], [], []
    differs: list[tuple[str, int]] = []
    products: list[tuple[str, int]] = []
    features: list[tuple[str, int]] = []
    ptx_statements, ptx_families, ptx_lines = 0, set(), set()
    for h in helpers:
        f, at = h.facts, h.call_line
        warp += [replace(w, line=at) for w in f.warp_ops]
        lane += [replace(x, line=at) for x in f.lane_assumptions]
        ballot += [replace(b, line=at) for b in f.ballot_32bit]
        wsize += [replace(w, line=at) for w in f.warpsize_constant]
        waves += [replace(w, line=at) for w in f.wave_names]
        tensor |= set(f.tensor_cores)
        asyncs |= set(f.async_copies)
        clusters |= set(f.clusters)
        libs |= set(f.cuda_libraries)
        cute |= set(f.cute_tensor)
        atomics += list(f.atomics)
        grid += [at] if f.grid_sync else []
        device += [at] if f.device_launches else []
        partial += [at] if f.partial_syncwarp else []
        differs += [(kind, at) for kind, _ in f.clang_differs]
        products += [(name, at) for name, _ in f.typed_products]
        features += [(name, at) for name, _ in f.feature_lines]
        if f.inline_ptx.statements:
            ptx_statements += f.inline_ptx.statements
            ptx_families |= set(f.inline_ptx.families)
            ptx_lines.add(at)
    own = facts.inline_ptx
    return replace(
        facts, helpers=(),
        warp_ops=tuple(sorted(facts.warp_ops + tuple(warp), key=lambda x: (x.line, x.op))),
        lane_assumptions=tuple(sorted(facts.lane_assumptions + tuple(lane), key=lambda x: (x.line, x.kind))),
        ballot_32bit=facts.ballot_32bit + tuple(ballot),
        warpsize_constant=facts.warpsize_constant + tuple(wsize),
        wave_names=tuple(sorted(set(facts.wave_names) | set(waves), key=lambda x: (x.line, x.name))),
        tensor_cores=tuple(sorted(set(facts.tensor_cores) | tensor)),
        async_copies=tuple(sorted(set(facts.async_copies) | asyncs)),
        clusters=tuple(sorted(set(facts.clusters) | clusters)),
        cuda_libraries=tuple(sorted(set(facts.cuda_libraries) | libs)),
        cute_tensor=tuple(sorted(set(facts.cute_tensor) | cute)),
        atomics=tuple(sorted(set(facts.atomics) | set(atomics))),
        grid_sync=tuple(sorted(set(facts.grid_sync) | set(grid))),
        device_launches=tuple(sorted(set(facts.device_launches) | set(device))),
        partial_syncwarp=tuple(sorted(set(facts.partial_syncwarp) | set(partial))),
        clang_differs=tuple(sorted(set(facts.clang_differs) | set(differs))),
        typed_products=tuple(sorted(set(facts.typed_products) | set(products))),
        feature_lines=tuple(sorted(set(facts.feature_lines) | set(features))),
        inline_ptx=InlinePtx(own.statements + ptx_statements, tuple(sorted(set(own.families) | ptx_families)),
                             tuple(sorted(set(own.lines) | ptx_lines))),
    )


# ------------------------------------------------------------------------------------------ verdicts


@dataclass(frozen=True)
class CheckResult:
    """One reason behind a verdict: a named check (porter.kernels.checks) or a rule with a `verdict` that fired."""

    id: str
    verdict: str
    message: str
    lines: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "verdict": self.verdict, "message": self.message, "lines": list(self.lines)}


@dataclass(frozen=True)
class TargetVerdict:
    """A kernel's verdict on one target: the worst of its details, worst first (ties by id)."""

    target: str
    verdict: str
    details: tuple[CheckResult, ...] = ()

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.details)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reasons": list(self.reasons), "details": [d.to_dict() for d in self.details]}


# ------------------------------------------------------------------------------------------ the kernel


@dataclass(frozen=True)
class Kernel:
    """A `__global__` function definition (or a `@triton.jit` one), with what kernel analysis found once it ran."""

    path: str
    line: int
    end_line: int
    name: str  # unqualified name
    qualified_name: str  # as written in the declarator, e.g. ns::k
    is_template: bool = False
    via_macro: str | None = None  # the macro that hid `__global__`, when one did
    launch_bounds: tuple[str, ...] = ()
    facts: KernelFacts | None = None  # measured in the scan (porter.kernels.facts)
    verdicts: tuple[TargetVerdict, ...] | None = None  # one per chosen target, once analysed (porter.kernels.verdicts)
    status: Status = Status.OPEN  # see porter.model.finding.Status
    handled_by: str | None = None  # "path:line" of what handles it, when not open
    language: str = "cuda"  # cuda (a __global__ function) | triton (a @triton.jit function)

    def __lt__(self, other: Kernel) -> bool:
        # Source order; the facts never decide it.
        return self._identity() < other._identity()

    def _identity(self) -> tuple[str, int, int, str, str, bool, str, tuple[str, ...]]:
        return (self.path, self.line, self.end_line, self.name, self.qualified_name, self.is_template,
                self.via_macro or "", self.launch_bounds)

    def verdict_on(self, target_id: str) -> TargetVerdict | None:
        return next((v for v in self.verdicts or () if v.target == target_id), None)

    def to_dict(self, launches: list[Launch] | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "qualified_name": self.qualified_name,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "is_template": self.is_template,
            "via_macro": self.via_macro,
            "launch_bounds": list(self.launch_bounds),
            "launches": [l.to_dict() for l in (launches or [])],
            "status": str(self.status),
            "handled_by": self.handled_by,
        }
        if self.language != "cuda":
            d["language"] = self.language  # CUDA kernels keep the keys they always had
        facts = self.facts.to_dict() if self.facts is not None else {}
        if self.verdicts is not None:
            facts["targets"] = {v.target: v.to_dict() for v in self.verdicts}
        d.update(sorted(facts.items()))
        return d
