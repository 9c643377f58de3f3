"""Cost the work: turn the findings and kernels in scope into items of engineer-hours, each finding in at most one.

Three passes, each taking the findings the ones before left: kernels (what they need on the hardest target —
tensor-core PTX is a rewrite, PTX that only loads and converts a small fix — scaled by size and complexity) take the
device findings their verdicts name, in the kernel's body or in a `__device__` helper it calls; repository-wide jobs
of the effort model (replacing TensorRT-LLM, re-implementing CUTLASS components on CK or Triton, CI on ROCm) take the
findings and kernels they cover; what remains is costed per rule and file (or per rule, for repository-scoped
rules), repeated hits on a saturating curve. Items are then scaled by the calibration's multiplier for their kind.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from porter.estimate.dedup import Site, fix_site, template_key
from porter.estimate.effort_model import EffortModel, Hours
from porter.estimate.inputs import Inputs, Scope, member_call
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS, KernelVerdicts, TargetVerdict, read_kernel
from porter.estimate.ranges import percentiles, spread
from porter.model import Finding, Kernel
from porter.targets import evaluate


@dataclass(frozen=True)
class Item:
    """One costed piece of work and the findings behind it."""

    id: str
    kind: str  # finding | kernel | one-off
    title: str
    category: str
    path: str | None  # None: repository-wide
    hours: Hours
    basis: str  # how the hours were computed, in words
    findings: tuple[str, ...] = ()  # fingerprints of the findings it costs or absorbs
    rule: str | None = None
    count: int = 0
    klass: str = "needs_engineer"

    def to_dict(self, model: EffortModel) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "category": self.category, "path": self.path,
            "rule": self.rule, "count": self.count, "class": self.klass, "hours": self.hours.to_dict(),
            "days": model.days_to_tenth(self.hours), "basis": self.basis, "findings": list(self.findings),
        }


@dataclass(frozen=True)
class KernelCost:
    """A costed kernel: its verdicts, the target that decides its cost, and the item that carries it."""

    verdicts: KernelVerdicts
    worst_target: str
    hours: Hours
    item: str  # the Item id
    lines: int
    findings: int  # findings written in the kernel's own body

    @property
    def kernel(self) -> Kernel:
        return self.verdicts.kernel

    @property
    def worst(self) -> str:
        return self.verdicts.targets[self.worst_target].verdict


@dataclass(frozen=True)
class Costing:
    """The items for one scope, in the order they were costed, and which item each finding went to. `hours` is the
    P10–median–P90 range of the items taken as independent (porter.estimate.ranges); `mean` adds up item by item."""

    items: tuple[Item, ...]
    finding_item: Mapping[str, str]  # fingerprint → item id
    kernels: tuple[KernelCost, ...]
    hours: Hours
    mean: float = 0.0
    jobs: frozenset[str] = frozenset()  # ids of the repository-wide jobs that fired
    templates: tuple["TemplateGroup", ...] = ()  # kernels costed once as copies of one template
    sites: tuple["FixSite", ...] = ()  # shared places fixed once
    tuning: Hours = Hours()  # retuning (Triton num_warps, __launch_bounds__), per target: not in `hours`


def cost(inputs: Inputs, scope: Scope, skip_jobs: Iterable[str] = ()) -> Costing:
    """Every hour of work the scope's findings and kernels stand for (`skip_jobs`: repository-wide jobs already
    counted elsewhere, such as the headline's CI job when costing the optional work)."""
    items: list[Item] = []
    taken: dict[str, str] = {}  # fingerprint → item id
    skip = set(skip_jobs)
    kernel_jobs = _kernel_jobs(inputs, scope, skip)
    extra: dict[str, Any] = {"header_job": _header_job(inputs, scope, skip)}
    kernels = _cost_kernels(inputs, scope, items, taken, kernel_jobs, extra)
    fired = _cost_one_offs(inputs, scope, items, taken, kernel_jobs, skip)
    _cost_rules(inputs, scope, items, taken)
    items, kernels = _calibrated(inputs.model, items, kernels)
    s = spread(it.hours for it in items)
    f = inputs.model.scale("kernel")
    return Costing(tuple(items), taken, tuple(kernels), percentiles(s), s.mean, frozenset(fired),
                   tuple(replace(g, hours=g.hours.scale(f)) for g in extra["templates"]),
                   tuple(replace(x, hours=x.hours.scale(f)) for x in extra["sites"]), extra["tuning"].scale(f))


