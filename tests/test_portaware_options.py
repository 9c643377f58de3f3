"""Off-by-default compile options (porter.portaware.options): an arm only a macro defined in a comment, or a CMake
option that defaults OFF, enables is optional work, cuda-only; a macro a directive or a build file defines (or turns
on) is no such option, and neither is the option that turns on the CUDA build itself."""
from __future__ import annotations

from porter.pipeline import run
from porter.portaware.options import (build_names, cmake_option_blocks, cmake_option_facts, combine_off_options,
                                      commented_defines, make_off_switches, off_arms)
from porter.settings import Settings
from porter.source.preprocessor import directives

CONFIG_H = (b"// Use textures for the fields -- 10% faster\n"  # 1
            b"//#define USE_TEXTURES\n"                         # 2: off by default
            b"/* #define USE_COLORING 1 */\n"                  # 3: off by default
            b"// #define ALSO_DEFINED\n"                        # 4: defined below, so not an option
            b"#define ALSO_DEFINED\n"                           # 5
            b"// #define SET_BY_CMAKE\n"                        # 6: CMake passes -DSET_BY_CMAKE
            b"//#define WITH_VALUE 4\n")                        # 7: a value other than 1 is not a switch

KERNEL_CU = (b'#include "config.h"\n'                                                 # 1
             b"#ifdef USE_TEXTURES\n"                                                 # 2
             b"texture<float, 1> tex;\n"                                              # 3 off
             b"__device__ float f(int i) { return tex1Dfetch(tex, i); }\n"            # 4 off
             b"#else\n"                                                               # 5
             b"__device__ float f(int i) { return 0.f; }\n"                           # 6 on
             b"#endif\n"                                                              # 7
             b"#if defined(USE_TEXTURES) || defined(USE_COLORING)\n"                  # 8
             b"__device__ float g(int i) { return tex1Dfetch(tex, i); }\n"            # 9 off
             b"#endif\n"                                                              # 10
             b"#if defined(USE_TEXTURES) || defined(OTHER)\n"                         # 11: OTHER may be set
             b"__device__ float h(int i) { return tex1Dfetch(tex, i); }\n"            # 12 on
             b"#endif\n"                                                              # 13
             b"#if USE_TEXTURES == 0\n"                                               # 14: true without it
             b"__device__ float k(int i) { return tex1Dfetch(tex, i); }\n"            # 15 on
             b"#endif\n"                                                              # 16
             b"#ifdef SET_BY_CMAKE\n"                                                 # 17
             b"__device__ float m(int i) { return tex1Dfetch(tex, i); }\n"            # 18 on
             b"#endif\n"                                                              # 19
             b"#ifdef ALSO_DEFINED\n"                                                 # 20
             b"__device__ float n(int i) { return tex1Dfetch(tex, i); }\n"            # 21 on
             b"#endif\n")                                                             # 22


def test_commented_definitions_are_read_with_no_value_or_1():
    assert commented_defines(CONFIG_H) == ((2, "USE_TEXTURES"), (3, "USE_COLORING"), (4, "ALSO_DEFINED"),
                                           (6, "SET_BY_CMAKE"))
    assert commented_defines(b"int x; // see #define FOO in the docs\n") == ()


def test_only_arms_false_without_the_options_are_off():
    off = {"USE_TEXTURES": "config.h:2", "USE_COLORING": "config.h:3"}
    assert off_arms(directives(KERNEL_CU), off) == [(3, 4, "config.h:2"), (9, 9, "config.h:2")]
    # a conjunction with an off option is false; `#ifndef` and `!` are not read
    text = b"#if defined(USE_TEXTURES) && X > 1\na\n#endif\n#ifndef USE_TEXTURES\nb\n#endif\n#if !USE_COLORING\nc\n#endif\n"
    assert off_arms(directives(text), off) == []
    text = b"#if defined(USE_TEXTURES) && defined(X)\na\n#elif defined(USE_COLORING)\nb\n#elif Y\nc\n#endif\n"
    assert off_arms(directives(text), off) == [(2, 2, "config.h:2"), (4, 4, "config.h:3")]


def test_a_build_file_naming_the_macro_may_switch_it_on():
    assert build_names("add_compile_definitions(SET_BY_CMAKE)\nset(X -DUSE_TEXTURES_X)\n",
                       ["SET_BY_CMAKE", "USE_TEXTURES"]) == {"SET_BY_CMAKE"}


def test_findings_in_an_off_option_read_cuda_only(tmp_path):
    (tmp_path / "config.h").write_bytes(CONFIG_H)
    (tmp_path / "kernel.cu").write_bytes(KERNEL_CU)
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX CUDA)\nadd_compile_definitions(SET_BY_CMAKE)\n"
                                             "add_library(k kernel.cu)\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    rows = sorted({(f.line, str(f.status), f.handled_by) for f in result.findings
                   if f.path == "kernel.cu" and f.rule == "DEV020"})
    assert rows == [(4, "cuda-only", "config.h:2"), (9, "cuda-only", "config.h:2"), (12, "open", None),
                    (15, "open", None), (18, "open", None), (21, "open", None)]


