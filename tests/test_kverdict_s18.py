"""Kernel verdicts of issue 27 (session 18) on fixtures/kverdict_s18: a header kernel's helper resolved through the
translation unit that includes it. Exact verdicts, check ids and lines."""
from __future__ import annotations

from porter.kernels.callgraph import helper_index
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kverdict_s18"
TARGETS = ("mi300x", "mi455x")


def analysed(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def verdicts(name: str) -> dict[str, dict[str, tuple]]:
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in analysed(name).kernels}


def test_a_header_kernel_reaches_the_helper_its_translation_unit_includes():
    """includer/cuda/row_sum.hpp includes nothing; cuda/sums.cu includes cuda/warp_ext.hpp, then row_sum.hpp.
    `gpu::warp_sum` is defined in cuda/warp_ext.hpp and hip/warp_ext.hpp: the call (row_sum.hpp:4) resolves to the
    one the including unit brought in, whose `0xffffffff` shuffle mask makes the kernel a fix."""
    assert verdicts("includer") == {
        "row_sum": {"mi300x": ("fix", (("wave64-full-mask", "fix", (4,)),)),
                    "mi455x": ("fix", (("mask-32bit-type", "fix", (4,)),))},
        "col_sum": {t: ("ok", ()) for t in TARGETS},
    }


def test_the_includer_rule_resolves_only_what_the_includers_bring_in():
    result = analysed("includer")
    index = helper_index(result.files)
    assert index.includers("cuda/row_sum.hpp") == ("cuda/sums.cu",)
    assert index.resolve("cuda/row_sum.hpp", "warp_sum", "gpu::warp_sum") == "cuda/warp_ext.hpp"
    # the HIP unit includes its own twin, directly
    assert index.resolve("hip/sums.hip", "warp_sum", "gpu::warp_sum") == "hip/warp_ext.hpp"
    # a file that includes neither home and that nobody includes: the two homes leave the call ambiguous
    assert index.includers("cuda/sums.cu") == ()
    assert index.resolve("other.cu", "warp_sum", "gpu::warp_sum") is None
