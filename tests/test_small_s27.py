"""Session 27 (nub): small things the new user met (port's open items after --apply, DEV002's wave wording,
the fleet's dropped repositories, the PR comment's advice lines)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_repo, porter_here

from porter.port.patch import line_after

LAUNCH = """#include <cuda_runtime.h>
__global__ void k(int *o) { o[threadIdx.x] = 1; }
void run(int *o) {
  cudaMemset(o, 0, 4);
  k<< <1, 32>> >(o);
}
"""


def test_line_after_follows_insertions_and_replacements() -> None:
    before, after = b"a\nb\nc\nd\n", b"x\ny\na\nb\nC\nd\n"
    assert [line_after(before, after, i) for i in (1, 2, 3, 4)] == [3, 4, 5, 6]


def test_open_items_after_apply_name_the_applied_lines(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"src/launch.cu": LAUNCH})
    dry = porter_here("port", str(repo), "--summary", str(tmp_path / "dry.json"), "-o", str(tmp_path / "p.patch"))
    assert dry.returncode == 0, dry.stderr
    before = {(o["rule"], o["line"]) for o in json.loads((tmp_path / "dry.json").read_text())["open_work"]}
    assert ("DEV040", 5) in before  # without --apply: the tree as it is
    r = porter_here("port", str(repo), "--apply", "--summary", str(tmp_path / "s.json"))
    assert r.returncode == 0, r.stderr
    items = json.loads((tmp_path / "s.json").read_text())["open_work"]
    dev040 = next(o for o in items if o["rule"] == "DEV040")
    lines = (repo / "src/launch.cu").read_text().splitlines()
    assert lines[dev040["line"] - 1].strip() == "k<< <1, 32>> >(o);"
    assert dev040["line"] > 5 and dev040["finding"] == "DEV040 src/launch.cu:5"
    assert f"open src/launch.cu:{dev040['line']} DEV040" in r.stderr.replace("\n", " ")
