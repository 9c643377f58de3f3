"""A template kernel nothing instantiates reads ok (porter.kernels.verdicts.uninstantiated), on
fixtures/kernels_s26/idle_template: steps.cu's idle_lanes (line 3) and busy_lanes (line 10) both read the lane id
with inline PTX; only busy_lanes is launched (line 18), idle_lanes' launch is commented out (line 19). lanes.cuh's
header_lanes (line 3) is launched nowhere, but a header's template may be launched by whoever includes it. Cause
read on heldout34's gipuma (gipuma_initial_cost)."""
from __future__ import annotations

from porter.kernels.verdicts import NEVER_INSTANTIATED_WHY, uninstantiated
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s26" / "idle_template"


def test_an_unlaunched_template_kernel_in_a_source_file_reads_ok_and_the_others_keep_their_verdicts():
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    k = {(x.path, x.line): x for x in result.kernels}
    assert verdicts(k[("steps.cu", 3)]) == {
        t: ("ok", (("never-instantiated", NEVER_INSTANTIATED_WHY, ()),)) for t in TARGETS}
    for where in (("steps.cu", 10), ("lanes.cuh", 3)):
        assert {t: v for t, (v, _) in verdicts(k[where]).items()} == {t: "fix" for t in TARGETS}
    assert uninstantiated(result.kernels, result.launches, result.files) == frozenset({("steps.cu", 3)})


def test_a_source_file_another_file_includes_is_read_like_any_other():
    """With steps.cu's file included by another (`#include "steps.cu"`), idle_lanes is still launched nowhere:
    launches and passed names are read repository-wide, so an includer's launch would be seen (session 31: the
    include no longer keeps it, heldout44's groth_table)."""
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    files = [f if f.path != "lanes.cuh" else type(f)(**{**vars(f), "includes": (("steps.cu", True),)})
             for f in result.files]
    assert uninstantiated(result.kernels, result.launches, files) == frozenset({("steps.cu", 3)})
    # without busy_lanes' launch recorded, its name at line 18 still instantiates it
    others = [l for l in result.launches if l.kernel != "busy_lanes"]
    assert uninstantiated(result.kernels, others, result.files) == frozenset()
    assert uninstantiated(result.kernels, result.launches, result.files) == frozenset({("steps.cu", 3)})
    # a file that launches nothing may hold kernels launched from code porter does not see: left alone
    assert uninstantiated(result.kernels, (), result.files) == frozenset()


SWITCH = FIXTURES / "kernels_s26" / "idle_switch" / "switch.cu"


def test_a_launch_in_an_arm_the_files_own_define_rules_out_or_in_if_0_is_no_launch():
    """switch.cu: `#define SMALL` (line 1) takes `#ifdef SMALL`'s arm, so part's launch (line 19) stands and
    whole's in the `#else` (line 21) does not; neither does whole's in `#if 0` (line 24). The `#ifdef
    UNKNOWN_SWITCH` arm (line 27) may be compiled: kept."""
    from porter.source import syntax
    from porter.source.parse import parse

    data = SWITCH.read_bytes()
    assert [(l.kernel, l.line) for l in syntax.launches(parse("switch.cu", "cuda", data))] == [
        ("part", 19), ("whole", 27)]


def test_a_template_named_only_in_dead_arms_is_never_instantiated_and_one_taken_by_pointer_is(tmp_path):
    """Without the undecided arm, `whole` (line 3) is named only in the dead `#else` and `#if 0`: never
    instantiated, ok. `auto k = part<float>;` launched as `k` (RL-Kernel's generic launcher, heldout23) still
    instantiates `part` (line 10): it keeps its fix."""
    cut = SWITCH.read_bytes().replace(b"#ifdef UNKNOWN_SWITCH\n    whole<int><<<1, 32>>>(out);\n#endif\n", b"")
    cut = cut.replace(b"    part<float><<<1, 64>>>(out);\n", b"    auto k = part<float>;\n    k<<<1, 64>>>(out);\n")
    (tmp_path / "switch.cu").write_bytes(cut)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    k = {(x.path, x.line): x for x in result.kernels}
    assert [(l.kernel, l.line) for l in result.launches] == [("k", 20)]
    assert verdicts(k[("switch.cu", 3)]) == {
        t: ("ok", (("never-instantiated", NEVER_INSTANTIATED_WHY, ()),)) for t in TARGETS}
    assert {t: v for t, (v, _) in verdicts(k[("switch.cu", 10)]).items()} == {t: "fix" for t in TARGETS}


def test_the_undecided_launch_keeps_the_template_a_fix():
    result = run(SWITCH.parent, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    k = {(x.path, x.line): x for x in result.kernels}
    for where in (("switch.cu", 3), ("switch.cu", 10)):
        assert {t: v for t, (v, _) in verdicts(k[where]).items()} == {t: "fix" for t in TARGETS}
