"""Each file is read from its source once per scan: the repository facts, the scan, port status (compat-layer lines
included) take what the first read got (porter.pipeline.Held). Reads are counted through the sources' `read`, in
this process and in every forked worker (each appends to a log file)."""
from __future__ import annotations

import collections
import os

import pytest

from porter.pipeline import run
from porter.settings import Settings
from porter.source.read import GitTree, WorkTree

from helpers import make_repo

FILES = {
    # A compat layer (a ROCm-side #define of a CUDA name) makes port status look at the lines findings are on.
    "include/compat.h": "#pragma once\n#ifdef USE_ROCM\n#define cudaMalloc hipMalloc\n#endif\n",
    "include/qual.cuh": "#pragma once\n#define KERNEL __global__\n#define TILE 128\n",
    "src/k.cu": ('#include "../include/compat.h"\n#include "../include/qual.cuh"\n'
                 "KERNEL void k(float* x) { __shared__ float s[TILE]; s[threadIdx.x] = x[0];\n"
                 "  x[0] = __shfl_xor_sync(0xffffffff, s[0], 1); }\n"
                 "void host() { float* p; cudaMalloc(&p, 4); k<<<1, 32>>>(p); }\n"),
    "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nadd_library(k src/k.cu)\n",
    "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('k', ['src/k.cu'])\n",
}


@pytest.fixture
def reads(tmp_path, monkeypatch):
    """path -> times read, over every process of the scan."""
    log = tmp_path / "reads.log"
    for cls in (WorkTree, GitTree):
        real = cls.read

        def counted(self, c, limit, _real=real):
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, c.path.encode() + b"\n")
            finally:
                os.close(fd)
            return _real(self, c, limit)
        monkeypatch.setattr(cls, "read", counted)

    def counts() -> dict[str, int]:
        found = collections.Counter(log.read_text().splitlines()) if log.exists() else collections.Counter()
        log.unlink(missing_ok=True)
        return dict(sorted(found.items()))
    return counts


def _run(source, **how):
    result = run(source, Settings(jobs=1, targets=("mi300x",), **how)).result
    # The scan saw what this test needs it to: a finding the compat layer handles, a kernel, port facts.
    assert any(f.handled_by == "include/compat.h:3" for f in result.findings)
    assert [k.name for k in result.kernels] == ["k"]
    return result


EVERY_FILE_ONCE = {p: 1 for p in sorted(FILES)}


def test_a_work_tree_scan_reads_each_file_once(tmp_path, reads):
    repo = make_repo(tmp_path / "r", FILES)
    _run(repo, cache_dir=None)
    assert reads() == EVERY_FILE_ONCE
    _run(repo, cache_dir=tmp_path / "cache")  # cold: the facts' entry is named by the bytes the scan then uses
    assert reads() == EVERY_FILE_ONCE
    _run(repo, cache_dir=tmp_path / "cache")  # warm: each file read to know it is unchanged, once
    assert reads() == EVERY_FILE_ONCE


def test_a_git_tree_scan_reads_each_blob_once_and_a_warm_one_none(tmp_path, reads):
    repo = make_repo(tmp_path / "r", FILES)
    head = GitTree(repo, "HEAD")
    _run(head, cache_dir=None)
    assert reads() == EVERY_FILE_ONCE
    _run(GitTree(repo, "HEAD"), cache_dir=tmp_path / "cache")
    assert reads() == EVERY_FILE_ONCE
    _run(GitTree(repo, "HEAD"), cache_dir=tmp_path / "cache")  # blob ids name every entry: nothing is read
    assert reads() == {}


def test_a_new_header_keeps_every_entry_that_does_not_read_it(tmp_path):
    # A file's cache key names only the repository facts it reads (porter.filekey for C/C++ files, porter.pipeline.
    # _Worker.repository_digest for the others): a new header that no file includes and whose names no file uses
    # is the only file scanned. A new Python package keeps C/C++ entries and re-scans the Python ones.
    repo = make_repo(tmp_path / "r", FILES)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", targets=("mi300x",))
    run(repo, settings)
    (repo / "include" / "extra.h").write_text("#pragma once\n#define EXTRA 1\n")
    again = {r.path for r in run(repo, settings).result.files}
    result = run(repo, settings).result  # warm: all hits
    assert (result.stats.cache_hits, result.stats.cache_misses) == (len(again), 0)
    (repo / "include" / "more.h").write_text("#pragma once\n")
    result = run(repo, settings).result
    # more.h alone scanned; the other four C/C++ files, CMakeLists.txt and setup.py served from the cache.
    assert (result.stats.cache_hits, result.stats.cache_misses) == (6, 1)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    result = run(repo, settings).result
    # pkg/__init__.py and setup.py (Python: the packages changed) scanned; the five C/C++ files and CMake kept.
    assert (result.stats.cache_hits, result.stats.cache_misses) == (6, 2)


def test_a_history_walk_rescans_only_files_that_read_the_changed_facts(tmp_path):
    from porter.history.points import history
    from porter.history.walk import walk

    from helpers import git

    repo = make_repo(tmp_path / "r", FILES)
    (repo / "include" / "extra.h").write_text("#pragma once\n#define EXTRA 1\n")  # a new header: C/C++ facts change
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a header")
    stats = history(walk(repo), Settings(jobs=1, cache_dir=None, targets=("mi300x",))).stats
    # First commit: its five files. Second: the new header alone; no other file includes it or names EXTRA, and
    # CMakeLists.txt and setup.py are the same blobs with the same facts, so none is scanned again.
    assert stats["blobs_scanned"] == 5 + 1


