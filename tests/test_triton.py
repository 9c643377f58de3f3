"""Triton kernels (porter.kernels.triton) on fixtures/triton: which functions are kernels, their exact facts, the
verdict per target written above each kernel, the messages, the cache round trip and the token gate."""
from __future__ import annotations

import re

import pytest

from porter import cache
from porter.kernels.triton import measure_python
from porter.kernels.verdicts import analyse
from porter.model.kernel import TritonConfig, TritonDot, TritonUse
from porter.pipeline import scan
from porter.settings import Settings
from porter.source.parse import parse

from conftest import FIXTURES

TRITON_DIR = FIXTURES / "triton"
_EXPECT = re.compile(r"^\s*#\s*expect:\s*(.*)$")
_REASONS = re.compile(r"^\s*#\s*reasons:\s*(.*)$")
_DEF = re.compile(r"^def\s+(\w+)\s*\(")


def annotated() -> dict[str, tuple[dict[str, str], set[str]]]:
    out, expect, reasons = {}, None, set()
    for line in (TRITON_DIR / "kernels.py").read_text().splitlines():
        if m := _EXPECT.search(line):
            expect, reasons = dict(p.split("=") for p in m.group(1).split()), set()
        elif m := _REASONS.search(line):
            reasons = {r.strip() for r in m.group(1).split(",")}
        elif expect is not None and (m := _DEF.match(line)):
            out[m.group(1)] = (expect, reasons)
            expect = None
    return out


EXPECTED = annotated()


@pytest.fixture(scope="module")
def analysed():
    return analyse(scan(TRITON_DIR, Settings(jobs=1, cache_dir=None)), ["all"])


def kernel(result, name):
    return next(k for k in result.kernels if k.name == name)


def test_the_jit_functions_that_are_launched_or_stand_alone_are_the_kernels(analysed):
    # _accumulate is a jit helper (called from sum_kernel, never launched); numba.jit / torch.jit are not Triton.
    assert [(k.name, k.line, k.end_line, k.language) for k in analysed.kernels] == [
        ("add_kernel", 22, 27, "triton"), ("sum_kernel", 36, 39, "triton"), ("matmul_kernel", 44, 53, "triton"),
        ("matmul_amd", 57, 60, "triton"), ("quant_fp8", 65, 68, "triton"), ("quant_fnuz", 73, 76, "triton"),
        ("tf32_gemm", 81, 83, "triton"), ("allow_tf32_gemm", 88, 90, "triton"), ("wide_kernel", 95, 97, "triton"),
        ("ptx_kernel", 102, 106, "triton"), ("libdevice_kernel", 111, 114, "triton"), ("tma_kernel", 119, 122, "triton"),
        ("descriptor_kernel", 127, 130, "triton"), ("cluster_kernel", 135, 139, "triton"),
        ("norm_kernel", 169, 171, "triton"), ("xent_kernel", 176, 178, "triton"),
        ("single_config_kernel", 192, 195, "triton"), ("opt_in_descriptor_kernel", 201, 209, "triton"),
            ("legacy_libdevice_kernel", 215, 218, "triton"), ("math_kernel", 223, 226, "triton"),
            ("rocm_tuned_descriptor_kernel", 240, 244, "triton"),
            ("capability_tuned_descriptor_kernel", 250, 256, "triton")]
    assert set(EXPECTED) == {k.name for k in analysed.kernels}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdicts_match_annotations(analysed, name):
    expect, reasons = EXPECTED[name]
    k = kernel(analysed, name)
    assert {v.target: v.verdict for v in k.verdicts} == expect
    assert {d.id for v in k.verdicts for d in v.details} == reasons


