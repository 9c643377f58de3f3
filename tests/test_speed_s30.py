"""Issue 26, session 30: a warm re-scan's fixed costs. A file whose result the cache holds is not given its scanning
readings (what nvcc compiles, other files' spelling macros) only to be looked up; a read inside the scanned root
asks where `.git` files point once, and takes the kernel's name for the opened file as it is. Every answer is the one
the old code gave; the re-scans are compared byte for byte with a scan without the cache."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from porter import contain
from tests.helpers import porter_here

APP = Path(__file__).resolve().parent.parent / "fixtures/repos/cuda-app"


def _scan_text(root: Path, *args: str) -> str:
    p = porter_here("scan", str(root), "--format", "json", "--jobs", "1", *args)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """cuda-app as a plain folder (no git: every file's cache key is named by a hash of its bytes, as read)."""
    root = tmp_path / "app"
    shutil.copytree(APP, root)
    return root


@pytest.fixture
def readings(monkeypatch) -> list[str]:
    """The files porter.pipeline read as compiled in this process (a hit is looked up in the scan's process; a miss
    is scanned in a forked worker, whose calls are not seen here)."""
    import porter.source.preprocessor as preprocessor

    seen: list[str] = []
    real = preprocessor.as_compiled

    def as_compiled(data: bytes) -> bytes:
        caller = sys._getframe(1)
        if caller.f_globals.get("__name__") == "porter.pipeline":
            seen.append(caller.f_code.co_name)
        return real(data)

    monkeypatch.setattr(preprocessor, "as_compiled", as_compiled)
    return seen


def test_a_warm_rescan_makes_no_reading_of_a_cached_file(tree: Path, tmp_path: Path, readings: list[str]):
    cache = tmp_path / "cache"
    cold = _scan_text(tree, "--no-cache")
    assert json.loads(cold)["summary"]["findings"] == 153
    assert _scan_text(tree, "--cache-dir", str(cache)) == cold
    filled = len(readings)
    # the run cache would answer an unchanged tree before any file is looked at: a flag it does not keep runs
    # (--select is part of its key) makes it miss while every file's entry stays the same
    assert _scan_text(tree, "--cache-dir", str(cache), "--select", "") == cold
    assert readings[filled:] == []
    # one file edited: only that one is scanned again (in a worker), the other files' results come back unread
    with open(tree / "src/kernels/reduce.cu", "a") as fh:
        fh.write("// one more line\n")
    edited = _scan_text(tree, "--cache-dir", str(cache))
    assert readings[filled:] == []
    assert edited == _scan_text(tree, "--no-cache")
    assert json.loads(edited)["files"]["lines"] == json.loads(cold)["files"]["lines"] + 1


def test_a_read_inside_the_root_walks_for_git_files_once_and_resolves_two_paths(tmp_path: Path, monkeypatch):
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src/k.cu").write_bytes(b"__global__ void k() {}\n")
    os.symlink("k.cu", root / "src/link.cu")
    (tmp_path / "outside.cu").write_bytes(b"int secret;\n")
    os.symlink("../../outside.cu", root / "src/out.cu")
    walks: list[str] = []
    resolved: list[str] = []
    real_walk, real_resolve = contain._named_git_dirs, os.path.realpath

    def walk(top: str) -> tuple[str, ...]:
        walks.append(top)
        return real_walk(top)

    def resolve(path, *args, **kwargs):
        resolved.append(os.fspath(path))
        return real_resolve(path, *args, **kwargs)

    monkeypatch.setattr(contain, "_named_git_dirs", walk)
    monkeypatch.setattr(contain.os.path, "realpath", resolve)
    top = real_resolve(root)
    assert contain.read_bytes(root / "src/k.cu", 1 << 20, root=root) == b"__global__ void k() {}\n"
    # the root and the path, once each; the opened descriptor's name is the kernel's, already resolved
    assert (walks, resolved) == ([top], [str(root), str(root / "src/k.cu")])
    assert contain.read_bytes(root / "src/link.cu", 1 << 20, root=root) == b"__global__ void k() {}\n"
    with pytest.raises(contain.Unreadable, match="leads outside the scanned root"):
        contain.read_bytes(root / "src/out.cu", 1 << 20, root=root)
    assert walks == [top, top]  # the refused read stopped before the walk
    # a `.git` file naming a git directory inside the root: a file there is refused, whichever path leads to it
    (root / "gd").mkdir()
    (root / "gd/config").write_bytes(b"[core]\n")
    (root / ".git").write_text("gitdir: gd\n")
    os.symlink("../gd/config", root / "src/cfg.cu")
    for path in (root / "gd/config", root / "src/cfg.cu"):
        with pytest.raises(contain.Unreadable, match="git"):
            contain.read_bytes(path, 1 << 20, root=root)
    assert walks == [top, top, top, top]


def test_an_include_is_resolved_once_per_folder_and_answers_as_for_each_file(monkeypatch):
    from porter.source import includes

    files = frozenset({"a/x/k1.cu", "a/x/k2.cu", "a/x/util.h", "a/y/util.h", "b/k3.cu", "b/sub/util.h", "util.h"})
    resolved: list[tuple[str, str, bool]] = []
    real = includes._resolve

    def counted(base, header, quoted, files):
        resolved.append((base, header, quoted))
        return real(base, header, quoted, files)

    monkeypatch.setattr(includes, "_resolve", counted)
    asked = [("a/x/k1.cu", "util.h", True), ("a/x/k2.cu", "util.h", True), ("a/x/k1.cu", "util.h", False),
             ("b/k3.cu", "util.h", False), ("b/k3.cu", "sub/util.h", True), ("b/k3.cu", "util.h", True),
             ("k0.cu", "util.h", False), ("b/k3.cu", "x/util.h", False), ("b/k3.cu", "none.h", True)]
    assert [includes.resolve_include(i, h, q, files) for i, h, q in asked] == [
        "a/x/util.h", "a/x/util.h",  # the includer's own folder first
        "a/x/util.h",  # <util.h>: the candidate sharing the longest leading folders with the includer
        "b/sub/util.h", "b/sub/util.h",  # b/ shares one folder with b/sub/util.h, none with the others
        "b/sub/util.h",  # "util.h" is not b/util.h: the same search
        "util.h",  # nothing shared: the shortest path
        "a/x/util.h", None]
    # k2.cu's quoted util.h was k1.cu's answer (the same folder): one resolution fewer
    assert resolved == [("a/x/", "util.h", True), ("a/x/", "util.h", False), ("b/", "util.h", False),
                        ("b/", "sub/util.h", True), ("b/", "util.h", True), ("", "util.h", False),
                        ("b/", "x/util.h", False), ("b/", "none.h", True)]
    # another set of files is another question
    assert includes.resolve_include("a/x/k1.cu", "util.h", True, files - {"a/x/util.h"}) == "a/y/util.h"


def test_a_scan_that_ends_its_process_exempts_its_decoded_results_from_the_collector(tree: Path, tmp_path: Path,
                                                                                       monkeypatch):
    import gc

    import porter.pipeline as pipeline
    from porter import cache
    from porter.cli import base
    from porter.settings import Settings

    kept: list = []
    real = pipeline.assemble

    def assemble(source, found, pairs, *args, **kwargs):
        kept.append([r for r, hit in pairs if hit])
        return real(source, found, pairs, *args, **kwargs)

    monkeypatch.setattr(pipeline, "assemble", assemble)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    pipeline.run(tree, settings)
    assert kept == [[]]  # the first scan decoded nothing

    def collected(results: list) -> list[bool]:
        """Whether the collector's generations hold each result (gc.get_objects leaves out the frozen ones)."""
        ids = {id(o) for o in gc.get_objects()}
        return [id(r) in ids for r in results]

    pipeline.run(tree, settings)  # a library call, or a test: the process goes on after it, nothing is frozen
    assert len(kept[1]) == 11 and collected(kept[1]) == [True] * 11  # every file of the tree
    assert base.ends_with_command() is False
    try:
        cache.keep_decoded_to_exit()  # what porter.cli.scan says in the `porter` program (porter.cli.entry)
        pipeline.run(tree, settings)
        assert len(kept[2]) == 11 and collected(kept[2]) == [False] * 11
    finally:
        cache.keep_decoded_to_exit(False)
        gc.unfreeze()
    assert collected(kept[2]) == [True] * 11


def test_the_scan_command_keeps_its_decoded_results_only_in_a_process_that_ends_with_it(tree: Path, tmp_path: Path,
                                                                                       monkeypatch):
    from porter import cache
    from porter.cli import base

    said: list[bool] = []
    monkeypatch.setattr(cache, "keep_decoded_to_exit", lambda on=True: said.append(on))
    cold = _scan_text(tree, "--cache-dir", str(tmp_path / "cache"))
    assert said == []
    monkeypatch.setitem(base._ENDING, "without_freeing", True)
    monkeypatch.setattr(base, "LEFT_TO_EXIT", [])  # what the command leaves to the end of the process: dropped after
    with open(tree / "src/kernels/reduce.cu", "a") as fh:
        fh.write("// one more line\n")
    assert json.loads(_scan_text(tree, "--cache-dir", str(tmp_path / "cache")))["files"]["lines"] == \
        json.loads(cold)["files"]["lines"] + 1
    assert said == [True]
