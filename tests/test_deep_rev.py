"""Deep mode on a git tree (`--rev`): libclang's contained copies come from the bytes the scan holds and from git
objects, never from a work tree (the commit's files are not checked out)."""
from __future__ import annotations

import pytest

from porter.kernels import deep
from porter.pipeline import run
from porter.settings import Settings
from porter.source.read import GitTree

from conftest import FIXTURES
from helpers import git, make_repo


@pytest.mark.slow
@pytest.mark.usefixtures("libclang")
def test_deep_mode_reads_a_commit_not_the_work_tree(tmp_path):
    files = {"deep_header.cu": (FIXTURES / "kernels" / "deep_header.cu").read_text(),
             "include/tile_config.h": (FIXTURES / "kernels" / "include" / "tile_config.h").read_text()}
    repo = make_repo(tmp_path / "r", files)
    commit = git(repo, "rev-parse", "HEAD").strip()
    # The work tree moves on: the header is gone, so only the commit's objects can size the array.
    git(repo, "rm", "-q", "include/tile_config.h")
    git(repo, "commit", "-qm", "drop the header")
    result = run(GitTree(repo, commit), Settings(jobs=1, cache_dir=None, targets=("mi300x",), deep=True,
                                                 include=("deep_header.cu",))).result
    (k,) = [k for k in result.kernels if k.name == "header_sized"]
    assert k.facts.shared_memory.static_bytes == 49152
    assert (k.facts.deep.resolved, k.facts.deep.still_unknown) == (("__shared__ stage_buf",), ())
    assert k.facts.deep.constants_from == ("include/tile_config.h",)
    info = result.kernel_analysis.deep
    assert info["files"] == 1 and info["errors"] == {}


def test_a_git_trees_copy_for_libclang_stops_at_its_byte_cap(tmp_path, monkeypatch):
    # A tree can name one blob at many paths (a few bytes of git, a file on disk per path): what deep mode writes out
    # of a commit for libclang is capped in total, and what is past the cap is left out, never half-written.
    body = "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n" + "// pad\n" * 120  # 893 bytes
    repo = make_repo(tmp_path / "r", {f"k{i}.cu": body for i in range(6)})
    commit = git(repo, "rev-parse", "HEAD").strip()
    result = run(GitTree(repo, commit), Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    monkeypatch.setattr(deep, "TREE_CAP", 3 * len(body) + 10)
    root, made = deep._tree_of(result)
    try:
        written = sorted(p.name for p in root.rglob("*") if p.is_file())
        assert made and written == ["k0.cu", "k1.cu", "k2.cu"]
        assert all((root / n).read_text() == body for n in written)
    finally:
        import shutil

        shutil.rmtree(root)


def test_a_git_tree_copy_left_by_a_killed_run_is_swept_by_the_next(tmp_path, monkeypatch):
    # A run killed before its cleanup (SIGKILL, a CI job's timeout) leaves its copy behind: the next run removes the
    # copies whose process is gone, and leaves a live run's alone.
    import os
    import subprocess
    import sys
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    dead = tmp_path / f"{deep.TREE_PREFIX}{gone}-abc"
    (dead / "src").mkdir(parents=True)
    (dead / "src" / "k.cu").write_text("x")
    live = tmp_path / f"{deep.TREE_PREFIX}{os.getppid()}-def"
    live.mkdir()
    other = tmp_path / "porter-deep-tu-1-x"
    other.mkdir()
    deep._sweep_trees()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
