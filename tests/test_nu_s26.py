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
