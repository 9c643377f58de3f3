"""Issue 27 (heldout3's false-positive families, as mechanisms): a CMake `if()` group whose ROCm arm comes after its
CUDA arm, a build file with a ROCm twin beside it, a vendor switch macro paired with its ROCm twin, and
check_language(CUDA) as a probe. fixtures/judgement/README.md says what each line is."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.portaware.scope import (build_twin, cmake_references, cuda_extras, make_conditional_regions,
                                   make_twin_regions)
from porter.settings import Settings
from porter.source.preprocessor import Directive, paired_cuda_switches

TWINS = Path(__file__).resolve().parent.parent / "fixtures" / "judgement" / "twins"


def test_every_finding_of_the_twins_project_reads_as_its_guard_or_twin_decides():
    res = run(TWINS, Settings(jobs=1, cache_dir=None)).result
    got = sorted((f.path, f.line, f.rule, f.status.value, f.handled_by) for f in res.findings)
    assert got == [
        ("CMakeLists.txt", 6, "BLD007", "handled", "CMakeLists.txt:6"),
        ("CMakeLists.txt", 7, "BLD001", "handled", "CMakeLists.txt:6"),
        ("CMakeLists.txt", 9, "BLD003", "handled", "CMakeLists.txt:6"),
        ("CMakeLists.txt", 17, "BLD007", "handled", "CMakeLists.txt:20"),
        ("CMakeLists.txt", 18, "BLD002", "handled", "CMakeLists.txt:20"),
        ("CMakeLists.txt", 19, "LIB004", "handled", "CMakeLists.txt:20"),
        ("CMakeLists.txt", 25, "BLD002", "open", None),
        ("CMakeLists.txt", 29, "BLD001", "handled", "CMakeLists.txt:28"),
        ("bindings/CMakeLists.txt", 1, "BLD007", "handled", "bindings/CMakeLists.txt:3"),
        # bindings/cuda is added only under if(CMAKE_CUDA_COMPILER), bindings/hip under elseif(has_hipcc)
        ("bindings/cuda/CMakeLists.txt", 1, "BLD001", "handled", "bindings/CMakeLists.txt:3"),
        ("bindings/cuda/bind.cu", 1, "API005", "handled", "bindings/CMakeLists.txt:3"),
        ("bindings/cuda/bind.cu", 1, "LIB001", "handled", "bindings/CMakeLists.txt:3"),
        ("bindings/cuda/bind.cu", 2, "API001", "handled", "bindings/CMakeLists.txt:3"),
        ("bindings/cuda/bind.cu", 2, "API001", "handled", "bindings/CMakeLists.txt:3"),
        ("makefile", 1, "BLD007", "handled", "makefile.hip"),
        ("makefile", 2, "BLD004", "handled", "makefile.hip"),
        ("makefile", 2, "BLD005", "handled", "makefile.hip"),
        ("makefile", 3, "LIB004", "handled", "makefile.hip"),
        ("makefile", 3, "LIB004", "handled", "makefile.hip"),
        # FLAGS_CUDA and rule ext-cuda have twins FLAGS_HIP and ext-hip in the same Makefile; FLAGS_CPU has none
        ("py/Makefile", 1, "BLD004", "handled", "py/Makefile:2"),
        ("py/Makefile", 3, "BLD004", "open", None),
        ("py/Makefile", 6, "LIB004", "handled", "py/Makefile:8"),
        # TWINS_MULTICAST_AVAILABLE is 0 in the HIP arm: `#if` on it (line 9) is the CUDA build's code
        ("src/features.h", 6, "DEV010", "handled", "src/features.h:3"),
        ("src/features.h", 10, "API005", "handled", "src/features.h:9"),
        ("src/features.h", 11, "API001", "handled", "src/features.h:9"),
        ("src/features.h", 11, "API002", "handled", "src/features.h:9"),
        ("src/ops.cuh", 4, "API006", "handled", "src/ops.cuh:3"),
        ("src/ops.cuh", 10, "DEV001", "handled", "src/ops.cuh:8"),
        ("src/ops.cuh", 20, "DEV001", "open", None),
        # __NVCC__ is nvcc's alone: the #ifdef (its own line too) is the CUDA side of the #elif __HIP__ fork
        ("src/platform.h", 2, "DEV010", "handled", "src/platform.h:2"),
        ("src/platform.h", 3, "API005", "handled", "src/platform.h:2"),
    ]


def test_a_cmake_group_gets_its_guard_once_a_later_arm_is_rocm_only():
    text = (TWINS / "CMakeLists.txt").read_text(encoding="utf-8")
    _refs, regions = cmake_references("CMakeLists.txt", text)
    # (first line, last line, side, guard line): the CUDA arm at 7-10 and the `if` line 6 take the guard the group
    # earns from `if(has_hipcc)` (12) inside its else(); 18-20 and 17 take the `elseif(has_hipcc)` at 20; 28-30 the
    # `if(TWINS_USE_CUDA)` whose else() the ROCm build takes.
    assert [r for r in regions if r[3]] == [
        (7, 10, "cuda", 6), (13, 14, "rocm", 12), (6, 6, "cuda", 6),
        (18, 20, "cuda", 20), (21, 22, "rocm", 20), (17, 17, "cuda", 20), (29, 30, "cuda", 28), (28, 28, "cuda", 28)]


def test_a_build_files_twin_is_the_same_name_with_a_rocm_word_added_or_put_for_cuda():
    files = ["src/makefile", "src/makefile.hip", "cmake/FindCUDAThings.cmake", "cmake/FindHIPThings.cmake",
             "Makefile", "Makefile_rocm.mk", "other/Makefile"]
    assert build_twin("src/makefile", files) == "src/makefile.hip"
    assert build_twin("cmake/FindCUDAThings.cmake", files) == "cmake/FindHIPThings.cmake"
    assert build_twin("Makefile", files) is None  # Makefile_rocm.mk is another name, not Makefile plus a word
    assert build_twin("other/Makefile", files) is None  # a twin sits in the same directory


def test_a_makefiles_cuda_names_with_rocm_twins_are_the_cuda_builds():
    text = (TWINS / "py" / "Makefile").read_text(encoding="utf-8")
    assert make_twin_regions(text) == [(1, 1, "cuda", 2), (5, 6, "cuda", 8)]
    assert make_twin_regions("NVCC = nvcc\nHIPCC = hipcc\nCUDA_HOME = /usr/local/cuda\n") == [(1, 1, "cuda", 2)]


def test_a_cuda_switch_is_paired_only_with_a_rocm_twin_the_directives_use():
    def d(line: int, kind: str, text: str) -> Directive:
        return Directive(line, line, kind, text)

    files = [([d(1, "if", "defined(P_DEVICE_CUDA)"), d(3, "elif", "defined(P_DEVICE_HIP)"), d(5, "endif", "")], 6),
             ([d(1, "ifdef", "USE_CUDA"), d(2, "endif", ""), d(3, "define", "WITH_CUDA 1"), d(4, "ifdef", "WITH_HIP"),
               d(5, "endif", "")], 6)]
    assert paired_cuda_switches(files) == {"P_DEVICE_CUDA", "WITH_CUDA"}  # USE_CUDA has no USE_HIP in sight


BACKEND_MAKEFILE = ("BACKEND ?= cuda\n"                          # 1
                    "ifeq ($(BACKEND),cuda)\n"                   # 2: the CUDA arm opens the fork
                    "    NVCC = nvcc\n"                          # 3 cuda
                    "    ifeq ($(NV_SM),)\n"                     # 4 cuda (a nested test is its arm's)
                    "        $(error no GPU_TARGET for nvcc)\n"  # 5 cuda
                    "    endif\n"                                # 6
                    "    LIBS += -lcublas -lcudart\n"            # 7 cuda
                    "else ifeq ($(BACKEND),hip)\n"               # 8
                    "    LIBS += -lhipblas\n"                    # 9 rocm
                    "endif\n"                                    # 10
                    "ifdef USE_ROCM\n"                           # 11
                    "    CXX = hipcc\n"                          # 12 rocm
                    "else\n"                                     # 13
                    "    CXX = nvcc\n"                           # 14 cuda
                    "endif\n"                                    # 15
                    "all:\n"                                     # 16
                    "\tifeq ($(X),hip) is recipe text\n")       # 17: a recipe line, not a conditional


def test_a_makefiles_vendor_conditionals_give_their_arms_a_side():
    # (first line, last line, side, guard line: the group's first vendor test); `endif`/`else` lines belong to no arm.
    assert make_conditional_regions(BACKEND_MAKEFILE) == [
        (3, 4, "cuda", 2), (5, 5, "cuda", 2), (7, 7, "cuda", 2), (9, 9, "rocm", 2), (12, 12, "rocm", 11),
        (14, 14, "cuda", 11)]
    # A Makefile with no ROCm test has no vendor arms: `ifeq ($(USE_CUDA),1)` alone is not a port's fork.
    assert make_conditional_regions("ifeq ($(USE_CUDA),1)\nLIBS += -lcudart\nendif\n") == []


def test_findings_in_a_makefiles_cuda_arm_are_handled(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "Makefile").write_text(BACKEND_MAKEFILE)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    status = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                    if str(f.severity) != "info")
    assert [s for s in status if s[2] == "open"] == []
    assert (7, "LIB004", "handled", "Makefile:2") in status


def test_a_cmake_cuda_switch_with_a_rocm_twin_option_guards_its_arm():
    text = ('option(LIB_ENABLE_CUDA "CUDA backend" OFF)\n'   # 1
            'option(LIB_ENABLE_HIP "HIP backend" OFF)\n'     # 2
            "if (LIB_ENABLE_CUDA)\n"                         # 3
            "    enable_language(CUDA)\n"                    # 4 the CUDA build's
            "endif()\n"                                      # 5
            "if (LIB_ENABLE_HIP)\n"                          # 6
            "    enable_language(HIP)\n"                     # 7 the ROCm build's
            "endif()\n"                                      # 8
            "if (USE_CUDA)\n"                                # 9 no USE_HIP tested: not a fork
            "    enable_language(CUDA)\n"                    # 10
            "endif()\n")                                     # 11
    _refs, regions = cmake_references("CMakeLists.txt", text)
    # the paired switch's own `if` line (3) is the CUDA build's test too (heffte's `if (Heffte_ENABLE_CUDA AND NOT
    # DEFINED CMAKE_CUDA_ARCHITECTURES)`, where BLD003 hits the if line itself)
    assert [r for r in regions if r[3]] == [(4, 5, "cuda", 3), (3, 3, "cuda", 3), (7, 8, "rocm", 6)]


PYPROJECT_EXTRAS = ('[project]\n'                                                              # 1
                    'name = "demo"\n'                                                          # 2
                    'dependencies = ["xformers"]\n'                                            # 3 default: open
                    '[project.optional-dependencies]\n'                                        # 4
                    'cu121onlytorch250 = [\n'                                                  # 5 CUDA extra
                    '    "xformers @ https://download.pytorch.org/whl/cu121/xformers-0.0.28-cp311-cp311-linux_x86_64.whl",\n'  # 6
                    ']\n'                                                                      # 7
                    'rocm72-torch291 = ["torch"]\n'                                            # 8 ROCm extra
                    'flashattentiontorch260abiTRUEcu12x = [\n'                                 # 9 CUDA extra
                    '    "flash-attn @ https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4/flash_attn-2.7.4+cu12torch2.6-cp311-cp311-linux_x86_64.whl",\n'  # 10
                    ']\n'                                                                      # 11
                    'colab = ["xformers"]\n'                                                   # 12 not named for CUDA
                    '[tool.ruff]\n'                                                            # 13
                    'cuda12 = 1\n')                                                            # 14 not an extra


def test_a_pyproject_extra_named_for_cuda_is_the_teams_nvidia_only_choice(tmp_path):
    assert cuda_extras(PYPROJECT_EXTRAS) == [(5, 7, 5), (9, 11, 9)]
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "pyproject.toml").write_text(PYPROJECT_EXTRAS)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    status = sorted({(f.line, str(f.status), f.handled_by) for f in result.findings if f.line in (3, 6, 10, 12)})
    assert status == [(3, "open", None), (6, "cuda-only", "pyproject.toml:5"), (10, "cuda-only", "pyproject.toml:9"),
                      (12, "open", None)]


def test_a_cmake_cuda_switch_paired_in_another_cmake_file_guards_its_arm_and_its_sources_headers(tmp_path):
    # The parent tests USE_ROCM_TOOLKIT, the op library's CMakeLists only USE_CUDA_TOOLKIT: the pair is the
    # repository's, so the op library's CUDA arm is the CUDA build's, its .cu sources too, and a header only they
    # include.
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "CMakeLists.txt").write_text("if(USE_ROCM_TOOLKIT)\n  enable_language(HIP)\nendif()\n"
                                             "add_subdirectory(op)\n")
    (tmp_path / "op").mkdir()
    (tmp_path / "op" / "CMakeLists.txt").write_text(
        "set(OP_SRC plain.cc)\n"                                   # 1
        "if(USE_CUDA_TOOLKIT AND TORCH_HAS_CUDA)\n"                # 2
        "  enable_language(CUDA)\n"                                # 3 the CUDA build's
        "  list(APPEND OP_SRC fused.cu)\n"                         # 4
        "endif()\n"                                                # 5
        "add_library(op MODULE ${OP_SRC})\n")                      # 6
    (tmp_path / "op" / "fused.cu").write_text('#include "fused.cuh"\n__global__ void k(float* x) { x[0] = 1.f; }\n')
    (tmp_path / "op" / "fused.cuh").write_text("__device__ float s(float v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    status = sorted((f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                    if f.rule in ("BLD001", "DEV002"))
    assert status == [("op/CMakeLists.txt", 3, "BLD001", "handled", "op/CMakeLists.txt:2"),
                      ("op/fused.cuh", 1, "DEV002", "handled", "op/fused.cu:1")]


DUAL_LIBS_CMAKE = ("option(TPL_ENABLE_CUDALIB \"CUDA\" OFF)\n"                    # 1
                   "option(TPL_ENABLE_HIPLIB \"HIP\" OFF)\n"                      # 2
                   "if (TPL_ENABLE_CUDALIB)\n"                                    # 3 a word starting CUDA: a switch
                   "  list(APPEND sources gpu/factor.cu)\n"                       # 4
                   "endif()\n"                                                    # 5
                   "if (TPL_ENABLE_HIPLIB)\n"                                     # 6 ... whose twin starts HIP
                   "  list(APPEND sources gpu/factor.hip.cpp)\n"                  # 7
                   "endif()\n"                                                    # 8
                   "set_target_properties(solver PROPERTIES\n"                    # 9 CUDA-language properties
                   "    CUDA_SEPARABLE_COMPILATION ON\n"                          # 10
                   "    OUTPUT_NAME solver)\n"                                    # 11
                   "if(CUDAToolkit_FOUND)\n"                                      # 12 the toolkit found
                   "  target_link_libraries(solver CUDA::cudart CUDA::cublas)\n"  # 13
                   "endif()\n"                                                    # 14
                   "if (TARGET CUDA::cufft)\n"                                    # 15 an imported CUDA target
                   "  list(APPEND deps CUDA::cufft)\n"                            # 16
                   "endif()\n"                                                    # 17
                   "if (TARGET roc::rocfft)\n"                                    # 18 ... and ROCm's
                   "  list(APPEND deps -lrocfft)\n"                               # 19
                   "endif()\n"                                                    # 20
                   "if (USE_CUDA)\n"                                              # 21 a plain switch: no fork
                   "  set(CMAKE_CUDA_ARCHITECTURES 80)\n"                         # 22
                   "endif()\n")                                                   # 23


def test_cmake_vendor_words_found_tests_targets_and_cuda_language_properties():
    """heldout7's CMake families (session 13): superlu_dist's TPL_ENABLE_CUDALIB / TPL_ENABLE_HIPLIB (vendor words
    that only start with CUDA/HIP), its `if(CUDAToolkit_FOUND)` link and its CUDA_SEPARABLE_COMPILATION property
    (CUDA-language sources only), heffte's `if(TARGET CUDA::cufft)` beside `if(TARGET roc::rocfft)`."""
    refs, regions = cmake_references("CMakeLists.txt", DUAL_LIBS_CMAKE)
    assert [(r.target, r.side, r.where) for r in refs if r.target.startswith("gpu/")] == [
        ("gpu/factor.cu", "cuda", "CMakeLists.txt:3"), ("gpu/factor.hip.cpp", "rocm", "CMakeLists.txt:6")]
    assert [r for r in regions if r[3]] == [
        (4, 5, "cuda", 3), (3, 3, "cuda", 3), (7, 8, "rocm", 6), (9, 11, "cuda", 6), (13, 14, "cuda", 12),
        (12, 12, "cuda", 12), (16, 17, "cuda", 15), (15, 15, "cuda", 15), (19, 20, "rocm", 18)]


