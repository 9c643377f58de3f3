"""Kernel verdicts of issue 27 (session 17b) on fixtures/kernels_s17b: a ROCm arm that fixes the wave size at 64
(class 4, DEV017) is wrong on wave32 MI455X, and a kernel whose warp code uses that constant - in its body or in
a helper of another file - reads fix there, naming the constant and where it is defined. Exact lines and texts."""
from __future__ import annotations

from porter.kernels.callgraph import helper_index
from porter.kernels.verdicts import Wave64Use, wave64_constants, wave64_uses
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s17b"


def scanned(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def wave64(path: str, line: int) -> tuple:
    return ("DEV017", f"warp code uses WARP_SIZE ({path}:{line}), fixed at 64 for every AMD GPU: mi455x (gfx1250) "
                      "runs 32-lane waves, so shuffle steps of 32 and 64-lane warp ids are wrong there")


def test_warp_code_using_a_wave_size_fixed_at_64_is_a_fix_on_wave32_only():
    """policies.hpp fixes WARP_SIZE at 64 in its __HIP_PLATFORM_AMD__ arm (line 4: DEV017). kernels.cu's block_sum
    (line 3) reduces through warp_sum (reduce.hpp, which shuffles over `o < WARP_SIZE`), called at line 5, and
    indexes its per-warp slots with WARP_SIZE at line 6; lane_max (line 11) shuffles over WARP_SIZE itself (line
    13): both are fixes on wave32 mi455x and ok on wave64 mi300x/mi355x. scale (line 18) only groups threads by
    WARP_SIZE, with no lane reading another's value: ok everywhere. wave_arch.cu chooses WAVE_SIZE under __GFX9__
    (no DEV017): arch_sum (line 8) is ok everywhere."""
    result = scanned("wave64")
    k = {(x.name, x.line): x for x in result.kernels}
    assert [(f.path, f.line) for f in result.findings if f.rule == "DEV017"] == [("policies.hpp", 4)]
    assert [(w.line, w.name) for w in k[("block_sum", 3)].facts.wave_names] == [(6, "WARP_SIZE")]
    fixed = wave64("policies.hpp", 4)
    assert verdicts(k[("block_sum", 3)]) == {"mi300x": ("ok", ()), "mi355x": ("ok", ()),
                                             "mi455x": ("fix", (fixed + ((5, 6),),))}
    assert verdicts(k[("lane_max", 11)]) == {"mi300x": ("ok", ()), "mi355x": ("ok", ()),
                                             "mi455x": ("fix", (fixed + ((13,),),))}
    assert verdicts(k[("scale", 18)]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(k[("arch_sum", 8)]) == {t: ("ok", ()) for t in TARGETS}


def test_the_constant_counts_only_where_the_using_file_includes_its_definition():
    """wave64_twin: hip_policies.hpp fixes WARP_SIZE at 64 (line 3), cuda_policies.hpp sets its own 32. The CUDA
    twin's twin_sum (cuda_reduce.cu, line 4) includes only cuda_policies.hpp: its WARP_SIZE is not the 64, ok. The
    HIP twin's hip_sum (hip_reduce.cu, line 3) includes hip_policies.hpp: a fix on mi455x (line 5), and the ROCm
    file does not handle it (DEV017 is about code the ROCm build compiles)."""
    result = scanned("wave64_twin")
    k = {x.name: x for x in result.kernels}
    assert wave64_constants(result.findings) == {"WARP_SIZE": (("hip_policies.hpp", 3),)}
    index = helper_index(result.files)
    constants = wave64_constants(result.findings)
    assert wave64_uses(k["twin_sum"], k["twin_sum"].facts, constants, index) == ()
    assert wave64_uses(k["hip_sum"], k["hip_sum"].facts, constants, index) == (
        Wave64Use("WARP_SIZE", "hip_policies.hpp", 3, (5,)),)
    assert verdicts(k["twin_sum"]) == {t: ("ok", ()) for t in TARGETS}
    assert verdicts(k["hip_sum"]) == {"mi300x": ("ok", ()), "mi355x": ("ok", ()),
                                      "mi455x": ("fix", (wave64("hip_policies.hpp", 3) + ((5,),),))}


def test_a_comment_or_string_naming_the_constant_is_no_use():
    """Only code names a constant: `// WARP_SIZE` and "WARP_SIZE" in a body are not uses of it."""
    from porter.kernels.facts import measure_file
    from porter.source.parse import parse

    src = (b'__global__ void k(float* x) {\n'
           b'  // steps of WARP_SIZE\n'
           b'  const char* s = "kWarpSize";\n'
           b'  float v = __shfl_xor(x[0], 1);\n'
           b'  x[threadIdx.x % ns::kWarpSize] = v + warpSize;\n'
           b'}\n')
    kernels = measure_file(parse("k.cu", "cuda", src))
    assert [(w.line, w.name) for w in kernels[0].facts.wave_names] == [(5, "kWarpSize")]
