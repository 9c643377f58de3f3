"""Red team (session 21): a git tree entry git itself would never check out (`..`, `.`, `.git`, an empty name) is not
a file of the scan.

Such a tree is written with `git hash-object -t tree --literally` and accepted by a server without
receive.fsckObjects (git's default). `git ls-tree -r` lists its blob at `../../../../attacker/repo/blob/main/x.cu`,
and porter scanned it under that name: the pull-request comment's line link, which `porter comment` keeps as the
pull request's own (its prefix is the repository's blob URL), was
`https://github.com/o/r/blob/<head>/../../../../attacker/repo/blob/main/x.cu#L1`, which a browser resolves to
https://github.com/attacker/repo/blob/main/x.cu (percent-encoding cannot help: the WHATWG URL standard reads `%2e%2e`
as `..` too); SARIF's artifactLocation pointed outside %SRCROOT%. Git refuses these names in verify_path
(read-cache.c) and fsck (hasDotdot, hasDotgit, hasDot, emptyName): porter.source.read lists them as skipped."""
from __future__ import annotations

import binascii
import json
import subprocess

from porter.comment import inert_body
from tests.helpers import git, make_repo, porter_here

KERNEL = b"__global__ void k() { __shfl_down_sync(0xffffffff, 1, 1); }\n"


def _run(repo, *args, inp=None) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, input=inp, capture_output=True, check=True).stdout.strip()


def _tree(repo, entries) -> bytes:
    data = b"".join(mode + b" " + name + b"\0" + binascii.unhexlify(sha)
                    for mode, name, sha in sorted(entries, key=lambda e: e[1]))
    return _run(repo, "hash-object", "-w", "-t", "tree", "--literally", "--stdin", inp=data)


def _hostile_head(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cpp": "int x;\n"})
    blob = _run(repo, "hash-object", "-w", "--stdin", inp=KERNEL)
    inner = _tree(repo, [(b"100644", b"x.cu", blob)])
    for name in (b"main", b"blob", b"repo", b"attacker", b"..", b"..", b".."):  # and the top one
        inner = _tree(repo, [(b"40000", name, inner)])
    dotgit = _tree(repo, [(b"100644", b"k.cu", blob)])
    top = _tree(repo, [*[(b"40000", n, inner if n == b".." else dotgit) for n in (b"..", b".GIT", b".")],
                       (b"100644", b"ok.cu", blob), (b"100644", b"a.cpp", _run(repo, "rev-parse", "HEAD:a.cpp"))])
    head = _run(repo, "commit-tree", top.decode(), "-p", "HEAD", "-m", "x").decode()
    git(repo, "update-ref", "refs/heads/evil", head)
    return repo, head


def test_dot_and_dotgit_entries_of_a_tree_are_skipped_not_scanned(tmp_path):
    repo, _ = _hostile_head(tmp_path)
    p = porter_here("scan", str(repo), "--rev", "evil", "-f", "json", "--no-cache", "-j", "1")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert sorted({f["path"] for f in out["findings"]}) == ["ok.cu"]
    reason = "a path git refuses to check out (a '.', '..' or '.git' part, or an empty one): not read"
    assert out["skipped"] == [{"path": path, "reason": reason} for path in (
        "../../../../attacker/repo/blob/main/x.cu", "./k.cu", ".GIT/k.cu")]


def test_no_line_link_of_a_pull_request_comment_leads_to_another_repository(tmp_path):
    repo, head = _hostile_head(tmp_path)
    p = porter_here("scan", str(repo), "--rev", "evil", "--new-since", "main", "-f", "pr-comment", "--no-cache",
                    "-j", "1", env={"GITHUB_REPOSITORY": "o/r", "GITHUB_SERVER_URL": "https://github.com"})
    assert p.returncode == 0, p.stderr
    own = f"https://github.com/o/r/blob/{head}/"
    links = [line.split("(", 1)[1].split(")", 1)[0] for line in p.stdout.splitlines() if line.startswith("- [L")]
    assert links == [own + "ok.cu#L1"] * 2
    assert "attacker" not in inert_body(p.stdout, own)


def test_history_counts_only_the_files_a_checkout_has(tmp_path):
    repo, _ = _hostile_head(tmp_path)
    git(repo, "symbolic-ref", "HEAD", "refs/heads/evil")
    p = porter_here("history", str(repo), "-f", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    last = json.loads(p.stdout)["points"][-1]
    assert (last["open_findings"], last["open_kernels"]) == (2, {"mi355x": 1})  # ok.cu's DEV002 and KRN001 alone


def test_porter_comment_keeps_no_own_line_link_with_a_dot_segment():
    own = "https://github.com/o/r/blob/" + "a" * 40 + "/"
    kept = [f"[L1]({own}ok.cu#L1)", f"[L2]({own}a/..b.cu#L2)", f"[L3]({own}.github/x.cu#L3)"]
    assert inert_body("\n".join(kept), own) == "\n".join(kept)
    # `.` and `..` segments, and their percent-encoded forms (browsers read `%2e%2e` as `..`), leave the repository
    for path in ("../../../../x/y/blob/main/k.cu", "a/./b.cu", "%2e%2E/k.cu", "a/.%2e/b.cu"):
        assert inert_body(f"[L1]({own}{path}#L1)", own) == f"[L1]\\(`{own}{path}#L1)`"
