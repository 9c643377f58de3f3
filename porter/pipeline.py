"""The one pipeline every command runs: source → discover → parse → match → kernels → target notes → port status → assessment.

`run(source, settings)` is the entry point for the CLI, scripts and tests; `scan` is its first stage (files to
findings, kernels and launches), which runs files in budgeted worker processes (porter.budget: a wall clock and a
memory cap per file, `jobs` of them, at least one whatever `jobs` says) and caches each file's
result (porter.cache: JSON data, never code) by a key made of its content (the git blob id when the source is a
git tree, else a hash of the bytes), its path, the rule set's digest, porter's own code and data, and the
repository-wide facts its language reads (`RepositoryFacts`: for C/C++ the macros defined in other files, headers,
integer constants and build names; for Python the repository's own packages; themselves one cache entry named by
every C/C++ file's path and content), so an unchanged repository re-scans from the cache without starting workers.
Each file is read from its source once per scan (`Held`): the repository facts, the scan, port status and deep mode
take the same bytes. `translate` and `run_diff` are the same pipeline's entries for those commands. Every file that
cannot be read is recorded in `skipped` with the reason; nothing is silently lost.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import functools
import hashlib
import heapq
import io
import os
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence, TypeGuard

from porter import __version__, filekey
from porter.budget import (DEADLINE_KIND, Budget, Overrun, Pool, deadline_passed, run_inherited, run_inherited_all,
                           run_stage, stage_budget)
from porter.cache import Cache, CacheUnusable, collector_paused, inside_scanned_tree
from porter.datafile import DATA_DIR, MAX_DATA_FILE_BYTES
from porter.kernels.callgraph import type_aliases_of
from porter.kernels.launchers import launchers_of, macro_launches, passed_names
from porter.kernels.complex_types import aliases_of as complex_aliases_of
from porter.kernels.complex_types import operators_of as complex_operators_of
from porter.kernels.triton import measure_python_file as measure_triton
from porter.kernels.verdicts import analyse, device_helpers, measure
from porter.match import refine_helpers, refine_standard, refine_unreferenced, refine_vectors
from porter.match.base import MatchContext, SkipFile
from porter.portaware import attach_status
from porter.portaware import status as port_status
from porter.portaware import pymodules
from porter.portaware.scope import rocm_path_evidence
from porter.model import FileResult, Finding, ScanResult, ScanStats, Severity, Skipped, Status
from porter.model.report import AsmHelpers
from porter.model.kernel import TritonHelper
from porter.rules import Rule, RuleSet, load_rules, rule_files
from porter.settings import Settings
from porter.source import syntax as launches
from porter.kernels.constfold import harvest_constant_values
from porter.source.discover import NOT_KEPT_FILES, Candidate, Discovery, language_of, on_disk
from porter.source.includes import file_includes, quoted_target
from porter.source import buildsources, preprocessor
from porter.source.parse import parse
from porter.source.parse_input import harvest_macros, parses_alike, python_names_as_read
from porter.contain import Unreadable, read_bytes
from porter.source.read import GitTree, SourceReadError, WorkTree
from porter.target_notes import with_target_notes
from porter.rocm import default_release
from porter.targets import Target, resolve_targets

TEXT_SNIFF_BYTES = 8192
# How a Git LFS pointer file begins (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"
# Binary artefacts are read lazily by their matchers (ELF headers, sizes): only this much is kept in memory.
BINARY_HEAD_BYTES = 64 * 1024
# A repository-config include/exclude that leaves out more than this share of the files is said in the output.
MOST_FILES = 0.5
# More lines than any hand-written source file has (CuTe's largest header has 60k): a generated file, skipped
# before parsing so its parse tree never has to fit in memory.
MAX_LINES = 1_000_000
# Values a constant may have across builds for porter to bound a size by the largest (more: it is left unknown).
MAX_ALTERNATIVES = 4
# The most findings (suppressed ones too), kernels, launches and device helpers one scan keeps from its files'
# results in porter's own process, past every worker's budget. One rule reports at most 1,000 hits per file, but
# nothing bounded their sum: copies of one small file are one blob in git, and 500 of them (a few KB of pack) held
# 550,000 findings. Past it the later files in path order are skipped (_Kept), which a gate counts as unseen.
# An item kept costs ~1.7 KB, but ~12 KB by the end of the run (status, analysis, the report: 116,100 findings took
# the parent to 1.42 GB, session 28), so the cap is 50,000 (~600 MB): 3.5 times the largest development tree
# (FasterTransformer: 13,158 findings, 441 kernels, 413 launches; heldout trees hold a few hundred to a few thousand).
MAX_KEPT = 50_000

if TYPE_CHECKING:  # the later stages' types; their modules are imported when those stages run
    from porter.diff import Diff
    from porter.estimate.assess import Assessment
    from porter.estimate.effort_model import EffortModel
    from porter.translate.model import TranslateOptions
    from porter.translate.run import TranslateRun

Source = WorkTree | GitTree


@dataclass(frozen=True)
class Run:
    """What one pipeline run produced: the scan (kernels analysed, target notes attached), the targets it was
    about, the assessment when asked for, and the settings it ran with."""

    result: ScanResult
    targets: tuple[Target, ...]
    settings: Settings
    assessment: Assessment | None = None
    diff: Diff | None = None  # for `scan --new-since` / `--baseline`: what the change added and removed


def run(source: Source | Path | str, settings: Settings = Settings(), *, assess: bool = False,
        progress: Callable[[int, int], None] | None = None, only: frozenset[str] | None = None,
        untrusted: bool = False, found: Discovery | None = None, keep_held: bool = False,
        code_before: frozenset[str] | None = None) -> Run:
    """Scan `source` with `settings`, analyse its kernels for the settings' targets and, with assess, estimate
    the migration effort. Every command goes through here. `only` limits the scan to those paths (see `scan`, and
    its `code_before`);
    `untrusted`: the scanned files are a change's under --isolated, whose own claims are not taken (see `scan`);
    `found`: the source's discovery with the settings' include/exclude, when the caller already has it;
    `keep_held`: the result keeps the files' bytes as read (ScanStats.held) for a stage of the caller's (run_diff)."""
    source = source if isinstance(source, (WorkTree, GitTree)) else WorkTree(Path(source))
    targets = tuple(resolve_targets(settings.targets))
    try:
        result = scan(source, settings, progress=progress, targets=targets, only=only, untrusted=untrusted,
                      found=found, code_before=code_before)
        return complete(result, settings, targets, assess=assess, source=source, keep_held=keep_held)
    finally:
        # A git tree's `git cat-file` ends with the run, however it ends (a deadline, an error): in a process that
        # goes on (a test worker, a fleet worker, a library caller) each run's reader stayed otherwise.
        if isinstance(source, GitTree):
            source.close()


def complete(result: ScanResult, settings: Settings, targets: tuple[Target, ...], *, assess: bool = False,
             model: EffortModel | None = None, source: Source | None = None, keep_held: bool = False) -> Run:
    """The stages after the scan: kernel analysis for the targets, port status (read from `source`, the tree the
    result came from) and, with assess, the effort estimate (with `model`, default the settings' effort model).
    `run` and history walks (one scan result per commit) share it, so a stage added here applies to both."""
    cache = open_cache(settings.cache_dir, source)[0]
    # The code digest only names cache entries: without a cache, hashing porter's code and kb is wasted (~5 ms).
    digest = code_digest() if cache is not None else b""
    task, args, budget = port_status.map_call(source, settings, result, cache, digest)
    if settings.deep or source is None or budget != _analysis_budget(settings, result):
        result = _budgeted_analysis(result, settings, targets)
        result = attach_status(result, settings, source, cache, digest)
    else:
        # Kernel analysis and port status read the same scan result and neither reads the other's answer (port status
        # reads the kernels' paths, which analysis keeps), under the same stage budget: one budgeted worker runs
        # both, each under its own clock, instead of a fork each (porter.budget.run_inherited_all; a fork is ~7-17 ms
        # of CPU, more from a bigger process).
        analysed, mapped = run_inherited_all([_analysis_call(result, settings, targets), (task, args)], budget)
        result = attach_status(_analysed(result, analysed), settings, source, cache, digest, mapped)
    if any(f.rule == refine_vectors.USE_RULE for f in result.findings):
        result = dataclasses.replace(result, findings=tuple(refine_vectors.guarded_uses(result.findings)))
    # The files' bytes were for deep mode and port status: not kept past them (nor by whoever holds the run), unless
    # the caller has a stage of its own that reads them (run_diff's guard check).
    if not keep_held:
        result = dataclasses.replace(result, stats=dataclasses.replace(result.stats, held=None))
    if cache is not None:
        cache.flush()
    assessment = None
    if assess:
        result, assessment = assessed(result, settings, targets, model)
    return Run(result, targets, settings, assessment)


def _budgeted_analysis(result: ScanResult, settings: Settings, targets: tuple[Target, ...]) -> ScanResult:
    """The kernel analysis (porter.kernels.verdicts.analyse) in a budgeted worker, under a stage's budget: it works
    across files on what the repository holds (K kernels of one name and L launches of it cost K x L), after the
    scan's workers are done. Past the budget, or the run's deadline, the kernels have no verdicts and a notice says
    so; the findings (what a gate reads) stand. `--deep` runs as before, in this process: libclang runs in its own
    budgeted workers there, file by file."""
    if settings.deep:
        return analyse(result, list(settings.targets), deep=True, resolved=targets, deep_budget=file_budget(settings),
                       rocm=settings.rocm or None)
    fn, args = _analysis_call(result, settings, targets)
    return _analysed(result, run_inherited(fn, args, _analysis_budget(settings, result)))


def _analysis_budget(settings: Settings, result: ScanResult) -> Budget:
    return stage_budget(file_budget(settings), max(1, len(result.files)))


def _analysis_call(result: ScanResult, settings: Settings,
                   targets: tuple[Target, ...]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return _analysis_task, (result, settings, targets)


def _analysed(result: ScanResult, answer: Any) -> ScanResult:
    """The result with the analysis worker's answer: its kernels and verdicts, or the notice that it overran."""
    if isinstance(answer, Overrun):
        stopped = f"stopped: {answer.reason}" if answer.kind == DEADLINE_KIND else answer.reason
        notice = f"kernel analysis {stopped}; no kernel has a verdict in this report"
        return dataclasses.replace(result, stats=dataclasses.replace(result.stats,
                                                                     notices=(*result.stats.notices, notice)))
    kernels, analysed_targets, summary = answer
    return dataclasses.replace(result, kernels=kernels, targets=analysed_targets, kernel_analysis=summary)


def _analysis_task(result: ScanResult, settings: Settings, targets: tuple[Target, ...]) -> tuple[Any, ...]:
    done = analyse(result, list(settings.targets), resolved=targets, rocm=settings.rocm or None)
    # Only what analyse changes goes back through the pipe (not the rules or the held file bytes).
    return done.kernels, done.targets, done.kernel_analysis


def assessed(result: ScanResult, settings: Settings, targets: tuple[Target, ...],
             model: EffortModel | None = None) -> tuple[ScanResult, Assessment]:
    """The assessment stage: the effort estimate of `result` (with `model`, default the settings' effort model) and
    the result with it attached."""
    from porter.estimate.assess import assess as estimate, attach
    from porter.estimate.effort_model import load_effort_model

    assessment = estimate(result, list(targets), model or load_effort_model(settings.effort))
    return attach(result, assessment), assessment


def translate(path: Path | str, settings: Settings, options: TranslateOptions, **how: Any) -> TranslateRun:
    """The translate command through the same settings as a scan: porter.toml / `[tool.porter]` under the command
    line decide which files are translated (include, exclude) and how many processes an external engine may use,
    then porter.translate.run translates, writes or diffs, and verifies (`how`: output, in_place, diff, verify, …).
    Returns its porter.translate.run.TranslateRun."""
    from porter.translate.run import run_translate

    options = dataclasses.replace(options, include=tuple(settings.include), exclude=tuple(settings.exclude),
                                  jobs=settings.jobs or options.jobs)
    return run_translate(Path(path), options, budget=file_budget(settings), **how)


def run_diff(path: Path | str, settings: Settings = Settings(), *, new_since: str | None = None,
             baseline: Path | None = None, rev: str | None = None, assess: bool = False, isolated: bool = False) -> Run:
    """What a change adds: with `new_since`, the files that differ between `merge-base(new_since, rev or HEAD)` and
    `rev or HEAD` scanned on both sides from git objects and matched (porter.diff); with `baseline`, a scan of
    `path` (or of `rev`) matched against a baseline file. The run's result holds only the new findings; `Run.diff`
    has new, fixed, unchanged and the kernel verdict changes. With `isolated`, suppressions the change adds are not
    honoured (porter.diff)."""
    from porter import diff as changes
    from porter.source.read import source_for

    targets = tuple(resolve_targets(settings.targets))
    if new_since is not None:
        top, subdir = changes.repository_of(Path(path))
        base, head = changes.resolve(top, new_since, rev or "HEAD")
        change = changes.changes(top, base, head, subdir)
        # Both sides through `run`, so every stage a plain scan has (kernel verdicts, port status) applies to them.
        # Under --isolated the files of the change are untrusted on both sides: neither reads as a private copy of a
        # toolkit header because it says so (porter.match.refine).
        # A file the head reads as C/C++/CUDA through an `#include` or a build line and the base did not (text a
        # change starts compiling: `#include "../docs/reduce.txt"`, LANGUAGE CUDA on a `.txt`) is part of the change
        # whether or not its bytes changed: the head's scan takes it in (`code_before`), and so does the base's when
        # the base lists it too (a `.py` read only as Python there), so its findings compare as new.
        base_side = run(GitTree(top, base, subdir), settings, only=change.base_paths, untrusted=isolated).result
        head_side = run(GitTree(top, head, subdir), settings, only=change.head_paths, untrusted=isolated,
                        keep_held=isolated, code_before=base_side.stats.read_as_code).result
        joined = head_side.stats.read_as_code - base_side.stats.read_as_code - change.head_paths
        listed = base_side.stats.discovery[3].files if base_side.stats.discovery is not None else ()
        if joined & {c.path for c in listed}:
            base_side = run(GitTree(top, base, subdir), settings, only=change.base_paths | joined,
                            untrusted=isolated).result
        sides = [base_side, head_side]
        diff = changes.compare(sides[0], sides[1], change, isolated,
                               read=_held_first(sides[1], changes.read_at(top, head, subdir)),
                               budget=file_budget(settings),
                               vouch=changes.base_vouch(top, base, subdir, change.renames) if isolated else None,
                               # the rule set both sides were scanned with (kept in this process: no second load)
                               rules=changes.GateRules.of(load_rules_cached(list(settings.extra_rules), None,
                                                                            file_budget(settings)).rules)
                               if isolated else changes.GateRules())
        head_result = _added_submodules_unseen(sides[1], change.head_paths - change.base_paths)
    elif baseline is not None:
        source = source_for(Path(path), rev)
        # A baseline names no change, so under --isolated no file of the tree reads as a private copy of a toolkit
        # header because it says so: a pull request could add `cuda_fp16.hpp` holding its kernel. `porter baseline
        # --isolated` writes its side the same way, so a real vendored copy's findings are in the baseline.
        head_result = run(source, settings, untrusted=isolated, keep_held=isolated).result
        diff = changes.compare_baseline(baseline, head_result, isolated,
                                        read=_held_first(head_result, _reader(source, settings)),
                                        budget=file_budget(settings))
    else:
        raise ValueError("run_diff needs new_since or baseline")
    # The head scan's bytes served the guard check; not kept past it.
    result = changes.apply(dataclasses.replace(head_result, stats=dataclasses.replace(head_result.stats, held=None)),
                           diff)
    assessment = None
    if assess:
        result, assessment = assessed(result, settings, targets)
    return Run(result, targets, settings, assessment, diff)


SUBMODULE_SKIP = "git submodule or nested repository: scan it separately"
ADDED_SUBMODULE = "git submodule this change adds: its code is unseen here (scan it separately)"


def _added_submodules_unseen(head: ScanResult, added: frozenset[str]) -> ScanResult:
    """The head's scan with each submodule (gitlink) the change adds listed as unseen code (Skipped.unseen): the
    change brings code porter never read, which a gate must not pass (a PR adding `third_party/evil` with inline PTX
    and `add_subdirectory` on it). Submodules the base already had keep their plain skip."""
    if not any(s.reason == SUBMODULE_SKIP and s.path in added for s in head.skipped):
        return head
    return dataclasses.replace(head, skipped=tuple(
        Skipped(s.path, ADDED_SUBMODULE) if s.reason == SUBMODULE_SKIP and s.path in added else s
        for s in head.skipped))


def _held_first(result: ScanResult, read: Callable[[str], bytes | None]) -> Callable[[str], bytes | None]:
    """`read`, except that a file the scan of `result` holds (porter.pipeline.Held) is taken from there: the diff's
    guard check (porter.diff._reopen) then reads no file the scan already read."""
    held = result.stats.held
    listing = result.stats.discovery
    by_path = {c.path: c for c in listing[3].files} if held is not None and listing is not None else {}

    def held_or_read(path: str) -> bytes | None:
        c = by_path.get(path)
        data = held.get(c) if c is not None else None
        return data if data is not None else read(path)
    return held_or_read


def _reader(source: Source, settings: Settings) -> Callable[[str], bytes | None]:
    """A file of `source` by its path in a scan result, read as the scan read it (None when it cannot be)."""
    from porter.diff import read_at

    if isinstance(source, GitTree):
        return read_at(source.repo, source.commit, source.subdir)
    base = Path(source.root) if Path(source.root).is_dir() else Path(source.root).parent

    def read(path: str) -> bytes | None:
        try:
            return source.read(Candidate(path, base / on_disk(path), "cuda"), settings.max_file_bytes)
        except SourceReadError:
            return None
    return read


@functools.lru_cache(maxsize=None)
def code_digest() -> bytes:
    """A digest of porter's own source and the data its matchers read (knowledge base, library map, schemas), so
    a cached result never outlives what computed it. Rule files have their own digest (RuleSet.digest)."""
    h = hashlib.sha256(__version__.encode())
    pkg = Path(__file__).resolve().parent
    for base, pattern in ((pkg, "*.py"), (pkg / "schemas", "*.json"), (DATA_DIR / "kb", "*")):
        for p in sorted(base.rglob(pattern)):
            if p.is_file():
                h.update(p.relative_to(base).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16].encode()


# porter's own rule set as this process last loaded it, under the signature of its files (_own_signature).
_OWN_RULES: tuple[tuple[tuple[str, int, int], ...], RuleSet] | None = None


def _own_signature() -> tuple[tuple[str, int, int], ...]:
    """Path, size and modification time of each of porter's own rule files: what says the packaged rule set this
    process holds is still the one on disk."""
    return tuple((str(p), st.st_size, st.st_mtime_ns) for p in rule_files() for st in (p.stat(),))


def load_rules_cached(extra: list[Path], cache: Cache | None, budget: Budget | None = None) -> RuleSet:
    """The validated rule set, reused from the cache when every rule file's bytes and porter's code are unchanged
    (validating ~90 files against the schema is a fifth of a warm re-scan). The key covers the extra rule files'
    paths and bytes, so two repositories with different rules never share an entry. `budget`: what compiling the
    tree-sitter queries of one rule from outside porter's data may take (porter.rules._check_queries).

    porter's own rules (no extra files) are also kept in this process while none of their files changes: a
    process that scans many times (a fleet run, a PR bot's server, the test suite) would otherwise load them again
    for every scan, about 26 ms (a third of a small scan's own CPU) or a read of the cache's index. A repository's
    extra rules are loaded, and their queries budgeted, on every run."""
    global _OWN_RULES
    signature = None if extra else _own_signature()
    if signature is not None and _OWN_RULES is not None and _OWN_RULES[0] == signature:
        return _OWN_RULES[1]
    ruleset = _load_rules_cached(extra, cache, budget)
    if signature is not None:
        _OWN_RULES = (signature, ruleset)
    return ruleset


def _load_rules_cached(extra: list[Path], cache: Cache | None, budget: Budget | None) -> RuleSet:
    if cache is None:
        return load_rules(extra=extra, budget=budget)
    h = hashlib.sha256(code_digest())
    for p in rule_files() + [f for e in extra for f in (rule_files(e) if e.is_dir() else [e])]:
        try:
            # Bounded and non-blocking, as the loader reads it: a rule path may be a FIFO or /dev/zero.
            h.update(str(p).encode() + b"\0" + read_bytes(p, MAX_DATA_FILE_BYTES) + b"\0")
        except Unreadable:
            return load_rules(extra=extra, budget=budget)  # let the loader report the unreadable file
    key = "rules-" + h.hexdigest()[:40]
    cached = cache.get(key)
    if isinstance(cached, RuleSet) and cached.rules:
        return cached
    ruleset = load_rules(extra=extra, budget=budget)
    cache.put(key, ruleset)
    return ruleset


def file_budget(settings: Settings) -> Budget:
    """What one file's work may take in a parser worker, from the settings (file_seconds, file_memory_mib)."""
    return Budget(settings.file_seconds, settings.file_memory_mib << 20)


def open_cache(cache_dir: Path | None, source: Any = None) -> tuple[Cache | None, str | None]:
    """The cache to use, or None with the reason when the directory must not be used (for a scan of `source`:
    never one inside the scanned tree, porter.cache.inside_scanned_tree)."""
    if cache_dir is None:
        return None, None
    if source is not None and (why := inside_scanned_tree(cache_dir, source)):
        return None, why
    cache = Cache(cache_dir)
    try:
        cache.check()
    except CacheUnusable as e:
        return None, str(e)
    return cache, None


@dataclass
class _Worker:
    ruleset: RuleSet
    disabled: frozenset[str]
    cache: Cache | None
    max_file_bytes: int
    source: Source
    macros: dict[str, str] = field(default_factory=dict)  # qualifier macros defined anywhere in the repository
    local_packages: frozenset[str] = frozenset()  # the repository's own Python packages (not dependencies)
    headers: frozenset[str] = frozenset()  # the repository's own C/C++/CUDA files (an include of one is not a library)
    constants: dict[str, int] = field(default_factory=dict)  # integer constants defined once, with one value, repo-wide
    build_names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # RepositoryFacts.build_names
    alternatives: dict[str, tuple[int, ...]] = field(default_factory=dict)  # RepositoryFacts.alternatives
    ctx: MatchContext = field(default_factory=MatchContext)
    budget: Budget = Budget()  # what one file's scan may take in its worker (porter.budget)
    rules_by_language: dict[str, list[Rule]] = field(default_factory=dict, repr=False, compare=False)  # see rules_for
    held: "Held" = field(default_factory=lambda: Held(), repr=False, compare=False)  # the scan's bytes (Held)
    _digests: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)  # see repository_digest
    rocm: str = ""  # the ROCm release HIP facts are judged for (porter.rocm): part of every cache key
    untrusted: bool = False  # scan(untrusted=): part of every cache key
    _view: filekey.FactsView | None = field(default=None, repr=False, compare=False)  # see facts_view
    _spellings: dict[str, str] | None = field(default=None, repr=False, compare=False)  # see spellings

    def spellings(self) -> dict[str, str]:
        """The macros of the repository that spell a CUDA name at their uses (preprocessor.spellings_of)."""
        if self._spellings is None:
            self._spellings = preprocessor.spellings_of(self.macros)
        return self._spellings

    def facts_view(self) -> filekey.FactsView:
        """The repository facts, to be cut down to what each C/C++/CUDA file names (made once per scan)."""
        if self._view is None:
            self._view = filekey.FactsView(self.macros, self.headers, self.constants, self.build_names,
                                           self.alternatives)
        return self._view

    def rules_for(self, language: str) -> list[Rule]:
        """The enabled rules for `language`, in rule-set order (once per language: a file then only tests the
        path globs of the few rules that have them)."""
        if language not in self.rules_by_language:
            self.rules_by_language[language] = [r for r in self.ruleset.rules
                                                if r.id not in self.disabled and language in r.languages]
        return self.rules_by_language[language]

    def repository_digest(self, language: str) -> bytes:
        """The repository-wide facts a file of `language` depends on, for its cache key: a C/C++/CUDA file's result
        reads the qualifier macros, the repository's headers, integer constants and build names; a Python file's
        the repository's own packages; any other file's none (so adding a header keeps every Python, CMake or YAML
        entry, and a new Python package every C/C++ one). Once per language and scan. A C/C++/CUDA file's key
        adds only the facts it names (facts_view, porter.filekey): a new header elsewhere keeps its entry too."""
        found = self._digests.get(language)
        if found is None:
            if language == "cuda":
                basis = "per file"  # a C/C++/CUDA file's key names the facts it reads (porter.filekey)
            elif language == "python":
                basis = repr(sorted(self.local_packages))
            else:
                basis = ""
            found = self._digests[language] = hashlib.sha256(basis.encode()).hexdigest()[:16].encode()
        return found


