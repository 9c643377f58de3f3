"""Port status from what a project's own build compiles for ROCm (issue 27): CMake's CUDA language enabled only in
NVIDIA arms, HIP platform tests, a GPU switch both vendors set, a Find module loaded only from a CUDA arm, Automake
components the ROCm build replaces by a sibling, and directories with a ROCm twin by name. fixtures/dualbuild holds
the shapes (its README says which); a CUDA-only component with no ROCm counterpart stays open."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.scope import (automake_components, source_twins, cmake_commands, cmake_module_uses, cmake_references,
                                    component_twins, cuda_language_enables, cuda_language_spans, cuda_variants,
                                    neutral_switches)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dualbuild"


def _result(root):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None)).result


def _statuses(root):
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in _result(root).findings]


def test_each_dualbuild_finding_has_its_exact_status():
    result = _result(FIXTURE)
    # the component's kernel is handled by the sibling component, but has no HIP twin of its own: its 32-bit
    # shuffle mask keeps the kernel's verdict at fix (the default target)
    assert [(k.name, k.line, str(k.status), k.handled_by, [(v.target, v.verdict) for v in k.verdicts])
            for k in result.kernels] == [("comm_sum", 3, "handled", "src/comm/rccl/Makefile.am:1", [("mi355x", "fix")])]
    assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings] == [
        # enable_language(CUDA) in the two NVIDIA arms of APP_GPU (line 6 forks it; line 10 is the hip arm)
        ("CMakeLists.txt", 7, "BLD001", "handled", "CMakeLists.txt:6"),
        ("CMakeLists.txt", 9, "BLD001", "handled", "CMakeLists.txt:6"),
        # -Xcompiler inside $<$<COMPILE_LANGUAGE:CUDA>:...>: the ROCm build never enables CUDA
        ("CMakeLists.txt", 15, "BLD004", "handled", "CMakeLists.txt:6"),
        # a plain -Xcompiler reaches every build: open
        ("CMakeLists.txt", 16, "BLD004", "open", None),
        # inside ENABLE_HIP (on for both vendors): GPU_PLATFORM STREQUAL "CUDA" is the NVIDIA arm
        ("cmake/GpuSetup.cmake", 8, "BLD001", "handled", "cmake/GpuSetup.cmake:4"),
        ("cmake/GpuSetup.cmake", 9, "BLD007", "handled", "cmake/GpuSetup.cmake:4"),
        # HIP_PLATFORM STREQUAL "nvcc": HIP on NVIDIA, whose else() is the AMD arm
        ("cmake/GpuSetup.cmake", 11, "BLD007", "handled", "cmake/GpuSetup.cmake:11"),
        ("cmake/GpuSetup.cmake", 12, "LIB004", "handled", "cmake/GpuSetup.cmake:11"),
        # the Find module runs only from the USE_CUDA AND USE_NCCL arm
        ("cmake/Modules/Findnccl.cmake", 3, "LIB004", "handled", "cmake/Deps.cmake:2"),
        ("cmake/Modules/Findnccl.cmake", 3, "LIB004", "handled", "cmake/Deps.cmake:2"),
        # the CUDA component whose sibling src/comm/rccl the ROCm build builds
        ("src/comm/cuda/comm_cuda.c", 1, "API005", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda.c", 2, "LIB002", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda.c", 4, "API001", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda.c", 4, "API001", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda.c", 5, "API002", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda_kernel.cu", 3, "KRN001", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda_kernel.cu", 5, "DEV011", "handled", "src/comm/rccl/Makefile.am:1"),
        ("src/comm/cuda/comm_cuda_kernel.cu", 5, "DEV002", "handled", "src/comm/rccl/Makefile.am:1"),
        # a CUDA directory with no ROCm twin: open
        ("src/kernels/cuda/reduce.cuh", 2, "API006", "open", None),
        # an NVIDIA-only component with no ROCm sibling (src/offload/cpu is no vendor's): open
        ("src/offload/nvls/offload_nvls.c", 1, "API005", "open", None),
        ("src/offload/nvls/offload_nvls.c", 3, "API001", "open", None),
        ("src/offload/nvls/offload_nvls.c", 4, "API002", "open", None),
        # the twin directory src/templates/hip
        ("src/templates/cuda/scan.h", 2, "API006", "handled", "src/templates/hip/"),
    ]


def test_without_the_rocm_counterparts_the_same_lines_stay_open(tmp_path):
    root = tmp_path / "dualbuild"
    shutil.copytree(FIXTURE, root)
    # CUDA enabled for every build, no hip arm, no rccl component, no hip templates, no ROCm group in Deps.cmake
    (root / "CMakeLists.txt").write_text((FIXTURE / "CMakeLists.txt").read_text().replace(
        "project(dualbuild VERSION 0.1)", "project(dualbuild VERSION 0.1 LANGUAGES CXX CUDA)"))
    (root / "cmake/Deps.cmake").write_text("if(USE_CUDA AND USE_NCCL)\n    find_package(nccl REQUIRED)\nendif()\n")
    shutil.rmtree(root / "src/comm/rccl")
    shutil.rmtree(root / "src/templates/hip")
    result = _result(root)
    got = {(f.path, f.line, f.rule): (str(f.status), f.handled_by) for f in result.findings}
    assert [(k.name, str(k.status)) for k in result.kernels] == [("comm_sum", "open")]
    assert got[("CMakeLists.txt", 15, "BLD004")] == ("open", None)
    assert got[("cmake/Modules/Findnccl.cmake", 3, "LIB004")] == ("open", None)
    assert got[("src/comm/cuda/comm_cuda.c", 5, "API002")] == ("open", None)
    assert got[("src/templates/cuda/scan.h", 2, "API006")] == ("open", None)
    # the platform tests inside ENABLE_HIP still decide their own arms
    assert got[("cmake/GpuSetup.cmake", 12, "LIB004")] == ("handled", "cmake/GpuSetup.cmake:11")


def test_cmake_language_spans_enables_and_switches():
    text = (FIXTURE / "CMakeLists.txt").read_text()
    # the CUDA-language expression on line 15 (columns 6-63, after its quote); the CXX one on line 14 is not
    assert cuda_language_spans(text) == [(15, 6, 15, 64)]
    assert cuda_language_spans('x("$<$<NOT:$<COMPILE_LANGUAGE:CUDA>>:-pthread>")\n') == []
    assert cuda_language_spans("$<$<BUILD_INTERFACE:$<COMPILE_LANGUAGE:CUDA>>:-Xcompiler=-a> $<$<COMPILE_LANGUAGE:CXX>:-b>\n") \
        == [(1, 1, 1, 61)]
    cmds = cmake_commands(text)
    _refs, regions = cmake_references("CMakeLists.txt", text)
    assert cuda_variants(cmds) == frozenset({"APP_GPU"})
    assert cuda_language_enables(cmds, regions) == [(7, "cuda", 6), (9, "cuda", 6)]
    assert cmake_module_uses(cmds) == [(17, "GpuSetup.cmake"), (18, "Deps.cmake")]
    setup = cmake_commands((FIXTURE / "cmake/GpuSetup.cmake").read_text())
    assert neutral_switches(setup) == frozenset({"ENABLE_HIP"})
    # a ROCm switch whose first arm holds only ROCm code stays a ROCm test
    assert neutral_switches(cmake_commands("if(USE_HIP)\n enable_language(HIP)\nelse()\n enable_language(CUDA)\nendif()\n")) \
        == frozenset()


def test_automake_components_and_their_twins():
    assert automake_components("src/comm/cuda/Makefile.am", (FIXTURE / "src/comm/cuda/Makefile.am").read_text()) == [
        ("src/comm/cuda", "cuda", "src/comm/cuda/Makefile.am:2")]
    # SUBDIRS a vendor arm alone adds; `if !HAVE_ROCM` is the other side's
    text = "SUBDIRS = cpu\nif HAVE_CUDA\nSUBDIRS += cuda\nendif\nif !HAVE_ROCM\nSUBDIRS += nv\nelse\nSUBDIRS += rocm\nendif\n"
    assert automake_components("ec/Makefile.am", text) == [
        ("ec/cuda", "cuda", "ec/Makefile.am:2"), ("ec/nv", "cuda", "ec/Makefile.am:5"),
        ("ec/rocm", "rocm", "ec/Makefile.am:5")]
    assert automake_components("x/Makefile.am", (FIXTURE / "src/offload/cpu/Makefile.am").read_text()) == []
    paths = ["a/cuda/k.cu", "a/rocm/k.cpp", "b/nccl/t.c", "b/rccl/t.c", "c/nvls/n.c", "c/cpu/n.c", "d/cuda/x.cu"]
    comps = [("b/nccl", "cuda", "b/nccl/Makefile.am:1"), ("b/rccl", "rocm", "b/rccl/Makefile.am:1"),
             ("c/nvls", "cuda", "c/nvls/Makefile.am:1")]
    assert component_twins(paths, comps) == {
        "a/cuda": ("a/rocm/", "a/cuda/ is named for CUDA"),
        "b/nccl": ("b/rccl/Makefile.am:1", "b/nccl/Makefile.am:1")}


def test_a_directory_named_for_nvidia_is_the_twin_of_its_sibling_named_for_amd(tmp_path):
    paths = ["rt/backend/_nvidia/__init__.py", "rt/backend/_amd/__init__.py", "ops/nvidia/k.py", "ops/cpu/k.py",
             "x/NVIDIA-tools/a.py", "x/AMD-tools/a.py", "q/cutlass_extensions/g.cu", "q/ck_extensions/g.hip",
             "k/cutlass_kernels/m.cu", "k/cuda_kernels/m.cu", "c/nccl/t.cu", "c/rccl/t.cpp"]
    assert component_twins(paths) == {
        "c/nccl": ("c/rccl/", "c/nccl/ is named for CUDA"),
        "q/cutlass_extensions": ("q/ck_extensions/", "q/cutlass_extensions/ is named for CUDA"),
        "rt/backend/_nvidia": ("rt/backend/_amd/", "rt/backend/_nvidia/ is named for CUDA"),
        # ops/nvidia has no AMD sibling, k/cutlass_kernels none for ROCm (cuda_kernels is CUDA's too)
        "x/NVIDIA-tools": ("x/AMD-tools/", "x/NVIDIA-tools/ is named for CUDA")}
    # FlagGems' vendor backends, one loaded at run time by the device found: the NVIDIA one's nvidia-smi is handled
    for d, tool in (("_nvidia", "nvidia-smi"), ("_amd", "rocm-smi")):
        (tmp_path / "rt" / "backend" / d).mkdir(parents=True)
        (tmp_path / "rt" / "backend" / d / "__init__.py").write_text(
            f'import subprocess\n\ndevice_query_cmd = "{tool}"\nout = subprocess.run(["{tool}"])\n')
    result = _result(tmp_path)
    rows = sorted({(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                   if str(f.severity) != "info"})
    assert rows and all(r[0].startswith("rt/backend/_nvidia/") for r in rows)
    assert {r[3:] for r in rows} == {("handled", "rt/backend/_amd/")}


def test_a_python_module_named_for_cuda_twins_the_module_named_for_rocm_beside_it():
    paths = ["attn/cuda.py", "attn/rocm.py", "attn/flashinfer.py", "plat/backend_nvidia.py", "plat/backend_amd.py",
             "k/ops_cuda.py", "k/ops_hip.cpp", "m/kernel_cuda.cu", "m/kernel_hip.py", "n/cuda_utils.py"]
    # a Python module pairs with a Python module only; one without a ROCm sibling has no twin
    assert source_twins(paths) == {"attn/cuda.py": "attn/rocm.py", "plat/backend_nvidia.py": "plat/backend_amd.py"}


def test_a_directory_only_the_cuda_arm_adds_is_the_cuda_builds_inside_one_both_add(tmp_path):
    # deepmd-kit's shape: lib/ adds src/gpu from both builds' arms and globs src/*.cc; src/gpu adds cudart only in
    # its CUDA arm. Nothing from lib/ reaches into src/gpu/cudart: its files are the CUDA build's.
    (tmp_path / "lib" / "src" / "gpu" / "cudart").mkdir(parents=True)
    (tmp_path / "lib" / "CMakeLists.txt").write_text(
        "file(GLOB SRC src/*.cc)\nadd_library(lib ${SRC})\nif(USE_CUDA_TOOLKIT)\n  add_subdirectory(src/gpu)\n"
        "elseif(USE_ROCM_TOOLKIT)\n  add_subdirectory(src/gpu)\nendif()\n")
    (tmp_path / "lib" / "src" / "a.cc").write_text("int a() { return 0; }\n")
    (tmp_path / "lib" / "src" / "gpu" / "CMakeLists.txt").write_text(
        "if(USE_CUDA_TOOLKIT)\n  add_subdirectory(cudart)\nelseif(USE_ROCM_TOOLKIT)\n  add_library(g k.hip)\nendif()\n")
    (tmp_path / "lib" / "src" / "gpu" / "cudart" / "CMakeLists.txt").write_text(
        "get_property(L TARGET CUDA::cudart PROPERTY IMPORTED_LOCATION)\nadd_library(stub cudart_stub.cc)\n")
    (tmp_path / "lib" / "src" / "gpu" / "cudart" / "cudart_stub.cc").write_text(
        '#include "cuda_runtime_api.h"\nvoid* p = (void*)&cudaMalloc;\n')
    rows = sorted({(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in _result(tmp_path).findings
                   if "cudart" in f.path})
    assert rows == [("lib/src/gpu/cudart/CMakeLists.txt", 1, "LIB004", "handled", "lib/src/gpu/CMakeLists.txt:1"),
                    ("lib/src/gpu/cudart/cudart_stub.cc", 1, "API005", "handled", "lib/src/gpu/CMakeLists.txt:1"),
                    ("lib/src/gpu/cudart/cudart_stub.cc", 2, "API001", "handled", "lib/src/gpu/CMakeLists.txt:1")]
