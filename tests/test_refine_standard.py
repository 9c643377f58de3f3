"""porter.match.refine_standard: the C++ standard a build gives nvcc, and DEV021 where it is older than C++17."""
from __future__ import annotations

from porter.match.refine_standard import Named, below_cxx17, named_standards
from porter.pipeline import scan
from porter.settings import Settings

GASAL2_MAKEFILE = b"""\
NVCC=/usr/local/cuda-10.1/bin/nvcc
%.cuo: %.cu
\t$(NVCC) -c -g -O3 -std=c++11 -Xcompiler -Wall,-DN=$(N) \\
\t  --gpu-architecture=$(ARCH) $< -o $@
%.cppo: %.cpp
\t$(CC) -c -g -O3 -std=c++17 -Wall $< -o $@
# $(NVCC) -std=c++20 (a comment)
"""


def test_only_lines_that_give_nvcc_a_standard_count():
    # the g++ rule's c++17 and the commented nvcc line are not nvcc's standard
    got = named_standards([("Makefile", "make", GASAL2_MAKEFILE)])
    assert got == [Named("Makefile:3", "11", 111)]
    assert below_cxx17(got) == Named("Makefile:3", "11", 111)


def test_cmake_cuda_standards_and_what_keeps_the_findings_open():
    cmake = b"if(NOT CMAKE_CUDA_STANDARD)\n  set(CMAKE_CUDA_STANDARD 17)\nendif()\n"
    assert named_standards([("CMakeLists.txt", "cmake", cmake)]) == [Named("CMakeLists.txt:2", "17", 117)]
    assert below_cxx17(named_standards([("CMakeLists.txt", "cmake", cmake)])) is None
    ramses = b'set(CMAKE_CUDA_STANDARD 11)\nset(CMAKE_CUDA_STANDARD_REQUIRED ON)\nset(CUDA_NVCC_FLAGS "-std=c++1y")\n'
    assert named_standards([("CMakeLists.txt", "cmake", ramses)]) == [Named("CMakeLists.txt:1", "11", 111),
                                                                      Named("CMakeLists.txt:3", "1y", 114)]
    # a value porter cannot read, or no standard at all (hipcc then compiles C++17): open
    assert below_cxx17(named_standards([("m.mk", "make", b"NVCCFLAGS += -std=c++$(STD)\n")])) is None
    assert below_cxx17([]) is None


def test_register_under_a_build_pinned_below_cxx17_reads_info(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(unsigned* o) {\n  register unsigned r = o[0];\n  o[1] = r;\n}\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert [(f.line, str(f.severity)) for f in result.findings if f.rule == "DEV021"] == [(2, "medium")]
    (tmp_path / "Makefile").write_bytes(GASAL2_MAKEFILE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("standard")) for f in result.findings if f.rule == "DEV021"]
    assert got == [(2, "info", "Makefile:3 compiles the CUDA sources as C++11 (and the build names no later "
                               "standard): clang only warns there (-Wdeprecated-register); it is an error from "
                               "C++17 on")]
