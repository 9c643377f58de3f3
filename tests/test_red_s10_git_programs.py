"""Red team, session 10: a scanned repository's .git/config names programs under keys whose names it chooses
(`filter.<driver>.clean`, `diff.<driver>.textconv`, `gpg.program`), and git runs them by itself: `git status` (the
report header's "with uncommitted changes", `porter assess`) hashes a file whose stat changed through its clean filter, recursing
into a submodule whose own config names another, and `git log` runs gpg.program when the config turns
log.showSignature on. Each program here would create a marker file; porter's git helper (porter.source.git) must
disarm them all, with real git and real repositories, and still tell a dirty tree from a clean one."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here
from porter.source import git as pgit

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"


def _program(marker: Path) -> str:
    # A clean filter / textconv / gpg stand-in: leaves a marker, passes its input through.
    return f"sh -c 'touch {marker}; cat' --"


def _about(repo: Path) -> dict:
    p = porter_here("assess", str(repo), "--format", "json", "--no-cache", "--isolated", timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)["about"]


def test_scan_does_not_run_the_repositorys_clean_filter(tmp_path):
    marker = tmp_path / "ran-clean-filter"
    repo = make_repo(tmp_path / "r", {".gitattributes": "*.cu filter=x\n", "a.cu": KERNEL})
    git(repo, "config", "filter.x.clean", _program(marker))
    git(repo, "config", "filter.x.required", "true")
    os.utime(repo / "a.cu", (978307200, 978307200))  # same bytes, new stat: git status re-hashes it
    about = _about(repo)
    assert not marker.exists()
    assert about["dirty"] is False
    assert about["commit"] == git(repo, "rev-parse", "HEAD").strip()
    # Still told apart: a real change makes the header say so.
    (repo / "a.cu").write_text(KERNEL + "// edited\n")
    assert _about(repo)["dirty"] is True
    assert not marker.exists()


def test_scan_does_not_recurse_into_a_submodule_that_names_a_filter(tmp_path):
    marker = tmp_path / "ran-submodule-filter"
    sub = make_repo(tmp_path / "sub", {".gitattributes": "*.cu filter=y\n", "b.cu": KERNEL})
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "m")
    # `ignore = none` in the committed .gitmodules outranks a `-c diff.ignoreSubmodules` default.
    git(repo, "config", "-f", ".gitmodules", "submodule.m.ignore", "none")
    git(repo, "commit", "-qam", "submodule")
    git(repo, "config", "-f", ".git/modules/m/config", "filter.y.clean", _program(marker))
    os.utime(repo / "m" / "b.cu", (978307200, 978307200))
    about = _about(repo)
    assert not marker.exists()
    assert about["dirty"] is False


def test_helper_disarms_textconv_and_signature_programs(tmp_path):
    textconv, gpg = tmp_path / "ran-textconv", tmp_path / "ran-gpg"
    repo = make_repo(tmp_path / "r", {".gitattributes": "*.cu diff=z\n", "a.cu": KERNEL})
    (repo / "a.cu").write_text(KERNEL + "// two\n")
    git(repo, "commit", "-qam", "two")
    git(repo, "config", "diff.z.textconv", _program(textconv))
    git(repo, "config", "gpg.program", _program(gpg))
    git(repo, "config", "log.showSignature", "true")
    # A commit carrying a signature header: `git log` with showSignature hands it to gpg.program to verify.
    head = git(repo, "cat-file", "commit", "HEAD")
    header, _, message = head.partition("\n\n")
    signed = (header + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----\n\n"
              + message)
    (tmp_path / "c").write_text(signed)
    sha = git(repo, "hash-object", "-t", "commit", "-w", str(tmp_path / "c")).strip()
    git(repo, "update-ref", "refs/heads/main", sha)
    assert pgit.run(repo, "log", "-1", "--format=%H").decode() == sha + "\n"
    assert not gpg.exists()
    # porter's own diffs pass --no-textconv; one that does not fails rather than run the repository's program.
    with pytest.raises(pgit.GitError, match="^error: cannot run : No such file or directory"):
        pgit.run(repo, "log", "-1", "-p", "--format=%H")
    assert not textconv.exists()
    assert b"+// two" in pgit.run(repo, "log", "-1", "-p", "--no-textconv", "--format=%H")


def test_a_driver_name_an_override_cannot_spell_is_refused(tmp_path):
    marker = tmp_path / "ran-clean-filter"
    repo = make_repo(tmp_path / "r", {".gitattributes": "*.cu filter=a=b\n", "a.cu": KERNEL})
    git(repo, "config", "filter.a=b.clean", _program(marker))
    os.utime(repo / "a.cu", (978307200, 978307200))
    p = porter_here("scan", str(repo), "--rev", "HEAD", "--no-cache", "--isolated", "-q", timeout=60)
    cfg = os.path.realpath(repo / ".git" / "config")
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: {cfg}: repository config names a program under "
                                           "'filter.a=b.clean', which porter cannot override; not read; not read\n")
    assert not marker.exists()


# -- files git reads from the git directory with a blocking open: a FIFO stalled each command for its full timeout ---

def _fifo_repo(tmp_path: Path, rel: str) -> Path:
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    target = repo / ".git" / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    return repo


def test_a_fifo_at_info_exclude_is_not_waited_on(tmp_path):
    # Before: `git ls-files --exclude-standard` (discovery) blocked opening it until git.run's 120 s timeout.
    repo = _fifo_repo(tmp_path, "info/exclude")
    p = porter_here("scan", str(repo), "--isolated", "--no-cache", "--format", "json", timeout=60)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    assert doc["skipped"] == [{"path": ".git", "reason": f"git not used ({repo}/.git/info/exclude is not a regular "
                                                          "file; git would wait on it, so it is not read); the files on "
                                                          "disk were walked instead"}]
    assert doc["files"]["scanned"] == 1


def test_a_fifo_at_info_attributes_is_refused_before_git_status(tmp_path):
    repo = _fifo_repo(tmp_path, "info/attributes")
    p = porter_here("scan", str(repo), "--rev", "HEAD", "--isolated", "--no-cache", "-q", timeout=60)
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: {repo}/.git/info/attributes is not a regular file; git "
                                           "would wait on it, so it is not read; not read\n")


def test_a_branch_ref_symlinked_out_of_the_git_directory_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.write_text("0" * 40 + "\n")
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    ref = repo / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    ref.symlink_to(outside)
    p = porter_here("scan", str(repo), "--rev", "HEAD", "--isolated", "--no-cache", "-q", timeout=60)
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: {ref} is a symlink leading to {outside}, outside the git "
                                           "directory; not read; not read\n")


def test_diff_order_file_naming_a_fifo_does_not_stall_new_since(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": "int a;\n"})
    (repo / "b.cu").write_text(KERNEL)
    git(repo, "add", "b.cu")
    git(repo, "commit", "-qm", "b")
    os.mkfifo(tmp_path / "order")
    git(repo, "config", "diff.orderFile", str(tmp_path / "order"))
    p = porter_here("scan", str(repo), "--new-since", "HEAD~1", "--isolated", "--no-cache", "--format", "json",
                    timeout=60)
    assert p.returncode in (0, 1), p.stderr
    assert sorted({f["path"] for f in json.loads(p.stdout)["findings"]}) == ["b.cu"]


def test_a_fifo_at_a_split_indexs_shared_index_is_not_waited_on(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL})
    git(repo, "update-index", "--split-index")
    (shared,) = (repo / ".git").glob("sharedindex.*")
    shared.unlink()
    os.mkfifo(shared)
    p = porter_here("scan", str(repo), "--isolated", "--no-cache", "--format", "json", timeout=60)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    assert doc["skipped"] == [{"path": ".git", "reason": f"git not used ({shared} is not a regular file; git would "
                                                          "wait on it, so it is not read); the files on disk were "
                                                          "walked instead"}]


def test_a_repository_cannot_lift_the_rename_limit_of_porters_diffs(tmp_path):
    # `diff.renameLimit = 0` ("no limit") in the scanned repository's config made `scan --new-since`'s `git diff -M`
    # quadratic in the renames a pull request makes (3,000 renamed files: 0.1 s -> 13.2 s); porter's git keeps
    # git's own default whatever the repository says.
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "config", "diff.renameLimit", "0")
    assert git(repo, "config", "--get", "diff.renameLimit").strip() == "0"
    assert pgit.run(repo, "config", "--get", "diff.renameLimit") == b"1000\n"
