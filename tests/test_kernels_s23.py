"""CUDA kernel verdicts of issue 27 (session 23, kern67) on fixtures/kernels_s23: kernels no build compiles (`#if 0`,
the `#else` of `#if 1`) are no kernels, C++'s alternative tokens (`and`, `or`, `not`) decide `#if` as the operators
they spell, and a dim3 reshaped member by member gives each launch the shape its writes leave. Exact kernels,
verdicts, check ids, lines and block shapes, with near misses."""
from __future__ import annotations

from porter.source import preprocessor

from conftest import FIXTURES
from kernels_s21_table import TARGETS, analysed, verdicts

BASE = FIXTURES / "kernels_s23"


def _analysed(name: str):
    return analysed(name, BASE)


def _verdicts(result) -> dict[tuple[str, int], dict[str, tuple]]:
    return verdicts(result, by_line=True)


def test_kernels_in_arms_no_build_compiles_are_not_listed():
    got = _verdicts(_analysed("dead"))
    # the `#else` of `#if 1` (line 9), `#if 0` (15) and an arm nested in it (17) are gone; the live twin of line 6
    # and the project-switch arm (23, unknown: either build may take it) stay, with their own verdicts
    assert list(got) == [("tiled_copy", 6), ("maybe_fast", 23)]
    assert got[("tiled_copy", 6)] == {t: ("ok", ()) for t in TARGETS}
    assert got[("maybe_fast", 23)] == {"mi300x": ("fix", (("wave64-full-mask", "fix", (23,)),)),
                                       "mi455x": ("fix", (("mask-32bit-type", "fix", (23,)),))}


def test_alternative_tokens_are_the_operators_they_spell():
    assert preprocessor._tokens("__CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)") == [
        "__CUDA_ARCH__", "<", "600", "&&", "defined", "(", "__CUDA_ARCH__", ")"]
    assert preprocessor._tokens("not A or B bitand C xor compl D not_eq 1") == [
        "!", "A", "||", "B", "&", "C", "^", "~", "D", "!=", "1"]
    assert preprocessor._tokens("and_eq") == ["and_eq"]  # an assignment spelling, no #if operator
    data = (b"#if __CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)\nA\n#endif\n"
            b"#if not defined(__CUDA_ARCH__) or __CUDA_ARCH__ < 600\nB\n#endif\n")
    dirs = preprocessor.directives(data)
    assert [n for n in (2, 5) if preprocessor.hip_reaches(dirs, n)] == [5]


def test_a_polyfill_hip_never_compiles_is_no_redefinition():
    result = _analysed("alternative")
    assert _verdicts(result) == {("accumulate", 18): {t: ("ok", ()) for t in TARGETS}}
    assert sorted((f.rule, f.line) for f in result.findings if f.rule == "DEV037") == []
    # near miss: behind `not defined(__CUDA_ARCH__) or ...` hip-clang compiles the polyfill, which HIP redefines
    near = _analysed("alternative_near")
    assert _verdicts(near) == {("accumulate", 12): {t: ("fix", (("DEV037", "fix", (6,)),)) for t in TARGETS}}
    assert sorted((f.rule, f.line) for f in near.findings if f.rule == "DEV037") == [("DEV037", 6)]


def test_a_dim3_reshaped_member_by_member_gives_each_launch_its_shape():
    result = _analysed("dim3")
    blocks = {k.name: [(s.line, s.block) for s in k.facts.launch_sites] for k in result.kernels}
    assert blocks == {"sum_2d": [(17, (32, 32, 1))], "sum_rows": [(20, (32, 1, 1))],
                      # near misses: a write one path takes, one a loop brings round, a compound one: no shape
                      "sum_maybe": [(25, None)], "sum_looped": [(28, None)], "sum_scaled": [(33, None)],
                      "sum_fresh": [(37, (16, 1, 1))]}  # `dim3 fresh;` is (1, 1, 1) until its x is set
    got = _verdicts(result)
    assert got[("sum_rows", 6)] == {"mi300x": ("retune", (("block-not-wave-multiple", "retune", (20,)),)),
                                    "mi455x": ("ok", ())}
    assert got[("sum_2d", 5)] == {t: ("ok", ()) for t in TARGETS}
