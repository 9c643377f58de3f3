"""DEV033 (`__grid_constant__`, no HIP spelling) sets its kernels' verdict: the parameter does not compile under
hipcc until the macro is defined away, so the kernel is a fix on every target (heldout4's Liger fused_memset_kernel and
heldout7's uccl kernelScatteredMemcpy were judged so)."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

KERNELS = """\
#include <cstdint>
struct copy_param_t { const void* src[64]; void* dst[64]; uint64_t len[64]; };
__global__ void scattered_copy(uint32_t n, __grid_constant__ const copy_param_t p) {
  if (threadIdx.x < n) ((char*)p.dst[threadIdx.x])[0] = ((const char*)p.src[threadIdx.x])[0];
}
__global__ void plain(const copy_param_t p) {}
"""
COMPAT = "#ifdef __HIP_PLATFORM_AMD__\n#define __grid_constant__\n#endif\n"
TARGETS = ("mi300x", "mi355x", "mi455x")


def _scan(root):
    result = run(root, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    verdicts = {k.name: [v.verdict for v in k.verdicts] for k in result.kernels}
    return verdicts, sorted((f.path, f.line, f.status.value) for f in result.findings if f.rule == "DEV033")


def test_a_grid_constant_parameter_makes_its_kernel_a_fix(tmp_path):
    (tmp_path / "k.cu").write_text(KERNELS)
    verdicts, found = _scan(tmp_path)
    assert verdicts == {"scattered_copy": ["fix", "fix", "fix"], "plain": ["ok", "ok", "ok"]}
    assert found == [("k.cu", 3, "open")]


def test_a_project_that_defines_it_away_for_rocm_has_ported_it(tmp_path):
    # the ROCm-side #define is a compat layer (porter.portaware.compat): the use reads handled, the kernel ok
    (tmp_path / "k.cu").write_text('#include "compat.h"\n' + KERNELS)
    (tmp_path / "compat.h").write_text(COMPAT)
    verdicts, found = _scan(tmp_path)
    assert verdicts == {"scattered_copy": ["ok", "ok", "ok"], "plain": ["ok", "ok", "ok"]}
    assert found == [("k.cu", 4, "handled")]