_STATE: _Worker | None = None


def _init_worker(state: _Worker) -> None:
    global _STATE
    _STATE = state


def _prepare(state: _Worker) -> None:
    """Before the first file is scanned: the rules' queries and regexes declared (porter.match.engine.prepare_rules).
    Not done for a scan that every file's cache entry answers: neither it nor the matchers' modules (porter.match's
    registry imports every pattern kind, a tenth of a second) are needed to read results back."""
    from porter.match.engine import prepare_rules

    prepare_rules(state.ruleset.rules)


def _init_pool_worker() -> None:
    """A forked parser worker: it inherited the scan's state (_STATE); its cache hands entries back instead of
    writing them."""
    if _STATE is not None and _STATE.cache is not None:
        _STATE.cache.in_worker()


def scan(
    root: Source | Path | str,
    options: Settings = Settings(),
    ruleset: RuleSet | None = None,
    progress: Callable[[int, int], None] | None = None,
    targets: Iterable[Target] | None = None,
    only: frozenset[str] | None = None,
    untrusted: bool = False,
    found: Discovery | None = None,
    code_before: frozenset[str] | None = None,
) -> ScanResult:
    """The scan stage: every file of a source (a work tree, a git tree, or a path) to a sorted result with the
    rules' findings (with target notes for `targets`, default: the settings' targets), kernels and launches.
    With `only` (paths as the source shows them) just those files are scanned; the repository-wide facts (macros,
    local packages) still come from every file, so each scanned file's result and cache key are the full scan's.
    With `untrusted` (the files of a change under --isolated) a file is never read as a private copy of a toolkit
    header on its own say-so (porter.match.refine; keyed in the cache).
    `found`: the source's discovery with the settings' include/exclude, when the caller already made it.
    `code_before` (with `only`, a diff's head): the files the base read as C/C++/CUDA only through an include or a
    build line (ScanStats.read_as_code); a file this tree reads so that is not among them joins `only`: the change
    made it code, so its code is the change's."""
    source = root if isinstance(root, (WorkTree, GitTree)) else WorkTree(Path(root))
    targets = tuple(targets) if targets is not None else tuple(resolve_targets(options.targets))
    found = found if found is not None else source.discover(options.include, options.exclude)
    notices = list(options.notices)
    if options.config_globs:
        everything = source.discover()
        if len(everything.files) and len(found.files) < (1 - MOST_FILES) * len(everything.files):
            notices.append(f"repository configuration include/exclude leaves {len(found.files)} of "
                           f"{len(everything.files)} files to scan")
        elif only is not None:
            # A diff scan: a change whose own config leaves out the files it changes is said whatever the share
            # (a pull request could otherwise add CUDA code and the exclude that hides it in one commit).
            kept = {c.path for c in found.files}
            left = sorted(c.path for c in everything.files if c.path in only and c.path not in kept)
            if left:
                notices.append(f"repository configuration include/exclude leaves out {len(left)} changed file(s): "
                               + ", ".join(left[:3]) + (" ..." if len(left) > 3 else ""))
    cache, why_not = open_cache(options.cache_dir, source)
    if why_not:
        notices.append(why_not)
    ruleset = ruleset or load_rules_cached(list(options.extra_rules), cache, file_budget(options))
    held = Held()
    # The repository facts' workers also answer which sources CMake compiles as CUDA: that stage's one task goes to
    # an idle facts worker instead of a fork of its own (each fork ~7-17 ms of CPU; a stage of its own before).
    with Pool(file_budget(options), 1) as facts_pool:
        facts = cached_repository_facts(found.files, source, options.max_file_bytes, cache, file_budget(options),
                                        options.jobs, notices, options.rocm_macros, held, pool=facts_pool)
        unseen: list[Skipped] = []
        named = _cmake_cuda_sources(source, found, options, held, notices, cache, facts_pool, unseen)
    wanted = [*facts.unlisted_includes, *_resolved_build_sources(source, found, named, unseen)]
    twinned: set[str] = set()  # listed files of another language read as C/C++/CUDA too
    extra = _included_unlisted(source, found, wanted, options, held, notices, unseen, twinned, untrusted)
    if unseen:
        found = dataclasses.replace(found, skipped=tuple(sorted(set(found.skipped) | set(unseen))))
    if extra:
        found = dataclasses.replace(found, files=tuple(sorted((*found.files, *extra), key=lambda c: c.path)))
        facts = cached_repository_facts(found.files, source, options.max_file_bytes, cache, file_budget(options),
                                        options.jobs, notices, options.rocm_macros, held)
    twins = tuple(dataclasses.replace(c, language="cuda", target=None) for c in found.files if c.path in twinned)
    read_as_code = frozenset({c.path for c in extra} | twinned)
    if only is not None and code_before is not None:
        only = only | (read_as_code - code_before)
    pairs = _merged(scan_files((*found.files, *twins), source, options, ruleset, cache, facts, progress, only, held,
                               untrusted), twinned)
    if cache is not None:
        cache.flush()  # the rule set's, the repository facts' and every scanned file's new entries: one pack
    result = assemble(source, found, pairs, ruleset, targets, notices, only, held, frozenset(options.disabled_rules),
                      stage_budget(file_budget(options), max(1, len(found.files))), untrusted)
    return dataclasses.replace(result, stats=dataclasses.replace(
        result.stats,
        # Which files this source has, for the port-status stage (it would list them again).
        discovery=(source, tuple(options.include), tuple(options.exclude), found),
        # Which macros stand for one build, with the configured rocm_macros: port status decides by the same names.
        build_names=facts.build_names,
        read_as_code=read_as_code,
        held=held))  # the files' bytes as read: port status and deep mode take them from here


