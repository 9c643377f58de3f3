"""A whole-run deadline (PORTER_DEADLINE_S, porter.budget): past it the scan ends with the files it finished, lists
the rest as skipped saying why, and a `--fail-on` gate fails rather than pass code it never saw."""
from __future__ import annotations

import json
import time

from helpers import porter_here, write_files
from porter import budget, pipeline
from porter.pipeline import run
from porter.settings import Settings

KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = __shfl_down_sync(0xffffffff, a[0], 1); }\n"
LATE = "the run's deadline of 4 s (PORTER_DEADLINE_S) passed before porter got to scan; skipped"


def test_past_the_deadline_the_scan_keeps_what_it_finished(tmp_path, monkeypatch):
    write_files(tmp_path / "t", {"a.cu": KERNEL, "m.cu": "// SLOW\n" + KERNEL, "z.cu": KERNEL})
    real = pipeline.scan_candidate

    def scan_candidate(c, *args, **kw):
        if c.path == "m.cu":
            time.sleep(600)  # in the forked worker: only the deadline can stop it (the file budget is 300 s)
        return real(c, *args, **kw)

    monkeypatch.setattr(pipeline, "scan_candidate", scan_candidate)
    monkeypatch.setenv("PORTER_DEADLINE_S", "4")
    monkeypatch.setattr(budget, "_STARTED", time.monotonic())
    started = time.monotonic()
    result = run(tmp_path / "t", Settings(jobs=1, file_seconds=300, cache_dir=None)).result
    assert time.monotonic() - started < 60
    assert [(s.path, s.reason) for s in result.skipped] == [("m.cu", LATE), ("z.cu", LATE)]
    assert sorted({f.path for f in result.findings}) == ["a.cu"]


def test_the_gate_fails_when_the_deadline_cut_the_scan(tmp_path):
    write_files(tmp_path / "t", {"a.cu": "int x;\n"})
    # In this process: a deadline 1 ms after the process started has passed here as surely as in a fresh process
    # (whose imports alone take longer).
    late = porter_here("scan", str(tmp_path / "t"), "--no-cache", "--fail-on", "high", "--format", "json",
                       env={"PORTER_DEADLINE_S": "0.001"})
    assert late.returncode == 1, late.stderr
    assert json.loads(late.stdout)["skipped"][0]["path"] == "a.cu"
    assert ("warning: the run's deadline (PORTER_DEADLINE_S) passed; 1 file(s) were not scanned and are listed as "
            "skipped; --fail-on fails rather than pass code it did not see") in " ".join(late.stderr.split())
    ungated = porter_here("scan", str(tmp_path / "t"), "--no-cache", env={"PORTER_DEADLINE_S": "0.001"})
    assert ungated.returncode == 0, ungated.stderr
    bad = porter_here("scan", str(tmp_path / "t"), "--no-cache", env={"PORTER_DEADLINE_S": "soon"})
    assert bad.returncode == 2
    assert "PORTER_DEADLINE_S='soon': give a positive number of seconds" in bad.stderr


def test_an_isolated_run_has_a_deadline_when_the_job_names_none(tmp_path, monkeypatch):
    """--isolated is the PR bot's run on a stranger's change: it ends by budget.ISOLATED_DEADLINE_S (here 1 ms after
    the process started, long past) even with PORTER_DEADLINE_S unset, and its gate fails rather than pass the
    files it never scanned. The same scan without --isolated has no deadline, and the next in-process command does
    not inherit the last one's."""
    write_files(tmp_path / "t", {"a.cu": KERNEL})
    monkeypatch.delenv("PORTER_DEADLINE_S", raising=False)
    monkeypatch.setattr(budget, "ISOLATED_DEADLINE_S", 0.001)
    args = ("scan", str(tmp_path / "t"), "--no-cache", "--fail-on", "blocker", "--format", "json")
    cut = porter_here(*args, "--isolated", env={"PORTER_DEADLINE_S": ""})
    assert cut.returncode == 1, cut.stderr
    assert [(s["path"], s["reason"]) for s in json.loads(cut.stdout)["skipped"]] == [
        ("a.cu", "the run's deadline of 0.001 s (PORTER_DEADLINE_S) passed before porter got to scan; skipped")]
    trusted = porter_here(*args, env={"PORTER_DEADLINE_S": ""})
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout)["skipped"] == []
    assert {f["rule"] for f in json.loads(trusted.stdout)["findings"]} == {"DEV002", "KRN001"}
    assert budget.run_deadline() is None
