"""A variable declared as an array shadows the CUDA name it spells (issue 27, session 28, l37): ludwig's host
`double umin[3];` in stats_velocity.c is no call of CUDA's device function umin. Fixture written here."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/arrays_s28"


def test_array_declarations_shadow_kb_names_but_a_real_call_stays():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    got = [(f.path, f.line, f.rule, str(f.status)) for f in result.findings]
    # lines 5-15 use the local arrays umin[3] and umax[3][1]: nothing; line 19 calls umin in a kernel
    assert got == [("stats.cu", 18, "KRN001", "open"), ("stats.cu", 19, "API002", "open")]


def test_variables_include_array_declarators():
    from porter.source.parse import parse
    from porter.source.syntax import index

    sf = parse("a.cu", "cuda", b"int g[4];\nvoid f() { double a[3]; int *b[2][2] = {0}; float c = 1, d[2] = {1, 2}; }\n")
    assert sorted(index(sf).variables) == ["a", "b", "c", "d", "g"]
