"""Run the fleet's tasks: a local process pool (default) or an existing Dask cluster (`dask://HOST:PORT`), one task
per repository and one per history point, each outcome handed to `done` in the starting process as it arrives
(which writes the database); `done` answers with the tasks that outcome calls for (a repository's history points),
which run on the same workers.

A lost worker is not a failed repository: the local pool is rebuilt and the tasks it held are submitted again, and
Dask's scheduler reschedules a lost worker's task itself; a task lost MAX_ATTEMPTS times is recorded as failed with
that reason, so one repository that kills its worker cannot stall the fleet. On Dask each task runs in a forked
process of the worker (one porter.budget pool per worker process, kept from task to task), so the per-repository
timeout holds there too: Dask runs tasks in threads, where no timer can interrupt Python code, while a process past
its time is killed.
"""
from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence, Union

from porter.errors import UsageError
from porter.fleet.assess import Outcome, PointOutcome, PointTask, Task, failed, perform

MAX_ATTEMPTS = 3

AnyTask = Union[Task, PointTask]
AnyOutcome = Union[Outcome, PointOutcome]
Done = Callable[[AnyOutcome], Sequence[AnyTask]]


def describe(executor: str | None, workers: int) -> str:
    """The executor as stored with a run: `local:N` or the cluster's address."""
    return executor if executor else f"local:{workers}"


def check(executor: str | None) -> None:
    """UsageError for an executor this porter cannot run on (before a run is started for it)."""
    if executor and executor != "local" and not executor.startswith(("dask://", "tcp://")):
        raise UsageError(f"--executor {executor}: expected dask://HOST:PORT (or leave it out for the local pool)")
    if executor and executor != "local":
        import importlib

        try:  # the optional extra: said before a run is started for it
            importlib.import_module("distributed")
        except ImportError:
            raise UsageError(f"--executor {executor}: Dask is not installed "
                             "(pip install 'porter-rocm[fleet-dask]')") from None


def execute(tasks: Sequence[AnyTask], done: Done, *, executor: str | None = None, workers: int = 1) -> None:
    """Run every task and every task `done` asks for; call `done` once per task, in completion order."""
    check(executor)
    if not tasks:
        return
    if executor is None or executor in ("local", ""):
        _local(list(tasks), done, max(1, workers))
    else:
        _dask(list(tasks), done, "tcp://" + executor.split("://", 1)[1])


def lost(task: AnyTask, attempts: int) -> AnyOutcome:
    """The outcome of a task whose worker died `attempts` times."""
    return failed(task, f"its worker process died {attempts} times while assessing it (out of memory? a crash?)")


def _local(items: list[AnyTask], done: Done, workers: int) -> None:
    queue = list(range(len(items)))
    while queue:
        suspects = _pool_round(items, queue, done, workers, follow=True)
        queue = []
        # A dead worker breaks the whole pool, so every task in flight is a suspect: each is retried alone, where
        # a death is its own, and only then counted against it. The tasks a retried one calls for run next round.
        for i in suspects:
            later: list[int] = []
            for _attempt in range(2, MAX_ATTEMPTS + 1):
                if not _pool_round(items, [i], done, 1, follow=False, later=later):
                    break
            else:
                later += _give(items, done(lost(items[i], MAX_ATTEMPTS)))
            queue += later


def _give(items: list[AnyTask], new: Sequence[AnyTask]) -> list[int]:
    """Append follow-up tasks to the task list; their indices."""
    first = len(items)
    items.extend(new)
    return list(range(first, len(items)))


def _pool_round(items: list[AnyTask], todo: list[int], done: Done, workers: int, *, follow: bool,
                later: list[int] | None = None) -> list[int]:
    """Run tasks `todo` on one pool; the ones a broken pool lost (in order), every other outcome given to done.
    Follow-up tasks run on this pool (`follow`) or are added to `later`."""
    # fork: a worker starts with porter's modules already loaded (what spawn would import again, per worker).
    pool = ProcessPoolExecutor(max_workers=workers if follow else max(1, min(workers, len(todo))),
                               mp_context=multiprocessing.get_context("fork"))
    lost_ones: list[int] = []
    pending: dict[Future, int] = {}

    def submit(i: int) -> None:
        try:
            pending[pool.submit(perform, items[i])] = i
        except BrokenProcessPool:  # the pool broke before this follow-up could go out: it runs next round
            lost_ones.append(i)

    try:
        for i in todo:
            submit(i)
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    lost_ones.append(i)
                    continue
                new = _give(items, done(outcome))
                if follow:
                    for j in new:
                        submit(j)
                elif later is not None:
                    later.extend(new)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return sorted(lost_ones)


