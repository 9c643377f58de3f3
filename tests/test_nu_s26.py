"""Session 26, helper nu: numbers a new user found wrong on public projects, each fixed by one mechanism.
fixtures/nu_s26 holds the repositories (written here); near misses are built from them in tmp_path."""
from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/nu_s26"


def _run(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    findings = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]
    kernels = [(k.path, k.name, str(k.status), k.handled_by) for k in result.kernels]
    return findings, kernels, result.stats.notices


_MINER = "src/backend/nvidia/miner.cu"


def test_an_amd_named_opencl_backend_ports_nothing_of_the_cuda_backend():
    findings, kernels, notices = _run(FIXTURE / "oclbackend")
    assert [(f[1], f[2], f[3]) for f in findings if f[0] == _MINER] == [
        (1, "API005", "open"), (3, "KRN001", "open"), (12, "API001", "open"), (13, "API001", "open"),
        (13, "API001", "open"), (14, "KRN002", "open"), (15, "API001", "open"), (15, "API001", "open"),
        (16, "API001", "open")]
    assert kernels == [(_MINER, "hash_step", "open", None)]
    assert notices == ("src/backend/amd/ is named for AMD but is OpenCL code (src/backend/amd/miner.hpp:3), not a "
                       "HIP/ROCm port: its CUDA counterpart's findings stay open",)


def test_an_amd_named_hip_backend_still_handles_the_cuda_backend(tmp_path):
    root = tmp_path / "hipbackend"
    shutil.copytree(FIXTURE / "oclbackend", root)
    hpp = root / "src/backend/amd/miner.hpp"
    hpp.write_text(hpp.read_text().replace("#include <CL/cl.h>", "#include <CL/cl.h>\n#include <hip/hip_runtime.h>"))
    findings, _kernels, notices = _run(root)
    mine = [f for f in findings if f[0] == _MINER]
    assert len(mine) == 9 and all(f[3:] == ("handled", "src/backend/amd/") for f in mine)
    assert notices == ()


_BURN_CMAKE = [("win/CMakeLists.txt", 2, "BLD001", "open", None), ("win/CMakeLists.txt", 3, "BLD004", "open", None),
               ("win/CMakeLists.txt", 3, "BLD005", "open", None), ("win/CMakeLists.txt", 4, "BLD004", "open", None),
               ("win/CMakeLists.txt", 4, "BLD004", "open", None)]


def test_a_make_test_for_the_cuda_toolkit_is_no_rocm_guard():
    from porter.portaware.scope import make_conditional_regions

    findings, _kernels, _notices = _run(FIXTURE / "toolkittest")
    assert [f for f in findings if f[0] == "Makefile"] == [
        ("Makefile", 1, "BLD007", "open", None), ("Makefile", 3, "BLD007", "open", None),
        ("Makefile", 7, "BLD007", "open", None), ("Makefile", 8, "BLD004", "open", None),
        ("Makefile", 9, "BLD004", "open", None), ("Makefile", 9, "BLD005", "open", None),
        ("Makefile", 12, "LIB004", "open", None)]
    assert [f for f in findings if f[0] == "win/CMakeLists.txt"] == _BURN_CMAKE
    # the quoted operands inside the parentheses are a wildcard's emptiness test, not a ROCm test
    assert make_conditional_regions((FIXTURE / "toolkittest/Makefile").read_text()) == []
    assert make_conditional_regions('ifeq ("$(BACKEND)", "hip")\nHIPCC := hipcc\nelse\nNVCC := nvcc\nendif\n') == [
        (2, 2, "rocm", 1), (4, 4, "cuda", 1)]


def test_a_makefile_rocm_arm_handles_its_own_nvcc_flags_only(tmp_path):
    root = tmp_path / "burn"
    shutil.copytree(FIXTURE / "toolkittest", root)
    mk = root / "Makefile"
    mk.write_text(mk.read_text() + "\nifdef USE_HIP\nHIPCC := hipcc\nendif\n")
    findings, _kernels, _notices = _run(root)
    assert [f for f in findings if f[0] == "Makefile" and f[2] in ("BLD004", "BLD005")] == [
        ("Makefile", 8, "BLD004", "handled", "Makefile:15"), ("Makefile", 9, "BLD004", "handled", "Makefile:15"),
        ("Makefile", 9, "BLD005", "handled", "Makefile:15")]
    assert [f for f in findings if f[0] == "win/CMakeLists.txt"] == _BURN_CMAKE


def test_a_cuda_macro_tested_with_its_hip_one_and_a_cuda_ci_job_beside_its_rocm_twin_are_handled():
    findings, _kernels, _notices = _run(FIXTURE / "dualci")
    assert findings == [
        (".github/workflows/ci.yml", 13, "CTR008", "handled", ".github/workflows/ci.yml:18"),
        ("src/runtime.hpp", 3, "API005", "open", None),
        ("src/view.hpp", 3, "API001", "handled", "src/view.hpp:3"),
        ("src/view.hpp", 11, "API001", "handled", "src/view.hpp:11"),
        ("src/view.hpp", 16, "API001", "handled", "src/view.hpp:16")]