def _merged(pairs: list[tuple[FileResult, bool]], twinned: set[str]) -> list[tuple[FileResult, bool]]:
    """One result per path: a file read in its own language and as C/C++/CUDA (_included_unlisted) gives both
    readings' findings, kernels and launches under its own language; the C/C++ reading's skip is said."""
    if not twinned:
        return pairs
    out: list[tuple[FileResult, bool]] = []
    both: dict[str, list[tuple[FileResult, bool]]] = {}
    for r, hit in pairs:
        if r.path in twinned:
            both.setdefault(r.path, []).append((r, hit))
        else:
            out.append((r, hit))
    for path, got in sorted(both.items()):
        own = next((r for r, _ in got if r.language != "cuda"), got[0][0])
        cpp = next((r for r, _ in got if r.language == "cuda"), own)
        out.append((dataclasses.replace(
            own, findings=tuple(sorted(set(own.findings) | set(cpp.findings))),
            suppressed=tuple(sorted(set(own.suppressed) | set(cpp.suppressed))),
            kernels=tuple(sorted(set(own.kernels) | set(cpp.kernels))),
            launches=tuple(sorted(set(own.launches) | set(cpp.launches))),
            skipped=cpp.skipped if cpp.skipped is not None else own.skipped), all(h for _, h in got)))
    return out


def _included_unlisted(source: Source, found: Discovery, wanted: Iterable[str], options: Settings, held: Held,
                       notices: list[str], unseen: list[Skipped], twinned: set[str],
                       untrusted: bool = False) -> list[Candidate]:
    """The files C/C++/CUDA sources `#include "..."` whose names give porter no language (`kern.txt`): a compiler
    reads them as C++, so the scan does too (CUDA code hidden in one was never scanned). What they include in turn is
    followed, MAX_INCLUDE_DEPTH levels deep, each level's directives lexed in budgeted workers like any file's."""
    by_path = {c.path: c for c in found.files}
    listed = set(by_path)
    out: list[Candidate] = []
    for _ in range(MAX_INCLUDE_DEPTH):
        # an unlisted include's group (unlisted_includes) or a plain path (a CMake LANGUAGE CUDA source)
        groups = [w.split(INCLUDE_SEP) for w in set(wanted)]
        # a computed include porter cannot read (unlisted_includes): under --isolated the file it includes is unseen
        # code of the change (a gate fails closed); a trusted scan leaves it (a library's configured header)
        computed = sorted(g[1:] for g in groups if not g[0])
        groups = [g for g in groups if g[0]]
        if untrusted:
            unseen.extend(Skipped(path, f"#include {text[:80]} {COMPUTED_INCLUDE}") for path, text in computed)
        paths = {p for g in groups for p in (g[2:] if len(g) > 2 else g)}
        extra = source.included(sorted(p for p in paths if p not in listed), tuple(options.include),
                                tuple(options.exclude))
        # a listed file of another language (`kern.json`, `kern.py`, a `.cup` CMake compiles as CUDA) that a
        # C/C++/CUDA unit includes or a build compiles as CUDA: read as C/C++/CUDA too, its own language's scan kept
        # (scan merges the two results, one path)
        twins = [dataclasses.replace(by_path[p], language="cuda", target=None) for p in sorted(paths)
                 if p in by_path and by_path[p].language not in ("cuda", "binary") and p not in twinned]
        twinned.update(c.path for c in twins)
        there = listed | {c.path for c in extra}
        # an include none of whose places holds the file: reached through an include directory porter does not
        # follow (`include_directories(kern)`), so its code is unseen - listed so, on the includer, and a gate fails.
        # An extensionless quoted name found nowhere is left (`"Eigen/Core"` through an include path).
        unseen.extend(Skipped(g[0], f"#include of {g[1]} {UNFOUND_INCLUDE}") for g in sorted(groups)
                      if len(g) > 2 and not any(p in there for p in g[2:]) and "." in g[1].rsplit("/", 1)[-1])
        if not extra and not twins:
            break
        out.extend(extra)
        listed.update(c.path for c in extra)
        read = [*extra, *twins]
        harvested, _ = harvest_file_facts(read, source, options.max_file_bytes, held, file_budget(options),
                                          options.jobs, notices)
        wanted = [t for c in read for t in unlisted_includes(c.path, harvested.get(c.path, ({}, {}, ((), 0)))[2][0])]
    return out


# The most bytes of build files (CMake, scripts with nvcc lines) one scan holds at once in porter's own process to
# learn which sources they compile as CUDA: a project's build files total kilobytes, while 150 paths sharing one
# 8 MiB blob (a ~10 KB object store) held 1.2 GB there, outside Held's budget. Past it the later build files in path
# order are listed unseen (BUILD_TEXT_PAST), which a gate counts: the sources they name as CUDA are not known.
BUILD_TEXT_BYTES = 64 * 1024 * 1024
BUILD_TEXT_PAST = ("build file past the {:,} MiB of build files porter reads in one scan: the sources it compiles as "
                   "CUDA are unseen")


