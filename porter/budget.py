"""Run work on untrusted repository content where a limit can stop it: forked worker processes with a wall clock
and a memory cap, killed and replaced when they overrun or die.

A PR bot runs porter on strangers' code, and parsers are C (tree-sitter, libclang, the regex engines): a Python
timer cannot interrupt them and a MemoryError is not what they raise. So every stage that parses or lexes
repository content hands the work to a `Pool` here, whatever `--jobs` says:

- each worker is forked from the scan's process (it inherits the rules and repository facts, nothing is pickled
  but the task and its answer) and capped with RLIMIT_DATA at what it already holds plus `Budget.memory`;
- the parent gives each task `Budget.seconds` of wall clock (from when the worker starts it) and SIGKILLs a
  worker past that; a worker that dies (killed by us, a segfault on a failed allocation, the OOM killer) is
  reaped, the task it was running gets an `Overrun` with the reason, and a fresh worker takes the rest;
- a task's exception is raised again in the parent, as if the work had run there.

`Pool.map` yields each task's answer or `Overrun` as it comes; `run_stage` is one budgeted call (a whole stage).

A whole run may also have a deadline (`PORTER_DEADLINE_S`, seconds from the start of the process; none by default,
ISOLATED_DEADLINE_S under `--isolated`):
a CI job killed by its own timeout posts nothing, while a run that stops itself reports what it finished. Every
stage's parsing goes through a Pool, so the deadline is kept here, once: past it a running task is killed and every
task not yet started is answered with an Overrun of kind "deadline" without starting, so the scan ends with the
files done so far and lists the rest as skipped ("not scanned: the run's deadline of 600 s passed").
Porter code that calls tree-sitter's `Parser.parse` / `QueryCursor` or libclang's `Index.parse` runs only inside
these workers (tests/test_budget.py checks it statically).
"""
from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe, wait
from typing import Any, Callable, Iterable, Iterator

from porter.errors import UsageError

MIB = 1024 * 1024
DEADLINE_ENV = "PORTER_DEADLINE_S"
_STARTED = time.monotonic()  # the process's start, as near as porter sees it (this module is imported early)
# A worker that died by a signal after growing its resident size this close to its cap ran out of memory
# (tree-sitter segfaults or aborts on a failed allocation instead of raising).
NEAR_CAP = 0.8
# The signals a failed allocation ends a process with: C code that dereferences the NULL (SIGSEGV, or SIGBUS on a
# mapping), that aborts (tree-sitter's allocator), or the kernel's OOM killer (SIGKILL). Any other signal is a crash.
_OUT_OF_MEMORY_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGKILL})


@dataclass(frozen=True)
class Budget:
    """What one task may take: `seconds` of wall clock (0: no limit) and `memory` bytes of heap on top of what the
    worker holds when it starts (0: no limit)."""

    seconds: float = 30.0
    memory: int = 2048 * MIB


@dataclass(frozen=True)
class Overrun:
    """A task that did not finish within its budget: `reason` is a phrase a skip message starts with ("took longer
    than 30 s", "needed more than 2048 MiB", "parser process died (signal 11)"); `kind` is time, memory or died."""

    reason: str
    kind: str


class DeadlineError(UsageError):
    """PORTER_DEADLINE_S is not a positive number of seconds."""


# The deadline of a run on untrusted code (`--isolated`) that names none: a PR bot's job must end with a report
# rather than be killed by its CI's timeout (GitHub's default job timeout is 360 minutes; a hostile change of 50,000
# files at 30 s each would run for weeks). PORTER_DEADLINE_S, when set, wins.
ISOLATED_DEADLINE_S = 1800.0
_default_deadline: float | None = None


def untrusted_run(untrusted: bool) -> None:
    """Whether this process's run has the --isolated default deadline (ISOLATED_DEADLINE_S) when PORTER_DEADLINE_S
    names none. Set where every command's options are read (porter.cli.options.command_line), so an in-process
    caller's next command does not inherit the last one's."""
    global _default_deadline
    _default_deadline = ISOLATED_DEADLINE_S if untrusted else None
    rewatch_deadline()  # the running command's watch (if any) by this deadline


