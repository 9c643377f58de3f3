"""Port status of CMake settings a dual project's ROCm build never reads (issue 27, session 24): a CUDA-language
generator expression over many lines, CUDA-language target properties, the CUDA language enabled in a module only
the CUDA build loads, an arm of a CUDA switch that requires the CUDA toolkit, and a `#` comment after an escaped
quote. fixtures/bldscope_s24 holds one small repository per shape, each beside a near miss that stays open."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.scope import cmake_commands, cuda_language_spans, cuda_property_spans, toolkit_arms
from porter.source.cmake_conditions import generator_expressions

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/bldscope_s24"


def _statuses(root: Path) -> list[tuple[str, int, str, str, str | None]]:
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_language_only_settings_in_a_repository_whose_rocm_build_never_enables_cuda():
    assert _statuses(FIXTURE / "langonly") == [
        # (line 4, a commented nvcc flag after line 3's escaped quotes, is a comment: no finding)
        ("CMakeLists.txt", 6, "BLD001", "handled", "CMakeLists.txt:5"),
        # `$<$<COMPILE_LANGUAGE:CUDA>:` over lines 12-15; the CUDA switch's HIP twin is tested in src/hip only
        ("CMakeLists.txt", 13, "BLD004", "handled", "CMakeLists.txt:5"),
        ("CMakeLists.txt", 14, "BLD004", "handled", "CMakeLists.txt:5"),
        # `$<COMPILE_LANGUAGE:CXX,CUDA>` gives the flag to C++ compiles too: hipcc-as-C++ sees it
        ("CMakeLists.txt", 17, "BLD004", "open", None),
        # CUDA_SEPARABLE_COMPILATION: a CUDA-language property
        ("CMakeLists.txt", 18, "BLD004", "handled", "CMakeLists.txt:5"),
        ("lib/CMakeLists.txt", 2, "BLD004", "handled", "CMakeLists.txt:5"),
        ("src/hip/kernels.cpp", 2, "KRN001", "handled", "src/hip/"),
    ]


def test_cuda_language_enabled_in_a_module_with_a_hip_twin():
    assert _statuses(FIXTURE / "twinmodule") == [
        ("cmake/sim_cuda.cmake", 3, "BLD001", "handled", "cmake/sim_hip.cmake"),
        ("lib/CMakeLists.txt", 2, "BLD004", "handled", "cmake/sim_hip.cmake"),
        ("lib/CMakeLists.txt", 3, "BLD004", "handled", "cmake/sim_hip.cmake"),
    ]


def test_cuda_language_settings_stay_open_without_a_rocm_build(tmp_path):
    root = tmp_path / "langonly"
    shutil.copytree(FIXTURE / "langonly", root)
    shutil.rmtree(root / "src/hip")
    assert [s for s in _statuses(root) if s[2] == "BLD004"] == [
        ("CMakeLists.txt", 13, "BLD004", "open", None),
        ("CMakeLists.txt", 14, "BLD004", "open", None),
        ("CMakeLists.txt", 17, "BLD004", "open", None),
        ("CMakeLists.txt", 18, "BLD004", "open", None),
        ("lib/CMakeLists.txt", 2, "BLD004", "open", None),
    ]


def test_toolkit_arm_of_a_cuda_switch_beside_a_hand_kept_hip_module(tmp_path):
    assert _statuses(FIXTURE / "toolkit") == [
        # `if(BUILD_WITH_CUDA)` holds find_package(CUDA REQUIRED): a ROCm configure cannot pass it
        ("CMakeLists.txt", 6, "BLD002", "handled", "CMakeLists.txt:5"),
        ("CMakeLists.txt", 8, "BLD003", "handled", "CMakeLists.txt:5"),
        # a QUIET probe requires nothing: USE_CUDA_GRAPHS may be on in the ROCm build
        ("CMakeLists.txt", 11, "BLD002", "open", None),
        ("CMakeLists.txt", 12, "BLD003", "open", None),
        ("src/cuda/spmv.cu", 1, "KRN001", "handled", "src/hip/"),
        ("src/hip/spmv.cpp", 2, "KRN001", "handled", "src/hip/"),
    ]
    # a CUDA-only repository: the same arm is the port's work
    root = tmp_path / "toolkit"
    shutil.copytree(FIXTURE / "toolkit", root)
    shutil.rmtree(root / "src/hip")
    assert [s for s in _statuses(root) if s[0] == "CMakeLists.txt"] == [
        ("CMakeLists.txt", 6, "BLD002", "open", None),
        ("CMakeLists.txt", 8, "BLD003", "open", None),
        ("CMakeLists.txt", 11, "BLD002", "open", None),
        ("CMakeLists.txt", 12, "BLD003", "open", None),
    ]


def test_spans_and_arms():
    text = (FIXTURE / "langonly/CMakeLists.txt").read_text()
    assert cuda_language_spans(text) == [(12, 1, 15, 2)]
    assert cuda_language_spans("x($<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<CONFIG:Debug>>:-G> "
                               "$<$<OR:$<COMPILE_LANGUAGE:CUDA>,$<COMPILE_LANGUAGE:HIP>>:-a> "
                               "$<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:-b>)\n") == [(1, 3, 1, 56), (1, 118, 1, 158)]
    assert cuda_property_spans(cmake_commands(text)) == [(18, 1, 19, 1)]
    assert generator_expressions(b"$<$<C:1>:\n-a>") == [(2, 5, 8), (0, 8, 13)]
    cmds = cmake_commands((FIXTURE / "toolkit/CMakeLists.txt").read_text())
    assert toolkit_arms(cmds) == [(5, 8, 5)]
    # a probe's test, a negated switch, an OR, a nested enable and an else() arm are no toolkit arms
    assert toolkit_arms(cmake_commands(
        "if(CUDAToolkit_FOUND)\nenable_language(CUDA)\nendif()\nif(NOT USE_CUDA)\nfind_package(CUDA REQUIRED)\nendif()\n"
        "if(USE_CUDA OR USE_HIP)\nenable_language(CUDA)\nendif()\nif(USE_CUDA)\nif(CMAKE_CUDA_COMPILER)\n"
        "enable_language(CUDA)\nendif()\nendif()\nif(USE_HIP)\nelse()\nenable_language(CUDA)\nendif()\n")) == []
    assert toolkit_arms(cmake_commands("if(USE_CUDA AND USE_MPI)\nx()\nenable_language(CUDA)\nelse()\ny()\nendif()\n")) \
        == [(1, 3, 1)]
