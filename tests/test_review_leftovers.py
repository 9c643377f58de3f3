"""What the last review left: one atomic write (contain.write_bytes) under translate, git's repository checked once
per work-tree scan, and one mention pattern for renderers and comment bodies."""
from __future__ import annotations

import os
import signal

from helpers import make_repo
from porter import comment, contain
from porter.pipeline import run
from porter.render import safe
from porter.settings import Settings
from porter.source import git
from porter.translate import write as write_mod

KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"


def _bounded(seconds: int) -> None:
    def too_long(*_):
        raise TimeoutError("over the test's own bound")
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)


def test_translate_writes_through_contain_keeping_the_exact_mode(tmp_path, monkeypatch):
    calls = []
    real = contain.write_bytes
    monkeypatch.setattr(contain, "write_bytes", lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    dest = tmp_path / "a.cu"
    os.symlink(outside, dest)
    old = os.umask(0o077)
    try:
        write_mod._atomic_write(dest, b"new", 0o664, sync=False, root=tmp_path)
    finally:
        os.umask(old)
    assert calls == [{"mode": 0o664, "sync": False, "umask": False, "root": tmp_path}]
    assert not dest.is_symlink() and dest.read_bytes() == b"new" and outside.read_text() == "keep me"
    assert os.stat(dest).st_mode & 0o777 == 0o664  # the file's own mode, whatever the umask
    assert write_mod.TMP_PREFIX == contain.TMP_PREFIX and not list(tmp_path.glob(contain.TMP_PREFIX + "*"))


def test_a_work_tree_scan_checks_its_repository_once(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "r", {"src/k.cu": KERNEL})
    calls = []
    real = git.repository_top
    monkeypatch.setattr(git, "repository_top", lambda p: calls.append(p) or real(p))
    _bounded(120)
    try:
        result = run(repo / "src", Settings(jobs=1, cache_dir=None)).result
    finally:
        signal.alarm(0)
    assert len(calls) == 1
    assert result.stats.prefix == "src"  # the top found without asking git again is the same


def test_one_mention_pattern():
    assert "MENTION" not in vars(comment) or comment.MENTION is safe.MENTION
    assert not hasattr(comment, "_BODY_MENTION")
    assert comment.inert_body("cc @acme/team") == "cc `@acme/team`"
    assert safe.md_text("cc @acme/team") == "cc `@acme/team`"
