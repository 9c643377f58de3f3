"""Kernel verdicts on dual projects (session 24, reach25; issue 27 classes 3 and 4) on fixtures/reach_s24: existing
mechanisms widened to the facts they stand on. A kernel defined only under an NVIDIA compiler or toolkit macro is
compiled to nothing by hip-clang; 1-bit WMMA has no AMD matrix instruction; a file's own function named like a CUDA
name HIP lacks is the project's code; a ROCm arm's namespace alias maps `wmma::` to rocWMMA; a file that `#error`s
only in the ROCm build is ported by nothing; wave-size arms are compiled per target. Exact kernels, verdicts, check
ids, lines and statuses, with near misses."""
from __future__ import annotations

from porter.model import Severity, Status
from porter.source import preprocessor

from conftest import FIXTURES, REPO
from kernels_s21_table import OK, TARGETS, analysed, every, verdicts

BASE = FIXTURES / "reach_s24"


def _analysed(name: str):
    return analysed(name, BASE)


def test_a_kernel_only_nvidia_macros_select_is_dropped_on_hip():
    # clang-22 -x hip --offload-arch=gfx942 --cuda-device-only -E (hip_runtime.h first) and hipcc 5.2.3 -E keep
    # `chosen` and the `#else` marlin, and neither gpu_write nor nvcc_only
    result = _analysed("dropped")
    got = verdicts(result, by_line=True)
    assert got == {("gpu_write", 4): every("fix", ("dropped-on-hip", "fix", (1,))),
                   ("chosen", 14): OK, ("marlin", 19): OK, ("marlin", 21): OK,
                   # the `#ifdef __NVCC__` fork reads as the CUDA side of a guard (port status: handled), as before
                   ("nvcc_only", 25): OK}
    status = {(k.name, k.line): k.status for k in result.kernels}
    assert status[("gpu_write", 4)] is Status.OPEN and status[("nvcc_only", 25)] is Status.HANDLED
    pre = preprocessor.preprocess((BASE / "dropped" / "bench.cu").read_bytes())
    assert [preprocessor.hip_dropping_arm(pre, n) for n in (4, 14, 19, 21, 25)] == [1, None, 17, None, 24]


def test_one_bit_wmma_is_a_rewrite():
    got = verdicts(_analysed("onebit"))
    assert got["bit_gemm"] == every("rewrite", ("wmma-b1", "rewrite", ()), ("wmma-shape", "rewrite", ()),
                                    ("wmma", "fix", (5, 6, 7, 8, 9, 10, 11, 12)))
    # near miss: a local called b1 is no precision
    assert got["half_gemm"] == every("fix", ("wmma", "fix", (18, 19, 20, 21, 22, 23, 24, 25)))


def test_a_files_own_function_named_like_a_cuda_name_is_its_code():
    result = _analysed("ownfn")
    got = sorted((f.path, f.line, f.severity) for f in result.findings if f.rule == "API002")
    # the launch of pfb.cu's own int2float kernel; other.cu defines none, so its call is the CUDA one
    assert got == [("other.cu", 2, Severity.HIGH), ("pfb.cu", 9, Severity.INFO)]
    own = next(f for f in result.findings if f.rule == "API002" and f.path == "pfb.cu")
    assert dict(own.data)["own_function"] == ("int2float is this file's own kernel (line 2): the call resolves to it, "
                                              "and HIP declares no such name")


