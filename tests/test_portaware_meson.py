"""Port status reads Meson's vendor conditionals (https://mesonbuild.com/Syntax.html#if-statements) as it reads
make's `ifeq` and CMake's `if()`: a CUDA arm beside a ROCm arm is handled by that arm; a CUDA-only switch in a file
with a ROCm arm stays open, and a meson.build with no ROCm test says nothing about a port."""
from __future__ import annotations

import json

from helpers import porter_here, write_files
from porter.portaware.scope import meson_conditional_regions

MESON = """\
project('app', 'cpp')
backend = get_option('backend')
if backend == 'cuda'
  add_languages('cuda')
  cuda_dep = dependency('cuda', modules: ['cublas'])
  add_project_arguments('-arch=sm_80', language: 'cuda')
elif backend == 'hip'  # the ROCm arm
  hip_dep = dependency('hip')
endif
if get_option('profiling')
  add_languages('cuda')
endif
if not get_option('rocm')
  nv = dependency('cuda')
else
  amd = dependency('hip')
endif
"""


def test_meson_arms_by_vendor():
    assert meson_conditional_regions(MESON) == [(4, 6, "cuda", 3), (8, 8, "rocm", 3), (14, 14, "cuda", 13),
                                                (16, 16, "rocm", 13)]
    cuda_only = "if get_option('cuda')\n  add_languages('cuda')\nendif\n"
    assert meson_conditional_regions(cuda_only) == []
    # a '#' inside a string is no comment; a comment naming hip decides nothing
    assert meson_conditional_regions("if x == 'a#b'  # hip\n  y = 1\nendif\n") == []


def test_meson_cuda_arm_is_handled_by_its_rocm_arm(tmp_path):
    write_files(tmp_path / "t", {"meson.build": MESON, "k.cu": "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n"})
    r = porter_here("scan", str(tmp_path / "t"), "--no-cache", "--format", "json")
    assert r.returncode == 0, r.stderr
    got = [(f["rule"], f["line"], f["status"], f["handled_by"]) for f in json.loads(r.stdout)["findings"]
           if f["path"] == "meson.build"]
    assert got == [("BLD014", 4, "handled", "meson.build:3"), ("BLD015", 5, "handled", "meson.build:3"),
                   ("LIB004", 5, "handled", "meson.build:3"), ("BLD005", 6, "handled", "meson.build:3"),
                   ("BLD014", 11, "open", None), ("BLD015", 14, "handled", "meson.build:13")]
