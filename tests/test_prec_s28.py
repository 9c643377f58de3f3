"""Precision of open findings and kernel verdicts pooled over the development sets heldout17-36 (issue 27, session
28, helper prec). fixtures/prec_s28 holds one small repository per mechanism, each beside near misses."""
from __future__ import annotations

from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s28"


def _result(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x", "mi455x"))).result


def test_a_warp_count_rounded_up_for_row_strides_is_no_hardware_warp():
    # rows.cu: rows_only's `num_warps = (totalThreads + 31) / 32` only strides shared-memory rows in a kernel with no
    # warp-level work (as its `warp_id = tid / 32` beside it): not reported. The same count in a kernel that
    # shuffles (with_shuffles), or passed to a call (passed_on), stays open.
    got = [(f.path, f.line, str(f.status), str(f.severity))
           for f in _result(FIXTURE / "roundup").findings if f.rule == "DEV011"]
    assert got == [("rows.cu", 22, "open", "medium"), ("rows.cu", 31, "open", "medium")]
