"""Kernel verdicts of session 17c on fixtures/kernels_s17c: a reduction loop that starts at half a warp constant
the ROCm arm fixes at 64 (`o = WARP_SIZE / 2` = 32) reduces over 64 lanes, right on wave64 (no wave64-lane-count);
the same loop over a constant the HIP build shares with CUDA (32) still starts at 16 and is a 32-lane reduction."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s17c"
TARGETS = ("mi300x", "mi355x", "mi455x")


def scanned(name: str):
    return {k.name: k for k in run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result.kernels}


def verdicts(k) -> dict[str, tuple]:
    return {t: (v.verdict, tuple((d.id, d.lines) for d in v.details)) for t in TARGETS if (v := k.verdict_on(t))}


def test_a_loop_from_half_a_rocm_arm_64_is_no_32_lane_count_on_wave64():
    """own_arm.cu defines `constexpr int warp_size = 64` only in its __HIP_PLATFORM_AMD__ arm (line 2); wave_max
    (line 5) reduces from warp_size / 2 at line 7: no lane assumption, ok on wave64 mi300x/mi355x, and only DEV017's
    fixed 64 on wave32 mi455x. reduce.cu's wave_sum (line 3) takes `#define WARP_SIZE 64` from warp.hpp's ROCm arm
    (line 4): its loop at line 5 is no lane assumption either."""
    k = scanned("rocm_arm")
    assert k["wave_max"].line == 5 and k["wave_max"].facts.lane_assumptions == ()
    assert verdicts(k["wave_max"]) == {"mi300x": ("ok", ()), "mi355x": ("ok", ()),
                                       "mi455x": ("fix", (("DEV017", (7,)),))}
    assert k["wave_sum"].line == 3 and k["wave_sum"].facts.lane_assumptions == ()
    assert verdicts(k["wave_sum"])["mi300x"] == ("ok", ())
    assert verdicts(k["wave_sum"])["mi355x"] == ("ok", ())


def test_a_cuda_only_32_loop_from_16_keeps_its_lane_count_on_wave64():
    """half_sum.cu's only WARP_SIZE is `#define WARP_SIZE 32` (line 2), which the HIP build compiles too: the loop
    at line 6 starts at 16 and the broadcast `__shfl(v, 0)` reads lane 0 of a 64-lane wave, so wave64-lane-count
    (fix) on mi300x/mi355x and ok on wave32 mi455x."""
    k = scanned("cuda_only")["half_sum"]
    assert [(a.line, a.kind) for a in k.facts.lane_assumptions] == [(6, "reduction loop from WARP_SIZE / 2 (= 16)")]
    assert verdicts(k) == {"mi300x": ("fix", (("wave64-lane-count", (6,)),)),
                           "mi355x": ("fix", (("wave64-lane-count", (6,)),)), "mi455x": ("ok", ())}


def test_a_functor_template_argument_is_followed_into_the_class_the_launch_names():
    """kernels.cu's dot (line 5) and store (line 10) each call `GridReducer<T, Plus>{}(...)` (lines 7 and 12) on a
    template template parameter; the launches at lines 16-17 bind it to GridReducerAtomic and GridReducerLDS. dot
    runs GridReducerAtomic::operator() (reducers.hpp:11), whose 0xffffffff shuffle (a 32-bit mask) makes it fix;
    store runs only GridReducerLDS::operator() (line 19), which shuffles nothing: the two classes' operators are two
    helpers, not one merged (merged, store would read fix too), and store stays ok."""
    k = scanned("functor")
    dot, store = k["dot"], k["store"]
    assert (dot.line, store.line) == (5, 10)
    assert dot.facts.calls == (("GridReducer::operator()", 7),)
    assert [(h.chain, h.path, h.line, h.call_line) for h in dot.facts.helpers] == [
        (("GridReducerAtomic::operator()",), "reducers.hpp", 11, 7)]
    via = "; via GridReducerAtomic::operator() (reducers.hpp:11)"
    assert {t: (v.verdict, tuple((d.id, d.message, d.lines) for d in v.details)) for t in TARGETS
            if (v := dot.verdict_on(t))} == {
        "mi300x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (7,)),)),
        "mi355x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (7,)),)),
        "mi455x": ("fix", (("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long"
                            + via, (7,)),))}
    assert store.facts.helpers == ()  # GridReducerLDS::operator() has no facts to merge
    assert verdicts(store) == {t: ("ok", ()) for t in TARGETS}


def test_template_arguments_split_at_top_level_commas_only():
    """`<T, R<T, 2>, (4>2), ns::A<int>>`: four arguments, each named without its own template arguments."""
    from porter.kernels.callgraph import _template_arguments, callee_name

    assert _template_arguments("<T, R<T, 2>, (4>2), ns::A<int>>") == ["T", "R", "(4>2)", "ns::A"]
    assert _template_arguments(None) == []
    assert callee_name("ns::GridReducerAtomic<T, op>::operator()") == "GridReducerAtomic::operator()"
    assert callee_name("ns::f<T>") == "f"


def test_template_arguments_split_at_top_level_commas_only():
    from porter.kernels.constfold import split_template_arguments

    # a comparison in parentheses is no angle bracket; commas inside any bracket do not split
    assert split_template_arguments("<float, Reducer<T, 2>, (N > 4), Pair{1, 2}, 8>") == [
        "float", "Reducer<T, 2>", "(N > 4)", "Pair{1, 2}", "8"]
    assert split_template_arguments("") == []
