"""Issue 27 (heldout4's false-positive families, as general mechanisms): a CMake bracket comment is a comment (a
vendored Find module's documentation), a CUDA-flags variable set to options every compiler spells the same is not
an nvcc flag, and a drop-in library included only under its own build switch is optional (info).
fixtures/judgement2/README.md says what each line is."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "judgement2"


def _scan():
    return run(FIXTURE, Settings(jobs=1, cache_dir=None)).result


def test_the_fixture_project_reads_line_by_line_as_the_readme_says():
    got = sorted((f.path, f.line, f.rule, f.severity.name.lower(), f.status.value) for f in _scan().findings)
    assert got == [
        ("CMakeLists.txt", 6, "BLD004", "medium", "open"),
        ("cmake/FindThing.cmake", 10, "BLD004", "medium", "open"),
        ("cmake/FindThing.cmake", 10, "BLD004", "medium", "open"),
        ("src/trace.h", 4, "API005", "info", "open"),
        ("src/trace.h", 4, "LIB001", "info", "open"),
        ("src/trace.h", 8, "API005", "info", "open"),
        ("src/trace.h", 8, "LIB001", "info", "open"),
        ("src/trace.h", 12, "API005", "info", "open"),
        ("src/trace.h", 12, "LIB001", "low", "open"),
        ("src/trace.h", 15, "API005", "info", "open"),
        ("src/trace.h", 15, "LIB001", "low", "open"),
    ]


def test_an_optional_drop_in_says_which_switch_gates_it():
    optional = {(f.line, dict(f.data).get("optional")) for f in _scan().findings if f.rule == "LIB001"}
    assert optional == {(4, "only built with APP_HAVE_NVTX (line 3)"), (8, "only built with APP_ENABLE_NVTX (line 7)"),
                        (12, None), (15, None)}


def test_a_cmake_bracket_comment_is_blanked_to_its_closing_bracket_and_no_further():
    data = (FIXTURE / "cmake" / "FindThing.cmake").read_bytes()
    sf = parse("cmake/FindThing.cmake", "cmake", data)
    lines = sf.code.decode().split("\n")
    assert [i + 1 for i, t in enumerate(lines) if t.strip()] == [10]
    assert lines[9] == 'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math")'
    # a bracket argument (not a comment) stays code
    sf2 = parse("x.cmake", "cmake", b'if(V MATCHES [=[([0-9]+)]=])\n#[[ one\ntwo ]] set(A 1)\n')
    assert sf2.code.decode().split("\n") == ["if(V MATCHES [=[([0-9]+)]=])", " " * 7, "       set(A 1)", ""]