def _calibrated(model: EffortModel, items: list[Item], kernels: list[KernelCost]) -> tuple[list[Item], list[KernelCost]]:
    """Items scaled by the calibration's multiplier for their kind (rules/effort/model.yaml `calibration`)."""
    out = []
    for it in items:
        f = model.scale(it.kind)
        out.append(it if f == 1 else replace(it, hours=it.hours.scale(f), basis=f"{it.basis} × calibration {f:g}"))
    f = model.scale("kernel")
    return out, [kc if f == 1 else replace(kc, hours=kc.hours.scale(f)) for kc in kernels]


def kernel_lines(k: Kernel) -> int:
    return max(1, k.end_line - k.line + 1)


def kernel_factor(k: Kernel, reasons: Iterable[str], model: EffortModel) -> tuple[float, float]:
    """(size, complexity) factors that scale a kernel verdict's hours: longer kernels and more reasons cost more."""
    size = model.kernels["size"]
    f_size = (kernel_lines(k) / size["reference_lines"]) ** size["exponent"]
    f_size = min(size["max_factor"], max(size["min_factor"], f_size))
    cx = model.kernels["complexity"]
    distinct = len(set(reasons))
    f_cx = 1 + cx["per_extra_reason"] * max(0, distinct - 1) + (cx["template"] if k.is_template else 0)
    return f_size, min(cx["max_factor"], f_cx)


def need_cost(k: Kernel, tv: TargetVerdict, model: EffortModel) -> tuple[Hours, str, tuple[str, ...]]:
    """What a kernel costs on one target before size and complexity: the dearest thing it needs there (inline PTX
    that only loads and converts is a small fix; tensor-core PTX, TMA or clusters are a rewrite), the verdict's own
    hours when the analysis gave no details. Returns (hours, the deciding need, every distinct need)."""
    if not tv.needs:
        return model.verdict_hours(tv.verdict), tv.verdict, ()
    options = sorted({(n, v) for n, v in tv.needs},
                     key=lambda nv: (-model.need_hours(*nv).likely, -model.need_hours(*nv).high, nv))
    need, verdict = options[0]
    return model.need_hours(need, verdict), need, tuple(sorted({n for n, _ in tv.needs}))


def _kernel_jobs(inputs: Inputs, scope: Scope, skip: set[str]) -> dict[str, set[str]]:
    """Jobs that re-implement whole components (CUTLASS/CuTe on CK or Triton): job id → the files whose kernels
    they take over, the files where a finding triggers them."""
    out: dict[str, set[str]] = {}
    for job in inputs.model.one_offs:
        if not job.get("takes_kernels") or job["id"] in skip or not _job_applies(job, scope):
            continue
        paths = {f.path for f in scope.findings if inputs.matches(job["when"], f)}
        libs = set(job.get("kernel_libraries", ()))
        if paths and libs:
            # Kernels written on the backend's library in files without a finding of their own (a .cu including a
            # header that includes CUTLASS) are the backend's too.
            paths |= {k.path for k in scope.kernels if k.facts is not None and libs & set(k.facts.merged().cuda_libraries)}
        if paths:
            out[job["id"]] = paths
    return out


def _fires(inputs: Inputs, scope: Scope, job: dict[str, Any]) -> bool:
    """Whether a repository-wide job applies to the scope: a finding meets its `when`, a target its `targets`, and no
    scanned file includes what `unless_includes` names."""
    if not (_job_applies(job, scope) and any(inputs.matches(job["when"], f) for f in scope.findings)
            and not (job.get("unless_includes") and _includes(inputs, job["unless_includes"]))):
        return False
    if job.get("min_names"):
        names = {member_call(f) or f.rule for f in scope.findings if inputs.matches(job["when"], f)}
        if len(names) < int(job["min_names"]):
            return False
    return not job.get("backend_twins") or bool(backend_twin_files(inputs.result.files, job["backend_twins"]))


