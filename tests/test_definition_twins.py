"""Twins by definition (session 29, issue 27): a CUDA-side file whose functions, kernels and classes a ROCm-side file
of the repository defines again is that file's twin, whatever the two are called - ludwig's target layer
(target/target.h declares the `tdp*` wrappers, target_cuda.c implements them over CUDA, target_hip.c over HIP) under
names that say nothing: `src/nv_impl.cu` beside `ports/second.cpp`, which includes hip_runtime.h. A CPU backend that
defines the same functions is no ROCm file and twins nothing; unrelated files that share a few habitual names
(`setup`, `solve`, a `Params` struct) are no twins."""
from __future__ import annotations

from porter.portaware.twins import TWIN_MIN_SHARED, definition_twin, visible_definitions

LAYER = """\
#pragma once
#include <stddef.h>

int gl_malloc(void** p, size_t n);
int gl_free(void* p);
int gl_copy(void* d, const void* s, size_t n);
int gl_sync(void);
int gl_peer(int device);
"""

NV_IMPL = """\
#include <cuda_runtime.h>
#include "gpu_layer.h"

int gl_malloc(void** p, size_t n) {
  return cudaMalloc(p, n) == cudaSuccess ? 0 : 1;
}

int gl_free(void* p) {
  return cudaFree(p) == cudaSuccess ? 0 : 1;
}

int gl_copy(void* d, const void* s, size_t n) {
  return cudaMemcpy(d, s, n, cudaMemcpyDefault) == cudaSuccess ? 0 : 1;
}

int gl_sync(void) {
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}

int gl_peer(int device) {
  return cudaDeviceEnablePeerAccess(device, 0) == cudaSuccess ? 0 : 1;
}

__global__ void gl_sum(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[threadIdx.x] = v;
}
"""

# The HIP implementation of four of the five wrappers (gl_peer has none) and of the kernel, whose 32-lane shuffle it
# kept as it was.
SECOND = """\
#include <hip/hip_runtime.h>
#include "gpu_layer.h"

int gl_malloc(void** p, size_t n) {
  return hipMalloc(p, n) == hipSuccess ? 0 : 1;
}

int gl_free(void* p) {
  return hipFree(p) == hipSuccess ? 0 : 1;
}

int gl_copy(void* d, const void* s, size_t n) {
  return hipMemcpy(d, s, n, hipMemcpyDefault) == hipSuccess ? 0 : 1;
}

int gl_sync(void) {
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}

__global__ void gl_sum(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[threadIdx.x] = v;
}
"""

HOST_IMPL = """\
#include <stdlib.h>
#include <string.h>
#include "gpu_layer.h"

int gl_malloc(void** p, size_t n) { *p = malloc(n); return *p ? 0 : 1; }
int gl_free(void* p) { free(p); return 0; }
int gl_copy(void* d, const void* s, size_t n) { memcpy(d, s, n); return 0; }
int gl_sync(void) { return 0; }
int gl_peer(int device) { (void) device; return 0; }
"""

# Seven definitions; a HIP probe tool shares three of them by habit (Params, setup, solve): less than half.
SOLVER = """\
#include <cuda_runtime.h>

struct Params { int n; float tol; };

void setup(Params* p) { cudaSetDevice(0); p->n = 0; }
void solve(float* x, int n) { cudaMemset(x, 0, n * sizeof(float)); }
void teardown(void) { cudaDeviceReset(); }
float residual(const float* x, int n) { (void) x; return (float) n; }
void scale(float* x, int n) { (void) x; (void) n; }
void norm(float* x, int n) { (void) x; (void) n; }
"""

PROBE = """\
#include <hip/hip_runtime.h>
#include <cstdio>

struct Params { int device; };

void setup(Params* p) { hipSetDevice(p->device); }
void solve(float* x, int n) { hipMemset(x, 0, n * sizeof(float)); }
int main() { Params p{0}; setup(&p); std::printf("ok\\n"); return 0; }
"""


