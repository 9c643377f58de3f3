"""`porter history` follows a committed symlink as `scan --rev` does (porter.source.read.GitTree): a link to a
file in scope is that file, under the link's name; one leading out of the tree, to nothing or round a loop is listed
as not followed. Before session 14 history skipped every symlink, so a repository could keep its CUDA out of its
own history (and the trend a fleet reports) by committing `src/k.cu -> ../docs/kernel.txt`, which the build and
every other scan compile; and an edit to the target alone moved nothing.
"""
from __future__ import annotations

import json
import os

from helpers import git, make_repo, porter_here
from porter.history.points import history
from porter.history.walk import walk
from porter.settings import Settings

KERNEL = "__global__ void k(float *a) { a[threadIdx.x] = 0; }\nvoid go(float *a) { k<<<1, 32>>>(a); }\n"
MORE = KERNEL + "void alloc() { void *p; cudaMalloc(&p, 4); cudaFree(p); }\n"


def commit(root, message):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def rev_findings(root, rev):
    p = porter_here("scan", str(root), "--rev", rev, "--no-cache", "-j", "1", "-f", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    return len(d["findings"]), sorted(s["path"] for s in d.get("skipped", []))


def test_history_follows_a_symlink_to_a_file_as_scan_rev_does(tmp_path):
    root = make_repo(tmp_path / "r", {"README.md": "x\n"})
    (root / "docs").mkdir()
    (root / "docs" / "kernel.txt").write_text(KERNEL)
    (root / "src").mkdir()
    os.symlink("../docs/kernel.txt", root / "src" / "k.cu")
    os.symlink("../../../etc/hostname", root / "src" / "out.cu")  # leads out of the tree
    os.symlink("loop.cu", root / "src" / "loop.cu")  # round a loop
    first = commit(root, "kernel behind a link")
    (root / "docs" / "kernel.txt").write_text(MORE)  # only the target changes
    second = commit(root, "more CUDA in the target")

    h = history(walk(root), Settings(jobs=1, cache_dir=None))
    counts = [p.open_findings + p.handled_findings + p.cuda_only_findings for p in h.points]
    files = [p.files for p in h.points]
    assert [c.commit for c in h.points][1:] == [first, second]
    at_first, skipped = rev_findings(root, first)
    at_second, _ = rev_findings(root, second)
    assert skipped == ["src/loop.cu", "src/out.cu"]
    assert at_first > 0 and at_second > at_first
    assert counts == [0, at_first, at_second]
    assert files == [0, 1, 1]
