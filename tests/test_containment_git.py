"""A scanned repository's .git may borrow another repository's objects (alternates, commondir, an objects symlink),
make git read other files ([include], core.excludesFile naming a FIFO) or hold a few KB of tree that lists 10^9
paths. Each attack is built as the red-team built it, with real git, and run through the real CLI: a clear refusal
(exit 2) or a scan that ignores it, within the test's own timeout, nothing of the other repository reported.
The legitimate layouts (linked worktree, submodule) still read."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"
SECRET_NAME = "secret_kernel.cu"


def porter(*args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    """The CLI in this process (the git children it starts are capped by porter itself, not by this test), with the
    test's timeout kept: SIGALRM ends a run that hangs on what git was made to read."""
    return porter_here(*args, timeout=timeout, replace_env=True,
                       env={**os.environ, **env,
                            "PORTER_CACHE_DIR": str(Path(os.environ.get("TMPDIR", "/tmp")) / "porter-containment-cache")})


def real(p: Path) -> str:
    return os.path.realpath(p)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "victim", {SECRET_NAME: KERNEL})


def _refused_everywhere(tree: Path, rev: str, why: str) -> None:
    """scan --rev, history and --new-since all stop with `why`; none quotes the victim's code."""
    expected = f"error: {tree}: {why}; not read\n"
    for args in (("scan", str(tree), "--rev", rev, "--isolated", "-q", "--no-cache"),
                 ("history", str(tree), "--no-cache"),
                 ("scan", str(tree), "--new-since", rev, "--isolated", "-q", "--no-cache")):
        p = porter(*args, timeout=30)
        assert (p.returncode, p.stderr) == (2, expected), args
        assert SECRET_NAME not in p.stdout


# -- F1: alternates borrowing another repository's objects, a ref symlinked to its branch ------------------------------

def test_alternates_into_another_repository_with_a_symlinked_ref_is_refused(tmp_path, victim):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    alternates = tree / ".git" / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(f"{victim / '.git' / 'objects'}\n")
    (tree / ".git" / "refs" / "heads" / "stolen").symlink_to(victim / ".git" / "refs" / "heads" / "main")
    why = (f"{real(alternates)} (alternates) leads to the object store {real(victim / '.git' / 'objects')}, outside "
           "the repository: its commits would be read from another repository (a `git clone --shared` or "
           "`--reference` clone; `git repack -a -d` and removing the alternates file make it self-contained)")
    _refused_everywhere(tree, "stolen", why)
    # A work-tree scan reads the files on disk and says why git was not used.
    s = porter("scan", str(tree), "--isolated", "-f", "json", "--no-cache")
    report = json.loads(s.stdout)
    assert {f["path"] for f in report["findings"]} == {"mine.cu"}
    assert any(k["path"] == ".git" and "alternates" in k["reason"] for k in report["skipped"]), report["skipped"]


def test_a_relative_alternates_line_leading_out_is_refused_too(tmp_path, victim):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    alternates = tree / ".git" / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text("# a comment\n../../../victim/.git/objects\n")
    p = porter("scan", str(tree), "--rev", "HEAD", "--isolated", "-q", "--no-cache", timeout=30)
    assert p.returncode == 2 and "(alternates) leads to the object store" in p.stderr, p.stderr


def test_an_objects_symlink_into_another_repository_is_refused(tmp_path, victim):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    os.rename(tree / ".git" / "objects", tmp_path / "own-objects")
    (tree / ".git" / "objects").symlink_to(victim / ".git" / "objects")
    (tree / ".git" / "refs" / "heads" / "stolen").write_text(git(victim, "rev-parse", "HEAD"))
    why = (f"{real(tree / '.git')}'s object store leads to {real(victim / '.git' / 'objects')}, outside its git "
           f"directory {real(tree / '.git')} (a .git/objects symlink?)")
    _refused_everywhere(tree, "stolen", why)


# -- F2: commondir naming another repository's git directory ----------------------------------------------------------

def test_a_commondir_naming_another_repository_is_refused(tmp_path, victim):
    git(victim, "branch", "victim-branch")
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    (tree / ".git" / "commondir").write_text(f"{victim / '.git'}\n")
    why = (f"{real(tree / '.git')}/commondir leads to {real(victim / '.git')}, another repository's git directory, "
           "which does not belong to it")
    _refused_everywhere(tree, "victim-branch", why)


