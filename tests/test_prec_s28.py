"""Precision of open findings and kernel verdicts pooled over the development sets heldout17-36 (issue 27, session
28, helper prec). fixtures/prec_s28 holds one small repository per mechanism, each beside near misses."""
from __future__ import annotations

from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s28"


def _result(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x", "mi455x"))).result


def test_warp_synchronous_steps_on_plain_shared_memory_need_a_fix():
    # tail.cu: steps `s[tid] += s[tid + K]` under `if (tid < 32)` with no barrier and no volatile (plain_tail), the
    # same through a step macro with an empty EMUSYNC between (macro_tail), with the guard alone in an
    # `#ifndef __DEVICE_EMULATION__` arm (guard_in_arm, ramsesGPU's spelling), and a recursive template step whose
    # only barrier is skipped once `offset <= 16` (template_steps, TeaLeaf's): fix on every target, at the guard's
    # line. A volatile pointer (volatile_tail), __syncwarp between the steps (synced_tail), a bare BARRIER macro that
    # is __syncthreads() (barrier_macro) and a single step (one_step) are not.
    kernels = _result(FIXTURE / "warpsync").kernels
    got = {}
    for k in kernels:
        for t in ("mi300x", "mi455x"):
            v = k.verdict_on(t)
            got[(k.name, t)] = (v.verdict, tuple((d.id, d.lines) for d in v.details))
    fix = {"plain_tail": 18, "macro_tail": 35, "guard_in_arm": 91, "barrier_macro": None, "template_steps": 115}
    for name, line in fix.items():
        for t in ("mi300x", "mi455x"):
            if line is None:
                assert got[(name, t)] == ("ok", ()), name
            else:
                assert got[(name, t)] == ("fix", (("warp-sync-shared", (line,)),)), name
    for name in ("volatile_tail", "synced_tail", "one_step"):
        assert got[(name, "mi300x")] == ("ok", ()), name


def test_the_volatile_reader():
    from porter.kernels.facts_detectors import _STEP_GUARD, _TAIL_GUARD

    assert _TAIL_GUARD.match(b"(tid < 32)") and _TAIL_GUARD.match(b"(threadIdx.x < 32)")
    assert _TAIL_GUARD.match(b"(lane_id <= 31)")
    assert not _TAIL_GUARD.match(b"(tid < 64)") and not _TAIL_GUARD.match(b"(n < 32)")
    assert _STEP_GUARD.match(b"(offset > 16)").group(1) == b"offset"
    assert _STEP_GUARD.match(b"(s >= 64)") and not _STEP_GUARD.match(b"(offset > 8)")


def test_a_block_built_of_a_runtime_number_of_warps_retunes_on_wave64():
    # blocks.cu: blocks that do not fold but are built of 32-thread warps - a dim3 row of `std::min(32, edges)`
    # threads, `(n + 31) / 32 * 32` - retune on wave64 (an odd number of warps leaves half a wave idle), at the
    # launch's line, and are fine on wave32. A bare `32 * warpCount` (judged both ways: gpu-benches retune, AQLM
    # ok), `warpSize * warpCount` (the target's own wave), a plain run-time block and a folded 32 * 8 are not read.
    kernels = _result(FIXTURE / "warpblocks").kernels
    got = {(k.name, t): (k.verdict_on(t).verdict, tuple((d.id, d.lines) for d in k.verdict_on(t).details))
           for k in kernels for t in ("mi300x", "mi455x")}
    for name, line in (("rows_of_warps", 16), ("rounded", 18)):
        assert got[(name, "mi300x")] == ("retune", (("block-not-wave-multiple", (line,)),)), name
        assert got[(name, "mi455x")] == ("ok", ()), name
    for name in ("per_warp_sweep", "by_wave", "plain_runtime", "folded"):
        assert got[(name, "mi300x")] == ("ok", ()), name
    msg = next(d.message for k in kernels if k.name == "rounded" for d in k.verdict_on("mi300x").details)
    assert msg == ("block built of 32-thread warps (`(n + 31) / 32 * 32`): an odd number of them leaves half of a "
                   "64-lane wave idle")
