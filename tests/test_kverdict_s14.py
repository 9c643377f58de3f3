"""Kernel verdicts of issue 27 (session 14) on fixtures/kverdict_s14: a project's own warp-intrinsic polyfill, a host
launcher sharing a math function's name, and a member call into the file named after its class. Exact verdicts,
reasons and lines."""
from __future__ import annotations

import pytest

from porter.kernels.facts_detectors import _without_template_args
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kverdict_s14"
TARGETS = ("mi300x", "mi455x")


def verdicts(name: str) -> dict[str, dict[str, tuple]]:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


def test_a_project_polyfill_of_a_warp_intrinsic_is_not_hips_builtin():
    """shim/compat_hip.hpp defines `__shfl_down_sync(uint32_t mask, ...)` over a 32-wide `__shfl_down`: the
    `0xffffffff` at reduce.cu:6 is its own mask type, and the `% 32` / `/ 32` lanes (14, 15) match its width."""
    assert verdicts("shim") == {"reduce_kernel": {t: ("ok", ()) for t in TARGETS}}


def test_without_the_polyfill_the_same_kernel_is_a_fix():
    """plain/ is shim/ without compat_hip.hpp: HIP's builtin takes the call, and its 64-bit mask is the fault."""
    assert verdicts("plain") == {"reduce_kernel": {
        "mi300x": ("fix", (("wave64-full-mask", "fix", (6,)), ("wave64-lane-count", "fix", (14, 15)))),
        "mi455x": ("fix", (("mask-32bit-type", "fix", (6,)),)),
    }}


def test_a_polyfill_only_the_cuda_build_compiles_leaves_hip_its_builtin():
    """shim_cuda_only/ defines the same polyfill under `#if !defined(__HIPCC__) && CUDART_VERSION < 9000`: HIP
    compiles HIP's builtin, so the kernel reads as plain/ does."""
    assert verdicts("shim_cuda_only") == verdicts("plain")


def test_a_host_launcher_is_not_a_device_callee():
    """launcher/reduce.cu: `vmax` calls `::max` (line 9) and the host launcher `max` (lines 13-17) holds
    `vmax<<<...>>>` (line 16); following it gave the kernel a device-side launch (dynamic parallelism, rewrite)."""
    assert verdicts("launcher") == {"vmax": {t: ("ok", ()) for t in TARGETS}}


def test_a_member_call_resolves_to_the_file_named_after_its_class():
    """member/: `WarpOps<>::atomicMax` (reduce.cu:5) is the project's member, defined in WarpOps.cuh and (for
    another class) WarpSegOps.cuh; neither is included. It is followed to WarpOps.cuh, whose `mov %laneid` makes a
    fix with a plain replacement."""
    assert verdicts("member") == {"seg_max": {t: ("fix", (("inline-ptx", "fix", (5,)),)) for t in TARGETS}}


@pytest.mark.parametrize("text, expected", [
    ("WarpReduce<>::atomicMax", "WarpReduce::atomicMax"),
    ("ns::f<T, 4>", "ns::f"),
    ("A<B<int>>::g<3>", "A::g"),
    ("plain", "plain"),
])
def test_template_arguments_leave_the_call_name(text, expected):
    assert _without_template_args(text) == expected


def test_an_async_copy_with_a_synchronous_counterpart_is_a_fix_and_a_transaction_barrier_a_rewrite():
    """asynccopy/stage.cu (issue 27 class 1): the libcu++ pipeline of `staged_copy` (make_pipeline line 8,
    memcpy_async line 10, both DEV012) becomes plain LDS copies; `tx_barrier`'s mbarrier has no such counterpart."""
    result = run(BASE / "asynccopy", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    got = {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.message) for d in v.details))
                    for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}
    plain = ("async-copy", "fix", "uses memcpy_async, pipeline: a synchronous global→LDS copy and __syncthreads "
                                  "replace it")
    assert got == {"staged_copy": {t: ("fix", (plain,)) for t in TARGETS},
                   "tx_barrier": {t: ("rewrite", (("async-copy-barrier", "rewrite", "uses mbarrier"),))
                                  for t in TARGETS}}
    assert sorted(f.line for f in result.findings if f.rule == "DEV012") == [8, 10]


def test_a_private_copy_of_a_toolkit_header_is_no_polyfill():
    """toolkit_copy/ is plain/ with the repository's own cuda_fp16.h, whose `__shfl_down_sync(unsigned, __half, ...)`
    is NVIDIA's overload for one type: hipify points the include at HIP's header, so the kernel reads as plain/
    (the 32-bit mask at reduce.cu:7 a fix), not as shim/ (ok)."""
    got = verdicts("toolkit_copy")
    assert got == {"reduce_kernel": {
        "mi300x": ("fix", (("wave64-full-mask", "fix", (7,)), ("wave64-lane-count", "fix", (15, 16)))),
        "mi455x": ("fix", (("mask-32bit-type", "fix", (7,)),)),
    }}
