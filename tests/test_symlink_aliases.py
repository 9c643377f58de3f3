"""Issue 27 class 5: kernels of a source shared by the CPU and GPU builds, compiled as CUDA through an in-root `.cu`
symlink (`gpu/k.cu -> ../cpu/k.cpp`: nvcc compiles the `.cpp` as CUDA under the link's name). The link is an alias
scanned as a file of its own, in a work tree and in a commit's tree (`--rev`) alike, with containment and limits
unchanged: a link out of the root or round a loop is skipped, and however many links lead to one file, at most
MAX_ALIASES of them are scanned (porter.source.discover.another_alias)."""
from __future__ import annotations

import json
import os

from helpers import git, make_repo, porter_here

from porter.source.discover import MAX_ALIASES, discover
from porter.source.read import GitTree

SHARED = """#include "defs.h"

#ifdef __CUDACC__
__global__
void scale_gpu( float *x, const int n )
#else
void scale_cpu( float *x, const int n, const int npatch )
#endif
{
#  ifdef __CUDACC__
   const int p = blockIdx.x;
#  else
   for (int p=0; p<npatch; p++)
#  endif
   {
      x[p*n] *= 2.0f;
   }
}
"""


def _repo(tmp_path, many: int = 0):
    """A real git repository: the shared source, its `.cu` alias, a link out of the tree, a loop, and `many` more
    links to the shared source, committed."""
    outside = tmp_path / "outside.cpp"
    outside.write_text(SHARED)
    repo = make_repo(tmp_path / "r", {"cpu/k.cpp": SHARED, "cpu/defs.h": "#pragma once\n"}, commit=False)
    links = {"gpu/k.cu": "../cpu/k.cpp", "gpu/escape.cu": "../../outside.cpp", "gpu/loop_a.cu": "loop_b.cu",
             "gpu/loop_b.cu": "loop_a.cu"}
    links |= {f"gpu/many/m{i:02d}.cu": "../../cpu/k.cpp" for i in range(many)}
    for rel, target in links.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo / rel)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fixture")
    return repo


def _scan(repo, *extra):
    p = porter_here("scan", str(repo), "--no-cache", "--isolated", "-j", "1", "--format", "json", *extra)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_a_cu_alias_of_a_shared_cpp_is_scanned_as_cuda_with_its_kernel(tmp_path):
    repo = _repo(tmp_path)
    for doc in (_scan(repo), _scan(repo, "--rev", "HEAD")):
        assert [(k["name"], k["path"], k["line"], k["end_line"]) for k in doc["kernels"]] == [
            ("scale_gpu", "cpu/k.cpp", 4, 18), ("scale_gpu", "gpu/k.cu", 4, 18)]
        assert doc["files"]["scanned"] == 3  # cpu/defs.h, cpu/k.cpp and its alias


def test_links_out_of_the_root_and_loops_are_skipped_with_their_reasons(tmp_path):
    repo = _repo(tmp_path)
    assert sorted((s["path"], s["reason"]) for s in _scan(repo)["skipped"]) == [
        ("gpu/escape.cu", "symlink points outside the scanned root"), ("gpu/loop_a.cu", "symlink loop"),
        ("gpu/loop_b.cu", "symlink loop")]
    assert sorted((s["path"], s["reason"]) for s in _scan(repo, "--rev", "HEAD")["skipped"]) == [
        (p, "symlink in the git tree: not followed") for p in ("gpu/escape.cu", "gpu/loop_a.cu", "gpu/loop_b.cu")]


def test_many_links_to_one_file_are_read_at_most_max_aliases_times(tmp_path):
    # The bound sits where a listed path becomes a file to read (discovery): 40 more links to one file add
    # MAX_ALIASES - 1 candidates to gpu/k.cu (the first in path order), in a work tree and in a commit's tree.
    assert MAX_ALIASES == 8
    repo = _repo(tmp_path, many=40)
    scanned = ["cpu/defs.h", "cpu/k.cpp", "gpu/k.cu"] + [f"gpu/many/m{i:02d}.cu" for i in range(7)]
    reason = "more than 8 symlinks lead to the same file; the first 8 are scanned (gpu/k.cu ...)"
    work = discover(repo)
    assert [c.path for c in work.files] == scanned
    assert {os.path.realpath(c.abspath) for c in work.files[2:]} == {os.path.realpath(repo / "cpu/k.cpp")}
    assert [(s.path, s.reason) for s in work.skipped if s.path.startswith("gpu/many/")] == [
        (f"gpu/many/m{i:02d}.cu", reason) for i in range(7, 40)]
    with GitTree(repo, git(repo, "rev-parse", "HEAD").strip()) as tree:
        found = tree.discover()
    assert [(c.path, c.target) for c in found.files] == [("cpu/defs.h", None), ("cpu/k.cpp", None)] + [
        (p, "cpu/k.cpp") for p in scanned[2:]]
    assert [(s.path, s.reason) for s in found.skipped if s.path.startswith("gpu/many/")] == [
        (f"gpu/many/m{i:02d}.cu", reason) for i in range(7, 40)]
    assert _scan(repo)["files"]["scanned"] == _scan(repo, "--rev", "HEAD")["files"]["scanned"] == 10


def test_an_alias_is_held_to_the_size_limit_of_the_file_it_leads_to(tmp_path):
    repo = make_repo(tmp_path / "r", {"cpu/big.cpp": "// " + "x" * (2 * 1024 * 1024) + "\n"}, commit=False)
    (repo / "gpu").mkdir()
    os.symlink("../cpu/big.cpp", repo / "gpu/big.cu")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fixture")
    for doc in (_scan(repo, "--max-file-size-mb", "1"), _scan(repo, "--max-file-size-mb", "1", "--rev", "HEAD")):
        assert [(s["path"], s["reason"][:22]) for s in doc["skipped"]] == [
            ("cpu/big.cpp", "file is 2.0 MiB, over "), ("gpu/big.cu", "file is 2.0 MiB, over ")]


def test_history_reads_one_alias_per_file_as_scan_rev_does(tmp_path):
    from porter.history.points import history
    from porter.history.walk import walk
    from porter.settings import Settings

    repo = _repo(tmp_path, many=40)
    h = history(walk(repo), Settings(jobs=1, cache_dir=None))
    rev = _scan(repo, "--rev", "HEAD")
    assert [p.files for p in h.points] == [rev["files"]["scanned"]] == [10]  # was 43: every link read
    last = h.points[-1]
    assert last.open_findings + last.handled_findings + last.cuda_only_findings == len(rev["findings"])