def backend_twin_files(files: Iterable[Any], spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The source files of per-backend implementation directories a port copies to HIP twins: a directory whose name
    matches `spec["names"]` (`Cuda/`, `cuda/`) holding files with CUDA content (a finding of any status, a kernel or a
    launch), beside a sibling directory in which at least `spec["min_share"]` of its source files have a namesake
    (the same stem: `Cuda/Morpheus_Multiply_Impl.hpp` beside `OpenMP/` and `Serial/Morpheus_Multiply_Impl.hpp`) —
    the same implementation written once per execution space, which the port writes once more for HIP. Sorted paths;
    only files of `spec["languages"]` (C, C++, CUDA) count, so a Python `backends/cuda/ops.py` is not one."""
    import posixpath

    rx = re.compile(spec["names"])
    langs = set(spec.get("languages") or ("c", "cpp", "cuda"))
    stems: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # (parent, dir) → stem → paths
    active: set[str] = set()
    for fr in files:
        if fr.language not in langs:
            continue
        parts = fr.path.split("/")
        for i in range(len(parts) - 1):
            rest = "/".join(parts[i + 1:])
            stems[("/".join(parts[:i]), parts[i])][posixpath.splitext(rest)[0].lower()].add(fr.path)
        if fr.findings or fr.suppressed or fr.kernels or fr.launches:
            active.add(fr.path)
    out: set[str] = set()
    for (parent, name), mine in stems.items():
        if not rx.search(name):
            continue
        for (other_parent, other), theirs in stems.items():
            if other_parent == parent and other != name and not rx.search(other) \
                    and len(mine.keys() & theirs.keys()) >= spec["min_share"] * len(mine):
                out.update(*mine.values())
                break
    # The backend is the project's CUDA code when one of its files has CUDA content; then every file of it is copied
    # (a `Cuda/` file that only converts between formats is twinned with the rest).
    return tuple(sorted(out)) if out & active else ()


def _header_job(inputs: Inputs, scope: Scope, skip: set[str]) -> dict[str, Any] | None:
    """The job that writes a compatibility header anyway (`holds_repository_fix`: the map of CUDA names), when it
    fires (or fired for the headline: `skip`): the repository-wide fixes (a 32-bit mask passed to __shfl_*_sync) are
    a few more of its definitions."""
    return next((j for j in inputs.model.one_offs if j.get("holds_repository_fix")
                 and (j["id"] in skip or _fires(inputs, scope, j))), None)


def _job_applies(job: dict[str, Any], scope: Scope) -> bool:
    return not job.get("targets") or any(any(evaluate(p, t) for p in job["targets"]) for t in scope.targets)


@dataclass(frozen=True)
class TemplateGroup:
    """Kernels that are copies of one template (generated instantiations, copies modulo types and constants,
    vendored duplicates): costed once, plus a small term per further variant."""

    name: str  # the representative kernel's qualified name
    path: str
    line: int
    count: int  # kernels in the group, the representative included
    paths: tuple[str, ...]
    item: str
    hours: Hours

    @property
    def text(self) -> str:
        return f"{self.count} instantiations of {self.name}"


@dataclass(frozen=True)
class FixSite:
    """A shared place (helper, warp-size macro) where kernels' needs are fixed once, with a review per use."""

    key: str
    label: str
    need: str
    kernels: int
    item: str
    hours: Hours


_REPOSITORY_SITE = Site("repository:compat", "one compatibility header for the repository")


def _split_needs(k: Kernel, tv: TargetVerdict, model: EffortModel):
    """A target verdict's needs split into (own needs, {site: [need, ...]}, tuning needs): tuning needs (a Triton
    num_warps choice, the second __launch_bounds__ argument) are retuning per target, not port work; needs whose
    lines are all at one shared fix site are costed at the site."""
    tuning = set(model.kernels.get("tuning_needs", ()))
    repository = set(model.kernels.get("repository_fix_needs", ()))
    own, sites, tune = [], {}, []
    lines = tv.need_lines or tuple(() for _ in tv.needs)
    for (need, verdict), at in zip(tv.needs, lines):
        if need in tuning:
            tune.append((need, verdict))
            continue
        if need in repository:
            # fixed once for the whole repository (one compatibility header for all of them), wherever the kernel
            # writes it
            sites.setdefault(_REPOSITORY_SITE, []).append((need, verdict))
            continue
        site = fix_site(k, need, at) if model.kernels.get("fix_sites", True) else None
        if site is not None:
            sites.setdefault(site, []).append((need, verdict))
        else:
            own.append((need, verdict))
    return own, sites, tune


def _cost_kernels(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str],
                  kernel_jobs: Mapping[str, set[str]], extra: dict[str, Any] | None = None) -> list[KernelCost]:
    """Each kernel's own work (its needs not fixed at a shared site, not retuning), then one item per template
    group (copies costed once plus a per-variant term) and one per shared fix site (once, plus a review per kernel
    that reaches it). `extra` collects the template groups, fix sites and retuning hours for the Costing."""
    model = inputs.model
    port_verdicts = set(model.verdict["port_kernel_verdicts"])
    absorb = model.kernels.get("absorb_findings", True)
    by_path = _LineIndex(scope.findings)
    rows: list[dict[str, Any]] = []
    site_users: dict[Any, list[tuple[Kernel, Hours, str]]] = defaultdict(list)
    tuning_hours = Hours()
    ok_hours = model.verdict_hours("ok")
    for k in scope.kernels:
        kv = read_kernel(k, scope.targets, model.kernels["unanalysed"], model.matrix_ptx_families)
        costs = {tid: need_cost(k, v, model) for tid, v in kv.targets.items()}
        ranked = sorted(kv.targets.items(), key=lambda tv: (-costs[tv[0]][0].likely,
                                                            -KERNEL_VERDICTS.index(tv[1].verdict), tv[0]))
        worst_tid, worst = ranked[0]
        own, sites, tune = _split_needs(k, worst, model)
        if worst.needs and not own and sites:
            # Everything it needs is fixed at a shared site: the site's item costs it (its test is validation's).
            base, need, needs = Hours(), "its fix site", ()
        elif worst.needs and not own:
            # Only retuning: the kernel itself is compiled and checked.
            base, need, needs = ok_hours, "ok", ()
        else:
            base, need, needs = need_cost(k, replace(worst, needs=tuple(own)) if worst.needs else worst, model)
        f_size, f_cx = kernel_factor(k, needs, model)
        hours = base.scale(f_size * f_cx)
        said = f"{worst.verdict} on {worst_tid}" + (f", needs {need}" if need != worst.verdict else "")
        basis = [f"{said} ({base.text()})", f"× size {f_size:.2f} ({kernel_lines(k)} lines)", f"× complexity {f_cx:.2f}"]
        job = next((j for j, paths in sorted(kernel_jobs.items()) if k.path in paths), None)
        if job:
            # Re-implemented by the job (a CK or Triton backend for its CUTLASS kernels): the helpers it reaches go
            # with it, so it adds no use, no review and no item to a shared fix site.
            sites = {}
        for site, ns in sorted(sites.items(), key=lambda sn: sn[0].key):
            dearest = max((model.need_hours(n, v) for n, v in ns), key=lambda h: (h.likely, h.high))
            site_users[site].append((k, dearest, ns[0][0]))
            basis.append(f"; {', '.join(sorted({n for n, _ in ns}))} fixed once at {site.label}")
        if tune:
            dearest = max((model.need_hours(n, v) for n, v in tune), key=lambda h: (h.likely, h.high))
            tuning_hours = tuning_hours + dearest
            basis.append(f"; retuning ({', '.join(sorted({n for n, _ in tune}))}) on the retuning line")
        share = model.kernels["other_targets_share"]
        # A target that is the same chip (MI300X and MI325X are both gfx942), or needs the same work for the same
        # reasons, adds nothing.
        gfx = {t.id: t.gfx or t.id for t in scope.targets}
        seen, chips = {worst.work}, {gfx.get(worst_tid)}
        for tid, v in ranked[1:]:
            if v.work in seen or gfx.get(tid) in chips:
                continue
            seen.add(v.work)
            chips.add(gfx.get(tid))
            o, _, _ = _split_needs(k, v, model)
            if v.verdict in port_verdicts and (o or not v.needs):
                b, _, ns = need_cost(k, replace(v, needs=tuple(o)) if v.needs else v, model)
                fs, fc = kernel_factor(k, ns, model)
                hours = hours + b.scale(fs * fc * share)
                basis.append(f"+ {share:g} × {v.verdict} on {tid}")
        # Findings the verdicts name (by rule id, or by line for a kernel check) are costed by the kernel, in a
        # helper as in its body: the verdict already counts the helper's facts. A helper that several kernels call
        # goes to the first of them.
        named = set().union(*(v.rules for v in kv.targets.values()))
        lines = set().union(*(v.lines for v in kv.targets.values() if v.verdict != "ok"))
        covered = by_path.covered(kv)
        takes = [f for f in covered if absorb and (f.rule in named or (f.line in lines and f.category in ("device", "kernel")))]
        rows.append({"k": k, "kv": kv, "worst_tid": worst_tid, "worst": worst, "hours": hours, "basis": basis, "need": need,
                     "job": job, "takes": takes, "in_body": sum(1 for f in covered if f.kernel == k.name),
                     "key": template_key(k, [n for n, _ in worst.needs] + [worst.verdict]),
                     "sites": sorted(sites, key=lambda s: s.key)})
    # The same fix in several kernels of one file is a known fix repeated (llama.cpp's dequantize kernels each
    # with the same 0xffffffff shuffle): the kernels of one file with the same deciding need follow the per-hit
    # saturating curve, dearest first.
    if model.kernels.get("repeat_in_file", False):
        same: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            # A kernel that needs nothing is compiled and compared, each its own: no fix to repeat.
            if not r["job"] and r["hours"].likely > 0 and r["need"] != "ok":
                same[(r["k"].path, r["need"])].append(r)
        for rs in same.values():
            rs.sort(key=lambda r: (-r["hours"].likely, r["k"].line))
            for n, r in enumerate(rs[1:], start=2):
                f = model.hit_units(n) - model.hit_units(n - 1)
                r["hours"] = r["hours"].scale(f)
                r["basis"].append(f"× {f:.2f} (kernel {n} of the file needing {r['need']}: a repeated fix)")
    # Template groups: the costliest copy is the representative, the others cost at most the per-variant term.
    variant = Hours.of(model.kernels.get("template_variant", [0.1, 0.25, 0.75]))
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if not r["job"]:
            groups[r["key"]].append(r)
    templates: list[TemplateGroup] = []
    for key, rs in groups.items():
        rs.sort(key=lambda r: (-r["hours"].likely, r["k"].path, r["k"].line))
        rep = rs[0]["k"]
        if len(rs) == 1:
            r = rs[0]
            r["item"] = f"kernel:{rep.path}:{rep.line}:{rep.name}"
            continue
        item_id = f"template:{rep.path}:{rep.line}:{rep.name}"
        total = rs[0]["hours"]
        for r in rs[1:]:
            r["hours"] = Hours(min(r["hours"].low, variant.low), min(r["hours"].likely, variant.likely),
                               min(r["hours"].high, variant.high))
            total = total + r["hours"]
        for r in rs:
            r["item"] = item_id
        templates.append(TemplateGroup(rep.qualified_name, rep.path, rep.line, len(rs),
                                       tuple(sorted({r["k"].path for r in rs})), item_id, total))
    out: list[KernelCost] = []
    emitted: set[str] = set()
    for r in rows:
        if r["job"]:
            r["item"] = f"one-off:{r['job']}"
        elif r["hours"].likely == 0 and r["sites"]:
            r["item"] = f"site:{r['sites'][0].key}"
        for f in r["takes"]:
            taken.setdefault(f.fingerprint, r["item"])
    for r in rows:
        k, kv, job, item_id = r["k"], r["kv"], r["job"], r["item"]
        if job:
            # Re-implemented by the job: the job's hours stand for the kernel (sized from it, see _cost_one_offs).
            out.append(KernelCost(kv, r["worst_tid"], Hours(), item_id, kernel_lines(k), r["in_body"]))
            continue
        out.append(KernelCost(kv, r["worst_tid"], r["hours"], item_id, kernel_lines(k), r["in_body"]))
        if item_id.startswith("site:") or item_id in emitted:
            continue
        emitted.add(item_id)
        group = next((g for g in templates if g.item == item_id), None)
        fps = sorted(fp for fp, it in taken.items() if it == item_id)
        if group is not None:
            items.append(Item(
                id=item_id, kind="kernel", title=f"Kernel {group.text}", category="kernel", path=group.path,
                hours=group.hours, basis=" ".join(r["basis"]) + f"; {group.count - 1} further instantiation(s) or "
                f"copies in {len(group.paths)} file(s) at most {variant.text()} each", findings=tuple(fps),
                count=group.count, klass="needs_engineer" if r["worst"].verdict != "ok" else "free_with_hipify"))
        else:
            items.append(Item(
                id=item_id, kind="kernel", title=f"Kernel {k.qualified_name}", category="kernel", path=k.path,
                hours=r["hours"], basis=" ".join(r["basis"]), findings=tuple(fps),
                count=1, klass="needs_engineer" if r["worst"].verdict != "ok" else "free_with_hipify"))
    # Fix sites: the dearest need at the site once, plus a review per kernel that reaches it.
    per_use = Hours.of(model.kernels.get("fix_site_per_use", [0.1, 0.25, 0.5]))
    sites: list[FixSite] = []
    for site, users in sorted(site_users.items(), key=lambda su: su[0].key):
        once = max((h for _, h, _ in users), key=lambda h: (h.likely, h.high))
        need = next(n for _, h, n in users if h == once)
        held = ""
        if site == _REPOSITORY_SITE and model.kernels.get("repository_fix"):
            # The compatibility header is a handful of definitions (SHFL_*_SYNC over __shfl_*), not a kernel's fix.
            once = Hours.of(model.kernels["repository_fix"])
            job = (extra or {}).get("header_job")
            if job is not None:
                # ... and a port that maps the CUDA names in a header writes them there: whisper.cpp's 44 #defines
                # under GGML_USE_HIPBLAS include __shfl_xor_sync over __shfl_xor. Only the review per kernel is left.
                once, held = Hours(), f" (its definitions are in '{job['title']}')"
        hours = once + per_use.scale(len(users))
        item_id = f"site:{site.key}"
        path = site.key.split(":")[1] if site.key.startswith("helper:") else None
        fps = sorted(fp for fp, it in taken.items() if it == item_id)
        items.append(Item(
            id=item_id, kind="kernel", title=f"Fix once at {site.label} ({len(users)} kernel(s) reach it)",
            category="kernel", path=path, hours=hours,
            basis=f"{need} fixed once ({once.text()}){held} + {per_use.text()} review × {len(users)} kernel(s)",
            findings=tuple(fps), count=len(users)))
        sites.append(FixSite(site.key, site.label, need, len(users), item_id, hours))
    if extra is not None:
        extra["templates"] = templates
        extra["sites"] = sites
        extra["tuning"] = tuning_hours
    return out