def test_findings_of_a_dual_cmake_read_handled_where_the_rocm_build_has_its_own_arm(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(DUAL_LIBS_CMAKE)
    res = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    got = sorted((f.line, f.rule, f.status.value, f.handled_by) for f in res.findings if str(f.severity) != "info")
    assert got == [
        (10, "BLD004", "handled", "CMakeLists.txt:6"),
        (13, "LIB004", "handled", "CMakeLists.txt:12"),
        (13, "LIB004", "handled", "CMakeLists.txt:12"),
        (15, "LIB004", "handled", "CMakeLists.txt:15"),
        (16, "LIB004", "handled", "CMakeLists.txt:15"),
        # a CUDA-language variable under a plain switch: no fork, but the CMake project's ROCm arm (line 6) stands in
        # for the CUDA language's settings (status.by_rocm_build, session 30)
        (22, "BLD003", "handled", "CMakeLists.txt:6")]


# libCEED's shape (https://github.com/CEED/libCEED/blob/main/Makefile): each backend is built when its variable is
# set, and the flags of each compiler are named for it.
EMPTINESS_MAKEFILE = ("NVCCFLAGS ?= -Xcompiler -fPIC\n"              # 1: HIPCCFLAGS (4) is its twin
                      "ifneq ($(CUDA_ARCH),)\n"                      # 2: false in the ROCm build
                      "  NVCCFLAGS += -arch=$(CUDA_ARCH)\n"          # 3 cuda
                      "endif\n"                                      # 4
                      "HIPCCFLAGS ?= -fPIC\n"                        # 5
                      "ifeq ($(CUDA_LIB_DIR),)\n"                    # 6: true in the ROCm build, either in CUDA's
                      "  CUDA_LIB_DIR := $(CUDA_DIR)/lib64\n"        # 7 both
                      "else\n"                                       # 8
                      "  LIBS += -L$(CUDA_LIB_DIR) -lcudart -lcublas\n"  # 9 cuda
                      "endif\n"                                      # 10
                      "ifneq ($(HIP_LIB_DIR),)\n"                    # 11
                      "  LIBS += -lhipblas\n"                        # 12 rocm
                      "  ifeq ($(CUDA_ARCH),)\n"                     # 13: inside the ROCm arm
                      "    X = 1\n"                                  # 14 rocm (the nested test is its guard)
                      "  endif\n"                                    # 15
                      "endif\n"                                      # 16
                      "ifneq ($(wildcard $(CUDA_DIR)/lib),)\n"       # 17: a function of the variable, undecided
                      "  Y = 1\n"                                    # 18
                      "endif\n")                                     # 19


def test_a_makefiles_test_of_a_vendor_variables_emptiness_decides_only_the_build_that_never_sets_it():
    assert make_conditional_regions(EMPTINESS_MAKEFILE) == [
        (3, 3, "cuda", 2), (9, 9, "cuda", 6), (12, 13, "rocm", 11), (14, 14, "rocm", 13)]
    assert make_twin_regions(EMPTINESS_MAKEFILE) == [(1, 1, "cuda", 5)]  # an indented line is an arm's, not read here
    # without a ROCm test anywhere a CUDA variable's emptiness is no fork
    assert make_conditional_regions("ifneq ($(CUDA_ARCH),)\n  NVCCFLAGS += -arch=$(CUDA_ARCH)\nendif\n") == []


def test_findings_under_a_cuda_variables_emptiness_test_are_handled(tmp_path):
    (tmp_path / "Makefile").write_text(EMPTINESS_MAKEFILE)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    status = sorted({(f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                     if str(f.severity) != "info"})
    assert status == [(1, "BLD004", "handled", "Makefile:5"), (3, "BLD004", "handled", "Makefile:2"),
                      (9, "LIB004", "handled", "Makefile:6")]


def test_the_else_of_a_cuda_arms_own_switch_is_handled_by_its_guard(tmp_path):
    # SPECFEM3D's shape: USE_OLDER_CUDA4_GPU is defined only inside `#ifdef USE_CUDA`, so it reads defined in the
    # CUDA build and its `#else` as code no build compiles; the ROCm build never compiles it, whatever the switch
    (tmp_path / "config.h").write_text("#ifdef USE_CUDA\n#if CUDA_VERSION < 4000\n#define USE_OLDER_CUDA4\n"
                                       "#endif\n#endif\n")
    (tmp_path / "k.cu").write_text(
        '#include "config.h"\n'                                              # 1
        "void bind(float* p, size_t n) {\n"                                  # 2
        "#ifdef USE_CUDA\n"                                                  # 3
        "#ifdef USE_OLDER_CUDA4\n"                                           # 4
        "  cudaBindTexture(0, ref_ptr, p, &desc, n);\n"                      # 5
        "#else\n"                                                            # 6
        "  cudaBindTexture(0, &tex, p, &desc, n);\n"                         # 7
        "#endif\n"                                                           # 8
        "#endif\n"                                                           # 9
        "#ifdef USE_HIP\n"                                                   # 10
        "  hipBindTexture(0, &tex, p, &desc, n);\n"                          # 11
        "#endif\n"                                                           # 12
        "}\n")                                                               # 13
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    rows = sorted({(f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                   if f.path == "k.cu" and f.line in (5, 7)})
    assert rows == [(5, "API003", "handled", "k.cu:4"), (7, "API003", "handled", "k.cu:4")]


def test_a_quiet_cuda_probe_in_a_cmake_file_with_a_rocm_arm_is_handled_by_that_arm():
    text = ("find_package(CUDAToolkit QUIET)\n"                       # 1: the probe, handled by line 5
            "if(CUDAToolkit_FOUND)\n  set(BUILD_CUDA_LIB ON)\nendif()\n"  # 2-4
            "if(BUILD_HIP_LIB)\n  add_subdirectory(platforms/hip)\nendif()\n"  # 5-7
            "find_package(CUDA REQUIRED)\n"                           # 8: required, the build needs CUDA
            "find_package(CUDAToolkit QUIET REQUIRED)\n")             # 9
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert [r for r in regions if r[0] in (1, 8, 9)] == [(1, 1, "cuda", 5)]
    # without a ROCm arm in the file a quiet probe is the CUDA build's own business
    _refs, regions = cmake_references("CMakeLists.txt", "find_package(CUDAToolkit QUIET)\n")
    assert regions == []


def test_a_makefiles_twin_whose_name_porter_does_not_scan_is_found_by_name(tmp_path):
    # uccl's collective/rdma: Makefile for CUDA, Makefile.rocm for ROCm (".rocm" is no language porter scans)
    (tmp_path / "rdma").mkdir()
    (tmp_path / "rdma" / "Makefile").write_text("LIBS = -libverbs -L /usr/local/cuda/lib64 -lcudart -lcuda\n")
    (tmp_path / "rdma" / "Makefile.rocm").write_text("LIBS = -libverbs -L /opt/rocm/lib -lamdhip64\n")
    (tmp_path / "efa").mkdir()
    (tmp_path / "efa" / "Makefile").write_text("LIBS = -L ${CUDA_HOME}/lib64 -lcudart\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    rows = sorted({(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings})
    assert rows == [("efa/Makefile", 1, "LIB004", "open", None),
                    ("rdma/Makefile", 1, "LIB004", "handled", "rdma/Makefile.rocm")]
