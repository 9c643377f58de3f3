"""Issue 27 class 4, "a ROCm branch can itself be the bug" (session 23, hiparm): a vendor fork that gives the ROCm
build nothing in device code (DEV043, fixtures/rules/DEV043-vanishing-cuda-build-arm) and a lane mask a HIP arm
builds in 32 bits by shifting by the lane index (fixtures/hiparm_s23/lane_shift), and a constant the ROCm arm
doubles from the CUDA arm's 32 to 64 (fixtures/hiparm_s23/paired: a wave size whatever its name, wrong on wave32).
Exact lines, messages, statuses and verdicts."""
from __future__ import annotations

from porter.model import Status
from porter.pipeline import run
from porter.settings import Settings
from porter.source.preprocessor import preprocess, vanishing_build_arms

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts


def scanned(path):
    return run(path, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def test_a_cuda_build_arm_with_no_rocm_arm_is_open_and_floors_its_kernels():
    """reduce.cu: `#elif MYLIB_USES_CUDA` (line 12, after a SYCL arm) in min_reduce and `#ifdef MYLIB_USES_CUDA`
    (line 23) in the device helper scale, called by scaled: open DEV043 at the guard (the fork's own lines do not
    handle it, tag rocm-gap), and both kernels fix on every target. A HIP arm, an #else with code, a printf-only arm, a
    pragma-only arm, host code and an arm that also tests an optional switch are not reported."""
    result = scanned(FIXTURES / "rules" / "DEV043-vanishing-cuda-build-arm")
    assert [(f.path, f.line, f.status, f.message) for f in result.findings if f.rule == "DEV043"] == [
        ("reduce.cu", 12, Status.OPEN, "`#elif MYLIB_USES_CUDA` is an arm only the CUDA build compiles and its group "
         "gives the ROCm build nothing in its place: kernel min_reduce loses this code on HIP, with no error."),
        ("reduce.cu", 23, Status.OPEN, "`#ifdef MYLIB_USES_CUDA` is an arm only the CUDA build compiles and its group "
         "gives the ROCm build nothing in its place: device function scale (called by kernel scaled) loses this code "
         "on HIP, with no error."),
    ]
    k = {x.name: x for x in result.kernels}
    for name, line in (("min_reduce", 12), ("scaled", 23)):
        assert k[name].status is Status.OPEN
        for t in TARGETS:
            v = verdicts(k[name])[t]
            assert v[0] == "fix" and [d[0] for d in v[1]] == ["DEV043"] and v[1][0][2] == (line,)
    for name in ("with_hip_arm", "with_else", "diagnostic", "hinted", "parted"):
        assert {t: verdicts(k[name])[t][0] for t in TARGETS} == {t: "ok" for t in TARGETS}


def test_vanishing_build_arms_reads_the_group_for_each_build():
    """A neutral arm before the CUDA one falls through in both builds; an arm true in the ROCm build, a later arm
    the ROCm build may take, a non-empty #else, a ROCm name in the group or no CUDA-side name: nothing."""
    def lines(src: str, cuda=("LIB_CUDA",)) -> list[int]:
        return [a.line for _, a in vanishing_build_arms(preprocess(src.encode()), (), cuda)]

    assert lines("#if LIB_SYCL\nx();\n#elif LIB_CUDA\ny();\n#endif\n") == [3]
    assert lines("#if LIB_CUDA\ny();\n#else\n#endif\n") == [1]
    assert lines("#if LIB_CUDA\ny();\n#elif OTHER\nz();\n#endif\n") == []
    assert lines("#if LIB_CUDA\ny();\n#else\nz();\n#endif\n") == []
    assert lines("#if LIB_CUDA\ny();\n#elif USE_HIP\n#endif\n") == []
    assert lines("#if LIB_CUDA && FAST\ny();\n#endif\n") == []
    assert lines("#if LIB_CUDA\ny();\n#endif\n", cuda=()) == []
    assert lines("#if 0\n#if LIB_CUDA\ny();\n#endif\n#endif\n") == []


def test_a_lane_mask_shifted_in_32_bits_is_a_fix_on_wave64():
    """counters.cpp (HIP code): count_lines builds `unsigned int valbit = ... << warpLane` (line 6), and counters
    (line 11) calls it; own_bit shifts the int literal `1 << lane` (line 21). Both fix on mi300x/mi355x (lanes
    32-63 shift 32 bits by 32 or more), ok on wave32 mi455x. A 64-bit literal and a lane kept below 32: ok."""
    result = scanned(FIXTURES / "hiparm_s23" / "lane_shift")
    k = {x.name: x for x in result.kernels}
    assert [(b.line, b.type, b.op) for b in k["counters"].facts.merged().ballot_32bit] == [(6, "unsigned int",
                                                                                            "<< warpLane")]
    assert [(b.line, b.type, b.op) for b in k["own_bit"].facts.ballot_32bit] == [(21, "int", "1 << lane")]
    for name, message, line in (("counters", "<< warpLane stored in `unsigned int` drops lanes 32-63", 6),
                                ("own_bit", "1 << lane stored in `int` drops lanes 32-63", 21)):
        v = verdicts(k[name])
        assert v["mi300x"] == v["mi355x"] == ("fix", (("wave64-ballot-32bit", message, (line,)),))
        assert v["mi455x"] == ("ok", ())
    assert k["fine"].facts.ballot_32bit == () and {t: verdicts(k["fine"])[t][0] for t in TARGETS} == {
        t: "ok" for t in TARGETS}


def test_a_tile_constant_the_rocm_arm_doubles_is_a_wave_size_on_wave32():
    """tile.h: `const int TILEDIM = 64;` in the TT_USES_HIP arm (line 8) beside the TT_USES_CUDA arm's 32 (line 10):
    DEV017, open (a ROCm line does not handle it). count_rows (count.cpp line 4) ballots and steps through TILEDIM:
    fix on mi455x only; copy_tile (line 13) uses it as an extent with no warp operation: ok."""
    result = scanned(FIXTURES / "hiparm_s23" / "paired")
    assert [(f.path, f.line, f.status) for f in result.findings if f.rule == "DEV017"] == [("tile.h", 8, Status.OPEN)]
    k = {x.name: x for x in result.kernels}
    v = verdicts(k["count_rows"])
    assert v["mi455x"] == ("fix", (("DEV017", "warp code uses TILEDIM (tile.h:8), fixed at 64 for every AMD GPU: mi455x "
                                    "(gfx1250) runs 32-lane waves, so shuffle steps of 32 and 64-lane warp ids are "
                                    "wrong there", (8,)),))
    assert v["mi300x"] == v["mi355x"] == ("ok", ())
    assert {t: verdicts(k["copy_tile"])[t][0] for t in TARGETS} == {t: "ok" for t in TARGETS}
