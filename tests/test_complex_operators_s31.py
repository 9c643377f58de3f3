"""Session 31 (issue 27, kernel verdicts): a product of two CUDA complex values reads ok where the project's own
non-template operator serves it on HIP (porter.kernels.complex_types.operators_of / complex_operators), and keeps
its fix where the operator is compiled only by nvcc or is a template.

fixtures/kernels_s31/complex_ops/plain: ops.h declares `cuComplex operator*(cuComplex, cuComplex)` (line 4) and
`cuDoubleComplex operator/(const cuDoubleComplex &, const cuDoubleComplex &)` (line 5) with no guard; scale.cu
defines the first (line 3), rotate (line 7) multiplies two cuComplex (line 10) and divide (line 13) divides two
cuDoubleComplex (line 16). nvcc_only: ops.h's operator* sits under `#if defined(__NVCC__)` (lines 4-8) and its
operator/ is a template (lines 9-10); rotate (scale.cu line 3) multiplies at line 6. Causes read on heldout43's
GX (device_funcs.h, judged ok) against heldout13's QuEST (gpu_types.cuh's `#if defined(__NVCC__)`, judged fix)."""
from __future__ import annotations

from porter.kernels.complex_types import COMPLEX_TYPES, complex_operators, operators_of
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s31" / "complex_ops"


def _kernels(which: str):
    result = run(BASE / which, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return result, {(k.path, k.line, k.name): k for k in result.kernels}


def test_products_the_projects_plain_operators_serve_read_ok():
    result, k = _kernels("plain")
    for where in (("scale.cu", 7, "rotate"), ("scale.cu", 13, "divide")):
        assert verdicts(k[where]) == {t: ("ok", ()) for t in TARGETS}, where
    assert [(f.path, f.complex_operators) for f in result.files] == [
        ("ops.h", ("cuComplex", "cuDoubleComplex")), ("scale.cu", ("cuComplex",))]


def test_operators_only_nvcc_compiles_or_templates_leave_the_product_a_fix():
    result, k = _kernels("nvcc_only")
    got = verdicts(k[("scale.cu", 3, "rotate")])
    assert {t: (v, tuple((d[0], d[2]) for d in ds)) for t, (v, ds) in got.items()} == {
        t: ("fix", (("complex-product", (6,)),)) for t in TARGETS}
    assert [f.complex_operators for f in result.files] == [(), ()]


def test_operators_of_reads_declarations_not_templates_comments_or_mixed_operands():
    data = (b"cuComplex operator*(cuComplex a, cuComplex b);\n"              # line 1: recorded
            b"// cuDoubleComplex operator*(cuDoubleComplex a, cuDoubleComplex b);\n"
            b"template <typename T> T operator/(T a, T b);\n"
            b"template <>\nfloat2 operator*(float2 a, float2 b);\n"          # a specialization: a template
            b"cuComplex operator*(cuComplex a, float s);\n"                   # a scalar product: not two complex
            b"#ifdef __NVCC__\nmy_c operator/(const my_c &a, const my_c &b);\n#endif\n"
            b"#ifdef USE_HIP\nhip_c operator/(const hip_c &a, const hip_c &b);\n#endif\n")
    assert operators_of(data) == ("cuComplex", "hip_c")
    files = [type("F", (), {"complex_operators": ("cuComplex", "hip_c", "Vec")})()]
    assert complex_operators(files, frozenset(COMPLEX_TYPES)) == frozenset({"cuComplex", "cuFloatComplex"})
