"""History progress says how far the current point's scan is: the first point scans the whole tree (Umpire:
6,937 blobs, 80 s), during which the commit count alone stood still at "1/86"."""
from __future__ import annotations

from helpers import make_repo
from porter.cli.output import history_detail
from porter.history.points import Progress, history
from porter.history.walk import walk
from porter.settings import Settings


def test_the_detail_names_the_point_being_scanned():
    assert history_detail(Progress(1, 86, 6768, 0, "scanning", 6768, 6937)) == (
        "this point: 6768/6937 files · 6768 blobs scanned, 0 cache hits")
    assert history_detail(Progress(47, 86, 6937, 12)) == "6937 blobs scanned, 12 cache hits"


def test_the_walk_reports_each_scanned_file_of_a_point(tmp_path):
    repo = make_repo(tmp_path / "r", {f"k{i}.cu": f"__global__ void k{i}(int *a) {{ a[0] = {i}; }}\n"
                                      for i in range(3)})
    seen: list[Progress] = []
    history(walk(repo), Settings(cache_dir=None, jobs=1), progress=seen.append)
    scanning = [p for p in seen if p.phase == "scanning"]
    assert scanning and {p.files_total for p in scanning} == {3}
    assert scanning[-1].files_done == 3
