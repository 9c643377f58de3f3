"""Port status on dual CUDA/ROCm projects (issue 27, session 17): the shapes of the false open findings read on
heldout11's dual projects (SUNDIALS' `.hip.hpp` twins, Triton-distributed's `is_cuda()` / `is_hip()` helpers,
RAJAPerf's `CUDA_NVCC_FLAGS` beside `HIP_HIPCC_FLAGS`, OpenEquivariance's `bench` extra), each beside a near miss that
stays open. fixtures/dual_s17/README.md says which file holds which."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.guards import python_spans
from porter.portaware.scope import cmake_twin_variables, cuda_extras, source_twins

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s17"


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_each_dual_s17_finding_has_its_exact_status():
    assert _statuses(FIXTURE) == [
        # top-level CUDA_NVCC_FLAGS: the HIP arm reads HIP_HIPCC_FLAGS (line 8); NVCC_EXTRA_FLAGS has no twin
        ("CMakeLists.txt", 10, "BLD004", "handled", "CMakeLists.txt:8"),
        ("CMakeLists.txt", 10, "BLD004", "handled", "CMakeLists.txt:8"),
        ("CMakeLists.txt", 11, "BLD004", "open", None),
        # the default dependency is open; the `bench` extra is the developers' opt-in
        ("pyproject.toml", 6, "LIB011", "open", None),
        ("pyproject.toml", 12, "LIB011", "cuda-only", "pyproject.toml:10"),
        # a function per vendor: arch_flags_cuda's twin is arch_flags_hip (line 9), Builder.flags_cuda's is
        # flags_rocm (line 22); arch_flags_nvidia_only has no AMD twin
        ("python/pkg/flags.py", 5, "PYT001", "handled", "python/pkg/flags.py:9"),
        ("python/pkg/flags.py", 14, "PYT001", "open", None),
        ("python/pkg/flags.py", 20, "PYT001", "handled", "python/pkg/flags.py:22"),
        # nvidia_stages_hook runs only from `if is_cuda():` (line 9); public_stages_hook is not named for NVIDIA
        ("python/pkg/jit.py", 5, "BLD006", "handled", "python/pkg/jit.py:9"),
        ("python/pkg/jit.py", 14, "BLD006", "open", None),
        # is_cuda() without an is_hip() twin: nothing is handled
        ("python/pkg/lonely.py", 8, "PYT006", "open", None),
        ("python/pkg/lonely.py", 14, "PYT001", "open", None),
        # is_cuda()'s own body (the def on line 6; its docstring naming nvidia-smi is no command), the rest after `if not is_cuda(): return` (line 16), the
        # `if is_cuda():` branch (line 22); `if x.is_cuda:` is a device test, open
        ("python/pkg/utils.py", 8, "PYT006", "handled", "python/pkg/utils.py:6"),
        ("python/pkg/utils.py", 18, "PYT001", "handled", "python/pkg/utils.py:16"),
        ("python/pkg/utils.py", 23, "PYT001", "handled", "python/pkg/utils.py:22"),
        ("python/pkg/utils.py", 30, "PYT001", "open", None),
        # the `.hip.hpp` twin handles the CUDA reducers; the file without a twin is open
        ("src/common/lib_cuda_kernels.cuh", 4, "DEV011", "handled", "src/common/lib_hip_kernels.hip.hpp"),
        ("src/common/lib_cuda_kernels.cuh", 4, "DEV002", "handled", "src/common/lib_hip_kernels.hip.hpp"),
        ("src/common/lib_hip_kernels.hip.hpp", 5, "API003", "handled", "src/common/lib_hip_kernels.hip.hpp"),
        ("src/other/plain_kernels.cuh", 4, "DEV011", "open", None),
        ("src/other/plain_kernels.cuh", 4, "DEV002", "open", None),
    ]


def test_without_the_rocm_twins_the_same_lines_stay_open(tmp_path):
    root = tmp_path / "dual_s17"
    shutil.copytree(FIXTURE, root)
    (root / "src/common/lib_hip_kernels.hip.hpp").unlink()
    cm = root / "CMakeLists.txt"
    # (the ROCm arm goes too: nvcc's flag variables in a repository that builds for ROCm are handled by that build,
    # session 19's porter.portaware.scope.nvcc_flag_assignments)
    cm.write_text(cm.read_text().replace("${HIP_HIPCC_FLAGS}", "-O3").replace("ENABLE_HIP", "ENABLE_CPU"))
    utils = root / "python/pkg/utils.py"
    utils.write_text(utils.read_text().replace("def is_hip():", "def is_rocm_smi():"))
    jit = root / "python/pkg/jit.py"
    jit.write_text(jit.read_text().replace("from pkg.utils import is_cuda, is_hip", "from pkg.utils import is_cuda"))
    flags = root / "python/pkg/flags.py"
    flags.write_text(flags.read_text().replace("def arch_flags_hip(", "def arch_flags_cpu(").replace(
        "def flags_rocm(", "def flags_cpu("))
    got = {(p, line, rule): (s, h) for p, line, rule, s, h in _statuses(root)}
    for key in [("CMakeLists.txt", 10, "BLD004"), ("python/pkg/jit.py", 5, "BLD006"),
                ("python/pkg/flags.py", 5, "PYT001"), ("python/pkg/flags.py", 20, "PYT001"),
                ("python/pkg/utils.py", 8, "PYT006"), ("python/pkg/utils.py", 18, "PYT001"),
                ("python/pkg/utils.py", 23, "PYT001"), ("src/common/lib_cuda_kernels.cuh", 4, "DEV002")]:
        assert got[key] == ("open", None), key


def test_a_twin_whose_name_carries_the_vendor_word_twice_pairs():
    paths = ["s/sundials_cuda_kernels.cuh", "s/sundials_hip_kernels.hip.hpp", "t/a_cuda_b.cu", "t/a_hip_c.hip.cpp",
             "u/k.cuh", "u/k_hip.hip.cpp"]
    # a header pairs with a header; `a_cuda_b` is not `a_hip_c`; a source is no header's twin
    assert source_twins(paths) == {"s/sundials_cuda_kernels.cuh": "s/sundials_hip_kernels.hip.hpp"}


def test_cmake_cuda_variables_with_a_rocm_twin_named_in_the_file():
    text = ("set(CMAKE_CUDA_ARCHITECTURES 80)\n"       # 1: twin on line 2
            "set(CMAKE_HIP_ARCHITECTURES gfx942)\n"
            "set(CUDA_SEPARABLE_COMPILATION ON)\n"     # 3: no twin
            "list(APPEND CUDA_NVCC_FLAGS -O3\n"        # 4-5: all words swapped, read on line 6
            "  -Xcompiler -fPIC)\n"
            "message(${HIP_HIPCC_FLAGS})\n"
            "set(MY_HIP_FLAGS -O3)\n")                 # 7: not CUDA-named
    assert cmake_twin_variables(text) == [(1, 1, "cuda", 2), (4, 5, "cuda", 6)]
    # a file that never names ROCm has no twins
    assert cmake_twin_variables("set(CUDA_NVCC_FLAGS -O3)\nset(CUDAX_FLAGS 1)\n") == []


def test_a_developer_extra_is_an_opt_in_like_a_cuda_named_one():
    text = ("[project]\nname = 'x'\n"
            "[project.optional-dependencies]\n"
            "bench = [\n  'cupy-cuda12x',\n]\n"      # 4-6
            "serve = [\n  'cupy-cuda12x',\n]\n"      # 7-9: a feature extra, not an opt-in for developers
            "cu12 = ['cupy-cuda12x']\n"              # 10
            "tests = ['pytest']\n")                  # 11
    assert cuda_extras(text) == [(4, 6, 4), (10, 10, 10), (11, 11, 11)]


def _sides(src: str):
    return [(s.start[0], s.end[0], s.side, s.line) for s in python_spans(src.encode(), "m.py")]


def test_paired_is_cuda_confines_its_branches_and_its_early_return():
    src = ("def is_cuda():\n"                        # 1
           "    return probe('nvidia-smi')\n"
           "def is_hip():\n"
           "    return probe('rocm-smi')\n"
           "def f():\n"                              # 5
           "    if not is_cuda():\n"
           "        return None\n"
           "    return cuda_only()\n"                # 8: CUDA side, decided by line 6
           "def g():\n"
           "    if is_cuda():\n"                     # 10
           "        a()\n"
           "    else:\n"
           "        b()\n")                          # 13: not confined (MACA, a CPU)
    assert sorted(_sides(src)) == [(2, 2, "cuda", 1), (8, 8, "cuda", 6), (11, 11, "cuda", 10)]
    # the same without the twin: a device test as far as porter can tell
    assert _sides(src.replace("is_hip", "is_other")) == []
    # an attribute is never a paired predicate (`x.is_cuda()` on a tensor or device)
    assert _sides(src.replace("if is_cuda():", "if x.is_cuda():").replace("if not is_cuda():", "if not x.is_cuda():")
                  ) == [(2, 2, "cuda", 1)]


def test_a_paired_is_cuda_that_tests_the_device_is_no_vendor_test():
    # torch.cuda.is_available() is true on ROCm: this is_cuda() does not keep the vendors apart
    src = ("def is_cuda():\n"
           "    return torch.cuda.is_available()\n"
           "def is_hip():\n"
           "    return torch.version.hip is not None\n"
           "def f():\n"
           "    if is_cuda():\n"
           "        a()\n")
    assert _sides(src) == []
    assert _sides(src.replace("torch.cuda.is_available()", "torch.version.cuda is not None")) == [
        (2, 2, "cuda", 1), (7, 7, "cuda", 6)]


def test_function_twins_need_the_vendor_word_at_a_word_start_and_a_twin_in_the_same_scope():
    src = ("def get_config_nvidia():\n"      # 1-2: twin on line 3
           "    return [1]\n"
           "def get_config_amd():\n"
           "    return [2]\n"
           "def barracuda_x():\n"            # 5: 'cuda' inside a word
           "    return 3\n"
           "def barrahip_x():\n"
           "    return 4\n"
           "class A:\n"
           "    def load_rocm(self):\n"     # 10: a method's twin must be a method of the same class
           "        return 5\n"
           "def load_cuda():\n"
           "    return 6\n")
    assert _sides(src) == [(1, 2, "cuda", 3)]