def run_deadline() -> tuple[float, float] | None:
    """(the monotonic time the run must end by, the seconds it was given) from PORTER_DEADLINE_S, else the
    --isolated default (untrusted_run), or None."""
    text = os.environ.get(DEADLINE_ENV, "").strip()
    if not text:
        return None if _default_deadline is None else (_STARTED + _default_deadline, _default_deadline)
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (0 < seconds < float("inf")):
        raise DeadlineError(f"{DEADLINE_ENV}={text!r}: give a positive number of seconds")
    return _STARTED + seconds, seconds


# The deadline holds in porter's own process too. The workers stop at it (Pool), but what the parent does with
# their answers - cache hits decoded, port status, matching, rendering - ran unbounded: 116,000 cached findings took
# the parent 390 s to render as markdown and more than 26 minutes as HTML past a 20 s deadline. So a command's run
# is watched by one timer (watch_deadline): at the deadline the workers' stages end with what they finished, and the
# parent then has DEADLINE_GRACE of the deadline (at least MIN_GRACE_S) to write it; past that, DeadlineExceeded
# ends the command wherever it is, with a clear message, exit status 2 and no report (a CI job killed by its own
# timeout is no worse informed, and a gate fails rather than passes what porter never finished reading).
DEADLINE_GRACE = 0.1
MIN_GRACE_S = 10.0


class DeadlineExceeded(BaseException):
    """The run's deadline and its grace passed with porter's own process still at work (watch_deadline). A
    BaseException, as KeyboardInterrupt is, so no stage's `except Exception` turns it into a notice and carries
    on; porter.cli.base.run_command reports it (exit 2)."""

    exit_code = 2


def _grace(seconds: float) -> float:
    return max(MIN_GRACE_S, DEADLINE_GRACE * seconds)


def _alarm(signum: int, frame: Any) -> None:
    d = run_deadline()
    seconds = d[1] if d is not None else 0.0
    raise DeadlineExceeded(f"the run's deadline of {seconds:g} s ({DEADLINE_ENV}) passed and porter was still at "
                           f"work {_grace(seconds):g} s later (past what its workers finished, in its own process: "
                           "cached results, port status or the report): stopped, no report written")


# The signal whose handler the watch runs in the main thread (a timer thread asks for it with
# _thread.interrupt_main, which sends nothing to the process): not SIGALRM, whose real-time timer porter's regex
# slices (porter.match.regex) and an in-process caller's timeout own.
_WATCH_SIGNAL = signal.SIGUSR2


class _Watch:
    """The running command's watch: when it began, its timer thread (None: no deadline), the handler it replaced."""

    def __init__(self, began: float):
        self.began = began
        self.timer: Any = None
        self.previous: Any = None


_watching: list[_Watch] = []


def watch_deadline() -> None:
    """Watch the command starting now (porter.cli.base.run_command): DeadlineExceeded is raised in the main thread at
    the run's deadline plus its grace (_grace), counted from the deadline or from the command's start if that is
    later (an in-process caller's next command, in a process that started long ago, still gets its grace to report).
    A run with no deadline has no timer; a command not started in the main thread is not watched. The deadline is
    read again where the command's options are read (rewatch_deadline: the --isolated default is known only then);
    unwatch_deadline ends the watch."""
    import threading

    unwatch_deadline()
    if threading.current_thread() is not threading.main_thread():
        return
    _watching.append(_Watch(time.monotonic()))
    rewatch_deadline()


def rewatch_deadline() -> None:
    """Set the running command's timer by the deadline as it is now (nothing when no command is watched)."""
    import _thread
    import threading

    if not _watching:
        return
    watch = _watching[0]
    if watch.timer is not None:
        watch.timer.cancel()
        watch.timer = None
    try:
        d = run_deadline()
    except DeadlineError:
        return  # the first budgeted stage reports it, as it always did
    if d is None:
        return
    if watch.previous is None:
        watch.previous = signal.signal(_WATCH_SIGNAL, _alarm)
    left = max(0.001, max(d[0], watch.began) + _grace(d[1]) - time.monotonic())
    watch.timer = threading.Timer(left, _thread.interrupt_main, (_WATCH_SIGNAL,))
    watch.timer.daemon = True
    watch.timer.start()


