"""Kernel verdicts of issue 27 (session 20) on fixtures/kernels_s20: block sizes judged against the lanes NVIDIA's
32-lane warps used (one-thread blocks on a grid of many included, `<<<1, 1>>>` not), a reassigned local's value at
the launch, the block size a kernel's `blockIdx.x * C + threadIdx.x` indexing assumes when no launch gives one, and
such a block size in a HIP file read as ROCm code (not handled by being there). Exact verdicts, check ids, lines."""
from __future__ import annotations

from porter.kernels.checks import _wider_than_warps
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s20"
TARGETS = ("mi300x", "mi455x")


def analysed(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def verdicts(result) -> dict[tuple[str, str], dict[str, tuple]]:
    return {(k.path, k.name): {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                               for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


def retune(*lines: int) -> dict[str, tuple]:
    return {"mi300x": ("retune", (("block-not-wave-multiple", "retune", lines),)), "mi455x": ("ok", ())}


OK = {t: ("ok", ()) for t in TARGETS}


def test_partial_waves_against_nvidia_warps():
    # not a multiple of the wave (32, 96, 100, 144 on wave64; 100, 144 on wave32), except a block smaller than a
    # warp on wave32 (1, 8, 17: as partial as in NVIDIA's warp)
    assert [_wider_than_warps(t, 64) for t in (1, 8, 32, 64, 96, 100, 128, 144, 256)] == [
        True, True, True, False, True, True, False, True, False]
    assert [_wider_than_warps(t, 32) for t in (1, 8, 17, 32, 96, 100, 144)] == [
        False, False, False, False, False, True, True]


def test_block_sizes_of_launches():
    """blocks/launch.cu: `number_of_threads = 32;` (line 16) reaches the launch of small (line 17), the 256 before
    it reaches wide's (line 15); looped's `t = 32` after the launch inside the loop and branch's `if (f) b = 32;`
    leave no one value (not folded); <<<1, 1>>> is a serial task (ok), <<<n, 1>>> one lane per wave (retune on
    wave64); 100 and 96 threads leave a partial wave64 (retune), whole warps on wave32 only for 96."""
    result = analysed("blocks")
    got = verdicts(result)
    threads = {k.name: [s.threads for s in k.facts.sites] for k in result.kernels}
    assert threads["small"] == [32] and threads["wide"] == [256]
    assert threads["looped"] == [None] and threads["branch"] == [None]
    assert got[("launch.cu", "small")] == retune(17)
    assert got[("launch.cu", "spread")] == retune(27)
    assert got[("launch.cu", "ninety_six")] == retune(29)
    assert got[("launch.cu", "hundred")] == {t: ("retune", (("block-not-wave-multiple", "retune", (28,)),))
                                             for t in TARGETS}
    for name in ("wide", "looped", "branch", "serial"):
        assert got[("launch.cu", name)] == OK, name


def test_block_size_from_the_kernels_indexing():
    """blocks/launch.cu: indexed (no launch) computes `bid * ROW + tid` (line 36) through locals of blockIdx.x
    and threadIdx.x, ROW 32: retune on wave64. A 2-D kernel, one that reads blockDim and a 256 stride are ok."""
    result = analysed("blocks")
    got = verdicts(result)
    facts = {k.name: k.facts for k in result.kernels}
    assert facts["indexed"].indexed_block == (32, 36)
    assert facts["indexed_256"].indexed_block == (256, 41)
    assert facts["indexed_2d"].indexed_block is None and facts["indexed_dim"].indexed_block is None
    assert got[("launch.cu", "indexed")] == retune(36)
    for name in ("indexed_2d", "indexed_dim", "indexed_256"):
        assert got[("launch.cu", name)] == OK, name
    assert facts["indexed"].to_dict()["indexed_block"] == {"threads": 32, "line": 36}
    assert facts["small"].indexed_block == (32, 4)  # judged by its launch (line 17), as above
    assert "indexed_block" not in facts["wide"].to_dict()


def test_a_hip_files_own_block_size_is_rocm_code():
    """dual/: src/hip/weights.hip.cpp keeps the CUDA twin's 32-thread SUM_BLOCK (line 7): what the ROCm build runs,
    so its being in a HIP file does not handle it (tag rocm-code). The CUDA twin src/cuda/weights.cu stays handled
    by its twin (port awareness: which twin still holds the waste is not compared)."""
    got = verdicts(analysed("dual"))
    assert got[("src/hip/weights.hip.cpp", "weights")] == retune(7)
    assert got[("src/cuda/weights.cu", "weights")] == OK


def test_ptx_behind_function_like_macros():
    """macros/: loads invokes include/ptx.h's LDMATRIX_X2 (ldmatrix, line 8) and CP_ASYNC_COMMIT_GROUP (cp.async,
    line 9): an MFMA rewrite and a PTX fix at the invocation lines; same_file invokes its own file's HMMA macro
    (mma.sync, line 15). plain's SCALE is arithmetic: ok."""
    result = analysed("macros")
    got = {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                    for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}
    loads = ("rewrite", (("inline-ptx-matrix", "rewrite", (8, 9)), ("inline-ptx", "fix", (8, 9))))
    assert got["loads"] == {t: loads for t in TARGETS}
    assert got["same_file"] == {t: ("rewrite", (("inline-ptx-matrix", "rewrite", (15,)),)) for t in TARGETS}
    assert got["plain"] == OK
    facts = {k.name: k.facts.merged() for k in result.kernels}
    assert facts["loads"].inline_ptx.families == ("cp.async", "ldmatrix")
    assert facts["same_file"].inline_ptx.families == ("mma.sync",)
    # object_like writes include/ptx.h's object-like CP_ASYNC_WAIT_ALL (lines 7-8) as a bare statement (line 25):
    # its cp.async is a PTX fix there; ZERO_LANES (line 24) is a plain value, no statement of its own.
    assert got["object_like"] == {t: ("fix", (("inline-ptx", "fix", (25,)),)) for t in TARGETS}
    assert facts["object_like"].inline_ptx.families == ("cp.async",)


def test_a_projects_own_warpsize_member_is_its_constant():
    """member_warp/scan.cu: `GpuConfig::warpSize` (32 for nvcc, 64 in the `#else` at line 6) is the project's
    constant, not HIP's warpSize variable: no warpsize-constant in own_constant (line 11), which builtin's plain
    `warpSize` (line 16) still gets. own_shuffle's shuffle steps count from it (line 22): DEV017 on wave32 only, as
    for any wave-size constant fixed at 64."""
    result = analysed("member_warp")
    got = {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                    for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}
    assert got["own_constant"] == OK
    assert got["builtin"] == {t: ("fix", (("warpsize-constant", "fix", (16,)),)) for t in TARGETS}
    assert got["own_shuffle"] == {"mi300x": ("ok", ()), "mi455x": ("fix", (("DEV017", "fix", (22,)),))}
    names = {k.name: [(w.line, w.name) for w in k.facts.wave_names] for k in result.kernels}
    assert names["own_constant"] == [(11, "warpSize")] and names["builtin"] == []


def test_a_cooperative_launch_of_a_fixed_grid():
    """cooperative/persistent.cu: fixed_grid is launched cooperatively (line 27, renamed to HIP's by compat.h) with
    NUM_BLOCKS = 256 blocks: 48 of MI300X's 304 CUs idle (retune, at the launch and its grid.sync lines 8 and 10),
    none of MI455X's 256 (its grid sync stays the check it was). sm_grid's 132 blocks (an H100's SMs, line 28) are
    too few on both. occupancy_grid's grid comes from the occupancy API and the device's SM count: ok."""
    result = run(BASE / "cooperative", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    got = {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                    for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}
    assert got["fixed_grid"] == {
        "mi300x": ("retune", (("cooperative-fixed-grid", "retune", (8, 10, 27)), ("grid-sync", "check", (8, 10)))),
        "mi455x": ("check", (("grid-sync", "check", (8, 10)),))}
    assert got["sm_grid"] == {
        t: ("retune", (("cooperative-fixed-grid", "retune", (14, 16, 28)), ("grid-sync", "check", (14, 16))))
        for t in TARGETS}
    assert got["occupancy_grid"] == OK
    (fixed,) = [k for k in result.kernels if k.name == "fixed_grid"]
    message = next(d.message for d in fixed.verdict_on("mi300x").details if d.id == "cooperative-fixed-grid")
    assert message.startswith("cooperative launch of a fixed 256-block grid: AMD Instinct MI300X has 304 CUs, so 48")


def test_a_components_block_size_stays_the_kernels_need():
    """component/: SRC/cuda/scan.cu launches initData with THREAD_BLOCK_SIZE 8 (line 9); SRC/hip holds other
    files, so SRC/cuda is a CUDA component with a ROCm counterpart directory and no HIP twin of initData. A
    counterpart handles findings, not a kernel's needs (PortMap.decide_verdict), and block-not-wave-multiple being
    tagged rocm-code must not make it read handled there (superlu_dist's initData in heldout7)."""
    got = verdicts(analysed("component"))
    assert got[("SRC/cuda/scan.cu", "initData")] == retune(9)
