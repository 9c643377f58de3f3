"""A run that reads a git tree ends the `git cat-file --batch` it read through (porter.source.git.BlobReader), however
it ends. The CLI ends them by exiting; a process that goes on (a test worker running porter in-process, a fleet
worker, a library caller) kept one per run: an xdist worker of the suite held about a dozen idle ones. Each test
runs porter in this process and asserts that every reader this process started is gone (reaped) when the command
returns, and that this process has no more `git cat-file` children than before."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here
from porter.source import git as porter_git

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_sync(0xffffffff, 1.f, 0); }\n"


def _cat_file_children() -> set[int]:
    """This process's living (not reaped) `git cat-file` children, read from /proc."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:  # ended while we looked
            continue
        if int(fields[1]) == me and b"cat-file" in argv:
            found.add(int(entry))
    return found


@pytest.fixture
def readers(monkeypatch):
    """The pids of the `git cat-file --batch` processes porter starts in this process (not in its forked workers,
    which end with their worker) while the test runs."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs /proc to list this process's children")
    started: list[int] = []
    real = porter_git.BlobReader._process

    def spy(self):
        proc = real(self)
        if proc.pid not in started:
            started.append(proc.pid)
        return proc

    monkeypatch.setattr(porter_git.BlobReader, "_process", spy)
    return started


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """Two commits: the second adds a kernel file and a symlink to it (read through cat-file to follow it)."""
    r = make_repo(tmp_path_factory.mktemp("lifetime") / "r", {"src/a.cu": KERNEL})
    (r / "src" / "b.cu").write_text(KERNEL.replace("k(", "k2("))
    os.symlink("b.cu", r / "src" / "link.cu")
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "second")
    return r


@pytest.mark.parametrize("args", [
    ("scan", "{repo}", "--rev", "HEAD", "--no-cache"),
    ("scan", "{repo}/src", "--rev", "HEAD~1", "--no-cache", "--format", "json"),
    ("scan", "{repo}", "--new-since", "HEAD~1", "--no-cache"),
    ("history", "{repo}", "--compare", "HEAD~1..HEAD", "--no-cache"),
    ("assess", "{repo}", "--rev", "HEAD", "--no-cache", "-q"),
], ids=["scan-rev", "scan-rev-subdir", "new-since", "history-compare", "assess-rev"])
def test_a_command_on_a_git_tree_ends_its_readers(repo, readers, args):
    before = _cat_file_children()
    p = porter_here(*(a.format(repo=repo) for a in args))
    assert p.returncode in (0, 1), p.stderr
    assert readers, "the command read no blob through git cat-file: this test would prove nothing"
    assert (_cat_file_children() - before, [pid for pid in readers if os.path.exists(f"/proc/{pid}")]) == (set(), [])


def test_a_run_kept_by_the_run_cache_ends_the_reader_that_found_it(repo, readers, tmp_path):
    """The second identical `scan --rev` is answered from the run cache (porter.runcache) without a run: the reader
    that read the tree's content ids to find the kept report ends too."""
    cache = tmp_path / "cache"
    args = ("scan", str(repo), "--rev", "HEAD", "--cache-dir", str(cache))
    first = porter_here(*args)
    readers.clear()
    before = _cat_file_children()
    again = porter_here(*args)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    assert readers, "the cached run read no blob through git cat-file: this test would prove nothing"
    assert (_cat_file_children() - before, [pid for pid in readers if os.path.exists(f"/proc/{pid}")]) == (set(), [])


def test_a_run_that_fails_after_reading_ends_its_reader(repo, readers, monkeypatch):
    """An error after the scan read the blobs (here in the stages after it) still ends the run's reader."""
    from porter import pipeline
    from porter.source.read import GitTree

    def broken(*a, **k):
        raise RuntimeError("the stage after the scan failed")

    monkeypatch.setattr(pipeline, "complete", broken)
    before = _cat_file_children()
    tree = GitTree(repo, git(repo, "rev-parse", "HEAD").strip())
    with pytest.raises(RuntimeError, match="the stage after the scan failed"):
        pipeline.run(tree, pipeline.Settings(jobs=1, cache_dir=None))
    assert readers, "the scan read no blob through git cat-file: this test would prove nothing"
    assert (_cat_file_children() - before, [pid for pid in readers if os.path.exists(f"/proc/{pid}")]) == (set(), [])