# -- F3, F4: repository config that makes git read other files ---------------------------------------------------------

@pytest.mark.parametrize("planted", ["fifo", "outside-file"])
def test_core_excludes_file_in_repository_config_is_not_applied(tmp_path, planted):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL, "b.cu": KERNEL}, commit=False)
    excludes = tmp_path / "excludes"
    if planted == "fifo":
        os.mkfifo(excludes)
    else:
        excludes.write_text("*.cu\n")
    git(tree, "config", "core.excludesFile", str(excludes))
    git(tree, "config", "core.attributesFile", str(excludes))
    s = porter("scan", str(tree), "--isolated", "-f", "json", "--no-cache", timeout=20)
    assert s.returncode in (0, 1), s.stderr
    report = json.loads(s.stdout)
    assert {f["path"] for f in report["findings"]} == {"mine.cu", "b.cu"}
    assert report["skipped"] == []  # git listed the files: no fall-back


@pytest.mark.parametrize("how", ["include", "includeIf"])
def test_a_config_include_is_refused_before_git_reads_it(tmp_path, how):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    section = "[include]" if how == "include" else f'[includeIf "gitdir:{tree}/"]'
    with open(tree / ".git" / "config", "a") as f:
        f.write(f"{section}\n\tpath = {fifo}\n")
    why = f"{tree / '.git' / 'config'}: repository config uses [include]; porter does not follow it"
    _refused_everywhere(tree, "HEAD", why)
    s = porter("scan", str(tree), "--isolated", "-f", "json", "--no-cache", timeout=20)
    report = json.loads(s.stdout)
    assert {f["path"] for f in report["findings"]} == {"mine.cu"}
    assert [k["reason"] for k in report["skipped"]] == [f"git not used ({why}); the files on disk were walked instead"]


@pytest.mark.parametrize("planted", ["fifo", "symlink-out"])
def test_a_repository_config_that_is_not_a_regular_file_inside_is_refused(tmp_path, planted):
    tree = make_repo(tmp_path / "t", {"mine.cu": KERNEL})
    cfg = tree / ".git" / "config"
    cfg.unlink()
    if planted == "fifo":
        os.mkfifo(cfg)
        why = f"{cfg} (the repository config) is not a regular file; not read"
    else:
        outside = tmp_path / "outside-config"
        outside.write_text("[core]\n\trepositoryformatversion = 0\n")
        cfg.symlink_to(outside)
        why = f"{cfg} (the repository config) is a symlink leading to {real(outside)}, outside the git directory; not read"
    _refused_everywhere(tree, "HEAD", why)


# -- F8: a few KB of commit listing 10^9 paths -------------------------------------------------------------------------

def _tree_bomb(repo: Path) -> str:
    """A commit whose tree nests one 1000-entry subtree 1000 x 1000 deep: 10^9 paths in ~90 KB of objects."""
    def write(data: bytes, kind: str) -> str:
        return subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "-t", kind, "--stdin"], input=data,
                              capture_output=True, check=True).stdout.strip().decode()

    def tree(mode: bytes, sha: str, suffix: bytes) -> str:
        return write(b"".join(mode + b" f%03d" % i + suffix + b"\0" + bytes.fromhex(sha) for i in range(1000)), "tree")

    t = tree(b"100644", write(KERNEL.encode(), "blob"), b".cu")
    for _ in range(2):
        t = tree(b"40000", t, b"")
    commit = git(repo, "commit-tree", "-p", "HEAD", "-m", "bomb", t).strip()
    git(repo, "update-ref", "refs/heads/main", commit)
    return commit


CAPS = {"PORTER_GIT_MEMORY_MIB": "64", "PORTER_GIT_OUTPUT_MIB": "8"}


