"""Red team, session 12: a kernel behind a symlink committed in the pull request.

A PR adds `docs/kernel.txt` (CUDA code in a file of no language porter knows) and `src/k.cu`, a symlink to it. The
build compiles src/k.cu, reading the kernel through the link (nvcc -c src/k.cu: rc 0); a scan of the checkout reads
through it too. But `scan --new-since` reads the commits from git objects, where porter skipped every symlink ("not
followed"), and it does not read .txt files: the gate exited 0 with "0 new". A symlink in a git tree whose target is
a regular file of the same tree is now read as that file (its blob), under the link's name and language; one leading
out of the tree, to a missing path or round a loop stays skipped.
"""
from __future__ import annotations

import json
import os

from helpers import git, make_repo, porter_here

KERNEL = """__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[0] = v;
}
"""


def _commit(repo, links: dict[str, str], files: dict[str, str]):
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    for rel, target in links.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo / rel)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")


def _gate(repo):
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    doc = json.loads(p.stdout)
    return p.returncode, sorted((f["path"], f["rule"], f["line"]) for f in doc["findings"]), doc["skipped"], p.stderr


def test_a_kernel_behind_a_symlink_the_pull_request_adds_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    _commit(repo, {"src/k.cu": "../docs/kernel.txt"}, {"docs/kernel.txt": KERNEL})
    rc, found, skipped, err = _gate(repo)
    assert rc == 1, err
    assert found == [("src/k.cu", "DEV002", 3), ("src/k.cu", "DEV011", 3), ("src/k.cu", "KRN001", 1)]
    assert skipped == []


def test_a_pull_request_changing_only_the_links_target_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    _commit(repo, {"src/k.cu": "../docs/kernel.txt"}, {"docs/kernel.txt": "// nothing yet\n"})
    _commit(repo, {}, {"docs/kernel.txt": KERNEL})
    rc, found, _, err = _gate(repo)
    assert rc == 1, err
    assert [r for _, r, _ in found] == ["DEV002", "DEV011", "KRN001"]


def test_links_out_of_the_tree_to_nothing_or_round_a_loop_stay_skipped(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    _commit(repo, {"out.cu": "../../etc/passwd", "abs.cu": "/etc/passwd", "gone.cu": "missing.txt",
                   "a.cu": "b.cu", "b.cu": "a.cu"}, {})
    rc, found, skipped, err = _gate(repo)
    assert (rc, found) == (0, []), err
    assert sorted(s["path"] for s in skipped) == ["a.cu", "abs.cu", "b.cu", "gone.cu", "out.cu"]
    assert {s["reason"] for s in skipped} == {"symlink in the git tree: not followed"}


def test_a_submodule_the_pull_request_adds_is_listed_as_not_scanned(tmp_path):
    # A checkout with submodules builds what it holds; porter scans a submodule separately, and says so: the git
    # tree's listing skipped it silently unless its name had a language (a work tree's listing always said it). One
    # the pull request adds is code the gate never read, so the gate fails (session 26; tests/test_gate_s26.py).
    lib = make_repo(tmp_path / "lib", {"k.cu": KERNEL})
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "third_party/lib")
    git(repo, "commit", "-q", "-m", "pr")
    rc, found, skipped, err = _gate(repo)
    assert (rc, found) == (1, []), err
    assert skipped == [{"path": "third_party/lib", "reason": "git submodule this change adds: its code is unseen here "
                                                             "(scan it separately)"}]
