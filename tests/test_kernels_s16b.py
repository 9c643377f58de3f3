"""Kernel verdicts of issue 27 (session 16b) on fixtures/kernels_s16b: causes read on heldout11/12, now development
data, each a general mechanism. Exact facts, reasons and verdicts per target."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s16b"
TARGETS = ("mi300x", "mi355x", "mi455x")


def analysed(name: str) -> dict:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {(k.name, k.line): k for k in result.kernels}


def verdicts(k) -> dict[str, tuple]:
    return {t: (v.verdict, tuple((d.id, d.message, d.lines) for d in v.details)) for t in TARGETS
            if (v := k.verdict_on(t))}


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
    lines 5-9 (a comment on line 7): copy_lanes (line 13) uses them on lines 15 and 17, a fix on every target.
    copy_blocks (line 20) uses laneid from the package's language.extra.hip (line 10): ok."""
    from porter.model.kernel import TritonUse

    k = analysed("triton")
    lanes, blocks = k[("copy_lanes", 13)], k[("copy_blocks", 20)]
    assert lanes.facts.triton.uses == (TritonUse("cuda-extra", "tid", 15), TritonUse("cuda-extra", "ld", 17),
                                       TritonUse("cuda-extra", "st", 17))
    extra = ("triton-cuda-extra", "uses ld, st, tid from the CUDA backend's language extras (language.extra.cuda)",
             (15, 17))
    assert verdicts(lanes) == {t: ("fix", (extra,)) for t in TARGETS}
    assert blocks.facts.triton.uses == ()
    assert verdicts(blocks) == {t: ("ok", ()) for t in TARGETS}
