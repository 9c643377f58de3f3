"""Red team, session 16: a directory named on the command line that a pull request committed as a symlink.

A CI job runs `porter scan src` (the Action's `path` input, a monorepo's subdirectory) in the PR's checkout. The PR
replaces `src` with a symlink to a directory outside the checkout (the runner's home, another checkout): porter
scanned that directory as the tree and quoted its files in the report (each finding's snippet, the file names,
the kernels). One named *file* that leads out was already skipped (tests/test_containment.py); a named directory
now is refused (exit 2) by porter.contain.leaves_checkout, for every command that takes a path.
"""
from __future__ import annotations

import json

import pytest

from helpers import git, make_repo, porter_here
from porter import contain

SECRET = "__global__ void outside_kernel(float* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 16); } // PRIVATE\n"


@pytest.fixture
def planted(tmp_path):
    outside = tmp_path / "home" / "ci"
    (outside / "work").mkdir(parents=True)
    (outside / "work" / "priv.cu").write_text(SECRET)
    repo = make_repo(tmp_path / "r", {"src/a.cu": "int a;\n"})
    git(repo, "rm", "-rq", "src")
    (repo / "src").symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    return repo, outside


@pytest.mark.parametrize("command", [("scan", "-f", "json"), ("assess", "-f", "json"), ("port",), ("history",),
                                     ("translate", "--diff")])
def test_a_named_directory_that_links_out_of_its_checkout_is_not_scanned(planted, command):
    # Before: `porter scan r/src -f json` exited 0 with outside_kernel's findings and the PRIVATE line in snippets.
    repo, _ = planted
    p = porter_here(command[0], str(repo / "src"), *command[1:])
    assert (p.returncode, p.stderr) == (2, f"error: {repo / 'src'}: leads outside {repo} (a symlink?); "
                                           "not scanned\n")
    assert "PRIVATE" not in p.stdout and "outside_kernel" not in p.stdout


def test_the_same_link_relative_to_the_working_directory_and_a_directory_below_it(planted):
    repo, _ = planted
    for name in ("src", "src/work"):
        p = porter_here("scan", name, "-q", cwd=repo)
        assert (p.returncode, p.stderr) == (2, f"error: {name}: leads outside {repo} (a symlink?); not scanned\n")


def test_a_link_to_another_checkout_is_caught_by_the_checkout_around_it(tmp_path):
    other = make_repo(tmp_path / "other", {"k.cu": SECRET})
    repo = make_repo(tmp_path / "r", {"a.cu": "int a;\n"})
    (repo / "vendor").symlink_to(other)
    assert contain.leaves_checkout(repo / "vendor") == repo
    assert contain.leaves_checkout(other) is None


def test_a_checkout_named_through_a_link_and_real_directories_in_it_still_scan(tmp_path):
    repo = make_repo(tmp_path / "r", {"src/k.cu": SECRET})
    (tmp_path / "link").symlink_to(repo)
    (repo / "alias").symlink_to("src")  # a link that stays inside the checkout
    for named in (tmp_path / "link", tmp_path / "link" / "src", repo / "src", repo / "alias"):
        assert contain.leaves_checkout(named) is None, named
        p = porter_here("scan", str(named), "-f", "json", "--no-cache")
        assert p.returncode == 0, (named, p.stderr)
        assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["DEV002", "DEV011", "KRN001"], named


def test_output_under_a_committed_link_to_another_checkout_is_refused(tmp_path):
    # Before: `reports -> ../other` found other's own `.git` as the nearest checkout, so `-o r/reports/x.sarif` was
    # written into the other checkout (a workflow that checks out two repositories and commits one of them).
    other = make_repo(tmp_path / "other", {"o.txt": "o\n"})
    repo = make_repo(tmp_path / "r", {"k.cu": SECRET})
    (repo / "reports").symlink_to(other)
    assert contain.checkout_of(repo / "reports" / "x.sarif") == repo
    p = porter_here("scan", str(repo), "-o", str(repo / "reports" / "x.sarif"), "--no-cache")
    assert (p.returncode, p.stderr) == (2, f"error: {repo / 'reports' / 'x.sarif'}: its directory leads outside "
                                           f"{repo}; not written\n")
    assert sorted(q.name for q in other.iterdir()) == [".git", "o.txt"]
    p = porter_here("scan", str(repo), "-q", "--summary", str(repo / "reports" / "summary.md"), "--no-cache")
    assert p.returncode == 2 and not (other / "summary.md").exists()
    assert contain.checkout_of(repo / "out" / "new" / "x.sarif") == repo  # a directory still to be made