def _cmake_cuda_sources(source: Source, found: Discovery, options: Settings, held: Held,
                        notices: list[str], cache: Cache | None, pool: Pool | None = None,
                        unseen: list[Skipped] | None = None) -> list[str]:
    """The files the tree's CMake files mark LANGUAGE CUDA (porter.source.buildsources), lexed in one budgeted
    worker like any repository content; past the budget none, and a notice says so. In a git tree the answer is
    kept under the CMake files' blob ids, so a warm scan reads none of them again (as every other stage).
    `pool`: a pool whose worker may run it (the facts'), used when its budget is this stage's."""
    cmake = [c for c in found.files if c.language == "cmake" and buildsources.is_cmake(c.path)
             or c.language in buildsources.SCRIPT_LANGUAGES]  # and `nvcc -x cu` lines (porter.source.buildsources)
    if not cmake:
        return []
    key = None
    if cache is not None and all(c.blob is not None for c in cmake):
        h = hashlib.sha256(b"cmake-cuda-sources\0" + code_digest() + b"\0" + str(options.max_file_bytes).encode())
        for c in cmake:
            h.update(b"\0" + os.fsencode(c.path) + b"\0" + str(c.blob).encode())
        key = "cmakesrc-" + h.hexdigest()[:40]
        hit = cache.get(key)
        if isinstance(hit, tuple) and all(isinstance(t, str) for t in hit):
            return list(hit)
    texts: list[tuple[str, bytes]] = []
    unread = False
    total = 0
    for n, c in enumerate(cmake):
        try:
            data = held.read(source, c, options.max_file_bytes)
        except SourceReadError:
            unread = True
            continue  # said when the file itself is scanned
        total += len(data)
        if total > BUILD_TEXT_BYTES:
            if unseen is not None:
                unseen.extend(Skipped(d.path, BUILD_TEXT_PAST.format(BUILD_TEXT_BYTES // (1 << 20))) for d in cmake[n:])
            unread = True  # not cached: the answer is not the whole build's
            break
        texts.append((c.path, data))
    # which files may name CUDA sources, asked once here (each answer upper-cases a CMake file) and handed to the task
    naming = [buildsources.may_name_sources(path, data) for path, data in texts]
    if not any(naming):
        texts = []
    budget = stage_budget(file_budget(options), len(texts))
    if not texts:
        answer: Any = []
    elif pool is not None and pool.budget == budget:
        answer = [a for _, a in pool.map(_cmake_task, [(texts, naming)])][0]
    else:
        answer = run_stage(_cmake_task, (texts, naming), budget)
    if isinstance(answer, Overrun):
        notices.append(f"reading which sources CMake compiles as CUDA {answer.reason}; files it names are not read")
        return []
    if key is not None and cache is not None and not unread:
        cache.put(key, tuple(answer))
    return list(answer)


def _cmake_task(texts: list[tuple[str, bytes]], naming: list[bool]) -> list[str]:
    """What the build files in `texts` name as CUDA sources; `naming[i]`: whether texts[i] may name any."""
    decoded = [(path, data.decode("utf-8", "replace")) for path, data in texts]
    # the source lists every CMake file sets (`set(K src/k.cup)` in one, its LANGUAGE CUDA in another)
    variables = buildsources.cmake_variables([(p, t) for p, t in decoded if buildsources.is_cmake(p)])
    return [t for (path, text), names in zip(decoded, naming) if names
            for t in buildsources.cuda_sources(path, text, variables)]


# The most entries a CMake file(GLOB) is resolved against (a directory listing); past it the glob is listed unseen.
MAX_GLOB_ENTRIES = 20000


def _resolved_build_sources(source: Source, found: Discovery, named: list[str],
                            unseen: list[Skipped]) -> list[str]:
    """The paths of what the build files name as CUDA sources (_cmake_task): plain paths as they are, each
    file(GLOB) resolved against the tree's listing of its directory (Source.names_under, bounded by
    MAX_GLOB_ENTRIES) and matched as CMake matches (`*` within a name, `**`-free); a name porter cannot resolve,
    or a glob over too large a directory, listed unseen on the build file (a gate counts it: fail closed)."""
    out: list[str] = []
    for entry in dict.fromkeys(named):
        if entry.startswith(buildsources.UNSEEN_MARK):
            where, _, what = entry[len(buildsources.UNSEEN_MARK):].partition("\0")
            unseen.append(Skipped(where, f"the build compiles as CUDA {what}, which porter cannot resolve"))
        elif entry.startswith(buildsources.GLOB_MARK):
            directory, pattern, recursive = entry[len(buildsources.GLOB_MARK):].split("\0")
            names = source.names_under(directory, bool(recursive), MAX_GLOB_ENTRIES)
            if names is None:
                unseen.append(Skipped(directory or ".", f"a CMake file(GLOB) of {pattern} compiled as CUDA lists "
                                      f"more than {MAX_GLOB_ENTRIES:,} entries here: not resolved"))
                continue
            prefix = directory + "/" if directory else ""
            # CMake's GLOB: `*` stops at `/` in GLOB, crosses directories in GLOB_RECURSE
            rx = re.compile(("(?:.*/)?" if recursive else "") + fnmatch.translate(pattern).replace(".*", "[^/]*"))
            out.extend(prefix + n for n in names if rx.fullmatch(n) and language_of(n) != "cuda")
        else:
            out.append(entry)
    return out


def unlisted_includes(path: str, directives: Iterable[preprocessor.Directive],
                      elsewhere: Mapping[str, tuple[str, ...]] | None = None) -> list[str]:
    """The files `path`'s `#include "..."` and `#include <...>` directives name whose names give porter no language
    (`kern.txt`, `<kern/evil.txt>`), one entry per include: `path`, the name and the repository paths it may be,
    NUL-separated (INCLUDE_SEP), in the order a compiler with the project on its include path tries them - the
    includer's directory (quoted only), then each directory above it up to the root. A name with no file at any of
    them is read through an include directory porter does not follow: _included_unlisted lists it unseen. A
    computed include's macro not defined in `path` is read from `elsewhere` (the repository's
    preprocessor.include_macros). Extensionless angle names (`<vector>`, `<cuda/std/atomic>`) are the toolchain's."""
    out = []
    quoted = {(n, h) for n, h in preprocessor.quoted_includes(list(directives), elsewhere)}
    for n, header in preprocessor.quoted_includes(list(directives), elsewhere, angle=True):
        # A name porter reads as C/C++/CUDA is scanned as such already; any other (`kern.txt`, `kern.json`,
        # `kern.py`: the compiler reads it as C++ whatever porter's language for it) is followed. An extensionless
        # angle name (`<vector>`) is the toolchain's; an extensionless quoted one (`"kernels"`) is followed only to
        # a file in the tree (_included_unlisted lists no unseen for it: `"Eigen/Core"` on an include path).
        if language_of(header) == "cuda" or "." not in header.rsplit("/", 1)[-1] and (n, header) not in quoted:
            continue
        parts = path.split("/")[:-1]
        dirs = ["/".join(parts[:i]) + "/x" if i else "x" for i in range(len(parts), -1, -1)]
        if (n, header) not in quoted:
            dirs = dirs[1:] if parts else dirs  # `<...>` skips the includer's own directory
        cands = [t for t in dict.fromkeys(quoted_target(d, header) for d in dirs) if t is not None]
        if cands:
            out.append(INCLUDE_SEP.join((path, header, *cands)))
    # A computed include no reading of which names a file (`#include KFILE`, KFILE only from the build's -D): an
    # entry with no includer's place first (COMPUTED_INCLUDE), the includer and the include's text.
    out.extend(INCLUDE_SEP.join(("", path, text.replace(INCLUDE_SEP, " ")))
               for _line, text in preprocessor.unresolved_includes(list(directives), elsewhere))
    return out


# Separates an unlisted include's includer, name and candidate paths (git paths never hold a NUL).
INCLUDE_SEP = "\0"
UNFOUND_INCLUDE = "names a file with no source language that is not beside it or above it (an include directory?)"
COMPUTED_INCLUDE = "names its file through macros porter cannot resolve (the build's -D?)"


def scan_files(files: Iterable[Candidate], source: Source, options: Settings, ruleset: RuleSet, cache: Cache | None,
               facts: RepositoryFacts, progress: Callable[[int, int], None] | None = None,
               only: frozenset[str] | None = None, held: Held | None = None,
               untrusted: bool = False) -> list[tuple[FileResult, bool]]:
    """The per-file part of the scan for files already discovered, with the repository-wide facts given (history
    walks compute them per commit): each file's result, and whether it came from the cache."""
    state = _Worker(ruleset, frozenset(options.disabled_rules), cache, options.max_file_bytes, source,
                    dict(facts.macros), local_packages=facts.local_packages, headers=facts.headers,
                    constants=dict(facts.constants), budget=file_budget(options),
                    build_names=facts.build_names, alternatives=dict(facts.alternatives),
                    held=held if held is not None else Held())
    state.ctx.extra["local_packages"] = state.local_packages
    state.ctx.extra["repository_files"] = state.headers
    state.ctx.extra["rocm_names"] = facts.build_names[0]  # porter.match.refine: a test naming one covers HIP
    state.ctx.extra["cuda_names"] = facts.build_names[1]  # porter.match.kinds.arms: arms only the CUDA build takes
    state.ctx.extra["constants"] = state.constants  # named levels in #if tests (porter.match.kinds.arms)
    state.ctx.extra["trust_toolkit_copies"] = not untrusted  # porter.match.refine
    state.untrusted = untrusted
    # The ROCm release HIP facts are judged for: the `rocm` pattern modifier (porter.match.engine) and the cache key.
    state.rocm = state.ctx.extra["rocm"] = options.rocm or default_release()
    chosen = tuple(files) if only is None else tuple(c for c in files if c.path in only or c.target in only)
    return _scan_files(chosen, state, options.jobs, progress)


# The build files that may name nvcc's C++ standard (porter.match.refine_standard), and the most of one read.
_STANDARD_LANGUAGES = frozenset({"make", "cmake", "shell"})
_BUILD_FILE_BYTES = 4 * 1024 * 1024


def _budgeted_pass(fn: Callable[..., list[Finding]], args: tuple[Any, ...], budget: Budget | None, notices: list[str],
                   what: str, fallback: str, base: list[Finding]) -> list[Finding] | None:
    """fn(*args) under the stage budget; None (and a notice: what stopped, why, and what stands instead) past it.
    `base`: the findings the pass refines (one of `args`). Its worker inherited them, so it answers with where each
    finding of its output stands in `base` and only the findings that are not there (_pass_delta): a pass changes a
    few of a scan's thousands, and sending all of them back was most of the pass's cost (pickled in the worker,
    every Finding built again in the parent: 0.1 CPU-s of cuda-samples' 7,144, more than the pass itself)."""
    if budget is None:
        return fn(*args)
    answer = run_inherited(_pass_delta, (fn, args, base), budget)
    if isinstance(answer, Overrun):
        notices.append(f"{what} stopped: {answer.reason}; {fallback}")
        return None
    return _pass_applied(base, *answer)


def _pass_delta(fn: Callable[..., list[Finding]], args: tuple[Any, ...],
                base: list[Finding]) -> tuple[array[int], list[Finding]]:
    """fn(*args) as (for each finding of its output, its index in `base`, or -1 for the next of the new ones; the
    new ones, in order). A finding is found in `base` by identity: a pass hands on what it does not change."""
    out = fn(*args)
    where = {id(f): i for i, f in enumerate(base)}
    return array("q", [where.get(id(f), -1) for f in out]), [f for f in out if id(f) not in where]


def _pass_applied(base: list[Finding], positions: array[int], new: list[Finding]) -> list[Finding]:
    """The pass's output from _pass_delta's answer."""
    fresh = iter(new)
    return [base[i] if i >= 0 else next(fresh) for i in positions]


def _vector_operators(found: Discovery, results: list[FileResult], findings: list[Finding], ruleset: RuleSet,
                      only: frozenset[str] | None, disabled: frozenset[str]) -> list[Finding]:
    """porter.match.refine_vectors over the scan's C/C++/CUDA files: DEV053's uses reached through includes (in the
    scanned files: with `only`, those paths alone) and, on a whole scan, API009's unused definitions at info. From
    what each file's scan kept (FileResult.includes and .vectors): no file is read or parsed again."""
    rule = None if refine_vectors.USE_RULE in disabled else next(
        (r for r in ruleset.rules if r.id == refine_vectors.USE_RULE), None)
    sources = [c.path for c in found.files if c.language == "cuda"]
    files = {r.path: r for r in results if r.language == "cuda"}
    out = refine_vectors.reached_uses(findings, files, sources, rule)
    if only is not None:
        return sorted(f for f in out if f.rule != refine_vectors.USE_RULE or f.path in only or f in findings)
    return refine_vectors.unused_definitions(out) if rule is not None else out


def _asm_helpers(source: Source, found: Discovery, results: list[FileResult], findings: list[Finding],
                 held: Held | None) -> list[Finding]:
    """porter.match.refine_helpers over the scan's C/C++/CUDA files (a whole scan only): DEV001 in an inline device
    helper nothing in the repository calls reads info. Each file's own part comes from its result where its scan
    answered it (FileResult.asm_helpers); only the search for other files' mentions reads across files."""
    sources = {c.path: c.language for c in found.files if c.language == "cuda"}
    known = {r.path: (frozenset(r.asm_helpers.lines), r.asm_helpers.helpers) for r in results
             if r.asm_helpers is not None and r.language == sources.get(r.path)}
    return refine_helpers.unused_helpers(findings, sources, _scanned_reader(source, found, held), known)


def _scanned_reader(source: Source, found: Discovery, held: Held | None) -> Callable[[str], bytes | None]:
    """A scanned file's bytes by path for the cross-file passes (None when unreadable), through the run's held reads
    where there are some, so a file the scan already read is not read from its source again."""
    by_path = {c.path: c for c in found.files}

    def read(path: str) -> bytes | None:
        try:
            c = by_path[path]
            return held.read(source, c, _BUILD_FILE_BYTES) if held is not None else source.read(c, _BUILD_FILE_BYTES)
        except SourceReadError:
            return None

    return read


def _unreferenced(source: Source, found: Discovery, results: list[FileResult], findings: list[Finding],
                  held: Held | None) -> list[Finding]:
    """porter.match.refine_unreferenced over the scan's C/C++/CUDA files (a whole scan only): a finding inside a
    function no code of the repository reaches reads info. Each file's part comes from its result
    (FileResult.references, taken from the scan's own read and parse); only a file whose result lacks it (its scan
    skipped it) is read and parsed here."""
    sources = {c.path: c.language for c in found.files if c.language == "cuda"}
    known = {r.path: r.references for r in results if r.references is not None and r.language == sources.get(r.path)}
    return refine_unreferenced.unreferenced(findings, sources, _scanned_reader(source, found, held), known)


def _build_texts(source: Source, found: Discovery, held: Held | None) -> Iterable[tuple[str, str, bytes]]:
    """(path, language, bytes) of the tree's make, CMake and shell files and setup.py files, only when a finding
    asks, from `held` where the scan kept them (an unreadable one is left out: the file's own scan reports it)."""
    for c in found.files:
        if c.language in _STANDARD_LANGUAGES or c.path.rpartition("/")[2] == "setup.py":
            try:
                yield c.path, c.language, (held.read(source, c, _BUILD_FILE_BYTES) if held is not None
                                           else source.read(c, _BUILD_FILE_BYTES))
            except SourceReadError:
                continue


# The rule whose finding marks a vendored copy of a drop-in library (porter.match.kinds.library.match_vendored_copy).
VENDORED_COPY_RULE = "LIB019"


def fold_vendored_copies(findings: list[Finding], kernels: list[Any], launches: list[Any], untrusted: bool = False
                         ) -> tuple[list[Finding], list[Any], list[Any]]:
    """Findings, kernels and launches with each vendored library copy's (LIB019: `src/3rdparty/cub/...` below the
    copy's folder) folded into its LIB019 finding, whose message says how many findings it stands for: the copy is
    built from ROCm's counterpart of the library, not ported by hand. Files outside the copy keep theirs (the
    project's own uses of the library). Without a LIB019 finding (the rule not run, or a change that does not
    touch the copy's marker) nothing is folded.
    With `untrusted` (the files of a change under --isolated, or a baseline scan under it) nothing is folded either:
    the marker is a file's own claim (`#define CUB_VERSION` in a `cub/version.cuh` below `third_party/`), which a pull
    request can add beside its own kernels; the LIB019 finding stays, counting 0, as porter.match.refine does not take
    a toolkit header's say-so there."""
    roots = sorted({dict(f.data).get("root", "") for f in findings if f.rule == VENDORED_COPY_RULE} - {""})
    if not roots:
        return findings, kernels, launches
    prefixes = tuple(r + "/" for r in roots)

    def inside(path: str) -> str | None:
        return None if untrusted else next((r for r, p in zip(roots, prefixes) if path.startswith(p)), None)

    folded: dict[str, int] = dict.fromkeys(roots, 0)
    kept: list[Finding] = []
    for f in findings:
        root = None if f.rule == VENDORED_COPY_RULE else inside(f.path)
        if root is None:
            kept.append(f)
        else:
            folded[root] += 1
    out = []
    for f in kept:
        root = dict(f.data).get("root") if f.rule == VENDORED_COPY_RULE else None
        if root in folded:
            data = tuple(sorted((*((k, v) for k, v in f.data if k != "folded"), ("folded", folded[root]))))
            f = dataclasses.replace(f, message=f.message.replace("{folded}", str(folded[root])), data=data)
        out.append(f)
    return (out, [k for k in kernels if inside(k.path) is None], [l for l in launches if inside(l.path) is None])


def assemble(source: Source, found: Discovery, pairs: list[tuple[FileResult, bool]], ruleset: RuleSet,
             targets: tuple[Target, ...], notices: Iterable[str] = (), only: frozenset[str] | None = None,
             held: Held | None = None, disabled: frozenset[str] = frozenset(),
             budget: Budget | None = None, untrusted: bool = False) -> ScanResult:
    """The scan result from the files' results: sorted, with target notes, skips and the run's stats (with `only`,
    the discovery skips of those paths alone). Findings that hold only from C++17 on read info where the build
    pins nvcc to an older standard (porter.match.refine_standard), its files taken from `held` where kept; a
    project's vector compound operators are followed across includes (porter.match.refine_vectors, from what each
    file's scan kept), in a budgeted worker under `budget` (a stage's: the include graph's walk is the
    repository's size) when one is given. With `untrusted` no vendored library copy is folded
    (fold_vendored_copies)."""
    results = sorted((r for r, _ in pairs), key=lambda r: r.path)
    hits = sum(1 for _, hit in pairs if hit)
    # with `only`, the discovery skips of those paths, and the files a discovery did not keep (whichever they are)
    discovery_skips = found.skipped if only is None else tuple(
        s for s in found.skipped if s.path in only or s.reason.startswith(NOT_KEPT_FILES))
    skipped = sorted(set(discovery_skips) | {r.skipped for r in results if r.skipped is not None})
    found_here = sorted(f for r in results for f in r.findings)
    if any(f.rule in refine_standard.CXX17_RULES and f.severity > Severity.INFO for f in found_here):
        pinned = refine_standard.below_cxx17(refine_standard.named_standards(_build_texts(source, found, held)))
        if pinned is not None:
            found_here = refine_standard.accepted_before_cxx17(found_here, pinned)
    notices = list(notices)
    # The repository-wide passes that read across files, each in a budgeted worker: past its budget the per-file
    # findings stand (no use reached through includes, no definition or helper read unused), and the report says so.
    if any(f.rule == refine_vectors.DEFINITION_RULE and f.status is Status.OPEN for f in found_here):
        found_here = _budgeted_pass(_vector_operators, (found, results, found_here, ruleset, only, disabled), budget,
                                    notices, "following vector compound operators across includes",
                                    "DEV053 and API009 are as each file's own scan found them", found_here) or found_here
    if only is None and any(f.rule == refine_helpers.RULE and f.status is Status.OPEN and f.severity > Severity.INFO
                            for f in found_here):
        found_here = _budgeted_pass(_asm_helpers, (source, found, results, found_here, held), budget, notices,
                                    "looking for calls of inline PTX helpers",
                                    "DEV001 is as each file's own scan found it", found_here) or found_here
    if only is None and any(f.status is Status.OPEN and f.severity > Severity.INFO for f in found_here):
        found_here = _budgeted_pass(_unreferenced, (source, found, results, found_here, held), budget, notices,
                                    "looking for references to the functions holding open findings",
                                    "findings in functions nothing calls stay open", found_here) or found_here
    kernels = sorted(k for r in results for k in r.kernels)
    launch_list = sorted(l for r in results for l in r.launches)
    found_here, kernels, launch_list = fold_vendored_copies(found_here, kernels, launch_list, untrusted)
    findings = with_target_notes(found_here, ruleset, targets)
    suppressed = sorted(f for r in results for f in r.suppressed)
    prefix = source.prefix()
    return ScanResult(
        root=source.label,
        findings=tuple(findings),
        suppressed=tuple(suppressed),
        kernels=tuple(kernels),
        launches=tuple(launch_list),
        files=tuple(results),
        skipped=tuple(skipped),
        targets=tuple(t.id for t in targets),
        stats=ScanStats(cache_hits=hits, cache_misses=len(pairs) - hits, is_git=found.is_git, prefix=prefix,
                        notices=tuple(notices)),
        repository_prefix=prefix,
        rules=ruleset,
    )


@dataclass(frozen=True)
class RepositoryFacts:
    """What a file's result depends on beyond its own bytes, gathered from every file of the tree: qualifier macros
    (a kernel whose `__global__` hides behind a macro from another header), the project's Python packages and C/C++
    files (an import or include of one is not a dependency), and integer constants defined with one value
    repository-wide (kernel shared-memory sizes)."""

    macros: tuple[tuple[str, str], ...] = ()  # in first-definition order
    local_packages: frozenset[str] = frozenset()
    headers: frozenset[str] = frozenset()
    constants: tuple[tuple[str, int], ...] = ()  # sorted
    # Project macros that stand for one build (porter.source.preprocessor.derived_names: #define'd only in ROCm-only
    # arms, only in CUDA-only arms), so a device helper's CUDA-only branch (`#ifdef PTX_AVAILABLE`) reads as such.
    build_names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    # Integer constants defined with a few values (one per build: `kWarpSize` 32 or 64), sorted: a shared-memory
    # size from them is bounded by the largest it can be.
    alternatives: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # Files a C/C++/CUDA file `#include "..."`s whose names give porter no language (`kern.txt`, `k.cuinc`), sorted:
    # the compiler reads them as C++, so the scan reads them as such too (pipeline.scan, Source.included). Not in
    # `key`: a file's own result does not depend on them.
    unlisted_includes: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[object, ...]:
        return (tuple(sorted(self.macros)), self.local_packages, self.headers, self.constants, self.build_names,
                self.alternatives)


# One C/C++/CUDA file's part of the repository facts: its qualifier macros, its integer constants with the values each
# is defined with, and its preprocessor directives with its line count.
FileFacts = tuple[dict[str, str], dict[str, tuple[int, ...]], tuple[tuple[preprocessor.Directive, ...], int]]
# As the facts workers give them: with the file's uses (porter.filekey.uses_of) for a history walk's per-blob keys.
FileFactsUses = tuple[dict[str, str], dict[str, tuple[int, ...]], tuple[tuple[preprocessor.Directive, ...], int], str]
# What cached_repository_facts keeps of RepositoryFacts: macros, constants, build names, alternatives, unlisted includes.
Harvest = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, int], ...], tuple[frozenset[str], frozenset[str]],
                tuple[tuple[str, tuple[int, ...]], ...], tuple[str, ...]]


