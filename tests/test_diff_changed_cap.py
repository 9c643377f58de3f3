"""A comparison whose change lists more paths than porter.diff.MAX_CHANGED_PATHS is refused (a usage error, exit 2,
which fails a PR gate) before its paths become Python strings: a tiny object set can list a million paths."""
from __future__ import annotations

import pytest

from helpers import git, make_repo
from porter import diff
from porter.errors import UsageError


def _change(tmp_path, n):
    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k() {}\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    for i in range(n):
        (repo / f"k{i}.cu").write_text(f"__global__ void k{i}() {{}}\n")
    (repo / "a.cu").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many")
    return repo, base, git(repo, "rev-parse", "HEAD").strip()


def test_a_change_within_the_cap_is_compared(tmp_path, monkeypatch):
    monkeypatch.setattr(diff, "MAX_CHANGED_PATHS", 6)
    repo, base, head = _change(tmp_path, 5)
    c = diff.changes(repo, base, head)
    assert (sorted(c.base_paths), sorted(c.head_paths)) == (["a.cu"], [f"k{i}.cu" for i in range(5)])


def test_a_change_past_the_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(diff, "MAX_CHANGED_PATHS", 5)
    repo, base, head = _change(tmp_path, 5)
    with pytest.raises(UsageError, match=r"the change touches more than 5 paths, past what porter compares file by "
                                         r"file; scan the head in full"):
        diff.changes(repo, base, head)