class _LineIndex:
    """The scope's findings per file, sorted by line once, so a kernel finds the ones in its body and helpers by
    bisecting their line spans: a file of thousands of kernels, each with a few findings, costs kernels × their own
    findings, not kernels × every finding in the file (once per costing, and assess costs every target)."""

    def __init__(self, findings: Iterable[Finding]):
        by_path: dict[str, list[tuple[int, int, Finding]]] = defaultdict(list)
        for n, f in enumerate(findings):
            by_path[f.path].append((f.line, n, f))
        self._lines: dict[str, list[int]] = {}
        self._rows: dict[str, list[tuple[int, Finding]]] = {}
        for path, rows in by_path.items():
            rows.sort(key=lambda r: (r[0], r[1]))
            self._lines[path] = [r[0] for r in rows]
            self._rows[path] = [(r[1], r[2]) for r in rows]

    def covered(self, kv: KernelVerdicts) -> list[Finding]:
        """The findings `kv.covers`, in the scope's order (what filtering the file's findings with it gives)."""
        k = kv.kernel
        lines = self._lines.get(k.path)
        if not lines:
            return []
        rows = self._rows[k.path]
        hits: dict[int, Finding] = {}
        for a, b in ((k.line, k.end_line), *kv.helpers):
            for n, f in rows[bisect_left(lines, a):bisect_right(lines, b)]:
                if n not in hits and kv.covers(f):
                    hits[n] = f
        return [hits[n] for n in sorted(hits)]


