"""Reads and writes a hostile repository influences stay inside it (issue 25, the critical cases): rules directories,
target profiles, .gitignore files, .git files and core.worktree, translate's backup folder and manifests, output
paths in the checkout. Each case is built as an attacker would build it and run through the real CLI; every one
must end in a clear refusal (exit 2) or a scan that ignores the planted path, within the test's own timeout, and
nothing outside the repository may be read into an error or written."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"
SECRET = "SECRET_token_abc123"


def porter(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The CLI in this process (nothing here needs one of its own: no signal, limit or wrapper), with the test's
    timeout kept: a planted FIFO or device that porter opened would block, and SIGALRM ends the wait."""
    return porter_here(*args, cwd=cwd, timeout=timeout, replace_env=True,
                       env={**os.environ, "PORTER_CACHE_DIR": str(Path(os.environ.get("TMPDIR", "/tmp")) / "porter-containment-cache")})


def outside_yaml(tmp_path: Path) -> Path:
    """A file outside the repository whose keys an error could echo."""
    p = tmp_path / "outside.yaml"
    p.write_text(f"{SECRET}: 1\nid: X\n")
    return p


# -- porter.toml: rules directories and target profiles --------------------------------------------------------------

@pytest.mark.parametrize("planted", ["outside-file", "dev-zero", "fifo"])
def test_a_rules_directory_holding_a_link_out_or_a_fifo_is_refused_without_reading_it(tmp_path, planted):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": 'rules = ["myrules"]\n',
                                      "myrules/ok.yaml": "# nothing\n"}, commit=False)
    bad = repo / "myrules" / "bad.yaml"
    if planted == "outside-file":
        bad.symlink_to(outside_yaml(tmp_path))
    elif planted == "dev-zero":
        bad.symlink_to("/dev/zero")
    else:
        os.mkfifo(bad)
    p = porter("scan", str(repo), "-q", "-j", "1", timeout=60)  # cache on: the rule digest read must not hang either
    assert p.returncode == 2, p.stderr
    expected = {"outside-file": "is a symlink leading outside the repository",
                "dev-zero": "is a symlink leading outside the repository",
                "fifo": "is not a regular file"}[planted]
    assert p.stderr == f"error: porter.toml: rules: {bad} {expected}\n"
    assert SECRET not in p.stderr


@pytest.mark.parametrize("named", ["absolute", "dotdot", "link"])
def test_a_target_profile_path_in_repository_config_must_be_inside_the_repository(tmp_path, named):
    outside = outside_yaml(tmp_path)
    value = {"absolute": str(outside), "dotdot": "../outside.yaml", "link": "t.yaml"}[named]
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": f'targets = ["{value}"]\n'}, commit=False)
    if named == "link":
        (repo / "t.yaml").symlink_to(outside)
    p = porter("scan", str(repo), "-q", "--no-cache")
    assert p.returncode == 2
    reason = {"absolute": "is an absolute path; repository configuration may only name files inside the repository",
              "dotdot": "leads outside the repository", "link": "leads outside the repository"}[named]
    assert p.stderr == f"error: porter.toml: targets: {value!r} {reason}\n"
    assert SECRET not in p.stderr


