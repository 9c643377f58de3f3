"""Discovery: what a scan reads, in git work trees and plain directories, and what it refuses to follow."""
from __future__ import annotations

import os

import pytest

from porter.source.discover import DiscoveryError, discover, language_of
from tests.helpers import git, make_repo, write_files

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"


def paths(d):
    return [c.path for c in d.files]


def test_git_tree_lists_tracked_and_untracked_but_not_ignored(tmp_path):
    repo = make_repo(tmp_path / "r", {".gitignore": "gen/\n*.log.cu\n", "a.cu": KERNEL, "src/b.cuh": KERNEL,
                                      "gen/c.cu": KERNEL, "x.log.cu": KERNEL})
    write_files(repo, {"new.cu": KERNEL, "gen/d.cu": KERNEL})
    d = discover(repo)
    assert d.is_git
    assert paths(d) == ["a.cu", "new.cu", "src/b.cuh"]


def test_git_subdirectory_paths_are_relative_to_the_scanned_directory(tmp_path):
    repo = make_repo(tmp_path / "r", {"sub/a.cu": KERNEL, "other/b.cu": KERNEL})
    assert paths(discover(repo / "sub")) == ["a.cu"]


def test_deleted_tracked_file_is_not_listed(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL, "b.cu": KERNEL})
    (repo / "b.cu").unlink()
    assert paths(discover(repo)) == ["a.cu"]


def test_plain_walk_honours_nested_gitignore_and_skips_build_dirs(tmp_path):
    write_files(tmp_path, {".gitignore": "*.tmp.cu\n", "a.cu": KERNEL, "x.tmp.cu": KERNEL,
                           "lib/.gitignore": "private/\n", "lib/private/p.cu": KERNEL, "lib/ok.cu": KERNEL,
                           "build/gen.cu": KERNEL, "node_modules/m.cu": KERNEL, "README.md": "cuda"})
    d = discover(tmp_path)
    assert not d.is_git
    assert paths(d) == ["a.cu", "lib/ok.cu"]


def test_include_and_exclude_globs(tmp_path):
    write_files(tmp_path, {"src/a.cu": KERNEL, "src/b.py": "import torch\n", "third_party/c.cu": KERNEL})
    assert paths(discover(tmp_path, include=["*.cu"])) == ["src/a.cu", "third_party/c.cu"]
    assert paths(discover(tmp_path, exclude=["third_party/"])) == ["src/a.cu", "src/b.py"]


def test_symlinks_never_leave_the_root_and_loops_are_reported(tmp_path):
    outside = tmp_path / "outside.cu"
    outside.write_text(KERNEL)
    root = tmp_path / "root"
    write_files(root, {"real.cu": KERNEL})
    os.symlink(outside, root / "escape.cu")
    os.symlink(root / "real.cu", root / "inside.cu")
    os.symlink(root / "loop_a.cu", root / "loop_b.cu")
    os.symlink(root / "loop_b.cu", root / "loop_a.cu")
    os.symlink(root / "missing.cu", root / "dangling.cu")
    os.symlink(tmp_path, root / "dirlink")
    d = discover(root)
    assert paths(d) == ["inside.cu", "real.cu"]
    assert [(s.path, s.reason) for s in d.skipped] == [
        ("dangling.cu", "dangling symlink"),
        ("dirlink", "directory symlink not followed"),
        ("escape.cu", "symlink points outside the scanned root"),
        ("loop_a.cu", "symlink loop"),
        ("loop_b.cu", "symlink loop"),
    ]


def test_missing_root_is_an_error(tmp_path):
    with pytest.raises(DiscoveryError, match="no such file or directory"):
        discover(tmp_path / "nope")


def test_single_file_root(tmp_path):
    f = tmp_path / "kernel.cu"
    f.write_text(KERNEL)
    d = discover(f)
    assert paths(d) == ["kernel.cu"] and d.files[0].language == "cuda"


@pytest.mark.parametrize("name,lang", [
    ("a.cu", "cuda"), ("a.cuh", "cuda"), ("x.hpp", "cuda"), ("setup.py", "python"), ("CMakeLists.txt", "cmake"),
    ("Makefile", "make"), ("Dockerfile", "dockerfile"), ("Dockerfile.rocm", "dockerfile"), ("requirements-dev.txt", "requirements"),
    ("config.pbtxt", "text"), ("libx.so.12", "binary"), ("k.cubin", "binary"), ("notes.md", None), ("BUILD", "bazel"),
])
def test_language_of(name, lang):
    assert language_of(name) == lang


def test_git_decides_what_is_source_even_under_build_dirs(tmp_path):
    repo = make_repo(tmp_path / "r", {"build/gpu.cu": KERNEL, "src/a.cu": KERNEL})
    assert paths(discover(repo)) == ["build/gpu.cu", "src/a.cu"]


def test_non_utf8_file_name_is_scanned_and_shown_escaped(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    os.makedirs(repo, exist_ok=True)
    with open(os.path.join(os.fsencode(repo), b"bad\xff.cu"), "wb") as fh:
        fh.write(KERNEL.encode())
    make_repo(repo, {"ok.cu": KERNEL})
    d = discover(repo)
    assert paths(d) == ["bad\\xff.cu", "ok.cu"]
    assert d.files[0].abspath.read_bytes() == KERNEL.encode()


def test_a_directory_git_ignores_is_scanned_as_a_plain_tree(tmp_path):
    outer = make_repo(tmp_path / "outer", {".gitignore": "vendor/\n", "top.cu": KERNEL})
    write_files(outer, {"vendor/proj/a.cu": KERNEL})
    d = discover(outer / "vendor" / "proj")
    assert not d.is_git and paths(d) == ["a.cu"]


def test_submodules_are_reported_not_silently_dropped(tmp_path):
    sub = make_repo(tmp_path / "sub", {"k.cu": KERNEL})
    main = make_repo(tmp_path / "main", {"a.cu": KERNEL})
    git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "third/sub")
    git(main, "commit", "-qm", "sub")
    d = discover(main)
    assert paths(d) == ["a.cu"]
    assert [(s.path, s.reason) for s in d.skipped] == [("third/sub", "git submodule or nested repository: scan it separately")]