def _cost_one_offs(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str],
                   kernel_jobs: Mapping[str, set[str]], skip: set[str]) -> set[str]:
    """Repository-wide jobs: triggered by any finding in scope, taking the ones no kernel took. A job with
    `per_kernel` re-implements the kernels of the files it is triggered in and adds that much per kernel (scaled
    by the kernel's length), so a CUTLASS-based attention library costs what its kernels make it; with
    `takes_kernels` it re-implements the kernels of the files it is triggered in, which then cost nothing of their own."""
    model = inputs.model
    fired: dict[str, str] = {}  # job id → item id
    for job in model.one_offs:
        if job["id"] in skip or not _job_applies(job, scope):
            continue
        if not _fires(inputs, scope, job):
            continue
        hits = [f for f in scope.findings if inputs.matches(job["when"], f)]
        cover = next((c for c in job.get("covered_by", []) if c in fired), None)
        item_id = fired[cover] if cover else f"one-off:{job['id']}"
        paths = kernel_jobs.get(job["id"], set())
        takes = [f for f in scope.findings if f.fingerprint not in taken
                 and ((job.get("absorbs") and inputs.matches(job["when"], f)) or f.path in paths)]
        absorbed = [fp for fp, it in taken.items() if it == item_id]
        for f in takes:
            taken[f.fingerprint] = item_id
        if cover:
            i = next(n for n, it in enumerate(items) if it.id == item_id)
            old = items[i]
            items[i] = replace(old, basis=old.basis + f"; includes '{job['title']}'",
                               findings=tuple(sorted(set(old.findings) | {f.fingerprint for f in takes})),
                               count=old.count + len(takes))
            continue
        fired[job["id"]] = item_id
        job_hours = Hours.of(job["hours"])
        basis = f"repository-wide job, {job_hours.text()}"
        if job.get("per_kernel"):
            ks = [k for k in scope.kernels if k.path in paths] if job.get("takes_kernels") else list(scope.kernels)
            # Copies of one template are one kernel to re-implement (or validate): the first of each counts.
            distinct = {}
            for k in ks:
                distinct.setdefault(template_key(k, ()), k)
            units = sum(kernel_factor(k, (), model)[0] for k in distinct.values())
            exponent = float(job.get("per_kernel_exponent", 1.0))
            per = Hours.of(job["per_kernel"])
            job_hours = job_hours + per.scale(units ** exponent)
            what = "it re-implements" if job.get("takes_kernels") else "in scope"
            if not ks and job.get("takes_kernels") and job.get("hours_without_kernels"):
                # No kernel of its own to re-implement: a call into the library (a device-level GEMM) is swapped for
                # a ROCm library call, with no backend to build (pyg-lib #552's grouped matmul, a day).
                job_hours = Hours.of(job["hours_without_kernels"])
                basis = f"repository-wide job, {job_hours.text()} (no kernel of its own: a library call swapped)"
            basis += (f" + {per.text()} × {units:.2f}{'' if exponent == 1 else f'^{exponent:g}'} (the {len(distinct)} "
                      f"distinct of {len(ks)} kernel(s) {what}, size-scaled)")
        if job.get("per_api"):
            api = _api_surface(hits, [k for k in scope.kernels if k.path in paths])
            per = Hours.of(job["per_api"])
            job_hours = job_hours + per.scale(len(api))
            basis += f" + {per.text()} × {len(api)} (the API surface used: distinct names and headers, CuTe names called)"
        if job.get("per_site"):
            # A HIP arm beside each call through the project's loaded table: one per source line that calls it.
            sites = {(f.path, f.line) for f in hits}
            per = Hours.of(job["per_site"])
            job_hours = job_hours + per.scale(len(sites))
            called = {member_call(f) or f.rule for f in hits}
            basis += f" + {per.text()} × {len(sites)} call site(s) of {len(called)} name(s) through the table"
        if job.get("backend_twins"):
            spec = job["backend_twins"]
            twins = backend_twin_files(inputs.result.files, spec)
            per = Hours.of(spec["hours"])
            job_hours = job_hours + per.scale(len(twins))
            dirs = sorted({t.rpartition("/")[0] + "/" for t in twins})
            basis += (f" + {per.text()} × {len(twins)} file(s) to twin in {len(dirs)} backend director"
                      f"{'y' if len(dirs) == 1 else 'ies'} ({', '.join(dirs[:3])}{', …' if len(dirs) > 3 else ''})")
        if job.get("per_file"):
            spec = job["per_file"]
            names = re.compile(spec["names"]) if spec.get("names") else None
            files = {f.path for f in scope.findings if f.category in spec.get("categories", ())
                     and (names is None or names.search(f.path))}
            per = Hours.of(spec["hours"])
            job_hours = job_hours + per.scale(len(files))
            if files:
                basis += f" + {per.text()} × {len(files)} file(s) ({', '.join(spec.get('categories', ()))})"
            if spec.get("absorbs"):
                # Moving a build file to HIP is the per-file term: its own findings (nvcc flags, the CUDA language)
                # are that work, not more of it.
                mine = [f for f in scope.findings if f.path in files and f.fingerprint not in taken
                        and f.category in spec.get("categories", ())]
                for f in mine:
                    taken[f.fingerprint] = item_id
                takes = takes + mine
        if job.get("absorbs_ci"):
            # The job's CI runner is the CI work: a CI recipe per CUDA version that calls nvcc or names sm_XX flags
            # is not ported one by one (the pytorch_* ports added no ROCm twin of their cu1xx-Linux.sh scripts).
            spec = job["absorbs_ci"]
            ci = re.compile(spec["paths"])
            mine = [f for f in scope.findings if f.fingerprint not in taken and ci.search(f.path)
                    and f.category in spec.get("categories", ())]
            for f in mine:
                taken[f.fingerprint] = item_id
            takes = takes + mine
        basis += f"; triggered by {len(hits)} finding(s)" + (f", absorbs {len(takes) + len(absorbed)}"
                                                             if takes or absorbed else "")
        items.append(Item(
            id=item_id, kind="one-off", title=job["title"], category=job["category"], path=None,
            hours=job_hours, basis=basis, findings=tuple(sorted({f.fingerprint for f in takes} | set(absorbed))),
            count=len(takes) + len(absorbed),
        ))
    return set(fired)


