"""Run the fleet's tasks: a local process pool (default) or an existing Dask cluster (`dask://HOST:PORT`), one task
per repository, each outcome handed to `done` in the starting process as it arrives (which writes the database).

A lost worker is not a failed repository: the local pool is rebuilt and the tasks it held are submitted again, and
Dask's scheduler reschedules a lost worker's task itself; a task lost MAX_ATTEMPTS times is recorded as failed with
that reason, so one repository that kills its worker cannot stall the fleet.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from porter.errors import UsageError
from porter.fleet.assess import FAILED, Outcome, Task, run_task

MAX_ATTEMPTS = 3


def describe(executor: str | None, workers: int) -> str:
    """The executor as stored with a run: `local:N` or the cluster's address."""
    return executor if executor else f"local:{workers}"


def check(executor: str | None) -> None:
    """UsageError for an executor this porter cannot run on (before a run is started for it)."""
    if executor and executor != "local" and not executor.startswith(("dask://", "tcp://")):
        raise UsageError(f"--executor {executor}: expected dask://HOST:PORT (or leave it out for the local pool)")


def execute(tasks: Sequence[Task], done: Callable[[Outcome], None], *, executor: str | None = None,
            workers: int = 1) -> None:
    """Run every task; call `done` once per task, in completion order."""
    check(executor)
    if not tasks:
        return
    if executor is None or executor in ("local", ""):
        _local(tasks, done, max(1, workers))
    elif executor.startswith("dask://") or executor.startswith("tcp://"):
        _dask(tasks, done, "tcp://" + executor.split("://", 1)[1])
    else:
        raise UsageError(f"--executor {executor}: expected dask://HOST:PORT (or leave it out for the local pool)")


def _lost(task: Task, attempts: int) -> Outcome:
    e = task.entry
    return Outcome(e.name, e.location, e.ref, FAILED,
                   reason=f"its worker process died {attempts} times while assessing it (out of memory? a crash?)")


def _local(tasks: Sequence[Task], done: Callable[[Outcome], None], workers: int) -> None:
    suspects = _pool_round(tasks, list(range(len(tasks))), done, workers)
    # A dead worker breaks the whole pool, so every task in flight is a suspect: each is retried alone, where a
    # death is its own, and only then counted against it.
    for i in suspects:
        for attempt in range(2, MAX_ATTEMPTS + 1):
            if not _pool_round(tasks, [i], done, 1):
                break
        else:
            done(_lost(tasks[i], MAX_ATTEMPTS))


def _pool_round(tasks: Sequence[Task], todo: list[int], done: Callable[[Outcome], None], workers: int) -> list[int]:
    """Run tasks `todo` on one pool; the ones a broken pool lost (in order), every other outcome given to done."""
    # fork: a worker starts with porter's modules already loaded (what spawn would import again, per worker).
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=multiprocessing.get_context("fork"))
    lost: list[int] = []
    try:
        pending = {pool.submit(run_task, tasks[i]): i for i in todo}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    lost.append(i)
                    continue
                done(outcome)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return sorted(lost)


def _dask(tasks: Sequence[Task], done: Callable[[Outcome], None], address: str) -> None:
    try:
        from distributed import Client, as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker
    except ImportError:
        raise UsageError("--executor dask://…: Dask is not installed (pip install 'porter-rocm[fleet-dask]')") from None
    try:
        client = Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise UsageError(f"--executor {address}: cannot reach the Dask scheduler: {e}") from None
    try:
        # pure=False: two tasks for one repository are two runs, never deduplicated by Dask's hashing.
        futures = {client.submit(run_task, t, pure=False, key=f"porter-fleet-{i}-{t.entry.name}"): t
                   for i, t in enumerate(tasks)}
        for fut in as_completed(list(futures), loop=client.loop):
            task = futures[fut]
            try:
                done(fut.result())
            except KilledWorker:
                # The scheduler already rescheduled it up to its allowed-failures: the worker died each time.
                done(_lost(task, MAX_ATTEMPTS))
            except FutureCancelledError as e:
                done(Outcome(task.entry.name, task.entry.location, task.entry.ref, FAILED,
                             reason=f"the cluster cancelled its task: {e}"))
    finally:
        client.close()
