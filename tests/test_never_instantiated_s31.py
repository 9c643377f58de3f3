"""Session 31 (issue 27, kernel verdicts): a template kernel nothing instantiates reads ok in a header whose host code
launches its other kernels, and in a .cu a header `#include`s, as in a source file; a launch a #define body pastes
(`step_##kind<float><<<...>>>`) counts as a launch (porter.kernels.launchers.macro_launches).

fixtures/kernels_s31/idle_header: launch.cuh's LAUNCH_STEP (lines 3-5) pastes `step_##kind`; steps.cuh's step_plain
(line 4) is launched only through it (line 27), idle_lanes (line 11) only in a comment (line 28), busy_lanes (line 18)
by chevrons (line 26); table.cu, which table.cuh includes (line 3), launches table_fill (line 1) at line 16 and never
table_idle (line 8). Every kernel reads the lane id with inline PTX (fix when compiled). Causes read on heldout44:
CUDASW4's oldkernels.cuh (templates no source launches), cuZK's groth_table (groth.cu, included by groth.cuh);
GSWITCH's expand kernels, launched only through Launch_Expand_VC's paste, must keep their verdicts."""
from __future__ import annotations

from porter.kernels.launchers import macro_launches
from porter.kernels.verdicts import NEVER_INSTANTIATED_WHY, uninstantiated
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s31" / "idle_header"
IDLE = {t: ("ok", (("never-instantiated", NEVER_INSTANTIATED_WHY, ()),)) for t in TARGETS}


def _kernels():
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return result, {(k.path, k.line, k.name): k for k in result.kernels}


def test_unlaunched_templates_in_a_launching_header_and_an_included_source_read_ok():
    result, k = _kernels()
    assert verdicts(k[("steps.cuh", 11, "idle_lanes")]) == IDLE
    assert verdicts(k[("table.cu", 8, "table_idle")]) == IDLE
    assert uninstantiated(result.kernels, result.launches, result.files) == frozenset(
        {("steps.cuh", 11), ("table.cu", 8)})


def test_launched_templates_keep_their_fix_also_through_a_pasting_macro():
    result, k = _kernels()
    for where in (("steps.cuh", 4, "step_plain"), ("steps.cuh", 18, "busy_lanes"), ("table.cu", 1, "table_fill")):
        got = verdicts(k[where])
        assert {t: v for t, (v, _) in got.items()} == {t: "fix" for t in TARGETS}, where
        assert {d[0] for _, ds in got.values() for d in ds} == {"inline-ptx"}, where
    assert [(f.path, f.macro_launched) for f in result.files if f.macro_launched] == [("launch.cuh", ("step_*",))]
    # without the macro's launch, step_plain is launched nowhere either: idle
    files = [type(f)(**{**vars(f), "macro_launched": ()}) for f in result.files]
    assert uninstantiated(result.kernels, result.launches, files) == frozenset(
        {("steps.cuh", 4), ("steps.cuh", 11), ("table.cu", 8)})


def test_a_header_of_kernels_alone_is_left_alone():
    """Without run_steps' launches steps.cuh launches nothing: whoever includes it may launch its kernels."""
    result, _ = _kernels()
    others = [l for l in result.launches if l.path != "steps.cuh"]
    assert uninstantiated(result.kernels, others, result.files) == frozenset({("table.cu", 8)})


def test_macro_launches_reads_pasted_and_plain_callees_not_a_launched_parameter():
    data = (b"#define RUN(k) k<<<1, 1>>>()\n"
            b"#define GO foo<float><<<1, 2>>>(x)\n"
            b"#define P(a, b) pre_##a##_##b<<<1, 1>>>()\n"
            b"#define Q(a) \\\n  q_##a<T, W<2>> \\\n   <<<1, 1>>>(z)\n"
            b"#define NOT_A_LAUNCH(a) (a << 2)\n")
    assert macro_launches(data) == ("foo", "pre_*_*", "q_*")
    assert macro_launches(b"k<<<1, 1>>>();\n") == ()
    assert macro_launches((BASE / "launch.cuh").read_bytes()) == ("step_*",)
