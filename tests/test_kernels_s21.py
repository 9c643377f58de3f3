"""CUDA kernel verdicts of issue 27 (session 21) on fixtures/kernels: __launch_bounds__ minimum blocks judged against
CDNA's residency. Exact verdicts and check ids, with near misses."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s21"
TARGETS = ("mi300x", "mi455x")


def analysed(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def verdicts(result) -> dict[str, dict[str, tuple]]:
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


def every(verdict: str, *details: tuple) -> dict[str, tuple]:
    return {t: (verdict, tuple(details)) for t in TARGETS}


OK = every("ok")


def test_launch_bounds_min_blocks_within_cdna_residency_is_ok():
    result = run(FIXTURES / "kernels" / "launch_bounds.cu", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    got = verdicts(result)
    assert got["narrow_bounded"] == OK  # (64, 4): 4 waves per SIMD
    assert got["crowded_bounded"] == every("retune", ("launch-bounds-min-blocks", "retune", ()))  # (128, 16)
