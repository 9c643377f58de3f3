"""Port status on dual CUDA/ROCm projects (issue 27, session 22): the shapes of the false open findings read on
heldout21 (lc0's CUDA backend beside a SYCL backend built for AMD through hipBLAS, SIMULATeQCD's HIP-on-NVIDIA
CMake switch, TASMANIAN's environment-variable switches, piper-kernels' `backend == "rocm"` test), each beside a
near miss that stays open. fixtures/dual_s22/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.rewrites import rewritten_at, rocm_rewrites
from porter.portaware.scope import (_cm_literal_side, _cm_var_side, backend_twins, cmake_commands, cmake_references,
                                    rocm_header)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s22"


def _run():
    from porter.pipeline import run
    from porter.settings import Settings

    return run(FIXTURE, Settings(jobs=1, cache_dir=None)).result


def test_each_dual_s22_finding_has_its_exact_status():
    result = _run()
    assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
            if str(f.severity) != "info"] == [
        # HIP on NVIDIA is the CUDA build's; USE_HIP alone is the AMD build's too
        ("CMakeLists.txt", 13, "BLD001", "handled", "CMakeLists.txt:12"),
        ("CMakeLists.txt", 14, "BLD002", "handled", "CMakeLists.txt:12"),
        ("CMakeLists.txt", 20, "BLD002", "open", None),
        # the SYCL twin built for AMD handles the CUDA backend
        ("backends/cuda/kernels.cu", 4, "DEV003", "handled", "backends/sycl/blas_context.h:5"),
        ("backends/cuda/kernels.cu", 4, "DEV002", "handled", "backends/sycl/blas_context.h:5"),
        ("backends/cuda/layers.cc", 1, "LIB002", "handled", "backends/sycl/blas_context.h:5"),
        ("backends/cuda/layers.cc", 4, "API002", "handled", "backends/sycl/blas_context.h:5"),
        ("backends/cuda/layers.cc", 4, "API002", "handled", "backends/sycl/blas_context.h:5"),
        ("backends/cuda/layers.cc", 6, "API008", "handled", "backends/sycl/blas_context.h:5"),
        # the else of a comparison with "rocm", and a private helper called only there
        ("bench/env.py", 13, "PYT006", "handled", "bench/env.py:18"),
        ("bench/env.py", 21, "PYT001", "handled", "bench/env.py:18"),
        ("bench/env.py", 27, "PYT001", "open", None),
        # an environment switch's emptiness test, beside its HIP twin's
        ("cmake/env.cmake", 4, "BLD007", "handled", "cmake/env.cmake:2"),
        ("cmake/env.cmake", 9, "BLD007", "open", None),
        # (session 27: line 10 writes CMAKE_CUDA_COMPILER, which only the CUDA language reads, and the fixture
        # enables CUDA in CUDA arms alone: handled by that arm, whatever line 9's test is)
        ("cmake/env.cmake", 10, "BLD007", "handled", "CMakeLists.txt:12"),
        # the text a ROCm-side str.replace rewrites in kernel source before compiling it; the lane offsets it does not
        # touch and another shuffle stay open
        ("jit/templates/reduce.cuh", 3, "DEV011", "open", None),
        ("jit/templates/reduce.cuh", 3, "DEV002", "handled", "jit/loader.py:6"),
        ("jit/templates/reduce.cuh", 5, "DEV002", "open", None),
        # a sibling sharing one stem of three is no twin
        ("ops/cuda/reduce.cu", 4, "DEV003", "open", None),
        ("ops/cuda/reduce.cu", 4, "DEV002", "open", None),
        # an extra named for an NVIDIA library is an NVIDIA opt-in; the default dependencies and a feature extra
        # are what a ROCm install gets
        ("pyproject.toml", 4, "LIB010", "open", None),
        ("pyproject.toml", 8, "LIB010", "cuda-only", "pyproject.toml:7"),
        ("pyproject.toml", 11, "LIB010", "open", None),
        # a CPU sibling with the same stems has no ROCm code
        ("solver/cuda/kernels.cu", 4, "DEV003", "open", None),
        ("solver/cuda/kernels.cu", 4, "DEV002", "open", None),
    ]


def test_a_backend_twin_keeps_its_kernels_verdicts():
    result = _run()
    k = next(k for k in result.kernels if k.path == "backends/cuda/kernels.cu")
    assert (k.name, str(k.status), k.handled_by) == ("add_bias", "handled", "backends/sycl/blas_context.h:5")
    # handled by a component, not by a HIP version of itself: what the kernel needs on AMD is still said
    assert {str(v.verdict) for v in k.verdicts} == {"fix"}


def test_backend_twins_need_shared_stems_and_rocm_code():
    paths = ["b/cuda/layers.cc", "b/cuda/kernels.cu", "b/cuda/common.h",
             "b/sycl/layers.cc.dp.cpp", "b/sycl/kernels.dp.cpp", "b/sycl/ctx.h",
             "s/cuda/a.cu", "s/cuda/b.cu", "s/cpu/a.cc", "s/cpu/b.cc",
             "o/cuda/a.cu", "o/cuda/b.cu", "o/cuda/c.cu", "o/cuda/d.cu", "o/cuda/e.cu", "o/sycl/a.cpp", "o/sycl/b.cpp"]
    rocm = {"b/sycl/ctx.h": "b/sycl/ctx.h:5", "o/sycl/b.cpp": "o/sycl/b.cpp:2"}
    # b/: two of three stems shared, ROCm code beside; s/: no ROCm code; o/: two of five stems
    assert backend_twins(paths, rocm) == {"b/cuda": ("b/sycl/ctx.h:5", "b/cuda/ and b/sycl/ share 2 file stems")}
    # a sibling whose header the CUDA folder includes is code both builds share
    shared = {"b/cuda/layers.cc": frozenset({"ctx.h"})}
    assert backend_twins(paths, rocm, shared) == {}
    assert backend_twins(paths, rocm, {"b/cuda/layers.cc": frozenset({"common.h"})}) == {
        "b/cuda": ("b/sycl/ctx.h:5", "b/cuda/ and b/sycl/ share 2 file stems")}
    # a sibling named for a vendor is component_twins' business (`hip/` beside `cuda/`), not this reading
    hip = ["x/cuda/a.cu", "x/cuda/b.cu", "x/hip/a.cpp", "x/hip/b.cpp"]
    assert backend_twins(hip, {"x/hip/a.cpp": "x/hip/a.cpp"}) == {}


def test_rocm_header():
    assert rocm_header('"hip/hip_runtime.h"') and rocm_header("<hipblas/hipblas.h>") and rocm_header("<rocblas.h>")
    assert rocm_header("<miopen/miopen.h>") and rocm_header("<hipcub/hipcub.hpp>")
    assert not rocm_header("<cublas_v2.h>") and not rocm_header('"hipster.h"') and not rocm_header('"ship/x.h"')


def test_hip_on_nvidia_names_are_the_cuda_builds():
    assert _cm_var_side("USE_HIP_NVIDIA") == "cuda"
    assert _cm_var_side("HIP_NVCC_FLAGS") == "cuda"
    assert _cm_var_side("USE_HIP_AMD") == "rocm" and _cm_var_side("USE_HIP") == "rocm"
    assert _cm_literal_side("hip_nvidia") == "cuda" and _cm_literal_side("hip-nvcc") == "cuda"
    assert _cm_literal_side("hip_amd") == "rocm" and _cm_literal_side("nvcc") == "cuda"
    # each alternative apart: a pattern naming both vendors keeps its old reading
    assert _cm_literal_side("cuda|hip") == "rocm"


def test_emptiness_tests_read_as_switch_tests():
    text = ('if(NOT "$ENV{A_CUDA}" STREQUAL "")\n'      # 1
            'elseif("${A_HIP}" STREQUAL "" OR X)\n'      # 2
            'endif()\n'
            'if("$ENV{A_CUDA}" STREQUAL "nvcc")\n'       # 4: a value, not emptiness
            'endif()\n'
            'set(V "$ENV{A_CUDA}" STREQUAL "")\n')       # 6: not a condition
    cmds = cmake_commands(text)
    assert [c.args for c in cmds] == [("NOT", "NOT", "A_CUDA"), ("NOT", "A_HIP", "OR", "X"), (),
                                      ("$ENV{A_CUDA}", "STREQUAL", "nvcc"), (),
                                      ("V", "$ENV{A_CUDA}", "STREQUAL", "")]
    text2 = ('if(NOT "$ENV{A_ENABLE_CUDA}" STREQUAL "")\n'
             '  set(CMAKE_CUDA_COMPILER "$ENV{A_ENABLE_CUDA}")\n'
             'endif()\n'
             'if(NOT "$ENV{A_ENABLE_HIP}" STREQUAL "")\n'
             '  set(A_ENABLE_HIP ON)\n'
             'endif()\n')
    _refs, regions = cmake_references("x.cmake", text2)
    # (an arm runs to its endif() line, as every arm porter reads)
    assert regions == [(2, 3, "cuda", 1), (1, 1, "cuda", 1), (5, 6, "rocm", 4)]


def test_a_value_compared_with_a_rocm_name_is_a_rocm_test():
    from porter.portaware.guards import python_spans

    def sides(src: str) -> list[tuple[int, str]]:
        return sorted((sp.start[0], sp.side) for sp in python_spans(src.encode()))

    # any value: no CUDA build's backend, target or platform value is "hip" or "rocm"
    # (the else span starts at its `else:`)
    assert sides('if target.kind.name == "hip":\n    a()\nelse:\n    b()\n') == [(2, "rocm"), (3, "cuda")]
    assert sides('if backend != "rocm":\n    b()\n') == [(2, "cuda")]
    # a torch device's type is "cuda" on ROCm as well: no build test
    assert sides('if x.device.type == "hip":\n    a()\nelse:\n    b()\n') == []
    # compared with "cuda", a lower-case value stays unread (`device.type == "cuda"` is true on ROCm)
    assert sides('if backend == "cuda":\n    a()\nelse:\n    b()\n') == []


def test_rocm_rewrites_read_only_code_replaced_on_the_rocm_side():
    from porter.portaware.guards import python_spans
    from porter.source.parse import parse

    src = (b"import torch\n"
           b"def post(k, path):\n"
           b"    if torch.version.hip:\n"
           b"        k = k.replace('__syncwarp();', '__threadfence_block();')\n"   # 4: a statement
           b"        k = k.replace(\"__shfl_sync(m,\", \"__shfl(\")\n"          # 5: a call's opening
           b"        k = k.replace('__activemask', 'hip_mask')\n"                  # 6: a builtin
           b"        path = path.replace('cuda', 'hip')\n"                         # 7: a word, not code
           b"        k = k.replace(f'{x}(', 'y(')\n"                               # 8: not a plain literal
           b"        k = k.replace('a\\n(b', 'c')\n"                              # 9: an escape
           b"    return k.replace('__ldg(p)', 'p[0]')\n")                          # 10: both builds
    sf = parse("l.py", "python", src)
    spans = [(sp.start, sp.end, sp.side, sp.line) for sp in python_spans(src, "l.py", sf)]
    assert rocm_rewrites(sf.root, spans) == [(4, "__syncwarp();"), (5, "__shfl_sync(m,"), (6, "__activemask")]


def test_rewritten_at_needs_the_text_under_the_finding():
    rw = {"__shfl_down_sync(FULL_MASK,": "l.py:6"}
    row = "  v += __shfl_down_sync(FULL_MASK, v, o); w = __shfl_down_sync(m, w, 1);"
    assert rewritten_at(row, 8, 24, rw) == "l.py:6"        # the call the rewrite spells
    assert rewritten_at(row, 46, 62, rw) is None           # the second call, another mask
    assert rewritten_at(row, 1, None, rw) == "l.py:6"      # a whole-line finding


def test_a_rewrite_outside_the_rocm_branch_leaves_its_text_open():
    result = _run()
    assert [(f.line, f.rule, str(f.severity), str(f.status)) for f in result.findings
            if f.path == "jit/templates/reduce.cuh" and f.line == 4] == [(4, "API004", "info", "open")]


def test_getattr_of_torch_version_is_the_version_test():
    from porter.portaware.guards import python_spans

    src = (b"import torch\n"
           b"def check():\n"
           b"    if getattr(torch.version, 'hip', None) is not None:\n"   # 3
           b"        raise RuntimeError('no ROCm')\n"
           b"    if torch.version.cuda is None:\n"                         # 5: only the CUDA build gets here
           b"        raise RuntimeError('no CUDA')\n"
           b"    if getattr(torch.version, 'cuda'):\n"                      # 7
           b"        pass\n"
           b"    if getattr(cfg, 'hip', None):\n"                           # 9: another object's attribute
           b"        pass\n")
    spans = sorted((sp.start[0], sp.end[0], sp.side, sp.line) for sp in python_spans(src))
    # (line 5's raise makes the rest of the block the CUDA build's as well: 7-10 from line 5)
    assert spans == [(4, 4, "rocm", 3), (5, 10, "cuda", 3), (6, 6, "rocm", 5), (7, 10, "cuda", 5), (8, 8, "cuda", 7)]
