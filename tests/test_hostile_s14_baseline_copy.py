"""`scan --baseline FILE --isolated` does not take a file's word that it is a private copy of a CUDA toolkit header,
as `--new-since --isolated` already did not (tests/test_red_s12_toolkit_copy.py): a pull request could add
`cuda_fp16.hpp` with NVIDIA's name in a comment and a kernel full of warp-size bugs, and porter.match.refine dropped
its findings, so the baseline gate passed. `porter baseline --isolated` writes its side the same way, so a vendored
copy the base already had is in the baseline and counts as unchanged.
"""
from __future__ import annotations

import json

from helpers import git, make_repo, porter_here, write_files

FAKE = """/* Copyright NVIDIA Corporation (not really) */
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[0] = v;
}
"""
USER = '#include "cuda_fp16.hpp"\nvoid f(float* x) { k<<<1, 64>>>(x); }\n'


def _baseline(repo, out, *extra):
    p = porter_here("baseline", str(repo), "-o", str(out), "--no-cache", *extra)
    assert p.returncode == 0, p.stderr


def _gate(repo, baseline, *extra):
    p = porter_here("scan", str(repo), "--no-cache", "--baseline", str(baseline), "--fail-on", "low", "-f", "json",
                    *extra)
    return p.returncode, sorted((f["path"], f["rule"]) for f in json.loads(p.stdout)["findings"])


def test_a_new_file_claiming_to_be_a_toolkit_header_keeps_its_findings_against_a_baseline(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    _baseline(repo, tmp_path / "base.json", "--isolated")
    write_files(repo, {"cuda_fp16.hpp": FAKE, "a.cu": USER})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    assert _gate(repo, tmp_path / "base.json", "--isolated") == (
        1, [("a.cu", "KRN002"), ("cuda_fp16.hpp", "DEV002"), ("cuda_fp16.hpp", "DEV011"), ("cuda_fp16.hpp", "KRN001")])
    # without --isolated the repository is trusted, as before: the header's findings are dropped; its kernel, new and
    # `fix`, counts for --fail-on since session 29 (porter.diff.KERNEL_SEVERITY)
    assert _gate(repo, tmp_path / "base.json") == (1, [("a.cu", "KRN002")])


def test_a_copy_the_isolated_baseline_already_held_is_unchanged(tmp_path):
    repo = make_repo(tmp_path / "r", {"cuda_fp16.hpp": FAKE, "base.cu": "int base;\n"})
    _baseline(repo, tmp_path / "base.json", "--isolated")
    write_files(repo, {"a.cu": USER})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    assert _gate(repo, tmp_path / "base.json", "--isolated") == (0, [("a.cu", "KRN002")])
