"""Assess one fleet repository: clone or fetch it, resolve its commit and, unless that key is stored, run it through
porter.pipeline exactly as `porter assess` does (resolve_settings, source_for, run with assess) into an `Outcome`;
with history, name the points back in time it still needs, each of which is a task of its own (`PointTask`: one
commit through porter's history engine), so a cluster spreads the weeks of one repository as well as repositories.

The task is a pure top-level function of picklable values, so the local pool and a Dask worker run the same code
and return the same outcome; the database is written only by the process that started the fleet.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from porter import __version__
from porter.errors import PorterError
from porter.fleet.checkout import CheckoutError, CheckoutTimeout, checkout, holding
from porter.fleet.inventory import Entry

ASSESSED, STORED, FAILED = "assessed", "stored", "failed"


@dataclass(frozen=True)
class Options:
    """What every repository of one fleet run is assessed with (the `assess` options a fleet passes on)."""

    targets: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    isolated: bool = True
    no_cache: bool = False
    cache_dir: Path | None = None  # porter's result cache (None: the default)
    clone_cache: Path = Path()  # where clones live (porter.fleet.checkout)
    timeout: float = 1800.0  # seconds for one repository: clone or fetch, and the assessment
    history_every: str | None = None  # "day", "week" or "month": also record history points (porter.history)
    history_since: str | None = None  # ISO date the history starts at


@dataclass(frozen=True)
class Task:
    """One repository to assess, and the commits already stored for it under this run's settings (not redone)."""

    entry: Entry
    options: Options
    stored: frozenset[str] = frozenset()  # "commit settings-hash" keys already in the database
    stored_points: frozenset[str] = frozenset()  # "commit settings-hash" of history points already stored


@dataclass(frozen=True)
class PointTask:
    """One history point of one repository to compute: the commit (the last of its week, say) and its date."""

    entry: Entry
    options: Options
    commit: str
    date: str
    head: str = ""  # the repository's assessed commit, whose configuration every point uses (`--trust-config`)


@dataclass(frozen=True)
class TargetResult:
    """One target's line of an assessment."""

    target: str
    verdict: str
    days_low: float
    days_likely: float
    days_high: float


@dataclass(frozen=True)
class HistoryPoint:
    """One point back in time (the last commit of a week, say): the open work there, as `porter history` gives it."""

    commit: str
    date: str
    verdict: str
    days_low: float
    days_likely: float
    days_high: float
    open_findings: int


@dataclass(frozen=True)
class Outcome:
    """What became of one repository: assessed (with its figures), already stored, or failed with a reason."""

    name: str
    location: str
    ref: str | None
    status: str
    commit: str | None = None
    settings_hash: str | None = None
    reason: str | None = None
    verdict: str | None = None
    days_low: float | None = None
    days_likely: float | None = None
    days_high: float | None = None
    files: int = 0
    open_findings: int = 0
    handled_findings: int = 0  # findings the repository's own ROCm path already answers: work done
    kernels: int = 0
    targets: tuple[TargetResult, ...] = ()
    blockers: tuple[str, ...] = ()  # the titles of the reasons that make a target "blocked"
    target_blockers: tuple[tuple[str, tuple[str, ...]], ...] = ()  # per target id, the blocked reasons holding there
    libraries: tuple[str, ...] = ()  # CUDA libraries the repository uses, by the library map's names
    history: tuple[HistoryPoint, ...] = ()  # with Options.history_every: the points up to the assessed commit
    planned: tuple[tuple[str, str], ...] = ()  # (commit, date) of the history points still to compute (PointTasks)
    seconds: float = field(default=0.0, compare=False)  # wall time: differs between runs, never compared


@dataclass(frozen=True)
class PointOutcome:
    """What became of one PointTask: the point, or the reason it could not be computed."""

    name: str
    commit: str
    point: HistoryPoint | None = None
    reason: str | None = None
    seconds: float = field(default=0.0, compare=False)


def porter_version() -> str:
    """porter's version plus a digest of its code and data: a result is redone when what computed it changed."""
    from porter.pipeline import code_digest

    return f"{__version__}+{code_digest().hex()[:12]}"


