"""Session 28 (fixparent): porter's own process is bounded on hostile input, not only its budgeted workers.

- The run's deadline holds in the parent: a command still at work its grace past the deadline is stopped by
  porter.budget.watch_deadline (DeadlineExceeded: a clear message, exit 2, no report), and cache hits past the
  deadline are not decoded but listed as cut by it.
- Workers die with the parent (porter.budget.die_with_parent): a SIGTERM to porter leaves none parsing under init.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import typer

from helpers import write_files
from porter import budget, pipeline
from porter.cli.base import run_command
from porter.settings import Settings


def test_a_command_past_its_deadline_and_grace_is_stopped_in_the_parent(monkeypatch, capsys):
    monkeypatch.setenv(budget.DEADLINE_ENV, "0.5")
    monkeypatch.setattr(budget, "_STARTED", time.monotonic())
    monkeypatch.setattr(budget, "MIN_GRACE_S", 0.5)
    started = time.monotonic()

    def body() -> int:  # parent-side work that never looks at a clock (rendering 100k findings)
        while True:
            sum(range(1000))

    with pytest.raises(typer.Exit) as e:
        run_command(body)
    assert e.value.exit_code == 2
    assert 0.9 <= time.monotonic() - started < 10
    assert "the run's deadline of 0.5 s (PORTER_DEADLINE_S) passed and porter was still at work 0.5 s later" in \
        " ".join(capsys.readouterr().err.split())
    assert budget._watching == []  # the watch ended with the command
    assert signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL


def test_a_command_within_its_deadline_is_not_stopped(monkeypatch):
    monkeypatch.setenv(budget.DEADLINE_ENV, "30")
    monkeypatch.setattr(budget, "_STARTED", time.monotonic())
    with pytest.raises(typer.Exit) as e:
        run_command(lambda: 0)
    assert e.value.exit_code == 0
    assert budget._watching == []


def test_the_isolated_default_is_watched_inside_a_command_only(monkeypatch):
    monkeypatch.delenv(budget.DEADLINE_ENV, raising=False)
    budget.untrusted_run(True)  # an in-process caller reading options outside a command: nothing to end its watch
    try:
        assert budget._watching == []
        seen = []

        def body() -> int:
            budget.untrusted_run(True)  # where a command's options are read
            seen.append(budget._watching[0].timer is not None)
            return 0

        with pytest.raises(typer.Exit):
            run_command(body)
        assert seen == [True] and budget._watching == []
    finally:
        budget.untrusted_run(False)


KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = __shfl_down_sync(0xffffffff, a[0], 1); }\n"


def test_cache_hits_past_the_deadline_are_listed_cut_not_decoded(tmp_path, monkeypatch):
    write_files(tmp_path / "t", {"a.cu": KERNEL, "b.cu": KERNEL})
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    assert len(pipeline.run(tmp_path / "t", settings).result.findings) > 0  # warms the cache
    monkeypatch.setenv(budget.DEADLINE_ENV, "1")
    monkeypatch.setattr(budget, "_STARTED", time.monotonic() - 5)
    result = pipeline.run(tmp_path / "t", settings).result
    late = "the run's deadline of 1 s (PORTER_DEADLINE_S) passed before porter got to scan; skipped"
    assert [(s.path, s.reason) for s in result.skipped] == [("a.cu", late), ("b.cu", late)]
    assert result.findings == ()


CHILD = textwrap.dedent("""
    import sys, time
    from porter.budget import Budget, Pool
    with Pool(Budget(seconds=120, memory=0), 2) as pool:
        for _ in pool.map(time.sleep, [(120,), (120,)]):
            pass
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_die_with_a_terminated_parent(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", CHILD], cwd=os.path.dirname(os.path.dirname(__file__)))
    try:
        workers: list[int] = []
        for _ in range(200):  # the two workers are forked as the tasks go out
            try:
                with open(f"/proc/{parent.pid}/task/{parent.pid}/children") as f:
                    workers = [int(p) for p in f.read().split()]
            except FileNotFoundError:
                pass
            if len(workers) == 2:
                break
            time.sleep(0.05)
        assert len(workers) == 2
        parent.send_signal(signal.SIGTERM)
        parent.wait(10)
        end = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_build_files_past_the_parent_s_byte_bound_are_listed_unseen(tmp_path, monkeypatch):
    """Which sources CMake compiles as CUDA is read from every build file's text, held at once in porter's own
    process: past pipeline.BUILD_TEXT_BYTES the later build files are listed unseen (a gate fails), not read."""
    first = "project(x LANGUAGES CXX CUDA)\nadd_library(x a.cu)\n"
    write_files(tmp_path / "t", {"CMakeLists.txt": first, "a.cu": KERNEL, "b/k.cup": KERNEL,
                                 "b/CMakeLists.txt": "set_source_files_properties(k.cup PROPERTIES LANGUAGE CUDA)\n"})
    monkeypatch.setattr(pipeline, "BUILD_TEXT_BYTES", len(first) + 1, raising=False)  # red on code without it
    result = pipeline.run(tmp_path / "t", Settings(jobs=1, cache_dir=None)).result
    reason = pipeline.BUILD_TEXT_PAST.format(0)
    assert [(s.path, s.reason, s.unseen) for s in result.skipped] == [("b/CMakeLists.txt", reason, True)]
    assert "b/k.cup" not in {f.path for f in result.findings}
    monkeypatch.setattr(pipeline, "BUILD_TEXT_BYTES", 1 << 20)
    result = pipeline.run(tmp_path / "t", Settings(jobs=1, cache_dir=None)).result
    assert result.skipped == () and "b/k.cup" in {f.path for f in result.findings}
