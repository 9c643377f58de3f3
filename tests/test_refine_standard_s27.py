"""porter.match.refine_standard (session 27, helper k36): a makefile's nvcc line that takes its `-std` from a variable
(cuFHE on the development set heldout36: `CU = nvcc`, `FLAGS = -std=c++11 -O3 -w`, `$(CU) $(FLAGS) ...`)."""
from __future__ import annotations

from porter.match.refine_standard import Named, below_cxx17, named_standards
from porter.pipeline import scan
from porter.settings import Settings

MAKEFILE = b"""\
CC = g++
CU = nvcc
FLAGS = -std=c++11 -O3 -w
HOSTFLAGS = -std=c++17 $(OPT)
OPT = -O2
ALL = $(FLAGS) -g
%.o: %.cu
\t$(CU) $(ALL) -c -o $@ $<
%.o: %.cc
\t$(CC) $(HOSTFLAGS) -c -o $@ $<
"""


def test_a_variable_an_nvcc_line_expands_names_its_standard_at_the_variable_s_definition():
    """Line 8 invokes nvcc through CU and reaches FLAGS through ALL: C++11 at line 3. HOSTFLAGS' c++17 is only on
    the g++ line (CC = g++), which is not nvcc's standard."""
    got = named_standards([("Makefile", "make", MAKEFILE)])
    assert got == [Named("Makefile:3", "11", 111)]
    assert below_cxx17(got) == Named("Makefile:3", "11", 111)


def test_a_later_standard_reached_through_a_variable_keeps_the_findings_open():
    text = MAKEFILE.replace(b"\t$(CC) $(HOSTFLAGS)", b"\t$(CU) $(HOSTFLAGS)")
    got = named_standards([("Makefile", "make", text)])
    assert got == [Named("Makefile:3", "11", 111), Named("Makefile:4", "17", 117)]
    assert below_cxx17(got) is None
    # a variable no nvcc line references names nothing
    assert named_standards([("Makefile", "make", b"CU = nvcc\nFLAGS = -std=c++11\nall:\n\t$(CU) -c k.cu\n")]) == []


def test_register_under_a_standard_from_a_make_variable_reads_info(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(unsigned* o) {\n  register unsigned r = o[0];\n  o[1] = r;\n}\n")
    (tmp_path / "Makefile").write_bytes(MAKEFILE)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = [(f.line, str(f.severity), dict(f.data).get("standard")) for f in result.findings if f.rule == "DEV021"]
    assert got == [(2, "info", "Makefile:3 compiles the CUDA sources as C++11 (and the build names no later "
                               "standard): clang only warns there (-Wdeprecated-register); it is an error from "
                               "C++17 on")]