CMAKE_OPTIONS = (
    b'option(WITH_CUDNN "enable cudnn, some kernels need it" OFF)\n'   # 1: off, only used in its own block
    b'option(WITH_TRACE "trace")\n'                                     # 2: no value: OFF, but set below
    b'option(WITH_FAST "fast path" ON)\n'                               # 3: on by default
    b'option(USE_GPU "the GPU build" OFF)\n'                            # 4: its block enables CUDA itself
    b'option(WITH_NCCL "nccl" OFF)\n'                                   # 5: off, a Makefile may set it (test below)
    b"if(WITH_CUDNN)\n"                                                 # 6
    b"  find_package(CUDNN REQUIRED)\n"                                 # 7
    b"  list(APPEND DEFS WITH_CUDNN)\n"                                 # 8
    b"endif()\n"                                                        # 9
    b"if(USE_GPU)\n"                                                    # 10
    b"  enable_language(CUDA)\n"                                        # 11
    b"  add_definitions(-DUSE_GPU)\n"                                   # 12
    b"endif()\n"                                                        # 13
    b"set(WITH_TRACE ON)\n"                                             # 14: a mention outside its block
    b"if(WITH_NCCL AND UNIX)\n  add_definitions(-DWITH_NCCL)\nendif()\n"  # 15-17
    b"if(NOT WITH_CUDNN)\n  message(STATUS \"no cudnn\")\nendif()\n")   # 18-20: a test is fine
CUDNN_CU = (b"#include <cuda_runtime.h>\n"                              # 1
            b"#ifdef WITH_CUDNN\n"                                       # 2
            b"#include <cudnn.h>\n"                                      # 3: cuda-only
            b"#endif\n"                                                  # 4
            b"#ifdef USE_GPU\n"                                          # 5
            b"#include <cudnn.h>\n"                                      # 6: open (the GPU build)
            b"#endif\n"                                                  # 7
            b"#ifdef WITH_NCCL\n"                                        # 8
            b"#include <cudnn.h>\n"                                      # 9: open (build.sh sets it)
            b"#endif\n")                                                 # 10


def off_cmake_options(cmake_files):
    return combine_off_options((path, *cmake_option_facts(data)) for path, data in cmake_files)


def test_cmake_options_off_by_default_that_define_their_macro_only_when_on():
    assert off_cmake_options([("CMakeLists.txt", CMAKE_OPTIONS)]) == {"WITH_CUDNN": "CMakeLists.txt:1",
                                                                       "WITH_NCCL": "CMakeLists.txt:5"}
    # a second CMake file naming the option outside an if(NAME) block of its own may turn it on
    assert off_cmake_options([("CMakeLists.txt", CMAKE_OPTIONS),
                              ("cmake/deps.cmake", b"set(WITH_CUDNN ON CACHE BOOL \"\" FORCE)\n")]) == {
        "WITH_NCCL": "CMakeLists.txt:5"}


def test_findings_in_arms_of_an_off_cmake_option_read_cuda_only(tmp_path):
    (tmp_path / "CMakeLists.txt").write_bytes(CMAKE_OPTIONS + b"add_library(k k.cu)\n")
    (tmp_path / "k.cu").write_bytes(CUDNN_CU)
    (tmp_path / "build.sh").write_text("cmake -DWITH_NCCL=ON ..\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    rows = sorted({(f.line, str(f.status), f.handled_by) for f in result.findings if f.path == "k.cu"
                   and f.rule == "LIB002"})
    assert rows == [(3, "cuda-only", "CMakeLists.txt:1 (a CMake option, OFF by default)"), (6, "open", None),
                    (9, "open", None)]


def status_rows(root, rules) -> list[tuple]:
    """(path, line, status, evidence) of each finding of `rules` a scan of `root` reports."""
    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return sorted({(f.path, f.line, str(f.status), f.handled_by) for f in result.findings if f.rule in rules})


NCCL_CMAKE = (
    b"project(p LANGUAGES CXX CUDA)\n"                                   # 1
    b'option(WITH_NCCL "multi-GPU" FALSE)\n'                              # 2: off
    b'option(WITH_CUBLAS "cublas" ON)\n'                                  # 3: on
    b"add_library(k k.cu)\n"                                              # 4
    b"if(WITH_NCCL)\n"                                                    # 5
    b"  target_compile_definitions(k PRIVATE WITH_NCCL)\n"                # 6
    b"  target_link_libraries(k PRIVATE nccl)\n"                          # 7: cuda-only
    b"else()\n"                                                           # 8
    b"  target_link_libraries(k PRIVATE cufft)\n"                         # 9: open (the else arm is built)
    b"endif()\n"                                                          # 10
    b"if(WITH_CUBLAS)\n"                                                  # 11
    b"  target_link_libraries(k PRIVATE cublas)\n"                        # 12: open (ON by default)
    b"endif()\n"                                                          # 13
    b'message(STATUS "NCCL: ${WITH_NCCL}")\n')                            # 14: printing it sets nothing