def file_facts(source: Source, c: Candidate, max_bytes: int) -> FileFacts:
    """One C/C++/CUDA file's contribution to the repository facts: its qualifier macros, integer constants and
    preprocessor directives with its line count."""
    try:
        data = source.read(c, max_bytes)
    except SourceReadError:
        return {}, {}, ((), 0)  # reported when the file itself is scanned
    return facts_of(preprocessor.as_compiled(data))


def facts_of(data: bytes) -> FileFacts:
    """file_facts of bytes already read (as preprocessor.as_compiled reads them, as the scan does)."""
    dirs = tuple(preprocessor.directives(data))
    # with the macros that spell a CUDA name at their uses (a utility header's `CAT(a, b) a##b`, `PTX_ASM asm`),
    # which every file's scan reads (preprocessor.with_known_spellings)
    return ({**harvest_macros(data), **preprocessor.spelling_macros(data)}, harvest_constant_values(data),
            (dirs, data.count(b"\n") + 1))


def repository_facts(files: Iterable[Candidate], per_file: Callable[[Candidate], FileFacts | FileFactsUses],
                     rocm_macros: Iterable[str] = ()) -> RepositoryFacts:
    """The facts of a tree from its files, each file's part from `per_file` (history walks memoise it by blob).
    A macro keeps its first definition; a constant defined with two values is left out. `rocm_macros`: the
    configuration's ROCm-side macros, which the build names start from (as port status's do)."""
    files = list(files)
    macros: dict[str, str] = {}
    values: dict[str, set[int]] = {}
    directives: dict[str, tuple[list[preprocessor.Directive], int]] = {}
    unlisted: set[str] = set()
    # `#include KERNEL` with `#define KERNEL "kern.gpu"` in another file (a config header): the macros every file
    # defines for a computed include, read before any file's includes are.
    include_macros: dict[str, tuple[str, ...]] = {}
    for c in files:
        if c.language == "cuda":
            for name, bodies in preprocessor.include_macros(per_file(c)[2][0]).items():
                include_macros[name] = tuple(dict.fromkeys((*include_macros.get(name, ()), *bodies)))
    for c in files:
        if c.language != "cuda":
            continue
        got = per_file(c)  # with the file's uses after its facts, from the facts workers
        found, defined, (listed, total) = got[0], got[1], got[2]
        unlisted.update(unlisted_includes(c.path, listed, include_macros))
        for name, body in sorted(found.items()):
            macros.setdefault(name, body)
        for name, value in defined.items():
            values.setdefault(name, set()).update(value if isinstance(value, tuple) else (value,))
        # A file ROCm-only by name or place (`hip/`, `*_hip.cu`) is all one side: its arms derive no build names
        # (as in port status, which takes these names).
        if listed and not rocm_path_evidence(c.path):
            directives[c.path] = (list(listed), total)
    rocm_macros = tuple(rocm_macros)
    build_names = (preprocessor.derived_names(directives, rocm_macros) if directives
                   else (frozenset(rocm_macros), frozenset()))
    constants = tuple(sorted((k, min(v)) for k, v in values.items() if len(v) == 1))
    alternatives = tuple(sorted((k, tuple(sorted(v))) for k, v in values.items() if 1 < len(v) <= MAX_ALTERNATIVES))
    return _with_listing(files, (tuple(macros.items()), constants, build_names, alternatives, tuple(sorted(unlisted))))


