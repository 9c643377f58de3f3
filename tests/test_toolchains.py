"""Checks that the HIP and CUDA compilers documented in docs/toolchains.md really work on this machine."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

HIP_HEADER = Path("/usr/include/hip/hip_runtime.h")  # Debian libamdhip64-dev
DEVICE_LIBS = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")  # Debian rocm-device-libs
LLVM15_BIN = Path("/usr/lib/llvm-15/bin")  # llvm-15, pulled in by hipcc
# Every test here runs a compiler (hipcc, clang, nvcc): slow (`-m "not slow"` leaves them out; CI runs them).
pytestmark = pytest.mark.slow

HIP_KERNEL = """\
#include <hip/hip_runtime.h>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void reduce(const float* in, float* out, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, tile[0]);
}
"""

CUDA_KERNEL = """\
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void launch(int n, float a, const float* x, float* y) { saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y); }
"""

KERNELS = {"_Z5saxpyifPKfPf", "_Z6reducePKfPfi"}


def need(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} not found (Debian package {package}; scripts/bootstrap.sh installs it as root)")
    return path


def need_path(path: Path, package: str) -> None:
    if not path.exists():
        pytest.skip(f"{path} not found (Debian package {package}; scripts/bootstrap.sh installs it as root)")


def run(cmd: list[str], cwd: Path, **env: str) -> None:
    # TMPDIR inside the test's directory: hipcc and clang leave `<stem>-XXXXXX` directories there.
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, "TMPDIR": str(cwd), **env}, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


def amdgpu_kernels(asm: str) -> dict[str, dict]:
    """Per-kernel metadata (.vgpr_count, .agpr_count, ...) from the YAML block of an AMDGPU .s file.

    The `; NumVgprs:` comments are numbers up to clang 19 but symbolic expressions from clang 20 on, so the
    metadata block is the portable source.
    """
    block = re.search(r"^\s*\.amdgpu_metadata\s*$(.*?)^\s*\.end_amdgpu_metadata", asm, re.S | re.M)
    assert block is not None, "no .amdgpu_metadata block"
    return {k[".name"]: k for k in yaml.safe_load(block.group(1))["amdhsa.kernels"]}


def device_lib_dir(tmp: Path, isa: str) -> Path:
    """Debian's 5.2 device libs plus the oclc_isa_version_<isa>.bc they lack (gfx942/gfx950 postdate them)."""
    out = tmp / "bitcode"
    out.mkdir()
    for bc in DEVICE_LIBS.glob("*.bc"):
        (out / bc.name).symlink_to(bc)
    text = subprocess.run(
        [str(LLVM15_BIN / "llvm-dis"), str(DEVICE_LIBS / "oclc_isa_version_940.bc"), "-o", "-"],
        capture_output=True, text=True, check=True,
    ).stdout
    version = {"942": "9402", "950": "9500"}[isa]
    assert "constant i32 9400," in text
    subprocess.run(
        [str(LLVM15_BIN / "llvm-as"), "-o", str(out / f"oclc_isa_version_{isa}.bc")],
        input=text.replace("constant i32 9400,", f"constant i32 {version},"), text=True, check=True,
    )
    return out


def elf_sections(f):
    """The sections of an object file. pyelftools is imported here, not with the module: like porter (which reads
    ELF only when a scan meets a binary), the tests leave its ~2 MB out of the xdist workers until a test needs it,
    and every process a scan forks copies a worker's page tables."""
    from elftools.elf.elffile import ELFFile

    return ELFFile(f).iter_sections()


def test_hipcc_compiles_for_gfx90a(tmp_path: Path) -> None:
    hipcc = need("hipcc", "hipcc")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    # Without HIP_PLATFORM=amd, hipcc finds nvcc on PATH and takes the NVIDIA path.
    run([hipcc, "--offload-arch=gfx90a", "-std=c++17", "-c", "k.hip.cpp", "-o", "k.o"], tmp_path, HIP_PLATFORM="amd")
    obj = tmp_path / "k.o"
    assert obj.stat().st_size > 0
    with obj.open("rb") as f:
        sections = {s.name for s in elf_sections(f)}
    assert ".hip_fatbin" in sections


def test_hipcc_device_asm_reports_registers_for_gfx90a(tmp_path: Path) -> None:
    hipcc = need("hipcc", "hipcc")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    run([hipcc, "--offload-arch=gfx90a", "--cuda-device-only", "-S", "k.hip.cpp", "-o", "k.s"], tmp_path,
        HIP_PLATFORM="amd")
    kernels = amdgpu_kernels((tmp_path / "k.s").read_text())
    assert set(kernels) == KERNELS
    for meta in kernels.values():
        assert isinstance(meta[".vgpr_count"], int) and meta[".vgpr_count"] > 0
        assert meta[".agpr_count"] == 0
        assert meta[".wavefront_size"] == 64
    assert kernels["_Z6reducePKfPfi"][".group_segment_fixed_size"] == 256 * 4  # the __shared__ tile


