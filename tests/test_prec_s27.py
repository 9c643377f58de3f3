"""Precision of open findings pooled over the development sets (issue 27, session 27, helper prec).
fixtures/prec_s27 holds one small repository per mechanism, each beside near misses that stay open."""
from __future__ import annotations

from pathlib import Path

from porter.match.refine_helpers import unused_helpers

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s27"


def _findings(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None)).result.findings


def test_inline_ptx_helpers_nothing_calls_read_info():
    # src/lanes.cuh: laneMaskGt (__forceinline__), smId (static) and laneMaskGe (named only in a comment of scan.cu)
    # are never called, and laneMaskLe is called only under `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700`,
    # an arm hip-clang never takes, so hip-clang never emits their PTX: info. laneMaskLt and the template laneId are called,
    # warpId is named by a macro (a mention keeps it), and scan.cu's plain __device__ nclock is emitted uncalled.
    got = [(f.path, f.line, str(f.status), str(f.severity), "unused" in dict(f.data))
           for f in _findings(FIXTURE / "asmhelpers") if f.rule == "DEV001"]
    assert got == [
        ("src/lanes.cuh", 7, "open", "high", False),
        ("src/lanes.cuh", 14, "open", "info", True),
        ("src/lanes.cuh", 21, "open", "info", True),
        ("src/lanes.cuh", 29, "open", "high", False),
        ("src/lanes.cuh", 36, "open", "high", False),
        ("src/lanes.cuh", 44, "open", "info", True),
        ("src/lanes.cuh", 52, "open", "info", True),
        # pack64 is never called either, but its "=l" operand (PTX's 64-bit register class) is rejected by the
        # AMDGPU target when clang parses the statement, used or not
        ("src/lanes.cuh", 60, "open", "high", False),
        # archOnly is defined (and called) only under `#ifdef __CUDA_ARCH__`: the arm, not the helper, is the question
        ("src/lanes.cuh", 69, "open", "high", False),
        ("src/scan.cu", 7, "open", "high", False),
    ]


def test_a_helper_called_from_another_file_stays_open():
    # The same header read with scan.cu calling laneMaskGt: the call in the other file is a use.
    findings = [f for f in _findings(FIXTURE / "asmhelpers") if f.rule == "DEV001"]
    import dataclasses

    from porter.model.finding import Severity
    opened = [dataclasses.replace(f, severity=Severity.HIGH, data=()) for f in findings]
    files = {p: (FIXTURE / "asmhelpers" / p).read_bytes() for p in ("src/lanes.cuh", "src/scan.cu")}
    files["src/scan.cu"] += b"\n__global__ void k(unsigned *o) { o[0] = laneMaskGt(); }\n"
    out = unused_helpers(opened, {p: "cuda" for p in files}, files.get)
    assert [(f.line, str(f.severity)) for f in out if f.path == "src/lanes.cuh"] == [
        (7, "high"), (14, "high"), (21, "info"), (29, "high"), (36, "high"), (44, "info"), (52, "info"), (60, "high"), (69, "high")]
    # The same call moved out of the __CUDA_ARCH__ arm is a use the ROCm build compiles.
    files["src/scan.cu"] += b"__global__ void r(unsigned *o) { o[0] = laneMaskLe(); }\n"
    out = unused_helpers(opened, {p: "cuda" for p in files}, files.get)
    assert [(f.line, str(f.severity)) for f in out if f.path == "src/lanes.cuh"][-3] == (52, "high")
    # Past the read budget (a file unreadable counts as nothing read, so shrink the budget instead) all stand.
    import porter.match.refine_helpers as rh
    old = rh.READ_BUDGET
    rh.READ_BUDGET = 10
    try:
        assert [str(f.severity) for f in unused_helpers(opened, {p: "cuda" for p in files}, files.get)] == [
            "high"] * 10
    finally:
        rh.READ_BUDGET = old


def test_toolkit_tests_around_log_lines_only_are_no_port_work():
    # query.cu: `#if CUDART_VERSION >= 3000` around shrLog/sdkLogInfo lines and `>= 3010` around `LOG(INFO) << ...`
    # only print (kfusion's deviceQuery copy): dropped, as printf-only arms are. An arm that also assigns (line 22)
    # and one calling logf, arithmetic (line 26), stay.
    got = [(f.line, str(f.status), str(f.severity)) for f in _findings(FIXTURE / "printarms") if f.rule == "DEV010"]
    assert got == [(22, "open", "medium"), (26, "open", "medium")]


def test_output_call_reads_loggers_not_arithmetic():
    from porter.match.refine_common import OUTPUT_CALL

    for st in ('shrLog("x")', 'sdkLogError("x")', "LOG(INFO) << x", 'LOG_WARNING("x")', 'util::shrLog("x")',
               'printf("x")', "std::cout << x"):
        assert OUTPUT_CALL.match(st), st
    for st in ("logf(x)", "log(x)", "Log(x)", "catalog(x)", "backLog = 1", "LOGICAL(x)"):
        assert not OUTPUT_CALL.match(st), st


def test_pyt009_is_calibrated_to_info_and_still_reports():
    # PYT009 (Triton/Python 32-lane warp numbers) reads info by its rule: 0 judged-real rows in heldout3-34, its open
    # rows all judged false (3 projects). The finding is still reported, with its message and the wave64 note.
    from porter.model.finding import Severity
    from porter.rules import load_rules

    rule = next(r for r in load_rules().rules if r.id == "PYT009")
    assert rule.severity is Severity.INFO
    got = [(f.path, f.line, str(f.severity), str(f.status))
           for f in _findings(Path(__file__).resolve().parent.parent / "fixtures/repos/torch-ext")
           if f.rule == "PYT009"]
    assert got == [("mytorchext/triton_kernels.py", 8, "info", "open")]


def test_amdgpu_constraint_reading():
    from porter.match.refine_helpers import parses_on_amdgpu

    assert parses_on_amdgpu(b'asm("mov.u32 %0, %%laneid;" : "=r"(id));')
    assert parses_on_amdgpu(b'asm volatile("bar.sync %0, %1;" : : "r"(a), "n"(4) : "memory");')
    assert parses_on_amdgpu(b'asm("x" : "+v"(a), "=&s"(b) : "0"(c), "m"(d));')
    for bad in (b'"=l"(r)', b'"h"(x)', b'"=f"(y)', b'"d"(z)', b'"c"(w)'):
        assert not parses_on_amdgpu(b'asm("op %0;" : ' + bad + b');'), bad
