"""Red team, session 11: CUDA code nvcc compiles that porter did not see (fixed in session 12).

Each case was compiled with nvcc 12 (`nvcc -c`, exit 0) before it was written here: the code is real CUDA to the
compiler, and a pull request could add it past `scan --new-since --fail-on` because porter finds nothing in it.
"""
from __future__ import annotations

import json

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
    # The baseline the tests below compare with: what porter finds when nothing is hidden.
    assert _rules({"a.cu": KERNEL}, tmp_path) == ["API005", "DEV002", "DEV002", "DEV003", "DEV011", "KRN001"]


def _found(files: dict[str, str], tmp_path) -> list[tuple[str, int]]:
    repo = make_repo(tmp_path / "r", files)
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    return sorted((f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"])


def test_an_identifier_split_by_a_line_continuation_is_still_found(tmp_path):
    # Translation phase 2 removes a backslash-newline before tokens are formed: `__shfl_\` + newline + `down_sync(`
    # is __shfl_down_sync to nvcc (checked: nvcc -c, rc 0; with blanks after the backslash too, with a warning).
    spliced = KERNEL.replace("__shfl_down_sync", "__shfl_\\\ndown_sync").replace("__ballot_sync", "__bal\\  \nlot_sync")
    plain = _rules({"a.cu": KERNEL}, tmp_path / "plain")
    assert _rules({"a.cu": spliced}, tmp_path / "spliced") == plain
    # Each finding on the physical line its token starts on: the shuffle's on line 4, its lane offset `16` (DEV011)
    # on line 5 where the split call goes on, the ballot's on line 6 (plain: 4, 4, 5, 5).
    assert _found({"a.cu": spliced}, tmp_path / "lines") == [("API005", 1), ("DEV002", 4), ("DEV002", 6),
                                                            ("DEV003", 6), ("DEV011", 5), ("KRN001", 2)]


def test_a_launch_split_by_a_line_continuation_is_still_a_launch(tmp_path):
    src = KERNEL + "void host(float* x) {\n  k<<\\\n<1, 64>>>(x);\n}\n"
    repo = make_repo(tmp_path / "r", {"a.cu": src})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert [(l["kernel"], l["line"]) for l in json.loads(p.stdout)["launches"]] == [("k", 9)]


def test_a_tpp_template_implementation_is_scanned(tmp_path):
    assert len(_rules({"a.cu": '#include "k.tpp"\n', "k.tpp": KERNEL}, tmp_path)) >= 6


def test_a_file_included_by_a_scanned_source_is_scanned_whatever_its_extension(tmp_path):
    # nvcc compiles what `#include "kern.txt"` names (checked: nvcc -c, rc 0); so does porter now, as C/C++/CUDA.
    assert _found({"a.cu": '#include "kern.txt"\n', "kern.txt": KERNEL}, tmp_path) == [
        ("API005", 1), ("DEV002", 4), ("DEV002", 5), ("DEV003", 5), ("DEV011", 4), ("KRN001", 2)]


def test_what_an_included_file_includes_is_scanned_too_and_nothing_outside_the_repository(tmp_path):
    files = {"src/a.cu": '#include "../inc/k.inl.txt"\n#include "../../outside.txt"\n#include "/etc/passwd"\n'
                         '#include "../.git/config"\n#include "../build/gen.txt"\n', "build/gen.txt": "int generated;\n",
             "inc/k.inl.txt": '#include "deeper/k2.body"\n', "inc/deeper/k2.body": KERNEL}
    (tmp_path / "outside.txt").write_text(KERNEL)
    repo = make_repo(tmp_path / "r", files)
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    doc = json.loads(p.stdout)
    assert sorted({f["path"] for f in doc["findings"]}) == ["inc/deeper/k2.body"]
    assert doc["files"]["scanned"] == 4  # a.cu, k.inl.txt, k2.body and build/gen.txt; not .git/config


def test_a_pull_request_that_changes_only_an_included_txt_file_fails_the_gate(tmp_path):
    from helpers import git, write_files

    repo = make_repo(tmp_path / "r", {"a.cu": '#include "kern.txt"\n', "kern.txt": "// nothing yet\n"})
    write_files(repo, {"kern.txt": KERNEL})
    git(repo, "commit", "-qam", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["API005", "DEV002", "DEV002", "DEV003",
                                                                          "DEV011", "KRN001"]
