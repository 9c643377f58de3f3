"""Red team, session 11: a pull request hides its CUDA-only code from the gate by making porter skip the file.

A file porter skips (over the size or line limit, past its time or memory budget, or tripping a porter bug) has no
findings, so `scan --new-since BASE --fail-on SEV` passed it: a PR adding a kernel full of warp-size bugs plus
padding past the size limit (or one launch whose configuration nests 1,200 parentheses, which porter's constant
folder recursed on) got exit 0 and the comment "no new CUDA-only code". The gate now fails on a changed source file
it could not see, as it already did for files the run's deadline cut; what porter does not read on purpose (a
symlink in the tree, a submodule) is not counted.
"""
from __future__ import annotations

import os

import pytest

from helpers import git, make_repo, porter_here, write_files

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  x[threadIdx.x] = v + m;
}
"""
DEEP = 1200  # parentheses around one launch argument: past Python's recursion limit in a recursive folder


def _pr(tmp_path, files: dict[str, str]):
    """A repository whose base commit holds one kernel and whose head commit (the PR) adds `files`."""
    repo = make_repo(tmp_path / "r", {"base.cu": KERNEL})
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return repo


def _gate(repo, *extra: str):
    return porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low",
                       "--format", "json", *extra)


def test_a_changed_file_over_the_size_limit_fails_the_gate(tmp_path):
    padding = ("// " + "x" * 97 + "\n") * 200  # 20,000 bytes: over the 0.01 MiB limit this test runs with
    repo = _pr(tmp_path, {"new.cu": KERNEL + padding})
    p = _gate(repo, "--max-file-size-mb", "0.01")
    assert p.returncode == 1, p.stderr
    assert ("warning: 1 changed file(s) could not be scanned (new.cu: file is 0.0 MiB, over the 0 MiB limit); "
            "--fail-on fails rather than pass code it did not see") in p.stderr


def test_a_changed_file_porter_fails_on_fails_the_gate(tmp_path, monkeypatch):
    # A porter bug on the file (here: the kernel stage raising), the way a 1,200-deep launch did before the kernel
    # stage caught its RecursionError (test_a_deeply_nested_expression_keeps_the_files_findings).
    import porter.pipeline

    def bug(*args, **kwargs):
        raise ValueError("a porter bug")

    monkeypatch.setattr(porter.pipeline, "measure", bug)
    repo = _pr(tmp_path, {"new.cu": KERNEL})
    p = _gate(repo)
    assert p.returncode == 1, p.stderr
    assert ("warning: 1 changed file(s) could not be scanned (new.cu: porter failed on this file (internal error: "
            "ValueError: a porter bug); please report it); --fail-on fails rather than pass code it did not see"
            ) in p.stderr


def test_a_changed_source_file_with_a_nul_byte_fails_the_gate_on_its_findings(tmp_path):
    # nvcc compiles a .cu file with a NUL byte in a comment (gcc: "null character(s) ignored"); porter read it as
    # binary and skipped it, findings and all (session 11: the gate failed on it as unseen). Now it is scanned with
    # the NUL read as a space, and the gate fails on the kernel's own findings.
    import json

    repo = _pr(tmp_path, {"new.cu": KERNEL + "// \0\n"})
    p = _gate(repo)
    assert p.returncode == 1, p.stderr
    assert "could not be scanned" not in p.stderr
    assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["API005", "DEV002", "DEV002", "DEV003",
                                                                      "DEV011", "KRN001"]


def test_a_source_file_with_a_nul_byte_in_a_comment_is_scanned(tmp_path):
    import json

    repo = make_repo(tmp_path / "r", {"a.cu": "// \0\n" + KERNEL})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    data = json.loads(p.stdout)
    assert data["skipped"] == []
    assert data["summary"]["findings"] == 6


def test_without_fail_on_the_unseen_file_is_still_said(tmp_path):
    padding = ("// " + "x" * 97 + "\n") * 200
    repo = _pr(tmp_path, {"new.cu": KERNEL + padding})
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--max-file-size-mb", "0.01",
                    "--format", "json")
    assert p.returncode == 0, p.stderr
    assert "warning: 1 changed file(s) could not be scanned (new.cu: " in p.stderr
    assert "--fail-on" not in p.stderr


def test_a_plain_scan_gate_fails_on_a_file_it_could_not_see_too(tmp_path):
    padding = ("// " + "x" * 97 + "\n") * 200
    repo = make_repo(tmp_path / "r", {"new.cu": KERNEL + padding, "README.md": "hello\n"})
    p = porter_here("scan", str(repo), "--no-cache", "--fail-on", "blocker", "--max-file-size-mb", "0.01",
                    "--format", "json")
    assert p.returncode == 1, p.stderr
    assert ("warning: 1 file(s) could not be scanned (new.cu: file is 0.0 MiB, over the 0 MiB limit (generated?)); "
            "--fail-on fails rather than pass code it did not see") in p.stderr


def test_what_porter_does_not_read_on_purpose_does_not_fail_the_gate(tmp_path):
    # A symlink leading out of the tree (one inside it is read as its target since session 12:
    # tests/test_red_s12_git_symlinks.py).
    repo = make_repo(tmp_path / "r", {"base.cu": KERNEL})
    os.symlink("/etc/hostname", repo / "link.cu")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = _gate(repo)
    assert p.returncode == 0, p.stderr
    assert "could not be scanned" not in p.stderr


def test_the_pr_comment_does_not_say_all_clear_over_a_file_it_could_not_see(tmp_path):
    padding = ("// " + "x" * 97 + "\n") * 200
    repo = _pr(tmp_path, {"new.cu": KERNEL + padding})
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--max-file-size-mb", "0.01",
                    "--format", "markdown")
    assert "no new CUDA-only code" not in p.stdout
    lines = p.stdout.splitlines()
    assert lines[1] == "⚠️ **porter: 1 file could not be scanned**"
    assert "### Not scanned (1)" in lines
    assert "- `new.cu`: file is 0.0 MiB, over the 0 MiB limit" in lines


def _deep(x: str) -> str:
    return "(" * DEEP + x + ")" * DEEP


# Each is a real kernel file plus one deep expression where the kernel-facts stage recurses on it; the findings of
# the file's own kernel (6) must survive. Measured frames: constfold.fold via launch_config.fold_site (launch,
# #define'd and constexpr block sizes, a 1,200-long constexpr chain), facts_lanes.lane_array_index (a shared array
# size), facts_detectors.warp_operations (a shuffle's or ballot's argument).
DEEP_CASES = {
    "launch": "void f() { k<<<" + _deep("1") + ", 32>>>(0); }\n",
    "define": "#define B " + _deep("256") + "\nvoid f() { k<<<1, B>>>(0); }\n",
    "chain": "constexpr int C0 = 1;\n" + "".join(f"constexpr int C{i} = C{i - 1} + 1;\n" for i in range(1, DEEP))
             + f"void f() {{ k<<<1, C{DEEP - 1}>>>(0); }}\n",
    "shared": "__global__ void k2() { __shared__ float s[" + _deep("32") + "]; s[0] = 0; }\n",
    "shuffle": "__global__ void k4(float* x) { x[0] = __shfl_xor_sync(0xffffffff, x[0], " + _deep("1") + "); }\n",
}


@pytest.mark.parametrize("case", sorted(DEEP_CASES))
def test_a_deeply_nested_expression_keeps_the_files_findings(tmp_path, case):
    import json

    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL + DEEP_CASES[case]})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    data = json.loads(p.stdout)
    assert data["skipped"] == []
    assert data["summary"]["findings"] >= 6


def test_a_pull_requests_own_config_excluding_its_new_file_is_said(tmp_path):
    repo = _pr(tmp_path, {"new.cu": KERNEL, "porter.toml": 'exclude = ["new.cu"]\n'})
    p = _gate(repo)
    assert "note: repository configuration include/exclude leaves out 1 changed file(s): new.cu" in p.stderr


def test_the_unseen_warning_shows_a_file_name_literally(tmp_path):
    from porter.render.safe import printable

    name = "a\x1b]0;pwned\x07\x1b[31mRED\u202e.cu"
    repo = make_repo(tmp_path / "r", {name: KERNEL + ("// " + "x" * 97 + "\n") * 200})
    p = porter_here("scan", str(repo), "--no-cache", "--fail-on", "low", "--max-file-size-mb", "0.01",
                    "--format", "json")
    assert p.returncode == 1, p.stderr
    assert f"could not be scanned ({printable(name)}: file is 0.0 MiB" in p.stderr
    assert "\x1b" not in p.stderr and "\u202e" not in p.stderr and "\x07" not in p.stderr


def test_against_a_baseline_the_whole_tree_is_compared_and_the_warning_says_file_not_changed_file(tmp_path):
    padding = ("// " + "x" * 97 + "\n") * 200
    repo = make_repo(tmp_path / "r", {"base.cu": KERNEL})
    baseline = tmp_path / "baseline.json"
    p = porter_here("baseline", str(repo), "-o", str(baseline), "--no-cache")
    assert p.returncode == 0, p.stderr
    write_files(repo, {"new.cu": KERNEL + padding})
    p = porter_here("scan", str(repo), "--no-cache", "--baseline", str(baseline), "--fail-on", "low",
                    "--max-file-size-mb", "0.01", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert "warning: 1 file(s) could not be scanned (new.cu: file is 0.0 MiB, over the 0 MiB limit" in p.stderr
