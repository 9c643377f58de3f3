"""Build-file and dual-project precision (issue 27, session 31, bld31): the ROCm build's stand-in for a CMake
project's CUDA lines reaches only the targets and generator functions that build reaches (scope.cmake_units,
scope.rocm_reach, status._reached), inert build lines (empty values, mark_as_advanced, echo recipes, nvcc options
of a named build type beside the default build's), and comments that must never match code rules (the arms
one_arm_for_braces blanks, CMake's quoted arguments continued over lines). See fixtures/bld_s31/README.md."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porter.portaware.scope import (cmake_commands, cmake_targets, cmake_units, cmake_variable_facts,
                                    cuda_language_spans, cuda_only_variables, rocm_reach)
from porter.source.parse import parse

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/bld_s31"


def _statuses(root: Path, severe_only: bool = True):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings
            if f.rule != "KRN001" and (not severe_only or str(f.severity) != "info")]


def test_the_rocm_build_stands_in_only_for_the_units_it_reaches():
    assert _statuses(FIXTURE / "reach", severe_only=False) == [
        # the project's CUDA architectures: the project's ROCm arm sets the HIP ones (line 7)
        ("CMakeLists.txt", 10, "BLD003", "low", "handled", "CMakeLists.txt:7"),
        # gen_ir_targets makes NVIDIA-only IR targets per compute capability: no ROCm arm in it, none calls it
        ("cmake/Gen.cmake", 2, "BLD003", "low", "open", None),
        ("cmake/Gen.cmake", 8, "BLD004", "medium", "open", None),
        ("cmake/Gen.cmake", 9, "BLD003", "low", "open", None),
        # gen_called_by_rocm is called in the project's ROCm arm (line 16)
        ("cmake/Gen.cmake", 16, "BLD004", "medium", "handled", "CMakeLists.txt:3"),
        # check_cuda_only makes no target: it sets the project's architectures
        ("cmake/Gen.cmake", 20, "BLD003", "low", "handled", "CMakeLists.txt:3"),
        ("cmake/Gen.cmake", 21, "BLD003", "low", "handled", "CMakeLists.txt:3"),
        # shared_lib's HIP architectures are set in the ROCm arm (line 15): that build reaches the target
        ("lib/CMakeLists.txt", 2, "BLD004", "medium", "handled", "CMakeLists.txt:3"),
        # tcore: no ROCm arm or HIP line names it, so its relocatable device code has no HIP counterpart (-fgpu-rdc)
        ("tests/CMakeLists.txt", 4, "BLD004", "medium", "open", None),
    ]


def test_units_and_reach_of_one_file():
    text = (FIXTURE / "reach/cmake/Gen.cmake").read_text()
    units, names = cmake_units(cmake_commands(text))
    assert units == [(1, 12, "function:gen_ir_targets"), (14, 17, "function:gen_called_by_rocm")]
    assert (7, 10, "target:ir_${CC}") in names and (14, 17, "body:gen_called_by_rocm") in names
    top = (FIXTURE / "reach/CMakeLists.txt").read_text()
    _units, top_names = cmake_units(cmake_commands(top))
    assert {"function:gen_called_by_rocm", "target:shared_lib"} <= rocm_reach(top_names, [(15, 16, "rocm", 14)], ())
    assert "function:gen_with_arms" not in rocm_reach(top_names, [(15, 16, "rocm", 14)], ())
    # a function whose body holds a ROCm arm or a HIP-language line reaches itself
    assert rocm_reach([(1, 6, "body:gen")], [(3, 4, "rocm", 3)], ()) == {"function:gen"}
    assert rocm_reach([(1, 6, "body:gen")], [], (5,)) == {"function:gen"}
    assert rocm_reach([(1, 6, "body:gen")], [(8, 9, "rocm", 8)], ()) == set()


def test_targets_a_command_configures():
    cmds = cmake_commands("set_target_properties(a b PROPERTIES CUDA_ARCHITECTURES 80)\n"
                          "set_property(TARGET c APPEND PROPERTY CUDA_ARCHITECTURES 90)\n"
                          "set_property(GLOBAL PROPERTY CUDA_ARCHITECTURES 90)\n"
                          "target_compile_options(d PRIVATE -lineinfo)\nset(X 1)\n")
    assert [cmake_targets(c) for c in cmds] == [("a", "b"), ("c",), (), ("d",), ()]


def test_inert_build_lines():
    assert _statuses(FIXTURE / "inert", severe_only=False) == [
        ("CMakeLists.txt", 2, "BLD001", "medium", "open", None),
        # lines 3-5: an empty value with or without a cache entry, and mark_as_advanced: no finding
        ("CMakeLists.txt", 6, "BLD004", "medium", "open", None),  # a cache default with an option in it
        # the Debug arm's nvcc options beside the default (else) arm's: one port item, at line 10
        ("CMakeLists.txt", 8, "BLD004", "info", "open", None),
        ("CMakeLists.txt", 8, "BLD004", "info", "open", None),
        ("CMakeLists.txt", 8, "BLD004", "info", "open", None),
        ("CMakeLists.txt", 10, "BLD004", "medium", "open", None),
        ("CMakeLists.txt", 10, "BLD004", "medium", "open", None),
        # a Debug arm with no default arm beside it stays
        ("CMakeLists.txt", 13, "BLD004", "medium", "open", None),
        ("CMakeLists.txt", 13, "BLD004", "medium", "open", None),
        ("Makefile", 1, "BLD007", "medium", "open", None),
        # line 2 (`NVCCFLAGS =`) and the echo recipes of lines 7-8: no finding; an echo into a file stays (line 9)
        ("Makefile", 3, "BLD004", "medium", "open", None),
        ("Makefile", 3, "BLD004", "medium", "open", None),
        ("Makefile", 9, "BLD004", "medium", "open", None),
        ("Makefile", 9, "BLD004", "medium", "open", None),
        # a file that sets CMAKE_BUILD_TYPE itself: its Debug arm may be the default build's
        ("typed/CMakeLists.txt", 3, "BLD004", "medium", "open", None),
        ("typed/CMakeLists.txt", 3, "BLD004", "medium", "open", None),
        ("typed/CMakeLists.txt", 5, "BLD004", "medium", "open", None),
        ("typed/CMakeLists.txt", 5, "BLD004", "medium", "open", None),
    ]


@pytest.mark.parametrize("suffix", [".cui", ".cuh", ".cu", ".h"])
def test_comments_in_a_blanked_arm_match_no_code_rule(tmp_path, suffix):
    root = tmp_path / "t"
    shutil.copytree(FIXTURE / "comments", root)
    (root / "update.cui").rename(root / f"update{suffix}")
    (root / "kernel.cu").write_text(f'#define STANDALONE\n#include "update{suffix}"\n')
    got = [(p, n, r) for p, n, r, _s, _st, _h in _statuses(root, severe_only=False)]
    # lines 4, 6 and 7 (the `#else` line's comment, a `//` and a `/* */` comment and a raw string in the arm the
    # parser is not given) say "register" in prose; line 9 is the storage class
    assert [g for g in got if g[0].startswith("update")] == [(f"update{suffix}", 9, "DEV021")]
    # CMake: a quoted argument continued over lines (`\` before the newline) ends where CMake ends it, so the
    # comment on line 9 is a comment; line 10's quoted "nvcc" is a value
    assert [g for g in got if g[0] == "CMakeLists.txt"] == [("CMakeLists.txt", 10, "BLD007")]


def test_unparsed_comment_spans_are_comments():
    data = (FIXTURE / "comments/update.cui").read_bytes()
    sf = parse("update.cui", "cuda", data)
    for needle in (b"// STANDALONE", b"// In order", b"/* a register", b"R\"(register"):
        at = data.index(needle)
        assert sf.in_comment(at) or sf.in_string(at), needle
    assert sf.code.count(b"register") == 1  # only line 9's keyword is code


def test_a_variable_read_only_in_cuda_language_expressions_carries_cuda_options():
    assert _statuses(FIXTURE / "variable") == [
        # MY_CUDA_OPTIONS is read only in `$<$<COMPILE_LANGUAGE:CUDA>:...>` (CMakeLists.txt:14): its writes are
        # CUDA-language settings the project's ROCm build (line 3) stands in for
        ("cmake/Options.cmake", 4, "BLD004", "medium", "handled", "CMakeLists.txt:3"),
        ("cmake/Options.cmake", 5, "BLD004", "medium", "handled", "CMakeLists.txt:3"),
        # MY_SHARED_OPTIONS is also read by add_compile_options, which every language gets: it may reach hipcc
        ("cmake/Options.cmake", 6, "BLD004", "medium", "open", None),
    ]


def test_variable_facts():
    top = (FIXTURE / "variable/CMakeLists.txt").read_text()
    opts = (FIXTURE / "variable/cmake/Options.cmake").read_text()
    top_writes, top_reads = cmake_variable_facts(top, cmake_commands(top), cuda_language_spans(top))
    writes, reads = cmake_variable_facts(opts, cmake_commands(opts), ())
    assert ("MY_CUDA_OPTIONS", 2, 4) in writes and ("MY_CUDA_OPTIONS", 5, 5) in writes
    assert top_reads == [("GPU_LANGUAGES", 0, 1), ("MY_CUDA_OPTIONS", 1, 0), ("MY_CXX_OPTIONS", 0, 1),
                         ("MY_SHARED_OPTIONS", 1, 0)]
    assert cuda_only_variables([*top_reads, *reads]) == {"MY_CUDA_OPTIONS"}


def test_a_cuda_build_arm_that_only_declares_what_its_own_test_uses_vanishes_whole():
    got = [(p, n, r) for p, n, r, _s, _st, _h in _statuses(FIXTURE / "arms") if r == "DEV043"]
    # tiles' `#ifdef BIG_CACHE` (line 8) declares sh_extra and sh_extra_overflow, used only under `#ifdef BIG_CACHE`
    # (line 16), whose `#else` is the ROCm build's complete path: nothing is lost. lost's (line 24) declares
    # sh_lost, which code outside the test reads: the ROCm build loses its declaration
    assert got == [("k.cu", 24, "DEV043")]