def test_autotune_configs_dots_and_launches_are_measured(analysed):
    t = kernel(analysed, "matmul_kernel").facts.triton
    assert t.decorators == ("autotune", "jit")
    assert t.constexpr_parameters == ("BLOCK_M", "BLOCK_N", "BLOCK_K")
    assert t.configs == (  # followed from the module-level NVIDIA_CONFIGS list
        TritonConfig(11, (("BLOCK_M", "128"), ("BLOCK_N", "256"), ("BLOCK_K", "64")), (8,), (3,)),
        TritonConfig(12, (("BLOCK_M", "64"), ("BLOCK_N", "128"), ("BLOCK_K", "32")), (4,), (4,)))
    assert t.dots == (TritonDot(52, ("BLOCK_M", "BLOCK_N", "BLOCK_K"), ((64, 128, 32), (128, 256, 64))),)
    assert t.launches == (TritonConfig(157),)
    assert t.num_warps == (4, 8)
    # A comprehension over literals, built by a same-file function: every value it runs over.
    amd = kernel(analysed, "matmul_amd").facts.triton
    assert amd.configs == (TritonConfig(17, (("BLOCK_M", "128,256"), ("BLOCK_N", "128"), ("BLOCK_K", "64")), (4, 8),
                                        (2,), (), ("matrix_instr_nonkdim", "waves_per_eu"), variants=4),)  # 2 m x 2 w
    assert amd.dots[0].sizes == ((128, 128, 64), (256, 128, 64))
    # Defaults of the constexpr parameters size the dot when nothing else does.
    assert kernel(analysed, "tf32_gemm").facts.triton.dots == (
        TritonDot(83, ("BLOCK_M", "BLOCK_N", "BLOCK_K"), ((64, 64, 32),), "tf32"),)
    assert kernel(analysed, "allow_tf32_gemm").facts.triton.dots == (TritonDot(90, (), (), "allow_tf32"),)
    assert kernel(analysed, "wide_kernel").facts.triton.launches == (TritonConfig(158, (("BLOCK", "4096"),), (32,)),)


def test_helpers_and_features_count_for_their_kernel(analysed):
    s = kernel(analysed, "sum_kernel").facts
    assert [(d.name, d.line, d.end_line) for d in s.device_functions] == [("_accumulate", 30, 32)]
    assert s.atomics == ("atomic_add",)
    assert s.triton.uses == (TritonUse("atomic", "atomic_add", 32),)
    assert kernel(analysed, "libdevice_kernel").facts.triton.uses == (
        TritonUse("cuda-extra", "libdevice.tanh", 114), TritonUse("cuda-extra", "tl.extra.cuda.globaltimer", 114))
    assert kernel(analysed, "quant_fp8").facts.triton.uses == (TritonUse("fp8", "float8e4nv", 68),)
    assert kernel(analysed, "tma_kernel").facts.triton.uses == (
        TritonUse("host-tma", "_experimental_descriptor_load", 121),)
    assert kernel(analysed, "descriptor_kernel").facts.triton.uses == (
        TritonUse("tensor-descriptor", "make_tensor_descriptor", 129),)
    # under `if USE_TMA:`, a constexpr switch that defaults to False: recorded, judged by no check
    assert kernel(analysed, "opt_in_descriptor_kernel").facts.triton.uses == (
        TritonUse("tensor-descriptor-opt-in", "make_tensor_descriptor", 205),)
    assert [(l.line, l.kernel, l.config) for l in analysed.launches] == [
        (155, "add_kernel", ("grid",)), (156, "sum_kernel", ("(triton.cdiv(n, 1024),)",)),
        (157, "matmul_kernel", ("grid",)), (158, "wide_kernel", ("(1,)", "num_warps=32")),
        (159, "tf32_gemm", ("(1,)",)), (161, "tma_kernel", ("(1,)", "num_warps=4")),
        (183, "norm_kernel", ("(1,)", "num_warps=num_warps", "num_warps<=32")),
        (185, "xent_kernel", ("(1,)", "num_warps=warps")), (186, "xent_kernel", ("(1,)", "num_warps=2"))]
    # A local clamped with literals gives its bound; a conditional is left unfolded.
    assert kernel(analysed, "norm_kernel").facts.triton.launches == (TritonConfig(183, (("BLOCK", "block_size"),), (32,)),)
    # torch.library.wrap_triton(kernel)[grid](...) launches the kernel it wraps.
    assert kernel(analysed, "xent_kernel").facts.triton.launches == (
        TritonConfig(185, (("BLOCK", "block_size"),)), TritonConfig(186, (("BLOCK", "64"),), (2,)))