def test_a_rocm_namespace_alias_ports_wmma_unless_the_rocm_build_refuses_the_file():
    result = _analysed("alias")
    got = verdicts(result)
    assert got["gemm"] == OK  # the wmma lines, the helper's included, are rocWMMA through tiles.h:5
    assert got["gemm_bits"] == every("fix", ("wmma", "fix", (9, 10, 11, 12)))
    status = {k.name: (k.status, k.handled_by) for k in result.kernels}
    assert status == {"gemm": (Status.HANDLED, "src/tiles.h:5"), "gemm_bits": (Status.OPEN, None)}
    by_spot = {(f.path, f.line, f.rule): (f.status, f.handled_by) for f in result.findings
               if f.severity > Severity.INFO}
    assert by_spot[("src/gemm.cu", 4, "DEV005")] == (Status.HANDLED, "src/tiles.h:5")
    assert by_spot[("src/bits.cu", 9, "DEV005")] == (Status.OPEN, None)
    # copies.h is included only by bits.cu, which the ROCm build refuses: the CUDA build's alone
    assert by_spot[("src/copies.h", 8, "DEV012")] == (Status.HANDLED, "src/bits.cu:5")


def test_wave_size_arms_are_read_per_target():
    result = _analysed("wavearm")
    assert verdicts(result) == {"pack_bits": OK}
    dev003 = [(f.line, f.severity, dict(f.data).get("wave_arm")) for f in result.findings if f.rule == "DEV003"]
    assert dev003 == [(4, Severity.INFO, "in the `WARP_SIZE == 32` arm (line 3): compiled only where the wave is 32 "
                                         "lanes, and the `WARP_SIZE == 64` arm is the wave64 code")]
    pre = preprocessor.preprocess((BASE / "wavearm" / "pack.cu").read_bytes())
    assert preprocessor.wave_size_arms(pre) == ((4, 5, 32, "WARP_SIZE"), (7, 8, 64, "WARP_SIZE"))
    # near miss: `#define WARP_SIZE 32` picks the 32-lane arm on every target (and, since session 25's file switch
    # constants, the `WARP_SIZE == 64` arm's line 10 is no longer read: no build compiles it)
    near = _analysed("wavearm_near")
    assert verdicts(near) == {"pack_bits": {
        "mi300x": ("fix", (("wave64-ballot-32bit", "fix", (6,)), ("wave64-lane-count", "fix", (7,)))),
        "mi455x": ("ok", ())}}
    assert [(f.line, f.severity) for f in near.findings if f.rule == "DEV003"] == [(6, Severity.HIGH)]


def test_the_wave64_rules_step_6b_reads_are_wave64_only():
    from porter.match.refine_preprocessor import WAVE64_RULES

    for rule in sorted(WAVE64_RULES):
        (path,) = (REPO / "rules" / "device").glob(f"{rule}-*.yaml")
        assert 'targets: ["wavefront_size == 64"]' in path.read_text(), rule

    assert TARGETS == ("mi300x", "mi455x")  # a wave64 and a wave32 target: every verdict above reads both


def test_a_counterpart_kernel_twins_only_the_cuda_file_of_its_stem():
    result = _analysed("twins")
    got = {(k.path, k.name): (k.verdict_on("mi300x").verdict, k.verdict_on("mi455x").verdict) for k in result.kernels}
    # src/hip/rows.cpp mirrors src/cuda/rows.cu; rows_warp.cu's row_sums is a variant with no counterpart, so its
    # 0xffffffff shuffles are its own (before: handled by the name alone, ok)
    assert got == {("src/cuda/rows.cu", "row_sums"): ("ok", "ok"),
                   ("src/cuda/rows_warp.cu", "row_sums"): ("fix", "fix"),
                   ("src/hip/rows.cpp", "row_sums"): ("ok", "ok")}
    from porter.portaware.status import _twinned

    assert _twinned("src/cuda/a.cu", ["src/hip/a.cpp"], ["src/cuda/a.cu"])
    assert _twinned("src/cuda/a.cu", ["src/hip/b.cpp"], ["src/cuda/a.cu"])  # the one CUDA definition: its twin
    assert not _twinned("src/cuda/a_warp.cu", ["src/hip/a.cpp"], ["src/cuda/a.cu", "src/cuda/a_warp.cu"])
    assert not _twinned("src/cuda/a.cu", [], ["src/cuda/a.cu"])
