"""A bare repository (a mirror, a fleet's clone cache) has commits and no work tree: `scan --rev`, `history` and
`--new-since` read its commits as they read a clone's; a plain scan of it says why it found nothing; a bare
repository whose objects live elsewhere is refused as a clone's would be."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.helpers import git, make_repo, porter_here

KERNEL = """#include <cuda_runtime.h>
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
void run(float *x) { scale<<<1, 64>>>(x, 2.0f); cudaDeviceSynchronize(); }
"""


def _repos(tmp_path: Path) -> tuple[Path, Path]:
    """(a work tree with two commits, a bare clone of it)."""
    work = make_repo(tmp_path / "work", {"README.md": "x\n"})
    (work / "k.cu").write_text(KERNEL)
    git(work, "add", "k.cu")
    git(work, "commit", "-q", "-m", "a kernel")
    bare = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return work, bare


def _json(*args: str) -> dict:
    p = porter_here(*args, "--format", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def _totals(doc: dict) -> dict:
    return doc["summary"]["totals"]


def test_a_commit_of_a_bare_repository_scans_as_the_same_commit_of_its_clone(tmp_path):
    work, bare = _repos(tmp_path)
    from_bare, from_work = _json("scan", "--rev", "HEAD", str(bare)), _json("scan", "--rev", "HEAD", str(work))
    assert _totals(from_bare) == _totals(from_work)
    assert _totals(from_bare)["kernels"] == 1 and _totals(from_bare)["files_scanned"] == 1
    assert [(f["path"], f["line"], f["rule"]) for f in from_bare["findings"]] == \
        [(f["path"], f["line"], f["rule"]) for f in from_work["findings"]]


def test_a_mirror_without_a_config_file_is_bare_too(tmp_path):
    """A mirror may hold only HEAD, objects/ and refs/ (no config): git takes it for bare, and so does porter."""
    work, bare = _repos(tmp_path)
    (bare / "config").unlink()
    assert _totals(_json("scan", "--rev", "HEAD", str(bare))) == _totals(_json("scan", "--rev", "HEAD", str(work)))


def test_history_and_new_since_walk_a_bare_repository(tmp_path):
    work, bare = _repos(tmp_path)
    walked = _json("history", str(bare))
    assert [(p["subject"], p["open_findings"]) for p in walked["points"]] == [("fixture", 0), ("a kernel", 4)]
    assert walked["points"] == _json("history", str(work))["points"]
    new = _json("scan", "--new-since", "HEAD~1", "--rev", "HEAD", str(bare))
    assert (new["diff"]["new"], new["diff"]["fixed"], {f["path"] for f in new["findings"]}) == (4, 0, {"k.cu"})


def test_a_plain_scan_of_a_bare_repository_says_what_to_run_instead(tmp_path):
    _, bare = _repos(tmp_path)
    p = porter_here("scan", str(bare), "--no-cache")
    assert p.returncode == 0
    assert p.stderr.strip().splitlines()[-1] == (
        f"warning: no source files found under {bare}: it is a bare git repository (no work tree); scan a commit of "
        "it with --rev HEAD, or its history with porter history")


def test_a_bare_repository_whose_objects_live_elsewhere_is_refused(tmp_path):
    """An objects symlink would put another repository's code in the report under this one's name."""
    _, bare = _repos(tmp_path)
    elsewhere = tmp_path / "elsewhere-objects"
    shutil.move(str(bare / "objects"), str(elsewhere))
    os.symlink(elsewhere, bare / "objects")
    p = porter_here("scan", "--rev", "HEAD", str(bare), "--no-cache")
    assert p.returncode == 2
    assert p.stderr.strip() == (f"error: {bare.resolve()}: {bare.resolve()}/objects leads to {elsewhere}, outside "
                                "the repository (a symlink?); not read")


def test_a_work_trees_git_directory_is_not_taken_for_a_bare_repository(tmp_path):
    work, _ = _repos(tmp_path)
    from porter.source import git as porter_git

    assert porter_git.is_bare(work / ".git") is False
    assert porter_git.is_bare(work) is False
