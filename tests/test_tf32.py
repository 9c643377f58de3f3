"""TF32 per target (rule DEV015): a kernel using TF32 tensor cores is checked on gfx942 (XF32 MFMA exists) and
must change its math on gfx950 (no TF32/XF32 MFMA), with the per-target note saying so."""
from __future__ import annotations

from porter.kernels.verdicts import analyse
from porter.pipeline import scan
from porter.settings import Settings
from porter.target_notes import with_target_notes

KERNEL = """#include <mma.h>
using namespace nvcuda;
__global__ void k(float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  c[threadIdx.x] = 0.f;
}
"""


def test_tf32_wmma_verdict_and_note_per_target(tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    result = analyse(scan(tmp_path, Settings(jobs=1, cache_dir=None)), ["mi300x", "mi355x"])
    (k,) = result.kernels
    dev015 = {v.target: next(d for d in v.details if d.id == "DEV015") for v in k.verdicts}
    assert {t: (d.verdict, d.lines) for t, d in dev015.items()} == {"mi300x": ("check", (4,)), "mi355x": ("fix", (4,))}
    (f,) = [f for f in result.findings if f.rule == "DEV015"]
    assert (f.line, f.kernel) == (4, "k")
    from porter.rules import load_rules
    from porter.targets import resolve_targets

    (noted,) = with_target_notes([f], load_rules(), resolve_targets(["mi300x", "mi355x"]))
    notes = dict(noted.data)["targets"]
    assert notes["mi300x"].startswith("XF32 MFMA exists on this GPU (gfx942)")
    assert notes["mi355x"].startswith("No TF32 MFMA on this GPU (gfx950, CDNA4 dropped XF32 after CDNA3)")


def test_cublas_fast_tf32_is_one_finding_with_the_rename_kept(tmp_path):
    (tmp_path / "g.cu").write_text("#include <cublas_v2.h>\nvoid g(cublasHandle_t h) { cublasSetMathMode(h, "
                                   "CUBLAS_TF32_TENSOR_OP_MATH); int x = CUBLAS_COMPUTE_32F_FAST_TF32; }\n")
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert [(f.rule, f.column) for f in result.findings if f.line == 2] == [
        ("API001", 8), ("API001", 28), ("DEV015", 49), ("DEV015", 86)]
    also = [dict(f.data)["also"] for f in result.findings if f.rule == "DEV015"]
    assert also == ["API001: CUBLAS_TF32_TENSOR_OP_MATH (cuBLAS): hipify maps it to HIPBLAS_TF32_TENSOR_OP_MATH.",
                    "API001: CUBLAS_COMPUTE_32F_FAST_TF32 (cuBLAS): hipify maps it to HIPBLAS_COMPUTE_32F_FAST_TF32."]
