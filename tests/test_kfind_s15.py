"""Kernel shared-memory facts of issue 27 (session 15) on fixtures/kfind_s15: a launch's local size variable read in
its own block, and a constant defined twice in one build still bounded by CUDA's static limit. Exact sizes,
reasons and verdicts."""
from __future__ import annotations

import pytest

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kfind_s15"
TARGETS = ("mi300x", "mi355x", "mi455x")


@pytest.fixture(scope="module")
def kernels():
    out = {}
    for name in ("scopedlocal", "onebuild"):
        result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
        out.update({k.name: k for k in result.kernels})
    return out


def verdicts(k) -> dict[str, tuple]:
    return {t: (v.verdict, tuple((d.id, d.message) for d in v.details)) for t in TARGETS if (v := k.verdict_on(t))}


def test_each_branch_launch_takes_its_own_blocks_size(kernels):
    """dequant.cu declares `int shared` in both branches of launch(): 16 * (2*256*8 + 32*9) = 70,144 bytes at the
    launch on line 22, 16 * (256*8 + 32*9) = 37,376 at line 26 (the last declaration used to win for both)."""
    big, small = kernels["codebook_kernel"], kernels["small_kernel"]
    assert [(s.line, s.shared_bytes) for s in big.facts.launch_sites] == [(22, 70144)]
    assert [(s.line, s.shared_bytes) for s in small.facts.launch_sites] == [(26, 37376)]
    assert (big.facts.shared_memory.launch_bytes, big.facts.shared_memory.max_dynamic_attribute) == ((70144,), 70144)
    assert (small.facts.shared_memory.launch_bytes, small.facts.shared_memory.max_dynamic_attribute) == \
        ((37376,), 37376)
    assert verdicts(big) == {
        "mi300x": ("fix", (("lds-over-limit", "68.5 KiB of shared memory > 64 KiB LDS on AMD Instinct MI300X"),)),
        "mi355x": ("ok", ()), "mi455x": ("ok", ())}
    assert verdicts(small) == {t: ("ok", ()) for t in TARGETS}


def test_a_constant_defined_twice_in_one_build_keeps_cudas_static_cap(kernels):
    """conv.cu: kNElts and kRows are members of FwdTraits and BwdTraits (lines 6-7, 12-13) with different values,
    both compiled by the CUDA build, so the static `smem` of tile_kernel (line 20) stays under CUDA's 48 KiB static
    limit whichever the launch picks: within every AMD LDS."""
    k = kernels["tile_kernel"]
    assert [(a.name, a.line, a.extents, a.bytes, a.reason) for a in k.facts.shared_memory.arrays] == [
        ("smem", 20, ("kRows + 3", "32 + kNElts"), None,
         "defined with different values in one build (two scopes or specialisations); element type `input_t` is a "
         "template parameter")]
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}


def test_a_constant_defined_per_if_arm_stays_unbounded(kernels):
    """conv.cu: kLaneGroups is 4096 under `#ifdef USE_ROCM` and 2048 in the `#else` (lines 26-30): the ROCm build
    may take the larger value, which CUDA's limit does not bound, so arm_kernel's `smem` (line 34) stays a check."""
    k = kernels["arm_kernel"]
    reason = "defined more than once with different values; element type `input_t` is a template parameter"
    assert [(a.name, a.line, a.bytes, a.reason) for a in k.facts.shared_memory.arrays] == [("smem", 34, None, reason)]
    assert verdicts(k) == {t: ("check", (("lds-unknown", f"static shared memory unknown ({reason}); known part 0 KiB "
                                                         f"of {kib} KiB LDS"),))
                           for t, kib in (("mi300x", 64), ("mi355x", 160), ("mi455x", 320))}


NVSHMEM_MSG = "NVSHMEM device calls (nvshmem_*, nvshmemx_*, nvshmemi_ibgda_*): port to rocSHMEM's device API"
NCCL_MSG = ("GPU-initiated communication through NCCL's device API (ncclDevComm / ncclWindow / GIN): RCCL has no "
            "device API; the transport is redesigned (rocSHMEM, host collectives)")


@pytest.fixture(scope="module")
def comm():
    result = run(BASE / "comm", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: k for k in result.kernels}


def test_nccl_device_api_in_a_kernels_parameters_is_a_rewrite(comm):
    """comm.cu:13 takes `const ncclDevComm comm, const ncclWindow_t win` and waits through the project's own
    wrapper (`Gin::wait`): NCCL's device API, which RCCL does not have."""
    k = comm["gin_wait_kernel"]
    assert (k.line, k.end_line) == (13, 16)
    assert "nccl-device" in k.facts.cuda_libraries
    assert verdicts(k) == {t: ("rewrite", (("device-networking", NCCL_MSG),)) for t in TARGETS}


def test_nvshmem_device_calls_are_a_rocshmem_port(comm):
    """comm.cu:20-21 nvshmem_signal_wait_until / nvshmemx_barrier_all_block in the kernel; put_kernel (line 24)
    reaches nvshmemi_ibgda_put_nbi_warp through put_block in rdma.cuh:4."""
    assert verdicts(comm["signal_wait_kernel"]) == {t: ("fix", (("nvshmem-device", NVSHMEM_MSG),)) for t in TARGETS}
    assert verdicts(comm["put_kernel"]) == {
        t: ("fix", (("nvshmem-device", NVSHMEM_MSG + "; via put_block (rdma.cuh:4)"),)) for t in TARGETS}


def test_host_side_nccl_leaves_the_kernel_it_follows_alone(comm):
    """step() launches scale_kernel and then calls ncclAllReduce on the host (comm.cu:35): not device code."""
    assert comm["scale_kernel"].facts.cuda_libraries == ()
    assert verdicts(comm["scale_kernel"]) == {t: ("ok", ()) for t in TARGETS}
