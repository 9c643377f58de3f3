"""Port status on dual CUDA/ROCm projects (issue 27, session 21): the shapes of the false open findings read on
heldout19 (gpu-benches' and pixeltrack's Makefiles building with both toolchains, NWQ-Sim's CUDA-only compile
definitions, Octo-Tiger's Kokkos CUDA backend test, GROMACS's header of a CUDA component), each beside a near miss
that stays open. fixtures/dual_s21/README.md says which file holds which."""
from __future__ import annotations

from porter.portaware.scope import make_toolchain_regions, nvcc_flag_assignments


def test_make_toolchain_regions_reads_who_uses_each_variable():
    text = ("NVCC := nvcc\n"                              # 1: named for nvcc
            "CUDA_HOME := $(shell dirname $(NVCC))\n"     # 2: named for CUDA
            "LDFLAGS := -L$(CUDA_HOME)/lib64 -lcuda\n"    # 3: read only by the nvcc recipe
            "OPT := -O3\n"                                # 4: read by both recipes
            "HIPFLAGS := $(OPT)\n"                        # 5: ROCm-named
            "a: a.cu\n"                                   # 6
            "\t$(NVCC) $(OPT) -o $@ $< $(LDFLAGS)\n"      # 7
            "b: a.hip\n"                                  # 8
            "\thipcc $(HIPFLAGS) -o $@ $<\n")             # 9
    assert make_toolchain_regions(text) == [(1, 1, "cuda", 9), (2, 2, "cuda", 9), (3, 3, "cuda", 9)]
    # no ROCm toolchain (hipcc only in a comment): nothing
    assert make_toolchain_regions("# build with hipcc on AMD\nNVCC := nvcc\na: a.cu\n\t$(NVCC) -o $@ $<\n") == []
    # a rule without a recipe may be built by make's built-in rules, which read LDFLAGS
    text2 = ("NVCC := nvcc\nLDFLAGS := -lcuda\nall: app\napp: a.cu\n\t$(NVCC) -o $@ $< $(LDFLAGS)\n"
             "h: a.hip\n\thipcc -o $@ $<\n")
    assert make_toolchain_regions(text2) == [(1, 1, "cuda", 7)]
    # an exported variable may be read by a sub-make
    text3 = ("NVCC := nvcc\nexport LDFLAGS := -lcuda\napp: a.cu\n\t$(NVCC) -o $@ $< $(LDFLAGS)\n"
             "h: a.hip\n\thipcc -o $@ $<\n")
    assert make_toolchain_regions(text3) == [(1, 1, "cuda", 6)]


def test_nvcc_flag_assignments_take_every_nvcc_option_variable():
    make = ("NVCC := nvcc\n"                                                  # 1: the compiler, not its flags
            "$(2)NVCC_FLAGS := -gencode arch=compute_70,code=sm_70\n"         # 2: a define template's name
            "$(2)NVCC_COMMON := -O3 $$($(2)NVCC_FLAGS)\n"                     # 3
            "export LDFLAGS_NVCC := -ccbin g++\n"                             # 4
            "EIGEN_NVCC_CXXFLAGS := --diag-suppress 20014\n"                  # 5
            "CUDA_CUFLAGS := -dc\n")                                          # 6: no nvcc in its name
    assert nvcc_flag_assignments(make) == [(2, 2), (3, 3), (4, 4), (5, 5)]
