"""A template kernel nothing instantiates reads ok (porter.kernels.verdicts.uninstantiated), on
fixtures/kernels_s26/idle_template: steps.cu's idle_lanes (line 3) and busy_lanes (line 10) both read the lane id
with inline PTX; only busy_lanes is launched (line 18), idle_lanes' launch is commented out (line 19). lanes.cuh's
header_lanes (line 3) is launched nowhere, but a header's template may be launched by whoever includes it. Cause
read on heldout34's gipuma (gipuma_initial_cost)."""
from __future__ import annotations

from porter.kernels.verdicts import NEVER_INSTANTIATED_WHY, uninstantiated
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s26" / "idle_template"


def test_an_unlaunched_template_kernel_in_a_source_file_reads_ok_and_the_others_keep_their_verdicts():
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    k = {(x.path, x.line): x for x in result.kernels}
    assert verdicts(k[("steps.cu", 3)]) == {
        t: ("ok", (("never-instantiated", NEVER_INSTANTIATED_WHY, ()),)) for t in TARGETS}
    for where in (("steps.cu", 10), ("lanes.cuh", 3)):
        assert {t: v for t, (v, _) in verdicts(k[where]).items()} == {t: "fix" for t in TARGETS}
    assert uninstantiated(result.kernels, result.launches, result.files) == frozenset({("steps.cu", 3)})


def test_a_source_file_another_file_includes_keeps_its_templates():
    """With steps.cu's file included by another (`#include "steps.cu"`), idle_lanes may be launched there."""
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    files = [f if f.path != "lanes.cuh" else type(f)(**{**vars(f), "includes": (("steps.cu", True),)})
             for f in result.files]
    assert uninstantiated(result.kernels, result.launches, files) == frozenset()
    assert uninstantiated(result.kernels, (), result.files) == frozenset({("steps.cu", 3), ("steps.cu", 10)})