# A vector header reached through another (porter.match.refine_vectors follows the include chain after the scan):
# march.cu's `pos += s` is DEV053 only through volume.h -> vec.h's operator+=.
VECTORS = {
    "vec.h": "#pragma once\ninline void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }\n",
    "volume.h": '#pragma once\n#include "vec.h"\nstruct Volume { float3 o; };\n',
    "march.cu": ('#include "volume.h"\n__global__ void march(float3 *out, float3 s) {\n'
                 "  float3 pos = out[0];\n  pos += s;\n  out[0] = pos;\n}\n"),
}


@pytest.fixture
def parses(tmp_path, monkeypatch):
    """path -> times parsed as C/C++/CUDA, over every process of the scan."""
    from porter.source import parse as parse_module

    log = tmp_path / "parses.log"
    real = parse_module._parse_cuda

    def counted(path, *args, **kw):
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, path.encode() + b"\n")
        finally:
            os.close(fd)
        return real(path, *args, **kw)
    monkeypatch.setattr(parse_module, "_parse_cuda", counted)

    def counts() -> dict[str, int]:
        found = collections.Counter(log.read_text().splitlines()) if log.exists() else collections.Counter()
        log.unlink(missing_ok=True)
        return dict(sorted(found.items()))
    return counts


def test_following_vector_operators_across_includes_reads_and_parses_no_file_again(tmp_path, reads, parses):
    """The pass takes each file's includes and vector facts from its scan (FileResult.includes, .vectors): before,
    it read every C/C++/CUDA file again and parsed march.cu a second time."""
    repo = make_repo(tmp_path / "r", VECTORS)
    result = run(repo, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    assert [(f.path, f.line, f.column) for f in result.findings if f.rule == "DEV053"] == [("march.cu", 4, 7)]
    assert [(f.path, f.line) for f in result.findings if f.rule == "API009"] == [("vec.h", 2)]
    assert reads() == {p: 1 for p in sorted(VECTORS)}
    assert parses() == {p: 1 for p in sorted(VECTORS)}


def test_a_guard_another_module_establishes_is_read_from_the_scans_own_read(tmp_path, reads):
    """The cross-module Python guard reading (porter.portaware.pymodules) joins each module's facts the scan took
    (FileResult.py_module): the JIT build in mods/build.py reads handled by dispatch.py's guard on a cold scan, a
    cached one and a warm git scan that reads nothing, and no scan reads a file twice."""
    from pathlib import Path

    mods = Path(__file__).resolve().parent.parent / "fixtures" / "dualpy_s30" / "mods"
    files = {str(p.relative_to(mods.parent)): p.read_text() for p in sorted(mods.rglob("*.py"))}
    repo = make_repo(tmp_path / "r", files)

    def handled(source, **how) -> list[tuple[str, int, str | None]]:
        result = run(source, Settings(jobs=1, targets=("mi300x",), **how)).result
        return [(f.path, f.line, f.handled_by) for f in result.findings if f.path in ("mods/build.py",
                                                                                        "mods/dispatch.py")]

    expected = [("mods/build.py", 6, "mods/dispatch.py:24"), ("mods/build.py", 11, None),
                ("mods/build.py", 16, None), ("mods/dispatch.py", 19, None),
                ("mods/dispatch.py", 21, "mods/dispatch.py:18"), ("mods/dispatch.py", 23, None)]
    once = {p: 1 for p in sorted(files)}
    assert handled(repo, cache_dir=None) == expected
    assert reads() == once
    assert handled(GitTree(repo, "HEAD"), cache_dir=tmp_path / "cache") == expected
    assert reads() == once
    assert handled(GitTree(repo, "HEAD"), cache_dir=tmp_path / "cache") == expected
    assert reads() == {}


UNREF_APP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures/unref_s31/app")


def test_the_unreferenced_function_pass_reads_and_parses_no_file_again(tmp_path, reads, parses):
    """porter.match.refine_unreferenced takes each file's definitions and mentions from its scan
    (FileResult.references, cached with the file's result): on main after that pass was added it read every C/C++/CUDA
    file again and parsed those holding findings or mentions a second time. A warm git scan reads and parses nothing
    and marks the same findings unused."""
    from pathlib import Path

    files = {p.relative_to(UNREF_APP).as_posix(): p.read_bytes() for p in sorted(Path(UNREF_APP).rglob("*"))
             if p.is_file()}
    repo = make_repo(tmp_path / "app", files)
    cuda = sorted(p for p in files if p.endswith((".cu", ".cuh")))

    def scan(**how):
        result = run(GitTree(repo, "HEAD"), Settings(jobs=1, targets=("mi300x",), **how)).result
        return [(f.path, f.line, f.rule, dict(f.data).get("unused")) for f in result.findings]

    cold = scan(cache_dir=tmp_path / "cache")
    marked = [(p, line, rule) for p, line, rule, why in cold if why]
    # the pass ran: its fixture's dead templates read unused (tests/test_unref_s31.py has the exact rows)
    assert ("src/reduce.cuh", 19, "KRN001") in marked and ("src/reduce.cuh", 14, "DEV002") in marked
    # (src/loader.py, a Python file with no finding, is read a second time by a stage before this pass: not its own)
    assert {p: n for p, n in reads().items() if p in cuda} == {p: 1 for p in cuda}
    assert parses() == {p: 1 for p in cuda}
    assert scan(cache_dir=tmp_path / "cache") == cold
    # (this repository's Makefile has a warm scan read every file again, once, on main too: no pass's doing)
    assert {p: n for p, n in reads().items() if p in cuda} == {p: 1 for p in cuda}
    assert parses() == {}
    assert scan(cache_dir=None) == cold
