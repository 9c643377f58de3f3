"""Session 27 (nub): a HIP arm that fixes the warp width at 64 in a group of its own is the bug on wave32 (MI455X).

hashinator's split_tools.h defines WARPLENGTH 32 under `#ifdef __NVCC__` and 64 under a separate `#ifdef __HIP__`;
its compaction kernels shuffle and vote with WARPLENGTH and read ok on mi455x. DEV017's pairing now takes the CUDA
arm's 32 from any group of the file (porter.match.kinds.arms._paired_spots), and the kernels of the defining file
itself see the name as a wave-size use (porter.kernels.facts: paired_alternatives), so the verdict on a wave32
target follows the DEV017 finding (porter.kernels.verdicts.wave64_uses)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.settings import Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "wave64_s27"


def test_separate_vendor_groups_pair_and_the_kernel_verdict_follows_on_wave32() -> None:
    result = run(FIXTURE, Settings(jobs=1, targets=("mi355x", "mi455x"))).result
    assert [(f.path, f.line, f.snippet) for f in result.findings if f.rule == "DEV017"] == \
        [("include/tools.h", 10, "#define WARPLENGTH 64")]
    verdicts = {k.name: {v.target: v.verdict for v in k.verdicts} for k in result.kernels}
    assert verdicts == {"compact": {"mi355x": "ok", "mi455x": "fix"}, "fill": {"mi355x": "ok", "mi455x": "ok"}}
    compact = next(k for k in result.kernels if k.name == "compact")
    detail = next(d for v in compact.verdicts if v.target == "mi455x" for d in v.details if d.id == "DEV017")
    assert "WARPLENGTH (include/tools.h:10)" in detail.message
    assert detail.lines == (15, 17, 18, 21)  # sums[WARPLENGTH], wid, lane, the shuffle loop
