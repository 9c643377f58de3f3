"""Every reviewdog suggestion of a fixture pull request, applied, leaves code that builds for both vendors: the CUDA
source still compiles with nvcc (no HIP name is suggested into it, no kernel renamed to `__global__`), and the
ROCm-only file compiles with hipcc only once its suggestions are applied."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from helpers import git, make_repo, porter_here, write_files

NVCC = "/usr/local/cuda/bin/nvcc"
CUDA = """\
__global__ void scale(float *a) { a[threadIdx.x] *= 2.0f; }

void run(float *a) {
    float *p;
    cudaMalloc(&p, 16);
    scale<<<1, 4>>>(p);
    cudaDeviceSynchronize();
    cudaFree(p);
}
"""
HIP = """\
#include <hip/hip_runtime.h>

__global__ void scale(float *a) { a[threadIdx.x] *= 2.0f; }

void run(float *a) {
    float *p;
    cudaMalloc(&p, 16);
    scale<<<1, 4>>>(p);
    cudaDeviceSynchronize();
    cudaFree(p);
}
"""


def _apply(text: str, suggestions: list[tuple[int, int, int, str]]) -> str:
    """Apply (line, start column, end column, text) replacements, right to left so columns stay valid."""
    lines = text.split("\n")
    for line, start, end, new in sorted(suggestions, reverse=True):
        row = lines[line - 1]
        lines[line - 1] = row[:start - 1] + new + row[end - 1:]
    return "\n".join(lines)


def _compile(cmd: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


@pytest.mark.slow
@pytest.mark.skipif(not (os.access(NVCC, os.X_OK) and shutil.which("hipcc")),
                    reason="needs nvcc (/usr/local/cuda/bin/nvcc) and hipcc (scripts/bootstrap.sh installs both)")
def test_every_suggestion_applied_builds_with_nvcc_and_hipcc(tmp_path):
    repo = make_repo(tmp_path / "r", {"README": "x\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src" / "rocm").mkdir(parents=True)
    (repo / "src" / "scale.cu").write_text(CUDA)
    (repo / "src" / "rocm" / "scale.hip").write_text(HIP)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "rdjsonl", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    diags = [json.loads(line) for line in p.stdout.splitlines()]
    # The CUDA source has the renames as findings, with the HIP name in the message, but no suggestion.
    assert {(d["location"]["path"], d["code"]["value"]) for d in diags if d["location"]["path"] == "src/scale.cu"
            and d["code"]["value"] == "API001"} == {("src/scale.cu", "API001")}
    by_file: dict[str, list] = {}
    for d in diags:
        for s in d.get("suggestions", []):
            r = s["range"]
            assert r["start"]["line"] == r["end"]["line"]
            by_file.setdefault(d["location"]["path"], []).append(
                (r["start"]["line"], r["start"]["column"], r["end"]["column"], s["text"]))
    assert sorted(by_file) == ["src/rocm/scale.hip"]
    assert sorted(t for *_, t in by_file["src/rocm/scale.hip"]) == ["hipDeviceSynchronize", "hipFree", "hipMalloc"]
    for d in diags:
        assert d["code"]["url"] == f"https://github.com/porter-rocm/porter/blob/main/docs/rules/{d['code']['value']}.md"

    hip_before = tmp_path / "before.hip"
    hip_before.write_text(HIP)
    hip_after = tmp_path / "after.hip"
    hip_after.write_text(_apply(HIP, by_file["src/rocm/scale.hip"]))
    cu_after = tmp_path / "after.cu"
    cu_after.write_text(_apply(CUDA, by_file.get("src/scale.cu", [])))
    amd = {"HIP_PLATFORM": "amd"}
    nv = _compile([NVCC, "-c", str(cu_after), "-o", str(tmp_path / "cu.o")])
    assert nv.returncode == 0, nv.stderr
    hip = _compile(["hipcc", "--offload-arch=gfx90a", "-c", str(hip_after), "-o", str(tmp_path / "hip.o")], amd)
    assert hip.returncode == 0, hip.stderr
    unfixed = _compile(["hipcc", "--offload-arch=gfx90a", "-c", str(hip_before), "-o", str(tmp_path / "x.o")], amd)
    assert unfixed.returncode != 0 and "cudaMalloc" in unfixed.stderr  # the suggestions are what makes it build


# A kernel file as a PR adds it: a 32-bit mask twice (DEV002, whose advice `~0ull` is a replacement, not a rename),
# the kernel's own name (KRN001: it once suggested `__global__`), three runtime renames (API001) and the include.
KERNEL_PR = """\
#include <cuda_runtime.h>
__global__ void scale(float *a, unsigned long long *m) {
    float v = __shfl_down_sync(0xffffffff, a[threadIdx.x], 1);
    m[0] = __ballot_sync(0xffffffff, v > 0.f);
}