def _write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_per_backend_implementation_under_unrelated_names_is_a_twin(tmp_path):
    _write(tmp_path, {"include/gpu_layer.h": LAYER, "src/nv_impl.cu": NV_IMPL, "ports/second.cpp": SECOND,
                      "src/host_impl.c": HOST_IMPL})
    got = _statuses(tmp_path)
    # the HIP file is ROCm code by its include alone, not by name or build: its own gap stays open
    assert [g for g in got if g[0] == "ports/second.cpp"] == [
        ("ports/second.cpp", 20, "KRN001", "open", None),
        ("ports/second.cpp", 22, "DEV002", "open", None),
        ("ports/second.cpp", 22, "DEV011", "open", None),
    ]
    assert [g for g in got if g[0] != "ports/second.cpp"] == [
        # the file's include and the four wrappers ports/second.cpp implements over HIP: handled by that file
        ("src/nv_impl.cu", 1, "API005", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 5, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 5, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 9, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 9, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 13, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 13, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 13, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 17, "API001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 17, "API001", "handled", "ports/second.cpp"),
        # gl_peer, which the HIP file does not define: the ROCm build lacks it, work left
        ("src/nv_impl.cu", 21, "API001", "open", None),
        ("src/nv_impl.cu", 21, "API001", "open", None),
        # the kernel's definition is the twin's too; its full-mask shuffle is not: the twin has the same gap on a
        # line the ROCm build compiles (shared_by_counterpart), so both stay open
        ("src/nv_impl.cu", 24, "KRN001", "handled", "ports/second.cpp"),
        ("src/nv_impl.cu", 26, "DEV002", "open", None),
        ("src/nv_impl.cu", 26, "DEV011", "open", None),
    ]


def test_a_cpu_backend_or_a_same_name_coincidence_is_no_twin(tmp_path):
    # the HIP file gone: the CPU backend defines all five wrappers too, but it is no ROCm file
    _write(tmp_path / "cpu", {"include/gpu_layer.h": LAYER, "src/nv_impl.cu": NV_IMPL,
                              "src/host_impl.c": HOST_IMPL})
    got = _statuses(tmp_path / "cpu")
    assert len(got) == 15 and {s for _p, _n, _r, s, _h in got} == {"open"}
    # three shared names out of seven: no twin, every CUDA line open
    _write(tmp_path / "coincidence", {"src/solver.cu": SOLVER, "tools/probe.cpp": PROBE})
    assert _statuses(tmp_path / "coincidence") == [
        ("src/solver.cu", 1, "API005", "open", None),
        ("src/solver.cu", 5, "API001", "open", None),
        ("src/solver.cu", 6, "API001", "open", None),
        ("src/solver.cu", 7, "API001", "open", None),
    ]


def test_visible_definitions_and_the_overlap_rule():
    assert visible_definitions("src/solver.cu", SOLVER.encode()) == (
        ("Params", 3, 3), ("setup", 5, 5), ("solve", 6, 6), ("teardown", 7, 7), ("residual", 8, 8),
        ("scale", 9, 9), ("norm", 10, 10))
    # main is every program's; a header holds declarations only
    assert visible_definitions("tools/probe.cpp", PROBE.encode()) == (("Params", 4, 4), ("setup", 6, 6),
                                                                      ("solve", 7, 7))
    assert visible_definitions("include/gpu_layer.h", LAYER.encode()) == ()
    text = b"""\
static int helper(int x) { return x; }
template <typename T>
__global__ void __launch_bounds__(256) fill(T* x, int n) {
  if (n > 0) { x[0] = T(); }
}
void Grid_Cuda::reset(int n)
{
  for (int i = 0; i < n; i++) { }
}
class Engine final : public Base {
  void run() const { }
};
"""
    # a source's static helper is no other file's business; a qualified method keeps its class; statement heads
    # (`if`, `for`) are no definitions
    assert visible_definitions("k.cu", text) == (("fill", 3, 5), ("Grid_Cuda::reset", 6, 9), ("Engine", 10, 12),
                                                 ("run", 11, 11))
    # ... but a header's static inline helper is its interface
    assert [d[0] for d in visible_definitions("k.cuh", text)][:1] == ["helper"]
    assert TWIN_MIN_SHARED == 3
    mine = ["a", "b", "c", "d", "e"]
    assert definition_twin(mine, [("x.hip", frozenset("abc"))]) == ("x.hip", frozenset("abc"))
    # two shared names, or three of seven, are no twin
    assert definition_twin(mine, [("x.hip", frozenset("ab"))]) is None
    assert definition_twin([*mine, "f", "g"], [("x.hip", frozenset("abc"))]) is None
    # the candidate sharing most wins; a tie goes to the first path
    assert definition_twin(mine, [("z.hip", frozenset("abcd")), ("y.hip", frozenset("abc"))])[0] == "z.hip"
    assert definition_twin(mine, [("z.hip", frozenset("abc")), ("y.hip", frozenset("bcd"))])[0] == "y.hip"
