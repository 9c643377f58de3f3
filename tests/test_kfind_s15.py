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
    for name in ("scopedlocal",):
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
