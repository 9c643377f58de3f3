"""history's per-commit harvest of repository facts (macros, constants, directives) runs in budgeted workers, as a
scan's does (porter.budget): a blob whose facts would take minutes stops at the per-file budget, the walk goes on,
and a notice names the file. The slow lexer is simulated by making porter's own facts_of sleep on one marker, in
the forked worker that inherits it; a walk that ran it in-process would sleep the full 600 s."""
from __future__ import annotations

import signal
import time

from helpers import git, make_repo
from porter import pipeline
from porter.history.points import history
from porter.history.walk import walk
from porter.settings import Settings

KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"
MARKER = b"SLOW_FACTS_MARKER"


def test_a_blob_whose_facts_overrun_is_noted_and_the_walk_finishes(tmp_path, monkeypatch):
    root = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    (root / "slow.cuh").write_text("// SLOW_FACTS_MARKER\n#define QUAL __device__\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "slow header")
    real = pipeline.facts_of

    def facts_of(data: bytes):
        if MARKER in data:
            time.sleep(600)
        return real(data)

    monkeypatch.setattr(pipeline, "facts_of", facts_of)

    def too_long(*_):
        raise TimeoutError("the facts harvest is not bounded by the budget")

    signal.signal(signal.SIGALRM, too_long)  # the test's own bound (a forked worker does not inherit the alarm)
    signal.alarm(120)
    started = time.monotonic()
    try:
        h = history(walk(root), Settings(jobs=1, file_seconds=3))
    finally:
        signal.alarm(0)
    assert time.monotonic() - started < 120
    assert len(h.points) == 2
    assert [n for n in h.notices if "slow.cuh" in n] == [
        "slow.cuh: reading its macros and constants took longer than 3 s; other files are scanned without them"]
