"""32-lane "logical warps" that stay correct on wave64 (issue 27 class 6, session 26, helper l33): a down shuffle
whose result the helper drops when its source lane leaves the group of 32 (`if (lane + offset >= 32) return 0;`),
under a mask of every active lane, is a per-32-lane-group reduction on a 64-lane wavefront too (CaMa-Flood-GPU's
block_reduce.cuh, heldout33). fixtures/l33_s26/guarded holds such a reduction; fixtures/l33_s26/near four near misses
that must stay open."""
from __future__ import annotations

from pathlib import Path

from porter.match.kinds.code_device import _counted_in_32s, _source_lane_guarded

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/l33_s26"


def _dev011(root: Path) -> list[tuple[str, int, str]]:
    from porter.pipeline import run
    from porter.settings import Settings

    return [(f.path, f.line, str(f.status)) for f in run(root, Settings(jobs=1, cache_dir=None)).result.findings
            if f.rule == "DEV011"]


def test_a_source_lane_guarded_down_shuffle_is_a_logical_32_lane_group():
    # lane = threadIdx.x & 31, grp = >> 5, num_warps = (blockDim.x + 31) >> 5, the two loops from 16: no DEV011
    # (before: lines 20, 21, 22, 24, 30). The 32-bit mask findings (DEV038/API004/DEV003) stay.
    assert _dev011(FIXTURE / "guarded") == []
    from porter.pipeline import run
    from porter.settings import Settings

    rules = sorted((f.line, f.rule) for f in run(FIXTURE / "guarded", Settings(jobs=1, cache_dir=None)).result.findings)
    assert rules == [(9, "API004"), (9, "DEV038"), (23, "API004"), (23, "DEV003")]


def test_near_misses_of_the_source_lane_guard_stay_open():
    # by_warpsize: `from >= warpSize` lets lane 16 + 16 read the next group on wave64; lane_mask: a mask built from
    # the lane; kept: the guard counts a miss but keeps the shuffled value; and_guard: `from >= 32 && ...` discards
    # only sometimes. Each keeps all five lane-arithmetic findings.
    found = _dev011(FIXTURE / "near")
    expected = []
    for name, first in (("and_guard.cuh", 18), ("by_warpsize.cuh", 18), ("kept.cuh", 20), ("lane_mask.cuh", 18)):
        expected += [(name, first + d, "open") for d in (0, 1, 2, 4, 10)]
    assert found == expected


def test_source_lane_guard_reading():
    guarded = b"{ T g = __shfl_down_sync(m, v, off); int s = lane + off; if (s >= 32 || x) return 0; return g; }"
    assert _source_lane_guarded(guarded, b"off")
    assert _source_lane_guarded(b"{ if ((lane + off) > 31) { return 0; } }", b"off")
    assert _source_lane_guarded(b"{ for (;;) { if (off + lane >= 32) continue; } }", b"off")
    assert not _source_lane_guarded(b"{ int s = lane + off; if (s >= 32 && x) return 0; }", b"off")
    assert not _source_lane_guarded(b"{ int s = lane + off; if (s >= 64) return 0; }", b"off")
    assert not _source_lane_guarded(b"{ int s = lane + off; if (s >= 32) ++n; }", b"off")
    assert not _source_lane_guarded(b"{ int s = lane + step; if (s >= 32) return 0; }", b"off")
    assert not _source_lane_guarded(b"{ if (lane + off >= 32) return 0; }", b"16")


def test_a_warp_count_divided_by_32_is_counted_in_32s():
    assert _counted_in_32s(b"{ const int num_warps = (blockDim.x + 31) >> 5; }", b"num_warps")
    assert _counted_in_32s(b"{ int num_warps = blockDim.x / 32; }", b"num_warps")
    assert not _counted_in_32s(b"{ int num_warps = blockDim.x / warpSize; }", b"num_warps")
    assert not _counted_in_32s(b"{ int num_warps = blockDim.x / kWarpSize; }", b"num_warps")
    assert not _counted_in_32s(b"{ int num_warps = blockDim.x >> 5; num_warps = 4; }", b"num_warps")
    assert not _counted_in_32s(b"{ use(num_warps); }", b"num_warps")
