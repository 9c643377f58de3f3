"""Resolve what every estimate stage asks of a finding, once: its rule, library, effort size and unit, and class.

`Inputs` holds a scan with the rule set, library map and effort model it is assessed against; `Inputs.scope(targets)`
picks the open findings and kernels that apply on a set of targets, sets aside the optional ones (status cuda-only,
or under a path the effort model's `optional.paths` names, such as contrib/) and counts the handled ones, which are
never costed. The stages (cost, verdict, breakdowns, advice, assumptions) read these and nothing else.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from porter.estimate.effort_model import SIZES, EffortModel
from porter.libraries import Library
from porter.model import Finding, Kernel, ScanResult, Severity, Status
from porter.rules import Rule, RuleSet
from porter.source.preprocessor import Directive, positive_arms
from porter.targets import Target, applies

CLASSES = ("free_with_hipify", "needs_engineer", "informational")
# Knowledge-base library names (porter.kb) that are not ids of the library map.
_KB_LIBRARY_ALIASES = {"runtime": "cuda-runtime", "driver": "cuda-runtime", "rtc": "nvrtc", "cucomplex": "cuda-runtime"}


@dataclass(frozen=True)
class Scope:
    """The findings and kernels an assessment for `targets` costs, and the ones it leaves out."""

    targets: tuple[Target, ...]
    findings: tuple[Finding, ...]  # open, not optional, applicable on at least one of `targets`
    not_applicable: tuple[Finding, ...]
    classes: Mapping[str, str]  # fingerprint → CLASSES entry, for every applicable finding (handled ones too)
    kernels: tuple[Kernel, ...] = ()  # open, not optional
    optional_findings: tuple[Finding, ...] = ()  # applicable, status cuda-only or under an optional path
    optional_kernels: tuple[Kernel, ...] = ()
    handled: int = 0  # applicable findings whose status is handled: counted, never costed
    spots: int = 0  # applicable findings of any status
    # Feature parity beyond the minimal port: features a project keeps optional (one of several sibling backends
    # that needs a rewrite, code it declares CUDA-only). Not in `findings`/`kernels`; `parity_reasons` says why.
    parity_findings: tuple[Finding, ...] = ()
    parity_kernels: tuple[Kernel, ...] = ()
    parity_reasons: tuple[tuple[str, str], ...] = ()  # (what: a directory or rule id, why), sorted

    def optional(self) -> "Scope":
        """The optional work as a scope of its own, costed apart from the headline."""
        return Scope(self.targets, self.optional_findings, (), self.classes, self.optional_kernels)

    def with_parity(self) -> "Scope":
        """The feature-parity scope: the minimal port plus the features kept for parity."""
        return Scope(self.targets, self.findings + self.parity_findings, self.not_applicable, self.classes,
                     self.kernels + self.parity_kernels, handled=self.handled, spots=self.spots)


@dataclass(frozen=True)
class Inputs:
    """A scan with the rules, library map and effort model it is assessed against, looked up per finding."""

    result: ScanResult
    model: EffortModel
    rules: Mapping[str, Rule]  # by id
    libraries: Mapping[str, Library]  # the library map, in its order
    kernels_by_path: Mapping[str, tuple[Kernel, ...]]
    finding_library: Mapping[str, Library | None]  # by _finding_key
    extensions: tuple[str, ...] = ()  # directories of separately built extensions ("csrc/layer_norm/"), optional work

    @classmethod
    def of(cls, result: ScanResult, model: EffortModel, rules: RuleSet, libraries: Mapping[str, Library]) -> "Inputs":
        by_path: dict[str, list[Kernel]] = defaultdict(list)
        for k in result.kernels:
            by_path[k.path].append(k)
        own = own_packages(result)
        found = {_finding_key(f): _resolve_library(f, libraries) for f in result.findings}
        return cls(result, model, {r.id: r for r in rules.rules}, libraries,
                   {p: tuple(ks) for p, ks in by_path.items()},
                   {key: None if lib is not None and is_own(lib, own) else lib for key, lib in found.items()},
                   separate_extensions(fr.path for fr in result.files) if model.separate_extensions else ())

    def scope(self, targets: Iterable[Target]) -> Scope:
        targets = tuple(targets)
        applicable = tuple(f for f in self.result.findings if any(self.applies(f, t) for t in targets))
        rest = tuple(f for f in self.result.findings if not any(self.applies(f, t) for t in targets))
        live = [f for f in applicable if f.status != Status.HANDLED]
        kernels = [k for k in self.result.kernels if k.status != Status.HANDLED]
        findings = [f for f in live if not self.optional(f)]
        kernels_in = [k for k in kernels if not self.optional(k)]
        parity = self.parity(findings, kernels_in, targets)
        return Scope(
            targets, tuple(f for f in findings if f.fingerprint not in parity), rest,
            {f.fingerprint: self.klass(f) for f in applicable},
            kernels=tuple(k for k in kernels_in if _kernel_id(k) not in parity),
            optional_findings=tuple(f for f in live if self.optional(f)),
            optional_kernels=tuple(k for k in kernels if self.optional(k)),
            handled=len(applicable) - len(live), spots=len(applicable),
            parity_findings=tuple(f for f in findings if f.fingerprint in parity),
            parity_kernels=tuple(k for k in kernels_in if _kernel_id(k) in parity),
            parity_reasons=tuple(sorted(set(parity.values()))))

    def parity(self, findings: list[Finding], kernels: list[Kernel], targets: tuple[Target, ...]) -> dict[str, tuple[str, str]]:
        """The spots a minimal port leaves for feature parity (the effort model's `scope.parity`): fingerprint or
        kernel id → (what, why). A `siblings` entry takes a directory that is one of at least two siblings with CUDA
        work (csrc/quantization/awq/ beside gptq/) when one of its kernels needs at least `min_need_hours` likely
        hours on a target (a rewrite: vLLM's first ROCm port left AWQ's tensor-core kernels NVIDIA-only); a `text`
        entry takes findings whose rule, message or data match (rocm_not_supported lists, cuda_only flags); a
        `rewrites` entry takes kernels that need a new implementation (`_rewrites`), a `library_guards` entry library
        calls the project compiles only when it opts into the library (`_library_guards`), an `optional_imports`
        entry the Python uses of a library the project imports only where it is installed (`_optional_imports`)."""
        out: dict[str, tuple[str, str]] = {}
        for entry in self.model.data.get("scope", {}).get("parity", []):
            if entry.get("text"):
                for f in findings:
                    if f.fingerprint not in out and re.search(entry["text"], _finding_text(f, self.rule(f))):
                        out[f.fingerprint] = (f.rule, entry["reason"])
            if entry.get("rewrites"):
                self._rewrites(entry, findings, kernels, targets, out)
            if entry.get("library_guards"):
                self._library_guards(entry, findings, out)
            if entry.get("optional_imports"):
                self._optional_imports(entry, findings, out)
            if not entry.get("siblings"):
                continue
            dirs: dict[str, list[Finding | Kernel]] = defaultdict(list)
            spots_all: list[Finding | Kernel] = [*findings, *kernels]
            for spot in spots_all:
                d = _matched_dir(spot.path, entry["siblings"])
                if d is not None:
                    dirs[d].append(spot)
            def parent(d: str) -> str:
                return d.rstrip("/").rpartition("/")[0]

            parents: dict[str, int] = defaultdict(int)
            for d in dirs:
                parents[parent(d)] += 1
            floor = float(entry.get("min_need_hours", 0))
            for d, spots in sorted(dirs.items()):
                if parents[parent(d)] < 2:
                    continue
                ks = [s for s in spots if isinstance(s, Kernel)]
                if floor and not any(self.need_likely(k, targets) >= floor for k in ks):
                    continue
                for spot in spots:
                    key = spot.fingerprint if isinstance(spot, Finding) else _kernel_id(spot)
                    out.setdefault(key, (d, entry["reason"]))
        return out

    def _rewrites(self, entry: Mapping[str, Any], findings: list[Finding], kernels: list[Kernel],
                  targets: tuple[Target, ...], out: dict[str, tuple[str, str]]) -> None:
        """A `rewrites` entry: kernels that need a new implementation on the target (at least `min_need_hours`), in a
        project with at least `min_other_kernels` kernels that port without one, go to parity with the findings of
        their files and of the files only they use (`feature_files`): a first port leaves such a fast path
        NVIDIA-only (vLLM's AWQ, CTranslate2's AWQ GEMMs, AutoAWQ_kernels' fused attention). Kernels a backend job
        re-implements (CUTLASS/CuTe) are that job's; with `max_backend_share`, a backend whose kernels are at most
        that share of the project's is such a fast path as a whole: its kernels and every finding that triggers
        its job go to parity (CTranslate2 kept its vendored FlashAttention opt-in and off for HIP)."""
        floor = float(entry.get("min_need_hours", 16))
        jobs = [job for job in self.model.one_offs if job.get("kernel_libraries")]
        backend = {lib for job in jobs for lib in job["kernel_libraries"]}

        def on_backend(k: Kernel) -> bool:
            return k.facts is not None and bool(backend & set(k.facts.merged().cuda_libraries))

        free = [k for k in kernels if _kernel_id(k) not in out]
        mine = [k for k in free if not on_backend(k)]

        def arms(ks: list[Kernel]) -> list[Kernel]:
            """Other definitions of the same kernels in the same files: the `#else` arm of a kernel written twice
            under `#if __CUDA_ARCH__ >= 800` (CTranslate2's flash_fwd_kernel and its empty stub) is one kernel."""
            names, ids = {(k.path, k.qualified_name) for k in ks}, {_kernel_id(k) for k in ks}
            return [k for k in mine if (k.path, k.qualified_name) in names and _kernel_id(k) not in ids]

        rewrite = [k for k in mine if self.need_likely(k, targets) >= floor]
        rewrite += arms(rewrite)
        # A rewrite inside a directory named for one feature (a quantization method, an attention backend: the
        # `siblings` patterns of the other entries) leaves that feature whole: CTranslate2 #1989 took all of
        # src/ops/awq/ out of its HIP build, the GEMV and dequantize kernels that needed no rewrite too.
        patterns = [p for e in self.model.data.get("scope", {}).get("parity", []) for p in e.get("siblings", [])]
        dirs = sorted({d for d in (_matched_dir(k.path, patterns) for k in rewrite) if d is not None}) \
            if entry.get("feature_dirs") else []
        ids = {_kernel_id(k) for k in rewrite}
        whole = [k for k in mine if _kernel_id(k) not in ids and any(k.path.startswith(d) for d in dirs)]
        least = int(entry.get("min_other_kernels", 4))
        if len(mine) - len(rewrite) - len(whole) < least:
            # a directory that is the project (AutoAWQ_kernels' awq_ext/) is no feature of it
            whole, dirs = [], []
        rewrite += whole
        if len(mine) - len(rewrite) < least:
            return
        theirs = [k for k in free if on_backend(k)]
        share = entry.get("max_backend_share")
        fast_path = bool(theirs) and share is not None and len(theirs) <= float(share) * len(free)
        if fast_path:
            rewrite += theirs
            rewrite += arms(rewrite)
        if not rewrite:
            return
        # A file that also holds a kernel of the minimal port stays in it but for the left-out kernels' extents
        # (feature_extents): bitsandbytes' wmma GEMMs sit in csrc/kernels.cu beside the quantizers and optimizers
        # its port shipped, and that file's host code, other kernels and the headers they include are port work.
        kept = [k for k in free if _kernel_id(k) not in {_kernel_id(r) for r in rewrite}]
        mixed = {k.path for k in rewrite} & {k.path for k in kept}
        for k in rewrite:
            d = next((d for d in dirs if k.path.startswith(d)), None)
            out.setdefault(_kernel_id(k), (d or (_feature_name(k) if k.path in mixed else k.path), entry["reason"]))
        paths = feature_files({k.path for k in rewrite} - mixed, self.result.files,
                              {k.path for k in self.result.kernels}, {k.path for k in kept})
        extents = feature_extents([k for k in rewrite if k.path in mixed], [k for k in kept if k.path in mixed])
        for f in findings:
            span = next((k for k, lo, hi in extents.get(f.path, ()) if lo <= f.line <= hi), None)
            feature = next((d for d in dirs if f.path.startswith(d)), None)
            if (f.path in paths or span is not None or feature is not None
                    or (fast_path and any(self.matches(job["when"], f) for job in jobs))):
                where = (feature if feature is not None else f.path if f.path in paths
                         else _feature_name(span) if span is not None else ", ".join(sorted(backend)))
                out.setdefault(f.fingerprint, (where, entry["reason"]))

    def _library_guards(self, entry: Mapping[str, Any], findings: list[Finding], out: dict[str, tuple[str, str]]) -> None:
        """A `library_guards` entry: a library finding in an `#if`/`#ifdef`/`#elif` arm whose condition names the
        library (`#ifdef CT2_WITH_CUDNN` around cuDNN calls) is code the project compiles only when it opts into that
        library; the guard macro is the `what` (CTranslate2's WITH_CUDNN option is off by default, and #1989 built
        HIP without it)."""
        facts = {fr.path: fr.port_facts for fr in self.result.files if fr.port_facts is not None}
        arms: dict[str, list[tuple[int, int, str]]] = {}
        for f in findings:
            lib = self.library(f)
            if lib is None or f.fingerprint in out or f.path not in facts:
                continue
            if f.path not in arms:
                arms[f.path] = positive_arms((Directive(*d) for d in facts[f.path].directives), facts[f.path].total)
            guard = next((g for a, b, cond in arms[f.path] if a < f.line < b
                          for g in [library_guard(cond, lib.id)] if g is not None), None)
            if guard is not None:
                out[f.fingerprint] = (guard, entry["reason"])

    def _optional_imports(self, entry: Mapping[str, Any], findings: list[Finding],
                          out: dict[str, tuple[str, str]]) -> None:
        """An `optional_imports` entry: a library the project's Python imports inside a try whose except catches
        ImportError (the scan's data `optional`, porter.match.refine) is a dependency it runs without, so every
        Python finding of that library is the optional feature's: the probed import and the modules behind the
        probe that import it unconditionally alike (pytorch3d probes `pycuda.gl` in renderer/opengl/__init__.py and
        imports its OpenGL rasterizer only when that succeeds; its ROCm port, #1851, left PyCUDA alone). The `what`
        is the library. C/C++ uses of the library are compiled whatever Python probes, and stay; a drop-in library
        (FlashAttention, apex: ROCm builds of them exist) is a rename wherever it is imported, no feature left out."""
        probed = {lib.id: lib for f in findings if dict(f.data).get("optional") and _python(f.path)
                  for lib in [self.library(f)] if lib is not None and lib.kind != "drop-in"}
        for f in findings:
            lib = self.library(f)
            if lib is not None and lib.id in probed and _python(f.path) and f.fingerprint not in out:
                out[f.fingerprint] = (f"{lib.name} (imported only where installed)", entry["reason"])

    def need_likely(self, k: Kernel, targets: tuple[Target, ...]) -> float:
        """The likely hours of the dearest thing a kernel needs on any of `targets`, before size and complexity."""
        from porter.estimate.kernel_verdicts import read_kernel

        kv = read_kernel(k, targets, self.model.kernels["unanalysed"], self.model.matrix_ptx_families)
        best = 0.0
        for tv in kv.targets.values():
            for need, verdict in tv.needs or ((tv.verdict, tv.verdict),):
                best = max(best, self.model.need_hours(need, verdict).likely)
        return best

    def optional(self, spot: Finding | Kernel) -> bool:
        """Whether a finding or kernel is optional work: kept CUDA-only on purpose, or under an optional path."""
        return (spot.status == Status.CUDA_ONLY or self.model.optional_path(spot.path)
                or any(spot.path.startswith(d) for d in self.extensions))

    def rule(self, f: Finding) -> Rule | None:
        return self.rules.get(f.rule)

    def library(self, f: Finding) -> Library | None:
        return self.finding_library.get(_finding_key(f))

    def applies(self, f: Finding, target: Target) -> bool:
        rule = self.rule(f)
        return applies(rule.targets if rule else (), target)

    def size(self, f: Finding) -> str:
        """The rule's effort size (a SIZES entry; 's' when the rule gives none it knows)."""
        rule = self.rule(f)
        size = (rule.effort.get("size") if rule else None) or "s"
        return size if size in SIZES else "s"

    def per(self, f: Finding) -> str:
        """What the rule's size is counted per: hit, file, kernel or repo."""
        rule = self.rule(f)
        return (rule.effort.get("per") if rule else None) or "hit"

    def blocks(self, f: Finding) -> bool:
        lib = self.library(f)
        return f.severity == Severity.BLOCKER or (lib is not None and lib.kind in self.model.verdict["blocked_library_kinds"])

    def klass(self, f: Finding) -> str:
        """The CLASSES entry: hipify translates it, an engineer must, or it only informs."""
        rule = self.rule(f)
        lib = self.library(f)
        if self.blocks(f):
            return "needs_engineer"
        kind = rule.hip_equivalent.get("kind") if rule else "manual"
        if kind == "rename" and (lib is None or lib.kind == "drop-in"):
            return "free_with_hipify"
        if self.size(f) == "none":
            return "informational"
        return "needs_engineer"

    def matches(self, alts: list[dict[str, Any]], f: Finding) -> bool:
        """Whether a finding meets any alternative of an effort model `when` (libraries, categories, rules, text)."""
        lib = self.library(f)
        for alt in alts:
            if "libraries" in alt and (lib is None or lib.id not in alt["libraries"]):
                continue
            if "categories" in alt and f.category not in alt["categories"]:
                continue
            if "rules" in alt and f.rule not in alt["rules"]:
                continue
            if "text" in alt and not re.search(alt["text"], _finding_text(f, self.rule(f))):
                continue
            if alt.get("member_call") and member_call(f) is None:
                continue
            return True
        return False


_MEMBER_CALL = re.compile(r"(?:->|\.)\s*((?:cu|nvrtc|cuda)[A-Z]\w*)\s*\(")


def member_call(f: Finding) -> str | None:
    """The CUDA driver, runtime or NVRTC entry point a finding's line calls through an object (`cuda->cuInit (0)`,
    `rtc.nvrtcCompileProgram (p, 0, 0)`), else None. Such a name is a pointer in a table the project fills itself
    (dlopen/dlsym): the scan reports the CUDA types and constants on the line (`CUresult`, `CUDA_SUCCESS`), not the
    member, so the line of the finding is read for it. hipify renames the names, but the port writes a HIP table and
    a HIP arm at each such call (hashcat's ext_hip.h and backend.c)."""
    m = _MEMBER_CALL.search(f.snippet or "")
    return m.group(1) if m else None


def _python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _kernel_id(k: Kernel) -> str:
    return f"kernel:{k.path}:{k.line}:{k.name}"


def _matched_dir(path: str, patterns: Iterable[str]) -> str | None:
    """The deepest ancestor directory of `path` (with its trailing slash) whose last components match one of
    `patterns` (`**/quantization/*/`: a directory inside one named quantization; `**/exllama*/`: a directory named
    exllama...), component by component with fnmatch; None when none does."""
    from fnmatch import fnmatchcase

    parts = path.split("/")[:-1]
    wanted = [[c for c in p.strip("/").split("/") if c != "**"] for p in patterns]
    for i in range(len(parts), 0, -1):
        tail = parts[:i]
        if any(len(w) <= len(tail) and all(fnmatchcase(a, b) for a, b in zip(tail[-len(w):], w)) for w in wanted if w):
            return "/".join(tail) + "/"
    return None


def feature_files(kernel_files: set[str], files: Iterable[Any], with_kernels: set[str], keep: set[str]) -> set[str]:
    """The files a feature left for parity consists of: the files of its kernels, the kernel-less files that include
    one of them (the launchers and instantiations), and, transitively, the headers every includer of which is one of
    these: a header only the left-out kernels use goes with them (AutoAWQ_kernels' fused attention takes its PTX
    helpers and bf16 fallbacks). `with_kernels`: the files that define kernels; a file with a kernel of the minimal
    port (`keep`) never goes whole: the caller leaves only the feature's extents of it (`feature_extents`)."""
    from porter.source.includes import resolve_include

    files = list(files)
    paths = frozenset(fr.path for fr in files if fr.language == "cuda")
    includes = {fr.path: {p for p in (resolve_include(fr.path, h, q, paths) for h, q in fr.includes)
                          if p is not None and p != fr.path} for fr in files if fr.language == "cuda"}
    includers: dict[str, set[str]] = defaultdict(set)
    for src, hs in includes.items():
        for h in hs:
            includers[h].add(src)
    out = set(kernel_files)
    out |= {src for src, hs in includes.items() if hs & kernel_files and src not in with_kernels}
    grown = True
    while grown:
        grown = False
        for src in sorted(out):
            for h in includes.get(src, ()):
                if h not in out and h not in keep and includers[h] <= out:
                    out.add(h)
                    grown = True
    return out - keep


def feature_extents(left: Iterable[Kernel], kept: Iterable[Kernel]) -> dict[str, tuple[tuple[Kernel, int, int], ...]]:
    """The line ranges a feature left for parity holds in files it shares with kernels of the minimal port, by path:
    each left-out kernel's body and the same-file device functions it calls (its facts' `device_functions`), less
    the device functions a kept kernel of the same file also calls — those are fixed for the minimal port anyway.
    (kernel, first line, last line), in source order."""
    shared: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for k in kept:
        shared[k.path] |= {(d.line, d.end_line) for d in (k.facts.device_functions if k.facts else ())}
    out: dict[str, list[tuple[Kernel, int, int]]] = defaultdict(list)
    for k in sorted(left):
        out[k.path].append((k, k.line, k.end_line))
        for d in k.facts.device_functions if k.facts else ():
            if (d.line, d.end_line) not in shared[k.path]:
                out[k.path].append((k, d.line, d.end_line))
    return {p: tuple(sorted(spans, key=lambda s: (s[1], s[2]))) for p, spans in out.items()}


def library_guard(condition: str, library: str) -> str | None:
    """The macro of a preprocessor condition named for `library` (a library-map id): `CT2_WITH_CUDNN` or
    `defined(USE_CUDNN)` for cudnn, one of the macro's `_`-separated words; None when none is, or when the
    condition tests it negated (`!defined(WITH_CUDNN)`: that arm is the build without the library)."""
    for m in re.finditer(r"(!\s*(?:defined\s*\(?\s*)?)?\b([A-Za-z_][A-Za-z0-9_]*)", condition):
        if library.lower() in m.group(2).lower().split("_"):
            return None if m.group(1) else m.group(2)
    return None


def _feature_name(k: Kernel) -> str:
    """A left-out kernel named where its file stays in the minimal port: "csrc/kernels.cu:2124 gemm_device"."""
    return f"{k.path}:{k.line} {k.name}"


def own_packages(result: ScanResult) -> frozenset[str]:
    """The Python packages the scanned project ships: top-level directories holding an `__init__.py`. bitsandbytes'
    own `import bitsandbytes` is the project, not a dependency on it."""
    return frozenset(f.path.split("/", 1)[0] for f in result.files
                     if f.path.count("/") == 1 and f.path.endswith("/__init__.py"))


def is_own(lib: Library, own: frozenset[str]) -> bool:
    """Whether a library-map entry is the scanned project itself (one of its import names is a package it ships)."""
    return lib.vendor_kind == "python-library" and any(m.split(".", 1)[0] in own for m in lib.imports)


def separate_extensions(paths: Iterable[str]) -> tuple[str, ...]:
    """Directories with a setup.py of their own inside a repository whose root builds another package: extensions
    built separately, on request (flash-attention's csrc/layer_norm/, hopper/), which a port may leave for later."""
    paths = set(paths)
    if not paths & {"setup.py", "pyproject.toml"}:
        return ()
    return tuple(sorted(p[: -len("setup.py")] for p in paths if p.endswith("/setup.py")))


def _finding_key(f: Finding) -> str:
    return f.fingerprint + f.path + str(f.line)


def _resolve_library(f: Finding, libraries: Mapping[str, Library]) -> Library | None:
    """The library-map entry a finding is about, from its `library` (or `library_id`) data, if any."""
    d = dict(f.data)
    for key in ("library_id", "library"):
        name = d.get(key)
        if not isinstance(name, str) or not name:
            continue
        name = _KB_LIBRARY_ALIASES.get(name, name)
        if name in libraries:
            return libraries[name]
        low = name.lower()
        for lib in libraries.values():
            if lib.id == low or lib.name.lower() == low:
                return lib
    return None


def _finding_text(f: Finding, rule: Rule | None) -> str:
    parts = [f.rule, f.message, rule.title if rule else ""]  # not the snippet: surrounding code is not the finding
    for k, v in f.data:
        if isinstance(v, (str, int, float)):
            parts.append(f"{k}={v}")
    return "\n".join(parts)
