"""A fleet LIST entry may be any URL `git clone` accepts for a repository (issue 31): porter's safe git options refuse
every transport, and porter.fleet.checkout allows the one transport the user's entry names, for that clone only.
Tested against git's dumb HTTP protocol served from 127.0.0.1 (a bare repository after `git update-server-info`,
served by http.server), and a command-running transport (`ext::`) that must stay refused."""
from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from helpers import git

from porter.fleet.checkout import CheckoutError, checkout, transport_options
from porter.fleet.inventory import Entry


@pytest.fixture
def served(tmp_path):
    """(http URL of a bare repository on 127.0.0.1, its HEAD commit)."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "k.cu").write_text("__global__ void k() {}\n")
    git(work, "add", "k.cu")
    git(work, "commit", "-qm", "one kernel")
    head = git(work, "rev-parse", "HEAD").strip()
    root = tmp_path / "www"
    root.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(work), str(root / "k.git"))
    git(root / "k.git", "update-server-info")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/k.git", head
    finally:
        server.shutdown()
        server.server_close()


def test_an_http_entry_is_cloned_and_fetched_again(served, tmp_path):
    url, head = served
    first = checkout(Entry("k", url, None), tmp_path / "cache", timeout=60)
    assert first.commit == head
    assert git(first.path, "show", f"{head}:k.cu") == "__global__ void k() {}\n"
    again = checkout(Entry("k", url, "main"), tmp_path / "cache", timeout=60)  # the fetch path
    assert (again.path, again.commit) == (first.path, head)


def test_each_entry_gets_its_own_transport_and_no_other():
    assert transport_options("https://github.com/ROCm/rocm-examples.git") == ("-c", "protocol.https.allow=always")
    assert transport_options("git@github.com:ROCm/rocm-examples.git") == (
        "-c", "protocol.ssh.allow=always", "-c", "core.sshCommand=ssh")
    assert transport_options("ssh://git@host/r.git")[:2] == ("-c", "protocol.ssh.allow=always")
    assert transport_options("/srv/git/r.git") == ("-c", "protocol.file.allow=always")
    assert transport_options("file:///srv/git/r.git") == ("-c", "protocol.file.allow=always")


@pytest.mark.parametrize("location", ["ext::sh -c touch% /tmp/porter-ext-pwned", "fd::3", "ftp://host/r.git",
                                      "testgit::/srv/r"])
def test_a_transport_a_fleet_does_not_use_is_refused_before_git_runs(location, tmp_path):
    with pytest.raises(CheckoutError, match="not a transport a fleet clones over"):
        checkout(Entry("x", location, None), tmp_path / "cache", timeout=10)
    assert not Path("/tmp/porter-ext-pwned").exists()


def test_a_repository_that_cannot_be_cloned_is_recorded_and_the_fleet_goes_on(served, tmp_path):
    from porter.fleet.assess import Options
    from porter.fleet.scan import scan
    from porter.fleet.store import Store

    url, head = served
    gone = url.replace("/k.git", "/gone.git")
    store = Store.open(tmp_path / "f.db")
    summary = scan(store, (Entry("gone", gone), Entry("k", url)),
                   Options(clone_cache=tmp_path / "clones", cache_dir=tmp_path / "pcache"))
    assert (summary.assessed, summary.failed) == (1, 1)
    rows = {r["repository"]: (r["outcome"], r["commit_id"], r["reason"]) for r in store.run_rows(1)}
    assert rows == {"gone": ("failed", None, f"git cannot clone or fetch {gone}: fatal: repository '{gone}/' not found"),
                    "k": ("assessed", head, None)}


def test_a_repository_missing_an_object_fails_with_the_cause_not_the_echo(tmp_path):
    """A local repository whose blob is gone (a partial mirror, a damaged disk): git's last line is only
    "fetch-pack: invalid index-pack output"; the reason stored names the missing object and what to run."""
    from helpers import make_repo

    repo = make_repo(tmp_path / "damaged", {"a.cu": "__global__ void k() {}\n"})
    blob = git(repo, "rev-parse", "HEAD:a.cu").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(CheckoutError) as e:
        checkout(Entry("damaged", str(repo), None), tmp_path / "cache", timeout=60)
    assert str(e.value) == (f"git cannot clone or fetch {repo}: remote: fatal: unable to read {blob} (the repository "
                            "lacks an object it refers to: `git fsck` in it lists what is missing)")
