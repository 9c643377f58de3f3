"""One fleet scan: the list's repositories, minus those this run already holds, assessed by the executor and
recorded one by one in the store, the run marked finished at the end (an interrupted run is resumed next time).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from porter.fleet.assess import ASSESSED, FAILED, STORED, Options, Outcome, Task, porter_version
from porter.fleet.execute import check, describe, execute
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


def targets_key(targets: Sequence[str]) -> str:
    """The targets as stored: the resolved profile ids, sorted (`mi355x` and `gfx950` name one key)."""
    from porter.targets import resolve_targets

    return ",".join(sorted({t.id for t in resolve_targets(list(targets))}))


def scan(store: Store, entries: Sequence[Entry], options: Options, *, executor: str | None = None,
         workers: int = 1, resume: bool = True, progress: Callable[[Outcome], None] | None = None) -> Summary:
    """Assess `entries` into `store` and return what happened."""
    check(executor)
    version = porter_version()
    tkey = targets_key(options.targets)
    run_id, already = store.start_run(version, tkey, describe(executor, workers), len(entries), resume=resume)
    stored = store.stored_keys(tkey, version)
    tasks = [Task(e, options, stored.get(e.name, frozenset())) for e in entries if e.name not in already]
    counts = {ASSESSED: 0, STORED: 0, FAILED: 0}

    def done(o: Outcome) -> None:
        store.record(run_id, o, tkey, version)
        counts[o.status] += 1
        if progress:
            progress(o)

    execute(tasks, done, executor=executor, workers=workers)
    store.finish_run(run_id)
    return Summary(run_id, counts[ASSESSED], counts[STORED], counts[FAILED], len(already))
