"""One fleet scan: the list's repositories, minus those this run already holds, assessed by the executor and
recorded one by one in the store, the run marked finished at the end (an interrupted run is resumed next time).

With history, a repository's outcome names the points it still needs; each becomes a task of its own, and the
repository is recorded (with its points, in one transaction) when the last of them is back, so an interrupted run
never holds a repository with half its history.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from porter.fleet.assess import (ASSESSED, FAILED, STORED, Options, Outcome, PointOutcome, PointTask, Task,
                                 porter_version)
from porter.fleet.execute import AnyOutcome, AnyTask, check, describe, execute
from porter.fleet.inventory import Entry
from porter.fleet.store import Store


@dataclass(frozen=True)
class Summary:
    """What a fleet scan did: the run it recorded into and how many repositories went each way."""

    run_id: int
    assessed: int
    stored: int
    failed: int
    resumed: int  # repositories the interrupted run had already recorded (not redone)
    points: int = 0  # history points computed (each a task of its own)
    points_failed: int = 0


def targets_key(targets: Sequence[str]) -> str:
    """The targets as stored: the resolved profile ids, sorted (`MI355X` and `mi355x` name one key; `gfx950` names
    both gfx950 profiles, mi350x and mi355x)."""
    from porter.targets import resolve_targets

    return ",".join(sorted({t.id for t in resolve_targets(list(targets))}))


@dataclass
class _Waiting:
    """A repository whose history points are out: its outcome, the points back so far, the ones still out."""

    outcome: Outcome
    out: set[str]
    points: list = dataclasses.field(default_factory=list)
    reasons: list[str] = dataclasses.field(default_factory=list)


def scan(store: Store, entries: Sequence[Entry], options: Options, *, executor: str | None = None,
         workers: int = 1, resume: bool = True, progress: Callable[[Outcome], None] | None = None) -> Summary:
    """Assess `entries` into `store` and return what happened."""
    check(executor)
    version = porter_version()
    tkey = targets_key(options.targets)
    run_id, already = store.start_run(version, tkey, describe(executor, workers), len(entries), resume=resume)
    stored = store.stored_keys(tkey, version)
    points = store.stored_points(tkey, version) if options.history_every else {}
    tasks = [Task(e, options, stored.get(e.name, frozenset()), points.get(e.name, frozenset()))
             for e in entries if e.name not in already]
    by_name = {e.name: e for e in entries}
    counts = {ASSESSED: 0, STORED: 0, FAILED: 0, "points": 0, "points_failed": 0}
    waiting: dict[str, _Waiting] = {}

    def record(o: Outcome) -> None:
        store.record(run_id, o, tkey, version)
        counts[o.status] += 1
        if progress:
            progress(o)

    def done(o: AnyOutcome) -> Sequence[AnyTask]:
        if isinstance(o, PointOutcome):
            w = waiting[o.name]
            w.out.discard(o.commit)
            if o.point is not None:
                w.points.append(o.point)
                counts["points"] += 1
            else:
                w.reasons.append(f"{o.commit[:12]}: {o.reason}")
                counts["points_failed"] += 1
            if not w.out:
                del waiting[o.name]
                # A point that failed is not stored, so the next run computes it again.
                note = (f"{len(w.reasons)} history point(s) not recorded ({w.reasons[0]})" if w.reasons else None)
                record(dataclasses.replace(w.outcome, planned=(), reason=w.outcome.reason or note,
                                           history=tuple(sorted(w.points, key=lambda p: (p.date, p.commit)))))
            return ()
        if o.status == FAILED or not o.planned:
            record(o)
            return ()
        waiting[o.name] = _Waiting(o, {c for c, _ in o.planned})
        return [PointTask(by_name[o.name], options, c, d, o.commit or "") for c, d in o.planned]

    execute(tasks, done, executor=executor, workers=workers)
    store.finish_run(run_id)
    return Summary(run_id, counts[ASSESSED], counts[STORED], counts[FAILED], len(already), counts["points"],
                   counts["points_failed"])
