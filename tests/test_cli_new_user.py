"""Errors a first-time user meets on a plain source tree (an unpacked tarball, no .git) say what to run instead."""
from __future__ import annotations

from helpers import porter_here


def test_history_of_a_tree_without_git_points_to_assess(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    p = porter_here("history", str(tmp_path), "--no-cache")
    assert p.returncode == 2
    assert p.stderr == (f"error: {tmp_path}: not inside a git repository: history walks the commits of one (for a "
                        "tree without git history, `porter assess` gives its present state)\n")