def _with_listing(files: list[Candidate], harvested: Harvest) -> RepositoryFacts:
    """RepositoryFacts of what the files' contents gave (macros, constants, build names, alternatives: the part
    cached_repository_facts keeps) and what their listing gives (local packages, headers)."""
    macros, constants, build_names, alternatives, unlisted = harvested
    return RepositoryFacts(macros, local_python_packages(files),
                           frozenset(c.path for c in files if c.language == "cuda"), constants, build_names,
                           alternatives, unlisted)


FACTS_FORMAT = b"repository-facts-2"
# One file's facts (file_facts) in the cache, named by its content alone: they are a function of its bytes.
FILE_FACTS_FORMAT = b"file-facts-1"


def _file_facts_key(content: bytes, max_bytes: int) -> str:
    """The cache key of one file's facts: its content (`blob\\0<git blob id>` or `sha256\\0<digest of its bytes>`),
    the read limit and porter's code (which decides what the facts are)."""
    h = hashlib.sha256(b"\0".join((FILE_FACTS_FORMAT, code_digest(), str(max_bytes).encode(), content)))
    return "file-facts-" + h.hexdigest()[:40]


def _file_facts_entry(facts: FileFacts) -> tuple[Any, ...]:
    """One file's facts as the cache keeps them: plain tuples (a Directive is not a cache type)."""
    macros, constants, (dirs, lines) = facts
    return (tuple(macros.items()), tuple(constants.items()),
            tuple((d.line, d.end_line, d.kind, d.text) for d in dirs), lines)


def _file_facts_of_entry(value: Any) -> FileFacts | None:
    """The facts _file_facts_entry kept, or None when `value` is not of that shape (then a miss)."""
    if not (isinstance(value, tuple) and len(value) == 4):
        return None
    macros, constants, dirs, lines = value
    if not (type(lines) is int and lines > 0
            and isinstance(macros, tuple) and all(isinstance(m, tuple) and len(m) == 2
                                                  and all(isinstance(x, str) for x in m) for m in macros)
            and isinstance(constants, tuple) and all(isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], str)
                                                     and isinstance(k[1], tuple) and all(type(v) is int for v in k[1])
                                                     for k in constants)
            and isinstance(dirs, tuple) and all(isinstance(d, tuple) and len(d) == 4 and type(d[0]) is int
                                                and type(d[1]) is int and isinstance(d[2], str)
                                                and isinstance(d[3], str) for d in dirs)):
        return None
    return dict(macros), dict(constants), (tuple(preprocessor.Directive(*d) for d in dirs), lines)
# How many rounds of `#include "kern.txt"` (files of no known language that C/C++/CUDA sources include) a scan
# follows: each round reads the files the last one added; past this, deeper ones are not listed.
MAX_INCLUDE_DEPTH = 8
# Bytes of files a scan keeps after reading them once (Held): the repository facts, the scan and port status all take
# them from there. Past this, a file is read again where it is needed (each C/C++ file once more at most).
READ_KEPT_BYTES = 256 * 1024 * 1024


@dataclass
class Held:
    """The bytes of each file a scan has read (up to `budget` bytes in all), and their digests: every stage of the
    scan takes a file from here, so each is read from its source once (forked workers inherit what the scan's
    process read before they started). Held by path and blob id, since a history walk scans several versions of one
    path at once. An unreadable file's reason is kept too, so it is not tried twice."""

    budget: int = READ_KEPT_BYTES
    data: dict[tuple[str, str | None], bytes] = field(default_factory=dict)
    failed: dict[tuple[str, str | None], str] = field(default_factory=dict)
    digests: dict[tuple[str, str | None], bytes] = field(default_factory=dict)
    kept: int = 0
    # A held C/C++/CUDA file's comment spans (porter.source.preprocessor.comment_spans of its bytes as compiled), as
    # the repository-facts workers lexed them: the file's scan blanks its comments from them instead of lexing again.
    spans: dict[tuple[str, str | None], array[int]] = field(default_factory=dict)

    def read(self, source: Source, c: Candidate, limit: int) -> bytes:
        """The file's bytes: held, else read from `source` (and held while the budget lasts)."""
        key = (c.path, c.blob)
        found = self.data.get(key)
        if found is not None:
            return found
        if key in self.failed:
            raise SourceReadError(self.failed[key])
        try:
            data = source.read(c, limit)
        except SourceReadError as e:
            self.failed[key] = str(e)
            raise
        if self.kept + len(data) <= self.budget:
            self.data[key] = data
            self.kept += len(data)
        return data

    def get(self, c: Candidate) -> bytes | None:
        return self.data.get((c.path, c.blob))

    def digest(self, c: Candidate, data: bytes) -> bytes:
        """sha256 of a file's bytes, once per file however many cache keys name it."""
        key = (c.path, c.blob)
        found = self.digests.get(key)
        if found is None:
            found = hashlib.sha256(data).digest()
            if key in self.data:
                self.digests[key] = found
        return found


def cached_repository_facts(files: Iterable[Candidate], source: Source, max_bytes: int, cache: Cache | None,
                            budget: Budget = Budget(), jobs: int = 1,
                            notices: list[str] | None = None, rocm_macros: Iterable[str] = (),
                            held: Held | None = None, pool: Pool | None = None) -> RepositoryFacts:
    """repository_facts of a tree's files (file_facts of each, lexed in budgeted workers: porter.budget), kept in
    the cache as one entry named by every C/C++/CUDA file's path and content (its blob id, else a hash of its
    bytes) and porter's code, so a warm re-scan hashes the files instead of lexing and harvesting each one again.
    A file whose facts run out of `budget` adds nothing to them, and a line to `notices` says so. Files are read
    into `held` (the scan's), which the scan's later stages read from."""
    files = list(files)
    held = held if held is not None else Held()
    key = None
    file_keys: dict[str, str] = {}  # each readable C/C++/CUDA file's own facts entry (_file_facts_key)
    if cache is not None:
        h = hashlib.sha256(b"\0".join((FACTS_FORMAT, code_digest(), str(max_bytes).encode(),
                                       ",".join(rocm_macros).encode())))
        for c in files:
            if c.language != "cuda":
                continue
            if c.blob is not None:
                content = c.blob.encode()
                file_keys[c.path] = _file_facts_key(b"blob\0" + content, max_bytes)
            else:
                try:
                    data = held.read(source, c, max_bytes)
                except SourceReadError:
                    content = b"unreadable"
                else:
                    content = held.digest(c, data)
                    file_keys[c.path] = _file_facts_key(b"sha256\0" + content, max_bytes)
            h.update(b"\0" + os.fsencode(c.path) + b"\0" + content)
        key = "facts-" + h.hexdigest()[:40]
        hit = cache.get(key)
        if _facts_entry(hit):
            return _with_listing(files, hit)
    # The whole tree's entry missed (a file changed, came or went): each unchanged file's own facts are still
    # in the cache, so only the files whose content is new are lexed again (one edit: one file, not the tree).
    known: dict[str, FileFacts] = {}
    if cache is not None:
        for c in files:
            if c.path in file_keys:
                found = _file_facts_of_entry(cache.get(file_keys[c.path]))
                if found is not None:
                    known[c.path] = found
    for c in files:  # read here, once, for the facts workers and the scan after them
        if c.language == "cuda":
            try:
                held.read(source, c, max_bytes)
            except SourceReadError:
                pass  # said when the file itself is scanned
    harvested, whole = harvest_file_facts([c for c in files if c.path not in known], source, max_bytes, held,
                                          budget, jobs, notices,
                                          pool=pool if pool is not None and pool.budget == budget else None)
    if cache is not None:
        for path, got in harvested.items():
            # a file read in the parent and lexed to its line count; ({}, {}, ((), 0)) is one its worker could not
            # read, which its scan reports (not kept: the next scan tries again)
            if path in file_keys and len(got) == 3 and got[2][1] > 0:
                cache.put(file_keys[path], _file_facts_entry(got))
    harvested = {**known, **harvested}
    # Which macros stand for one build is worked out over every file's directives (porter.source.preprocessor): repository
    # content too, so it runs under the budget of a stage; past it the facts are the per-file ones alone.
    inputs = (files, harvested, rocm_macros)
    if sum(len(h[2][0]) for h in harvested.values() if len(h) > 2) <= FEW_DIRECTIVES:
        answer = _aggregate_task(*inputs)  # linear in the directives, so this few are bounded here without a fork
    else:
        answer = run_inherited(_aggregate_task, inputs, stage_budget(budget, len(harvested)))
    if isinstance(answer, Overrun):
        if notices is not None:
            notices.append(f"working out which macros stand for one build {answer.reason}; "
                           "device helpers' build-only branches are not told apart")
        facts = repository_facts(files, lambda c: (*harvested.get(c.path, ({}, {}))[:2], ((), 0)), rocm_macros)
    else:
        facts = answer
    if cache is not None and key is not None and whole and not isinstance(answer, Overrun):
        # Not kept when a file's facts ran out of time or memory (that depends on the machine's load, and the
        # notice saying so must come again) or failed (the next porter version retries it).
        cache.put(key, (facts.macros, facts.constants, facts.build_names, facts.alternatives, facts.unlisted_includes))
    return facts


# How much work (bytes of files) each parser worker past the first must have before it is started. A worker costs
# its fork whatever it then does: the parent's page tables copied and torn down again (CPU that grows with the
# parent's memory: ~7 ms a worker from a 55 MiB `porter scan`, ~12 ms from a 100 MiB test process, measured) and
# what the worker builds for its first file. A small tree's scan with the default --jobs (all cores) forked two
# facts workers and two scan workers for a few files, a third of its CPU (bench/issue26-speed.md, session 21).
# Scanning runs at ~1.3 MB per CPU-second (cuda-samples) and lexing for the repository facts at ~30, so these
# give each further worker ~0.2 s of work, ten times its start. Fewer workers change no answer (a file's result
# does not depend on which worker scanned it: tests/test_scan_core.py) and no limit: each task still runs in a
# budgeted worker under its own clock and memory cap; only a tree this small is not spread over every core.
SCAN_BYTES_PER_WORKER = 256 * 1024
FACTS_BYTES_PER_WORKER = 6 * 1024 * 1024
# A file whose size the scan does not know yet (not read: a Python or build file in a work tree) counts as this much.
UNKNOWN_FILE_BYTES = 8 * 1024


