"""Red team, session 10: git opens an object file with a blocking open, so a FIFO planted among a repository's
loose objects holds `git ls-tree -l` (scan --rev) and `git cat-file --batch-check` (history) until their own
timeouts, 120 s and 600 s, whatever the run's deadline said (reproduced: PORTER_DEADLINE_S=20, the scan ran 123 s).
The run's deadline now holds for every git porter runs, as it does for the parsers (porter.budget). The deadline
counts from the process's start (porter.budget._STARTED): the runs below are in this process with that start set
to the run's own, as a fresh process has it, so a few seconds of deadline leave as much room before git is reached
as 12 s did for a process that first imports porter; the git that blocks is a real process either way."""
from __future__ import annotations

import os
import time
from pathlib import Path

from helpers import git, make_repo, porter_here
from porter import budget

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"
DEADLINE = 4


def _fifo_object(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    blob = git(repo, "rev-parse", "HEAD:a.cu").strip()
    obj = repo / ".git" / "objects" / blob[:2] / blob[2:]
    obj.unlink()
    os.mkfifo(obj)
    return repo, git(repo, "rev-parse", "HEAD").strip()


def _porter_with_deadline(monkeypatch, *args: str):
    """porter ARGS in this process under PORTER_DEADLINE_S=DEADLINE, counted from now (the run's start)."""
    monkeypatch.setattr(budget, "_STARTED", time.monotonic())
    return porter_here(*args, env={"PORTER_DEADLINE_S": str(DEADLINE)}, timeout=90)


def test_scan_rev_stops_at_the_runs_deadline(tmp_path, monkeypatch):
    repo, head = _fifo_object(tmp_path)
    t = time.monotonic()
    p = _porter_with_deadline(monkeypatch, "scan", str(repo), "--rev", "HEAD", "--isolated", "--no-cache", "-q")
    assert (p.returncode, p.stderr) == (2, f"error: {repo}@{head[:12]}: cannot list the tree: git stopped at the "
                                           f"run's deadline of {DEADLINE} s (PORTER_DEADLINE_S)\n")
    assert time.monotonic() - t < DEADLINE + 20


def test_history_stops_at_the_runs_deadline(tmp_path, monkeypatch):
    repo, _ = _fifo_object(tmp_path)
    t = time.monotonic()
    p = _porter_with_deadline(monkeypatch, "history", str(repo), "--no-cache")
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: cannot read the sizes of the history's files: git "
                                           f"stopped at the run's deadline of {DEADLINE} s (PORTER_DEADLINE_S)\n")
    assert time.monotonic() - t < DEADLINE + 20


def test_a_killed_porter_leaves_no_git_behind(tmp_path):
    # A CI job's timeout SIGKILLs porter; the git it was waiting on (blocked on the FIFO object) must go with it.
    import signal
    import subprocess
    import sys

    from helpers import REPO, _porter_env

    repo, _ = _fifo_object(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "porter", "scan", str(repo), "--rev", "HEAD", "--isolated",
                             "--no-cache", "-q"], cwd=REPO, env=_porter_env(None), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not _gits(repo) and time.monotonic() < end and proc.poll() is None:
        time.sleep(0.2)
    assert _gits(repo), "porter never reached the git that blocks"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    end = time.monotonic() + 10
    while _gits(repo) and time.monotonic() < end:
        time.sleep(0.2)
    assert _gits(repo) == []


def _gits(repo: Path) -> list[int]:
    """git processes whose command line names `repo` and that are blocked on its FIFO object (ls-tree -l)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"git") and str(repo).encode() in argv and b"ls-tree" in argv:
            found.append(int(pid))
    return found
