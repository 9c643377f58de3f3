"""Red team, session 12: a pull request passes its kernel off as a private copy of a CUDA toolkit header.

porter.match.refine drops the api/device/kernel findings of a repository's own copy of a toolkit header (a file named
like one, e.g. cuda_fp16.hpp, holding NVIDIA's notice or the header's own guard): it declares the API rather than
using it. A pull request could name its new header `cuda_fp16.hpp`, write `NVIDIA Corporation` in a comment and put
a kernel full of warp-size bugs in it (and `#include` it from a .cu, so nvcc compiles it): `scan --new-since BASE
--isolated --fail-on low` exited 0 with only the launch (info) new. --isolated is the mode where the change's own
evidence is not trusted (suppressions, empty ROCm arms, a `rocm/` place, porter.diff._reopen); a file's claim to be
NVIDIA's header is such evidence, so under --isolated the files a change touches are not read as toolkit copies.
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


def _pr(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"cuda_fp16.hpp": FAKE, "a.cu": USER})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return repo


def _gate(repo, *extra):
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json",
                    *extra)
    return p.returncode, sorted((f["path"], f["rule"]) for f in json.loads(p.stdout)["findings"]), p.stderr


def test_under_isolated_a_new_file_claiming_to_be_a_toolkit_header_keeps_its_findings(tmp_path):
    rc, found, err = _gate(_pr(tmp_path), "--isolated")
    assert rc == 1, err
    assert found == [("a.cu", "KRN002"), ("cuda_fp16.hpp", "DEV002"), ("cuda_fp16.hpp", "DEV011"),
                     ("cuda_fp16.hpp", "KRN001")]


def test_without_isolated_the_repository_is_trusted_as_before(tmp_path):
    rc, found, err = _gate(_pr(tmp_path))
    # the header's findings are dropped, as before; its kernel (no real toolkit header defines one) is new and `fix`
    # on an open kernel, which --fail-on counts since session 29 (porter.diff.KERNEL_SEVERITY)
    assert (rc, found) == (1, [("a.cu", "KRN002")]), err
    assert "1 kernel verdict worse (1 of them at fix or worse: --fail-on counts them)" in err


def test_a_toolkit_copy_the_change_does_not_touch_is_still_a_copy(tmp_path):
    repo = make_repo(tmp_path / "r", {"cuda_fp16.hpp": FAKE, "base.cu": "int base;\n"})
    write_files(repo, {"a.cu": USER})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    rc, found, err = _gate(repo, "--isolated")
    assert (rc, found) == (0, [("a.cu", "KRN002")]), err
