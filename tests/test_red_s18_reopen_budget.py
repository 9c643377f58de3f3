"""Under --isolated, checking the guards a change hides its CUDA code behind reads repository content: it runs in a
budgeted worker like every other such stage, and a check that overruns leaves the finding open.

porter.diff._reopen read each head file whose finding a guard in the same file handled and lexed it
(porter.source.preprocessor.preprocess) in porter's own process, after the scan's workers had finished: no wall
clock, no memory cap, and PORTER_DEADLINE_S not kept. The lexer is superlinear on nested conditionals (4.5 MB of
nested `#if` took it 122 s), so a pull request of files each just inside the scan's per-file budget bought as much
again, serially, outside every budget. The check is made slow here (it sleeps) so the test does not depend on the
machine's speed.
"""
from __future__ import annotations

import time

from helpers import git, make_repo
from porter import diff
from porter.pipeline import run_diff
from porter.settings import Settings

PTX = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));'


def _pr(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "real_arm.cu").write_text(
        "__device__ int lane() {\n  int l;\n#ifdef USE_ROCM\n  l = __lane_id();\n#else\n"
        f"  {PTX}\n#endif\n  return l;\n}}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    return repo, base


def _statuses(run):
    return ({(f.path, str(f.status)) for f in run.result.findings if f.rule == "DEV001"},
            sorted(f.path for f in run.diff.reopened if f.rule == "DEV001"))


def test_a_guard_in_the_changed_file_is_checked_and_a_real_rocm_arm_keeps_it_handled(tmp_path):
    repo, base = _pr(tmp_path)
    run = run_diff(repo, Settings(jobs=1), new_since=base, isolated=True)
    assert _statuses(run) == ({("real_arm.cu", "handled")}, [])


def test_a_guard_check_past_its_budget_is_stopped_and_leaves_the_finding_open(tmp_path, monkeypatch):
    repo, base = _pr(tmp_path)
    real_arms = diff._arms

    def slow(pre, guard):  # the guard check's reading of the arms (the file comes from the scan's Held)
        time.sleep(20)
        return real_arms(pre, guard)

    monkeypatch.setattr(diff, "_arms", slow)
    started = time.monotonic()
    run = run_diff(repo, Settings(jobs=1, file_seconds=2), new_since=base, isolated=True)
    assert time.monotonic() - started < 15
    assert _statuses(run) == ({("real_arm.cu", "open")}, ["real_arm.cu"])
