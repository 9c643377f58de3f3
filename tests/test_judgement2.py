"""Issue 27 (heldout4's false-positive families, as general mechanisms): a CMake bracket comment is a comment (a
vendored Find module's documentation), a CUDA-flags variable set to options every compiler spells the same is not
an nvcc flag, a drop-in library included only under its own build switch is optional (info), a CUDA library
switch whose ROCm library twin a sibling arm tests is the CUDA build's, an API name in an `#error` is a message,
and a mask macro also defined 64-bit (per warp size) is not a 32-bit mask.
fixtures/judgement2/README.md says what each line is."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse
from porter.source.preprocessor import Directive, paired_cuda_switches

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "judgement2"


def _scan():
    return run(FIXTURE, Settings(jobs=1, cache_dir=None)).result


def test_the_fixture_project_reads_line_by_line_as_the_readme_says():
    got = sorted((f.path, f.line, f.rule, f.severity.name.lower(), f.status.value) for f in _scan().findings)
    assert got == [
        ("CMakeLists.txt", 6, "BLD004", "medium", "open"),
        ("cmake/FindThing.cmake", 10, "BLD004", "medium", "open"),
        ("cmake/FindThing.cmake", 10, "BLD004", "medium", "open"),
        ("src/barrier.cuh", 9, "DEV016", "high", "open"),
        ("src/barrier.cuh", 10, "DEV002", "high", "open"),
        ("src/sparse.h", 3, "LIB015", "info", "handled"),  # the cuSPARSE switch: its rocSPARSE twin is the next arm
        ("src/sparse.h", 4, "API005", "info", "handled"),
        ("src/sparse.h", 4, "LIB001", "info", "handled"),
        ("src/sparse.h", 5, "API003", "info", "handled"),  # hipify maps it to a hipSPARSE name HIP keeps: a rename
        ("src/sparse.h", 12, "LIB015", "info", "open"),  # APP_USING_CUBLAS has no hipBLAS twin: a ROCm switch to add
        ("src/sparse.h", 13, "API005", "info", "open"),
        ("src/sparse.h", 13, "LIB001", "info", "open"),
        ("src/sparse.h", 16, "DEV010", "medium", "open"),
        ("src/sparse.h", 19, "API007", "medium", "open"),
        ("src/trace.h", 4, "API005", "info", "open"),
        ("src/trace.h", 4, "LIB001", "info", "open"),
        ("src/trace.h", 8, "API005", "info", "open"),
        ("src/trace.h", 8, "LIB001", "info", "open"),
        ("src/trace.h", 12, "API005", "info", "open"),
        ("src/trace.h", 12, "LIB001", "info", "open"),  # a drop-in include is a rename (LIB001 reads info)
        ("src/trace.h", 15, "API005", "info", "open"),
        ("src/trace.h", 15, "LIB001", "info", "open"),
        ("src/warp.cuh", 13, "API004", "low", "open"),
        ("src/warp.cuh", 14, "DEV002", "high", "open"),
    ]


def test_the_cusparse_arm_is_handled_by_the_group_whose_other_arm_tests_rocsparse():
    by = {(f.line, f.rule): f.handled_by for f in _scan().findings if f.path == "src/sparse.h"}
    assert by[(5, "API003")] == "src/sparse.h:3"
    assert by[(13, "LIB001")] is None  # APP_USING_CUBLAS has no rocBLAS arm beside it


def test_a_library_switch_pairs_only_with_its_rocm_twin_in_a_sibling_arm():
    def d(line: int, kind: str, text: str) -> Directive:
        return Directive(line, line, kind, text)
    files = [([d(1, "if", "defined(X_USING_CUSPARSE)"), d(3, "elif", "defined(X_USING_ROCSPARSE)"), d(5, "endif", ""),
               d(6, "ifdef", "X_USING_CUBLAS"), d(8, "endif", ""), d(9, "ifdef", "X_USING_HIPBLAS"),
               d(11, "endif", "")], 11)]
    assert paired_cuda_switches(files) == {"X_USING_CUSPARSE"}


def test_an_optional_drop_in_says_which_switch_gates_it():
    optional = {(f.path, f.line, dict(f.data).get("optional")) for f in _scan().findings if f.rule == "LIB001"}
    assert optional == {("src/trace.h", 4, "only built with APP_HAVE_NVTX (line 3)"),
                        ("src/trace.h", 8, "only built with APP_ENABLE_NVTX (line 7)"),
                        ("src/trace.h", 12, None), ("src/trace.h", 15, None),
                        ("src/sparse.h", 4, "only built with APP_USING_CUSPARSE (line 3)"),
                        ("src/sparse.h", 13, "only built with APP_USING_CUBLAS (line 12)")}


def test_a_cmake_bracket_comment_is_blanked_to_its_closing_bracket_and_no_further():
    data = (FIXTURE / "cmake" / "FindThing.cmake").read_bytes()
    sf = parse("cmake/FindThing.cmake", "cmake", data)
    lines = sf.code.decode().split("\n")
    assert [i + 1 for i, t in enumerate(lines) if t.strip()] == [10]
    assert lines[9] == 'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math")'
    # a bracket argument (not a comment) stays code
    sf2 = parse("x.cmake", "cmake", b'if(V MATCHES [=[([0-9]+)]=])\n#[[ one\ntwo ]] set(A 1)\n')
    assert sf2.code.decode().split("\n") == ["if(V MATCHES [=[([0-9]+)]=])", " " * 7, "       set(A 1)", ""]
