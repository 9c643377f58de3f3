"""Red team: a fleet LIST entry spelled as a `file://` URL, or a repository fetched again on a later run, meets the
same object-store checks as a local path at its first clone (porter.fleet.checkout).

Before the fix `file:///…/borrowing.git` skipped the alternates check (only an absolute path was checked), so a
bare repository borrowing another repository's object store had that repository's code cloned into the cache and
assessed under its own name; and a fetch of an already cloned repository was never checked at all."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from porter.fleet.checkout import CheckoutError, checkout, local_path
from porter.fleet.inventory import Entry


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repos(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    git(secret, "init", "-q", "-b", "main")
    (secret / "k.cu").write_text("__global__ void k() {}\n")
    git(secret, "add", "k.cu")
    git(secret, "commit", "-qm", "secret")
    head = git(secret, "rev-parse", "HEAD").strip()
    borrowing = tmp_path / "borrowing.git"
    git(tmp_path, "init", "-q", "--bare", str(borrowing))
    (borrowing / "objects" / "info" / "alternates").write_text(f"{secret}/.git/objects\n")
    git(borrowing, "update-ref", "refs/heads/main", head)
    git(borrowing, "symbolic-ref", "HEAD", "refs/heads/main")
    own = tmp_path / "own.git"
    git(tmp_path, "clone", "-q", "--bare", str(secret), str(own))
    return tmp_path, secret, borrowing, own, head


def test_local_path_reads_a_file_url_as_git_does():
    assert local_path("file:///srv/a.git") == Path("/srv/a.git")
    assert local_path("file://evil/srv/%61.git") == Path("/srv/a.git")  # git ignores the host, decodes %61
    assert local_path("/srv/a.git") == Path("/srv/a.git")
    assert local_path("https://example.com/a.git") is None
    assert local_path("git@example.com:a.git") is None


@pytest.mark.parametrize("spelling", ["file://{p}", "file://localhost{p}", "file://x{q}"])
def test_a_file_url_to_a_borrowing_repository_is_refused(repos, spelling):
    root, secret, borrowing, _, _ = repos
    location = spelling.format(p=borrowing, q=str(borrowing).replace("borrowing", "%62orrowing"))
    with pytest.raises(CheckoutError) as e:
        checkout(Entry("b", location, "main"), root / "clones")
    assert str(e.value).startswith(f"{borrowing}: {borrowing}/objects/info/alternates (alternates) leads to the "
                                   f"object store {secret}/.git/objects, outside the repository")
    assert not (root / "clones").exists() or list((root / "clones").iterdir()) == []


def test_a_file_url_with_a_nul_escape_or_no_path_is_no_such_directory(repos):
    root, _, borrowing, _, _ = repos
    for location in (f"file://{borrowing}%00", "file://borrowing.git"):
        with pytest.raises(CheckoutError) as e:
            checkout(Entry("b", location, "main"), root / "clones")
        assert str(e.value) == f"{location}: no such directory"


def test_a_file_url_to_a_repository_of_its_own_is_cloned(repos):
    root, _, _, own, head = repos
    assert checkout(Entry("o", f"file://{own}", "main"), root / "clones").commit == head


def test_a_repository_that_borrows_objects_by_the_next_run_is_refused_before_the_fetch(repos):
    root, secret, _, own, head = repos
    assert checkout(Entry("o", str(own), "main"), root / "clones").commit == head
    (own / "objects" / "info" / "alternates").write_text(f"{secret}/.git/objects\n")
    with pytest.raises(CheckoutError) as e:
        checkout(Entry("o", str(own), "main"), root / "clones")
    assert str(e.value).startswith(f"{own}: {own}/objects/info/alternates (alternates) leads to the object store "
                                   f"{secret}/.git/objects, outside the repository")