void run(float *a, unsigned long long *m) {
    float *p;
    cudaMalloc(&p, 16);
    scale<<<1, 64>>>(p, m);
    cudaDeviceSynchronize();
    cudaFree(p);
}
"""


def test_no_suggestion_in_a_cuda_source_and_only_renames_in_a_rocm_only_file(tmp_path):
    """The same code as a CUDA source and as a ROCm-only file: the CUDA source gets no suggestion at all (a HIP name
    breaks nvcc; `~0ull` for the masks needs HIP's *_sync intrinsics, ROCm >= 6.2, which no compiler here has, so
    it is not offered where it could not be compile-checked); the ROCm-only file gets exactly the three renames,
    each over the CUDA name alone. Runs in this process, no compiler: the compile check is the test above."""
    write_files(tmp_path, {"src/k.cu": KERNEL_PR,
                           "src/rocm/k.hip": KERNEL_PR.replace("<cuda_runtime.h>", "<hip/hip_runtime.h>")})
    p = porter_here("scan", str(tmp_path), "-f", "rdjsonl", "--no-cache", "--jobs", "1")
    assert p.returncode == 0, p.stderr
    diags = [json.loads(line) for line in p.stdout.splitlines()]
    assert sorted((d["location"]["path"], d["location"]["range"]["start"]["line"], d["code"]["value"])
                  for d in diags) == [
        ("src/k.cu", 1, "API005"), ("src/k.cu", 2, "KRN001"), ("src/k.cu", 3, "DEV002"), ("src/k.cu", 4, "DEV002"),
        ("src/k.cu", 9, "API001"), ("src/k.cu", 10, "KRN002"), ("src/k.cu", 11, "API001"), ("src/k.cu", 12, "API001"),
        ("src/rocm/k.hip", 2, "KRN001"), ("src/rocm/k.hip", 3, "DEV002"), ("src/rocm/k.hip", 4, "DEV002"),
        ("src/rocm/k.hip", 9, "API001"), ("src/rocm/k.hip", 10, "KRN002"), ("src/rocm/k.hip", 11, "API001"),
        ("src/rocm/k.hip", 12, "API001")]
    offered = [(d["location"]["path"], d["code"]["value"], s["range"], s["text"])
               for d in diags for s in d.get("suggestions", [])]
    assert offered == [
        ("src/rocm/k.hip", "API001", {"start": {"line": 9, "column": 5}, "end": {"line": 9, "column": 15}},
         "hipMalloc"),
        ("src/rocm/k.hip", "API001", {"start": {"line": 11, "column": 5}, "end": {"line": 11, "column": 26}},
         "hipDeviceSynchronize"),
        ("src/rocm/k.hip", "API001", {"start": {"line": 12, "column": 5}, "end": {"line": 12, "column": 13}},
         "hipFree")]
    hip = KERNEL_PR.replace("<cuda_runtime.h>", "<hip/hip_runtime.h>")
    assert _apply(hip, [(r["start"]["line"], r["start"]["column"], r["end"]["column"], t)
                        for *_, r, t in offered]).splitlines()[8:12] == [
        "    hipMalloc(&p, 16);", "    scale<<<1, 64>>>(p, m);", "    hipDeviceSynchronize();", "    hipFree(p);"]