def pool_size(jobs: int, sizes: list[int], per_worker: int) -> int:
    """How many parser workers to start for tasks of these sizes (bytes) under --jobs `jobs` (0: all cores): one
    for each `per_worker` bytes of them (at least one), never more than `jobs` or the tasks."""
    most = min(jobs or os.cpu_count() or 1, len(sizes))
    return max(1, min(most, sum(sizes) // max(1, per_worker)))


def _work_bytes(c: Candidate, held: Held) -> int:
    """A file's size as far as the scan knows it without another system call: its bytes held, its blob's size."""
    data = held.get(c)
    if data is not None:
        return len(data)
    return c.size if c.size is not None else UNKNOWN_FILE_BYTES


# Directives (of all files) that the build-name evaluation takes in the scan's process: it is linear in them (~50 us
# each), so this many take well under a second; more go to a budgeted worker like any other repository content.
FEW_DIRECTIVES = 10_000
# What the facts workers read from (set before they fork: they inherit it, nothing is pickled).
_FACTS_INPUT: tuple[Any, ...] = ()


def harvest_file_facts(files: list[Candidate], source: Source, max_bytes: int, read: Held, budget: Budget,
             jobs: int, notices: list[str] | None, uses: bool = False,
             pool: Pool | None = None) -> tuple[dict[str, FileFacts | FileFactsUses], bool]:
    """file_facts of each C/C++/CUDA file, lexed in budgeted workers (`read`: bytes the parent already has), and
    whether every file gave its facts; with `uses`, each file's porter.filekey.uses_of after them (a history walk
    keys its per-blob results with it). `pool`: a pool of `budget` to run them in and leave open for its owner's
    next stage, when it has started no worker yet (a worker forked earlier holds no input of this stage)."""
    global _FACTS_INPUT
    todo = [c for c in files if c.language == "cuda"]
    if not todo:
        return {}, True
    out: dict[str, FileFacts | FileFactsUses] = {}
    whole = True
    workers = pool_size(jobs, [_work_bytes(c, read) for c in todo], FACTS_BYTES_PER_WORKER)
    _FACTS_INPUT = (source, max_bytes, read, uses)
    shared = pool is not None and pool.started == 0 and pool.budget == budget
    try:
        with contextlib.nullcontext(pool) if shared else Pool(budget, workers) as pool:
            assert pool is not None
            pool.workers = workers
            for i, answer in pool.map(_facts_task, [(c,) for c in todo],
                                      chunk=max(1, min(64, len(todo) // (workers * 8) or 1))):
                if isinstance(answer, (Overrun, str)):
                    whole = False
                    if notices is not None:
                        why = answer.reason if isinstance(answer, Overrun) else f"failed ({answer.removeprefix(INTERNAL_ERROR + ': ')}"
                        notices.append(f"{todo[i].path}: reading its macros and constants {why}; other files are "
                                       "scanned without them")
                else:
                    if isinstance(answer, _Lexed):
                        read.spans[(todo[i].path, todo[i].blob)] = answer.spans
                        answer = answer.facts
                    out[todo[i].path] = answer
    finally:
        _FACTS_INPUT = ()
    return out, whole


class _Lexed(NamedTuple):
    """A facts worker's answer for a held file, with the comment spans of its bytes as compiled (see Held.spans)."""

    facts: FileFacts | FileFactsUses
    spans: array[int]  # flat: start, end, start, end, ...


def _aggregate_task(files: list[Candidate], harvested: dict[str, FileFacts | FileFactsUses],
                    rocm_macros: Iterable[str]) -> RepositoryFacts:
    return repository_facts(files, lambda c: harvested.get(c.path, ({}, {}, ((), 0))), rocm_macros)


def _facts_task(c: Candidate) -> FileFacts | FileFactsUses | _Lexed | str:
    """A facts worker's part: one file's facts (nothing from a file porter cannot lex: its own scan says why), with
    its comment spans when the scan's process holds the file (the scan then reads these very bytes)."""
    source, max_bytes, read, uses = _FACTS_INPUT
    try:
        try:
            data = read.read(source, c, max_bytes)  # held by the scan's process unless past its budget
        except SourceReadError:
            return {}, {}, ((), 0)  # reported when the file itself is scanned
        held = read.get(c) is not None
        data = preprocessor.as_compiled(data)  # as the file's scan reads it (scan_candidate)
        # Lexed once here for the directives (facts_of) and, handed back, for the scan's parse of the same bytes.
        spans = preprocessor.comment_spans(data) if held and preprocessor.may_hold_directives(data) else None
        facts = (*facts_of(data), filekey.uses_of(data)) if uses else facts_of(data)
        return _Lexed(facts, spans) if spans is not None else facts
    except Exception as e:  # noqa: BLE001 - said in the scan's notices, never an internal error of the whole scan
        return f"{INTERNAL_ERROR}: {type(e).__name__}: {str(e)[:200]})"


def _facts_entry(value: Any) -> TypeGuard[Harvest]:
    """Whether a cache entry has the shape cached_repository_facts writes (else it is a miss)."""
    if not (isinstance(value, tuple) and len(value) == 5):
        return False
    macros, constants, build_names, alternatives, unlisted = value
    return (isinstance(unlisted, tuple) and all(isinstance(u, str) for u in unlisted)
            and isinstance(macros, tuple) and all(isinstance(m, tuple) and len(m) == 2 and all(isinstance(x, str) for x in m)
                                              for m in macros)
            and isinstance(constants, tuple) and all(isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], str)
                                                     and type(k[1]) is int for k in constants)
            and isinstance(build_names, tuple) and len(build_names) == 2
            and all(isinstance(n, frozenset) and all(isinstance(x, str) for x in n) for n in build_names)
            and isinstance(alternatives, tuple)
            and all(isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str) and isinstance(a[1], tuple)
                    and all(type(v) is int for v in a[1]) for a in alternatives))


def local_python_packages(files: Iterable[Candidate]) -> frozenset[str]:
    """Top-level packages the repository itself holds (a directory with __init__.py whose parent has none), so
    `import flash_attn.ops` inside flash-attention is the project's own code, not a dependency on flash-attn."""
    inits = {PurePosixPath(c.path).parent for c in files if PurePosixPath(c.path).name == "__init__.py"}
    return frozenset(d.name for d in inits if d.name and d.parent not in inits)


def _scan_files(files: Iterable[Candidate], state: _Worker, jobs: int,
                progress: Callable[[int, int], None] | None) -> list[tuple[FileResult, bool]]:
    """Each file's result and whether it came from the cache, in the order of `files` (a history walk scans
    several versions of one path at once and tells them apart by position). Cache hits are served here; every
    miss is scanned in a budgeted worker (porter.budget), whatever `jobs` says, so a file no Python timer can stop
    (tree-sitter in C) is killed at its budget and listed as skipped."""
    files = list(files)
    total = len(files)
    jobs = jobs or os.cpu_count() or 1
    _init_worker(state)
    out: list[tuple[FileResult, bool] | None] = [None] * total
    keep = _Kept(files, out, MAX_KEPT)
    todo = list(range(total))
    if state.cache is not None:
        # Cache hits are served here, so an unchanged repository never pays for starting worker processes.
        todo = []
        # No cycle collection while the hits are decoded (porter.cache.collector_paused): each entry's decode
        # paused it alone, and the collections between entries walked every result decoded so far, again and again.
        # The results are the scan's to its end (kept: exempted from the collector after, where the process ends
        # with this command).
        with collector_paused(kept=True):
            for i, c in enumerate(files):
                if i >= keep.bound:
                    keep.put(i, None)
                    continue
                if (late := deadline_passed()) is not None:  # decoding hits is work past the deadline too
                    keep.put(i, (_skip(c, overrun_reason(late, "to scan")), False))
                    continue
                result, hit = scan_candidate(c, compute=False)
                if result is None:
                    todo.append(i)
                else:
                    keep.put(i, (result, hit))
        if progress and len(todo) < total:
            progress(total - len(todo), total)
    done = total - len(todo)
    if not todo:
        return out  # type: ignore[return-value]
    _prepare(state)
    _warm(state, {files[i].language for i in todo})
    workers = pool_size(jobs, [_work_bytes(files[i], state.held) for i in todo], SCAN_BYTES_PER_WORKER)
    # Chunks big enough to amortise process hand-off, small enough to balance uneven file sizes.
    size = max(1, min(64, len(todo) // (workers * 8) or 1))
    with Pool(state.budget, workers, init=_init_pool_worker) as pool:
        for n, answer in pool.map(_scan_one, [(files[i],) for i in todo], chunk=size):
            i = todo[n]
            if isinstance(answer, Overrun):
                keep.put(i, (_skip(files[i], overrun_reason(answer, "to scan")), False))
            else:
                pair, entries = answer
                if state.cache is not None:
                    state.cache.adopt(entries)  # written with this scan's other entries, as one pack
                keep.put(i, pair)
            done += 1
            if progress:
                progress(done, total)
    return out  # type: ignore[return-value]


def _kept_size(r: FileResult) -> int:
    return len(r.findings) + len(r.suppressed) + len(r.kernels) + len(r.launches) + len(r.helpers)


class _Kept:
    """The files' results a scan keeps, at most `cap` items (_kept_size) in all: the longest run of files from the
    first, in the order given, whose results fit; every later file is skipped with the reason. Results arrive in
    any order (workers answer as they finish); past the cap the kept result of the last file is dropped, and every
    file from there on, until the rest fit again. The outcome is the same prefix for any order of arrival, and no
    more than the cap plus one file's result is ever held."""

    def __init__(self, files: list[Candidate], out: list[tuple[FileResult, bool] | None], cap: int):
        self.files, self.out, self.cap = files, out, cap
        self.total = 0
        self.bound = len(files)  # every file from this index on is skipped
        self.held: list[int] = []  # a max-heap (negated) of the indices whose results count towards total

    def _skipped(self, i: int) -> tuple[FileResult, bool]:
        return (_skip(self.files[i], f"not kept: past {self.cap:,} findings, kernels and launches, the most porter "
                                     "keeps from one scan"), False)

    def put(self, i: int, pair: tuple[FileResult, bool] | None) -> None:
        """File `i`'s result (None: one past the bound, not computed)."""
        if i >= self.bound or pair is None:
            self.out[i] = self._skipped(i)
            return
        self.out[i] = pair
        n = _kept_size(pair[0])
        if n:
            heapq.heappush(self.held, -i)
            self.total += n
        while self.total > self.cap:
            j = -heapq.heappop(self.held)
            self.total -= _kept_size(self.out[j][0])  # type: ignore[index]
            for k in range(j, self.bound):
                if self.out[k] is not None:
                    self.out[k] = self._skipped(k)
            self.bound = j


def _warm(state: _Worker, languages: set[str]) -> None:
    """Before forking parser workers: the work each would otherwise repeat for its first file, which reads no
    repository content (porter's modules, the knowledge base's token set and library map, the whole-file queries
    compiled). Done once per process, it is inherited by every worker of every scan (a test session, a history
    walk), and a -j1 scan pays it once either way."""
    from porter.kernels import facts  # noqa: F401 - imported by the first kernel's measurement, and registers queries
    from porter.source.parse_queries import warm_queries

    if languages & {"cuda", "python"}:
        state.ctx.kb_tokens, state.ctx.libraries  # noqa: B018 - cached properties, computed here once
        # A repository's or user's rule adds its queries to the combined one: compiling that is left to each
        # worker, under its first file's budget, never done here with no clock.
        if not any(r.external and r.has_query for r in state.ruleset.rules):
            for lang in sorted(languages & {"cuda", "python"}):
                warm_queries(lang)


def overrun_reason(o: Overrun, doing: str) -> str:
    """A skip reason for a file whose work (`doing`: "to scan") ran out of its budget or killed its worker."""
    if o.kind == "deadline":
        return f"{o.reason} before porter got {doing}; skipped"
    if o.kind == "time":
        return f"{o.reason} {doing}; skipped (a generated or pathological file?)"
    if o.kind == "memory":
        return f"{o.reason} {doing}; skipped"
    return f"{o.reason} {doing}; skipped (please report it)"


def _scan_one(c: Candidate) -> tuple[tuple[FileResult, bool], dict[str, bytes]]:
    """A worker's part: a file's result, and the cache entries it made (encoded) for the scan's process."""
    assert _STATE is not None, "worker not initialised"
    result, hit = scan_candidate(c)
    assert result is not None, "a file asked to be computed is scanned"
    return (result, hit), (_STATE.cache.take() if _STATE.cache is not None else {})


def scan_candidate(c: Candidate, compute: bool = True) -> tuple[FileResult | None, bool]:
    """Read, cache-check and scan one discovered file (runs in a worker); True when it came from the cache.
    With compute=False a cache miss returns (None, False) instead of scanning."""
    assert _STATE is not None, "worker not initialised"
    st = _STATE
    if c.language == "binary":
        return _scan_binary(c, st, compute)
    if c.blob is not None and st.cache is not None:
        # A git blob id names the content: a cache hit needs no read at all.
        hit = _cache_get(c, _key(c, c.blob.encode(), st), st, st.cache)
        if isinstance(hit, FileResult):
            return hit, True
        if not compute:
            return None, False
    try:
        data = st.held.read(st.source, c, st.max_file_bytes)
    except SourceReadError as e:
        return _skip(c, str(e)), False
    if c.language != "cuda" and b"\0" in data[:TEXT_SNIFF_BYTES]:
        return _skip(c, "binary file (NUL bytes) where text was expected"), False
    if c.language in ("cuda", "python") and data.startswith(LFS_POINTER) and len(data) < 1024:
        # A checkout with Git LFS writes the real file here, which the build compiles; porter never fetches it.
        return _skip(c, "a Git LFS pointer: the file's content is not in the repository, and porter does not "
                        "fetch it"), False
    if data.count(b"\n") > MAX_LINES:
        # Each line costs parse-tree nodes and index entries (~0.5 KiB): a 4M-line file would need gigabytes.
        return _skip(c, f"has more than {MAX_LINES:,} lines (generated?); skipped"), False
    # The content's id names the file's cache entry, and only that: without a cache no file is hashed (a sha256 of
    # every file scanned, in the worker, whose digests never reach the scan's process).
    content_id = b"" if st.cache is None else c.blob.encode() if c.blob is not None else st.held.digest(c, data)
    # The file's readings below are made only when the file is scanned: its cache key names its bytes as read, so a
    # hit needs none of them (a warm re-scan made both C/C++ readings of every unchanged file, ~0.04 CPU-s on
    # FasterTransformer's 765, only to find each one's result cached).
    read = functools.cache(lambda: _readings(c, data, st))
    return _cached(c, content_id, st, lambda: _guarded(c, lambda: _scan_read(c, read(), st)), compute,
                   lambda: read()[1])


def _readings(c: Candidate, data: bytes, st: _Worker) -> tuple[bytes, bytes]:
    """(the bytes a file is scanned as, the bytes its cache entry's facts are named by) for a file's bytes as read."""
    if c.language == "cuda":
        # What nvcc compiles, not what a line-by-line reader sees: a NUL byte or a token split by a line splice hid
        # a kernel from the PR gate. Same length and lines, so every offset stays the file's own. (Here, in the
        # budgeted worker: a file of millions of splices takes seconds.)
        own = preprocessor.as_compiled(data)  # the file's bytes as its own macros read them (uses_of names them)
        # and the uses of macros other files define that spell a CUDA name (`CAT(__shfl_down, _sync)` with CAT from
        # a utility header, `PTX_ASM(...)`): read as that name, as the file's own macros' uses are
        return preprocessor.with_known_spellings(own, st.spellings()), own
    if c.language in ("python", "requirements", "yaml"):
        # CPython (universal newlines), pip (str.splitlines) and YAML end a line at a lone CR too: a CR-only file is
        # not one line (a comment to its end when it began with one).
        data = preprocessor.lone_cr_as_lf(data)
        if c.language == "python":
            data = python_names_as_read(data)
    return data, data


def _scan_read(c: Candidate, readings: tuple[bytes, bytes], st: _Worker) -> FileResult:
    data, own = readings
    # the comment spans the facts stage lexed from the file's own reading (not these bytes when another file's
    # macro was read in them: a use's line may have moved)
    spans = st.held.spans.get((c.path, c.blob)) if c.language == "cuda" and data is own else None
    return scan_source(c.path, c.language, data, st, comment_spans=spans)


def _scan_binary(c: Candidate, st: _Worker, compute: bool = True) -> tuple[FileResult | None, bool]:
    try:
        head, size = st.source.head(c, BINARY_HEAD_BYTES)
    except SourceReadError as e:
        return _skip(c, str(e)), False
    opener: Callable[[], io.BytesIO] = functools.partial(_open_whole, st.source, c, st.max_file_bytes)
    key_data = b""
    if st.cache is not None:
        key_data, whole = _binary_key(c, head, size, st)
        if whole is not None:
            opener = functools.partial(io.BytesIO, whole)  # read once: for the key and for the matchers
    return _cached(c, key_data, st,
                   lambda: _guarded(c, lambda: scan_source(c.path, "binary", head, st, opener=opener, size=size)),
                   compute)


def _binary_key(c: Candidate, head: bytes, size: int, st: _Worker) -> tuple[bytes, bytes | None]:
    """What a binary file's cache key covers, and its whole bytes when they were read for it. Its whole content: a
    git blob by its id, a work-tree file (within the size limit, past which the matchers see only its head) by a
    hash of all its bytes. Keyed by its first 64 KiB and size, two wheels alike there but not in their central
    directory (at the end) shared one entry: the second scan was served the first's findings. Each kind of key is
    prefixed, so a blob id can never equal a file's head bytes."""
    if c.blob is not None:
        return b"blob:" + c.blob.encode() + b"\0size:" + str(size).encode(), None
    if size <= st.max_file_bytes:
        try:
            whole = st.source.read(c, st.max_file_bytes)
        except SourceReadError:
            whole = None  # the matchers' own read reports it
        if whole is not None:
            return b"sha256:" + hashlib.sha256(whole).digest() + b"\0size:" + str(len(whole)).encode(), whole
    return b"head:" + head + b"\0size:" + str(size).encode(), None


def _open_whole(source: Source, c: Candidate, limit: int) -> io.BytesIO:
    """A binary matcher's view of the whole file (ELF sections, wheel members), read through the source, bounded."""
    try:
        return io.BytesIO(source.read(c, limit))
    except SourceReadError as e:
        raise SkipFile(str(e)) from None


def scan_source(path: str, language: str, data: bytes, st: _Worker | None = None,
                opener: Callable[[], io.BytesIO] | None = None, size: int | None = None,
                comment_spans: Sequence[int] | None = None) -> FileResult:
    """Scan bytes already in memory as `language`; the single-file core used by workers and tests.
    `comment_spans`: porter.source.preprocessor.comment_spans(data), when the repository facts' lex gave them."""
    from porter.match.engine import rule_applies_to, run_rules

    st = st or _STATE
    assert st is not None, "worker not initialised"
    rules = [r for r in st.rules_for(language) if not r.files or rule_applies_to(r, path, language)]
    sf = parse(path, language, data, st.macros, comment_spans)
    if opener is not None:
        sf.opener = opener
        sf.size = size
    try:
        findings, suppressed = run_rules(sf, rules, st.ctx)
    except SkipFile as e:  # a matcher could not read the file (malformed JSON/YAML/TOML/Dockerfile/CMake/ELF)
        return FileResult(path, language, sf.lines if language != "binary" else 0, skipped=Skipped(path, str(e)))
    kern = tuple(measure(sf, st.constants, st.alternatives)) if language == "cuda" else ()
    helpers = device_helpers(sf, st.constants, st.build_names) if language == "cuda" else ()
    launch_list = tuple(launches.launches(sf)) if language == "cuda" else ()
    triton_helpers: tuple[TritonHelper, ...] = ()
    if language == "python" and (b"triton" in data or b"num_warps" in data):  # Triton: other files pay nothing
        triton_kernels, triton_launches, jit_functions = measure_triton(sf)
        kern, launch_list, triton_helpers = tuple(triton_kernels), tuple(triton_launches), tuple(jit_functions)
    port = None
    # The port-status stage's facts of this file from this read and parse (it would read and parse it again);
    # Python files only where that stage looks (findings, kernels, setup.py, ROCm-side rewrites of kernel source).
    if language in ("cuda", "cmake") or (language == "python" and (findings or kern or path.endswith("setup.py")
                                                                   or port_status.may_rewrite(data))):
        tree = sf if language != "cuda" or parses_alike(data, st.macros) else None
        port = port_status.file_facts(path, language, data, tree,
                                      preprocessor.preprocessed(sf) if language == "cuda" else None)
        if language == "cuda" and findings:
            # The lines findings are on, for port status's compat-layer lookup (it would read the file again), and
            # the lines kernels name WMMA / async-copy features on (KernelFacts.feature_lines: the lines of those
            # checks, which port status reads the same way: `wmma::` under a ROCm arm's `namespace wmma = rocwmma;`).
            named = {line for x in (*kern, *helpers) if x.facts is not None for _, line in x.facts.feature_lines}
            port = dataclasses.replace(port, finding_lines=tuple(sorted(
                {(n, sf.line_text(n)) for n in {f.line for f in findings} | named})))
    # The cross-module Python guard reading's part of this file (porter.portaware.pymodules), from this read and
    # parse: port status joins the project's modules from these and reads none of them again.
    py_module = pymodules.module_facts(path, data, sf, bool(findings or kern)) if language == "python" else None
    asm_helpers = None
    asm_lines = sorted({f.line for f in findings if f.rule == refine_helpers.RULE}) if language == "cuda" else ()
    if asm_lines and parses_alike(data, st.macros):
        # The unused-PTX-helper pass's per-file part, on this parse (the pass parses without the repository's
        # macros, hence only where they change nothing): cached with this result, so a re-scan does it for the
        # changed files alone and the pass parses none.
        asm_helpers = AsmHelpers(tuple(asm_lines), refine_helpers.file_helpers(path, language, data, asm_lines, sf))
    # The unreferenced-function pass's part of this file (porter.match.refine_unreferenced), from this read and a
    # parse without the repository's macros (the scan's own where they change nothing): cached with this result, so
    # that pass reads and parses no file.
    references = None
    if language == "cuda" and len(data) <= _BUILD_FILE_BYTES:  # the pass searches no larger file
        references = refine_unreferenced.reference_facts(
            path, language, data, sf if parses_alike(data, st.macros) else parse(path, language, data))
    return FileResult(
        path=path,
        language=language,
        lines=sf.lines if language != "binary" else 0,
        findings=tuple(findings),
        suppressed=tuple(suppressed),
        kernels=kern,
        launches=launch_list,
        parse_error_lines=sf.error_lines,
        helpers=helpers,
        includes=file_includes(sf) if language == "cuda" else (),
        complex_aliases=complex_aliases_of(data) if language == "cuda" else (),
        complex_operators=complex_operators_of(data) if language == "cuda" else (),
        type_aliases=type_aliases_of(sf.code) if language == "cuda" else (),
        triton_helpers=triton_helpers,
        launchers=launchers_of(sf) if language == "cuda" else (),
        passed=passed_names(sf) if language == "cuda" else (),
        macro_launched=macro_launches(data) if language == "cuda" else (),
        port_facts=port,
        vectors=refine_vectors.file_facts(sf, next(
            (r for r in rules if r.id == refine_vectors.USE_RULE), None)) if language == "cuda" else None,
        asm_helpers=asm_helpers,
        py_module=py_module,
        references=references,
    )


INTERNAL_ERROR = "porter failed on this file (internal error"
TOOK_TOO_LONG = "took longer than"
NEEDED_TOO_MUCH = "needed more than"
DIED = "parser process died"


def _guarded(c: Candidate, fn: Callable[[], FileResult]) -> FileResult:
    """One file that trips a porter bug or runs out of the worker's memory is listed as skipped with the reason,
    instead of ending the whole scan (time is the budgeted worker's clock: porter.budget)."""
    try:
        return fn()
    except MemoryError:
        memory = _STATE.budget.memory if _STATE is not None else 0
        return _skip(c, f"{NEEDED_TOO_MUCH} {memory >> 20} MiB to scan; skipped")
    except (RecursionError, Exception) as e:  # noqa: BLE001 - reported, never swallowed silently
        return _skip(c, f"{INTERNAL_ERROR}: {type(e).__name__}: {e}); please report it")


def _skip(c: Candidate, reason: str) -> FileResult:
    return FileResult(c.path, c.language, 0, skipped=Skipped(c.path, reason))


def _key(c: Candidate, content: bytes, st: _Worker) -> str:
    return hashlib.sha256(
        b"\0".join((code_digest(), st.ruleset.digest.encode(), ",".join(sorted(st.disabled)).encode(), st.rocm.encode(),
                    b"untrusted" if st.untrusted else b"",
                    st.repository_digest(c.language), os.fsencode(c.path), c.language.encode(), str(st.max_file_bytes).encode(),
                    content))
    ).hexdigest()


def _cache_get(c: Candidate, key: str, st: _Worker, cache: Cache) -> Any:
    """The cached result of a file with key `key`: a C/C++/CUDA file's is kept under its key joined with the facts
    it names, which the entry under `uses-<key>` says (porter.filekey)."""
    assert st.cache is not None, "asked only with a cache"
    if c.language != "cuda":
        return cache.get(key)
    uses = cache.get("uses-" + key)
    if not filekey.well_formed(uses):
        return None
    return cache.get(filekey.keyed(key, st.facts_view().digest(uses)))


def _cached(c: Candidate, content: bytes, st: _Worker, compute: Callable[[], FileResult],
            run: bool = True, data: Callable[[], bytes] | None = None) -> tuple[FileResult | None, bool]:
    """The file's cached result, else (with `run`) `compute`'s, kept; `data` gives a C/C++/CUDA file's bytes as its
    own macros read them (asked only on a miss), which name the repository facts its entry depends on."""
    if st.cache is None:
        return (compute() if run else None), False
    key = _key(c, content, st)
    cached = _cache_get(c, key, st, st.cache)
    if isinstance(cached, FileResult):
        return cached, True
    if not run:
        return None, False
    result = compute()
    if not (result.skipped and result.skipped.reason.startswith((INTERNAL_ERROR, TOOK_TOO_LONG, NEEDED_TOO_MUCH, DIED))):
        # A failure is not cached (the next porter version retries the file), nor is running out of time or
        # memory (it depends on the machine and its load, not only on the file).
        if c.language == "cuda" and data is not None:
            uses = filekey.uses_of(data())
            st.cache.put("uses-" + key, uses)
            st.cache.put(filekey.keyed(key, st.facts_view().digest(uses)), result)
        elif c.language != "cuda":
            st.cache.put(key, result)
    return result, False
