"""Kernel verdicts for code no ROCm port has to touch (issue 27, session 24, helper dk28): a header no source of a
setup.py-only extension repository includes (no build compiles it), and an OptiX program whose project has a HIP RT
back end beside it. fixtures/kverdict_s24 holds one small repository per shape, each beside a near miss."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.status import header_names

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/kverdict_s24"
WHY = "no build compiles it: setup.py lists the package's sources and none of them includes it"


def _run(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    kernels = [(k.path, k.name, str(k.status), k.handled_by, k.verdict_on("mi300x").verdict) for k in result.kernels]
    findings = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]
    return kernels, findings


def test_header_names_are_the_file_names_a_text_spells():
    assert header_names('srcs = ["kernels/jit.cuh", "x.cu"]  # norm.h') == {"jit.cuh", "norm.h"}


def test_a_header_no_source_includes_is_built_by_nothing():
    kernels, findings = _run(FIXTURE / "pyext")
    assert kernels == [
        # named in setup.py's package_data: it may be compiled at run time, so it stays open
        ("pkg/kernels/jit.cuh", "jit_sum", "open", None, "fix"),
        # only a commented-out include names it
        ("pkg/kernels/orphan.cuh", "orphan_sum", "cuda-only", WHY, "ok"),
        ("pkg/kernels/used.cuh", "scale", "open", None, "fix"),
    ]
    assert [f for f in findings if f[0] == "pkg/kernels/orphan.cuh"] == [
        ("pkg/kernels/orphan.cuh", 3, "KRN001", "cuda-only", WHY),
        ("pkg/kernels/orphan.cuh", 5, "DEV002", "cuda-only", WHY),
    ]


def test_a_repository_with_a_cmake_build_keeps_its_headers_open(tmp_path):
    root = tmp_path / "pyext"
    shutil.copytree(FIXTURE / "pyext", root)
    # a setup.py that runs a CMake build of the library: a library's headers are its interface, its users include
    # them (a CMakeLists.txt setup.py never runs is a side build, and the reading holds there)
    setup = root / "setup.py"
    setup.write_text(setup.read_text() + "\nimport subprocess\nsubprocess.check_call([\"cmake\", \".\"])\n")
    (root / "CMakeLists.txt").write_text("project(pyext LANGUAGES CXX CUDA)\nadd_library(pyext pkg/ops/ops.cu)\n")
    kernels, _findings = _run(root)
    assert ("pkg/kernels/orphan.cuh", "orphan_sum", "open", None, "fix") in kernels


def test_optix_programs_beside_a_hip_rt_back_end_are_ported():
    kernels, findings = _run(FIXTURE / "raytrace")
    assert [k for k in kernels if "optix" in k[0]] == [
        ("src/device/optix/programs.cu", "__raygen__camera", "handled", "src/device/hiprt/", "ok"),
        ("src/device/optix/programs.cu", "__anyhit__skip", "handled", "src/device/hiprt/", "ok"),
    ]
    assert ("src/device/optix/programs.cu", 1, "LIB003", "handled", "src/device/hiprt/") in findings


def test_optix_programs_beside_a_plain_hip_back_end_stay_rewrites(tmp_path):
    root = tmp_path / "raytrace"
    shutil.copytree(FIXTURE / "raytrace", root)
    # a HIP back end without ray tracing of its own: the OptiX programs still have to be written on HIP RT
    (root / "src/device/hiprt").rename(root / "src/device/hip")
    kernels, _findings = _run(root)
    assert [k for k in kernels if "optix" in k[0]] == [
        ("src/device/optix/programs.cu", "__raygen__camera", "handled", "src/device/hip/", "rewrite"),
        ("src/device/optix/programs.cu", "__anyhit__skip", "handled", "src/device/hip/", "rewrite"),
    ]


def test_an_object_like_macro_naming_launch_bounds_declares_no_function(tmp_path):
    from porter.source.parse_input import harvest_macros

    assert harvest_macros(b"#define MY_LAUNCH_BOUNDS __launch_bounds__\n") == {"MY_LAUNCH_BOUNDS(*)": "__launch_bounds__(...)"}
    (tmp_path / "k.cu").write_text(
        "#define MY_LAUNCH_BOUNDS __launch_bounds__\n\ntemplate <int MAX_THREADS, typename BODY>\n__global__\n"
        "MY_LAUNCH_BOUNDS(MAX_THREADS)\nstatic void Kernel3D(const int N, BODY body)\n"
        "{\n   for (int k = blockIdx.x; k < N; k += gridDim.x) { body(k); }\n}\n")
    kernels, _findings = _run(tmp_path)
    assert kernels == [("k.cu", "Kernel3D", "open", None, "ok")]
