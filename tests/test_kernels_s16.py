"""Kernel verdicts of issue 27 (session 16) on fixtures/kernels_s16: causes read on the development sets heldout9 and
heldout10, each a general mechanism. Exact facts, reasons and verdicts per target."""
from __future__ import annotations

import pytest

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s16"


def analysed(name: str, by_path: bool = False) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {(k.path, k.name) if by_path else (k.name, k.line): k for k in result.kernels}


@pytest.fixture(scope="module")
def functor():
    return analysed("functor")


def test_a_call_of_a_local_functor_is_not_a_call_of_a_helper_with_its_name(functor):
    """launch.cuh: `driver()` on a local reference (line 12) and on a parameter (line 17) runs the functor's
    operator(); queue.cuh's `Queue::driver` (line 4, a 0xffffffff shuffle) is not followed, so both trampolines
    read ok. run_queue calls Queue::driver for real (line 22) and gets its mask. (Session 27: each `driver()` is
    recorded as DriverType::operator(), the call a launch naming the functor's class binds; none here does.)"""
    assert functor[("launch_constant_memory", 9)].facts.calls == (("DriverType::operator()", 12),)
    assert functor[("launch_local_memory", 15)].facts.calls == (("DriverType::operator()", 17),)
    assert verdicts(functor[("launch_constant_memory", 9)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(functor[("launch_local_memory", 15)]) == {t: ("ok", ()) for t in TARGETS}
    k = functor[("run_queue", 21)]
    assert k.facts.calls == (("Queue::driver", 22),)
    via = "; via Queue::driver (queue.cuh:4)"
    assert verdicts(k) == {
        "mi300x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (22,)),)),
        "mi355x": ("fix", (("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                            (22,)),)),
        "mi455x": ("fix", (("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long"
                            + via, (22,)),))}


def test_a_projects_own_atomic_helper_is_followed_and_its_block_scope_atomics_are_the_kernels():
    """spread.cu's spread_pairs calls atomics.cuh's atomicAddPairShared (line 7), a project function whose name starts
    with `atomic`: it is followed (CUDA's own atomicAdd in sum_all is not), and its two atomicAdd_block calls (lines
    9-10, API002: HIP has no block-scope atomics) make the kernel a fix on every target."""
    k = analysed("blockatomic")
    spread, plain = k[("spread_pairs", 3)], k[("sum_all", 13)]
    assert spread.facts.calls == (("atomicAddPairShared", 7),)
    assert plain.facts.calls == ()
    message = ("atomicAdd_block (CUDA device) has no HIP equivalent: CUDA's block-scope atomic (sm_60+); HIP declares "
               "the device-scope atomicAdd and atomicAdd_system but no _block variant "
               "(https://github.com/ROCm/clr/blob/develop/hipamd/include/hip/amd_detail/amd_hip_atomic.h): call "
               "atomicAdd, whose device scope covers the block's, or __hip_atomic_fetch_* with "
               "__HIP_MEMORY_SCOPE_WORKGROUP; in helper atomicAddPairShared (atomics.cuh:7), line 9, "
               "atomicAddPairShared (atomics.cuh:7), line 10")  # counted at the call, line 7
    # named apart from API002's other calls: one #define over atomicAdd fixes it for the repository (cost.py)
    assert verdicts(spread) == {t: ("fix", (("block-scope-atomic", message, (7,)),)) for t in TARGETS}
    assert verdicts(plain) == {t: ("ok", ()) for t in TARGETS}


def test_a_cuda_components_kernel_with_a_same_named_twin_in_the_rocm_sibling_reads_its_checks_handled():
    """components/jit/cuda/ is named for CUDA beside jit/hip/ (a component twin). InterpTranspose (cuda/basis.h:3)
    reaches atomicAdd_block through basis-templates.h's accumulate (API002 at the call, line 5), and hip/basis.h
    defines InterpTranspose too: the HIP backend has it, so the check reads handled and the verdict ok. OnlyOnCuda
    (line 11) has no twin in hip/: what it needs on AMD stays (fix at its call, line 13)."""
    k = analysed("components", by_path=True)
    twinned, alone = k[("jit/cuda/basis.h", "InterpTranspose")], k[("jit/cuda/basis.h", "OnlyOnCuda")]
    assert (twinned.line, alone.line) == (3, 11)
    assert verdicts(twinned) == {t: ("ok", ()) for t in TARGETS}
    assert {t: (v, [(d[0], d[2]) for d in ds]) for t, (v, ds) in verdicts(alone).items()} == \
        {t: ("fix", [("block-scope-atomic", (13,))]) for t in TARGETS}


@pytest.fixture(scope="module")
def triton_ops():
    return analysed("triton")


def test_a_num_warps_conditional_on_the_input_reaches_its_larger_branch(triton_ops):
    """ops.py line 24: `num_warps = 8 if tiles_per_cta == 1 else 32`, launched at line 25: large inputs take 32 warps,
    2048 work-items on wave64, over the 1024 limit (fix on MI300X/MI355X; 1024 on wave32 MI455X). Line 30's
    `16 if is_hip() else 32` picks per platform: unbounded, as before."""
    k = triton_ops[("gather_kernel", 6)]
    # the larger branch counts against the workgroup limit, not as an NVIDIA tuning choice (no triton-num-warps)
    assert [(c.line, c.num_warps, c.branch) for c in k.facts.triton.launches] == [(25, (32,), True)]
    assert verdicts(k) == {
        t: ("fix", (("triton-warps-over-max", f"num_warps=32 is 32 x 64 = 2048 threads on AMD Instinct {name}: above "
                                              "1024 (at most 16 warps)", (25,)),))
        for t, name in (("mi300x", "MI300X"), ("mi355x", "MI355X"))} | {"mi455x": ("ok", ())}
    p = triton_ops[("platform_kernel", 12)]
    assert [(c.line, c.num_warps) for c in p.facts.triton.launches] == [(31, ())]
    assert verdicts(p) == {t: ("ok", ()) for t in TARGETS}


def test_an_autotune_comprehension_over_block_sizes_is_a_run_time_choice(triton_ops):
    """cfggen (lines 34-37) makes 3 x 2 configs over BLOCK_M and BLOCK_N, all num_warps=4: the autotuner times each
    on the AMD GPU, so nothing is an NVIDIA choice to re-tune. fixed_kernel's one Config (line 49, num_warps=8) is."""
    k = triton_ops[("sized_kernel", 40)]
    assert [(c.line, c.num_warps, c.variants) for c in k.facts.triton.configs] == [(37, (4,), 4)]  # names: 2 each
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}
    f = triton_ops[("fixed_kernel", 49)]
    assert [(c.num_warps, c.variants) for c in f.facts.triton.configs] == [((8,), 1)]
    assert [v.verdict for v in f.verdicts] == ["retune", "retune", "ok"]


TRANSPORT = ("GPU-initiated NVSHMEM data movement (puts, gets, remote signals or atomics): a transport over per-warp "
             "RDMA, redesigned on rocSHMEM rather than renamed")
NVSHMEM_DEVICE = "NVSHMEM device calls (nvshmem_*, nvshmemx_*, nvshmemi_ibgda_*): port to rocSHMEM's device API"


def test_a_kernel_whose_own_body_moves_data_over_nvshmem_is_a_transport_rewrite():
    """moe.cu: dispatch_tokens (line 13) puts and signals from its own body (line 14, nvshmemx_putmem_signal_nbi_warp):
    rewrite. wait_and_forward (line 19) waits (line 20) and reaches a put only through forward() (line 9): NVSHMEM
    device code, a fix."""
    k = analysed("transport")
    dispatch, wait = k[("dispatch_tokens", 13)], k[("wait_and_forward", 19)]
    assert dispatch.facts.cuda_libraries == ("nvshmem", "nvshmem-rma")
    assert wait.facts.cuda_libraries == ("nvshmem",)
    assert verdicts(dispatch) == {t: ("rewrite", (("nvshmem-transport", TRANSPORT, ()),)) for t in TARGETS}
    assert verdicts(wait) == {t: ("fix", (("nvshmem-device", NVSHMEM_DEVICE, ()),)) for t in TARGETS}


def test_tensor_core_code_in_a_vanishing_cuda_arch_arm_is_a_rewrite():
    """attn.cu: gone_kernel's WMMA sits in `#if __CUDA_ARCH__ >= 700` (line 8) with no #else (DEV016): HIP compiles
    the matrix path to nothing, a rewrite. fallback_kernel's arm (line 22) has a plain #else and prefetch_kernel's
    vanishing arm (line 38) holds a prefetch, not the WMMA: both stay the WMMA port, a fix."""
    k = analysed("vanish")
    gone, fallback, prefetch = k[("gone_kernel", 7)], k[("fallback_kernel", 21)], k[("prefetch_kernel", 37)]
    assert (gone.facts.tensor_arch_arms, fallback.facts.tensor_arch_arms, prefetch.facts.tensor_arch_arms) == \
        ((8,), (22,), ())
    vanish = ("tensor-arm-vanishes", "tensor-core code in a __CUDA_ARCH__ arm that HIP compiles to nothing: write the "
              "AMD matrix path (rocWMMA / MFMA)", (8,))
    for t, name in (("mi300x", "AMD Instinct MI300X"), ("mi355x", "AMD Instinct MI355X")):
        # the wmma check carries the lines naming WMMA (session 24: KernelFacts.feature_lines)
        wmma = ("wmma", f"WMMA fragments; {name} matrix unit is MFMA", (9, 10, 11, 12, 13, 14, 15, 16))
        assert verdicts(gone)[t] == ("rewrite", (vanish, wmma))
        assert verdicts(fallback)[t] == ("fix", (wmma[:2] + ((23, 24, 25, 26, 27, 28, 29, 30),),))
        assert verdicts(prefetch)[t][0] == "fix"
        assert "tensor-arm-vanishes" not in [d[0] for d in verdicts(prefetch)[t][1]]


def test_block_scope_atomics_are_costed_once_at_the_repository_compat_header(tmp_path):
    """Three kernels whose only need is atomicAdd_block (LightGBM's shape: 33 such kernels read 8 likely days
    against a 3.2-day port) cost one compatibility header plus a review each, not a kernel fix each."""
    from porter.estimate.assess import assess  # the function: porter.estimate.assess is also its module
    from porter.targets import resolve_targets

    (tmp_path / "hist.cu").write_text(
        "__global__ void count(int* c, const int* x) {\n  atomicAdd_block(&c[x[threadIdx.x]], 1);\n}\n"
        "__global__ void weigh(float* c, const float* w, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) atomicAdd_block(&c[i % 16], w[i] * 2.0f);\n}\n"
        "__global__ void top(int* m, const int* x) {\n  atomicMax_block(m, x[threadIdx.x] - 1);\n}\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    a = assess(result, list(resolve_targets(["mi355x"])))
    # the kernels' API002 findings are costed with them (no rule:API002 item beside the site)
    assert [(i.id, i.count) for i in a.items if i.kind == "kernel" or i.id.startswith("rule:API002")] == [
        ("site:repository:compat", 3)]
    site = next(i for i in a.items if i.id == "site:repository:compat")
    assert site.basis.startswith("block-scope-atomic fixed once (0.5–1–3 h) + 0.1–0.25–0.5 h review × 3 kernel(s)")
