"""Red team, session 12: a file CMake compiles as CUDA because the build says so, whatever its name.

`set_source_files_properties(k.kern PROPERTIES LANGUAGE CUDA)` + `add_library(k STATIC k.kern)`: CMake 3.25 with nvcc
built it ("Building CUDA object CMakeFiles/k.dir/k.kern.o"), but porter scans by extension and never read k.kern, so a
pull request could put its kernel there past `scan --fail-on`. A source a CMake file marks LANGUAGE CUDA (or a
`set_property(SOURCE ... PROPERTY LANGUAGE CUDA)`) is now read as C/C++/CUDA, as a quoted `#include` of an unknown
extension already is.
"""
from __future__ import annotations

import json

from helpers import make_repo, porter_here

KERNEL = """__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[0] = v;
}
"""
CMAKE = ("cmake_minimum_required(VERSION 3.18)\nproject(x LANGUAGES CXX CUDA)\n"
         "set_source_files_properties(k.kern other.cpp PROPERTIES COMPILE_FLAGS -O2 LANGUAGE CUDA)\n"
         "set_property(SOURCE gen/b.body PROPERTY LANGUAGE CUDA)\n"
         "# set_source_files_properties(commented.kern PROPERTIES LANGUAGE CUDA)\n"
         "set_source_files_properties(host.kern PROPERTIES LANGUAGE CXX)\n"
         "add_library(k STATIC k.kern gen/b.body)\n")


def test_sources_cmake_compiles_as_cuda_are_scanned_whatever_their_names(tmp_path):
    repo = make_repo(tmp_path / "r", {"src/CMakeLists.txt": CMAKE, "src/k.kern": KERNEL, "src/gen/b.body": KERNEL,
                                      "src/commented.kern": KERNEL, "src/host.kern": KERNEL})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    doc = json.loads(p.stdout)
    assert sorted({f["path"] for f in doc["findings"] if f["rule"] == "DEV002"}) == ["src/gen/b.body", "src/k.kern"]
