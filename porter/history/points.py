"""Measure the open, handled and cuda-only work at each point of a replayed history, scanning each blob once.

Per point the tree is the replayed path → blob map (porter.history.walk). A file's result is looked up first in
memory, then in porter's cache (keyed by blob id, path, rule set, porter's code and the repository-wide facts, as
for any scan), and only then scanned, in parallel with every other new blob of a batch of points; so the cost grows
with the distinct blobs, not commits × files. Repository-wide facts (kernel-hiding macros, the project's own Python
packages) are recomputed at every point whose files changed, from per-blob memos; each blob's part is lexed in a
budgeted worker (porter.budget) like a scan's, and combining many files' directives runs under a stage's budget. The
point itself (its scan
result after kernel analysis and port status, and the assessment of its open work) is cached as a small summary by
the digest of its tree, so a second walk of the same history reads summaries and scans nothing.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from porter import filekey
from porter.errors import UsageError
from porter.model import Skipped, Status
from porter.model.assessment import Range
# Point (the port's state at one commit) is porter.model's, so the history's formats read it without this module.
from porter.model.history import Blocker, Point, PointChange
from porter.budget import Overrun, run_inherited, stage_budget
from porter.pipeline import (FEW_DIRECTIVES, Held, RepositoryFacts, assemble, code_digest, complete, file_budget,
                             harvest_file_facts, load_rules_cached, open_cache, repository_facts, scan_files)
from porter.settings import Settings
from porter.source import git
from porter.source.discover import Candidate, Discovery, another_alias, language_of, selected, shown_path
from porter.source.read import MAX_LINK_HOPS, REFUSED_PATH, GitTree, git_refuses
from porter.targets import Target, resolve_targets
from porter.history.walk import SUBMODULE_MODE, SYMLINK_MODE, Walk, select

SUMMARY_VERSION = "history-point-1"
# Points whose new blobs are scanned together: enough to keep every worker busy and pay for starting them once
# per batch, few enough to hold the batch's trees in memory.
BATCH_POINTS = 128
# A walk's work outside the budgeted workers grows with points x files (each point's tree is listed, keyed and
# summarised in this process: ~45 us a file, ~0.2 KB held a file): 1,000 commits of a 20,000-file tree were past
# 10 minutes and 2 GB. Past this many files summed over the points, every other point is left out (the last one is
# always kept, with what the dropped points changed), as many times as it takes, and a notice says so.
MAX_WALK_FILES = 2_000_000
_NOT_IN_KEY = frozenset({"jobs", "cache_dir", "notices", "config_path", "fail_on", "config_globs"})


@dataclass(frozen=True)
class History:
    repository: str  # the path as the user named it
    subdir: str
    every: str
    targets: tuple[Target, ...]
    points: tuple[Point, ...]
    notices: tuple[str, ...] = ()
    # How the walk went; never serialised, so the output is the same warm or cold.
    stats: dict[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Progress:
    """What the walk has done so far, for a progress line on stderr."""

    commits_done: int
    commits_total: int
    blobs_scanned: int
    cache_hits: int  # files and points served from the cache
    phase: str = "walking"
    # While a point's files are scanned ("scanning"): how far that scan is. The first point scans the whole tree
    # (Umpire: 6,937 blobs, 80 s), so the commit count alone stood still at 1/86 for most of the walk.
    files_done: int = 0
    files_total: int = 0


class _Tree:
    """The scoped part of the tree while replaying: scanned-language paths → (mode, blob), and which changed.

    A committed symlink to a file in scope (`src/k.cu -> ../docs/kernel.txt`) is followed as `scan --rev` follows
    it (porter.source.read.GitTree): the build compiles what it leads to, so a repository cannot take code out of
    its history by putting it behind a link. So every path in scope is kept (`paths`), whatever its language, and
    while a scanned-language symlink exists any change in scope may move what it leads to."""

    def __init__(self, walk: Walk, settings: Settings):
        self.prefix = walk.subdir.rstrip("/") + "/" if walk.subdir else ""
        self.include, self.exclude = list(settings.include) or None, list(settings.exclude) or None
        self.entries: dict[str, tuple[str, str, str, str]] = {}  # repo path → (shown path, language, mode, blob)
        self.paths: dict[str, tuple[str, str]] = {}  # every repo path in scope → (mode, blob): what a link may name
        self.links: set[str] = set()  # the entries that are symlinks
        self._wanted: dict[str, tuple[str, str] | None] = {}
        for path, (mode, blob) in walk.base.items():
            self.set(path, mode, blob)

    def wanted(self, path: str) -> tuple[str, str] | None:
        """(shown path, language) when the path is in scope and porter reads its language; memoised per path."""
        hit = self._wanted.get(path, ...)
        if hit is not ...:
            return hit  # type: ignore[return-value]
        out = None
        if not self.prefix or path.startswith(self.prefix):
            rel = shown_path(path[len(self.prefix):])
            lang = language_of(rel)
            if lang is not None and selected(rel, self.include, self.exclude):
                out = (rel, lang)
        self._wanted[path] = out
        return out

    def set(self, path: str, mode: str, blob: str | None) -> bool:
        if self.prefix and not path.startswith(self.prefix):
            return False
        moved = bool(self.links)  # a link may lead to this path
        if blob is None:
            self.paths.pop(path, None)
        else:
            self.paths[path] = (mode, blob)
        w = self.wanted(path)
        if w is None:
            return moved
        if blob is None:
            self.links.discard(path)
            return self.entries.pop(path, None) is not None or moved
        self.entries[path] = (w[0], w[1], mode, blob)
        if mode == SYMLINK_MODE:
            self.links.add(path)
        else:
            self.links.discard(path)
        return True

    def snapshot(self, target: Callable[[str, str], str | None]) -> tuple:
        """The entries now, sorted, each symlink that leads (in at most MAX_LINK_HOPS links) to a regular file in
        scope standing as that file's mode and blob under its own name; one that leads out, to nothing or round a
        loop stays a symlink (listed as not followed). `target(path, blob)`: the repository path a link names."""
        if not self.links:
            return tuple(sorted(self.entries.values()))
        entries = dict(self.entries)
        aliases: dict[str, list[str]] = {}
        for link in sorted(self.links):
            path, (mode, blob) = link, self.paths[link]
            for _ in range(MAX_LINK_HOPS):
                nxt = target(path, blob)
                found = self.paths.get(nxt) if nxt is not None else None
                if found is None:
                    break
                path, (mode, blob) = nxt, found  # type: ignore[assignment]
                if mode != SYMLINK_MODE:
                    break
            # At most MAX_ALIASES links per file, as scan --rev reads (porter.source.discover.another_alias); the rest
            # stay links.
            if mode in ("100644", "100755") and another_alias(aliases, path, link) is None:
                shown, lang, _, _ = entries[link]
                entries[link] = (shown, lang, mode, blob)
        return tuple(sorted(entries.values()))


@dataclass(frozen=True)
class Planned:
    """One point of a walk's plan: the commit's index, the scoped entries (None when nothing in scope changed since
    the point before it) and how many files its tree holds (what MAX_WALK_FILES counts)."""

    index: int
    entries: tuple | None
    files: int


def thinned(plan: list[Planned]) -> list[Planned]:
    """Every other point of a walk's plan, the last one always kept. A kept point after a dropped one that changed
    takes the dropped point's entries (its own are None when nothing changed since the dropped one)."""
    out = []
    since = None  # the entries of the latest point dropped since the last one kept, if it changed
    for n, point in enumerate(plan):
        if n % 2 == 1 or n == len(plan) - 1:
            if point.entries is None and since is not None:
                point = dataclasses.replace(point, entries=since)
            out.append(point)
            since = None
        elif point.entries is not None:
            since = point.entries
    return out


