"""Port status on dual CUDA/ROCm projects (issue 27, session 19): the shapes of the false open findings read on
heldout15's dual projects (PETSc's parallel `seqcusparse/` / `seqhipsparse/` twins and CCCL-version includes,
FlexFlow's `.cu` / `.cpp` operator twins and nvcc flag lists, QMCPACK's NVIDIA / AMD CMake functions), each beside a
near miss that stays open. fixtures/dual_s19/README.md says which file holds which."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.scope import (cmake_commands, cmake_references, cmake_twin_functions, cuda_set_switches,
                                    nvcc_flag_assignments, source_twins)
from porter.source.preprocessor import preprocess, side_at

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s19"


def _statuses(root, severe_only=True):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
            if not severe_only or str(f.severity) != "info"]


def test_each_dual_s19_finding_has_its_exact_status():
    assert _statuses(FIXTURE) == [
        # nvcc's flag list in a build with a HIP arm (line 7)
        ("CMakeLists.txt", 4, "BLD004", "handled", "CMakeLists.txt:7"),
        ("CMakeLists.txt", 4, "BLD004", "handled", "CMakeLists.txt:7"),
        ("CMakeLists.txt", 5, "BLD004", "handled", "CMakeLists.txt:7"),
        ("CMakeLists.txt", 11, "BLD001", "handled", "CMakeLists.txt:7"),
        # checkNVIDIAarch's twin is checkAMDarch (line 1); checkCUDAonly has none (its set() of
        # CMAKE_CUDA_ARCHITECTURES is handled by the variable's twin named on line 2, as before)
        ("cmake/Arch.cmake", 6, "BLD003", "handled", "cmake/Arch.cmake:1"),
        ("cmake/Arch.cmake", 7, "BLD003", "handled", "cmake/Arch.cmake:2"),
        # no AMD twin of checkCUDAonly, but a CUDA-language variable of a CMake project with a ROCm arm: the
        # project's ROCm build stands in for it (status.by_rocm_build, session 30)
        ("cmake/Arch.cmake", 12, "BLD003", "handled", "CMakeLists.txt:7"),
        ("cmake/Arch.cmake", 13, "BLD003", "handled", "cmake/Arch.cmake:2"),
        # api.cu is built only under ENABLE_FP4, which only the CUDA arm turns on (line 12); it includes launch.h,
        # which includes kernel.h: handled down the chain
        ("src/fp4/kernel.h", 2, "QNT002", "handled", "src/fp4/launch.h:2"),
        ("src/fp4/kernel.h", 3, "QNT002", "handled", "src/fp4/launch.h:2"),
        ("src/fp4/kernel.h", 3, "QNT002", "handled", "src/fp4/launch.h:2"),
        # batch.cc calls both vendors (a host file with guarded arms, not a hipified twin): open
        ("src/ops/batch.cc", 5, "API002", "handled", "src/ops/batch.cc:2"),
        ("src/ops/batch.cu", 1, "LIB002", "open", None),
        ("src/ops/batch.cu", 2, "API002", "open", None),
        ("src/ops/batch.cu", 3, "API002", "open", None),
        # experts.cpp is a stub without the MIOpen call: open
        ("src/ops/experts.cu", 1, "LIB002", "open", None),
        ("src/ops/experts.cu", 2, "API002", "open", None),
        ("src/ops/experts.cu", 3, "API002", "open", None),
        # pool.cpp spells miopenHandle_t (line 2) and miopenSetStream (line 3); the include's "MIOpen" is no name
        ("src/ops/pool.cu", 1, "LIB002", "open", None),
        ("src/ops/pool.cu", 2, "API002", "handled", "src/ops/pool.cpp:2"),
        ("src/ops/pool.cu", 3, "API002", "handled", "src/ops/pool.cpp:3"),
        # an include alone under a CCCL version test; the same test around code stays open
        ("src/vec/vec.hpp", 3, "API006", "handled", "src/vec/vec.hpp:2"),
        ("src/vec/vec.hpp", 8, "API006", "open", None),
    ]


def test_without_the_rocm_side_the_same_lines_stay_open(tmp_path):
    root = tmp_path / "dual_s19"
    shutil.copytree(FIXTURE, root)
    shutil.rmtree(root / "src/mat/seqhipsparse")
    (root / "src/ops/pool.cpp").write_text("void pool_forward(void *handle, void *stream) {}\n")
    cm = root / "CMakeLists.txt"
    cm.write_text(cm.read_text().replace('STREQUAL "hip"', 'STREQUAL "cpu"').replace("CMAKE_HIP_FLAGS", "X_FLAGS")
                  .replace("enable_language(HIP)", ""))
    arch = root / "cmake/Arch.cmake"
    arch.write_text(arch.read_text().replace("checkAMDarch", "checkCPUarch"))
    got = {(p, line, rule): (s, h) for p, line, rule, s, h in _statuses(root, severe_only=False)}
    for key in [("CMakeLists.txt", 4, "BLD004"), ("CMakeLists.txt", 5, "BLD004"), ("cmake/Arch.cmake", 6, "BLD003"),
                ("src/mat/seqcusparse/aijcusparse.cu", 3, "API001"), ("src/ops/pool.cu", 3, "API002"),
                ("src/fp4/kernel.h", 3, "QNT002")]:
        assert got[key] == ("open", None), key


def test_a_twin_in_a_parallel_folder_differs_only_by_vendor_words():
    paths = ["m/seqcusparse/aijcusparse.cu", "m/seqhipsparse/aijhipsparse.hip.cxx",
             "m/seqcusparse/cusparsematimpl.h", "m/seqhipsparse/hipsparsematimpl.h",
             "s/seqcuda/sellcuda.cu", "s/seqhip/sellhip.hip.cxx",
             "k/cuda/scan.cuh", "k/rocm/scan.hip",  # vendor folders alone: component twins, not files
             # near misses: another stem, a header beside a source, a folder named for no vendor, a plain word
             "n/seqcuda/x.cu", "n/seqhip/y.hip.cxx", "h/cuda/z.cu", "h/hip/z.h", "f/z.cu", "g/z.hip",
             "w/ship/a.cpp", "w/scuda/a.cu"]
    assert source_twins(paths) == {
        "m/seqcusparse/aijcusparse.cu": "m/seqhipsparse/aijhipsparse.hip.cxx",
        "m/seqcusparse/cusparsematimpl.h": "m/seqhipsparse/hipsparsematimpl.h",
        "s/seqcuda/sellcuda.cu": "s/seqhip/sellhip.hip.cxx",
    }


def test_nvcc_flag_assignments_in_cmake_and_make():
    cmake = ("set(NVCC_FLAGS $ENV{NVCC_FLAGS})\n"    # 1
             "list(APPEND NVCC_FLAGS\n"              # 2-3
             "  -std=c++17)\n"
             "list(APPEND CC_FLAGS -O3)\n"           # 4: not nvcc's
             "string(APPEND CMAKE_CUDA_FLAGS \" -Xcompiler=-fPIC\")\n"  # 5
             "# set(CUDA_NVCC_FLAGS -O3)\n")         # 6: a comment
    assert nvcc_flag_assignments(cmake) == [(1, 1), (2, 3), (5, 5)]
    make = ("if STARPU_USE_CUDA\n"
            "NVCCFLAGS += -Xcompiler -fPIC \\\n"      # 2-3
            "  -Xlinker -fPIC\n"
            "endif\n"
            "CFLAGS += -O2\n")
    assert nvcc_flag_assignments(make) == [(2, 3)]
    # fed to the ROCm build's compiler: the ROCm build reads it too
    assert nvcc_flag_assignments("set(CUDA_NVCC_FLAGS -O3)\nset(HIP_HIPCC_FLAGS ${CUDA_NVCC_FLAGS})\n") == []


def test_cmake_functions_named_for_nvidia_with_an_amd_twin():
    text = ("function(detectAMDGPU)\n"            # 1
            "endfunction()\n"
            "function(detectNVIDIAGPU)\n"         # 3-5: twin on line 1
            "  set(X 1)\n"
            "endfunction()\n"
            "macro(setup_cuda_flags)\n"           # 6-7: twin setup_hip_flags on line 8
            "endmacro()\n"
            "macro(setup_hip_flags)\n"
            "endmacro()\n"
            "function(verifyCUDAonly)\n"          # 10-11: no twin
            "endfunction()\n")
    assert cmake_twin_functions(cmake_commands(text)) == [(3, 5, "cuda", 1), (6, 7, "cuda", 8)]


def test_a_library_version_test_around_includes_alone_is_the_cuda_builds():
    text = ("#if CCCL_VERSION >= 3004000\n"       # 1
            "  #include <cuda/iterator>\n"        # 2: CUDA build only
            "#endif\n"
            "#if CCCL_VERSION >= 3001000\n"       # 4
            "  #include <cuda/functional>\n"
            "int f();\n"                          # 6: code too: undecided, HIP would lack it
            "#endif\n"
            "#if FEATURE_X\n"                     # 8: no toolkit header, no vendor macro: undecided
            "  #include <x.h>\n"
            "#endif\n"
            "#ifdef CUDART_VERSION\n"             # 11: a project header the HIP build may need: undecided
            "  #include <halmd/detail/cuda_vector_converter.hpp>\n"
            "#endif\n")
    pre = preprocess(text.encode())
    assert sorted(pre.toolkit_lines) == [1]
    assert [side_at(pre.regions(), n) for n in (2, 5, 6, 9, 12)] == [
        ("cuda", 1), ("both", 0), ("both", 0), ("both", 0), ("both", 0)]


def test_a_variable_only_the_cuda_arm_turns_on_is_a_cuda_switch():
    text = ("if(GPU_BACKEND STREQUAL \"ROCM\")\n"   # 1
            "  enable_language(HIP)\n"
            "else()\n"                                 # 3
            "  set(ENABLE_FP4 ON)\n"                    # 4: only the CUDA arm turns it on
            "  set(ENABLE_TK ON)\n"                     # 5: ... but line 9 turns it on for every build
            "  set(ENABLE_USER ON)\n"                   # 6: ... but it is an option (line 10)
            "endif()\n"
            "set(ENABLE_FP4 OFF)\n"                     # 8: turning it off anywhere is no matter
            "set(ENABLE_TK ON)\n"
            "option(ENABLE_USER \"x\" OFF)\n"
            "if(ENABLE_FP4 OR ENABLE_TK OR ENABLE_USER)\n"
            "endif()\n"
            "if(ENABLE_FP4)\n"                          # 13
            "  add_library(fp4 api.cu)\n"
            "endif()\n")
    cmds = cmake_commands(text)
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert cuda_set_switches(cmds, regions) == frozenset({"ENABLE_FP4"})
    refs, regions = cmake_references("CMakeLists.txt", text)
    assert [(r.target, r.side, r.where) for r in refs] == [("api.cu", "cuda", "CMakeLists.txt:13")]
