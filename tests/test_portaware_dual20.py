"""Port status on dual CUDA/ROCm projects (issue 27, session 20): the shapes of the false open findings read on
heldout17's SPH-EXA (CMake tests both builds pass, `CUDA_SEPARABLE_COMPILATION` in such an arm, a project's own
`Config::warpSize` constant), each beside a near miss that stays open. fixtures/dual_s20/README.md says which file
holds which."""
from __future__ import annotations

from pathlib import Path

from porter.match.kinds.code_constants import _scope_qualified
from porter.portaware.scope import cmake_references
from porter.source.preprocessor import is_rocm_name, preprocess, side_at

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s20"


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
            if str(f.severity) != "info"]


def test_each_dual_s20_finding_has_its_exact_status():
    assert _statuses(FIXTURE) == [
        # the shared fork names the HIP compiler beside CUDA's: handled by its own line
        ("CMakeLists.txt", 7, "BLD007", "handled", "CMakeLists.txt:7"),
        # a CUDA-language property in the shared arm: the file's ROCm test (line 4) decides it
        ("CMakeLists.txt", 10, "BLD004", "handled", "CMakeLists.txt:4"),
        ("CMakeLists.txt", 12, "BLD007", "handled", "CMakeLists.txt:12"),
        # wave32 targets: the ROCm arm's 64 is the bug class 4 asks for, unchanged
        ("gpu/config.cuh", 6, "DEV011", "handled", "gpu/config.cuh:5"),
        ("gpu/config.cuh", 8, "DEV017", "open", None),
        # `::warpSize` and bare `warpSize` are HIP's
        ("gpu/kernels.cu", 15, "DEV004", "open", None),
        ("gpu/kernels.cu", 16, "DEV004", "open", None),
        # HIP on NVIDIA: its arms are the NVIDIA build's, their `#else` the ROCm build's
        ("gpu/managed.cc", 12, "DEV011", "handled", "gpu/managed.cc:11"),
        ("gpu/managed.cc", 14, "DEV017", "open", None),
        # the first arm of a group whose `#elif` is dead in both builds: not the vendor test's own line
        ("gpu/managed.cc", 20, "DEV002", "open", None),
        # no ROCm test in this file, so no shared test region; but line 2 only reads the CUDA language
        # (CMAKE_CUDA_COMPILER) in a CMake project whose ROCm arm is line 4 of the top file: that ROCm build stands
        # in for it (status.by_rocm_build, session 30). Line 4 configures one target, other_gpu, which no ROCm arm
        # or HIP line names: the project's ROCm build does not reach it, so its relocatable device code has no HIP
        # counterpart (-fgpu-rdc) and stays open (status._reached, session 31: MRay's TCore test target, judged real)
        ("other/CMakeLists.txt", 2, "BLD007", "handled", "CMakeLists.txt:4"),
        ("other/CMakeLists.txt", 4, "BLD004", "open", None),
    ]


def test_shared_test_region_is_the_if_line_only():
    text = ("if(CMAKE_HIP_COMPILER)\n  set(X 1)\nendif()\n"
            "if(USE_CUDA OR USE_HIP)\n  add_library(a a.cu)\nendif()\n"
            "if(USE_CUDA AND USE_HIP)\n  add_library(b b.cu)\nendif()\n")
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert [r for r in regions if r[2] == "both"] == [(4, 4, "both", 4)]


def test_a_multi_line_shared_test_covers_its_lines():
    text = "if(CMAKE_CUDA_COMPILER\n   OR CMAKE_HIP_COMPILER)\n  add_library(a a.cu)\nendif()\n"
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert [r for r in regions if r[2] == "both"] == [(1, 2, "both", 1)]


def test_scope_qualified_names():
    code = b"a = Cfg::warpSize; b = Cfg<T> :: warpSize; c = ::warpSize; d = (::warpSize); e = warpSize;"
    offs = [i for i in range(len(code)) if code.startswith(b"warpSize", i)]
    assert [_scope_qualified(code, o) for o in offs] == [True, True, False, False, False]


def test_hip_platform_macros_for_nvidia_are_never_the_rocm_build():
    assert not is_rocm_name("__HIP_PLATFORM_NVCC__") and not is_rocm_name("__HIP_PLATFORM_NVIDIA__")
    assert is_rocm_name("__HIP_PLATFORM_AMD__")
    pre = preprocess(b"#ifdef __HIP_PLATFORM_NVIDIA__\nint a;\n#else\nint b;\n#endif\n"
                     b"#if defined(USE_HIP) && defined(__HIP_PLATFORM_NVCC__)\nint c;\n#endif\n")
    regs = pre.regions()
    # line 2: NVIDIA only (guard line 1); line 4: both builds; line 7: no build's (ROCm is off, NVCC is off in ROCm)
    assert [side_at(regs, n) for n in (2, 4, 7)] == [("cuda", 1), ("both", 0), ("none", 6)]


