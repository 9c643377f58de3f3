"""Port status on dual CUDA/ROCm projects (issue 27, session 21): the shapes of the false open findings read on
heldout19 (gpu-benches' and pixeltrack's Makefiles building with both toolchains, NWQ-Sim's CUDA-only compile
definitions, Octo-Tiger's Kokkos CUDA backend test, GROMACS's header of a CUDA component), each beside a near miss
that stays open. fixtures/dual_s21/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.scope import (cmake_commands, cmake_compile_definitions, cmake_references,
                                    make_toolchain_regions, nvcc_flag_assignments, nvidia_only_switches)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s21"


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
            if str(f.severity) != "info"]


def test_each_dual_s21_finding_has_its_exact_status():
    assert _statuses(FIXTURE) == [
        # (session 27) an optional find_package(CUDAToolkit) finds nothing on ROCm, in a file with a HIP arm of its own
        ("CMakeLists.txt", 4, "BLD002", "handled", "CMakeLists.txt:13"),
        ("CMakeLists.txt", 7, "BLD001", "handled", "CMakeLists.txt:6"),
        # Kokkos builds one device backend: its CUDA switch is false in every ROCm build
        ("CMakeLists.txt", 18, "BLD001", "handled", "CMakeLists.txt:17"),
        ("CMakeLists.txt", 21, "BLD001", "open", None),
        ("CMakeLists.txt", 24, "LIB005", "handled", "CMakeLists.txt:23"),
        # a Makefile with a ROCm toolchain: what only nvcc reads is the CUDA build's
        ("bench/Makefile", 1, "BLD007", "handled", "bench/Makefile:11"),
        ("bench/Makefile", 3, "BLD004", "handled", "bench/Makefile:11"),
        ("bench/Makefile", 3, "BLD005", "handled", "bench/Makefile:11"),
        ("bench/Makefile", 3, "BLD004", "handled", "bench/Makefile:11"),
        ("bench/Makefile", 4, "LIB004", "handled", "bench/Makefile:11"),
        ("bench/Makefile", 4, "LIB005", "handled", "bench/Makefile:11"),
        # no ROCm toolchain in this Makefile: its build is work to do (the nvcc flags excepted, as before: the evidence
        # is the ROCm-side source, since a CMake arm says nothing of a Makefile, session 26 nu)
        ("cudaonly/Makefile", 1, "BLD007", "open", None),
        ("cudaonly/Makefile", 3, "BLD004", "handled", "nb/hip/kern.hpp"),
        ("cudaonly/Makefile", 3, "BLD005", "handled", "nb/hip/kern.hpp"),
        ("cudaonly/Makefile", 4, "LIB004", "open", None),
        ("cudaonly/Makefile", 4, "LIB005", "open", None),
        ("shared/Makefile", 2, "BLD007", "handled", "shared/Makefile:11"),
        # the ROCm section reads LDFLAGS too
        ("shared/Makefile", 3, "LIB004", "open", None),
        ("shared/Makefile", 6, "BLD004", "handled", "shared/Makefile:11"),
        ("shared/Makefile", 6, "BLD005", "handled", "shared/Makefile:11"),
        ("shared/Makefile", 6, "BLD004", "handled", "shared/Makefile:11"),
        # a switch named for NVSHMEM tested only with the CUDA build's: its macro's arm is the CUDA build's; one
        # named for NVML that the ROCm arm tests too stays open
        ("src/backends.hpp", 9, "LIB002", "handled", "src/backends.hpp:8"),
        ("src/backends.hpp", 12, "LIB002", "open", None),
        # GPU_ENABLED is defined in both builds' arms; CUDA_MULTI_ENABLED only in the CUDA one
        ("src/gpu_common.cuh", 2, "LIB002", "open", None),
        ("src/multi_cuda.cuh", 2, "LIB002", "handled", "src/backends.hpp:3"),
        ("util/common_arch.cuh", 2, "DEV011", "open", None),
        ("util/cuda_arch.cuh", 2, "DEV011", "handled", "nb/hip/"),
    ]


def test_a_cuda_component_header_keeps_its_kernel_verdicts():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    k = next(k for k in result.kernels if k.path == "nb/cuda/kern.cuh")
    assert (k.name, str(k.status), k.handled_by) == ("nb_kernel", "handled", "nb/hip/")


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
    assert make_toolchain_regions(text) == [(1, 1, "cuda", 9), (2, 2, "cuda", 9), (3, 3, "cuda", 9), (6, 7, "cuda", 9)]
    # no ROCm toolchain (hipcc only in a comment): nothing
    assert make_toolchain_regions("# build with hipcc on AMD\nNVCC := nvcc\na: a.cu\n\t$(NVCC) -o $@ $<\n") == []
    # a rule without a recipe may be built by make's built-in rules, which read LDFLAGS
    text2 = ("NVCC := nvcc\nLDFLAGS := -lcuda\nall: app\napp: a.cu\n\t$(NVCC) -o $@ $< $(LDFLAGS)\n"
             "h: a.hip\n\thipcc -o $@ $<\n")
    assert make_toolchain_regions(text2) == [(1, 1, "cuda", 7), (4, 5, "cuda", 7)]
    # an exported variable may be read by a sub-make
    text3 = ("NVCC := nvcc\nexport LDFLAGS := -lcuda\napp: a.cu\n\t$(NVCC) -o $@ $< $(LDFLAGS)\n"
             "h: a.hip\n\thipcc -o $@ $<\n")
    assert make_toolchain_regions(text3) == [(1, 1, "cuda", 6), (3, 4, "cuda", 6)]


def test_nvcc_flag_assignments_take_every_nvcc_option_variable():
    make = ("NVCC := nvcc\n"                                                  # 1: the compiler, not its flags
            "$(2)NVCC_FLAGS := -gencode arch=compute_70,code=sm_70\n"         # 2: a define template's name
            "$(2)NVCC_COMMON := -O3 $$($(2)NVCC_FLAGS)\n"                     # 3
            "export LDFLAGS_NVCC := -ccbin g++\n"                             # 4
            "EIGEN_NVCC_CXXFLAGS := --diag-suppress 20014\n"                  # 5
            "CUDA_CUFLAGS := -dc\n")                                          # 6: no nvcc in its name
    assert nvcc_flag_assignments(make) == [(2, 2), (3, 3), (4, 4), (5, 5)]


def test_cmake_compile_definitions():
    text = ("add_compile_definitions(A B=1)\n"
            "target_compile_definitions(t PUBLIC C PRIVATE D=2 INTERFACE $<$<CONFIG:Debug>:E>)\n"
            "add_definitions(-DF -Wall)\n")
    assert cmake_compile_definitions(cmake_commands(text)) == [(1, "A"), (1, "B"), (2, "C"), (2, "D"), (3, "F")]


def test_nvidia_only_switches_read_the_side_they_are_tested_on():
    text = ("if(USE_CUDA)\n"                        # 1
            "  if(APP_NVSHMEM)\n"                   # 2: inside the CUDA arm
            "  endif()\n"
            "  if(BUILD_TESTING)\n"                 # 4: named for no NVIDIA-only library
            "  endif()\n"
            "elseif(USE_HIP)\n"                     # 6
            "endif()\n"
            "if(APP_CUPTI AND USE_CUDA)\n"          # 8: joined with the CUDA build's test
            "endif()\n"
            "if(APP_NVML OR USE_HIP)\n"             # 10: OR says nothing
            "endif()\n")
    cmds = cmake_commands(text)
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert nvidia_only_switches(cmds, regions) == [("APP_NVSHMEM", "cuda"), ("APP_CUPTI", "cuda")]


def test_make_toolchain_regions_take_the_nvcc_rules_of_a_dual_makefile():
    # session 27 (l35): a HIP-first Makefile whose default rules run hipcc and whose extra rules run nvcc literally:
    # each nvcc rule, recipe included, is the CUDA build's (its -arch / -Xcompiler never reach hipcc); a rule
    # running both compilers, and one running neither, is neither side's
    text = ("build: lib.cpp\n"                                    # 1
            "\thipcc lib.cpp --offload-arch=native -o lib.so\n"  # 2
            "buildcuda: lib.cpp\n"                                # 3
            "\tnvcc -x cu lib.cpp -arch=native \\\n"              # 4
            "\t  -Xcompiler -fPIC -o lib.so\n"                    # 5
            "both: lib.cpp\n"                                     # 6
            "\tnvcc -x cu lib.cpp -o a.so\n"                      # 7
            "\thipcc lib.cpp -o b.so\n"                           # 8
            "clean:\n"                                            # 9
            "\trm -f lib.so\n")                                   # 10
    assert make_toolchain_regions(text) == [(3, 5, "cuda", 2)]
    # without the ROCm rules the nvcc rule is the only build: open work, nothing returned
    assert make_toolchain_regions("buildcuda: lib.cpp\n\tnvcc -x cu lib.cpp -arch=native -o lib.so\n") == []
