"""`porter port` on a Makefile that compiles host units with the C++ compiler (`$(CXX) $(CXXFLAGS) -c host.cpp`): the
port guards their CUDA includes with USE_ROCM, so the ROCm branch hands that compiler USE_ROCM and HIP's host defines
(hipconfig --cpp_config); without it `make USE_ROCM=1` compiled the CUDA branch and stopped at <cuda_runtime.h>."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import NEEDS, git, porter_here

MAKEFILE = """\
NVCC ?= nvcc
CXX ?= g++
CXXFLAGS := -O2 -I.
CPPFLAGS := -DNDEBUG
all: app
host.o: host.cpp
\t$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c host.cpp -o host.o
app: k.cu host.o
\t$(NVCC) -O2 -o app k.cu host.o -lcudart $(LDFLAGS)
"""
HOST = """\
#include <cuda_runtime.h>
#include <cstdio>
void run(float* d, int n);
int main() {
  float* d;
  if (cudaMalloc(&d, 64 * sizeof(float)) != cudaSuccess) return 1;
  run(d, 64);
  (void)cudaDeviceSynchronize();
  (void)cudaFree(d);
  std::puts("ok");
  return 0;
}
"""
KERNEL = """\
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
void run(float* d, int n) { k<<<1, n>>>(d); }
"""


@pytest.fixture
def ported(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    for name, text in (("Makefile", MAKEFILE), ("host.cpp", HOST), ("k.cu", KERNEL)):
        (repo / name).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "cuda")
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    return repo


def test_the_rocm_branch_gives_the_host_compiler_use_rocm(ported):
    make = (ported / "Makefile").read_text().splitlines()
    i = make.index("ifeq ($(USE_ROCM),1)")
    assert make[i:i + 10] == [
        "ifeq ($(USE_ROCM),1)", "export HIP_PLATFORM := amd", "NVCC := hipcc -DUSE_ROCM",
        "PORTER_LIB_CUDART := -lamdhip64",
        "CPPFLAGS += -DUSE_ROCM $(shell HIP_PLATFORM=amd hipconfig --cpp_config)",
        "CXXFLAGS += -DUSE_ROCM $(shell HIP_PLATFORM=amd hipconfig --cpp_config)",
        "else", "PORTER_LIB_CUDART := -lcudart", "endif", "all: app"]
    assert (ported / "host.cpp").read_text().splitlines()[:4] == [
        '#include "porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */',
        "#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))", "#include <cuda_runtime.h>", "#endif"]


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("g++") is None or shutil.which("hipconfig") is None,
                    reason=f"needs make, {NEEDS['g++']}, and hipconfig ({NEEDS['hipcc']})")
def test_make_use_rocm_compiles_the_host_unit_with_gxx(ported):
    plain = subprocess.run(["make", "-n", "host.o"], cwd=ported, capture_output=True, text=True, check=True)
    assert plain.stdout.splitlines() == ["g++ -DNDEBUG -O2 -I. -c host.cpp -o host.o"]  # the CUDA build as it was
    r = subprocess.run(["make", "USE_ROCM=1", "host.o"], cwd=ported, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (ported / "host.o").stat().st_size > 0
