"""Kernel verdicts of issue 27 (session 17) on fixtures/kernels_s17: error classes read on heldout6-12 (development
data), each a rule of HIP or the toolchain rather than a project's pattern. Exact facts, reasons and verdicts."""
from __future__ import annotations

from porter.kernels.constfold import harvest_constant_values
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s17"
TARGETS = ("mi300x", "mi355x", "mi455x")


def analysed(name: str, **settings) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS, **settings)).result
    return {(k.name, k.line): k for k in result.kernels}


def verdicts(k) -> dict[str, tuple]:
    return {t: (v.verdict, tuple((d.id, d.message, d.lines) for d in v.details)) for t in TARGETS
            if (v := k.verdict_on(t))}


WS_ALIAS = ("warpsize-constant", "warpSize in a constant expression: __shared__ partial[MAX_THREADS / WS] (WS is "
                                 "#define'd as warpSize in arch.h)", (4,))


def test_a_rocm_arm_that_defines_a_macro_as_warpsize_makes_its_shared_extents_non_constant():
    """arch.h defines WS as warpSize in its USE_ROCM arm (line 6) and as 32 in the CUDA arm (line 8). reduce.cu's
    block_sum (line 3) sizes `__shared__ float partial[MAX_THREADS / WS]` (line 4): on HIP from ROCm 7.0 warpSize is
    not constexpr, so the kernel stops compiling: a fix on every target. block_copy (line 15) uses WS only at run
    time (line 19): ok. Before ROCm 7.0 (warpSize constexpr) both are ok."""
    k = analysed("warpsize_alias")
    block_sum, block_copy = k[("block_sum", 3)], k[("block_copy", 15)]
    # WS is no integer constant of the HIP build, so the extent stays as written
    assert [(a.name, a.extents, a.bytes) for a in block_sum.facts.shared_memory.arrays] == \
        [("partial", ("MAX_THREADS / WS",), None)]
    assert verdicts(block_sum) == {t: ("fix", (WS_ALIAS,)) for t in TARGETS}
    assert verdicts(block_copy) == {t: ("ok", ()) for t in TARGETS}
    old = analysed("warpsize_alias", rocm="6.4")
    assert verdicts(old[("block_sum", 3)]) == {t: ("ok", ()) for t in TARGETS}


def test_a_constant_one_arm_defines_as_warpsize_has_no_integer_value():
    data = b"#ifdef USE_ROCM\n#define WS warpSize\n#define LANES 64\n#else\n#define WS 32\n#define LANES 32\n#endif\n"
    assert harvest_constant_values(data) == {"LANES": (32, 64)}
    assert harvest_constant_values(b"#define WS 32\n#define W2 (warpSize) // per target\n") == {"WS": (32,)}


GRID_SYNC = ("grid-sync", "cooperative-groups grid synchronisation", (13, 16))


def test_a_grid_sync_is_ok_when_every_launch_is_cooperative_and_sized_by_the_occupancy_api():
    """grid_reduce.cu: grid_sum (line 4), grid_sum_plain (line 12) and grid_sum_sized (line 30) hold `this_grid()`
    and `grid.sync()`. grid_sum is launched only by cudaLaunchCooperativeKernel (line 26; hipLaunchCooperativeKernel
    on HIP) with a grid of min(occupancy blocks per SM x SMs, ...) (lines 22-24): every block resident on the device
    it runs on, ok. grid_sum_plain gets the same grid through <<<>>> (line 27): nothing guarantees residency, a
    check. grid_sum_sized is launched cooperatively with a grid the problem sizes ((n + 255) / 256, line 38), which
    may exceed what fits at once: a check."""
    k = analysed("cooperative")
    coop, plain, sized = k[("grid_sum", 4)], k[("grid_sum_plain", 12)], k[("grid_sum_sized", 30)]
    assert [(s.line, s.kind, s.occupancy_grid, s.sm_count_grid) for s in coop.facts.launch_sites] == \
        [(26, "cudaLaunchCooperativeKernel", True, False)]
    assert [(s.line, s.kind, s.occupancy_grid) for s in sized.facts.launch_sites] == \
        [(38, "cudaLaunchCooperativeKernel", False)]
    assert (coop.facts.grid_sync, coop.facts.cooperative_launch) == ((5, 8), True)
    assert (plain.facts.grid_sync, plain.facts.cooperative_launch) == ((13, 16), False)
    assert (sized.facts.grid_sync, sized.facts.cooperative_launch) == ((31, 33), False)
    assert verdicts(coop) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(plain) == {t: ("check", (GRID_SYNC,)) for t in TARGETS}
    assert verdicts(sized) == {t: ("check", (("grid-sync", "cooperative-groups grid synchronisation", (31, 33)),))
                               for t in TARGETS}
