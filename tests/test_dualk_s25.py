"""Dual CUDA/ROCm projects, session 25 (helper dualk, issue 27): a component pairing does not close a finding its
ROCm counterpart shares. fixtures/dualk_s25 holds the repositories; near misses are built from them here."""
from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/dualk_s25"


def _run(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    kernels = [(k.path, k.name, str(k.status), k.handled_by, k.verdict_on("mi300x").verdict) for k in result.kernels]
    findings = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]
    return kernels, findings


def test_a_gap_the_counterpart_shares_stays_open():
    _kernels, findings = _run(FIXTURE / "sharedgap")
    assert [f for f in findings if f[0] == "src/device/optix/compat.h"] == [
        # <optix.h>: the HIP RT back end is what replaces it
        ("src/device/optix/compat.h", 2, "LIB003", "handled", "src/device/hiprt/"),
        # tex2D: hip/compat.h, which hiprt/kernel.cpp includes, reads images with tex2D too
        ("src/device/optix/compat.h", 8, "DEV020", "open", None),
    ]
    # the ROCm side's own copy is decided as before (a ROCm file by place)
    assert ("src/device/hip/compat.h", 8, "DEV020", "handled", "src/device/hip/") in findings


def test_a_counterpart_without_the_construct_answers_it(tmp_path):
    root = tmp_path / "sharedgap"
    shutil.copytree(FIXTURE / "sharedgap", root)
    compat = root / "src/device/hip/compat.h"
    compat.write_text(compat.read_text().replace("typedef hipTextureObject_t image_object_2D;",
                                                 "typedef const float *image_object_2D;")
                      .replace("return tex2D<T>(obj, x, y);", "return obj[int(y) * 256 + int(x)];"))
    _kernels, findings = _run(root)
    assert ("src/device/optix/compat.h", 8, "DEV020", "handled", "src/device/hiprt/") in findings


def test_the_counterpart_reach_follows_rocm_side_includes_only(tmp_path):
    root = tmp_path / "sharedgap"
    shutil.copytree(FIXTURE / "sharedgap", root)
    # the same header moved out of the ROCm-named folder: a shared header, not the counterpart's own code
    (root / "src/device/common").mkdir()
    (root / "src/device/hip/compat.h").rename(root / "src/device/common/compat.h")
    kernel = root / "src/device/hiprt/kernel.cpp"
    kernel.write_text(kernel.read_text().replace("device/hip/compat.h", "device/common/compat.h"))
    _kernels, findings = _run(root)
    assert ("src/device/optix/compat.h", 8, "DEV020", "handled", "src/device/hiprt/") in findings


def test_an_env_script_cuda_variable_beside_its_rocm_twin_is_the_cuda_builds():
    _kernels, findings = _run(FIXTURE / "envscripts")
    assert findings == [
        # nvcc and -lcudart in APP_CUDA / APP_CUDA_LIB: the ROCm build reads APP_HIP / APP_HIP_LIB (lines 9, 10)
        ("env/setEnvCudaMachine.sh", 5, "BLD007", "handled", "env/setEnvCudaMachine.sh:9"),
        ("env/setEnvCudaMachine.sh", 6, "LIB004", "handled", "env/setEnvCudaMachine.sh:10"),
        # NVML needs its callers ported to AMD SMI: the twin variable does not answer that
        ("env/setEnvCudaMachine.sh", 6, "LIB005", "open", None),
        # no ROCm twin in the script: open
        ("env/setEnvCudaOnly.sh", 2, "BLD007", "open", None),
        ("env/setEnvCudaOnly.sh", 3, "LIB004", "open", None),
    ]


MAKE_WHY = "no build compiles it: mk/Makefile lists the sources it compiles and none of them includes it"


def test_a_source_no_makefile_names_is_compiled_by_no_build():
    kernels, findings = _run(FIXTURE / "makelist")
    assert kernels == [
        ("src/kern_cuda.cu", "warp_sum", "handled", "src/kern_hip.hip", "ok"),
        ("src/kern_hip.hip", "warp_sum", "handled", "src/kern_hip.hip", "ok"),
        # kern_old.o is in no object list of mk/Makefile (VPATH ../src): dead code, no target compiles it
        ("src/kern_old.cu", "old_sum", "cuda-only", MAKE_WHY, "ok"),
        # outside every directory the Makefile speaks for: unknown, so open
        ("tools/probe.cu", "probe", "open", None, "fix"),
    ]
    # a header only the unbuilt source includes is unbuilt too
    assert [f for f in findings if f[0] == "src/old_helpers.cuh"] == [
        ("src/old_helpers.cuh", 3, "DEV011", "cuda-only", MAKE_WHY),
        ("src/old_helpers.cuh", 3, "DEV002", "cuda-only", MAKE_WHY),
    ]


def _old_sum(root: Path) -> tuple:
    # a host launcher in its own file: the kernel is used, so only the build decides whether it is compiled
    # (a kernel nothing launches reads cuda-only whatever the build: porter.match.refine_unreferenced)
    src = root / "src/kern_old.cu"
    src.write_text(src.read_text() + "\nvoid run_old(const float *x, float *out) { old_sum<<<1, 32>>>(x, out); }\n")
    kernels, _findings = _run(root)
    return next(k for k in kernels if k[1] == "old_sum")


def test_an_open_ended_makefile_list_builds_everything_in_its_scope(tmp_path):
    root = tmp_path / "makelist"
    shutil.copytree(FIXTURE / "makelist", root)
    mk = root / "mk/Makefile"
    mk.write_text(mk.read_text().replace("CUDA_OBJ = kern_cuda.o", "CUDA_OBJ = $(notdir $(wildcard ../src/*.cu:.cu=.o))"))
    assert _old_sum(root)[2:] == ("open", None, "fix")


def test_a_script_compiling_sources_is_a_build_porter_does_not_read(tmp_path):
    root = tmp_path / "makelist"
    shutil.copytree(FIXTURE / "makelist", root)
    (root / "mk/old.sh").write_text("#!/bin/sh\nnvcc -c ../src/kern_old.cu -o kern_old.o\n")
    assert _old_sum(root)[2:] == ("open", None, "fix")
    # an assignment naming the compiler is no command
    (root / "mk/old.sh").write_text("#!/bin/sh\nexport APP_CUDA=nvcc\nmake -C mk BACKEND=cuda\n")
    assert _old_sum(root)[2] == "cuda-only"


def test_another_build_system_beside_the_makefile_keeps_it_open(tmp_path):
    root = tmp_path / "makelist"
    shutil.copytree(FIXTURE / "makelist", root)
    (root / "meson.build").write_text("project('app', 'cpp')\n")
    assert _old_sum(root)[2:] == ("open", None, "fix")


def test_a_makefile_speaks_for_its_own_folder_not_the_ones_below_it(tmp_path):
    root = tmp_path / "makelist"
    shutil.copytree(FIXTURE / "makelist", root)
    # a top-level Makefile that only drives mk/: tools/ is below it, but it names nothing there
    (root / "Makefile").write_text("all:\n\t$(MAKE) -C mk app\n")
    kernels, _findings = _run(root)
    assert ("tools/probe.cu", "probe", "open", None, "fix") in kernels
    assert _old_sum(root)[2] == "cuda-only"
