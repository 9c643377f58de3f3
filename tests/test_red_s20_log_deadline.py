"""Red team, session 20: `porter history`'s own `git log` kept its 600 s timeout past the run's deadline.

Session 10 made the run's deadline (PORTER_DEADLINE_S) hold for every git porter runs through
porter.source.git.run; the history walk streams `git log --raw` through a pipe of its own
(porter.history.walk._stream_log) with a timer of LOG_SECONDS (600 s). A FIFO planted as the tree object of a
directory the last commit adds is read by that `git log` only (`rev-list --count` reads no trees, the sizes are
asked of blobs): with PORTER_DEADLINE_S=10, `porter history` was still waiting at 90 s (reproduced; 600 s
otherwise). The walk's `git log` now ends at the run's deadline too, with the message git.run gives.
"""
from __future__ import annotations

import os
import time

from helpers import git, make_repo, porter_here
from porter import budget

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"
DEADLINE = 4


def test_history_log_stops_at_the_runs_deadline(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    (repo / "b.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two")
    (repo / "d").mkdir()
    (repo / "d" / "c.cu").write_text(KERNEL + "// three\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "three")
    tree = git(repo, "rev-parse", "HEAD:d").strip()
    obj = repo / ".git" / "objects" / tree[:2] / tree[2:]
    obj.unlink()
    os.mkfifo(obj)
    monkeypatch.setattr(budget, "_STARTED", time.monotonic())
    t = time.monotonic()
    p = porter_here("history", str(repo), "--no-cache", env={"PORTER_DEADLINE_S": str(DEADLINE)}, timeout=120)
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: git log stopped at the run's deadline of {DEADLINE} s "
                                           "(PORTER_DEADLINE_S)\n")
    assert time.monotonic() - t < DEADLINE + 20
