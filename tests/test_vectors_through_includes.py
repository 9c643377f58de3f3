"""A project's free vector compound operators followed across files (porter.match.refine_vectors), on
fixtures/kernels_s26/vectors_through: math/vecmath.h defines `operator+=(float3&, float3)` (line 3),
`operator*=(float3&, float3)` (line 4) and `operator+=(int2&, int2)` (line 5); volume.h includes it; march.cu
includes volume.h only. Cause read on heldout34's kfusion (kfusion.cu -> kfusion.h -> cutil_math.h)."""
from __future__ import annotations

import pytest

from porter.match.refine_vectors import _includers, _reaching, unused_definitions
from porter.model import Severity
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s26" / "vectors_through"

DEV053 = ("`+=` on two float3 operands: the project's free operator+= (cuda-samples' helper_math.h) and "
          "HIP_vector_type's member operator+= match alike, so hip-clang rejects the use as ambiguous.")


@pytest.fixture(scope="module")
def result():
    return run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def test_a_use_reached_through_two_includes_is_flagged_and_a_file_reaching_no_definition_is_not(result):
    """march.cu:6 `pos += step` on two float3 (a for-loop's increment) reaches vecmath.h's operator+= through
    volume.h: DEV053. lone.cu's `a += b` (line 4) includes nothing, so no free operator competes: no finding.
    shrink's `p *= 0.5f` (march.cu:13) has a scalar right operand: no finding."""
    assert [(f.path, f.line, f.column, f.severity, f.message) for f in result.findings if f.rule == "DEV053"] == [
        ("march.cu", 6, 37, Severity.HIGH, DEV053)]


def test_the_kernel_holding_the_reached_use_reads_fix_and_the_others_ok(result):
    k = {(x.path, x.line): x for x in result.kernels}
    assert verdicts(k[("march.cu", 3)]) == {t: ("fix", (("DEV053", DEV053, (6,)),)) for t in TARGETS}
    assert verdicts(k[("march.cu", 11)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(k[("lone.cu", 1)]) == {t: ("ok", ()) for t in TARGETS}


def test_a_definition_no_use_reaches_reads_info_and_the_used_one_keeps_its_severity(result):
    """vecmath.h:3 (`+=` on float3) is used at march.cu:6: medium. Lines 4 (`*=` float3: shrink's use is scalar)
    and 5 (`+=` int2: no int2 use) compile under HIP: info, with the reason in data `unused`."""
    got = [(f.line, f.severity, dict(f.data).get("unused")) for f in result.findings if f.rule == "API009"]
    assert got == [
        (3, Severity.MEDIUM, None),
        (4, Severity.INFO, "no `*=` on two float3 operands in the repository uses this definition (DEV053 reports "
                           "each that does); the definition alone compiles under HIP"),
        (5, Severity.INFO, "no `+=` on two int2 operands in the repository uses this definition (DEV053 reports "
                           "each that does); the definition alone compiles under HIP"),
    ]


def test_the_include_closure_follows_project_files_only(result):
    """From each file's includes as its scan kept them (FileResult.includes): who includes whom, and which files
    reach vecmath.h's types through one include or more (vecmath.h itself and lone.cu do not)."""
    files = {r.path: r for r in result.files}
    includers = _includers(files, frozenset(files))
    assert includers == {"math/vecmath.h": ["volume.h"], "volume.h": ["march.cu"]}
    vec = frozenset({"float3", "int2"})
    assert files["math/vecmath.h"].vectors is not None and files["math/vecmath.h"].vectors.defined == ("float3", "int2")
    assert _reaching({"math/vecmath.h": vec}, includers) == {"volume.h": vec, "march.cu": vec}
    # each file's every use on two same-type vector operands is kept with it; the pass keeps the reached types'
    lone = files["lone.cu"].vectors
    assert lone is not None and (lone.defined, lone.own) == ((), ())
    assert [(f.line, f.column, dict(f.data)["type"]) for f in lone.uses] == [(4, 7, "float3")]
    # a cycle reaches the header itself, as the compiler's include guard lets it
    assert _reaching({"a.h": vec}, {"a.h": ["b.h"], "b.h": ["a.h"]}) == {"b.h": vec, "a.h": vec}


def test_a_disabled_use_rule_leaves_the_definitions_as_they_were():
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS, disabled_rules=("DEV053",))).result
    assert [f.rule for f in result.findings if f.rule == "DEV053"] == []
    assert [(f.line, f.severity) for f in result.findings if f.rule == "API009"] == [
        (3, Severity.MEDIUM), (4, Severity.MEDIUM), (5, Severity.MEDIUM)]
    assert unused_definitions([]) == []


def test_the_pass_runs_under_a_stage_budget_and_past_it_the_files_own_findings_stand(monkeypatch):
    """It reads and parses repository files again after the scan: in a budgeted worker (as kernel analysis), so a
    tree built to make it slow cannot hold the run; past its budget no finding moves and the report says why."""
    import time

    from porter import pipeline

    def slow(*args):
        time.sleep(30)

    monkeypatch.setattr(pipeline, "_vector_operators", slow)  # the forked worker inherits it
    t = time.monotonic()
    res = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS, file_seconds=2)).result
    assert time.monotonic() - t < 25
    assert [f.path for f in res.findings if f.rule == "DEV053"] == []  # march.cu's use is only reached via includes
    assert [n for n in res.stats.notices if n.startswith("following vector")] == [
        "following vector compound operators across includes stopped: took longer than 2 s; DEV053 and API009 are "
        "as each file's own scan found them"]
