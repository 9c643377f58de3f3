"""Kernel analysis: measure each kernel's facts (in the scan workers) and give it a verdict per AMD target.

`measure(sf)` runs per file inside the cached, parallel scan (porter.pipeline) and returns the file's kernels with
their facts (porter.kernels.facts). `analyse(result, targets)` runs once after the scan: it picks the target
profiles (porter.targets), applies the named checks below and any rule with a `verdict` to every kernel, and
attaches `targets: {ID: {verdict, reasons, details}}` to each kernel. Verdicts, mildest first:
ok (hipify suffices) < check (verify numerically) < retune (correct, tuned for NVIDIA) < fix (wrong or no
compile without edits) < rewrite (no equivalent on this target).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Iterable


from porter.model import Kernel, ScanResult
from porter.source.parse import SourceFile

VERDICTS = ("ok", "check", "retune", "fix", "rewrite")
RANK = {v: i for i, v in enumerate(VERDICTS)}

# The verdict each named check contributes, as data: `default`, overridden by the first `by_target` predicate
# (porter.targets.evaluate on the profile's fields) that holds. `source` is where the fact comes from.
CHECKS: dict[str, dict[str, Any]] = {
    "wave64-full-mask": {
        "verdict": {"default": "ok", "by_target": {"wavefront_size == 64": "fix", "wavefront_size is None": "check"}},
        "title": "32-bit full-warp mask (0xffffffff) selects only lanes 0-31 of a 64-lane wavefront",
        "source": "amd-facts.md §4.1, R1"},
    "wave64-lane-count": {
        "verdict": {"default": "ok", "by_target": {"wavefront_size == 64": "fix", "wavefront_size is None": "check"}},
        "title": "lane arithmetic hard-codes 32 lanes next to warp operations (wrong partition on wave64)",
        "source": "amd-facts.md R1"},
    "wave64-lane-arith": {
        "verdict": {"default": "ok", "by_target": {"wavefront_size == 64": "check", "wavefront_size is None": "check"}},
        "title": "lane arithmetic hard-codes 32 lanes (no warp operation uses it; verify on wave64)",
        "source": "amd-facts.md R1"},
    "wave64-ballot-32bit": {
        "verdict": {"default": "ok", "by_target": {"wavefront_size == 64": "fix", "wavefront_size is None": "check"}},
        "title": "ballot/activemask result kept in a 32-bit integer (HIP returns 64 bits)",
        "source": "amd-facts.md §4.1, R1"},
    "warpsize-constant": {
        "verdict": {"default": "fix"},
        "title": "warpSize used as a compile-time constant (not constexpr since ROCm 7.0)",
        "source": "amd-facts.md §4.1, R2"},
    "inline-ptx": {
        "verdict": {"default": "rewrite"},
        "title": "inline PTX assembly (HIP accepts only AMDGCN assembly)",
        "source": "amd-facts.md §4.2, R15"},
    "hopper-blackwell-ptx": {
        "verdict": {"default": "rewrite"},
        "title": "TMA / wgmma / tcgen05 / setmaxnreg: no counterpart on this target",
        "source": "amd-facts.md R7"},
    "clusters-dsmem": {
        "verdict": {"default": "rewrite"},
        "title": "thread-block clusters / distributed shared memory (CDNA3/4 have none; gfx1250 clusters use AMD's own API)",
        "source": "amd-facts.md R7, §1 [e]"},
    "async-copy": {
        "verdict": {"default": "rewrite"},
        "title": "cooperative memcpy_async / cuda::pipeline / mbarrier async copies are unsupported in HIP",
        "source": "amd-facts.md §4.2, R15"},
    "nvfp4-mma": {
        "verdict": {"default": "rewrite"},
        "title": "NVFP4 block-scaled MMA (E4M3 scales per 16): not an AMD hardware format",
        "source": "amd-facts.md §2, R9"},
    "wmma": {
        "verdict": {"default": "fix"},
        "title": "nvcuda::wmma fragments: port to rocWMMA (different header, namespace and tile shapes)",
        "source": "amd-facts.md R7 (matrix unit kind per target)"},
    "dynamic-parallelism": {
        "verdict": {"default": "rewrite"},
        "title": "kernel launched from device code (dynamic parallelism is unsupported in HIP)",
        "source": "amd-facts.md §4.2, R15"},
    "lds-over-limit": {
        "verdict": {"default": "fix"},
        "title": "shared memory per block exceeds this target's LDS per workgroup",
        "source": "amd-facts.md §1, R3"},
    "lds-unknown": {
        "verdict": {"default": "check"},
        "title": "shared memory size could not be determined; compare it with this target's LDS",
        "source": "amd-facts.md R3"},
    "block-over-max": {
        "verdict": {"default": "fix"},
        "title": "block size above the target's maximum workgroup size",
        "source": "amd-facts.md §1.1"},
    "block-not-wave-multiple": {
        "verdict": {"default": "retune"},
        "title": "block size is not a multiple of the wavefront size (partial waves waste lanes)",
        "source": "amd-facts.md R4"},
    "launch-bounds-min-blocks": {
        "verdict": {"default": "retune"},
        "title": "__launch_bounds__ second argument means minimum waves per EU on AMD, not blocks per SM",
        "source": "amd-facts.md §4.3, R5"},
    "sm-count-grid": {
        "verdict": {"default": "retune"},
        "title": "grid size derived from the NVIDIA SM count / occupancy API; re-derive for CUs and XCDs",
        "source": "amd-facts.md R13"},
    "grid-sync": {
        "verdict": {"default": "check"},
        "title": "cooperative-groups grid sync: needs a cooperative launch and co-resident blocks on this target",
        "source": "amd-facts.md §4.2"},
    "partial-syncwarp": {
        "verdict": {"default": "check"},
        "title": "__syncwarp with a partial or runtime mask relies on independent thread scheduling",
        "source": "amd-facts.md §4.1, R11"},
    "system-atomics": {
        "verdict": {"default": "check"},
        "title": "system-scope atomics need fine-grained memory on AMD",
        "source": "amd-facts.md §4.2"},
}


def measure(sf: SourceFile) -> list[Kernel]:
    """The file's kernels with their facts (runs in scan workers; results are cached with the file)."""
    from porter.kernels.facts import measure_file

    return measure_file(sf)


