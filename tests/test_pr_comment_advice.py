"""A pull request that follows porter's advice comes out green, and the PR comment says nothing internal: the mask
fix porter asks for (`0xffffffff` → `~0ull`, or a 64-bit mask variable) leaves the intrinsic's low "review it" note
on the same line, which is the spot's remainder, not new work (porter.diff._followed_advice); hipify renames and
other info notes are folded and never counted as CUDA-only findings; no rule's note about porter's data files
(`rules/kb/headers.tsv`) reaches the comment."""
from __future__ import annotations

import pytest

from helpers import git, make_repo, porter_here

BASE = """\
#include <cuda_runtime.h>
__global__ void k(unsigned long long *a, int v) {
  a[0] = __ballot_sync(0xffffffff, v);
  a[1] = __shfl_down_sync(0xffffffff, v, 1);
}
"""
FIXED = {
    "~0ull": BASE.replace("0xffffffff", "~0ull"),
    "lane_mask_t": BASE.replace("int v) {\n", "int v) {\n  const unsigned long long mask = ~0ull;\n")
                       .replace("0xffffffff", "mask"),
}


@pytest.mark.parametrize("how", sorted(FIXED))
def test_following_the_advice_is_green(tmp_path, how):
    repo = make_repo(tmp_path / "r", {"k.cu": BASE})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "k.cu").write_text(FIXED[how])
    (repo / "h.cu").write_text("#include <cuda_runtime.h>\nvoid h() { cudaDeviceSynchronize(); }\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "follow porter's advice")
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "pr-comment", "--fail-on", "low", "--no-cache")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[1] == "✅ **porter: no new CUDA-only code** · 2 fixed"
    assert "<details><summary>2 notes below low (hipify renames, kernels and includes found)</summary>" in lines
    assert ("- L2 **API001** (info): cudaDeviceSynchronize (CUDA runtime): hipify maps it to hipDeviceSynchronize. "
            "— HIP: use hipDeviceSynchronize<br>`void h() { cudaDeviceSynchronize(); }`") in lines
    assert "headers.tsv" not in p.stdout and "HIPIFY's tables" not in p.stdout
    assert [l for l in lines if l.startswith("- ~~")] == [
        "- ~~`k.cu` L3 DEV002: 32-bit full lane mask passed to a warp intrinsic~~",
        "- ~~`k.cu` L4 DEV002: 32-bit full lane mask passed to a warp intrinsic~~"]


def test_a_new_32_bit_mask_is_still_new(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": BASE.replace("0xffffffff", "~0ull")})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "k.cu").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "back to 32-bit masks")
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "pr-comment", "--fail-on", "low", "--no-cache")
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.splitlines()[1].startswith("⚠️ **porter: this change adds 2 open findings for ROCm** (2 high)")


def test_lines_link_to_the_head_commit_and_posting_keeps_only_those_links(tmp_path):
    from porter.comment import with_marker

    repo = make_repo(tmp_path / "r", {"k.cu": BASE.replace("0xffffffff", "~0ull")})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "k.cu").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    head = git(repo, "rev-parse", "HEAD").strip()
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "pr-comment", "--no-cache",
                   env={"GITHUB_REPOSITORY": "acme/r", "GITHUB_SERVER_URL": "https://ghe.example"})
    assert p.returncode == 0, p.stderr
    link = f"https://ghe.example/acme/r/blob/{head}/k.cu#L3"
    line = next(l for l in p.stdout.splitlines() if l.startswith("- [L3]"))
    assert line.startswith(f"- [L3]({link}) **DEV002** (high): ")
    posted = with_marker(p.stdout + "- [L9](https://evil.example/acme/r/blob/x#L9) spoof\n",
                         "https://ghe.example/acme/r/blob/")
    assert f"- [L3]({link}) **DEV002**" in posted  # the pull request's own repository: kept
    assert "- [L9]\\(`https://evil.example/acme/r/blob/x#L9)` spoof" in posted  # anything else: inert


def test_the_listed_severities_add_up_to_the_verdict_line(tmp_path):
    """A change that links cuBLAS in CMake: LIB004 (low) is a rename (CUDA::cublas → hipBLAS), which the verdict line
    counts apart ("1 hipify rename"). Listed as a plain "(low)" beside BLD003's, the comment showed two lows under
    a verdict line that said one; the rename is now marked where it is listed."""
    repo = make_repo(tmp_path / "r", {"CMakeLists.txt": "project(demo LANGUAGES CXX)\nadd_executable(demo main.cpp)\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "CMakeLists.txt").write_text("project(demo LANGUAGES CXX)\nadd_executable(demo main.cpp)\n"
                                         "target_link_libraries(demo CUDA::cublas)\n"
                                         "set_target_properties(demo PROPERTIES CUDA_ARCHITECTURES 80)\n")
    git(repo, "commit", "-qam", "link cuBLAS")
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "pr-comment", "--no-cache")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[1] == "⚠️ **porter: this change adds 1 open finding for ROCm** (1 low) · 1 hipify rename"
    assert [line.split(":")[0] for line in lines if line.startswith("- L")] == [
        "- L3 **LIB004** (low, hipify rename)", "- L4 **BLD003** (low)"]
