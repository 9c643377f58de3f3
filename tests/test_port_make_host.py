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
    assert make[i:i + 12] == [
        "ifeq ($(USE_ROCM),1)", "export HIP_PLATFORM := amd", "NVCC := hipcc -DUSE_ROCM",
        "PORTER_LIB_CUDART := -lamdhip64",
        "CPPFLAGS += -DUSE_ROCM $(shell HIP_PLATFORM=amd hipconfig --cpp_config)",
        "CXXFLAGS += -DUSE_ROCM $(shell HIP_PLATFORM=amd hipconfig --cpp_config)",
        "PORTER_X_NONE := -x none",
        "else", "PORTER_LIB_CUDART := -lcudart", "PORTER_X_NONE :=", "endif", "all: app"]
    # hipcc 5.2 puts `-x hip` before k.cu and nothing after it: host.o would be compiled as HIP source
    assert make[-1] == "\t$(NVCC) -O2 -o app k.cu $(PORTER_X_NONE) host.o $(PORTER_LIB_CUDART) $(LDFLAGS)"
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


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("g++") is None or shutil.which("hipcc") is None,
                    reason=f"needs make, {NEEDS['g++']}, and {NEEDS['hipcc']}")
def test_make_use_rocm_links_the_object_after_the_kernel_source(ported):
    """The recipe `$(NVCC) -O2 -o app k.cu host.o`: with hipcc 5.2.3 and no `-x none` before host.o, clang reads the
    object file as HIP source ("missing terminating ' character", 10 errors); the port's line links."""
    assert subprocess.run(["make", "-n", "app"], cwd=ported, capture_output=True, text=True, check=True
                          ).stdout.splitlines()[-1] == "nvcc -O2 -o app k.cu  host.o -lcudart "  # empty on CUDA
    r = subprocess.run(["make", "USE_ROCM=1", "app", "NVCC=hipcc -DUSE_ROCM --offload-arch=gfx90a"], cwd=ported,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (ported / "app").stat().st_size > 0


DLP = """\
#include "cuda_runtime.h"
#include "device_launch_parameters.h"
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
void run(float* d) { k<<<1, 64>>>(d); }
"""


def _dlp_repo(tmp_path):
    repo = tmp_path / "d"
    repo.mkdir(parents=True)
    (repo / "a.cu").write_text(DLP)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "cuda")
    return repo


def test_a_dropped_header_gets_no_include_on_the_rocm_side(tmp_path):
    """Visual Studio's `device_launch_parameters.h` has no HIP header (HIP's runtime declares threadIdx): the port
    wrote `#else #include <none>`, and every unit failed to compile as a porter defect."""
    repo = _dlp_repo(tmp_path)
    r = porter_here("port", str(repo), "--apply")
    assert r.returncode == 0, r.stderr
    assert (repo / "a.cu").read_text().splitlines()[:5] == [
        '#include "porter_hip_compat.h"  /* porter port: CUDA names mapped to HIP for the ROCm build */',
        "#if !(defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM))", '#include "cuda_runtime.h"',
        '#include "device_launch_parameters.h"', "#endif"]


def test_verify_fails_the_command_on_a_porter_defect_only(tmp_path, monkeypatch):
    """`port --apply --verify` exits 1 when a unit failed where porter's port is wrong (a defect), 0 when the only
    failures are predicted open work or this machine's environment."""
    from typer.testing import CliRunner

    from porter.cli import app
    from porter.port import verify
    from porter.port.verify import Compile

    def fake(cause):
        def verify_tree(root, units, findings, build=None, **kw):
            return [Compile("hipcc-gfx90a", "a.cu", "failed", "x", cause, "a.cu:1: error")], []
        return verify_tree

    for cause, code in (("defect", 1), ("predicted", 0), ("environment", 0)):
        repo = _dlp_repo(tmp_path / cause)
        monkeypatch.setattr(verify, "verify_tree", fake(cause))
        r = CliRunner().invoke(app, ["port", str(repo), "--apply", "--verify"])
        assert (cause, r.exit_code) == (cause, code), r.output
