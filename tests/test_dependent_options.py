"""Issue 27 (heldout13 GauXC): an option `cmake_dependent_option` makes require a CUDA switch whose ROCm twin the
project tests is off in every ROCm build, so the CMake it guards, in any file, and a find module only its arm loads,
are the CUDA build's (porter.portaware.scope.cuda_dependent_options, porter.portaware.status.build_map)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.portaware.scope import cmake_commands, cuda_dependent_options
from porter.settings import Settings

TOP = ('cmake_minimum_required(VERSION 3.18)\n'                                                       # 1
       'project(demo CXX)\n'                                                                          # 2
       'option(DEMO_ENABLE_CUDA "CUDA" OFF)\n'                                                        # 3
       'option(DEMO_ENABLE_HIP "HIP" OFF)\n'                                                          # 4
       'include(CMakeDependentOption)\n'                                                              # 5
       'cmake_dependent_option(DEMO_ENABLE_NCCL "NCCL" OFF "DEMO_ENABLE_CUDA" OFF)\n'                 # 6
       'cmake_dependent_option(DEMO_ENABLE_MAGMA "MAGMA" ON "DEMO_ENABLE_CUDA OR DEMO_ENABLE_HIP" OFF)\n'  # 7
       'list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_SOURCE_DIR}/cmake)\n'                           # 8
       'if(DEMO_ENABLE_HIP)\n'                                                                        # 9
       '  enable_language(HIP)\n'                                                                     # 10
       'endif()\n'                                                                                    # 11
       'add_subdirectory(reduce)\n')                                                                  # 12
REDUCE = ('add_library(reduce reduce.cxx)\n'                   # 1
          'if(DEMO_ENABLE_NCCL)\n'                             # 2 on only when DEMO_ENABLE_CUDA is
          '  find_package(NCCL REQUIRED)\n'                    # 3 loads cmake/FindNCCL.cmake
          '  target_link_libraries(reduce PUBLIC nccl)\n'      # 4
          'endif()\n'                                          # 5
          'if(DEMO_ENABLE_MAGMA)\n'                            # 6 the HIP build may turn this one on
          '  target_link_libraries(reduce PUBLIC nccl)\n'      # 7
          'endif()\n')                                         # 8


def _project(root: Path, top: str = TOP) -> Path:
    (root / "reduce").mkdir()
    (root / "cmake").mkdir()
    (root / "CMakeLists.txt").write_text(top)
    (root / "reduce" / "CMakeLists.txt").write_text(REDUCE)
    (root / "reduce" / "reduce.cxx").write_text("int f() { return 0; }\n")
    (root / "cmake" / "FindNCCL.cmake").write_text("find_library(NCCL_LIBRARY NAMES nccl)\n")
    return root


def _status(root: Path) -> list[tuple[str, int, str, str, str | None]]:
    res = run(root, Settings(jobs=1, cache_dir=None)).result
    return sorted((f.path, f.line, f.rule, f.status.value, f.handled_by) for f in res.findings)


def test_an_option_dependent_on_a_paired_cuda_switch_guards_its_arms_in_another_file_and_its_find_module(tmp_path):
    assert _status(_project(tmp_path)) == [
        ("cmake/FindNCCL.cmake", 1, "LIB004", "handled", "reduce/CMakeLists.txt:2"),
        ("reduce/CMakeLists.txt", 4, "LIB004", "handled", "reduce/CMakeLists.txt:2"),
        # DEMO_ENABLE_MAGMA depends on CUDA OR HIP: a ROCm build may take this arm
        ("reduce/CMakeLists.txt", 7, "LIB004", "open", None),
    ]


def test_without_a_rocm_twin_switch_the_dependent_option_guards_nothing(tmp_path):
    # no DEMO_ENABLE_HIP anywhere: DEMO_ENABLE_CUDA is a plain switch a ROCm build may set, and so is its dependent
    top = TOP.replace('option(DEMO_ENABLE_HIP "HIP" OFF)\n', "").replace("if(DEMO_ENABLE_HIP)", "if(DEMO_ENABLE_X)")
    assert _status(_project(tmp_path, top)) == [
        ("cmake/FindNCCL.cmake", 1, "LIB004", "open", None),
        ("reduce/CMakeLists.txt", 4, "LIB004", "open", None),
        ("reduce/CMakeLists.txt", 7, "LIB004", "open", None),
    ]


def test_cuda_dependent_options_reads_bare_names_joined_by_and_only():
    text = ('cmake_dependent_option(A "a" OFF "USE_CUDA" OFF)\n'
            'cmake_dependent_option(B "b" OFF "MGE_WITH_CUDA;MGE_BUILD_RT;NOT MSVC;NOT WIN32" OFF)\n'
            'cmake_dependent_option(C "c" ON "USE_CUDA OR USE_HIP" OFF)\n'
            'cmake_dependent_option(D "d" OFF "NOT USE_CUDA" OFF)\n'
            'cmake_dependent_option(E "e" OFF "WITH_MPI AND WITH_CUDA" OFF)\n'
            'cmake_dependent_option(F "f" OFF "CUDAToolkit_FOUND" OFF)\n'
            'cmake_dependent_option(G "g" OFF "(USE_CUDA)" OFF)\n'
            'option(H "h" OFF)\n')
    assert cuda_dependent_options(cmake_commands(text)) == [("A", "USE_CUDA"), ("B", "MGE_WITH_CUDA"),
                                                            ("E", "WITH_CUDA")]