def unwatch_deadline() -> None:
    """End the command's watch: its timer is cancelled and the previous handler restored."""
    if not _watching:
        return
    watch = _watching.pop()
    if watch.timer is not None:
        watch.timer.cancel()
        watch.timer.join()
    if watch.previous is not None:
        signal.signal(_WATCH_SIGNAL, watch.previous)


DEADLINE_KIND = "deadline"
# An Overrun's kind when the task raised (a porter bug on what a repository holds: an OverflowError on a 2**1050-byte
# array, a UnicodeEncodeError on a name): its reason starts with FAILED, which a skip or a notice carries, and a
# gate counts a file skipped so (porter.model.finding.UNSEEN_REASONS).
ERROR_KIND = "error"
FAILED = "failed (internal error"


def is_bug(exc: BaseException) -> bool:
    """Whether a task's exception is a porter bug on what the task read (a built-in exception: OverflowError,
    UnicodeError, KeyError, RecursionError, ...), answered with task_failed. porter's own exceptions (a usage error,
    a git failure its caller reports), the system's (OSError: a file gone) and interrupts are raised in the parent
    as they would be in its process."""
    return isinstance(exc, Exception) and type(exc).__module__ == "builtins" and not isinstance(exc, OSError)


def task_failed(exc: BaseException) -> Overrun:
    """The answer a task that raised `exc` gets instead of ending the run (exit 3, no report at all): the stage
    treats it as a task past its budget, so a per-file stage skips that file naming it and a whole stage says in a
    notice that it gave no answer."""
    return Overrun(f"{FAILED}: {type(exc).__name__}: {str(exc)[:200]}); please report it", ERROR_KIND)


def cut_by_deadline(reasons: Iterable[str]) -> int:
    """How many of these skip reasons say the run's deadline passed (a gate must not pass code it never saw)."""
    return sum(1 for r in reasons if f"({DEADLINE_ENV}) passed" in r)


def deadline_passed() -> Overrun | None:
    """The Overrun a task gets when the run's deadline has passed (None while there is time or no deadline)."""
    d = run_deadline()
    if d is None or time.monotonic() < d[0]:
        return None
    return Overrun(f"the run's deadline of {d[1]:g} s ({DEADLINE_ENV}) passed", DEADLINE_KIND)


class _TaskError:
    """A task's exception, carried back to the parent (pickled as itself when it can be)."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def _resident_bytes(pid: int) -> int:
    """A process's resident size now (/proc/PID/statm), 0 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(extra: int) -> None:
    """Cap this process's data segment at what it holds now plus `extra` (a fork inherits the parent's heap, so a
    fixed cap would starve a worker of a big parent)."""
    if extra <= 0:
        return
    held = 0
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmData:"):
                    held = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = held + extra
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError):  # pragma: no cover - a platform without the limit: the clock still holds
        pass


# prctl(2)'s PR_SET_PDEATHSIG: the signal a process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1
_prctl: list[Any] = []  # libc's prctl, looked up once in the parent (never first in a forked child)


def _libc_prctl() -> Any:
    if not _prctl:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                fn = ctypes.CDLL(None, use_errno=True).prctl
            except (OSError, AttributeError):  # pragma: no cover - a libc without prctl: the parent's kill only
                fn = None
        _prctl.append(fn)
    return _prctl[0]


def die_with_parent(parent: int) -> None:
    """In a forked child: be SIGKILLed when porter's process ends, however it ends (SIGTERM from a CI runner,
    SIGKILL, a crash), and end now if it already has. A worker works for nobody once its parent is gone: without
    this, a SIGTERM to porter left its workers parsing on under init, holding their memory."""
    prctl = _libc_prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent ended between the fork and the prctl
        os._exit(0)


_IN_WORKER = False


def in_worker() -> bool:
    """Whether this process is a budgeted worker (tests check that parsers run only where this holds)."""
    return _IN_WORKER


