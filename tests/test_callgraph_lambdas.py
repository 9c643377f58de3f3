"""A kernel's call of a lambda it binds itself is not a call into another file's helper of the same name
(porter.kernels.facts._LAMBDA_BINDING): cuSZ's lrz_x.cuhip.inl kernels call their own `block_scan_2d` lambda, and a
device function `block_scan_2d` in subr_legacy.cuhip.inl lent them its facts."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

HELPER = """\
#pragma once

__device__ float block_scan(float v) {
  for (int d = 1; d < 32; d *= 2) v += __shfl_up_sync(0xffffffff, v, d);
  return v;
}
"""

KERNELS = """\
#include "helper.cuh"

__global__ void own_lambda(float* x) {
  float v = x[threadIdx.x];
  auto block_scan = [&]() { v *= 2.0f; };
  block_scan();
  x[threadIdx.x] = v;
}

__global__ void calls_helper(float* x) {
  x[threadIdx.x] = block_scan(x[threadIdx.x]);
}
"""


def test_a_local_lambda_call_is_not_followed_into_a_helper_of_its_name(tmp_path):
    (tmp_path / "helper.cuh").write_text(HELPER)
    (tmp_path / "k.cu").write_text(KERNELS)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    got = {k.name: (k.facts.calls, [(h.chain, h.path, h.call_line) for h in k.facts.helpers],
                    k.verdict_on("mi300x").verdict, [(d.id, d.lines) for d in k.verdict_on("mi300x").details])
           for k in result.kernels}
    assert got == {
        # the lambda bound on line 5 is what line 6 calls: no helper, no via-helper mask
        "own_lambda": ((), [], "ok", []),
        # the same name called without a lambda of that name is the helper, its full mask at the call (line 11)
        "calls_helper": ((("block_scan", 11),), [(("block_scan",), "helper.cuh", 11)], "fix",
                         [("wave64-full-mask", (11,))]),
    }