_WARM = False


def _warm() -> None:
    """Load in this process, once, what every task loads (the pipeline's modules, porter's code digest), so each
    forked child starts with it: a child of a cold Dask worker would import it all again for every repository."""
    global _WARM
    if _WARM:
        return
    import importlib

    for name in ("porter.settings", "porter.source.read", "porter.history.walk", "porter.history.points"):
        importlib.import_module(name)
    from porter.pipeline import code_digest

    code_digest()
    _WARM = True


# One budgeted pool per Dask worker process, its tasks one at a time: a second pool forked from another thread
# would inherit this one's pipe ends, and its worker would then never see this pool's end (nor this one its death).
# Parallelism on a cluster is worker processes (`dask worker --nworkers N --nthreads 1`).
_LOCK = threading.Lock()
_POOLS: dict[float, Any] = {}  # timeout -> porter.budget.Pool


def _pool(seconds: float):
    """The process's budgeted pool for tasks of this timeout: one forked process that takes task after task (warm,
    as a local pool's worker is), replaced when it overruns or dies. Call with _LOCK held."""
    from porter.budget import Budget, Pool

    if seconds not in _POOLS:
        _warm()
        for other in _POOLS.values():  # one pool at a time (see above): a run has one timeout anyway
            other.close()
        _POOLS.clear()
        # memory 0: no cap of the repository's own (each file's parse has its own budget inside the pipeline).
        _POOLS[seconds] = Pool(Budget(seconds, 0), 1)
    return _POOLS[seconds]


def shutdown() -> None:
    """End this process's pool (a Dask worker's ends with its process; tests running a cluster in-process call it)."""
    with _LOCK:
        for pool in _POOLS.values():
            pool.close()
        _POOLS.clear()


def run_bounded(task: AnyTask) -> AnyOutcome:
    """`perform(task)` in a forked process held to the task's timeout (what a Dask worker runs): past it the process
    is killed and the task recorded as taking too long; a process that dies is replaced and the task run again, up
    to MAX_ATTEMPTS times."""
    from porter.budget import Overrun

    seconds = task.options.timeout
    with _LOCK:
        pool = _pool(seconds)
        for _attempt in range(MAX_ATTEMPTS):
            (answer,) = [a for _, a in pool.map(perform, [(task,)])]
            if not isinstance(answer, Overrun):
                return answer
            if answer.kind != "died":  # time, or the run's deadline (PORTER_DEADLINE_S)
                return failed(task, f"took longer than {seconds:g} s" if answer.kind == "time" else answer.reason)
    return lost(task, MAX_ATTEMPTS)


def _key(i: int, t: AnyTask) -> str:
    return f"porter-fleet-{i}-{t.entry.name}" + (f"-{t.commit[:12]}" if isinstance(t, PointTask) else "")


def _dask(tasks: list[AnyTask], done: Done, address: str) -> None:
    try:
        from distributed import Client, as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker
    except ImportError:  # check() said so before the run; kept for a caller that did not ask it
        raise UsageError("--executor dask://…: Dask is not installed (pip install 'porter-rocm[fleet-dask]')") from None
    try:
        client = Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise UsageError(f"--executor {address}: cannot reach the Dask scheduler: {e}") from None
    count = 0

    def submit(t: AnyTask):
        nonlocal count
        count += 1
        # pure=False: two tasks for one repository are two runs, never deduplicated by Dask's hashing.
        key = _key(count, t)
        fut = client.submit(run_bounded, t, pure=False, key=key)
        futures[key] = t
        return fut

    try:
        futures: dict[str, AnyTask] = {}
        ongoing = as_completed([submit(t) for t in tasks], loop=client.loop)
        for fut in ongoing:
            task = futures[str(fut.key)]
            try:
                outcome = fut.result()
            except KilledWorker:
                # The scheduler already rescheduled it up to its allowed-failures: the worker died each time.
                outcome = lost(task, MAX_ATTEMPTS)
            except FutureCancelledError as e:
                outcome = failed(task, f"the cluster cancelled its task: {e}")
            for t in done(outcome):
                ongoing.add(submit(t))
    finally:
        client.close()
