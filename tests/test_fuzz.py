"""Fuzzing the scan: random and mutated C++/CUDA, Python, JSON, YAML, TOML, CMake and Dockerfile bytes never crash a
matcher (no "internal error" skip), never hang and never lose the rest of the scan (issue 16).

The in-suite run is small and derandomized, so it is the same few seconds every time; `bench/fuzz_scan.md` says how
to run it long (PORTER_FUZZ_EXAMPLES=5000).
"""
from __future__ import annotations

import os
import time

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="needs hypothesis (pip install -e '.[test]')")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from porter.pipeline import INTERNAL_ERROR, scan  # noqa: E402
from porter.rules import load_rules  # noqa: E402
from porter.settings import Settings  # noqa: E402

SEEDS = {
    "k.cu": b"""#include <cuda_runtime.h>
#define KERNEL __global__
template <int B> KERNEL void __launch_bounds__(B) k(float* p, int n) {
  __shared__ float s[B][33];
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) s[threadIdx.x][0] = __shfl_xor_sync(0xffffffff, p[i], 16);
  asm volatile("mma.sync.aligned.m16n8k16 {%0}, {%1};" : "=r"(i) : "r"(n));
}
void run(float* d) { cudaMalloc(&d, 4); k<256><<<1, 256, 0>>>(d, 4); cudaFree(d); } // cudaMemcpy
""",
    "m.py": b"""import torch
from torch.utils.cpp_extension import CUDAExtension, load
x = torch.zeros(4, device="cuda")
setup(ext_modules=[CUDAExtension("k", ["k.cu"], extra_compile_args={"nvcc": ["-arch=sm_90"]})])
if torch.cuda.is_available(): torch.backends.cudnn.benchmark = True
""",
    "config.json": b'{"quantization_config": {"quant_algo": "NVFP4", "weight_map": {"a.weight_scale_2": 1}}, "x": [1, 2.5e3, null, true]}\n',
    "ci.yaml": b"jobs:\n  test:\n    runs-on: [self-hosted, nvidia]\n    steps:\n      - run: nvcc -arch=sm_80 k.cu\nx: &a {b: 1}\ny: *a\n",
    "pyproject.toml": b'[project]\nname = "x"\ndependencies = ["nvidia-cublas-cu12>=12", "cupy-cuda12x"]\n[tool.x]\na = [[1], {b = 2}]\n',
    "CMakeLists.txt": b"cmake_minimum_required(VERSION 3.20)\nproject(x LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit)\nset(CMAKE_CUDA_ARCHITECTURES 80 90)\nadd_library(k k.cu)\ntarget_link_libraries(k CUDA::cublas \"${X}\")\n",
    "Dockerfile": b"FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\nARG X=1\nRUN apt-get update && \\\n    pip install torch --index-url https://download.pytorch.org/whl/cu124\nENV NVIDIA_VISIBLE_DEVICES=all\n",
}
NAMES = sorted(SEEDS)
EXAMPLES = int(os.environ.get("PORTER_FUZZ_EXAMPLES", "25"))
# Tokens that steer a mutation into the grammar's corners: unbalanced brackets, quotes, escapes, aliases, NULs.
SPLICE = [b"{", b"}", b"(", b")", b"[", b"]", b"<<<", b">>>", b'"', b"'", b"\\", b"/*", b"*/", b"#", b"&a", b"*a",
          b"\n", b"\r", b"\t", b"\x00", b"\xff", b"\xc3", b"__global__", b"__shared__", b"template<", b"#define X ",
          b"${", b"'''", b'"""', b": ", b"- ", b"=", b",", b"1" * 30, b"[" * 50, b"{" * 50]


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(NAMES))
    data = bytearray(SEEDS[name])
    for _ in range(draw(st.integers(0, 12))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.integers(0, 3))
        if op == 0:
            data[at:at] = draw(st.sampled_from(SPLICE))
        elif op == 1:
            data[at:at + draw(st.integers(1, 20))] = b""
        elif op == 2:
            data[at:at] = draw(st.binary(max_size=12))
        else:
            data[at:at] = data[max(0, at - 40):at] * draw(st.integers(1, 4))  # repeat what came before
    return name, bytes(data)


@pytest.fixture(scope="module")
def ruleset():
    return load_rules()


def check(tmp_path_factory, ruleset, name: str, data: bytes) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    (root / name).write_bytes(data)
    (root / "ok.cu").write_bytes(b"__global__ void ok(float* p) { p[0] = 1; }\n")
    start = time.process_time()
    result = scan(root, Settings(jobs=1, file_seconds=20), ruleset=ruleset)
    crashed = [s for s in result.skipped if s.reason.startswith(INTERNAL_ERROR)]
    assert not crashed, (name, data, crashed)
    assert "ok" in [k.name for k in result.kernels]  # the rest of the scan always goes on
    assert time.process_time() - start < 20


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_never_crash_a_matcher(tmp_path_factory, ruleset, case):
    check(tmp_path_factory, ruleset, *case)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.binary(max_size=400))
def test_random_bytes_never_crash_a_matcher(tmp_path_factory, ruleset, name, data):
    check(tmp_path_factory, ruleset, name, data)
