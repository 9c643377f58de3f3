"""The verdict table both session-21 kernel test files (and session 23's, on fixtures/kernels_s23) compare against:
each kernel of a fixture in fixtures/kernels_s21, per target, as (verdict, ((check id, verdict, lines), ...))."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s21"
TARGETS = ("mi300x", "mi455x")


def analysed(name: str, base=BASE):
    return run(base / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def verdicts(result, by_line: bool = False) -> dict:
    """{name: {target: (verdict, details)}}; keyed (name, line) with `by_line` (a name defined twice, or gone)."""
    return {((k.name, k.line) if by_line else k.name): {
        t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
        for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


def every(verdict: str, *details: tuple) -> dict[str, tuple]:
    return {t: (verdict, tuple(details)) for t in TARGETS}


OK = every("ok")