def test_a_tree_bomb_ends_in_a_clear_error_not_gigabytes(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = git(repo, "rev-parse", "HEAD").strip()
    bomb = _tree_bomb(repo)
    assert sum(f.stat().st_size for f in (repo / ".git" / "objects").rglob("*") if f.is_file()) < 200_000
    p = porter("scan", str(repo), "--rev", "HEAD", "-q", "--no-cache", timeout=60, **CAPS)
    assert (p.returncode, p.stderr) == (2, f"error: {repo}@{bomb[:12]}: cannot list the tree: git ls-tree printed "
                                           "more than 8 MiB (the repository lists too much)\n")
    n = porter("scan", str(repo), "--new-since", base, "-q", "--no-cache", timeout=60, **CAPS)
    assert (n.returncode, n.stderr) == (2, f"error: cannot compare {base[:12]} with {bomb[:12]}: git diff needed more "
                                           "than 64 MiB (the repository lists too much)\n")
    h = porter("history", str(repo), "--no-cache", timeout=60, **CAPS)
    assert (h.returncode, h.stderr) == (2, f"error: {repo}: git log needed more than 64 MiB (the repository lists "
                                           "too much)\n")


def test_the_default_caps_are_2_gib_of_memory_and_512_mib_of_output():
    from porter.source import git as g
    assert (g.MEMORY_MIB, g.OUTPUT_MIB) == (2048, 512)
    assert "core.excludesFile=/dev/null" in g.SAFE_OPTIONS and "core.attributesFile=/dev/null" in g.SAFE_OPTIONS


# -- the legitimate layouts ---------------------------------------------------------------------------------------------

def test_a_plain_repository_reads_by_rev_history_and_new_since(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "k2.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two")
    p = porter("scan", str(repo), "--rev", "HEAD", "--isolated", "-f", "json", "--no-cache")
    assert p.returncode == 0 and {f["path"] for f in json.loads(p.stdout)["findings"]} == {"k.cu", "k2.cu"}, p.stderr
    assert porter("history", str(repo), "--no-cache").returncode == 0
    n = porter("scan", str(repo), "--new-since", base, "--isolated", "-f", "json", "--no-cache")
    assert n.returncode in (0, 1) and {f["path"] for f in json.loads(n.stdout)["findings"]} == {"k2.cu"}, n.stderr


def test_a_linked_worktree_reads_by_rev_and_history(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    p = porter("scan", str(tmp_path / "wt"), "--rev", "HEAD", "-f", "json", "--no-cache")
    assert p.returncode == 0 and {f["path"] for f in json.loads(p.stdout)["findings"]} == {"k.cu"}, p.stderr
    assert porter("history", str(tmp_path / "wt"), "--no-cache").returncode == 0


def test_a_submodule_checkout_reads_by_rev_and_history(tmp_path):
    sub = make_repo(tmp_path / "sub", {"s.cu": KERNEL})
    sup = make_repo(tmp_path / "super", {"top.cu": KERNEL})
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "third_party/sub")
    git(sup, "commit", "-qm", "add sub")
    checkout = sup / "third_party" / "sub"
    assert (checkout / ".git").is_file()
    p = porter("scan", str(checkout), "--rev", "HEAD", "--isolated", "-f", "json", "--no-cache")
    assert p.returncode == 0 and {f["path"] for f in json.loads(p.stdout)["findings"]} == {"s.cu"}, p.stderr
    assert porter("history", str(checkout), "--no-cache").returncode == 0
    s = porter("scan", str(checkout), "-f", "json", "--no-cache")
    assert json.loads(s.stdout)["skipped"] == []


def test_a_shared_clone_borrowing_objects_is_now_refused_with_the_remedy(tmp_path):
    origin = make_repo(tmp_path / "origin", {"k.cu": KERNEL})
    git(tmp_path, "clone", "-q", "--shared", str(origin), "clone")
    clone = tmp_path / "clone"
    p = porter("scan", str(clone), "--rev", "HEAD", "-q", "--no-cache", timeout=30)
    assert p.returncode == 2
    assert "(alternates) leads to the object store" in p.stderr and "git repack -a -d" in p.stderr
    git(clone, "repack", "-q", "-a", "-d")
    (clone / ".git" / "objects" / "info" / "alternates").unlink()
    p = porter("scan", str(clone), "--rev", "HEAD", "-f", "json", "--no-cache")
    assert p.returncode == 0 and {f["path"] for f in json.loads(p.stdout)["findings"]} == {"k.cu"}, p.stderr
