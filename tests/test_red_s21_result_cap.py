"""Red team (session 21): what a scan keeps of its files' results in porter's own process is bounded.

Every file is scanned in a budgeted worker, but each worker's answer (findings, suppressed findings, kernels,
launches) is kept whole in porter's own process, with no bound on their sum: one rule reports at most 1,000 hits
per file, so N copies of one small file hold ~1,000 N findings. Identical files are one blob in git (a pull request
of 500 copies of a 13 KB file packs to a few KB), and each finding cost ~1.7 KB in porter's process (measured:
100 files x 1,001 findings, 269 MB peak; 500 files, see the commit). Past porter.pipeline.MAX_KEPT the later files
(in path order, whatever order the workers answered in) are listed as skipped, which a gate counts."""
from __future__ import annotations

import json

import pytest

from porter import pipeline
from tests.helpers import make_repo, porter_here

BODY = "void f() {\n" + "cudaFree(0);\n" * 1005 + "}\n"  # 1,000 hits of API001 and one saying 5 were left out


@pytest.mark.parametrize("jobs, cached", [("1", False), ("2", False), ("1", True)])
def test_results_past_the_scan_cap_are_skipped_in_path_order(tmp_path, monkeypatch, jobs, cached):
    repo = make_repo(tmp_path / "r", {f"f{i}.cu": BODY for i in range(5)})
    monkeypatch.setattr(pipeline, "MAX_KEPT", 2500, raising=False)  # red on code without it
    cache = ["--cache-dir", str(tmp_path / "cache")] if cached else ["--no-cache"]
    if cached:  # a warm scan: every result comes from the cache, none from a worker
        assert porter_here("scan", str(repo), "-f", "json", "-j", jobs, *cache).returncode == 0
    p = porter_here("scan", str(repo), "-f", "json", "-j", jobs, *cache, "--fail-on", "blocker")
    assert p.returncode == 1, p.stderr  # a file porter meant to read and did not keep fails the gate
    out = json.loads(p.stdout)
    assert sorted({f["path"] for f in out["findings"]}) == ["f0.cu", "f1.cu"]
    assert len(out["findings"]) == 2002
    reason = "not kept: past 2,500 findings, kernels and launches, the most porter keeps from one scan"
    assert out["skipped"] == [{"path": f"f{i}.cu", "reason": reason} for i in (2, 3, 4)]
