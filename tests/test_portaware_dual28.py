"""Session 28 (dual): a compat layer's renames apply to the translation units that include the layer, only for the
names it maps, and never to a rule a rename does not port (KRN004, `beyond-rename`). Fixture written here:
fixtures/dual_s28 (its README says which file holds which shape)."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.compat import CompatLayer, include_reach

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dual_s28"


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_each_dual_s28_finding_has_its_exact_status():
    layer = "include/fx/gpu_compat.h"
    assert _statuses(FIXTURE) == [
        ("CMakeLists.txt", 9, "BLD001", "handled", "CMakeLists.txt:4"),
        (layer, 11, "API005", "handled", f"{layer}:2"),
        ("src/common.cuh", 5, "DEV011", "open", None),
        ("src/common.cuh", 5, "DEV002", "handled", f"{layer}:8"),
        # no include of its own: its includer main.cu includes the layer first
        ("src/device_sum.cuh", 4, "DEV011", "open", None),
        ("src/device_sum.cuh", 4, "DEV002", "handled", f"{layer}:8"),
        ("src/kernels.cu", 3, "KRN001", "open", None),
        ("src/kernels.cu", 10, "API001", "handled", f"{layer}:4"),
        ("src/kernels.cu", 11, "API001", "handled", f"{layer}:6"),
        ("src/kernels.cu", 11, "API001", "handled", f"{layer}:7"),
        # cudaMemset: a name the layer does not map
        ("src/kernels.cu", 12, "API001", "open", None),
        ("src/kernels.cu", 14, "API001", "handled", f"{layer}:9"),
        # the rename is no port of the cooperative launch's residency need
        ("src/kernels.cu", 14, "KRN004", "open", None),
        ("src/kernels.cu", 15, "API001", "handled", f"{layer}:5"),
        ("src/main.cu", 4, "KRN001", "open", None),
        # tools/probe.cu includes no file of the layer
        ("tools/probe.cu", 3, "KRN001", "open", None),
        ("tools/probe.cu", 4, "DEV002", "open", None),
        ("tools/probe.cu", 10, "API001", "open", None),
        ("tools/probe.cu", 11, "API001", "open", None),
    ]


def test_include_reach_takes_includers_and_what_they_include():
    edges = [("a.cu", "common.h"), ("common.h", "compat.h"), ("a.cu", "sum.h"), ("sum.h", "detail.h"),
             ("b.cu", "other.h"), ("c.cu", "c.cu")]
    assert include_reach({"compat.h", "forced.h"}, edges) == {
        "compat.h": frozenset({"a.cu", "common.h", "compat.h", "sum.h", "detail.h"})}
    # past the visit budget, every header stays global
    assert include_reach({"compat.h"}, edges, limit=3) == {}


def test_compat_lookup_local_scoped_and_global():
    layer = CompatLayer()
    layer.add("inc/compat.h", 4, "cudaMalloc")
    layer.add("inc/forced.h", 2, "cudaFree")
    layer.add("src/one.cu", 7, "cudaMemset")
    layer.scope({"inc/compat.h": frozenset({"src/one.cu", "inc/compat.h"})})
    assert layer.lookup("src/one.cu", ["cudaMalloc"]) == "inc/compat.h:4"
    assert layer.lookup("src/two.cu", ["cudaMalloc"]) is None
    # a header no file includes (force-included) maps for every file
    assert layer.lookup("src/two.cu", ["cudaFree"]) == "inc/forced.h:2"
    # a source's own mapping is its own
    assert layer.lookup("src/one.cu", ["cudaMemset"]) == "src/one.cu:7"
    assert layer.lookup("src/two.cu", ["cudaMemset"]) is None
    # the first name mapped wins, in the finding's order
    assert layer.lookup("src/one.cu", ["cudaMemset", "cudaMalloc"]) == "src/one.cu:7"


FIXTURE_B = REPO / "fixtures/dual_s28b"


def test_a_cuda_components_own_runtime_shim_is_handled_by_the_rocm_sibling():
    found = [r for r in _statuses(FIXTURE_B) if r[0] in ("devices/cuda/rt_shim.cpp", "devices/cuda/scan_extra.cu")]
    shim = [r for r in found if r[0] == "devices/cuda/rt_shim.cpp"]
    # the shim defines cudaGetLastError, cudaMalloc and cudaFree over the driver API: no file of the HIP device
    # twins it, and none needs to (HIP's runtime is the HIP device's); before session 28 every line read open
    assert len(shim) == 18 and {r[3:] for r in shim} == {("handled", "devices/hip/")}
    assert ("devices/cuda/rt_shim.cpp", 8, "API002", "handled", "devices/hip/") in shim
    # a kernel source of the CUDA device with no twin in devices/hip/ is a feature the HIP device lacks: open
    assert [r for r in found if r[0] == "devices/cuda/scan_extra.cu"] == [
        ("devices/cuda/scan_extra.cu", 1, "API005", "open", None),
        ("devices/cuda/scan_extra.cu", 3, "KRN001", "open", None),
        ("devices/cuda/scan_extra.cu", 5, "DEV011", "open", None),
        ("devices/cuda/scan_extra.cu", 5, "DEV002", "open", None),
    ]


def test_implements_cuda_api_needs_three_cuda_api_definitions_and_no_kernel():
    from porter.portaware.compat import implements_cuda_api

    three = ("cudaError_t cudaMalloc(void** p, size_t n) { return cudaSuccess; }\n"
             "cudaError_t cudaFree(void* p) { return cudaSuccess; }\n"
             "CUresult cuInit(unsigned f) { return CUDA_SUCCESS; }\n")
    assert implements_cuda_api(three) is True
    assert implements_cuda_api(three.split("\n", 1)[1]) is False            # two definitions
    assert implements_cuda_api(three + "__global__ void k() {}\n") is False  # a kernel: device code, not plumbing
    # calls are no definitions
    assert implements_cuda_api("void f() {\n  cudaMalloc(&p, n);\n  cudaFree(p);\n  cuInit(0);\n}\n") is False
    # the same name defined twice counts once
    assert implements_cuda_api(three.split("\n", 1)[1] * 2) is False


def test_nvcc_argument_lists_of_a_meson_build_that_builds_for_amd():
    from porter.portaware.scope import meson_rocm_line, nvcc_flag_assignments

    # inside the `if get_option('backend') == 'cuda'` arm, whose `elif ... == 'amd'` twin is the ROCm arm: the arm's
    # guard answers first (tests/test_portaware_meson.py); meson_rocm_line is the evidence outside any vendor arm
    assert _statuses(REPO / "fixtures/dual_s28c") == [
        ("meson.build", 7, "BLD004", "handled", "meson.build:4"),
        ("meson.build", 8, "BLD005", "handled", "meson.build:4"),
        # a Meson file naming nothing of ROCm: its nvcc flags stay open
        ("tools/meson.build", 2, "BLD004", "open", None),
        ("tools/meson.build", 2, "BLD005", "open", None),
    ]
    text = (REPO / "fixtures/dual_s28c/meson.build").read_text()
    assert nvcc_flag_assignments(text) == [(6, 6), (7, 7), (8, 8)]
    assert meson_rocm_line("meson.build", text) == "meson.build:12"
    # a comment naming the library is no build line
    assert meson_rocm_line("m", "# cc.find_library('amdhip64')\nx = 1\n") is None
    assert meson_rocm_line("m", "add_project_arguments('-D__HIP_PLATFORM_AMD__', language : 'cpp')\n") == "m:1"
