"""Kernel verdicts of issue 27 (session 16) on fixtures/kernels_s16: causes read on the development sets heldout9 and
heldout10, each a general mechanism. Exact facts, reasons and verdicts per target."""
from __future__ import annotations

import pytest

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s16"
TARGETS = ("mi300x", "mi355x", "mi455x")


def analysed(name: str) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {(k.name, k.line): k for k in result.kernels}


def verdicts(k) -> dict[str, tuple]:
    return {t: (v.verdict, tuple((d.id, d.message, d.lines) for d in v.details)) for t in TARGETS
            if (v := k.verdict_on(t))}


@pytest.fixture(scope="module")
def functor():
    return analysed("functor")


def test_a_call_of_a_local_functor_is_not_a_call_of_a_helper_with_its_name(functor):
    """launch.cuh: `driver()` on a local reference (line 12) and on a parameter (line 17) runs the functor's
    operator(); queue.cuh's `Queue::driver` (line 4, a 0xffffffff shuffle) is not followed, so both trampolines
    read ok. run_queue calls Queue::driver for real (line 22) and gets its mask."""
    assert functor[("launch_constant_memory", 9)].facts.calls == ()
    assert functor[("launch_local_memory", 15)].facts.calls == ()
    assert verdicts(functor[("launch_constant_memory", 9)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(functor[("launch_local_memory", 15)]) == {t: ("ok", ()) for t in TARGETS}
    k = functor[("run_queue", 21)]
    assert k.facts.calls == (("Queue::driver", 22),)
    via = "; via Queue::driver (queue.cuh:4)"
    assert verdicts(k) == {
        "mi300x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (22,)),)),
        "mi355x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (22,)),)),
        "mi455x": ("fix", (("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long"
                            + via, (22,)),))}
