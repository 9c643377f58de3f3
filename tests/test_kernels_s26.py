"""Kernel verdicts of session 26 (issue 27) on fixtures/kernels_s26: kernels launched through a launcher function
(porter.kernels.launchers). Causes read on the development set heldout32 (a launcher template whose spaced
chevrons hip-clang rejects). Exact verdicts, reasons and lines per target."""
from __future__ import annotations

import pytest

from porter.kernels.launchers import launchers_of, passed_names
from porter.model.kernel import Launcher, PassedName
from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s26"

DEV040 = ("Kernel launch `{name}` written with spaces inside `<<<`: nvcc accepts it, hip-clang lexes `<<<` only as "
          "three touching characters and rejects the line (\"expected expression\"); hipify keeps the spelling")


@pytest.fixture(scope="module")
def launcher():
    result = run(BASE / "launcher", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return result, {(k.path, k.line): k for k in result.kernels}


def test_the_scan_records_a_function_launching_its_parameter_as_a_launcher():
    """launcher.cuh: recordLaunch launches its 4th parameter `f` (index 3) with spaced chevrons (lines 3-5),
    cleanLaunch its 3rd, `kernel` (index 2), with plain ones (lines 8-10); no other parameter is launched."""
    path = BASE / "launcher" / "launcher.cuh"
    sf = parse("launcher.cuh", "cuda", path.read_bytes())
    assert launchers_of(sf) == (Launcher("recordLaunch", "f", 3, 3, 5), Launcher("cleanLaunch", "kernel", 2, 8, 10))


def test_the_scan_records_the_names_a_call_passes_that_no_variable_declares():
    """step.cu: the kernels passed by name (`scale`, `&clear`, `fill`) at their positions; `p` and `s` are the
    caller's parameters and `clear_count` its local, so they are not recorded; `report(scale, ...)` is."""
    path = BASE / "launcher" / "step.cu"
    sf = parse("step.cu", "cuda", path.read_bytes())
    assert passed_names(sf) == (PassedName("recordLaunch", 3, "scale", 5), PassedName("recordLaunch", 3, "clear", 6),
                                PassedName("cleanLaunch", 2, "fill", 7), PassedName("report", 0, "scale", 9))


def test_a_spaced_launch_in_a_launcher_reaches_each_kernel_its_callers_pass(launcher):
    """launcher.cuh:4 `f << <gs, bs >> >(args...)` (DEV040) launches whatever recordLaunch's callers pass as `f`:
    step.cu passes scale and &clear (kernels.cu lines 2, 3), so both read fix, the detail at the kernel's line and
    the launch named. fill goes through cleanLaunch, whose `<<<` is well formed: ok; unused is passed to no
    launcher: ok."""
    _, k = launcher
    detail = ("DEV040", DEV040.format(name="f") + "; at its launch launcher.cuh:4", (2,))
    assert verdicts(k[("kernels.cu", 2)]) == {t: ("fix", (detail,)) for t in TARGETS}
    detail = ("DEV040", DEV040.format(name="f") + "; at its launch launcher.cuh:4", (3,))
    assert verdicts(k[("kernels.cu", 3)]) == {t: ("fix", (detail,)) for t in TARGETS}
    assert verdicts(k[("kernels.cu", 4)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(k[("kernels.cu", 5)]) == {t: ("ok", ()) for t in TARGETS}
    result, _ = launcher
    assert [(f.path, f.line) for f in result.findings if f.rule == "DEV040"] == [("launcher.cuh", 4)]


DEV053 = ("`*=` on two float3 operands: the project's free operator*= (cuda-samples' helper_math.h) and "
          "HIP_vector_type's member operator*= match alike, so hip-clang rejects the use as ambiguous.")


def test_a_vector_compound_assignment_beside_helper_math_makes_the_kernel_that_reaches_it_a_fix():
    """depth.cu includes helper_math.h; square (a same-file device helper, lines 3-7) writes `q *= q` on two
    float3 (line 5, DEV053, high): phase (line 9) calls it and reads fix at that line on every target. blend
    (line 13) uses helper_math's binary operators and a scalar `acc *= 0.5f`, neither ambiguous: ok."""
    result = run(BASE / "vectors", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    assert [(f.rule, f.path, f.line, f.message) for f in result.findings if f.rule == "DEV053"] == [
        ("DEV053", "depth.cu", 5, DEV053)]
    k = {(x.path, x.line): x for x in result.kernels}
    assert verdicts(k[("depth.cu", 9)]) == {t: ("fix", (("DEV053", DEV053, (5,)),)) for t in TARGETS}
    assert verdicts(k[("depth.cu", 13)]) == {t: ("ok", ()) for t in TARGETS}
