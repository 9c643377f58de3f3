"""Session 27 (nub): meson.build is a build language (hashinator builds with Meson's CUDA language).

Discovery reads meson.build / meson_options.txt / meson.options as `meson`; the build rules that apply to it run
there: BLD014 (the CUDA language), BLD015 (the CUDA toolkit dependency and module), BLD004/BLD005 (nvcc options),
LIB004-LIB006 (CUDA libraries linked, also as the CUDA dependency's modules)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.settings import Settings
from porter.source.discover import language_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _hits(name: str) -> list[tuple[str, int, str]]:
    result = run(FIXTURES / name, Settings(jobs=1)).result
    return sorted((f.rule, f.line, f.snippet if f.rule != "LIB004" else dict(f.data)["library_id"])
                  for f in result.findings)


def test_meson_files_are_a_language() -> None:
    assert [language_of(p) for p in ("meson.build", "sub/meson.build", "meson_options.txt", "meson.options")] == \
        ["meson"] * 4
    assert language_of("meson.build.in") is None


def test_meson_cuda_language_flags_and_links() -> None:
    got = [(rule, line) for rule, line, _ in _hits("BLD014-meson-cuda-language")]
    assert got == [("BLD004", 17), ("BLD004", 17), ("BLD004", 19), ("BLD005", 21), ("BLD014", 3), ("BLD014", 7),
                   ("BLD014", 11), ("LIB004", 21)]


def test_meson_cuda_dependency_and_its_modules() -> None:
    got = [(rule, line, what) for rule, line, what in _hits("BLD015-meson-cuda-dependency")]
    assert [(r, l) for r, l, _ in got] == [("BLD015", 4), ("BLD015", 6), ("LIB004", 4), ("LIB004", 4)]
    assert sorted(w for r, _, w in got if r == "LIB004") == ["cublas", "nvtx"]
