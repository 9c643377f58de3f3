"""Two ways repository content still reached porter without its checks.

- A hard link is the same file under a second name, and nothing at the name inside the tree says where the other
  lies: `src/a.cu` hard-linked to a file outside the checkout (an unpacked archive or a restored cache can hold one;
  git never makes one) was read and quoted like any file. porter.contain.read_bytes, given a root, now refuses a
  file with more than one name.
- `--deep` ran libclang in a budgeted worker, then applied its answer to every kernel of the file in the parent,
  with no budget: a loop whose cost was the file's kernels times the macros libclang saw. It now runs in the
  worker, under the same per-file budget.
"""
from __future__ import annotations

import os
import time

import pytest

from porter.budget import Budget
from porter.contain import Unreadable, read_bytes
from porter.kernels import deep
from porter.kernels.verdicts import analyse
from porter.pipeline import scan
from porter.settings import Settings

from conftest import FIXTURES


def test_a_hard_link_inside_the_tree_is_not_read(tmp_path):
    outside = tmp_path / "home" / "secret.cu"
    outside.parent.mkdir()
    outside.write_text("// token=hunter2\nvoid f() { cudaMalloc(0, 0); }\n")
    src = tmp_path / "src"
    src.mkdir()
    os.link(outside, src / "a.cu")
    (src / "b.cu").write_text("void g() { cudaFree(0); }\n")
    with pytest.raises(Unreadable, match=r"^a hard link \(2 names; the others may lie outside the scanned root\)"):
        read_bytes(src / "a.cu", 1 << 20, root=src)
    assert read_bytes(src / "a.cu", 1 << 20) .startswith(b"// token")  # a trusted caller's own read is not rooted
    result = scan(src, Settings(jobs=1, cache_dir=None))
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("a.cu", "a hard link (2 names; the others may lie outside the scanned root); not read")]
    assert sorted({f.path for f in result.findings}) == ["b.cu"]


def _slow_apply(facts, sizes):
    time.sleep(20)
    raise AssertionError("unreachable within the budget")


@pytest.mark.slow
@pytest.mark.usefixtures("libclang")
def test_deep_applies_libclangs_facts_inside_the_budgeted_worker(monkeypatch):
    result = analyse(scan(FIXTURES / "kernels", Settings(jobs=1, cache_dir=None, include=("deep_header.cu",))),
                     ["mi300x"])
    kernels = [k for k in result.kernels if k.name == "header_sized"]
    monkeypatch.setattr(deep, "_apply_sizes", _slow_apply)  # stands for a costly file: many kernels, many macros
    t = time.monotonic()
    out, info = deep.refine(result, kernels, Budget(seconds=8))
    assert time.monotonic() - t < 15
    assert info["errors"] == {"deep_header.cu": ["not analysed: libclang took longer than 8 s"]}
    assert out == kernels