def test_a_target_profile_inside_the_repository_is_still_read(tmp_path):
    profile = (Path(__file__).resolve().parent.parent / "rules" / "targets" / "mi300x.yaml").read_text()
    profile = profile.replace("id: mi300x", "id: mi300x-lab").replace("name: AMD Instinct MI300X", "name: Lab MI300X")
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": 'targets = ["lab/mi300x-lab.yaml"]\n',
                                      "lab/mi300x-lab.yaml": profile}, commit=False)
    p = porter("scan", str(repo), "-f", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["targets"] == ["mi300x-lab"]


# -- .gitignore outside git -----------------------------------------------------------------------------------------

def test_a_gitignore_linking_outside_the_tree_is_not_applied(tmp_path):
    # Applied, it would tell which of the tree's file names appear as lines of the outside file.
    (tmp_path / "names.txt").write_text("a.cu\n")
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.cu").write_text(KERNEL)
    (tree / "b.cu").write_text(KERNEL)
    (tree / ".gitignore").symlink_to(tmp_path / "names.txt")
    p = porter("scan", str(tree), "-f", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert sorted({f["path"] for f in json.loads(p.stdout)["findings"]}) == ["a.cu", "b.cu"]


def test_a_gitignore_inside_the_tree_still_applies(tmp_path):
    tree = tmp_path / "t"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.cu").write_text(KERNEL)
    (tree / "sub" / "b.cu").write_text(KERNEL)
    (tree / "sub" / "c.cu").write_text(KERNEL)
    (tree / "sub" / ".gitignore").write_text("b.cu\n")
    p = porter("scan", str(tree), "-f", "json", "--no-cache")
    assert sorted({f["path"] for f in json.loads(p.stdout)["findings"]}) == ["a.cu", "sub/c.cu"]


def test_directories_nested_past_the_depth_limit_are_listed_as_skipped(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.cu").write_text(KERNEL)
    # 1,500 levels: os.walk recursed once per level (RecursionError, exit 3); paths are built relative to keep each
    # system call under PATH_MAX.
    fd = os.open(tree, os.O_RDONLY)
    try:
        d = fd
        for _ in range(1500):
            os.mkdir("d", dir_fd=d)
            nd = os.open("d", os.O_RDONLY, dir_fd=d)
            if d != fd:
                os.close(d)
            d = nd
        os.close(d)
    finally:
        os.close(fd)
    try:
        p = porter("scan", str(tree), "-f", "json", "--no-cache")
    finally:
        _remove_chain(tree / "d")  # pytest's clean-up of old temporary directories recurses once per level
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert {f["path"] for f in doc["findings"]} == {"a.cu"}
    assert [s["reason"] for s in doc["skipped"]] == ["directory nested deeper than 256 levels; not entered"]
    assert doc["skipped"][0]["path"] == "/".join(["d"] * 257)


def _remove_chain(top: Path) -> None:
    """Remove a chain of nested `d` directories bottom-up without recursion (rm -r copes with any depth)."""
    subprocess.run(["rm", "-rf", str(top)], check=True, timeout=60)


# -- .git files and core.worktree ----------------------------------------------------------------------------------

def _other_repository(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "other", {"secret_kernel.cu": KERNEL})


def test_a_git_file_pointing_at_another_repository_is_not_read_by_rev_or_history(tmp_path):
    other = _other_repository(tmp_path)
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {other / '.git'}\n")
    (tree / "mine.cu").write_text(KERNEL)
    why = f"{tree}/.git leads to the git directory {other / '.git'}, outside the repository, which does not belong to it"
    p = porter("scan", str(tree), "--rev", "HEAD", "-q", "--no-cache")
    assert (p.returncode, p.stderr) == (2, f"error: {tree}: {why}; not read\n")
    h = porter("history", str(tree), "--no-cache")
    assert (h.returncode, h.stderr) == (2, f"error: {tree}: {why}; not read\n")
    n = porter("scan", str(tree), "--new-since", "HEAD", "-q", "--no-cache")
    assert (n.returncode, n.stderr) == (2, f"error: {tree}: {why}; not read\n")
    # A plain scan reads the files on disk, not the other repository's list of them.
    s = porter("scan", str(tree), "-f", "json", "--no-cache")
    assert {f["path"] for f in json.loads(s.stdout)["findings"]} == {"mine.cu"}


def test_a_core_worktree_elsewhere_is_refused_with_a_message(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "config", "core.worktree", str(elsewhere))
    p = porter("scan", str(repo), "--rev", "HEAD", "-q", "--no-cache")
    assert p.returncode == 2
    assert p.stderr == (f"error: {repo}: git's work tree for {repo} is {elsewhere}, which does not contain it "
                        "(core.worktree?); not read\n")


def test_a_linked_worktree_of_a_real_repository_is_still_its_own(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    p = porter("scan", str(tmp_path / "wt"), "--rev", "HEAD", "-f", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert {f["path"] for f in json.loads(p.stdout)["findings"]} == {"k.cu"}


# -- translate: backup folder, manifests, the generated header -------------------------------------------------------

def test_undo_refuses_a_planted_manifest_naming_a_path_outside(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    tree = tmp_path / "t"
    run = tree / ".porter-backup" / "20990101-000000-1"
    run.mkdir(parents=True)
    (tree / "k.cu").write_text(KERNEL)
    digest = "0" * 64
    (run / "MANIFEST.sha256").write_text(f"{digest}  ../victim\n")
    written = hashlib.sha256(b"keep me\n").hexdigest()  # what the victim holds: undo would "restore" it
    (run / "WRITTEN.sha256").write_text(f"{written}  ../victim\n")
    (tmp_path / "victim-copy").write_text("pwned\n")
    p = porter("translate", str(tree), "--undo", "--force")
    assert p.returncode == 2
    assert p.stderr == f"error: {run}/MANIFEST.sha256: '../victim' is not a relative path inside {tree}\n"
    assert victim.read_text() == "keep me\n"


def test_a_backup_folder_that_is_a_symlink_receives_nothing(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "k.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (tree / ".porter-backup").symlink_to(outside)
    p = porter("translate", str(tree), "--in-place", "--force")
    assert p.returncode == 2
    assert p.stderr == f"error: backup folder: {tree}/.porter-backup is a symlink; porter does not follow it\n"
    assert list(outside.iterdir()) == []
    assert "cudaDeviceSynchronize" in (tree / "k.cu").read_text()  # nothing rewritten without a backup
    u = porter("translate", str(tree), "--undo")
    assert (u.returncode, u.stderr) == (2, f"error: backup folder: {tree}/.porter-backup is a symlink; porter does not follow it\n")


def test_a_regular_file_named_like_the_backup_folder_is_a_clear_error(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "k.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (tree / ".porter-backup").write_text("not a folder\n")
    p = porter("translate", str(tree), "--in-place", "--force")
    assert (p.returncode, p.stderr) == (2, f"error: backup folder: {tree}/.porter-backup exists and is not a directory\n")
    u = porter("translate", str(tree), "--undo")
    assert (u.returncode, u.stderr) == (2, f"error: backup folder: {tree}/.porter-backup exists and is not a directory\n")


SHUFFLE = ("#include <cuda_runtime.h>\n__global__ void k(float* p) {\n"
           "  unsigned m = __ballot_sync(0xffffffff, p[threadIdx.x] > 0);\n  p[0] = m;\n}\n")


def test_a_fifo_at_the_compat_header_name_does_not_hang_translate(tmp_path):
    tree = make_repo(tmp_path / "r", {"k.cu": SHUFFLE})
    os.mkfifo(tree / "porter_hip_compat.h")
    out = tmp_path / "out"
    p = porter("translate", str(tree), "-o", str(out), timeout=60)
    assert p.returncode in (0, 1), p.stderr
    d = porter("translate", str(tree), "--in-place", "--force", timeout=60)
    assert d.returncode in (0, 1, 2), d.stderr
    assert (tree / "porter_hip_compat.h").is_fifo()


def test_edits_to_the_generated_compat_header_come_back_with_undo(tmp_path):
    tree = make_repo(tmp_path / "r", {"k.cu": SHUFFLE})
    first = porter("translate", str(tree), "--in-place")
    assert first.returncode in (0, 1), first.stderr
    header = tree / "porter_hip_compat.h"
    assert header.is_file()
    git(tree, "add", "-A")
    git(tree, "commit", "-qm", "translated")
    (tree / "k.cu").write_text(SHUFFLE)  # CUDA again, so a second run rewrites it and the header
    edited = header.read_bytes() + b"// my own addition\n"
    header.write_bytes(edited)
    second = porter("translate", str(tree), "--in-place", "--force")
    assert second.returncode in (0, 1), second.stderr
    assert header.read_bytes() != edited
    undo = porter("translate", str(tree), "--undo")
    assert undo.returncode == 0, undo.stderr
    assert header.read_bytes() == edited


# -- output paths inside the checkout --------------------------------------------------------------------------------

def test_output_over_a_committed_symlink_replaces_the_link_not_its_target(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    (repo / "porter.sarif").symlink_to(victim)
    git(repo, "add", "porter.sarif")
    git(repo, "commit", "-qm", "plant")
    p = porter("scan", ".", "-o", "porter.sarif", "--no-cache", cwd=repo)
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "keep me\n"
    assert not (repo / "porter.sarif").is_symlink()
    assert json.loads((repo / "porter.sarif").read_text())["version"] == "2.1.0"


def test_output_under_a_committed_directory_symlink_leading_out_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    (repo / "reports").symlink_to(outside)
    p = porter("scan", ".", "-o", "reports/porter.sarif", "--no-cache", cwd=repo)
    assert (p.returncode, p.stderr) == (2, f"error: reports/porter.sarif: its directory leads outside {repo}; not written\n")
    assert list(outside.iterdir()) == []


def test_the_step_summary_is_not_appended_through_a_committed_symlink(tmp_path):
    victim = tmp_path / "victim.md"
    victim.write_text("keep me\n")
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "checkout", "-qb", "feature")
    (repo / "k2.cu").write_text(KERNEL)
    (repo / "summary.md").symlink_to(victim)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    p = porter("scan", ".", "--new-since", "main", "--summary", "summary.md", "-q", "--no-cache", cwd=repo)
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == "error: --summary summary.md: is a symlink; not written through"
    assert victim.read_text() == "keep me\n"


def test_output_to_a_device_outside_any_checkout_still_works(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    p = porter("scan", str(repo), "-f", "json", "-o", os.devnull, "--no-cache")
    assert (p.returncode, p.stderr) == (0, "")


@pytest.mark.parametrize("value", ["1e-320", "nan", "inf", "0", "-1"])
def test_a_repository_max_file_size_that_is_not_a_sane_number_is_refused(tmp_path, value):
    # 1e-320 passed "more than 0" and meant 0 bytes: every file skipped, the gate silent.
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": f"max_file_size_mb = {value}\n"}, commit=False)
    p = porter("scan", str(repo), "-q", "--no-cache")
    shown = {"1e-320": "1e-320", "nan": "nan", "inf": "inf", "0": "0", "-1": "-1"}[value]
    assert (p.returncode, p.stderr) == (2, f"error: {repo / 'porter.toml'}: max_file_size_mb must be from 0.000001 "
                                           f"to 4096, not {shown}\n")


# -- found by re-attacking (issue 25's closing round) -----------------------------------------------------------------

def test_scanning_one_file_that_is_a_symlink_out_of_its_checkout_reads_nothing(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "priv.cu").write_text("__global__ void outside_kernel(float* x) { cudaMalloc(&x, 4); }\n")
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    (repo / "main.cu").symlink_to(outside / "priv.cu")
    p = porter("scan", str(repo / "main.cu"), "-f", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert "outside_kernel" not in p.stdout and doc["findings"] == []
    assert [(s["path"], s["reason"]) for s in doc["skipped"]] == [("main.cu", "leads outside the scanned root; not read")]
    t = porter("translate", str(repo / "main.cu"), "--diff")
    assert (t.returncode, t.stderr) == (2, f"error: {repo / 'main.cu'}: leads outside {repo} (a symlink?); not translated\n")


def test_cuda_only_and_rocm_macros_from_the_repository_are_said_in_notes(tmp_path):
    # Both turn open findings into handled or cuda-only ones, so a gate can go quiet: never unseen.
    ptx = '__global__ void k(int* p) { asm volatile("mov.u32 %0, %%laneid;" : "=r"(p[0])); }\n'
    repo = make_repo(tmp_path / "r", {"k.cu": ptx, "porter.toml": 'cuda_only = ["**"]\nrocm_macros = ["MY_HIP"]\n'})
    p = porter("scan", str(repo), "-q", "--no-cache", "--fail-on", "high")
    assert p.returncode == 0
    assert p.stderr == ("note: repository porter.toml marks 1 path glob(s) NVIDIA-only (their findings are not open "
                        "work): **\n"
                        "note: repository porter.toml names 1 macro(s) as the ROCm build (code under them reads as "
                        "handled): MY_HIP\n")


def test_history_html_shows_escape_sequences_in_subjects_as_text(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    (repo / "k2.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "\x1b[31mred\x1b[0m subject")
    p = porter("history", str(repo), "--format", "html", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout
    assert "\\x1b[31mred\\x1b[0m subject" in p.stdout
