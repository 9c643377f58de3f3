"""Red team, session 20: a partial clone's lazy fetch ran a program the scanned repository's .git/config names.

A repository whose config says `extensions.partialClone = origin` is a partial clone: when git needs an object the
repository lacks, it fetches it from that remote by itself, whichever read asked for it (`cat-file --batch`,
`ls-tree`, `diff`, `log`). The remote's URL and its `uploadpack` program are the repository's own config, and so is
`protocol.<name>.allow`, which outranks porter's `-c protocol.allow=never`: with `protocol.file.allow = always` and
`remote.origin.uploadpack = <any command>`, git 2.39 ran the command through the shell the moment
`porter scan --rev HEAD` asked for a blob the clone lacked (reproduced: the marker below was created; the same with
`protocol.ext.allow = always` and an `ext::<command>` URL). A missing blob is ordinary in a partial clone, so a
hostile tree only has to delete one object file. porter.source.git.git_env now sets GIT_ALLOW_PROTOCOL, which git
reads before any configuration ("overriding any existing configuration", git(1)), to the transports porter means to
use: none for a scanned repository, the LIST entry's own for a fleet clone.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here
from porter.source import git as pgit

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n"


def _partial_clone(tmp_path: Path, marker: Path, url: str = "") -> tuple[Path, str]:
    """A repository that calls itself a partial clone of `origin`, lacks k.cu's blob, and names `origin`'s fetch
    program (or, with `url`, an ext:: URL) as a command that creates `marker`."""
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    blob = git(repo, "rev-parse", "HEAD:k.cu").strip()
    os.unlink(repo / ".git" / "objects" / blob[:2] / blob[2:])
    git(repo, "config", "core.repositoryFormatVersion", "1")
    git(repo, "config", "extensions.partialClone", "origin")
    git(repo, "config", "remote.origin.promisor", "true")
    if url:
        git(repo, "config", "remote.origin.url", url)
        git(repo, "config", "protocol.ext.allow", "always")
    else:
        git(repo, "config", "remote.origin.url", str(tmp_path / "upstream"))
        git(repo, "config", "protocol.file.allow", "always")
        git(repo, "config", "remote.origin.uploadpack", f"sh -c 'touch {marker}; exit 1' --")
    return repo, blob


def test_scan_rev_never_runs_the_upload_pack_a_partial_clone_names(tmp_path):
    marker = tmp_path / "ran-upload-pack"
    repo, _ = _partial_clone(tmp_path, marker)
    r = porter_here("scan", str(repo), "--rev", "HEAD", "--no-cache", "--isolated", "-f", "json", timeout=120)
    assert not marker.exists()
    assert r.returncode == 0, r.stderr
    assert [(s["path"], s["reason"]) for s in json.loads(r.stdout)["skipped"]] == [
        ("k.cu", "blob missing from the repository (partial clone?): not read")]


def test_a_missing_object_is_never_fetched_over_an_ext_url(tmp_path):
    marker = tmp_path / "ran-ext"
    repo, blob = _partial_clone(tmp_path, marker, url=f"ext::sh -c touch% {marker}")
    with pytest.raises(pgit.GitError):
        pgit.run(repo, "cat-file", "blob", blob)
    assert not marker.exists()
    assert pgit.object_sizes(repo, [blob]) == {}
    assert not marker.exists()


def test_the_environment_allows_only_the_transports_asked_for(monkeypatch):
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file:ext")  # the caller's own setting is not passed on either
    assert pgit.git_env()["GIT_ALLOW_PROTOCOL"] == ""
    assert pgit.git_env(("https",))["GIT_ALLOW_PROTOCOL"] == "https"