def test_each_dual_s20b_finding_has_its_exact_status():
    assert _statuses(REPO / "fixtures/dual_s20b") == [
        # no ROCm arm in this file: the probe stays open (and the CMake project enables CUDA here outside any
        # vendor arm, so the project's ROCm build elsewhere does not stand in for its CUDA settings either:
        # status.by_rocm_build, session 30)
        ("probe_only/CMakeLists.txt", 4, "BLD007", "open", None),
        ("probe_only/CMakeLists.txt", 5, "BLD001", "open", None),
        # check_language(CUDA) probe beside a ROCm arm (line 18)
        ("select/CMakeLists.txt", 3, "BLD007", "handled", "select/CMakeLists.txt:18"),
        ("select/CMakeLists.txt", 4, "BLD001", "handled", "select/CMakeLists.txt:18"),
        # ADD_CUDA is called only from the CUDA arm of the MY_GPU selection (line 16); ADD_EITHER outside it too
        ("select/CMakeLists.txt", 8, "BLD002", "handled", "select/CMakeLists.txt:16"),
        ("select/CMakeLists.txt", 13, "BLD002", "open", None),
    ]


def test_a_rocm_selector_is_defined_in_the_rocm_build():
    text = ('if(NOT DEFINED GPU OR GPU STREQUAL "CUDA")\n  set(A 1)\nelseif(GPU STREQUAL "ROCM")\n  set(B 1)\nendif()\n'
            'if(NOT DEFINED OTHER)\n  set(C 1)\nendif()\n')
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert [(a, b, s) for a, b, s, _g in regions if s in ("cuda", "rocm")] == [(2, 3, "cuda"), (4, 5, "rocm"),
                                                                             (1, 1, "cuda")]


def test_a_retired_rocm_macro_the_project_never_defines_is_undefined_on_rocm():
    assert _statuses(REPO / "fixtures/hcc_retired") == [
        # the CUDA path is what ROCm >= 6.0 compiles
        ("src/warp.cuh", 10, "API004", "open", None),
        ("src/warp.cuh", 10, "DEV038", "open", None),
        # `|| defined(__HIP_PLATFORM_AMD__)` still picks the ROCm arm
        ("src/warp.cuh", 20, "DEV002", "handled", "src/warp.cuh:17"),
    ]
    # the dead `#else` (no build's code) keeps the test's guard; the CUB include is open (info)
    from porter.pipeline import run
    from porter.settings import Settings

    res = run(REPO / "fixtures/hcc_retired", Settings(jobs=1, cache_dir=None)).result
    info = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in res.findings if str(f.severity) == "info")
    assert info == [(5, "API005", "open", None), (5, "LIB001", "open", None),
                    (12, "API003", "handled", "src/warp.cuh:9"), (18, "API003", "handled", "src/warp.cuh:17")]


def test_a_retired_rocm_macro_the_build_defines_reads_as_before():
    assert _statuses(REPO / "fixtures/hcc_defined") == [
        ("src/warp.cuh", 10, "API004", "handled", "src/warp.cuh:9"),
        ("src/warp.cuh", 10, "DEV038", "handled", "src/warp.cuh:9"),
        ("src/warp.cuh", 20, "DEV002", "handled", "src/warp.cuh:17"),
    ]


def test_retired_macros_are_older_than_every_release_offered():
    # If a release older than a retired macro's `until` is ever offered, the run's --rocm release has to reach the
    # preprocessor: this pins the assumption retired_rocm_macros documents.
    from porter.rocm import release_key, releases
    from porter.source.preprocessor import retired_rocm_macros

    assert retired_rocm_macros() == frozenset({"__HIP_PLATFORM_HCC__"})
    assert min(release_key(r) for r in releases()) >= (6, 0)


def test_a_retired_rocm_macro_a_project_header_defines_reads_as_before():
    assert _statuses(REPO / "fixtures/hcc_defined_header") == [
        ("src/warp.cuh", 10, "API004", "handled", "src/warp.cuh:9"),
        ("src/warp.cuh", 10, "DEV038", "handled", "src/warp.cuh:9"),
        ("src/warp.cuh", 20, "DEV002", "handled", "src/warp.cuh:17"),
    ]
