"""Kernel verdicts read from the code the ROCm build compiles (issue 27, session 25, helper cudak), on
fixtures/kernels_s25 (written here, reduced from heldout26's libSGM and groute and heldout29's GPUJPEG readings):

- arms/fallback.cu: `#if CUDA_VERSION >= 9000` / `__shfl_sync(0xffffffffu, ...)` / `#else` / width-32 `__shfl` -
  hip-clang never defines a toolkit version, so it compiles the `#else`; a group without `#else` keeps its arm (HIP
  would lack the code). A shuffle width that does not fold (a template parameter) is at most 32 under CUDA's rules;
  `warpSize` as the width is 64 on CDNA.
- arms/switch.cu: `#define USE_PTX 0` then `#if USE_PTX` - no build compiles the arm; a switch defined inside
  `#ifndef` can come from the command line and decides nothing.
- remote_bind: a kernel templated on a policy class, launched only from another file with its template list.
Exact verdicts, reasons and lines."""
from __future__ import annotations

import pytest

from porter.pipeline import run
from porter.settings import Settings
from porter.source.preprocessor import file_switches, preprocess, switch_dead_spans, toolkit_fallback_spans

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s25"
OK = {t: ("ok", ()) for t in TARGETS}


def _kernels(sub: str) -> dict:
    return {k.name: k for k in run(BASE / sub, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result.kernels}


@pytest.fixture(scope="module")
def arms():
    return _kernels("arms")


def test_a_toolkit_version_arm_with_an_else_is_read_as_hip_compiles_it(arms):
    """fallback_k's `__syncwarp` and 0xffffffff shuffle (lines 18-19) sit in the CUDA_VERSION arm; HIP compiles
    lines 21-22, a width-32 broadcast inside a logical 32-lane warp: ok everywhere."""
    assert verdicts(arms["fallback_k"]) == OK


def test_a_toolkit_version_arm_without_else_stays(arms):
    full = ("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes", (32,))
    narrow = ("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long", (32,))
    assert verdicts(arms["no_else_k"]) == {"mi300x": ("fix", (full,)), "mi355x": ("fix", (full,)),
                                           "mi455x": ("fix", (narrow,))}


def test_an_unfolded_shuffle_width_is_a_sub_warp_group_but_warpsize_is_not(arms):
    """group_k reaches group_min<32>'s `__shfl_xor(x, step, GROUP)` (GROUP a template parameter): ok. wave_width_k
    shuffles with width warpSize beside `threadIdx.x % 32` (line 45): fix on wave64."""
    assert verdicts(arms["group_k"]) == OK
    lane = ("wave64-lane-count", "hard-coded 32-lane arithmetic (% 32) with warp operations; wave size is 64", (45,))
    assert verdicts(arms["wave_width_k"]) == {"mi300x": ("fix", (lane,)), "mi355x": ("fix", (lane,)),
                                              "mi455x": ("ok", ())}


def test_a_file_switch_constant_rules_out_its_arm(arms):
    """switch_k's PTX sits under `#if USE_PTX` with `#define USE_PTX 0`; self_check_k is defined under `#ifdef
    SELF_CHECK` below `//#define SELF_CHECK` (the switch commented out): both ok. guarded_switch_k's TUNED is
    defined inside `#ifndef TUNED`, so a -D can set it: its PTX stays a fix."""
    assert verdicts(arms["switch_k"]) == OK
    assert verdicts(arms["self_check_k"]) == OK
    ptx = ("inline-ptx", "1 inline PTX statement (mov %laneid): mov %laneid → __lane_id()", (23,))
    assert verdicts(arms["guarded_switch_k"]) == {t: ("fix", (ptx,)) for t in TARGETS}


def test_the_spans_themselves():
    src = (b"#define ON 1\n#define OFF 0\n#ifndef SET\n#define SET 0\n#endif\n"  # 1-5
           b"#if OFF\na\n#else\nb\n#endif\n"  # 6-10
           b"#if ON && !OFF\nc\n#elif SET\nd\n#else\ne\n#endif\n"  # 11-17
           b"#if SET\nf\n#endif\n"  # 18-20
           b"#if CUDART_VERSION >= 11000\ng\n#else\nh\n#endif\n"  # 21-25
           b"#if CUDART_VERSION >= 11000\ni\n#endif\n"  # 26-28
           b"#if CUDART_VERSION >= 11000 || defined(USE_ROCM)\nj\n#else\nk\n#endif\n")  # 29-33
    pre = preprocess(src)
    assert file_switches(pre, src) == {"ON": (1, 1), "OFF": (0, 2)}
    assert switch_dead_spans(pre, src) == ((7, 7), (14, 14), (16, 16))
    assert toolkit_fallback_spans(pre) == ((22, 22),)
    # an #else that only stops the build is no HIP path
    src4 = b"#if CUDART_VERSION >= 11000\ng\n#else\n#error need CUDA 11\n#endif\n"
    assert toolkit_fallback_spans(preprocess(src4)) == ()
    # a later #undef or a second #define makes a name no switch
    src2 = b"#define A 0\n#define B 1\n#define B 2\n#undef A\n#if A\nx\n#endif\n"
    assert file_switches(preprocess(src2), src2) == {}
    # a definition only in a line comment reads undefined; one also defined for real is no switch
    src3 = b"// #define OFF\n//#define ON\n#define ON 1\n#ifdef OFF\nx\n#else\ny\n#endif\n"
    assert file_switches(preprocess(src3), src3) == {"ON": (1, 3), "OFF": (False, 1)}
    assert switch_dead_spans(preprocess(src3), src3) == ((5, 5),)


def test_a_launch_in_another_file_binds_the_kernels_template_parameter():
    """remote_bind: norm_k<L2> and plain_k<Plain> are defined in norm.h and launched only from launch.cu (`norm_k<L2>
    <<<n, 64>>>`, a space before the chevrons); `T::apply` (norm.h:18, :24) runs the member policy.cu defines for the
    class the launch names. Only L2::apply (policy.cu:3) shuffles."""
    kernels = _kernels("remote_bind")
    via = "; via L2::apply (policy.cu:3)"
    full = ("wave64-full-mask", "0xffffffff mask in 2 warp operation(s) covers 32 of 64 lanes" + via, (18,))
    lane = ("wave64-lane-count", "hard-coded 32-lane arithmetic (reduction loop from 16) with warp operations; wave"
                                 " size is 64" + via, (18,))
    narrow = ("mask-32bit-type", "2 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long" + via, (18,))
    assert verdicts(kernels["norm_k"]) == {"mi300x": ("fix", (full, lane)), "mi355x": ("fix", (full, lane)),
                                           "mi455x": ("fix", (narrow,))}
    assert verdicts(kernels["plain_k"]) == OK


def test_the_template_list_of_a_launch():
    from porter.source.syntax import _template_list

    assert _template_list("k<NormalizeL2>") == "<NormalizeL2>"
    assert _template_list("ns::k<float, Reducer<T, 4>>") == "<float, Reducer<T, 4>>"
    assert _template_list("k") is None
    assert _template_list("k<a> >") is None  # unbalanced: no list
