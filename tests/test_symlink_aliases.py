"""Issue 27 class 5: kernels of a source shared by the CPU and GPU builds, compiled as CUDA through an in-root `.cu`
symlink (`gpu/k.cu -> ../cpu/k.cpp`: nvcc compiles the `.cpp` as CUDA under the link's name). The link is an alias
scanned as a file of its own, in a work tree and in a commit's tree (`--rev`) alike, with containment and limits
unchanged: a link out of the root or round a loop is skipped, and however many links lead to one file, one of them
is scanned (porter.source.discover.another_alias)."""
from __future__ import annotations

import json
import os

from helpers import git, make_repo, porter_here

from porter.source.discover import discover
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
MANY = 40


def _repo(tmp_path):
    """A real git repository: the shared source, its `.cu` alias, a link out of the tree, a loop, MANY more links to
    the shared source, committed."""
    outside = tmp_path / "outside.cpp"
    outside.write_text(SHARED)
    repo = make_repo(tmp_path / "r", {"cpu/k.cpp": SHARED, "cpu/defs.h": "#pragma once\n"}, commit=False)
    links = {"gpu/k.cu": "../cpu/k.cpp", "gpu/escape.cu": "../../outside.cpp", "gpu/loop_a.cu": "loop_b.cu",
             "gpu/loop_b.cu": "loop_a.cu"}
    links |= {f"gpu/many/m{i:02d}.cu": "../../cpu/k.cpp" for i in range(MANY)}
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


def _expected_skips(outside_reason: str, loop_reason: str) -> list[tuple[str, str]]:
    return sorted([("gpu/escape.cu", outside_reason), ("gpu/loop_a.cu", loop_reason), ("gpu/loop_b.cu", loop_reason)]
                  + [(f"gpu/many/m{i:02d}.cu", "another symlink to the same file is scanned: gpu/k.cu")
                     for i in range(MANY)])


def test_a_cu_alias_of_a_shared_cpp_is_scanned_as_cuda_with_its_kernel(tmp_path):
    repo = _repo(tmp_path)
    for doc in (_scan(repo), _scan(repo, "--rev", "HEAD")):
        assert [(k["name"], k["path"], k["line"], k["end_line"]) for k in doc["kernels"]] == [
            ("scale_gpu", "cpu/k.cpp", 4, 18), ("scale_gpu", "gpu/k.cu", 4, 18)]
        assert doc["files"]["scanned"] == 3  # cpu/defs.h, cpu/k.cpp and one alias


def test_links_out_of_the_root_loops_and_further_aliases_are_skipped_with_their_reasons(tmp_path):
    repo = _repo(tmp_path)
    work = _scan(repo)
    assert sorted((s["path"], s["reason"]) for s in work["skipped"]) == _expected_skips(
        "symlink points outside the scanned root", "symlink loop")
    rev = _scan(repo, "--rev", "HEAD")
    assert sorted((s["path"], s["reason"]) for s in rev["skipped"]) == _expected_skips(
        "symlink in the git tree: not followed", "symlink in the git tree: not followed")


def test_many_links_to_one_file_list_one_read_of_it(tmp_path):
    # The bound sits in discovery, the one place a file becomes something to read: 40 links to one file add one
    # candidate (the first alias in path order), in a work tree and in a commit's tree.
    repo = _repo(tmp_path)
    work = discover(repo)
    assert [(c.path, c.language) for c in work.files] == [("cpu/defs.h", "cuda"), ("cpu/k.cpp", "cuda"),
                                                         ("gpu/k.cu", "cuda")]
    assert os.path.realpath(work.files[2].abspath) == os.path.realpath(repo / "cpu/k.cpp")
    with GitTree(repo, git(repo, "rev-parse", "HEAD").strip()) as tree:
        found = tree.discover()
    assert [(c.path, c.target) for c in found.files] == [("cpu/defs.h", None), ("cpu/k.cpp", None),
                                                         ("gpu/k.cu", "cpu/k.cpp")]


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

    repo = _repo(tmp_path)
    h = history(walk(repo), Settings(jobs=1, cache_dir=None))
    rev = _scan(repo, "--rev", "HEAD")
    assert [p.files for p in h.points] == [rev["files"]["scanned"]] == [3]  # was 43: every link read
    last = h.points[-1]
    assert last.open_findings + last.handled_findings + last.cuda_only_findings == len(rev["findings"])