def test_clang19_device_only_gfx942_reports_vgprs(tmp_path: Path) -> None:
    clang = need("clang-19", "clang-19")
    need_path(HIP_HEADER, "libamdhip64-dev")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    run([clang, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib", "-S", "-O3",
         "k.hip.cpp", "-o", "k.s"], tmp_path)
    asm = tmp_path / "k.s"
    assert asm.stat().st_size > 0
    text = asm.read_text()
    kernels = amdgpu_kernels(text)
    assert set(kernels) == KERNELS
    for meta in kernels.values():
        assert isinstance(meta[".vgpr_count"], int) and meta[".vgpr_count"] > 0
        assert meta[".wavefront_size"] == 64
    numvgprs = [int(n) for n in re.findall(r"^; NumVgprs: (\d+)$", text, re.M)]
    assert sorted(numvgprs) == sorted(k[".vgpr_count"] for k in kernels.values())


def test_clang22_device_only_gfx950_reports_vgprs(tmp_path: Path) -> None:
    clang = need("clang-22", "clang-22")
    need_path(HIP_HEADER, "libamdhip64-dev")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    # clang >= 20 no longer predefines __AMDGCN_WAVEFRONT_SIZE, which HIP 5.2's headers use for warpSize.
    run([clang, "-x", "hip", "--offload-arch=gfx950", "--cuda-device-only", "-nogpulib", "-S", "-O3",
         "-D__AMDGCN_WAVEFRONT_SIZE=64", "k.hip.cpp", "-o", "k.s"], tmp_path)
    kernels = amdgpu_kernels((tmp_path / "k.s").read_text())
    assert set(kernels) == KERNELS
    for meta in kernels.values():
        assert isinstance(meta[".vgpr_count"], int) and meta[".vgpr_count"] > 0
        assert meta[".wavefront_size"] == 64


def test_device_libs_remove_call_overhead_from_gfx942_vgprs(tmp_path: Path) -> None:
    """-nogpulib leaves blockDim/threadIdx as calls into ockl, which inflates VGPRs; linking the libs fixes it."""
    clang = need("clang-19", "clang-19")
    need_path(HIP_HEADER, "libamdhip64-dev")
    need_path(DEVICE_LIBS / "ockl.bc", "rocm-device-libs")
    need_path(LLVM15_BIN / "llvm-as", "llvm-15")
    libs = device_lib_dir(tmp_path, "942")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    base = [clang, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-S", "-O3", "k.hip.cpp"]
    run([*base, "-nogpulib", "-o", "bare.s"], tmp_path)
    run([*base, "--rocm-path=/usr", f"--rocm-device-lib-path={libs}", "-o", "linked.s"], tmp_path)
    bare = (tmp_path / "bare.s").read_text()
    linked = (tmp_path / "linked.s").read_text()
    assert "s_swappc_b64" in bare
    assert "s_swappc_b64" not in linked
    bare_k, linked_k = amdgpu_kernels(bare), amdgpu_kernels(linked)
    for name in KERNELS:
        assert 0 < linked_k[name][".vgpr_count"] < bare_k[name][".vgpr_count"]


def test_clang22_with_device_libs_for_gfx950(tmp_path: Path) -> None:
    clang = need("clang-22", "clang-22")
    need_path(HIP_HEADER, "libamdhip64-dev")
    need_path(DEVICE_LIBS / "hip.bc", "rocm-device-libs")
    need_path(LLVM15_BIN / "llvm-as", "llvm-15")
    libs = device_lib_dir(tmp_path, "950")
    (tmp_path / "k.hip.cpp").write_text(HIP_KERNEL)
    # clang-22 defaults to code object v6 (ABI lib from ROCm >= 6.3) and no longer links hip.bc, where HIP 5.2's
    # __syncthreads() finds __atomic_work_item_fence.
    run([clang, "-x", "hip", "--offload-arch=gfx950", "--cuda-device-only", "-S", "-O3",
         "-D__AMDGCN_WAVEFRONT_SIZE=64", "-mcode-object-version=5", "--rocm-path=/usr",
         f"--rocm-device-lib-path={libs}", "-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(libs / "hip.bc"),
         "k.hip.cpp", "-o", "k.s"], tmp_path)
    text = (tmp_path / "k.s").read_text()
    assert "s_swappc_b64" not in text
    kernels = amdgpu_kernels(text)
    assert set(kernels) == KERNELS
    for meta in kernels.values():
        assert isinstance(meta[".vgpr_count"], int) and meta[".vgpr_count"] > 0


def test_nvcc_compiles_for_sm90_without_a_gpu(tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not found (CUDA toolkit; the machine image ships it at /usr/local/bin/nvcc, apt does not)")
    (tmp_path / "x.cu").write_text(CUDA_KERNEL)
    run([nvcc, "-c", "-std=c++17", "-arch=sm_90", "x.cu", "-o", "x.o"], tmp_path)
    obj = tmp_path / "x.o"
    assert obj.stat().st_size > 0
    with obj.open("rb") as f:
        sections = {s.name for s in elf_sections(f)}
    assert ".nv_fatbin" in sections
