"""Port status on dual CUDA/ROCm projects (issue 27, session 23): hand-kept HIP twins read on heldout23 (mHC.cu's
setup.py beside setup_hip.py, CMakeLists.txt beside CMakeLists_hip.txt and mhc_types.h beside mhc_types_hip.h;
SeisSol/Device's `__CUDACC__` arms in code written for hip-clang; RL-Kernel's `hasattr(torch.version, "hip") and`
test and its `"cuda"` / `"rocm"` extras), each beside a near miss that stays open. fixtures/dual_s23/README.md says
which file holds which."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.scope import defined_names, same_definitions, source_twins
from porter.source.preprocessor import evaluate, hip_native, preprocess, side_at

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s23"


def _statuses():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
            if str(f.severity) != "info" or f.path.startswith(("plain/", "shared/utils"))]


def test_each_dual_s23_finding_has_its_exact_status():
    assert _statuses() == [
        # CMakeLists.txt beside CMakeLists_hip.txt (a name porter gives no language): the HIP build is the twin
        ("cmake/CMakeLists.txt", 2, "BLD001", "handled", "cmake/CMakeLists_hip.txt"),
        ("cmake/CMakeLists.txt", 3, "BLD002", "handled", "cmake/CMakeLists_hip.txt"),
        ("cmake/CMakeLists.txt", 4, "BLD004", "handled", "cmake/CMakeLists_hip.txt"),
        ("cmake/CMakeLists.txt", 4, "BLD004", "handled", "cmake/CMakeLists_hip.txt"),
        ("cmake/CMakeLists.txt", 6, "LIB004", "handled", "cmake/CMakeLists_hip.txt"),
        # the same file without a twin: open (its nvcc flags read handled by the repository's ROCm files, as
        # session 19's nvcc-flag rule reads every such assignment)
        ("cmake_solo/CMakeLists.txt", 2, "BLD001", "open", None),
        ("cmake_solo/CMakeLists.txt", 3, "BLD002", "open", None),
        ("cmake_solo/CMakeLists.txt", 4, "BLD004", "handled", "ext/setup_hip.py"),
        ("cmake_solo/CMakeLists.txt", 4, "BLD004", "handled", "ext/setup_hip.py"),
        ("cmake_solo/CMakeLists.txt", 6, "LIB004", "open", None),
        # setup.py beside setup_hip.py: pip runs one or the other
        ("ext/setup.py", 5, "PYT001", "handled", "ext/setup_hip.py"),
        ("ext/setup.py", 6, "BLD006", "handled", "ext/setup_hip.py"),
        ("ext/setup.py", 6, "BLD006", "handled", "ext/setup_hip.py"),
        ("ext/setup.py", 11, "LIB004", "handled", "ext/setup_hip.py"),
        ("ext/setup.py", 11, "LIB004", "handled", "ext/setup_hip.py"),
        # no twin: open, but for the "cuda" extra beside its "rocm" twin key
        ("ext_solo/setup.py", 5, "PYT001", "open", None),
        ("ext_solo/setup.py", 6, "BLD006", "open", None),
        ("ext_solo/setup.py", 6, "BLD006", "open", None),
        ("ext_solo/setup.py", 11, "LIB004", "open", None),
        ("ext_solo/setup.py", 11, "LIB004", "open", None),
        ("ext_solo/setup.py", 14, "LIB011", "handled", "ext_solo/setup.py:15"),
        # `__CUDACC__` in a file that tests HIP's own macros: hip-clang never defines it, so the arm is NVIDIA's
        ("hipnative/common.h", 6, "API002", "handled", "hipnative/common.h:3"),
        ("hipnative/common.h", 10, "DEV002", "handled", "hipnative/common.h:3"),
        # no HIP macro tested: hipify may rename `__CUDACC__` to `__HIPCC__`, so the arm stays open
        ("legacy/common.cuh", 6, "API002", "open", None),
        ("legacy/common.cuh", 10, "DEV002", "open", None),
        # an extra keyed "cuda" with no ROCm-keyed twin: open
        ("pkg/setup.py", 6, "LIB011", "open", None),
        # a plain header beside a ROCm-named one that defines the same things: handled by the twin
        ("plain/types.h", 2, "API005", "handled", "plain/types_hip.h"),
        ("plain/types.h", 3, "API005", "handled", "plain/types_hip.h"),
        ("plain/types.h", 3, "LIB001", "handled", "plain/types_hip.h"),
        ("plain/types.h", 11, "LIB015", "handled", "plain/types_hip.h"),
        ("plain/types.h", 11, "API001", "handled", "plain/types_hip.h"),
        ("plain/types.h", 12, "API001", "handled", "plain/types_hip.h"),
        ("plain/types.h", 14, "LIB015", "handled", "plain/types_hip.h"),
        ("plain/types.h", 14, "LIB015", "handled", "plain/types_hip.h"),
        ("plain/types_hip.h", 14, "LIB015", "handled", "plain/types_hip.h"),
        # the `hasattr(torch.version, "hip") and torch.version.hip is not None` test's else is the CUDA build's
        ("py/device.py", 8, "PYT002", "handled", "py/device.py:5"),
        # `hasattr(...) and ready` tests more than the attribute: its else may run on ROCm too
        ("py/device.py", 15, "PYT002", "open", None),
        # a plain header its ROCm-named neighbour includes is shared code: open
        ("shared/utils.h", 2, "API005", "open", None),
        ("shared/utils.h", 3, "API005", "open", None),
        ("shared/utils.h", 3, "LIB001", "open", None),
        ("shared/utils.h", 11, "LIB015", "open", None),
        ("shared/utils.h", 11, "API001", "open", None),
        ("shared/utils.h", 12, "API001", "open", None),
    ]


def test_cudacc_is_nvcc_only_in_code_written_for_hip_clang():
    native = b"#if defined(__CUDACC__)\nint a;\n#endif\n#ifdef __HIP__\nint b;\n#endif\n"
    plain = b"#if defined(__CUDACC__)\nint a;\n#endif\n#ifdef USE_ROCM\nint b;\n#endif\n"
    pre = preprocess(native)
    assert hip_native(pre.directives)
    assert side_at(evaluate(list(pre.directives), pre.total), 2) == ("cuda", 1)
    pre = preprocess(plain)
    assert not hip_native(pre.directives)
    assert side_at(evaluate(list(pre.directives), pre.total), 2)[0] == "both"
    # `__CUDACC__ || __HIPCC__` is every GPU compiler's arm, as before
    pre = preprocess(b"#if defined(__CUDACC__) || defined(__HIPCC__)\nint a;\n#endif\n")
    assert side_at(evaluate(list(pre.directives), pre.total), 2)[0] == "both"


def test_plain_twins_are_candidates_that_definitions_decide():
    paths = ["inc/types.h", "inc/types_hip.h", "inc/k.cuh", "inc/k_hip.h", "inc/lone.h"]
    assert source_twins(paths) == {"inc/k.cuh": "inc/k_hip.h"}
    assert source_twins(paths, plain=True) == {"inc/types.h": "inc/types_hip.h"}
    cuda = "struct A {};\nusing B = float;\n#define C(x) x\n__global__ void kern(int* p) {}\ntypedef int D;\n"
    assert defined_names(cuda) == {"A", "B", "C", "kern", "D"}
    hip = "struct A {};\nusing B = float;\n#define C(x) x\n__global__ void kern2(int* p) {}\n"
    assert same_definitions("types.h", cuda, "types_hip.h", hip)
    # one shared name of five, or a twin that includes the plain file, is no twin
    assert not same_definitions("types.h", cuda, "types_hip.h", "struct A {};\n")
    assert not same_definitions("types.h", cuda, "types_hip.h", '#include "types.h"\n' + hip)
    assert not same_definitions("types.h", '#include "types_hip.h"\n' + cuda, "types_hip.h", hip)
