"""Kernel verdicts of issue 27 (session 17) on fixtures/kernels_s17: error classes read on heldout6-12 (development
data), each a rule of HIP or the toolchain rather than a project's pattern. Exact facts, reasons and verdicts."""
from __future__ import annotations

from porter.kernels.constfold import harvest_constant_values
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s17"


def analysed(name: str, **settings) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS, **settings)).result
    return {(k.name, k.line): k for k in result.kernels}


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


def _full(line: int) -> dict[str, tuple]:
    wide = ("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes", (line,))
    narrow = ("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long", (line,))
    return {"mi300x": ("fix", (wide,)), "mi355x": ("fix", (wide,)), "mi455x": ("fix", (narrow,))}


def test_every_spelling_of_the_32_bit_full_mask_is_one():
    """masks.cu: uint32_t(-1) (line 4), static_cast<unsigned>(-1) (line 10), ~0u (line 16) and -1u (line 22) are all
    0xffffffff: lanes 0-31 of a wave64 (fix on MI300X/MI355X) and a 32-bit mask type HIP's *_sync static_assert
    rejects on wave32 too (fix on MI455X). Before, the first three read ok on MI455X (only DEV002's floor made them
    a fix on wave64, FlashMLA's combine kernel in heldout12) and -1u read ok everywhere. ~0ull (line 28) is the
    64-bit mask HIP wants: ok."""
    k = analysed("masks")
    for name, line in (("sum_cast", 2), ("sum_static_cast", 8), ("sum_tilde", 14), ("sum_minus_one", 20)):
        op = k[(name, line)].facts.warp_ops[0]
        assert (op.line, op.mask_kind) == (line + 2, "full32")
        assert verdicts(k[(name, line)]) == _full(line + 2)
    assert k[("sum_wide", 26)].facts.warp_ops[0].mask_kind == "constant"
    assert verdicts(k[("sum_wide", 26)]) == {t: ("ok", ()) for t in TARGETS}


def test_unsigned_operands_fold_to_their_width():
    from porter.kernels.constfold import Constants, fold_text

    values = {t: fold_text(t, Constants()) for t in ("uint32_t(-1)", "static_cast<unsigned>(-1)", "~0u", "-1u",
                                                       "~uint32_t(0)", "~0ul", "~0ull", "~0", "-1", "int32_t(-1)")}
    assert values == {"uint32_t(-1)": 0xFFFFFFFF, "static_cast<unsigned>(-1)": 0xFFFFFFFF, "~0u": 0xFFFFFFFF,
                      "-1u": 0xFFFFFFFF, "~uint32_t(0)": 0xFFFFFFFF, "~0ul": (1 << 64) - 1, "~0ull": (1 << 64) - 1,
                      "~0": -1, "-1": -1, "int32_t(-1)": -1}


def test_an_sm_count_that_only_divides_the_work_is_no_sm_count_grid():
    """split.cu: launch() sets per_block = ceildiv(rows, waves * sms) in a do-while (line 21) and launches rows_split
    (line 5) with blocks = ceildiv(rows, per_block) (lines 23-24): the SM count only splits the rows, the grid covers
    them on any device (AQLM's dequantisers, heldout9, judged ok): ok. rows_persistent (line 10) gets sms * 4 blocks
    (lines 25-26), a hand-picked blocks-per-SM multiple: retune."""
    k = analysed("sm_split")
    split, persistent = k[("rows_split", 5)], k[("rows_persistent", 10)]
    assert [(s.line, s.sm_count_grid) for s in split.facts.launch_sites] == [(24, False)]
    assert [(s.line, s.sm_count_grid) for s in persistent.facts.launch_sites] == [(26, True)]
    assert verdicts(split) == {t: ("ok", ()) for t in TARGETS}
    cus = {"mi300x": "AMD Instinct MI300X has 304 CUs", "mi355x": "AMD Instinct MI355X has 256 CUs",
           "mi455x": "AMD Instinct MI455X (pre-release) has 256 CUs"}
    assert verdicts(persistent) == {t: ("retune", (("sm-count-grid", f"grid from the SM count; {cus[t]}", (26,)),))
                                    for t in TARGETS}
