"""A make configuration fragment beside the project's ROCm one is the CUDA build's (issue 27, session 28, l37):
ludwig's config/unix-nvcc-default.mk beside config/unix-hipcc.mk. See fixtures/configs_s28/README.md."""

from __future__ import annotations

from pathlib import Path

from porter.portaware.scope import make_rocm_configuration
from porter.portaware.status import configuration_twins

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/configs_s28"


def test_each_configs_s28_finding_has_its_exact_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    got = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]
    assert got == [
        ("config/old/cluster-gpu.mk", 2, "BLD007", "handled", "config/unix-hipcc.mk"),
        ("config/old/cluster-gpu.mk", 3, "BLD005", "handled", "config/unix-hipcc.mk"),
        ("config/unix-hipcc-nvidia.mk", 3, "BLD005", "handled", "config/unix-hipcc.mk"),
        ("config/unix-hipcc-nvidia.mk", 4, "BLD005", "handled", "config/unix-hipcc.mk"),
        ("config/unix-nvcc.mk", 2, "BLD007", "handled", "config/unix-hipcc.mk"),
        ("config/unix-nvcc.mk", 3, "BLD007", "handled", "config/unix-hipcc.mk"),
        ("config/unix-nvcc.mk", 4, "BLD005", "handled", "config/unix-hipcc.mk"),
        ("config/unix-nvcc.mk", 5, "BLD005", "handled", "config/unix-hipcc.mk"),
        ("gpu.mk", 1, "BLD007", "open", None),
        ("other/gpu.mk", 2, "BLD007", "open", None),
        ("other/gpu.mk", 3, "BLD005", "open", None),
    ]


def test_make_rocm_configuration_needs_a_rocm_value_and_no_nvidia_target():
    assert make_rocm_configuration("CC = hipcc\nCFLAGS = -x hip -fgpu-rdc\n")
    assert make_rocm_configuration("CXX := amdclang++\n")
    assert make_rocm_configuration("FLAGS += --offload-arch=gfx942\n")
    assert not make_rocm_configuration("# use hipcc on AMD\nCC = gcc\n")  # only in a comment
    assert make_rocm_configuration("CC = hipcc  # not nvcc\nCFLAGS = -O2\n")  # a comment may name nvcc
    assert not make_rocm_configuration("CC = hipcc\nCFLAGS = -arch=sm_70\n")  # HIP on the NVIDIA platform
    assert not make_rocm_configuration("CC = hipcc\nCFLAGS = -D__HIP_PLATFORM_NVCC__\n")
    assert not make_rocm_configuration("CC = hipcc\nNV = nvcc\n")
    assert not make_rocm_configuration("hip: a.hip\n\thipcc -o $@ $<\n")  # a recipe, no assignment


def test_configuration_twins_look_in_the_directory_then_its_parent_never_the_root():
    rocm = ["config/a-hipcc.mk", "config/z-hipcc.mk", "hip.mk", "x/y/rocm.mk"]
    paths = ["config/nv.mk", "config/old/nv.mk", "config/a-hipcc.mk", "other/nv.mk", "nv.mk", "x/y/z/w/nv.mk",
             "config/Makefile"]
    assert configuration_twins(paths, rocm) == {
        "config/nv.mk": "config/a-hipcc.mk",       # the first by path in its own directory
        "config/old/nv.mk": "config/a-hipcc.mk",   # its parent's
        "config/a-hipcc.mk": "config/z-hipcc.mk",  # never itself
        "nv.mk": "hip.mk",                         # a root fragment: its own directory's
        # other/nv.mk: its parent is the root; x/y/z/w/nv.mk: two levels down; config/Makefile: no fragment
    }