def test_without_the_hip_macro_or_the_rocm_job_they_stay_open(tmp_path):
    from porter.portaware.runners import ci_job_twins

    root = tmp_path / "dualci"
    shutil.copytree(FIXTURE / "dualci", root)
    view = root / "src/view.hpp"
    view.write_text(view.read_text().replace("defined(__HIPCC__)", "defined(APP_GPU_HOST)"))
    ci = root / ".github/workflows/ci.yml"
    ci.write_text(ci.read_text().split("\n  build-rocm:")[0] + "\n")
    findings, _kernels, _notices = _run(root)
    assert findings[0] == (".github/workflows/ci.yml", 13, "CTR008", "open", None)
    assert [f for f in findings if f[0] == "src/view.hpp" and f[1] in (3, 11)] == [
        ("src/view.hpp", 3, "API001", "open", None), ("src/view.hpp", 11, "API001", "open", None)]
    assert ci_job_twins(ci.read_text()) == []
    # a GitLab file's top-level jobs pair the same way; its keywords are no jobs
    assert ci_job_twins("stages: [build]\ntest-nvidia:\n  image: nvidia/cuda:12.4.1-base\n  script: [make]\n"
                        "test-amd:\n  image: rocm/dev-ubuntu-22.04\n  script: [make]\n") == [(2, 4, 5)]


def _pr_with_cuda_kernel(tmp_path: Path, twin: bool = True) -> Path:
    """A git repository at the prtwin fixture, and one commit on top that adds the CUDA kernel under `if(LIB_CUDA)`
    (with `twin=False`, under another name: a kernel the ROCm side has no version of)."""
    from helpers import git

    root = tmp_path / "repo"
    shutil.copytree(FIXTURE / "prtwin", root)
    staged = root / "src/kernels/cuda/scale_rows.cu.pr"
    text = staged.read_text()
    staged.unlink()
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    name = "scale_rows" if twin else "col_absmax"
    (root / f"src/kernels/cuda/{name}.cu").write_text(text if twin else text.replace("scale_rows", name))
    cm = root / "CMakeLists.txt"
    cm.write_text(cm.read_text() + f"\nif(LIB_CUDA)\n  enable_language(CUDA)\n"
                  f"  target_sources(lib PRIVATE src/kernels/cuda/{name}.cu)\nendif()\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "cuda kernel")
    return root


def _pr_run(tmp_path: Path, twin: bool):
    from porter.pipeline import run_diff
    from porter.render.pr_comment import verdict_line
    from porter.settings import Settings

    r = run_diff(_pr_with_cuda_kernel(tmp_path, twin), Settings(jobs=1, cache_dir=None, targets=("mi355x",)),
                 new_since="main")
    line = verdict_line(list(r.diff.new), len(r.diff.fixed), list(r.diff.worse_kernels), r.result)
    files = sorted({(f.path, str(f.status), f.handled_by) for f in r.result.findings})
    return r, line, files


def test_a_pr_adding_the_cuda_twin_of_a_hip_kernel_adds_no_work(tmp_path):
    r, line, files = _pr_run(tmp_path, twin=True)
    # the ROCm build compiles kernels/rocm/scale_rows.hip in its own arm: the CUDA file is its twin's (sibling_twin)
    assert files == [("CMakeLists.txt", "handled", "CMakeLists.txt:12"),
                     ("src/kernels/cuda/scale_rows.cu", "handled", "src/kernels/rocm/scale_rows.hip")]
    assert [(k.path, str(k.status), k.handled_by) for k in r.result.kernels] == [
        ("src/kernels/cuda/scale_rows.cu", "handled", "src/kernels/rocm/scale_rows.hip")]
    assert r.diff.kernels == ()
    assert line.startswith("✅ **porter: no new CUDA-only code**")


def test_a_pr_adding_a_cuda_only_kernel_adds_no_kernel_that_needs_work(tmp_path):
    r, line, files = _pr_run(tmp_path, twin=False)
    assert files == [("CMakeLists.txt", "handled", "CMakeLists.txt:12"),
                     ("src/kernels/cuda/col_absmax.cu", "cuda-only", "CMakeLists.txt:12")]
    assert [k.to_dict() for k in r.diff.kernels] == [
        {"kernel": "col_absmax_kernel", "path": "src/kernels/cuda/col_absmax.cu", "line": 3, "target": "mi355x",
         "before": None, "after": "fix", "worse": False, "status": "cuda-only", "severity": "info"}]
    assert r.diff.worse_kernels == ()
    assert line.startswith("✅ **porter: no new CUDA-only code**")


def test_a_kernel_change_on_an_open_kernel_is_still_worse():
    from porter.diff import KernelChange

    assert KernelChange("k", "k.cu", 3, "mi355x", None, "fix").worse
    assert KernelChange("k", "k.cu", 3, "mi355x", "ok", "fix", "open").worse
    assert not KernelChange("k", "k.cu", 3, "mi355x", "ok", "fix", "cuda-only").worse
    assert not KernelChange("k", "k.cu", 3, "mi355x", None, "fix", "handled").worse


def test_a_version_test_around_constants_nothing_uses_drops_nothing():
    from porter.portaware.scope import unused_arm

    findings, _kernels, _notices = _run(FIXTURE / "unusedarm")
    assert [f for f in findings if f[2] == "DEV010"] == [
        ("src/flags.hpp", 6, "DEV010", "handled", "src/flags.hpp:7"),
        # StreamPriorityHigh is used by src/use.cpp; line 16 declares a function
        ("src/flags.hpp", 11, "DEV010", "open", None),
        ("src/flags.hpp", 15, "DEV010", "open", None)]
    lines = (FIXTURE / "unusedarm/src/flags.hpp").read_text().split("\n")
    assert unused_arm(lines, 7, 8) == ["MemoryTypeUnregistered", "MemoryTypeManaged"]
    assert unused_arm(lines, 16, 16) is None