def _includes(inputs: Inputs, pattern: str) -> bool:
    """Whether any scanned file includes a header whose name matches `pattern` (PyTorch's torch/, ATen/, c10/: the
    project is built by torch.utils.cpp_extension, which hipifies its sources itself on ROCm)."""
    rx = re.compile(pattern)
    return any(rx.search(inc[0] if isinstance(inc, tuple) else str(inc))
               for fr in inputs.result.files for inc in fr.includes)


def _api_surface(findings: Iterable[Finding], kernels: Iterable[Kernel]) -> set[str]:
    """The distinct parts of a library a backend job must re-implement: the headers the triggering findings name
    (or their rule and message when they name none) and the CuTe names the re-implemented kernels call."""
    out: set[str] = set()
    for f in findings:
        d = dict(f.data)
        header = d.get("header") or d.get("symbol") or d.get("name")
        out.add(f"h:{header}" if isinstance(header, str) and header else f"r:{f.rule}:{f.message}")
    for k in kernels:
        if k.facts is not None:
            out |= {f"c:{n}" for n in k.facts.merged().cute_tensor}
    return out


def _cost_rules(inputs: Inputs, scope: Scope, items: list[Item], taken: dict[str, str]) -> None:
    """The findings left, per rule and file (repository-scoped rules: per rule). Hits of one rule, or of one
    library, in one file follow a saturating curve: the second cuDNN call is not another full task."""
    model = inputs.model
    groups: dict[tuple[str, str | None], list[Finding]] = defaultdict(list)
    for f in scope.findings:
        if f.fingerprint in taken:
            continue
        groups[(f.rule, None if inputs.per(f) == "repo" else f.path)].append(f)
    seen_hits: dict[tuple[str, str | None], int] = defaultdict(int)  # (library or rule, file) → hits so far
    seen_files: dict[str, int] = defaultdict(int)  # per-file rule → files costed so far
    for (rid, path), fs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        size, per = inputs.size(fs[0]), inputs.per(fs[0])
        unit = model.size(size)
        if per == "hit":
            lib = inputs.library(fs[0])
            key = (f"library:{lib.id}" if lib is not None else f"rule:{rid}", path)
            before = seen_hits[key]
            seen_hits[key] = before + len(fs)
            units = model.hit_units(before + len(fs)) - model.hit_units(before)
            basis = (f"{len(fs)} hit(s) × size {size} ({unit.text()}) = {units:.2f} unit(s): the first hit 1, each "
                     f"further one {model.repeat_factor:g} and less"
                     + (f", at most {model.saturation:g} per file" if model.saturation else "")
                     + (f" (after {before} earlier {lib.name} hit(s) in the file)" if before and lib else ""))
        elif per == "file":
            # The same rule in many files is one recipe repeated (CI scripts per CUDA version, one Makefile per
            # directory): each further file costs less, as further hits in one file do.
            nth = seen_files[rid] = seen_files[rid] + 1
            units = model.file_units(nth) - model.file_units(nth - 1)
            basis = f"once per file, size {size} ({unit.text()})" + (
                f", file {nth} of the rule: {units:.2f} unit(s)" if nth > 1 else "")
        elif per == "kernel":
            ks = {(k.path, k.line, k.name): k for f in fs if (k := _enclosing_kernel(f, inputs)) is not None}
            outside = any(_enclosing_kernel(f, inputs) is None for f in fs)
            units = sum(kernel_factor(k, (), model)[0] for k in ks.values()) + (1 if outside else 0)
            basis = f"{len(ks)} kernel(s), size-scaled, + {int(outside)} outside kernels, size {size} ({unit.text()})"
        else:
            units = 1.0
            basis = f"once per repository, size {size} ({unit.text()})"
        rule = inputs.rules.get(rid)
        classes = {inputs.klass(f) for f in fs}
        klass = "needs_engineer" if "needs_engineer" in classes else sorted(classes)[0]
        items.append(Item(
            id=f"rule:{rid}:{path or '*'}", kind="finding", title=rule.title if rule else rid,
            category=fs[0].category, path=path, hours=unit.scale(units), basis=basis,
            findings=tuple(sorted(f.fingerprint for f in fs)), rule=rid, count=len(fs), klass=klass,
        ))
        for f in fs:
            taken.setdefault(f.fingerprint, items[-1].id)


def _enclosing_kernel(f: Finding, inputs: Inputs) -> Kernel | None:
    """The kernel whose own body a finding is written in (a rule counted per kernel counts these)."""
    if not f.kernel:
        return None
    for k in inputs.kernels_by_path.get(f.path, ()):
        if k.name == f.kernel and k.line <= f.line <= k.end_line:
            return k
    return None