def settings_hash(settings: Any) -> str:
    """A digest of the settings that change a result (not jobs, cache location or notices)."""
    keep = {k: getattr(settings, k) for k in ("include", "exclude", "max_file_bytes", "disabled_rules", "targets",
                                               "extra_rules", "effort", "deep", "rocm_macros", "cuda_only",
                                               "file_seconds", "file_memory_mib")}
    from porter.targets import resolve_targets

    # The profiles the targets resolve to, not their spelling: `--target MI300X` finds what `mi300x` stored.
    keep["targets"] = sorted({t.id for t in resolve_targets(list(settings.targets))}) if settings.targets else []
    text = json.dumps(keep, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def perform(task: "Task | PointTask") -> "Outcome | PointOutcome":
    """Run one task of either kind (what every executor calls: one function, so every executor runs the same code)."""
    return run_point(task) if isinstance(task, PointTask) else run_task(task)


def failed(task: "Task | PointTask", reason: str, seconds: float = 0.0) -> "Outcome | PointOutcome":
    """The outcome of a task that could not be done, with its reason."""
    e = task.entry
    if isinstance(task, PointTask):
        return PointOutcome(e.name, task.commit, reason=reason[:2000], seconds=seconds)
    return Outcome(e.name, e.location, e.ref, FAILED, reason=reason[:2000], seconds=seconds)


def run_task(task: Task) -> Outcome:
    """Assess one repository; every failure becomes a FAILED outcome with its reason, never an exception."""
    e = task.entry
    start = time.monotonic()
    try:
        with _deadline(task.options.timeout):
            got = checkout(e, task.options.clone_cache, timeout=task.options.timeout)
            settings = _settings(got.path, task.options, got.commit)
            sh = settings_hash(settings)
            key = f"{got.commit} {sh}"
            if key in task.stored:
                outcome = Outcome(e.name, e.location, e.ref, STORED, got.commit, sh)
            else:
                outcome = _assessed(e, got.path, got.commit, settings, start)
            if task.options.history_every:
                planned = tuple(p for p in _plan(got.path, got.commit, task.options)
                                if f"{p[0]} {sh}" not in task.stored_points)
                outcome = dataclasses.replace(outcome, planned=planned)
            return dataclasses.replace(outcome, seconds=time.monotonic() - start)
    except Exception as err:  # a repository porter cannot handle must not stop the fleet; the reason is kept
        reason = _reason(err, task.options.timeout)
    out = failed(task, reason, time.monotonic() - start)
    assert isinstance(out, Outcome)
    return out


def run_point(task: PointTask) -> PointOutcome:
    """One history point: the repository's clone (as its repository task left it; fetched first only where this
    machine's clone lacks the commit, as a Dask worker's own disk may) walked at that one commit through porter's
    history engine, so the point is what `porter history` gives for it (and cached alike)."""
    e = task.entry
    start = time.monotonic()
    try:
        with _deadline(task.options.timeout):
            path = holding(e, task.options.clone_cache, task.commit) or \
                checkout(e, task.options.clone_cache, timeout=task.options.timeout).path
            # One configuration for every point, the assessed commit's, as `porter history` reads one for all its
            # points (and as the points' stored key, that commit's settings hash, says).
            settings = _settings(path, task.options, task.head or task.commit)
            point = _point(path, task.commit, settings)
            return PointOutcome(e.name, task.commit, point, seconds=time.monotonic() - start)
    except Exception as err:  # one point that cannot be computed must not stop the fleet either
        reason = _reason(err, task.options.timeout)
    return PointOutcome(e.name, task.commit, reason=reason[:2000], seconds=time.monotonic() - start)


def _reason(err: Exception, timeout: float) -> str:
    # git's clone is given the repository's timeout too, so which of the two stops a slow clone first is a race
    # (a loaded machine lets git's own check win): both are the repository taking longer than its timeout
    if isinstance(err, (_Timeout, CheckoutTimeout)):
        return f"took longer than {timeout:g} s"
    if isinstance(err, (CheckoutError, PorterError)):
        return str(err)
    return f"internal error: {type(err).__name__}: {err}"


def _settings(path: Path, options: Options, commit: str):
    from porter.settings import CommandLine, resolve_settings

    # jobs=1: the fleet runs repositories side by side; one repository's files go through one budgeted worker.
    cli = CommandLine(include=options.include or None, exclude=options.exclude or None, jobs=1,
                      targets=options.targets or None, no_cache=options.no_cache, cache_dir=options.cache_dir,
                      isolated=options.isolated)
    if options.isolated:
        return resolve_settings(path, cli)
    # --trust-config: the clone has no work tree, so the repository's own configuration is read from the commit.
    with _config_of(path, commit) as top:
        return resolve_settings(top, cli)


# What porter.settings.find_config looks for at a repository's top, in its order.
CONFIG_NAMES = ("porter.toml", "pyproject.toml")


@contextmanager
def _config_of(clone: Path, commit: str) -> Iterator[Path]:
    """A private folder standing for the commit's top (a `.git` marks it as the repository's own): its porter.toml
    and pyproject.toml when they are regular files there, so porter.settings reads them as the repository's
    configuration (contained, capped, a porter.toml's limits the same as `porter assess` puts on it). A file such a
    configuration names (rules, effort, a target profile) is not written out: it is refused as missing, and the
    repository is recorded as failed with that reason."""
    import tempfile

    from porter import contain
    from porter.settings import MAX_CONFIG_BYTES
    from porter.source import git

    listed = git.run(clone, "ls-tree", "-z", "--end-of-options", commit, "--", *CONFIG_NAMES, timeout=60)
    with tempfile.TemporaryDirectory(prefix="porter-fleet-config-") as tmp:
        top = Path(tmp)
        (top / ".git").mkdir()
        for entry in filter(None, listed.split(b"\0")):
            meta, _, name = entry.partition(b"\t")
            mode, kind, blob = meta.split()
            if kind != b"blob" or mode not in (b"100644", b"100755") or name.decode() not in CONFIG_NAMES:
                continue
            size = int(git.run(clone, "cat-file", "-s", blob.decode(), timeout=60))
            # One byte past the cap is enough for porter.settings to refuse a file over it.
            data = git.run(clone, "cat-file", "blob", blob.decode(), timeout=60) if size <= MAX_CONFIG_BYTES \
                else b"\0" * (MAX_CONFIG_BYTES + 1)
            contain.write_bytes(top / name.decode(), data, root=top)
        yield top


def _assessed(e: Entry, path: Path, commit: str, settings: Any, start: float) -> Outcome:
    from porter.pipeline import run
    from porter.source.read import GitTree

    # What `porter assess --rev COMMIT` scans (source_for's GitTree), built directly: the clone is porter's own
    # (git clone wrote its config, not the remote), so source_for's checks of a user-named work tree, three git
    # processes per repository, have nothing to find here.
    done = run(GitTree(path, commit), settings, assess=True)
    a = done.assessment
    assert a is not None  # run(assess=True) always assesses
    result = done.result
    targets = tuple(TargetResult(t.id, t.verdict, t.effort.low, t.effort.likely, t.effort.high) for t in a.targets)
    blocked = [r for r in a.reasons if r.level == "blocked"]
    blockers = sorted({r.title for r in blocked})
    # What blocks a target is what `porter assess --target T` says decides its verdict when that verdict is blocked
    # (the reasons of the target's own assessment), so a target's blockers and its verdict never disagree.
    per_target = tuple((t.id, tuple(sorted(set(t.deciding)))) for t in a.targets if t.verdict == "blocked")
    libraries = sorted({row.name for row in a.breakdowns.by_library})
    return Outcome(
        e.name, e.location, e.ref, ASSESSED, commit, settings_hash(settings),
        verdict=a.verdict, days_low=a.days.low, days_likely=a.days.likely, days_high=a.days.high,
        files=sum(1 for f in result.files if f.skipped is None),
        open_findings=sum(1 for f in result.findings if str(f.status) == "open"),
        handled_findings=sum(1 for f in result.findings if str(f.status) == "handled"),
        kernels=len(result.kernels), targets=targets, blockers=tuple(blockers),
        target_blockers=tuple(x for x in per_target if x[1]), libraries=tuple(libraries),
        seconds=time.monotonic() - start)


def _plan(path: Path, commit: str, options: Options) -> tuple[tuple[str, str], ...]:
    """(commit, date) of the points `porter history --every EVERY --since SINCE` has up to `commit`."""
    from porter.history.walk import select, walk

    walked = walk(path, since=options.history_since, rev=commit)
    return tuple((walked.commits[i].sha, walked.commits[i].date)
                 for i in select(walked.commits, options.history_every or "week"))


def _point(path: Path, commit: str, settings: Any) -> HistoryPoint:
    """The history engine's point at `commit` (a walk of that one commit: its whole tree, keyed as any point)."""
    from porter.history.points import history
    from porter.history.walk import walk

    p = history(walk(path, rev=commit, max_commits=1), settings, "commit").points[-1]
    return HistoryPoint(p.commit, p.date, p.verdict, p.effort.low, p.effort.likely, p.effort.high,
                        p.open_findings)


class _Timeout(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the assessment after `seconds` where a timer can (the main thread of a pool worker). A Dask worker
    runs tasks in threads, where git's own timeouts and each file's budget (porter.budget) still bound the work."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