def worst(verdicts: Iterable[str]) -> str:
    return max(verdicts, key=lambda v: RANK[v], default="ok")


def check_verdict(spec: dict[str, Any], target) -> str:
    """The verdict a `{default, by_target}` spec gives on one target profile."""
    from porter.targets import evaluate

    for predicate, verdict in (spec.get("by_target") or {}).items():
        if evaluate(predicate, target):
            return verdict
    return spec.get("default", "ok")


def resolve_targets(spec: Iterable[str] | None, profile_files: Iterable[str | Path] = ()):
    """Target profiles for a run (see porter.targets.resolve_targets, the one resolver)."""
    from porter.targets import resolve_targets as resolve

    return resolve([*(spec or ()), *(str(p) for p in profile_files)])


def kernel_checks(facts: dict[str, Any], target) -> list[dict[str, Any]]:
    """Every named check that fires for one kernel's facts on one target, with the evidence."""
    out: list[dict[str, Any]] = []

    def add(check: str, message: str, lines: Iterable[int] = ()) -> None:
        spec = CHECKS[check]
        verdict = check_verdict(spec["verdict"], target)
        if verdict != "ok":
            out.append({"id": check, "verdict": verdict, "message": message, "lines": sorted(set(lines))})

    wave = target.wavefront_size
    ops = facts.get("warp_ops", [])
    full = [w["line"] for w in ops if w.get("mask_kind") == "full32"]
    if full:
        add("wave64-full-mask", f"0xffffffff mask in {len(full)} warp operation(s) covers 32 of {wave} lanes", full)
    lane = facts.get("lane_assumptions", [])
    if lane:
        kinds = ", ".join(sorted({x["kind"] for x in lane}))
        if ops:
            add("wave64-lane-count", f"hard-coded 32-lane arithmetic ({kinds}) with warp operations; wave size is {wave}",
                [x["line"] for x in lane])
        else:
            add("wave64-lane-arith", f"hard-coded 32-lane arithmetic ({kinds}); wave size is {wave}", [x["line"] for x in lane])
    if facts.get("ballot_32bit"):
        b = facts["ballot_32bit"]
        add("wave64-ballot-32bit", f"{b[0]['op']} stored in `{b[0]['type']}` drops lanes 32-63", [x["line"] for x in b])
    if facts.get("warpsize_constant"):
        w = facts["warpsize_constant"]
        add("warpsize-constant", f"warpSize in a constant expression: {w[0]['text']}", [x["line"] for x in w])
    ptx = facts.get("inline_ptx", {})
    if ptx.get("statements"):
        add("inline-ptx", f"{ptx['statements']} inline PTX statement(s): {', '.join(ptx['families'])}", ptx.get("lines", []))
    tensor = set(facts.get("tensor_cores", []))
    asyncs = set(facts.get("async_copies", []))
    hopper = sorted((tensor & {"wgmma", "tcgen05"}) | (asyncs & {"tma", "cp.async.bulk"})
                    | ({"setmaxnreg"} & set(ptx.get("families", []))))
    if hopper:
        add("hopper-blackwell-ptx", f"uses {', '.join(hopper)}; {target.name} has no TMA/wgmma/tcgen05"
            + (" (it has TDM, with a different API)" if target.get("has_tdm") else ""), ptx.get("lines", []))
    if facts.get("clusters"):
        extra = " (gfx1250 clusters use AMD's API)" if target.get("has_clusters") else ""
        add("clusters-dsmem", f"uses {', '.join(facts['clusters'])}{extra}")
    other_async = sorted(asyncs - {"tma", "cp.async.bulk"})
    if other_async:
        add("async-copy", f"uses {', '.join(other_async)}")
    if "nvfp4-mma" in tensor:
        add("nvfp4-mma", "NVFP4 block-scaled MMA in inline PTX", ptx.get("lines", []))
    if "wmma" in tensor:
        add("wmma", f"WMMA fragments; {target.name} matrix unit is {target.matrix_unit.upper()}")
    if facts.get("device_launches"):
        add("dynamic-parallelism", "kernel launch inside device code", facts["device_launches"])
    _lds_check(facts, target, add)
    _block_checks(facts, target, add)
    if facts.get("sm_count_grid"):
        add("sm-count-grid", f"grid from the SM count; {target.name} has {target.compute_units} CUs", facts["sm_count_grid"])
    if facts.get("grid_sync"):
        add("grid-sync", "cooperative-groups grid synchronisation", facts["grid_sync"])
    if facts.get("partial_syncwarp"):
        add("partial-syncwarp", "__syncwarp with a partial mask", facts["partial_syncwarp"])
    sys_atomics = [a for a in facts.get("atomics", []) if a.endswith("_system")]
    if sys_atomics:
        add("system-atomics", f"uses {', '.join(sys_atomics)}")
    return out