def _serve(conn: Connection, budget: Budget, init: Callable[[], None] | None) -> None:
    """A worker's loop: run each task of each chunk it is sent, answering per task, until the pipe closes."""
    global _IN_WORKER
    _IN_WORKER = True
    faulthandler.disable()  # a crash here is the parent's to report ("parser process died"), not a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the parent handles Ctrl-C and kills its workers
    signal.signal(_WATCH_SIGNAL, signal.SIG_DFL)  # the parent's deadline watch (watch_deadline) is not a worker's
    _limit_memory(budget.memory)
    if init is not None:
        init()
    while True:
        try:
            fn, chunk = conn.recv()
        except (EOFError, OSError):
            return
        for i, args in chunk:
            try:
                answer: Any = fn(*args)
            except MemoryError:
                answer = Overrun(f"needed more than {budget.memory // MIB} MiB", "memory")
            except BaseException as e:  # noqa: BLE001 - raised again in the parent
                answer = _TaskError(e)
            for stream in (sys.stdout, sys.stderr):  # a worker ends by os._exit, which flushes nothing
                try:
                    stream.flush()
                except (AttributeError, OSError, ValueError):
                    pass
            try:
                conn.send((i, answer))
            except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as e:
                # RecursionError: an answer (or a task's exception) nested past the limit pickles no better
                conn.send((i, _TaskError(RuntimeError(f"a budgeted task's answer cannot be sent: {e!r:.200}"))))
            if isinstance(answer, Overrun):
                return  # a heap that hit the cap is fragmented: a fresh worker takes the next task


class _Slot:
    """One worker process as the parent sees it: its pipe, and the chunk it is working through."""

    def __init__(self, pid: int, conn: Connection, born_rss: int = 0):
        self.pid = pid
        self.conn = conn
        self.chunk: deque[int] = deque()
        self.deadline = float("inf")
        # The worker's resident size as it was born: a fork starts out holding the parent's anonymous pages, and
        # its peak resident size (what wait4 reports) counts them, so only the growth past this says whether it
        # ran into its memory cap.
        self.born_rss = born_rss