@dataclass(frozen=True)
class PointTree:
    """The tree at one point of the walk as a file source: its files as the replay knows them, read by blob id
    through the walk's one `git cat-file --batch` (no `ls-tree` per commit)."""

    reader: GitTree
    found: Discovery

    def discover(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Discovery:
        return self.found  # already filtered by the settings' include/exclude when the point was replayed

    def read(self, c: Candidate, limit: int) -> bytes:
        return self.reader.read(c, limit)


class Walker:
    """Computes the points of one walk with one rule set, cache, target list and effort model."""

    def __init__(self, walk: Walk, settings: Settings, progress: Callable[[Progress], None] | None = None):
        from porter.estimate.effort_model import load_effort_model

        self.walk = walk
        self.settings = settings
        self.progress = progress
        self.cache, why_not = open_cache(settings.cache_dir, walk.repo)
        self.notices = list(walk.notices) + ([why_not] if why_not else [])
        self.ruleset = load_rules_cached(list(settings.extra_rules), self.cache, file_budget(settings))
        self.targets = tuple(resolve_targets(settings.targets))
        self.model = load_effort_model(settings.effort)
        self.source = GitTree(walk.repo, walk.commits[-1].sha, walk.subdir)
        self.results: dict[tuple, Any] = {}  # (path, language, blob, the facts it reads: _depends) → FileResult
        self.facts_memo: dict[str, tuple] = {}  # blob → its macros, constants, directives and uses (porter.filekey)
        self.facts_ids: dict[tuple, int] = {}
        self.facts_of_files: dict[tuple, tuple[int, RepositoryFacts]] = {}  # the point's (path, blob)s → its facts
        self.views: dict[int, filekey.FactsView] = {}  # facts id → the facts as C/C++ files' keys cut them down
        self.depends: dict[tuple, object] = {}  # (facts id, blob) → a C/C++ blob's _depends
        self.budget = file_budget(settings)
        self.sizes: dict[str, int] = {}
        self.blobs_scanned = 0
        self.cache_hits = 0
        self.points_cached = 0
        self.points_computed = 0
        self._done = self._total = 0
        self.canonical: dict[str, Any] = {}  # path → the result standing for every same-work version of it
        self.by_work: dict[tuple, dict[str, Any]] = {}
        self._key_base = self._settings_digest()
        self._links_memo: dict[tuple[str, str], str | None] = {}

    # --------------------------------------------------------------------------------------------- the walk

    def run(self, every: str = "commit") -> History:
        try:
            return self._run(every)
        finally:
            # The walk's one `git cat-file` ends with the walk, however it ends (the run's deadline, an error).
            self.source.close()

    def _run(self, every: str) -> History:
        commits = self.walk.commits
        chosen = set(select(commits, every))
        tree = _Tree(self.walk, self.settings)
        plan: list[Planned] = []
        dirty = True
        stride, asked = 1, 0  # keep every stride-th chosen commit (MAX_WALK_FILES)
        for i, c in enumerate(self.walk.replay()):  # streamed: one commit's changes in memory at a time
            for ch in c.changes:
                dirty |= tree.set(ch.path, ch.mode, ch.blob)
            if i in chosen:
                asked += 1
                if asked % stride and i != len(commits) - 1:
                    continue  # thinned out: its changes reach the next kept point (dirty stays set)
                plan.append(Planned(i, tree.snapshot(self._link_target) if dirty else None, len(tree.entries)))
                dirty = False
                while sum(p.files for p in plan) > MAX_WALK_FILES and len(plan) > 1:
                    plan, stride = thinned(plan), stride * 2
        if stride > 1:
            self.notices.append(f"history: {len(plan)} of {asked} points kept (one in {stride}): a walk summarises at "
                                f"most {MAX_WALK_FILES:,} files over its points, and the last tree holds "
                                f"{len(tree.entries):,}")
        summaries: list[dict[str, Any] | None] = [None] * len(plan)
        pending: list[int] = []
        for j, planned in enumerate(plan):
            entries = planned.entries
            if entries is None:
                continue
            hit = self.cache.get(self._point_key(entries)) if self.cache is not None else None
            if isinstance(hit, dict) and hit.get("version") == SUMMARY_VERSION:
                summaries[j] = hit
                self.points_cached += 1
                self.cache_hits += 1
            else:
                pending.append(j)
        done = len(plan) - len(pending)
        self._report(done, len(plan))
        for start in range(0, len(pending), BATCH_POINTS):
            batch = pending[start:start + BATCH_POINTS]
            changed = [e for e in (plan[j].entries for j in batch) if e is not None]  # pending points all changed
            self._scan_batch(changed)
            for j, entries in zip(batch, changed):
                summaries[j] = self._summarise(entries)
                if self.cache is not None:
                    self.cache.put(self._point_key(entries), summaries[j])
                self.points_computed += 1
                done += 1
                self._report(done, len(plan))
            if self.cache is not None:
                self.cache.flush()  # a batch's files and points: an interrupted walk keeps what it finished
        points: list[Point] = []
        last: dict[str, Any] = {}
        previous_index = -1
        for j, planned in enumerate(plan):
            i = planned.index
            last = summaries[j] or last  # an unchanged point repeats the one before it
            points.append(_point(commits[i], last, i - previous_index, points[-1] if points else None))
            previous_index = i
        stats = {"commits": len(commits), "points": len(points), "points_computed": self.points_computed,
                 "points_cached": self.points_cached, "blobs_scanned": self.blobs_scanned,
                 "cache_hits": self.cache_hits}
        if self.cache is not None:
            self.cache.flush()  # the rule set's entry, where every point came from the cache
        return History(self.walk.label, self.walk.subdir, every, self.targets, tuple(points),
                       tuple(self.notices), stats)

    def _file_progress(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(Progress(self._done, self._total, self.blobs_scanned + done, self.cache_hits, "scanning",
                                   done, total))

    def _report(self, done: int, total: int) -> None:
        self._done, self._total = done, total
        if self.progress is not None:
            self.progress(Progress(done, total, self.blobs_scanned, self.cache_hits))

    # --------------------------------------------------------------------------------------------- keys

    def _settings_digest(self) -> bytes:
        # Every setting that can change a result is in the key, including any a later porter adds; only how the
        # run goes (workers, cache place, messages) is left out.
        chosen = {f.name: getattr(self.settings, f.name) for f in dataclasses.fields(self.settings)
                  if f.name not in _NOT_IN_KEY}
        basis = repr((SUMMARY_VERSION, sorted(chosen.items()), self.walk.subdir, [repr(t) for t in self.targets],
                      self.model.source, self.model.override, sorted(map(str, self.model.data.items()))))
        return code_digest() + self.ruleset.digest.encode() + hashlib.sha256(basis.encode()).digest()

    def _point_key(self, entries: tuple) -> str:
        h = hashlib.sha256(self._key_base)
        for shown, lang, mode, blob in entries:
            h.update(f"{shown}\0{lang}\0{mode}\0{blob}\n".encode("utf-8", "surrogateescape"))
        return "history-" + h.hexdigest()

    def _link_target(self, path: str, blob: str) -> str | None:
        """The repository path the symlink at `path` (its blob `blob`) names, None when it leads out of the tree;
        read and resolved as `scan --rev` does (GitTree.link_target), memoised."""
        key = (path, blob)
        if key not in self._links_memo:
            self._links_memo[key] = self.source.link_target(path, blob)
        return self._links_memo[key]

    # --------------------------------------------------------------------------------------------- scanning

    def _candidates(self, entries: tuple) -> tuple[list[Candidate], list[Skipped]]:
        files, skipped = [], []
        for shown, lang, mode, blob in entries:
            if mode == SUBMODULE_MODE:
                skipped.append(Skipped(shown, "git submodule or nested repository: scan it separately"))
            elif mode == SYMLINK_MODE:
                skipped.append(Skipped(shown, "symlink in the git tree: not followed"))
            elif git_refuses(os.fsencode(shown)):  # as `scan --rev` lists it (porter.source.read)
                skipped.append(Skipped(shown, REFUSED_PATH))
            else:
                full = self.walk.subdir.rstrip("/") + "/" + shown if self.walk.subdir else shown
                files.append(Candidate(shown, Path(full), lang, blob=blob, size=self.sizes.get(blob)))
        return files, skipped

    def _harvest_blobs(self, files: list[Candidate]) -> None:
        """Each blob's part of the repository facts not yet memoised, lexed in budgeted workers (porter.budget), as a
        scan lexes them: a blob past the budget adds nothing, and a notice says so once."""
        todo: dict[str, Candidate] = {}
        for c in files:
            if c.language == "cuda" and (c.blob or "") not in self.facts_memo:
                todo.setdefault(c.blob or "", c)
        while todo:
            # The answers come back by path, so one call takes one version of each path (a batch may hold several).
            rounds: dict[str, tuple[str, Candidate]] = {}
            for blob, c in todo.items():
                rounds.setdefault(c.path, (blob, c))
            out, _ = harvest_file_facts([c for _, c in rounds.values()], self.source, self.settings.max_file_bytes,
                                        Held(), self.budget, self.settings.jobs, self.notices, uses=True)
            for blob, c in rounds.values():
                self.facts_memo[blob] = out.get(c.path, ({}, {}, ((), 0)))
                del todo[blob]

    def _depends(self, c: Candidate, fid: int, facts: RepositoryFacts) -> object:
        """_depends for a file of a point with facts `facts` (id `fid`), from its blob's memoised uses."""
        if c.language != "cuda":
            return _depends(c.language, fid, facts)
        memo = (fid, c.blob)
        found = self.depends.get(memo)
        if found is None:  # asked for every file at every point: a blob's answer per facts is kept
            part = self.facts_memo.get(c.blob or "")
            uses = part[3] if part is not None and len(part) > 3 else None
            view = self.views.get(fid)
            if view is None:
                view = self.views[fid] = filekey.FactsView(dict(facts.macros), facts.headers, dict(facts.constants),
                                                           facts.build_names, dict(facts.alternatives))
            found = _depends(c.language, fid, facts, uses, view)
            if part is not None:  # the blob's facts are read: its answer for these facts is final
                self.depends[memo] = found
        return found

    def _facts(self, files: list[Candidate]) -> tuple[int, RepositoryFacts]:
        """The repository-wide facts at a point (as the pipeline computes them for a scan) and their id; each
        blob's part is read once per walk, and the facts of one set of files are worked out once."""
        sig = tuple((c.path, c.language, c.blob) for c in files)
        known = self.facts_of_files.get(sig)
        if known is not None:
            return known
        self._harvest_blobs(files)
        memo = self.facts_memo
        directives = sum(len(memo[c.blob or ""][2][0]) for c in files if c.language == "cuda")
        if directives <= FEW_DIRECTIVES:
            # linear in this few directives
            facts = repository_facts(files, lambda c: memo[c.blob or ""], self.settings.rocm_macros)
        else:
            answer = run_inherited(_aggregate_task, (files, memo, self.settings.rocm_macros),
                                   stage_budget(self.budget, len(files)))
            if isinstance(answer, Overrun):
                self.notices.append(f"working out which macros stand for one build {answer.reason}; device "
                                    "helpers' build-only branches are not told apart")
                facts = repository_facts(files, lambda c: (*memo[c.blob or ""][:2], ((), 0)),
                                         self.settings.rocm_macros)
            else:
                facts = answer
        known = self.facts_of_files[sig] = (self.facts_ids.setdefault(facts.key, len(self.facts_ids)), facts)
        return known

    def _scan_batch(self, batch: list[tuple]) -> None:
        """Scan every file of these points not yet known, grouped by repository-wide facts, in parallel."""
        unsized = sorted({e[3] for entries in batch for e in entries if e[3] not in self.sizes})
        if unsized:
            try:
                self.sizes.update(git.object_sizes(self.walk.repo, unsized))
            except git.GitError as e:  # git stalled on an object (a FIFO planted in .git/objects) or died
                raise UsageError(f"{self.walk.repo}: cannot read the sizes of the history's files: {e}") from None
        groups: dict[int, tuple[RepositoryFacts, dict[tuple, Candidate]]] = {}
        pending: set[tuple] = set()  # keys a group of this batch scans already (a file no fact change reaches)
        # Every new blob of the batch lexed in one pool: a pool per point would fork once per commit.
        self._harvest_blobs([c for entries in batch for c in self._candidates(entries)[0]])
        for entries in batch:
            files, _ = self._candidates(entries)
            fid, facts = self._facts(files)
            todo = groups.setdefault(fid, (facts, {}))[1]
            for c in files:
                key = (c.path, c.language, c.blob, self._depends(c, fid, facts))
                if key not in self.results and key not in pending:
                    todo[key] = c
                    pending.add(key)
        for fid, (facts, todo) in groups.items():
            if not todo:
                continue
            pairs = scan_files(list(todo.values()), self.source, self.settings, self.ruleset, self.cache, facts,
                               progress=self._file_progress)
            for (result, hit), key in zip(pairs, todo):  # scan_files keeps the order of its input
                self.results[key] = result
                if hit:
                    self.cache_hits += 1
                else:
                    self.blobs_scanned += 1

    def _summarise(self, entries: tuple) -> dict[str, Any]:
        from porter.estimate.assess import assess

        files, skipped = self._candidates(entries)
        fid, facts = self._facts(files)
        pairs = []
        for c in files:
            key = (c.path, c.language, c.blob, self._depends(c, fid, facts))
            result = self.results.get(key)
            if result is None:  # a point computed outside a batch
                self._scan_batch([entries])
                result = self.results[key]
            pairs.append((result, False))
        # A commit that changes files without changing what porter finds in them (most edits of code with no
        # findings) has the summary of the last point with the same work: the numbers are a function of it.
        signature = (tuple(id(self._same_work(r)) for r, _ in pairs), tuple(sorted(skipped)))
        known = self.by_work.get(signature)
        if known is not None:
            return known
        found = Discovery(self.walk.repo, tuple(files), tuple(sorted(skipped)), True)
        scanned = assemble(self.source, found, pairs, self.ruleset, self.targets,
                           budget=stage_budget(self.budget, max(1, len(files))))
        # Port status reads the point's own tree (guards, build files, compat headers), blob by blob.
        run = complete(scanned, self.settings, self.targets, source=PointTree(self.source, found))
        summary = summarise(run.result, self.targets, self.model, assess)
        self.by_work[signature] = summary
        return summary

    def _same_work(self, r):
        """The first result seen at this path with the same findings, kernels, launches and skip as `r` (its line
        count may differ; nothing a point reports depends on it), else `r` itself. Every result stays referenced
        in self.results, so an id here is never reused for another object."""
        prev = self.canonical.get(r.path)
        if prev is not None and (prev is r or _work(prev) == _work(r)):
            return prev
        self.canonical[r.path] = r
        return r


def _aggregate_task(files, memo, rocm_macros) -> RepositoryFacts:
    return repository_facts(files, lambda c: memo[c.blob or ""], rocm_macros)


def _work(r) -> tuple:
    # A header's device helpers count: kernels in other files take their facts (porter.kernels.callgraph), through
    # its type aliases too; so do a Python module's jit functions (porter.kernels.triton_imports), and its vector
    # facts (porter.match.refine_vectors), and a Python module's part of the cross-module guard reading
    # (porter.portaware.pymodules: port status reads other modules' rows from it).
    return (r.language, r.findings, r.suppressed, r.kernels, r.launches, r.skipped, r.parse_error_lines, r.helpers,
            r.includes, r.type_aliases, r.triton_helpers, r.launchers, r.passed, r.vectors, r.py_module)


def summarise(result, targets: tuple[Target, ...], model, assess: Callable) -> dict[str, Any]:
    """The point's numbers from its analysed scan result: findings by status, and the assessment of the open work.
    Handled and cuda-only findings and kernels are left out before estimating: the headline is the same as the
    estimate of the whole result (which costs open work only), and a walk of 500 commits of bitsandbytes spends
    about 10% less CPU without them."""
    counts = {s: 0 for s in Status}
    for f in result.findings:
        counts[f.status] += 1
    open_findings = tuple(f for f in result.findings if f.status is Status.OPEN)
    open_kernels = tuple(k for k in result.kernels if k.status is Status.OPEN)
    open_result = dataclasses.replace(result, findings=open_findings, kernels=open_kernels)
    assessment = assess(open_result, list(targets), model)
    per_target = {t.id: sum(1 for k in open_kernels if (v := k.verdict_on(t.id)) is not None and v.verdict != "ok")
                  for t in targets}
    blockers = [{"key": r.key, "title": r.title, "count": r.count} for r in assessment.reasons if r.level == "blocked"]
    days = assessment.days
    return {
        "version": SUMMARY_VERSION,
        "open_findings": counts[Status.OPEN],
        "handled_findings": counts[Status.HANDLED],
        "cuda_only_findings": counts[Status.CUDA_ONLY],
        "effort": {"low": days.low, "likely": days.likely, "high": days.high},
        "verdict": assessment.verdict,
        "open_kernels": per_target,
        "blockers": blockers,
        "files": sum(1 for f in result.files if f.skipped is None),
    }


def _point(c, summary: dict[str, Any], covered: int, previous: Point | None) -> Point:
    # The summary is the cached form (plain JSON values); the point is typed from it here, once.
    p = Point(
        commit=c.sha, date=c.date, author=c.author, subject=c.subject, merge=c.merge, commits=covered,
        open_findings=summary["open_findings"], handled_findings=summary["handled_findings"],
        cuda_only_findings=summary["cuda_only_findings"], effort=Range.of(summary["effort"]),
        verdict=summary["verdict"], open_kernels=dict(summary["open_kernels"]),
        blockers=tuple(Blocker.of(b) for b in summary["blockers"]), files=summary["files"],
    )
    if previous is None:
        return p
    change = PointChange(
        open_findings=p.open_findings - previous.open_findings,
        handled_findings=p.handled_findings - previous.handled_findings,
        cuda_only_findings=p.cuda_only_findings - previous.cuda_only_findings,
        effort_likely=round(p.effort.likely - previous.effort.likely, 2),
        open_kernels={t: n - previous.open_kernels.get(t, 0) for t, n in p.open_kernels.items()},
        blockers=len(p.blockers) - len(previous.blockers),
    )
    return dataclasses.replace(p, change=change)


def history(walk: Walk, settings: Settings, every: str = "commit",
            progress: Callable[[Progress], None] | None = None) -> History:
    """The points of a walk (every commit, or the last of each day, week or month)."""
    return Walker(walk, settings, progress).run(every)


def _depends(language: str, fid: int, facts: RepositoryFacts, uses: str | None = None,
             view: filekey.FactsView | None = None) -> object:
    """What a file's result depends on beyond its blob (as porter.pipeline's cache key): a C/C++ file the part of
    the point's repository facts it names (porter.filekey, from the blob's `uses`; all of them, by their id, for a
    blob whose facts could not be read), a Python file the repository's own packages, any other file nothing. A
    commit that adds a header then re-scans only the files that name it, not every C/C++, Python or build file."""
    if language == "cuda":
        return fid if uses is None or view is None else ("uses", view.digest(uses))
    if language == "python":
        return facts.local_packages
    return None
