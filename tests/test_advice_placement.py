"""Advice hangs under what it is about, and the verdict's "e.g." spots are the most important ones, never repeated.

A repository-wide job (re-implementing CUTLASS/CuTe) absorbs the CUDA-runtime and CUB findings of the files it
re-implements; its plan used to be printed under the CUDA runtime and CUB as well as under CUTLASS. A target fact
(FP8 formats) is its topic's, not a library's whose findings mention FP8.
"""
from __future__ import annotations

import sys

from helpers import REPO, make_repo

GEMM = """#include <cuda_runtime.h>
#include <cuda_fp8.h>
#include <cub/cub.cuh>
#include "cutlass/gemm/device/gemm.h"
#include "cute/tensor.hpp"

using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor, float, cutlass::layout::RowMajor, float,
                                         cutlass::layout::RowMajor>;

__global__ void scale_fp8(__nv_fp8_e4m3 *x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __nv_fp8_e4m3(float(x[i]) * s);
}

void run(float *a, int n) {
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, d, d, n);
    Gemm gemm_op;
    cudaFree(d);
}
"""


def assess(path, targets=("mi300x", "mi355x")):
    sys.path.insert(0, str(REPO / "scripts"))
    from make_reports import assess_repo

    return assess_repo(str(path), targets)


def test_a_job_is_planned_under_its_own_library_once(tmp_path):
    from porter.render import RenderOptions, render
    from porter.render.about import about

    root = make_repo(tmp_path / "gemm", {"csrc/gemm.cu": GEMM})
    run = assess(root)
    recs = {r.id: r for r in run.assessment.recommendations}
    assert [s.item for s in recs["library:cutlass"].plan] == ["one-off:reimplement-cutlass"]
    assert recs["library:cuda-runtime"].plan == () and recs["library:cub"].plan == ()
    assert recs["library:cutlass"].targets == {}  # the FP8 facts are the FP8 topic's
    assert sorted(recs["topic:fp8"].targets) == ["mi300x", "mi355x"]
    md = render("markdown", run, RenderOptions(command="assess", about=about(root, use_git=False))).decode()
    section = md[md.index("## Recommendations"):md.index("## How the estimate adds up")].splitlines()
    heads = [line for line in section if line.startswith("### ") or line.startswith("Plan:")]
    assert heads == [
        "### Library: CUDA runtime / driver API → HIP runtime",
        "### Library: CUB → hipCUB, rocPRIM",
        "### Library: CUTLASS / CuTe → Composable Kernel (CK, CK-Tile), hipBLASLt, FlyDSL",
        "Plan: **Re-implement the CUTLASS/CuTe-based components on Composable Kernel (CK-Tile) or Triton** — "
        "1.1–6.3 engineer-days (likely 2.5), item `one-off:reimplement-cutlass`.",
        "### Target fact: FP8 formats on the target",
    ]


def test_examples_are_the_most_important_spots_and_never_repeated():
    run = assess("fixtures/repos/cuda-app")
    a, result = run.assessment, run.result
    got = {r.key: r.examples for r in a.reasons}
    # kernels: the worst verdict, then the most hours, first (not the first path alphabetically)
    # (histogram 1.27 h, reduce_sum_cg 0.99 h; reduce_sum and count_nonzero, also fix, 0 h: their wave-width fixes
    # are costed at the repository's one compatibility header, so only one of them is among the first three)
    assert got["kernels:port"] == ("src/kernels/histogram.cu:12 histogram_kernel",
                                   "src/kernels/reduce.cu:27 reduce_sum_cg_kernel",
                                   "src/kernels/reduce.cu:15 reduce_sum_kernel")
    hours = {k.qualified_name: k.hours.likely for k in a.breakdowns.by_kernel}
    assert (hours["histogram_kernel"] > hours["reduce_sum_cg_kernel"]
            > hours["reduce_sum_kernel"] == hours["count_nonzero_kernel"] == 0)
    # findings: the most severe first, one spot per file before a second from the same file
    assert got["review"] == ("src/kernels/reduce.cu:36", "src/kernels/warp_utils.cuh:25", "CMakeLists.txt:2")
    # (histogram.cu:57's plain cudaLaunchKernel is API001's rename at info since session 11, no longer a KRN003 spot)
    assert got["hipify"] == ("CMakeLists.txt:33", "src/cuda_check.h:7", "src/kernels/elementwise.cu:17")
    spots = [e for r in a.reasons if not r.key.startswith("kernels:") for e in r.examples]
    assert len(spots) == len(set(spots))  # no spot named under two reasons
    severity = {}
    for f in result.findings:
        severity[f"{f.path}:{f.line}"] = max(severity.get(f"{f.path}:{f.line}", f.severity), f.severity)
    by_key = {r.key: r for r in a.reasons}
    fps = {f.fingerprint: f for f in result.findings}
    for key, r in by_key.items():
        if r.findings and r.examples:
            worst = max(fps[fp].severity for fp in r.findings)
            assert severity[r.examples[0]] == worst, key
