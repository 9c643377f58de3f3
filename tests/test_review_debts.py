"""Exact tests for session 15's review debts: each shared table or mechanism gives the same answer from every
reader (the dynamic-shared-memory opt-in names, the enclosing function of DEV038's mask parameter, GitTree's link
targets, port's symlinked copies, LIB014's project headers)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import scan
from porter.settings import Settings


def _scan(tree: Path):
    return scan(tree, Settings(jobs=1, cache_dir=None))


def test_driver_api_opt_in_alone_is_measured(tmp_path):
    # The facts' pre-test looked for the runtime attribute's name only, so a file naming only the driver API's
    # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES was never read for its opt-in (the call loop accepted it).
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* out) {\n"
        "  extern __shared__ float s[];\n"
        "  s[threadIdx.x] = 1.0f;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "void setup() {\n"
        "  cudaFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 96 * 1024);\n"
        "}\n")
    [k] = _scan(tmp_path).kernels
    assert k.facts.shared_memory.max_dynamic_attribute == 96 * 1024
