"""Errors a first-time user meets on a plain source tree (an unpacked tarball, no .git) say what to run instead."""
from __future__ import annotations

from helpers import git, make_repo, porter_here


def test_history_of_a_tree_without_git_points_to_assess(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    p = porter_here("history", str(tmp_path), "--no-cache")
    assert p.returncode == 2
    assert p.stderr == (f"error: {tmp_path}: not inside a git repository: history walks the commits of one (for a "
                        "tree without git history, `porter assess` gives its present state)\n")


def test_a_change_with_no_source_file_is_no_warning(tmp_path):
    """A PR bot on a change that touches only the README (or run on the base itself): nothing to scan among the
    files that differ, which the "compared" line says; it used to add "warning: no source files found under .",
    untrue of a repository full of CUDA."""
    repo = make_repo(tmp_path / "r", {"k.cu": "__global__ void k() {}\n", "README.md": "# r\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "README.md").write_text("# r\n\nmore\n")
    git(repo, "commit", "-qam", "docs")
    head = git(repo, "rev-parse", "HEAD").strip()
    p = porter_here("scan", str(repo), "--new-since", base, "-q", "--no-cache")
    assert p.returncode == 0
    assert p.stderr == (f"compared {base[:12]} → {head[:12]}: 0 new, 0 fixed, 0 unchanged in the files that differ; "
                        "0 kernel verdicts worse\n")
