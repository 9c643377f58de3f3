"""Red team, session 12: a source file committed as a Git LFS pointer.

With `k.cu filter=lfs` in .gitattributes, git holds a three-line pointer for k.cu and a checkout with Git LFS (CI's
usual `lfs: true`) writes the real file, the kernel the build compiles. porter reads git objects for
`scan --new-since` and saw only the pointer: no finding, exit 0. porter does not fetch LFS objects (no network for a
scanned repository), so a C/C++/CUDA or Python file whose content is an LFS pointer is now skipped with that reason and
counted as unseen: the gate fails closed, naming the file.
"""
from __future__ import annotations

from helpers import git, make_repo, porter_here, write_files

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


def test_a_source_file_stored_as_an_lfs_pointer_fails_the_gate_as_unseen(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"k.cu": POINTER, ".gitattributes": "k.cu filter=lfs diff=lfs merge=lfs -text\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert ("warning: 1 changed file(s) could not be scanned (k.cu: a Git LFS pointer: the file's content is not in "
            "the repository, and porter does not fetch it); --fail-on fails rather than pass code it did not see"
            ) in p.stderr


def test_a_text_file_that_only_mentions_lfs_is_scanned(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": "// see version https://git-lfs.github.com/spec/v1\nint x;\n"})
    p = porter_here("scan", str(repo), "--no-cache", "--fail-on", "low", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert "could not be scanned" not in p.stderr
