"""Kernel verdicts of issue 27 (session 16b) on fixtures/kernels_s16b: causes read on heldout11/12, now development
data, each a general mechanism. Exact facts, reasons and verdicts per target."""
from __future__ import annotations

from porter.kernels.triton import hopper_extra
from porter.model.kernel import TritonUse
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s16b"


def analysed(name: str) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {(k.name, k.line): k for k in result.kernels}


OPTIX = ("optix-program", "OptiX device API calls (optix*: launch index, trace, payload registers): an OptiX pipeline "
                          "program; ROCm has no OptiX, rewrite it on HIP RT", ())


def test_an_optix_program_is_a_rewrite_on_every_target():
    """tracer.cu: __raygen__rg (line 13) calls optixGetLaunchIndex and optixTrace (lines 14, 16); __closesthit__ch
    (line 20) calls optixGetRayTmax (line 22) and reads its payload through the same-file helper payload()
    (optixGetPayload_0, line 10). Both are OptiX pipeline programs: a rewrite on every target. attenuate (line 28)
    calls optical_depth, which only starts with "optix" in lower case: ok."""
    k = analysed("optix")
    raygen, hit, plain = k[("__raygen__rg", 13)], k[("__closesthit__ch", 20)], k[("attenuate", 28)]
    assert (raygen.facts.cuda_libraries, hit.facts.cuda_libraries, plain.facts.cuda_libraries) == \
        (("optix",), ("optix",), ())
    assert verdicts(raygen) == {t: ("rewrite", (OPTIX,)) for t in TARGETS}
    assert verdicts(hit) == {t: ("rewrite", (OPTIX,)) for t in TARGETS}
    assert verdicts(plain) == {t: ("ok", ()) for t in TARGETS}


def test_a_triton_extension_packages_cuda_language_extras_are_cuda_only():
    """copies.py imports tid, ld and st from tritonext.language.extra.cuda.language_extra in a parenthesised list over
    lines 6-10 (a comment on line 8): copy_lanes (decorated on line 15) uses them on lines 17 and 19, a fix on every target.
    copy_blocks (line 22) uses laneid from the package's language.extra.hip (line 12): ok."""
    k = analysed("triton")
    lanes, blocks = k[("copy_lanes", 15)], k[("copy_blocks", 22)]
    assert lanes.facts.triton.uses == (TritonUse("cuda-extra", "tid", 17), TritonUse("cuda-extra", "ld", 19),
                                       TritonUse("cuda-extra", "st", 19))
    extra = ("triton-cuda-extra", "uses ld, st, tid from the CUDA backend's language extras (language.extra.cuda)",
             (17, 19))
    assert verdicts(lanes) == {t: ("fix", (extra,)) for t in TARGETS}
    assert blocks.facts.triton.uses == ()
    assert verdicts(blocks) == {t: ("ok", ()) for t in TARGETS}


def test_the_language_extras_tma_and_mbarrier_wrappers_are_hopper_features():
    """load_tile (decorated on line 28) calls mbarrier_expect_tx and tma_load_2d (lines 31-32, imported on line 11 from the
    extras' tma_language): the TMA and transaction barriers AMD lacks, a rewrite on every target; its tid (line 30)
    is a plain CUDA extra."""
    k = analysed("triton")[("load_tile", 28)]
    names = {"mi300x": "AMD Instinct MI300X", "mi355x": "AMD Instinct MI355X", "mi455x": "AMD Instinct MI455X (pre-release)"}
    assert (hopper_extra("tma_load_2d"), hopper_extra("mbarrier_expect_tx"), hopper_extra("tid"),
            hopper_extra("tmax")) == ("tma", "mbarrier", None, None)
    for t in TARGETS:
        verdict, details = verdicts(k)[t]
        assert verdict == "rewrite"
        assert details[0] == ("hopper-blackwell-ptx", "uses mbarrier, tma through the language extras "
                              f"(mbarrier_expect_tx, tma_load_2d); {names[t]} has no TMA/wgmma/tcgen05"
                              + (" (it has TDM, with a different API)" if t == "mi455x" else ""), (31, 32))
        assert details[1] == ("triton-cuda-extra", "uses tid from the CUDA backend's language extras "
                              "(language.extra.cuda)", (30,))


def test_cute_pointer_views_alone_are_a_fix_and_the_algebra_a_rewrite():
    """combine.cu (under `using namespace cute`): combine_view (line 8) only views global memory through
    make_tensor(make_gmem_ptr(...)) and indexes it, a fix on every target (the CuTe port, not a rewrite);
    combine_partitioned (line 16) partitions a tensor among threads (local_partition, line 18): a rewrite."""
    k = analysed("cute")
    view, part = k[("combine_view", 8)], k[("combine_partitioned", 16)]
    assert view.facts.cute_tensor == ("make_gmem_ptr", "make_tensor")
    assert part.facts.cute_tensor == ("local_partition", "make_gmem_ptr", "make_tensor")
    cute = ("cutlass-cute", "uses cute:: in the kernel body; rewrite those parts without CUTLASS", ())
    assert verdicts(view) == {t: ("fix", (cute,)) for t in TARGETS}
    algebra = ("cute-tensor", "CuTe tensor code (local_partition, make_gmem_ptr, make_tensor); rewrite on Composable "
                              "Kernel / CK-Tile", ())
    assert verdicts(part) == {t: ("rewrite", (algebra,)) for t in TARGETS}
