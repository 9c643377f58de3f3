"""Hostile repositories against `porter port` and `translate --in-place` (found by the red team on 2026-12-02): an
unclosed CMake command and a `.git` file naming a git directory outside
the tree. Each must end in a clear refusal or a normal run, never a crash, a stall or a write outside the tree."""
from __future__ import annotations


from tests.helpers import git, make_repo, porter_here

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[0], 1); }\n"


def test_port_reads_an_unclosed_cmake_command_without_crashing(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL,
                                      "CMakeLists.txt": "project(p CUDA)\nadd_executable(a k.cu)\nfoo(\n"})
    r = porter_here("port", str(repo))
    assert "internal error" not in r.stderr
    assert r.returncode == 0, r.stderr
    assert "+option(USE_ROCM" in r.stdout


def test_translate_in_place_never_writes_its_backup_outside_the_tree(tmp_path):
    outside = tmp_path / "elsewhere"
    repo = tmp_path / "ip"
    repo.mkdir()
    git(tmp_path, "init", "-q", "-b", "main", f"--separate-git-dir={outside}", str(repo))
    (repo / "k.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "k")
    before = sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))
    r = porter_here("translate", str(repo), "--in-place", "--engine", "builtin")
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == before
    assert not (outside / "porter-backup").exists()
    assert (r.returncode, r.stdout) == (2, "")
    assert "outside the repository, which does not belong to it" in r.stderr
    assert (repo / "k.cu").read_text() == KERNEL