def test_cmake_lines_in_the_block_of_an_off_option_read_cuda_only(tmp_path):
    (tmp_path / "CMakeLists.txt").write_bytes(NCCL_CMAKE)
    (tmp_path / "k.cu").write_bytes(b"#ifdef WITH_NCCL\n#include <nccl.h>\n#endif\n__global__ void k() {}\n")
    assert off_cmake_options([("CMakeLists.txt", NCCL_CMAKE)]) == {"WITH_NCCL": "CMakeLists.txt:2"}
    assert cmake_option_blocks(NCCL_CMAKE) == (("WITH_NCCL", 6, 7), ("WITH_CUBLAS", 12, 12))
    off = "CMakeLists.txt:2 (a CMake option, OFF by default)"
    assert status_rows(tmp_path, ("LIB004", "LIB001")) == [("CMakeLists.txt", 7, "cuda-only", off), ("CMakeLists.txt", 9, "open", None),
                    ("CMakeLists.txt", 12, "open", None), ("k.cu", 2, "cuda-only", off)]


MAKEFILE = (
    "CUDA?=0\n"                                                           # 1: the GPU build's switch
    "CUDNN?=0\n"                                                          # 2: off
    "MPI ?= 0\n"                                                          # 3: set on below: not read
    "ifeq ($(CUDA),1)\n"                                                  # 4
    "CPPFLAGS += -DUSE_CUDA -I$(CUDA_BASE)/include\n"                     # 5: open (the GPU build)
    "ifeq ($(CUDNN),1)\n"                                                 # 6
    "CPPFLAGS += -DUSE_CUDNN\n"                                           # 7: cuda-only
    "CUDA_L := -L$(CUDA_BASE)/lib64 -lcudnn -lcublas -lcudart\n"          # 8: cuda-only
    "else\n"                                                              # 9
    "CUDA_L := -L$(CUDA_BASE)/lib64 -lcublas -lcudart\n"                  # 10: open
    "endif\n"                                                             # 11
    "else\n"                                                              # 12
    "CUDA_L :=\n"                                                         # 13
    "endif\n"                                                             # 14
    "ifeq ($(MPI),1)\n"                                                   # 15
    "CPPFLAGS += -DUSE_MPI\n"                                             # 16
    "endif\n"                                                             # 17
    "MPI = 1\n")                                                          # 18


def test_make_switches_left_off_and_the_macros_only_their_arms_pass():
    lines, macros = make_off_switches({"Makefile": MAKEFILE})
    ev = "Makefile:2 (a make variable, 0 by default)"
    assert lines == {"Makefile": [(7, 8, ev)]}
    assert macros == {"USE_CUDNN": ev}
    # tested by `ifdef` (true when it is 0) or assigned an on value: not read
    assert make_off_switches({"Makefile": "X ?= 0\nifdef X\nA += -DUSE_X\nendif\n"}) == ({}, {})
    assert make_off_switches({"Makefile": "X ?= 0\nifeq ($(X),1)\nA += -DUSE_X\nendif\n",
                              "sub/Makefile": "X := 1\n"}) == ({}, {})
    # `ifneq ($(X),0)` and `ifeq (1,$(X))` test it for being on too
    assert make_off_switches({"Makefile": "X ?= no\nifneq ($(X),no)\nA += -DUSE_X\nendif\nifeq (yes,$(X))\nB\nendif\n"}
                             )[0] == {"Makefile": [(3, 3, "Makefile:1 (a make variable, no by default)"),
                                                   (6, 6, "Makefile:1 (a make variable, no by default)")]}


def test_findings_under_a_make_switch_left_off_read_cuda_only(tmp_path):
    (tmp_path / "Makefile").write_text(MAKEFILE)
    (tmp_path / "k.cu").write_bytes(b"#ifdef USE_CUDNN\n#include <cudnn.h>\n#endif\n#ifdef USE_CUDA\n"
                                    b"#include <cudnn.h>\n#endif\n__global__ void k() {}\n")
    ev = "Makefile:2 (a make variable, 0 by default)"
    assert status_rows(tmp_path, ("LIB002", "LIB004")) == [("Makefile", 8, "cuda-only", ev), ("Makefile", 10, "open", None),
                    ("k.cu", 2, "cuda-only", ev), ("k.cu", 5, "open", None)]