def test_messages_say_what_it_means_on_the_target(analysed):
    def detail(name, target, check):
        return next(d for d in kernel(analysed, name).verdict_on(target).details if d.id == check)

    d = detail("wide_kernel", "mi300x", "triton-warps-over-max")
    assert (d.verdict, d.message, d.lines) == (
        "fix", "num_warps=32 is 32 x 64 = 2048 threads on AMD Instinct MI300X: above 1024 (at most 16 warps)", (158,))
    # Two NVIDIA configs are a choice the autotuner makes on the device; one fixed point is NVIDIA's to re-tune.
    assert not [x for x in kernel(analysed, "matmul_kernel").verdict_on("mi355x").details if x.id == "triton-num-warps"]
    d = detail("single_config_kernel", "mi355x", "triton-num-warps")
    assert (d.verdict, d.lines) == ("retune", (192,))
    assert d.message == ("1 autotune config(s) tuned on NVIDIA (num_warps 8; num_stages 4): num_warps=8 is 512"
                         " threads here, 256 on NVIDIA; re-tune num_warps, BLOCK_* and num_stages (AMD: waves_per_eu,"
                         " matrix_instr_nonkdim)")
    d = detail("tf32_gemm", "mi355x", "triton-tf32")
    assert d.message == ('tl.dot input_precision="tf32" on AMD Instinct MI355X (gfx950): CDNA4 has no TF32/XF32 MFMA'
                         ' (XF32 was dropped after CDNA3); the AMD backend rejects it: use "ieee" (or bf16x3)')
    d = detail("quant_fp8", "mi300x", "triton-fp8-ocp")
    assert d.message == ("tl.float8e4nv (OCP FP8) on AMD Instinct MI300X: FP8 here is FNUZ: use tl.float8e4b8 /"
                         " tl.float8e5b16 with doubled scales (OCP types are emulated or rejected by the AMD backend)")


def test_findings_inside_a_triton_kernel_name_it(analysed):
    assert sorted((f.rule, f.line, f.kernel) for f in analysed.findings if f.rule.startswith("PYT")) == [
        ("PYT001", 251, None),  # the capability test in capability_tuned_descriptor_kernel's configs
        ("PYT003", 90, "allow_tf32_gemm"), ("PYT010", 105, "ptx_kernel"),
        ("PYT012", 32, "_accumulate"),  # an atomic with no sem=: info, ROCm paths pass sem="relaxed"
        ("PYT013", 11, None), ("PYT013", 192, None),  # config lists with no AMD option (info): module-level, no kernel
        ("PYT013", 250, None)]  # (capability_tuned_descriptor_kernel's; ROCM_AWARE_CONFIGS at 232 tests for HIP)


def test_kernel_json_marks_triton_and_cuda_keeps_its_keys(analysed):
    d = kernel(analysed, "quant_fp8").to_dict()
    assert d["language"] == "triton"
    assert d["triton"]["uses"] == [{"kind": "fp8", "name": "float8e4nv", "line": 68}]
    assert d["targets"]["mi300x"]["verdict"] == "fix"
    cuda = analyse(scan(FIXTURES / "kernels" / "elementwise.cu", Settings(jobs=1, cache_dir=None)), ["mi300x"])
    assert all("language" not in k.to_dict() and "triton" not in k.to_dict() for k in cuda.kernels)


def test_triton_facts_round_trip_through_the_cache(analysed):
    for k in analysed.kernels:
        assert cache.loads(cache.dumps(k)) == k


def test_a_launch_in_another_file_reaches_the_verdict(tmp_path):
    (tmp_path / "k.py").write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                                   "def k(x, BLOCK: tl.constexpr):\n    tl.store(x, 1)\n")
    (tmp_path / "run.py").write_text("from k import k\n\n\ndef run(x):\n    k[(1,)](x, BLOCK=64, num_warps=32)\n")
    r = analyse(scan(tmp_path, Settings(jobs=1, cache_dir=None)), ["mi300x", "mi455x"])
    (only,) = r.kernels
    assert only.facts.triton.remote_launches == (TritonConfig(5, (), (32,), path="run.py"),)
    assert analyse(r, ["mi300x", "mi455x"]).kernels == r.kernels  # analysing again replaces, never appends
    assert {v.target: v.verdict for v in only.verdicts} == {"mi300x": "fix", "mi455x": "ok"}
    (over,) = [d for d in only.verdict_on("mi300x").details if d.id == "triton-warps-over-max"]
    assert over.lines == ()  # the launch is in run.py: no line of k.py to point at
    assert [(l.path, l.line, l.kernel) for l in r.launches] == [("run.py", 5, "k")]