def _lds_check(facts: dict[str, Any], target, add) -> None:
    shared = facts.get("shared_memory") or {}
    limit = int(target.lds_kib * 1024)
    total, minimum = shared.get("total_bytes"), shared.get("total_bytes_min", 0)
    if total is not None and total > limit:
        add("lds-over-limit", f"{_kib(total)} of shared memory > {_kib(limit)} LDS on {target.name}")
    elif total is None and minimum > limit:
        add("lds-over-limit", f"at least {_kib(minimum)} of shared memory > {_kib(limit)} LDS on {target.name}")
    elif total is None:
        reasons = [u["reason"] for u in shared.get("arrays", []) if u.get("bytes") is None and u.get("reason")]
        add("lds-unknown", f"static shared memory unknown ({'; '.join(reasons)}); known part {_kib(minimum)}"
                           f" of {_kib(limit)} LDS")
    dyn = shared.get("dynamic") or {}
    if dyn.get("extern_arrays") and not dyn.get("launch_bytes") and not dyn.get("max_dynamic_attribute"):
        add("lds-unknown", f"dynamic shared memory size unknown (no foldable launch); {_kib(limit)} LDS on {target.name}")


def _block_checks(facts: dict[str, Any], target, add) -> None:
    wave = target.wavefront_size
    max_wg = target.get("max_workgroup_size") or 1024
    sizes = [(s["threads"], s["line"]) for s in facts.get("launch_sites", []) if s.get("threads")]
    bounds = facts.get("launch_bounds_values") or {}
    over = [(t, l) for t, l in sizes if t > max_wg]
    if over:
        add("block-over-max", f"block of {over[0][0]} threads > {max_wg}", [l for _, l in over])
    if wave:
        odd = [(t, l) for t, l in sizes if t % wave]
        if bounds.get("max_threads") and bounds["max_threads"] % wave:
            odd.append((bounds["max_threads"], None))
        if odd:
            add("block-not-wave-multiple", f"block of {odd[0][0]} threads is not a multiple of {wave}",
                [l for _, l in odd if l])
    if bounds.get("min_blocks") is not None:
        add("launch-bounds-min-blocks", f"__launch_bounds__({', '.join(bounds['text'])}): minimum {bounds['min_blocks']}"
                                        " blocks per SM must become waves per EU")


def _kib(n: int) -> str:
    return f"{n / 1024:g} KiB"


