"""Red team, session 11: CUDA code nvcc compiles that porter does not see (handed over; strict xfails).

Each case was compiled with nvcc 12 (`nvcc -c`, exit 0) before it was written here: the code is real CUDA to the
compiler, and a pull request could add it past `scan --new-since --fail-on` because porter finds nothing in it.
"""
from __future__ import annotations

import json

import pytest
from helpers import make_repo, porter_here

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  x[threadIdx.x] = v + m;
}
"""


def _rules(files: dict[str, str], tmp_path) -> list[str]:
    repo = make_repo(tmp_path / "r", files)
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    return sorted(f["rule"] for f in json.loads(p.stdout)["findings"])


def test_the_kernel_plainly_written_has_these_findings(tmp_path):
    # The baseline the xfails below compare with: what porter finds when nothing is hidden.
    assert _rules({"a.cu": KERNEL}, tmp_path) == ["API005", "DEV002", "DEV002", "DEV003", "DEV011", "KRN001"]


@pytest.mark.xfail(strict=True, reason="speed: porter/source (the one preprocessor reader) does not splice "
                                       "backslash-newlines (translation phase 2) before matching: `__shfl_\\` + "
                                       "newline + `down_sync(` is __shfl_down_sync to nvcc, nothing to porter")
def test_an_identifier_split_by_a_line_continuation_is_still_found(tmp_path):
    spliced = KERNEL.replace("__shfl_down_sync", "__shfl_\\\ndown_sync").replace("__ballot_sync", "__bal\\\nlot_sync")
    plain = _rules({"a.cu": KERNEL}, tmp_path / "plain")
    assert _rules({"a.cu": spliced}, tmp_path / "spliced") == plain


def test_a_tpp_template_implementation_is_scanned(tmp_path):
    assert len(_rules({"a.cu": '#include "k.tpp"\n', "k.tpp": KERNEL}, tmp_path)) >= 6


@pytest.mark.xfail(strict=True, reason="speed: a file a scanned source #includes by a quoted name (inside the "
                                       "repository) is compiled whatever its extension; porter scans only known "
                                       "extensions, so CUDA code in `kern.txt` behind `#include \"kern.txt\"` is unseen")
def test_a_file_included_by_a_scanned_source_is_scanned_whatever_its_extension(tmp_path):
    assert len(_rules({"a.cu": '#include "kern.txt"\n', "kern.txt": KERNEL}, tmp_path)) >= 6