def test_files_without_triton_are_not_measured():
    src = b"import numba\n\n\n@jit\ndef f(x):\n    return x\n\n\ndef g(t):\n    return t[grid](1)\n"
    assert measure_python(parse("a.py", "python", src)) == ([], [])
    # `jit` alone is Triton's only when the file imports it from triton.
    src2 = b"import triton\nfrom numba import jit\n\n\n@jit\ndef f(x):\n    return x\n"
    assert measure_python(parse("b.py", "python", src2)) == ([], [])
    src3 = b"from triton import jit\n\n\n@jit\ndef f(x):\n    x[0] = 1\n"
    (k,), launches = measure_python(parse("c.py", "python", src3))
    assert (k.name, k.line, k.end_line, launches) == ("f", 4, 6, [])
    # A jit function that returns a value is a helper another kernel inlines, not a kernel.
    assert measure_python(parse("d.py", "python", src3.replace(b"x[0] = 1", b"return x"))) == ([], [])


def test_every_report_lists_triton_kernels():
    import json

    import jsonschema

    from porter.pipeline import run
    from porter.render import render
    from porter.schemas import schema

    settings = Settings(jobs=1, cache_dir=None, targets=("mi300x", "mi355x"))
    doc = json.loads(render("json", run(TRITON_DIR, settings)))
    jsonschema.validate(doc, schema("scan.schema.json"))
    assert [(k["name"], k["language"], [l["line"] for l in k["launches"]]) for k in doc["kernels"]][:3] == [
        ("add_kernel", "triton", [155]), ("sum_kernel", "triton", [156]), ("matmul_kernel", "triton", [157])]
    assessed = run(TRITON_DIR, settings, assess=True)
    for fmt in ("markdown", "html", "console"):
        text = render(fmt, assessed).decode()
        assert "wide_kernel" in text and "kernels.py:95" in text, fmt
    kernel_rows = [line for line in render("markdown", assessed).decode().splitlines() if line.startswith("| `wide_kernel`")]
    assert kernel_rows and "| fix | fix |" in kernel_rows[0]


def test_only_triton_jit_functions_are_kernels_for_findings():
    src = b"import triton\nfrom numba import jit\n\n\n@jit\ndef f(x):\n    return x\n\n\n@triton.jit\ndef k(x):\n    x[0] = 1\n"
    sf = parse("e.py", "python", src)
    assert [(f.name, f.is_kernel) for f in sf.functions] == [("f", False), ("k", True)]


def test_triton_2_0_libdevice_calls_are_recorded_at_their_line_and_tl_math_is_not(analysed):
    assert kernel(analysed, "legacy_libdevice_kernel").facts.triton.uses == (
        TritonUse("legacy-libdevice", "tl.libdevice.erf", 218),
        TritonUse("legacy-libdevice", "triton.language.libdevice.tanh", 218))
    assert kernel(analysed, "math_kernel").facts.triton.uses == ()


def test_a_config_a_rocm_test_picks_answers_the_descriptor_check(analysed):
    # fixtures/triton/kernels.py:232-236: num_stages comes from `1 if ... torch.version.hip else 2` in the
    # comprehension's loop; the test is kept as written and the descriptor kernel reads ok on every target.
    rocm = kernel(analysed, "rocm_tuned_descriptor_kernel")
    assert rocm.facts.triton.configs == (
        TritonConfig(233, (("BLOCK_M", "64,128"), ("BLOCK_K", "64")), (4,), (), variants=2,
                     rocm_test="(torch.cuda.is_available() and torch.version.hip)"),)
    assert {v.verdict for v in rocm.verdicts} == {"ok"}
    # A test of the NVIDIA generation (line 251) is no ROCm test: the check stays, at the descriptor's lines.
    cap = kernel(analysed, "capability_tuned_descriptor_kernel")
    assert [c.rocm_test for c in cap.facts.triton.configs] == [None]
    assert [(d.id, d.lines) for d in cap.verdicts[0].details] == [("triton-tensor-descriptor", (255,))]