def rule_verdicts(rules) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Rules that carry a `verdict`: id -> (verdict spec, the rule's targets list)."""
    return {r.id: (r.verdict, r.targets) for r in rules.rules if isinstance(r.verdict, dict)}


def verdicts_for(kernel: Kernel, facts: dict[str, Any], findings, targets, rules) -> dict[str, Any]:
    """{target id: {verdict, reasons, details}} for one kernel."""
    from porter.targets import applies

    spans = [(kernel.line, kernel.end_line)] + [(d["line"], d["end_line"]) for d in facts.get("device_functions", [])]
    mine = [f for f in findings if f.rule in rules and any(a <= f.line <= b for a, b in spans)]
    out = {}
    for t in targets:
        details = kernel_checks(facts, t)
        by_rule: dict[str, dict[str, Any]] = {}
        for f in mine:
            spec, rule_targets = rules[f.rule]
            if not applies(rule_targets, t):
                continue
            v = check_verdict(spec, t)
            if v == "ok":
                continue
            d = by_rule.setdefault(f.rule, {"id": f.rule, "verdict": v, "message": f.message, "lines": []})
            d["lines"].append(f.line)
        details.extend(by_rule.values())
        details.sort(key=lambda d: (-RANK[d["verdict"]], d["id"]))
        out[t.id] = {"verdict": worst(d["verdict"] for d in details), "reasons": [d["id"] for d in details],
                     "details": details}
    return out


def analyse(result: ScanResult, targets: list[str] | None = None, deep: bool = False,
            profile_files: Iterable[str | Path] = ()) -> ScanResult:
    """The scan result with every kernel's per-target verdicts attached (and deep-mode facts when asked)."""
    chosen = resolve_targets(targets, profile_files)
    kernels = list(result.kernels)
    deep_info = None
    if deep:
        from porter.kernels import deep as deep_mod

        kernels, deep_info = deep_mod.refine(result, kernels)
    if result.rules is None:
        from porter.rules import load_rules

        result = dataclasses.replace(result, rules=load_rules())  # a result built without scan()
    rules = rule_verdicts(result.rules)
    findings_by_path: dict[str, list] = {}
    for f in result.findings:
        if f.rule in rules:
            findings_by_path.setdefault(f.path, []).append(f)
    launches_by_name: dict[str, list] = {}
    for l in result.launches:
        launches_by_name.setdefault(l.kernel, []).append(l)
    defined: dict[str, int] = {}
    for k in kernels:
        defined[k.name] = defined.get(k.name, 0) + 1
    updated = []
    counts = {t.id: {v: 0 for v in VERDICTS} for t in chosen}
    for k in kernels:
        facts = dict(k.facts)
        if not facts:
            updated.append(k)
            continue
        _add_remote_launches(launches_by_name.get(k.name, []), k, facts, defined.get(k.name, 1))
        per = verdicts_for(k, facts, findings_by_path.get(k.path, []), chosen, rules)
        for tid, v in per.items():
            counts[tid][v["verdict"]] += 1
        facts["targets"] = per
        updated.append(dataclasses.replace(k, facts=tuple(sorted(facts.items()))))
    extra = dict(result.extra)
    extra["kernel_analysis"] = {
        "targets": [{"id": t.id, "name": t.name, "gfx": t.gfx, "wavefront_size": t.wavefront_size, "lds_kib": t.lds_kib,
                     "pre_release": t.pre_release, "source": t.source} for t in chosen],
        "verdicts": counts,
        "deep": deep_info,
    }
    return dataclasses.replace(result, kernels=tuple(updated), targets=tuple(t.id for t in chosen), extra=extra)


def _add_remote_launches(launches: list, k: Kernel, facts: dict[str, Any], definitions: int = 1) -> None:
    """Launches of this kernel written in other files: their configuration folded from literals only."""
    from porter.kernels.constfold import Unknown, dims, parse_expression, Constants

    sites = list(facts.get("launch_sites", []))
    if sites:
        return  # launched in its own file: those sites carry folded values; remote ones would only add noise
    if definitions > 1 and any(l.path != k.path for l in launches):
        facts.setdefault("unknown", []).append({"what": "launch sites", "reason": f"{len(launches)} launches of a kernel "
                                                f"named {k.name} in other files, and {definitions} kernels have that name"})
        return
    for l in launches:
        if l.path == k.path:
            continue
        cfg = list(l.config)
        if l.kind in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel"):
            cfg = cfg[:2] + cfg[3:4]
        elif l.kind != "chevron":
            cfg = []
        site: dict[str, Any] = {"path": l.path, "line": l.line, "kind": l.kind, "config": list(l.config),
                                "grid": None, "block": None, "shared_bytes": None, "remote": True}
        for key, text in zip(("grid", "block", "shared_bytes"), cfg):
            node = parse_expression(text)
            v = dims(node, Constants()) if node is not None else Unknown("unparsable")
            if isinstance(v, Unknown):
                facts.setdefault("unknown", []).append(
                    {"what": f"{key} of launch at {l.path}:{l.line}",
                     "reason": f"{v.reason} (constants of another file are not folded)"})
            else:
                site[key] = v[0] if key == "shared_bytes" else list(v)
        site["threads"] = site["block"][0] * site["block"][1] * site["block"][2] if site["block"] else None
        sites.append(site)
    facts["launch_sites"] = sites


def top_reason(entry: dict[str, Any]) -> str:
    d = entry.get("details") or []
    return f"{d[0]['id']}: {d[0]['message']}" if d else ""
