"""Kernel analysis runs under a stage's budget like every stage that works on repository content.

porter.kernels.verdicts.analyse runs once after the scan, across files, in porter's own process: no wall clock, no
memory cap, and PORTER_DEADLINE_S not kept. Its cost is the repository's to choose: K kernels sharing one name and
L launches of that name in other files cost K x L (each kernel lists the launches made elsewhere), so 20 files of
300 template kernels all named `k` and 20 files of 300 launches of `k` (each file scanned in well under a second)
took the analysis 12.9 s, and 100 such pairs of files about 25 times that. A slow analysis is made here by a
slowed analyse, so the test does not depend on the machine's speed.
"""
from __future__ import annotations

import time

from porter import pipeline
from porter.pipeline import run
from porter.settings import Settings

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"


def test_kernels_get_their_verdicts(tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    result = run(tmp_path, Settings(jobs=1)).result
    assert [(k.name, bool(k.verdicts)) for k in result.kernels] == [("k", True)]
    assert not [n for n in result.stats.notices if "kernel analysis" in n]


def test_an_analysis_past_its_budget_is_stopped_and_said(tmp_path, monkeypatch):
    (tmp_path / "k.cu").write_text(KERNEL)
    real = pipeline.analyse

    def slow(*args, **kwargs):
        time.sleep(20)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "analyse", slow)
    started = time.monotonic()
    result = run(tmp_path, Settings(jobs=1, file_seconds=2)).result
    assert time.monotonic() - started < 15
    assert [(k.name, k.verdicts) for k in result.kernels] == [("k", None)]
    assert [f.rule for f in result.findings] != []  # the scan's findings stand
    assert [n for n in result.stats.notices if "kernel analysis" in n] == [
        "kernel analysis took longer than 2 s; no kernel has a verdict in this report"]
