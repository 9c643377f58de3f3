"""Kernel verdicts of issue 27 class 2 (session 22) on fixtures/kernels_s22: facts porter already reports outside a
kernel's body that stop the kernel compiling under HIP. Causes read on the development sets heldout21/heldout22,
each a rule of hip-clang. Exact verdicts, reasons and lines per target."""
from __future__ import annotations

import pytest

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s22"

DEV040 = ("Kernel launch `{name}` written with spaces inside `<<<`: nvcc accepts it, hip-clang lexes `<<<` only as "
          "three touching characters and rejects the line (\"expected expression\"); hipify keeps the spelling")


def analysed(name: str) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {(k.path, k.line): k for k in result.kernels}


@pytest.fixture(scope="module")
def launch():
    return analysed("launch")


def test_a_spaced_launch_in_the_kernels_file_makes_it_a_fix_at_the_launch_line(launch):
    """k.cu:9 launches `fill << <1, 64 >> >(f)` (DEV040, high): hip-clang rejects the launch, so fill (line 2),
    whose body is portable, reads fix on every target, the launch named and its line the detail's. fill_ok (line
    3), launched `<<<` at line 10, stays ok."""
    detail = ("DEV040", DEV040.format(name="fill") + "; at its launch k.cu:9", (9,))
    assert verdicts(launch[("k.cu", 2)]) == {t: ("fix", (detail,)) for t in TARGETS}
    assert verdicts(launch[("k.cu", 3)]) == {t: ("ok", ()) for t in TARGETS}


def test_overloads_of_one_file_share_their_spaced_launches(launch):
    """sub(float*) (line 4) and sub(int*) (line 5) are both launched spaced (lines 11, 12): overloads of one file are
    one kernel to a launch, as they are one helper to the call graph, so both read fix with both launches."""
    detail = ("DEV040", DEV040.format(name="sub") + "; at its launches k.cu:11, k.cu:12", (11, 12))
    assert verdicts(launch[("k.cu", 4)]) == {t: ("fix", (detail,)) for t in TARGETS}
    assert verdicts(launch[("k.cu", 5)]) == {t: ("fix", (detail,)) for t in TARGETS}


def test_a_spaced_launch_in_another_file_reaches_the_kernel_it_includes(launch):
    """host.cu:4 launches remote_k, defined in remote.cuh (line 2), which host.cu includes: the kernel reads fix,
    the detail at the kernel's own line (the one line of its file that stands for a launch elsewhere)."""
    detail = ("DEV040", DEV040.format(name="remote_k") + "; at its launch host.cu:4", (2,))
    assert verdicts(launch[("remote.cuh", 2)]) == {t: ("fix", (detail,)) for t in TARGETS}


def test_an_ambiguous_launch_links_to_no_kernel(launch):
    """elsewhere.cu:3 launches `twin`, which twin_a.cuh and twin_b.cuh both define and elsewhere.cu includes
    neither: which one runs is a guess, so neither verdict moves (the DEV040 finding itself stays open)."""
    assert verdicts(launch[("twin_a.cuh", 2)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(launch[("twin_b.cuh", 2)]) == {t: ("ok", ()) for t in TARGETS}
    result = run(BASE / "launch", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    assert [(f.path, f.line) for f in result.findings if f.rule == "DEV040"] == [
        ("elsewhere.cu", 3), ("host.cu", 4), ("k.cu", 9), ("k.cu", 11), ("k.cu", 12)]


def test_the_repository_verdict_follows_the_kernels_hip_rejects():
    """assess on the fixture: the kernels the spaced launches stop are kernels needing work, so the repository reads
    port (before, open high DEV040 findings alone left InfiniTAM `mechanical`)."""
    r = run(BASE / "launch", Settings(jobs=1, cache_dir=None, targets=("mi300x",)), assess=True)
    a = r.assessment
    assert a.verdict == "port"
    reason = next(x for x in a.reasons if x.key == "kernels:port")
    assert (reason.count, reason.title) == (4, "4 kernels need work on the target (4 fix)")
