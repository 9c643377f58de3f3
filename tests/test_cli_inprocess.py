"""porter.cli.main(argv) -> int runs a command in the caller's process (library users, and the tests' porter_here):
it must leave that process as it found it, and porter_here must give each run what a subprocess would have."""
from __future__ import annotations

import gc
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from helpers import make_repo, porter_here

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"


def _process_state() -> dict:
    return {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "signals": {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGALRM)},
        "gc": (gc.isenabled(), gc.get_threshold()),
        "recursion": sys.getrecursionlimit(),
        "logging": (list(logging.getLogger().handlers), logging.getLogger().level),
        "limits": {r: resource.getrlimit(r) for r in (resource.RLIMIT_DATA, resource.RLIMIT_AS, resource.RLIMIT_NOFILE)},
        "streams": (sys.stdout, sys.stderr, sys.stdin),
    }


def test_main_leaves_the_process_as_it_found_it(tmp_path, capsys):
    from porter.cli import main

    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    before = _process_state()
    assert main(["--no-color", "scan", str(repo), "--no-cache", "-q"]) == 0
    assert main(["scan", str(repo), "--no-cache", "-f", "json", "--fail-on", "high"]) == 1
    assert main(["translate", str(repo), "--in-place", "--engine", "builtin", "--force"]) in (0, 1)
    assert main(["translate", "--undo", str(repo)]) == 0
    assert main(["scan", str(tmp_path / "missing")]) == 2
    capsys.readouterr()
    assert _process_state() == before


def test_no_color_from_one_run_does_not_reach_the_next(tmp_path):
    from porter.cli import base

    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    assert porter_here("--no-color", "scan", str(repo), "--no-cache", "-q").returncode == 0
    assert porter_here("scan", str(repo), "--no-cache", "-q").returncode == 0
    assert base.no_color() is None  # NO_COLOR is not set here, and --no-color was the first run's alone
    assert porter_here("scan", str(repo), "--no-cache", "-q", env={"NO_COLOR": "1"}).returncode == 0
    assert base.no_color() is None


def test_porter_here_gives_what_a_subprocess_gives(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    codes = []
    for argv in (("scan", str(repo), "--no-cache", "-f", "json", "--fail-on", "high"),
                 ("scan", str(repo), "--no-cache", "-q", "--fail-on", "severe"),
                 ("scan", ".", "--no-cache", "-q")):
        here = porter_here(*argv, cwd=repo)
        there = subprocess.run([sys.executable, "-m", "porter", *argv], cwd=repo, capture_output=True, text=True,
                               timeout=300, env={**os.environ, "PORTER_CACHE_DIR": "/nonexistent-porter-cache",
                                                 "COLUMNS": "200"})
        assert (here.returncode, here.stdout, here.stderr) == (there.returncode, there.stdout, there.stderr), argv
        codes.append(here.returncode)
    assert codes == [1, 2, 0]  # the gate, a usage error and a clean run
    assert [f["rule"] for f in json.loads(porter_here("scan", str(repo), "--no-cache", "-f", "json").stdout)["findings"]]


def test_porter_here_restores_cwd_environment_and_streams(tmp_path):
    before = (os.getcwd(), dict(os.environ), sys.stdout, sys.stderr, sys.stdin)
    p = porter_here("scan", ".", "--no-cache", "-q", cwd=tmp_path, env={"PORTER_SOMETHING": "x"})
    assert (p.returncode, p.stdout, p.stderr) == (
        0, "0 findings (none); 0 files scanned, 0 files with findings; 0 kernels, 0 launch sites; 0 suppressed; "
           "0 files skipped\n", "warning: no source files found under .\n")
    assert (os.getcwd(), dict(os.environ), sys.stdout, sys.stderr, sys.stdin) == before


def test_porter_here_timeout_ends_a_run_that_does_not_return(monkeypatch):
    import porter.cli

    monkeypatch.setattr(porter.cli, "main", lambda argv: time.sleep(30) or 0)
    previous = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        porter_here("scan", ".", timeout=0.5)
    assert time.monotonic() - started < 10
    assert signal.getsignal(signal.SIGALRM) == previous
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
