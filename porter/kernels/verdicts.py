"""Kernel analysis: measure each kernel's facts (in the scan workers) and give it a verdict per AMD target.

`measure(sf)` runs per file inside the cached, parallel scan (porter.pipeline) and returns the file's kernels with
their KernelFacts (porter.kernels.facts). `analyse(result, targets)` runs once after the scan: it picks the target
profiles (porter.targets), folds launches written in other files (porter.kernels.launch_config), applies the named
checks (porter.kernels.checks) and any rule with a `verdict` to every kernel, and returns new kernels carrying one
TargetVerdict per target. Verdicts, mildest first: ok (hipify suffices) < check (verify numerically) < retune
(correct, tuned for NVIDIA) < fix (wrong or no compile without edits) < rewrite (no equivalent on this target).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import re
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from porter.kernels.callgraph import bound_functor_calls, helper_calls, helper_index, helper_spans
from porter.kernels.check_table import load_checks
from porter.kernels.complex_types import complex_names, complex_operators, has_products, with_complex_products
from porter.kernels.checks import check_verdict, kernel_checks
from porter.kernels.facts_vocabulary import OPT_IN_ATTRIBUTES
from porter.kernels import nodes  # noqa: F401 - registers its whole-file query before the first file is parsed
from porter.kernels.launch_config import remote_launches
from porter.kernels import launchers
from porter.kernels import triton_imports
from porter.kernels.triton import with_remote_launches
from porter.model import AnalysedTarget, Kernel, KernelAnalysisSummary, ScanResult
from porter.model.finding import Severity
from porter.model.kernel import CheckResult, KernelFacts, TargetVerdict, WarpSizeConstant, merge_helpers
from porter.source.discover import HEADER_SUFFIXES
from porter.source.parse import SourceFile

VERDICTS = ("ok", "check", "retune", "fix", "rewrite")
RANK = {v: i for i, v in enumerate(VERDICTS)}


def measure(sf: SourceFile, constants: dict[str, int] | None = None,
            alternatives: dict[str, tuple[int, ...]] | None = None) -> list[Kernel]:
    """The file's kernels with their facts (runs in scan workers; results are cached with the file). `constants`
    are integer constants defined elsewhere in the repository (the file's own definitions win); `alternatives`
    constants defined there with a value per build, which bound shared-memory sizes."""
    from porter.kernels.facts import measure_file

    try:
        return measure_file(sf, constants or None, alternatives or None)
    except RecursionError:
        # The fact walkers (constant folding, lane and shared-memory arithmetic, shuffle arguments) recurse once per
        # nesting level of an expression; one launch nested a thousand parentheses deep must cost the file its kernel
        # facts, not its findings (a pull request could otherwise hide a file from the gate that way).
        return []


def device_helpers(sf: SourceFile, constants: dict[str, int] | None = None,
                   build_names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())):
    """The file's `__device__` functions as helpers of other files' kernels (porter.kernels.callgraph), without
    the code only the CUDA build compiles (`build_names`: the repository's ROCm-side and CUDA-side macros)."""
    from porter.kernels.facts import measure_helpers

    try:
        return measure_helpers(sf, constants or None, build_names)
    except RecursionError:  # as in measure
        return []


def worst(verdicts: Iterable[str]) -> str:
    return max(verdicts, key=lambda v: RANK[v], default="ok")


def resolve_targets(spec: Iterable[str] | None, profile_files: Iterable[str | Path] = ()):
    """Target profiles for a run (see porter.targets.resolve_targets, the one resolver)."""
    from porter.targets import resolve_targets as resolve

    return resolve([*(spec or ()), *(str(p) for p in profile_files)])


def rule_verdicts(rules) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Rules that carry a `verdict`: id -> (verdict spec, the rule's targets list)."""
    return {r.id: (r.verdict, r.targets) for r in rules.rules if isinstance(r.verdict, dict)}


# A kernel's verdict is at least as severe as the open findings inside it - its body, the same-file device functions
# it calls, and the helpers it reaches in other files (porter.kernels.callgraph.helper_spans) - even where no named
# check measures what they found: a rule without its own `verdict` gives the kernel a floor from its severity. A
# high finding is something hipify's output does not compile or gets wrong (`cg::labeled_partition`, a 32-bit mask
# in a variable, inline PTX): fix; a blocker has no counterpart on the target (TMA, clusters): rewrite. Medium and
# below say "verify" or "retune" for the code around them and stay with the named checks.
SEVERITY_FLOOR = {Severity.HIGH: "fix", Severity.BLOCKER: "rewrite"}
VANISHING_ARM_RULE = "DEV016"  # rules/device/DEV016-vanishing-cuda-arch-arm.yaml
# A rule tagged `launch-site` finds a kernel launch that hip-clang rejects (DEV040: `k << <grid, block >> >(...)`,
# chevrons split by spaces) and names the launched kernel in its finding's data (`name`). The finding sits in the
# host code that launches the kernel, not in the kernel, yet the kernel cannot run on HIP until it is fixed: it
# floors the launched kernel's verdict as a finding inside the kernel would (issue 27 class 2), naming the launch.
LAUNCH_SITE_TAG = "launch-site"
# A rule tagged `host-only-marker` finds a qualifier macro HIP defines without `__device__` (DEV041: `#define HD
# __device__` only under `__CUDA_ARCH__`) and names it in data `name`: a kernel that calls a function declared
# only through it calls a host function on HIP, which clang rejects in both passes (issue 27 class 2).
HOST_ONLY_MARKER_TAG = "host-only-marker"


def verdicts_for(kernel: Kernel, facts: KernelFacts, findings, targets, rules,
                 reached: Iterable[tuple[Any, tuple[str, int]]] = (), rule_targets_of: dict[str, Any] | None = None,
                 release: str | None = None, shims: frozenset[str] = frozenset(),
                 wave64: tuple[Wave64Use, ...] = (), launched: Iterable[Any] = (),
                 marked: Iterable[tuple[Any, str, int]] = ()) -> tuple[TargetVerdict, ...]:
    """One TargetVerdict per target for one kernel: its named checks, the verdict rules its findings fired and the
    floor its other findings set (SEVERITY_FLOOR). `findings`: the kernel file's findings; `reached`: findings in
    helpers of other files the kernel calls, each with where that helper is (`chain (path:line)`) and the kernel's
    line that calls into it;
    `rule_targets_of`: each rule's `targets` (a floor applies only where its rule does); `release`: the ROCm release
    the run judges (None: the newest), which some checks' verdicts depend on (rules/kb/kernel_checks.yaml);
    `wave64`: the wave-size constants fixed at 64 (DEV017) the kernel's warp code uses (wave64_uses); `launched`:
    the open findings of `launch-site` rules at launches of this kernel (launch_findings), in any file; `marked`: the
    `host-only-marker` finding of each helper the kernel calls that its macro leaves host-only on HIP, with the
    helper (`name (path:line)`) and the kernel-file line that stands for it (host_only_helpers)."""
    from porter.targets import applies

    spans = [(kernel.line, kernel.end_line)] + [(d.line, d.end_line) for d in facts.device_functions]
    # a finding in an arm the ROCm build never compiles (facts.skipped_arms) is not the kernel's port work
    inside = [f for f in findings if any(a <= f.line <= b for a, b in spans)
              and not any(a <= f.line <= b for a, b in facts.skipped_arms)]
    mine = [f for f in inside if f.rule in rules]
    floors = [(f, None) for f in inside if f.rule not in rules and f.severity in SEVERITY_FLOOR]
    floors += [(f, where) for f, where in reached if f.rule not in rules and f.severity in SEVERITY_FLOOR]
    # a launch in the kernel's own file counts at that line (port status decides it there); one in another file at
    # the kernel's definition, the one line of the kernel's file that stands for it
    floors += [(f, (LAUNCH, f.line if f.path == kernel.path else kernel.line)) for f in launched
               if f.rule not in rules and f.severity in SEVERITY_FLOOR]
    floors += [(f, (MARKER, helper, line)) for f, helper, line in marked
               if f.rule not in rules and f.severity in SEVERITY_FLOOR]
    if shims:
        floors = [(f, where) for f, where in floors if not _calls_shim(f, shims)]
    rule_targets_of = rule_targets_of or {}
    # A __CUDA_ARCH__ arm that leaves HIP nothing (DEV016) around the kernel's tensor-core code: the matrix path is
    # gone on AMD, and an MFMA/rocWMMA one has to be written for it (ByteTransformer's fused attention, dgSPARSE's
    # tf32 kernel: judged rewrites), which is more than porting the WMMA calls the arm held.
    vanished = sorted({f.line for f in inside if f.rule == VANISHING_ARM_RULE and f.line in facts.tensor_arch_arms})
    out = []
    for t in targets:
        details = _checks_with_helpers(facts, t, release)
        if vanished:
            v = check_verdict(load_checks()["tensor-arm-vanishes"]["verdict"], t, release)
            if v != "ok":
                details.append(CheckResult("tensor-arm-vanishes", v, "tensor-core code in a __CUDA_ARCH__ arm that "
                                           "HIP compiles to nothing: write the AMD matrix path (rocWMMA / MFMA)",
                                           tuple(vanished)))
        by_rule: dict[str, tuple[str, str, list[int]]] = {}
        for f in mine:
            spec, rule_targets = rules[f.rule]
            if not applies(rule_targets, t):
                continue
            v = check_verdict(spec, t)
            if v == "ok":
                continue
            by_rule.setdefault(f.rule, (v, f.message, []))[2].append(f.line)
        details.extend(CheckResult(rule, v, message, tuple(lines)) for rule, (v, message, lines) in by_rule.items())
        details.extend(_floor(floors, rule_targets_of, worst(d.verdict for d in details), t))
        if wave64 and applies(rule_targets_of.get(WAVE64_RULE, ()), t) and not any(d.id == WAVE64_RULE for d in details):
            details.append(_wave64_result(wave64, t))
        details.sort(key=lambda d: (-RANK[d.verdict], d.id))
        out.append(TargetVerdict(t.id, worst(d.verdict for d in details), tuple(details)))
    return tuple(out)


# CUDA's block-scope atomics (`atomicAdd_block`, API002: HIP declares no _block variant) are one #define each over
# the device-scope atomic, whose scope covers the block's: a kernel that needs only that is fixed once for the
# repository (rules/effort/model.yaml `repository_fix_needs`), not kernel by kernel. Its check is named apart from
# API002's other unsupported calls, which each need their own replacement.
BLOCK_SCOPE_ATOMIC = "block-scope-atomic"
# A check named apart from the rule whose findings it stands for: the estimate costs those findings with the kernel.
CHECK_RULE = {BLOCK_SCOPE_ATOMIC: "API002"}
_BLOCK_ATOMIC = re.compile(r"atomic\w+_block\b")

# A device rule's message names the intrinsic it found first (`__shfl_down_sync gets the 32-bit mask ...`).
_LEADING_INTRINSIC = re.compile(r"(__\w+)\b")


def _calls_shim(f, shims: frozenset[str]) -> bool:
    """Whether a finding is about a call of a warp intrinsic the project defines itself (shimmed_warp_ops): its
    mask type and lanes are the polyfill's, so it sets no floor under the kernels that call it."""
    m = _LEADING_INTRINSIC.match(f.message)
    return m is not None and m.group(1) in shims


# `where` of a floor that a launch of the kernel holds (launch_findings), or a helper's host-only marker
# (host_only_helpers), not a finding inside a helper it calls.
LAUNCH = "launch"
MARKER = "marker"


def host_only_markers(findings, rules) -> dict[str, list[Any]]:
    """The open findings of `host-only-marker` rules (HOST_ONLY_MARKER_TAG) by the macro they name."""
    tagged = frozenset(r.id for r in rules.rules if HOST_ONLY_MARKER_TAG in r.tags)
    out: dict[str, list[Any]] = {}
    for f in findings:
        if f.rule in tagged and f.status == "open" and f.data:
            name = dict(f.data).get("name")
            if isinstance(name, str):
                out.setdefault(name, []).append(f)
    return out


def host_only_helpers(k: Kernel, facts: KernelFacts, markers: dict[str, list[Any]], index) -> list[tuple[Any, str, int]]:
    """The device functions `k` calls that a host-only marker alone declares: (the marker's finding, `name
    (path:line)`, the kernel-file line that stands for it: a same-file function's own line, a helper in another file
    the kernel's line that calls into it). A marker counts where its definition is in the function's file or one
    that file or the kernel's includes (transitively), or where the repository defines it as such in one file only
    (as a warpSize alias counts: with_warpsize_aliases)."""
    from porter.kernels.callgraph import marked_helpers

    def finding(names: tuple[str, ...], path: str):
        reach = {path, k.path} | (index.closure(path) | index.closure(k.path) if index is not None else frozenset())
        for n in names:
            found = markers.get(n, ())
            near = [f for f in found if f.path in reach] or (found if len({f.path for f in found}) == 1 else [])
            if near:
                return near[0]
        return None

    out = []
    for d in facts.device_functions:
        if d.markers and (f := finding(d.markers, k.path)) is not None:
            out.append((f, f"{d.name} ({k.path}:{d.line})", d.line))
    if index is not None and facts.calls:
        for home, d, chain, line in marked_helpers(k, index):
            if (f := finding(d.markers, home)) is not None:
                out.append((f, f"{' → '.join(chain)} ({home}:{d.line})", line))
    return out


def launch_findings(findings, rules, kernels: Iterable[Kernel], index,
                    files: Iterable = ()) -> dict[tuple[str, int, str], list[Any]]:
    """The open findings of `launch-site` rules (LAUNCH_SITE_TAG) by the kernel they launch, (path, line, name) ->
    findings. The finding names the kernel (data `name`); of kernels of that name in several files, those of the
    launching file, else of the one file its include closure (`index`: porter.kernels.callgraph.HelperIndex)
    reaches; a name still ambiguous links to none (a verdict must not rest on a guess, as a helper call that
    resolves to two files is not followed). Overloads in one file are one kernel here, as they are one helper in
    the call graph: which one a launch picks depends on its argument types, and a file writes its launches alike.
    A name that is a parameter of the launcher function the launch is in (porter.kernels.launchers, read from the
    scan's FileResults `files`) stands for each kernel the launcher's callers pass there."""
    tagged = frozenset(r.id for r in rules.rules if LAUNCH_SITE_TAG in r.tags)
    if not tagged:
        return {}
    kernels = list(kernels)
    by_name: dict[str, list[Kernel]] = {}
    for k in kernels:
        by_name.setdefault(k.name, []).append(k)
    out: dict[tuple[str, int, str], list[Any]] = {}
    through: dict[tuple[str, int, str], list[Kernel]] | None = None
    own_launchers: dict[str, list[Any]] = {}
    for f in findings:
        if f.rule not in tagged or f.status != "open" or not f.data:
            continue
        name = dict(f.data).get("name")
        if through is None:
            files = list(files)
            own_launchers = {r.path: list(r.launchers) for r in files if getattr(r, "launchers", ())}
            if own_launchers and index is None:
                index = helper_index(files)
            through = launchers.launched_through(files, kernels, index) if own_launchers else {}
        passed = launchers.kernels_at(through, own_launchers, f.path, f.line, name) if isinstance(name, str) else []
        if passed:
            for k in passed:
                out.setdefault((k.path, k.line, k.name), []).append(f)
            continue
        found = by_name.get(name, []) if isinstance(name, str) else []
        if len({k.path for k in found}) > 1:
            found = [k for k in found if k.path == f.path] or (
                [k for k in found if k.path in index.closure(f.path)] if index is not None else [])
        if len({k.path for k in found}) == 1:
            for k in found:
                out.setdefault((k.path, k.line, k.name), []).append(f)
    return out


def _floor(floors, rule_targets_of: dict[str, Any], current: str, target) -> list[CheckResult]:
    """The findings that make the kernel worse than its checks say on `target`, one CheckResult per rule: its
    message, its lines in the kernel's own file (so port status drops it when they are all handled), and where a
    helper in another file holds it. A helper's finding counts at the kernel's line that calls into the helper, as
    a check a helper's facts make fire does (porter.kernels.verdicts._checks_with_helpers): a kernel of a CUDA twin
    the ROCm build never compiles (libCEED's cuda/ JIT sources beside their hip/ ones) then reads handled there, and
    its helper's `atomicAdd_block` no longer makes it a fix."""
    from porter.targets import applies

    by_rule: dict[str, tuple[str, str, list[int], list[str]]] = {}
    launches: dict[str, list[str]] = {}
    declared: dict[str, list[str]] = {}  # rule -> the helpers a host-only marker declares, that the kernel calls
    for f, where in floors:
        v = SEVERITY_FLOOR[f.severity]
        if RANK[v] <= RANK[current] or not applies(rule_targets_of.get(f.rule, ()), target):
            continue
        rule = BLOCK_SCOPE_ATOMIC if f.rule == "API002" and _BLOCK_ATOMIC.match(f.message) else f.rule
        entry = by_rule.setdefault(rule, (v, f.message, [], []))
        if where is None:
            entry[2].append(f.line)
        elif where[0] == LAUNCH:
            launches.setdefault(rule, []).append(f"{f.path}:{f.line}")
            entry[2].append(where[1])
        elif where[0] == MARKER:
            if rule not in declared:
                declared[rule] = [f"{dict(f.data).get('name')} ({f.path}:{f.line})"]
            declared[rule].append(where[1])
            entry[2].append(where[2])
        else:
            chain, call_line = where
            entry[3].append(f"{chain}, line {f.line}")
            if call_line:
                entry[2].append(call_line)
    out = []
    for rule, (v, message, lines, helpers) in by_rule.items():
        macro, *called = declared.get(rule, ("",))
        called = list(dict.fromkeys(called))
        if called:
            message = (f"{message.rstrip('.')}; the kernel calls {', '.join(called[:3])}"
                       + (f" and {len(called) - 3} more" if len(called) > 3 else "") + f", declared {macro}")
        sites = sorted(set(launches.get(rule, ())))
        if sites:
            message = (f"{message.rstrip('.')}; at its launch{'es' if len(sites) > 1 else ''} {', '.join(sites[:3])}"
                       + (f" and {len(sites) - 3} more" if len(sites) > 3 else ""))
        if helpers:
            message = f"{message.rstrip('.')}; in helper {', '.join(helpers[:3])}" + (f" and {len(helpers) - 3} more"
                                                                        if len(helpers) > 3 else "")
        out.append(CheckResult(rule, v, message, tuple(sorted(set(lines)))))
    return out


def _checks_with_helpers(facts: KernelFacts, target, release: str | None = None) -> list[CheckResult]:
    """The named checks on the kernel's facts merged with its helpers' (KernelFacts.merged); a check that only a
    helper's facts make fire (or worse) says which helper, and where: `...; via flash::compute_attn (path:line)`."""
    details = kernel_checks(facts.merged(), target, release)
    if not facts.helpers:
        return details
    own_facts = dataclasses.replace(facts, helpers=())
    own = {(d.id, d.verdict) for d in kernel_checks(own_facts, target, release)}
    by_helper = None  # what each helper alone makes fire: asked only for a check the kernel's own facts do not give
    out = []
    for d in details:
        key = (d.id, d.verdict)
        if key not in own:
            if by_helper is None:
                by_helper = [(h, {(c.id, c.verdict) for c in kernel_checks(merge_helpers(own_facts, (h,)), target, release)})
                             for h in facts.helpers]
            via = [h.where for h, fired in by_helper if key in fired] or [h.where for h in facts.helpers]
            d = dataclasses.replace(d, message=f"{d.message}; via {', '.join(via[:3])}"
                                                + (f" and {len(via) - 3} more" if len(via) > 3 else ""))
        out.append(d)
    return out


# The names hipify maps a dynamic-shared-memory opt-in's attribute to (runtime and driver API), as the API tables give
# them in a finding's `hip` field: porter reports every use of the attribute (at info, a rename).
_OPT_IN_HIP = frozenset({"hipFuncAttributeMaxDynamicSharedMemorySize", "HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"})


def dynamic_opt_in_paths(findings) -> frozenset[str]:
    """Files that raise a kernel's dynamic shared memory limit (cudaFuncSetAttribute with
    cudaFuncAttributeMaxDynamicSharedMemorySize, or the driver API's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
    read from the findings that name the attribute."""
    out = set()
    for f in findings:
        hip = dict(f.data).get("hip") if f.data else None
        if hip in _OPT_IN_HIP or any(name in f.message for name in OPT_IN_ATTRIBUTES):
            out.add(f.path)
    return frozenset(out)


def default_dynamic_cap(kernel: Kernel, launches, opt_ins: frozenset[str]) -> bool:
    """Whether no opt-in can raise this kernel's dynamic shared memory above CUDA's 48 KiB default: none in its own
    file nor in a file that launches it, and - when no launch of it is known (a launch through a function pointer,
    a runtime-compiled module) - none anywhere in the repository. An opt-in is written beside the launch it serves;
    which kernel one names through a variable is not followed, hence the file, not the name."""
    if kernel.path in opt_ins:
        return False
    if launches or (kernel.facts is not None and kernel.facts.launch_sites):
        return not any(l.path in opt_ins for l in launches)
    return not opt_ins


def cooperative_only(launches) -> bool:
    """Whether a kernel's known launch sites (its file's, else other files' as remote_launches resolves them; at
    least one) are all cooperative launches (cudaLaunchCooperativeKernel, cuLaunchCooperativeKernel) whose grid
    the occupancy API sizes (LaunchConfig.occupancy_grid): then HIP's cooperative launch and grid sync work as on
    CUDA. A grid sized by the problem (`n / 256`) may not fit the device at once, and a kernel also launched with
    `<<<>>>` (hornet's merge-path kernel) has no co-resident grid for its grid.sync(): both stay a check."""
    return bool(launches) and all("Cooperative" in l.kind and l.occupancy_grid for l in launches)


def shimmed_warp_ops(files) -> frozenset[str]:
    """The CUDA warp intrinsics (`__shfl_down_sync`, `__ballot_sync`, ...) the repository defines itself as device
    functions. nvcc provides them, so a project's own definition is a polyfill for another compiler (sppark's
    force-included `util/cuda2hip.hpp` defines `__shfl_*_sync(uint32_t mask, ...)` over `__shfl(..., WARP_SZ)` for
    its HIP build): the project's calls reach that function, whose mask parameter is the project's own type and whose
    lane semantics are what its body does (judged there, as any device function), not HIP's 64-bit-mask builtin."""
    from porter.kernels.facts_vocabulary import WARP_OPS
    from porter.match.refine_code import TOOLKIT_HEADERS

    # A definition only the CUDA build compiles (an old toolkit's polyfill under `#ifndef __HIPCC__`) leaves HIP
    # with its builtin. So does one in the repository's private copy of a toolkit header (a vendored
    # `cuda_fp16.hpp` with its `__shfl_sync(unsigned mask, __half var, ...)` overloads): those are NVIDIA's own
    # overloads for one value type, not a polyfill, and hipify points the include at HIP's header, whose
    # 64-bit-mask builtins the project's calls then reach.
    return frozenset(h.name for r in files for h in getattr(r, "helpers", ()) if h.name in WARP_OPS
                     and PurePosixPath(getattr(r, "path", "")).name not in TOOLKIT_HEADERS
                     and not any(a <= h.line and h.end_line <= b for a, b in h.cuda_only))


def without_shimmed(facts: KernelFacts, shims: frozenset[str]) -> KernelFacts:
    """`facts` (and its helpers' facts) without the warp operations and ballots that call a project's polyfill
    (shimmed_warp_ops); the same object when none does."""
    def strip(f: KernelFacts) -> KernelFacts:
        if not any(w.op in shims for w in f.warp_ops) and not any(b.op in shims for b in f.ballot_32bit):
            return f
        return dataclasses.replace(f, warp_ops=tuple(w for w in f.warp_ops if w.op not in shims),
                                   ballot_32bit=tuple(b for b in f.ballot_32bit if b.op not in shims))

    out = strip(facts)
    helpers = tuple(h if (g := strip(h.facts)) is h.facts else dataclasses.replace(h, facts=g) for h in facts.helpers)
    if any(a is not b for a, b in zip(helpers, facts.helpers)):
        out = dataclasses.replace(out, helpers=helpers)
    return out


# A wave-size constant a ROCm arm fixes at 64 (DEV017 at its definition: `constexpr int WARP_SIZE = 64;` under
# `__HIP_PLATFORM_AMD__`, `#define WARP_SIZE 64` under `USE_ROCM`), as the finding's message names it.
WAVE64_RULE = "DEV017"  # rules/device/DEV017-fixed-wave-size-64.yaml
_WAVE64_NAME = re.compile(r"([A-Za-z_]\w*) is fixed at 64")


@dataclasses.dataclass(frozen=True)
class Wave64Use:
    """A kernel's use of a wave-size constant fixed at 64: the name, where it is defined, the kernel-file lines
    that use it (a helper's use counts at the kernel's line that calls into the helper)."""

    name: str
    path: str
    line: int
    lines: tuple[int, ...]


def wave64_constants(findings) -> dict[str, tuple[tuple[str, int], ...]]:
    """Wave-size constants fixed at 64 with no architecture test (DEV017), name -> (file, line) of each."""
    out: dict[str, list[tuple[str, int]]] = {}
    for f in findings:
        if f.rule == WAVE64_RULE:
            m = _WAVE64_NAME.match(f.message)
            if m:
                out.setdefault(m.group(1), []).append((f.path, f.line))
    return {k: tuple(sorted(set(v))) for k, v in out.items()}


def wave64_uses(k: Kernel, facts: KernelFacts, constants: dict[str, tuple[tuple[str, int], ...]],
                index) -> tuple[Wave64Use, ...]:
    """The constants fixed at 64 (wave64_constants) the kernel's warp code uses, in its body or in the helpers it
    reaches. A kernel that shuffles or votes with `WARP_SIZE` fixed at 64 counts lanes that a wave32 target
    (gfx1250) does not have: a xor or down step of 32 reads the lane itself back, and `threadIdx.x / WARP_SIZE`
    warp ids give half the partial sums their slots. A use counts when the definition is in the using file or one
    it includes (transitively), as C++ name lookup needs, or on the compile line of a build file in a directory
    above it (_compiles_with); a kernel with no warp operation only indexes with it."""
    merged = facts.merged()
    if not (merged.warp_ops or merged.ballot_32bit) or not constants:
        return ()
    uses = [(k.path, w.name, w.line) for w in facts.wave_names]
    uses += [(h.path, w.name, h.call_line) for h in facts.helpers for w in h.facts.wave_names]
    found: dict[tuple[str, str, int], set[int]] = {}
    for path, name, line in uses:
        homes = constants.get(name)
        if not homes:
            continue
        reach = index.closure(path) if index is not None else frozenset()
        for home, at in homes:
            if home == path or home in reach or _compiles_with(home, path):
                found.setdefault((name, home, at), set()).add(line)
                break
    return tuple(Wave64Use(name, home, at, tuple(sorted(lines))) for (name, home, at), lines in sorted(found.items()))


def _compiles_with(build: str, path: str) -> bool:
    """Whether a wave-size definition on the compile line of a build file (`-DWARP_SIZE=64` in a CMakeLists.txt,
    a Makefile or setup.py: DEV017 there) reaches `path`: a build's definitions reach the sources it compiles,
    which sit in its directory and below (CMake's add_compile_definitions holds for the directory and its
    subdirectories)."""
    from porter.match.kinds.arms import BUILD_DEFINITION_LANGUAGES
    from porter.source.discover import language_of

    if language_of(build) not in BUILD_DEFINITION_LANGUAGES:
        return False
    folder = build.rpartition("/")[0]
    return not folder or path.startswith(folder + "/")


def _wave64_result(uses: tuple[Wave64Use, ...], target) -> CheckResult:
    """The kernel's wave64 constants as one DEV017 result on a wave32 target: fix, naming each constant and its
    definition."""
    named = ", ".join(f"{u.name} ({u.path}:{u.line})" for u in uses[:3]) + (
        f" and {len(uses) - 3} more" if len(uses) > 3 else "")
    message = (f"warp code uses {named}, fixed at 64 for every AMD GPU: {target.id} ({target.gfx}) runs "
               f"{target.wavefront_size}-lane waves, so shuffle steps of 32 and 64-lane warp ids are wrong there")
    return CheckResult(WAVE64_RULE, SEVERITY_FLOOR[Severity.HIGH], message,
                       tuple(sorted({x for u in uses for x in u.lines})))


# `#define WARP_SIZE warpSize` as DEV004 quotes it (the finding's snippet): the macro is warpSize wherever it is used;
# `#define NWARPS (1024 / warpSize)` is computed from it, as much a run-time value (an object-like macro only: a
# function-like one has `(` right after its name).
_WARPSIZE_ALIAS = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*warpSize\s*\)?\s*(?://.*|/\*.*)?$")
_WARPSIZE_DERIVED = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+(?:[^/]|/(?![/*]))*?\bwarpSize\b")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def warpsize_aliases(findings) -> dict[str, tuple[str, ...]]:
    """Object-like macros the repository defines as `warpSize` (DEV004 at the `#define`), name -> defining files.
    A ROCm arm that writes `#define _WS warpSize` (qiskit-aer's gpu_static_properties.hpp, heldout7) makes every
    `__shared__ T cache[_MAX_THD / _WS]` a warpSize-sized array on HIP: not a constant expression since ROCm 7.0,
    so the kernel stops compiling although its own text never names warpSize."""
    out: dict[str, list[str]] = {}
    for f in findings:
        if f.rule == "DEV004" and f.snippet:
            m = _WARPSIZE_ALIAS.match(f.snippet) or _WARPSIZE_DERIVED.match(f.snippet)
            if m:
                out.setdefault(m.group(1), []).append(f.path)
    return {k: tuple(sorted(set(v))) for k, v in out.items()}


def with_warpsize_aliases(k: Kernel, facts: KernelFacts, aliases: dict[str, tuple[str, ...]], index) -> KernelFacts:
    """`facts` with a WarpSizeConstant for each static shared array whose extent names a warpSize alias (the
    kernel's own arrays; a helper's come through its facts). The alias counts when its `#define` is in the kernel's
    file or a file it includes, or when the repository defines that name in one file only (as a helper call
    resolves, porter.kernels.callgraph)."""
    reach = index.closure(k.path) if index is not None else frozenset()
    hits = []
    for a in facts.shared_memory.arrays:
        names = {n for e in a.extents if isinstance(e, str) for n in _IDENT.findall(e)}
        for n in sorted(names & aliases.keys()):
            homes = aliases[n]
            if k.path in homes or any(h in reach for h in homes) or len(homes) == 1:
                hits.append(WarpSizeConstant(a.line, f"__shared__ {a.name}[{']['.join(map(str, a.extents))}] "
                                                     f"({n} is #define'd as warpSize in {homes[0]})"))
                break
    known = {(w.line, w.text) for w in facts.warpsize_constant}
    hits = [h for h in hits if (h.line, h.text) not in known]
    if not hits:
        return facts
    return dataclasses.replace(facts, warpsize_constant=tuple(facts.warpsize_constant) + tuple(hits))


# A template kernel nothing instantiates is never compiled, on CUDA or on HIP: no port work, whatever it holds
# (heldout34's gipuma_initial_cost, whose only launch is commented out; judged so on heldout20/23/25 too).
NEVER_INSTANTIATED = "never-instantiated"
NEVER_INSTANTIATED_WHY = ("a template kernel that no launch in the repository names and no call passes, in a file whose "
                          "host code launches its other kernels: never instantiated, so neither nvcc nor hip-clang "
                          "compiles its body")
NEVER_INSTANTIATED_DEAD_WHY = ("a template kernel its file names only in arms no build compiles (the file's own "
                               "#define rules them out) and that no other launch names or call passes: never "
                               "instantiated, so neither nvcc nor hip-clang compiles its body")


def uninstantiated(kernels: Iterable[Kernel], launches: Iterable[Any], files: Iterable[Any]) -> frozenset[tuple[str, int]]:
    """(path, line) of the CUDA template kernels nothing instantiates: written in a file that launches other kernels
    (its host code is there: a source file, a header whose host functions launch its kernels, a .cu a header
    `#include`s), with no launch of its name anywhere (a chevron or launch API call, in any file, or a launch a
    #define body writes: FileResult.macro_launched, `__expand_VC_##lb<<<...>>>` covering every `__expand_VC_*`), its
    name passed to no call (a launcher function: porter.kernels.launchers), and its name nowhere else in its file's
    compiled code (KernelFacts.named_outside: `auto kernel = k<64, 128>;` handed to a generic launcher, heldout23's
    RL-Kernel; an explicit instantiation). A file of kernels alone (no launch of its own: a library's header, a
    test's) may be launched from code porter does not see, and is left alone. Judges read such a template ok in a
    header as in a source: heldout20's pack_bytes, heldout41's d_algPageRankNaiveWarp and heldout44's GSWITCH
    __copy_all (headers whose launch of it is commented out), heldout44's groth_table (a .cu its header includes)."""
    # ... and a template kernel of a header that its own file names only on lines no build compiles
    # (KernelFacts.named_dead: nsparse's hash_symbolic_gl2, whose one launch sits in the `#else` of `#ifdef
    # ORIGINAL_HASH` under the header's own `#define ORIGINAL_HASH`): the header is where the project instantiates
    # it, and it no longer does; a launch or a passed name anywhere else still instantiates it.
    templates = [k for k in kernels if k.is_template and k.language == "cuda"]
    if not templates:
        return frozenset()
    files = list(files)
    launches = list(launches)
    launched = {l.kernel for l in launches}
    launching = {l.path for l in launches}
    passed = {p.name for f in files for p in f.passed}
    patterns = sorted({p for f in files for p in getattr(f, "macro_launched", ())})
    pasted = re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None
    idle = []
    for k in templates:
        if k.name in launched or k.name in passed or (pasted is not None and pasted.match(k.name)):
            continue
        header = PurePosixPath(k.path).suffix.lower() in HEADER_SUFFIXES
        if k.facts is not None and k.facts.named_dead and not k.facts.named_outside and header:
            idle.append((k.path, k.line))
        elif k.path in launching and k.facts is not None and not k.facts.named_outside:
            idle.append((k.path, k.line))
    return frozenset(idle)


def analyse(result: ScanResult, targets: list[str] | None = None, deep: bool = False,
            profile_files: Iterable[str | Path] = (), resolved: Iterable | None = None,
            deep_budget=None, rocm: str | None = None) -> ScanResult:
    """The scan result with every kernel's per-target verdicts attached (and deep-mode facts when asked, libclang
    run per file under `deep_budget`: the scan's porter.budget.Budget, else porter's default).
    Analysing an analysed result again gives the same result: every derived fact is replaced, never appended.
    `resolved`: the Target profiles already resolved for the run (a history analyses hundreds of trees); `rocm`: the
    ROCm release the run judges (None: the newest rules/kb/hip_versions.yaml lists)."""
    chosen = list(resolved) if resolved is not None else resolve_targets(targets, profile_files)
    kernels = list(result.kernels)
    deep_info = None
    if deep:
        from porter.kernels import deep as deep_mod

        kernels, deep_info = deep_mod.refine(result, kernels, deep_budget or deep_mod.BUDGET)
    if result.rules is None:
        from porter.rules import load_rules

        result = dataclasses.replace(result, rules=load_rules())  # a result built without scan()
    rules = rule_verdicts(result.rules)
    rule_targets_of = {r.id: r.targets for r in result.rules.rules}
    findings_by_path: dict[str, list] = {}
    for f in result.findings:
        if f.rule in rules or f.severity in SEVERITY_FLOOR:
            findings_by_path.setdefault(f.path, []).append(f)
    launches_by_name: dict[str, list] = {}
    for l in result.launches:
        launches_by_name.setdefault(l.kernel, []).append(l)
    defined: dict[str, int] = {}
    for k in kernels:
        defined[k.name] = defined.get(k.name, 0) + 1
    aliases = warpsize_aliases(result.findings)
    wave64 = wave64_constants(result.findings)
    index = helper_index(result.files) if aliases or wave64 or any(k.facts is not None and k.facts.calls
                                                         for k in kernels) else None
    launch_sites = launch_findings(result.findings, result.rules, kernels, index, result.files)
    markers = host_only_markers(result.findings, result.rules)
    if markers and index is None:
        index = helper_index(result.files)
    shims = shimmed_warp_ops(result.files)
    opt_ins = dynamic_opt_in_paths(result.findings)
    updated = []
    complex_types: frozenset[str] | None = None  # the repository's CUDA complex type names, when a kernel asks
    complex_served: frozenset[str] = frozenset()  # those of them the project's own operators serve on HIP
    modules: triton_imports.ModuleIndex | None = None  # the project's Python jit functions, when a kernel imports
    counts = {t.id: {v: 0 for v in VERDICTS} for t in chosen}
    idle = uninstantiated(kernels, result.launches, result.files)
    for k in kernels:
        if k.facts is None:
            updated.append(k)
            continue
        walked = k
        if k.facts.triton is not None:
            # A Triton launch has no CUDA grid/block to fold: other files' launches bring their keywords instead;
            # jit functions it imports from other modules of the project bring their facts (triton_imports).
            triton = k.facts.triton
            if triton.calls:
                if modules is None:
                    modules = triton_imports.ModuleIndex(result.files)
                triton = triton_imports.with_imported(k, modules) or triton
            facts = dataclasses.replace(k.facts, triton=with_remote_launches(triton, k,
                                                                            launches_by_name.get(k.name, [])))
        else:
            sites, unknown = remote_launches(k, launches_by_name.get(k.name, []), defined.get(k.name, 1))
            # `Op{}(a, b)` on a template parameter runs the operator() of the class the launches name for it
            walked = bound_functor_calls(k, k.facts.launch_sites + sites)
            helpers = helper_calls(walked, index) if index is not None else ()
            facts = k.facts
            # Most kernels get none of the three: their facts stay the very same object (a copy of a dataclass of
            # thirty fields is what most of this loop would otherwise cost).
            capped = (facts.shared_memory.dynamic_unsized
                      and default_dynamic_cap(k, launches_by_name.get(k.name, []), opt_ins))
            coop = bool(facts.grid_sync) and cooperative_only(facts.launch_sites or sites)
            if (facts.remote_launch_sites, facts.remote_unknown, facts.helpers, facts.dynamic_default_cap,
                    facts.cooperative_launch) != (sites, unknown, helpers, capped, coop):
                facts = dataclasses.replace(facts, remote_launch_sites=sites, remote_unknown=unknown, helpers=helpers,
                                            dynamic_default_cap=capped, cooperative_launch=coop)
            if shims:
                facts = without_shimmed(facts, shims)
            if aliases:
                facts = with_warpsize_aliases(k, facts, aliases, index)
            if has_products(facts):
                if complex_types is None:
                    complex_types = complex_names(result.files)
                    complex_served = complex_operators(result.files, complex_types)
                facts = with_complex_products(facts, complex_types, complex_served)
        reached = []
        if facts.triton is not None:
            # findings inside an imported jit function are the kernel's, at the call that reaches it
            for h in facts.triton.imported:
                reached.extend((f, (h.where, h.call_line)) for f in findings_by_path.get(h.path, ())
                               if any(a <= f.line <= b for a, b in h.spans))
        if index is not None and k.facts.triton is None:
            for span in helper_spans(walked, index):
                # lines only the CUDA build compiles hold the helper's CUDA side: its ROCm arm is beside it
                reached.extend((f, (span.where, span.call_line)) for f in findings_by_path.get(span.path, ())
                               if span.holds(f.line))
        uses = wave64_uses(k, facts, wave64, index) if wave64 and k.facts.triton is None else ()
        marked = host_only_helpers(walked, facts, markers, index) if markers and k.facts.triton is None else ()
        per = verdicts_for(k, facts, findings_by_path.get(k.path, []), chosen, rules, reached, rule_targets_of, rocm,
                           shims, uses, launch_sites.get((k.path, k.line, k.name), ()), marked)
        if (k.path, k.line) in idle:
            # what would need work is never compiled; an ok verdict keeps its own (empty) reasons
            # a header's template its file names only in dead arms says so (uninstantiated's first reading)
            dead = k.facts.named_dead and PurePosixPath(k.path).suffix.lower() in HEADER_SUFFIXES
            why = NEVER_INSTANTIATED_DEAD_WHY if dead else NEVER_INSTANTIATED_WHY
            per = tuple(v if v.verdict == "ok" else TargetVerdict(
                v.target, "ok", (CheckResult(NEVER_INSTANTIATED, "ok", why),)) for v in per)
        for v in per:
            counts[v.target][v.verdict] += 1
        updated.append(dataclasses.replace(k, facts=facts, verdicts=per))
    summary = KernelAnalysisSummary(
        tuple(AnalysedTarget(t.id, t.name, t.gfx, t.wavefront_size, t.lds_kib, t.pre_release, t.source) for t in chosen),
        tuple((t, tuple(c.items())) for t, c in counts.items()), deep_info)
    return dataclasses.replace(result, kernels=tuple(updated), targets=tuple(t.id for t in chosen),
                               kernel_analysis=summary)
