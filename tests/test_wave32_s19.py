"""Issue 27 class 4, "a ROCm branch can itself be the bug" (session 19, fixtures/wave32_s19): guarded ROCm code that
is still wrong reads open. warpSize in a shared extent inside a ROCm arm (not a constant expression since ROCm 7.0),
a wave size a ROCm arm or the HIP build's compile line fixes at 64 (wrong on wave32 gfx1250), spelt as real ports
spell it. Exact lines, messages and statuses."""
from __future__ import annotations

from porter.kernels.check_table import rocm_code_checks
from porter.kernels.constfold import harvest_constant_values
from porter.model import Status
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "wave32_s19"


def scanned(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def wave64(name: str, path: str, line: int) -> str:
    return (f"warp code uses {name} ({path}:{line}), fixed at 64 for every AMD GPU: mi455x (gfx1250) runs 32-lane "
            "waves, so shuffle steps of 32 and 64-lane warp ids are wrong there")


def test_warpsize_in_a_shared_extent_inside_a_rocm_arm_stays_open():
    """arm.cu: `__shared__ float s[1024 / warpSize]` in the kernel's USE_ROCM arm (line 10) and `t[NWARPS]` (line 14,
    NWARPS defined from warpSize in the ROCm arm at line 3) give warpsize-constant on every target (ROCm 7.2, the
    default): the ROCm arm does not handle them, and the kernel is open."""
    result = scanned("rocm_arm")
    (k,) = result.kernels
    assert (k.name, k.line, k.status) == ("block_max", 8, Status.OPEN)
    check = ("warpsize-constant", "warpSize in a constant expression: __shared__ float s[1024 / warpSize];", (10, 14))
    for t in TARGETS:
        v = verdicts(k)[t]
        assert v[0] == "fix" and v[1][0] == check
    assert [(f.line, f.status) for f in result.findings if f.rule == "DEV004"] == [(3, Status.OPEN),
                                                                                   (10, Status.OPEN)]


def test_warpsize_check_is_about_code_only_hip_compiles():
    # + block-not-wave-multiple (session 20): a HIP file's own block size is what the ROCm build launches
    assert rocm_code_checks() == frozenset({"warpsize-constant", "block-not-wave-multiple"})


def test_a_macro_computed_from_warpsize_has_no_integer_value():
    """`#define NWARPS (1024 / warpSize)` in one arm and `32` in the other: on HIP it is a run-time value; a
    function-like macro (`W()`) and a comment naming warpSize are not such definitions."""
    data = (b"#ifdef USE_ROCM\n#define NWARPS (1024 / warpSize)\n#define W() warpSize\n#define K 8 // not warpSize\n"
            b"#else\n#define NWARPS 32\n#define W() 32\n#endif\n")
    assert harvest_constant_values(data) == {"K": (8,)}


def test_a_compat_header_fixing_warpsize_at_64_is_a_fix_on_wave32_only():
    """hip_compat.hpp's ROCm arm: `#define WARPSIZE 64` (line 6). block_sum (line 3) shuffles over WARPSIZE / 2
    (line 6) and indexes warp slots with it (line 7): fix on mi455x, ok on wave64. fill (line 13) only strides."""
    result = scanned("names")
    k = {x.name: x for x in result.kernels}
    assert [(f.path, f.line, f.status) for f in result.findings if f.rule == "DEV017"] == [
        ("hip_compat.hpp", 6, Status.OPEN)]
    assert verdicts(k["block_sum"]) == {
        "mi300x": ("ok", ()), "mi355x": ("ok", ()),
        "mi455x": ("fix", (("DEV017", wave64("WARPSIZE", "hip_compat.hpp", 6), (6, 7)),))}
    assert verdicts(k["fill"]) == {t: ("ok", ()) for t in TARGETS}


def test_a_wave_size_on_the_hip_compile_line_reaches_the_sources_below_the_build_file():
    """lib/CMakeLists.txt: `add_compile_definitions(WARP_SIZE=64)` in `if(USE_HIP)` (line 5), a DEV017 the HIP
    branch does not handle. lib/reduce.cu's warp_max (line 2; shuffles over WARP_SIZE at line 4) is compiled only by
    that HIP build and still open: fix on mi455x. tools/probe.cu (outside lib/) is not reached: ok."""
    result = scanned("build")
    k = {x.name: x for x in result.kernels}
    assert [(f.path, f.line, f.status) for f in result.findings if f.rule == "DEV017"] == [
        ("lib/CMakeLists.txt", 5, Status.OPEN)]
    assert verdicts(k["warp_max"]) == {
        "mi300x": ("ok", ()), "mi355x": ("ok", ()),
        "mi455x": ("fix", (("DEV017", wave64("WARP_SIZE", "lib/CMakeLists.txt", 5), (4,)),))}
    assert k["warp_max"].status is Status.OPEN
    assert verdicts(k["probe_max"]) == {t: ("ok", ()) for t in TARGETS}