class Pool:
    """Up to `workers` forked worker processes under one `Budget`, started when the first task needs one (a run
    whose every answer is cached starts none). `init` runs in each worker after the fork. Use as a context
    manager: leaving it ends the workers."""

    def __init__(self, budget: Budget, workers: int = 1, init: Callable[[], None] | None = None, *,
                 raises: bool = False):
        self.budget = budget
        self.workers = max(1, workers)
        self.init = init
        # With `raises`, every exception a task raises is raised in the parent (a caller whose task's exceptions are
        # its answers: tomllib's ValueError is "not TOML"); else a built-in one is answered with task_failed.
        self.raises = raises
        self._slots: list[_Slot] = []
        self.started = 0  # worker processes forked, replacements included (for tests and benchmarks)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self) -> _Slot:
        # What the parent has buffered is written now, so a worker that writes (a progress line) and flushes never
        # writes the parent's buffered text a second time.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        parent_end, child_end = Pipe()
        _libc_prctl()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's side is measured by what the parent receives
            code = 0
            try:
                die_with_parent(parent)
                parent_end.close()
                for s in self._slots:  # other workers' pipes: a worker must not keep a sibling's pipe open
                    s.conn.close()
                _serve(child_end, self.budget, self.init)
            except BaseException:  # noqa: BLE001 - a worker never returns into the parent's code
                code = 70
            finally:
                os._exit(code)
        child_end.close()
        self.started += 1
        # Read from the child itself, not the parent: the fork copies the page tables of the anonymous mappings
        # only (a shared library's pages come back lazily), so the parent's own size overstates it by every page of
        # its libraries (libclang's alone is ~100 MiB). Read before the worker is sent a task, so it is the size it
        # was born with (plus what `init` and the memory cap take, a few pages).
        slot = _Slot(pid, parent_end, _resident_bytes(pid))
        self._slots.append(slot)
        return slot

    def _end(self, slot: _Slot, kill: bool) -> tuple[int, Any]:
        """Stop (with kill) and reap a worker; its wait status and resource usage."""
        self._slots.remove(slot)
        slot.conn.close()
        if kill:
            try:
                os.kill(slot.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status, usage = os.wait4(slot.pid, 0)
        return status, usage

    def _death(self, slot: _Slot, status: int, usage: Any) -> Overrun:
        """How a worker that stopped answering died: out of memory only if it died by a signal an allocation that
        failed at its cap ends a process with and had grown to near that cap (a crash in a worker forked from a
        big parent starts near it, or past it, without having allocated anything)."""
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            grown = usage.ru_maxrss * 1024 - slot.born_rss
            if self.budget.memory and sig in _OUT_OF_MEMORY_SIGNALS and grown >= NEAR_CAP * self.budget.memory:
                return Overrun(f"needed more than {self.budget.memory // MIB} MiB", "memory")
            return Overrun(f"parser process died (signal {sig})", "died")
        return Overrun(f"parser process died (exit status {os.WEXITSTATUS(status)})", "died")

    def close(self) -> None:
        for slot in list(self._slots):
            self._end(slot, kill=True)

    def map(self, fn: Callable[..., Any], tasks: Iterable[tuple], chunk: int = 1) -> Iterator[tuple[int, Any]]:
        """(index, fn(*task) or Overrun) for every task, in the order they finish; a task's exception is raised
        here. `fn` must be a module-level function (it is sent by name). Tasks go out `chunk` at a time (fewer
        hand-offs); the clock runs per task."""
        tasks = list(tasks)
        queue: deque[list[int]] = deque(list(range(i, min(i + chunk, len(tasks))))
                                        for i in range(0, len(tasks), max(1, chunk)))
        seconds = self.budget.seconds
        run_end = run_deadline()
        end = run_end[0] if run_end is not None else float("inf")

        def clock() -> float:  # a task's deadline: its budget from now, never past the run's
            return min(time.monotonic() + seconds if seconds > 0 else float("inf"), end)

        busy: list[_Slot] = []
        try:
            while queue or busy:
                if queue and time.monotonic() >= end:
                    late = deadline_passed() or Overrun("the run's deadline passed", DEADLINE_KIND)
                    while queue:  # never started: answered at once, so the run ends with what it finished
                        for i in queue.popleft():
                            yield i, late
                    continue
                while queue and len(busy) < self.workers:
                    idle = [s for s in self._slots if s not in busy]
                    slot = idle[0] if idle else self._start()
                    part = queue.popleft()
                    slot.chunk = deque(part)
                    slot.conn.send((fn, [(i, tasks[i]) for i in part]))
                    slot.deadline = clock()
                    busy.append(slot)
                timeout = min(s.deadline for s in busy) - time.monotonic()
                ready = set(wait([s.conn for s in busy], timeout=None if timeout == float("inf") else max(0, timeout)))
                for slot in list(busy):
                    if slot.conn in ready:
                        failure: Overrun | None = None
                        while slot.chunk:
                            try:
                                if not slot.conn.poll():
                                    break
                                i, answer = slot.conn.recv()
                            except (EOFError, OSError):  # it died: killed, a crash in C code, out of memory
                                # (SIGKILL to a dead worker is harmless; wait4 still gives how it died)
                                failure = self._death(slot, *self._end(slot, kill=True))
                                break
                            slot.chunk.remove(i)
                            slot.deadline = clock()
                            if isinstance(answer, _TaskError):
                                if self.raises or not is_bug(answer.exc):
                                    raise answer.exc
                                yield i, task_failed(answer.exc)
                                continue
                            yield i, answer
                            if isinstance(answer, Overrun):  # the worker ends itself after a MemoryError
                                self._end(slot, kill=True)
                                break
                        if slot not in self._slots:
                            busy.remove(slot)
                            if failure is not None and slot.chunk:
                                yield slot.chunk.popleft(), failure
                            if slot.chunk:
                                queue.appendleft(list(slot.chunk))
                            continue
                        if not slot.chunk:
                            busy.remove(slot)  # idle: the next chunk goes to it, no new process
                            continue
                    if time.monotonic() >= slot.deadline:
                        self._end(slot, kill=True)
                        busy.remove(slot)
                        cut = deadline_passed() if slot.deadline >= end else None
                        yield slot.chunk.popleft(), cut or Overrun(f"took longer than {seconds:g} s", "time")
                        if slot.chunk:
                            queue.appendleft(list(slot.chunk))
        except BaseException:
            for slot in busy:
                if slot in self._slots:
                    self._end(slot, kill=True)
            raise


def run_stage(fn: Callable[..., Any], args: tuple, budget: Budget, *, raises: bool = False) -> Any:
    """fn(*args) in one budgeted worker: its answer, or an Overrun when it ran out of time or memory, died, or
    raised a built-in exception (task_failed; with `raises`, that exception is raised here instead)."""
    with Pool(budget, 1, raises=raises) as pool:
        for _, answer in pool.map(fn, [args]):
            return answer
    raise AssertionError("unreachable: a pool answers every task")


# What run_inherited's worker calls: set before the worker forks, so the callables and their arguments (a scan
# result, a cache, closures) reach it through the fork and only the answers cross the pipe.
_INHERITED: tuple[tuple[Callable[..., Any], tuple], ...] | None = None


def run_inherited(fn: Callable[..., Any], args: tuple, budget: Budget) -> Any:
    """fn(*args) in one budgeted worker, as run_stage, with `fn` and `args` inherited by the forked worker instead of
    pickled to it (what a stage after the scan reads is large, and may hold what does not pickle)."""
    return run_inherited_all([(fn, args)], budget)[0]


def run_inherited_all(calls: list[tuple[Callable[..., Any], tuple]], budget: Budget) -> list[Any]:
    """Each fn(*args) of `calls`, in order, as run_inherited runs one, but one worker for all of them: each call has
    `budget`'s clock of its own (from when it starts), and one that overruns is answered with its Overrun while the
    calls after it go to a fresh worker, forked from this same state. Stages that read the same state and each other's
    answers not (kernel analysis, port status) pay one fork instead of one each; the worker's memory cap is set
    once, at its fork, as for any worker that runs several tasks (Pool)."""
    global _INHERITED
    _INHERITED = tuple(calls)
    answers: list[Any] = [None] * len(calls)
    try:
        with Pool(budget, 1) as pool:
            for i, answer in pool.map(_inherited_task, [(i,) for i in range(len(calls))], chunk=len(calls)):
                answers[i] = answer
    finally:
        _INHERITED = None
    return answers


def _inherited_task(i: int = 0) -> Any:
    assert _INHERITED is not None, "run_inherited sets the task before the worker forks"
    fn, args = _INHERITED[i]
    return fn(*args)


# Files a whole stage (port status, translate) covers per `Budget.seconds` it gets: the stages after the scan do
# less per file than the scan (a directive lexer, the build files), and a stage of a big repository must not be
# held to one file's time.
FILES_PER_STAGE_BUDGET = 100


def stage_budget(per_file: Budget, files: int) -> Budget:
    """The budget of a stage over `files` files: the per-file seconds for every FILES_PER_STAGE_BUDGET files (at
    least once), the per-file memory."""
    if per_file.seconds <= 0:
        return per_file
    return Budget(per_file.seconds * max(1, -(-files // FILES_PER_STAGE_BUDGET)), per_file.memory)


# ------------------------------------------------------------------------------------------ external tools

# A compiler (`port --verify`, `translate --verify`) reads the repository's sources as surely as a parser does: a
# 3-line macro bomb grows clang past 1 GiB in 30 s, an `#include` of a FIFO in the tree waits forever, and
# `-Wall` on a macro that repeats a warned statement prints without end. hipcc is a Perl driver that runs clang as
# a child: killing hipcc at a timeout leaves clang running, orphaned, with nobody to stop it. So every external
# tool porter runs on repository content goes through run_tool: its own process group (killed whole), the memory
# cap on every process of it (rlimits are inherited), and a bound on the output kept.
TOOL_BUDGET = Budget(seconds=300.0, memory=4096 * MIB)
TOOL_OUTPUT = 8 * MIB  # of stdout and of stderr each: a compiler's first error is in its first lines
TOOL_MEMORY_ENV = "PORTER_TOOL_MEMORY_MIB"
_OUT_OF_MEMORY = ("out of memory", "bad_alloc", "cannot allocate memory", "memory exhausted")


@dataclass(frozen=True)
class ToolRun:
    """What an external tool did: its exit status (negative: the signal that ended it; None when stopped for an
    overrun), the first TOOL_OUTPUT bytes of each stream as text, and the Overrun that stopped it, if any."""

    returncode: int | None
    stdout: str
    stderr: str
    overrun: Overrun | None = None
    confined: bool = False  # the tool could open only what it was given (porter.contain.confinement)
    raw_stdout: bytes = b""  # stdout's bytes as written (hipify-perl prints the translated file there)


def tool_budget(seconds: float | None = None) -> Budget:
    """TOOL_BUDGET with `seconds` (a caller's --timeout) and the memory PORTER_TOOL_MEMORY_MIB names."""
    memory = TOOL_BUDGET.memory
    text = os.environ.get(TOOL_MEMORY_ENV, "").strip()
    if text:
        try:
            memory = int(text) * MIB
        except ValueError:
            raise UsageError(f"{TOOL_MEMORY_ENV}={text!r}: give a whole number of MiB") from None
    return Budget(TOOL_BUDGET.seconds if seconds is None else seconds, memory)


def _tool_limits(memory: int, confine: Callable[[], None] | None) -> Callable[[], None]:
    def limit() -> None:  # in the child, before exec: inherited by every process the tool starts
        if memory > 0:
            resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core of the repository's data
        if confine is not None:
            confine()
    return limit


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_tool(cmd: list[str], budget: Budget | None = None, *, env: dict[str, str] | None = None,
             cwd: str | os.PathLike | None = None, output: int = TOOL_OUTPUT, reads: tuple = (),
             writes: tuple = (), tools: tuple = ()) -> ToolRun:
    """Run `cmd` (stdin empty) under `budget` (tool_budget() by default) and the run's deadline: the wall clock
    counts until every process of the tool has closed its output, the memory cap holds for each of them, and the
    whole process group is killed when the clock runs out, the output passes `output` bytes, or the tool is done
    (a child it left behind works for nobody). Given `reads` (the tree) or `writes` (its temporary directory), the
    tool is confined to them and the toolchain's system directories (porter.contain.confinement) where the kernel
    can (ToolRun.confined says whether it was: a caller shows an unconfined tool's output by place only); `tools`
    are directories of the tool's own installation outside those system directories, readable and executable."""
    import selectors
    import subprocess

    from porter import contain

    budget = budget or tool_budget()
    seconds = budget.seconds if budget.seconds > 0 else float("inf")
    passed = deadline_passed()
    if passed is not None:
        return ToolRun(None, "", "", passed)
    d = run_deadline()
    late = d is not None and d[0] - time.monotonic() < seconds
    if d is not None:
        seconds = min(seconds, d[0] - time.monotonic())
    jail = contain.confinement(reads, writes, tools) if (reads or writes) else None
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=cwd, start_new_session=True,
                                preexec_fn=_tool_limits(budget.memory, jail.apply if jail is not None else None))
    finally:
        confined = jail is not None and jail.available
        if jail is not None:
            jail.close()
    streams: dict[int, bytearray] = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}  # type: ignore[union-attr]
    end = time.monotonic() + seconds
    overrun: Overrun | None = None
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
            sel.register(proc.stderr, selectors.EVENT_READ)  # type: ignore[arg-type]
            while sel.get_map() and overrun is None:
                left = end - time.monotonic()
                if left <= 0:
                    overrun = deadline_passed() if late else None
                    overrun = overrun or Overrun(f"took longer than {budget.seconds:g} s", "time")
                    break
                for key, _ in sel.select(min(left, 1.0)):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        sel.unregister(key.fileobj)
                        continue
                    buf = streams[key.fd]
                    if len(buf) + len(chunk) > output:
                        buf += chunk[:output - len(buf)]
                        overrun = Overrun(f"printed more than {output // MIB} MiB", "output")
                        break
                    buf += chunk
    finally:
        _kill_group(proc.pid)
        code = proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    raw = bytes(streams[next(iter(streams))])
    out = raw.decode("utf-8", "replace")
    err = bytes(list(streams.values())[1]).decode("utf-8", "replace")
    if overrun is None and budget.memory > 0 and code != 0 and any(m in err.lower() for m in _OUT_OF_MEMORY):
        overrun = Overrun(f"needed more than {budget.memory // MIB} MiB", "memory")
    return ToolRun(None if overrun is not None and overrun.kind != "memory" else code, out, err, overrun, confined,
                   raw)
