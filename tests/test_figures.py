"""One rounding rule: every displayed total is the sum of the parts displayed under it."""
from __future__ import annotations

import os
import re
import sys

import pytest

from helpers import REPO
from porter.model.assessment import Range
from porter.estimate.shares import apportion, apportion_points
from porter.render.figures import directory_rows, plural, shown_rows, total_of

sys.path.insert(0, str(REPO / "scripts"))
from make_reports import assess_repo  # noqa: E402


def test_apportion_sums_exactly_and_keeps_proportions():
    assert apportion([1.0, 1.0, 1.0], 1.0) == [0.4, 0.3, 0.3]  # largest remainder, ties to the earlier part
    assert apportion([2.0, 1.67, 1.33, 0.02], 5.0) == [2.0, 1.7, 1.3, 0.0]
    assert apportion([0.0, 0.0], 3.0) == [0.0, 0.0]
    assert apportion([], 3.0) == []
    assert sum(apportion([0.37] * 7, 2.5)) == pytest.approx(2.5)


def test_plural():
    assert (plural(1, "file"), plural(2, "file"), plural(0, "launch", "launches")) == ("1 file", "2 files", "0 launches")


@pytest.fixture(scope="module", params=["cuda-app", "torch-ext", "llm-serving"])
def assessed(request):
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return assess_repo(f"fixtures/repos/{request.param}").assessment
    finally:
        os.chdir(cwd)


def test_categories_add_up_to_the_headline(assessed):
    effort = Range.of(assessed.days.to_dict())
    rows = shown_rows(assessed.breakdowns.by_category, effort)
    assert total_of(rows) == effort
    top2 = shown_rows(assessed.breakdowns.by_category, effort, limit=2)
    assert total_of(top2) == total_of(rows) and (len(top2) <= 2 or top2[-1].source is None)


def test_directory_levels_add_up_to_their_parent(assessed):
    effort = Range.of(assessed.days.to_dict())
    rows = directory_rows(assessed.breakdowns.by_directory, effort, max_depth=3)
    assert rows[0].label == "." and rows[0].days == effort
    for i, r in enumerate(rows):
        kids = []
        for s in rows[i + 1:]:
            if s.depth <= r.depth:
                break
            if s.depth == r.depth + 1:
                kids.append(s)
        if kids:
            assert total_of(kids) == r.days, r.label


def test_markdown_tables_add_up(assessed, tmp_path):
    """The Markdown report's category rows add up to its total row, in every fixture."""
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        from porter.render import render

        md = render("markdown", assess_repo("fixtures/repos/cuda-app")).decode()
    finally:
        os.chdir(cwd)
    section = md[md.index("## Effort by category"):md.index("## Effort by directory")]
    rows = re.findall(r"^\| (\w+) \| \d+ \| ([\d.]+)–([\d.]+)–([\d.]+) \|", section, re.M)
    total = re.search(r"^\| \*\*total\*\* \| \d+ \| \*\*([\d.]+)–([\d.]+)–([\d.]+)\*\*", section, re.M).groups()
    for i in range(3):
        assert round(sum(float(r[i + 1]) for r in rows), 1) == float(total[i])
    # reduce.cu's __reduce_add_sync is in HIP from ROCm 7.0, the default release: no longer API002 work; a CMake app
    # that includes no PyTorch header maps its CUDA names to HIP's once (map-cuda-names); the -lineinfo inside
    # if(STENCILBENCH_LINEINFO), an OFF option, is optional work (cuda-only), not in the total
    assert "**Effort: 2–3.5 engineer-days (likely 3)**" in md and "| **total** | 151 | **2–3–3.5** |" in md


def test_explain_locations_are_sorted_and_unique():
    from types import SimpleNamespace

    from porter.render.markdown import item_locations

    index = {"a": SimpleNamespace(path="b.cu", line=9), "b": SimpleNamespace(path="a.cu", line=30),
             "c": SimpleNamespace(path="a.cu", line=4), "d": SimpleNamespace(path="b.cu", line=9)}
    assert item_locations(SimpleNamespace(findings=("a", "b", "c", "d", "a", "gone")), index) == ["a.cu:4", "a.cu:30", "b.cu:9"]


def test_reports_list_each_location_once_in_order():
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        from porter.render import RenderOptions, render

        run = assess_repo("fixtures/repos/cuda-app")
        page = render("html", run).decode()
        out = render("console", run, RenderOptions(width=160, command="assess", explain=True)).decode()
    finally:
        os.chdir(cwd)
    assert "CMakeLists.txt:2, CMakeLists.txt:9, CMakeLists.txt:22 +2</span>" in page  # line 29 is optional work now
    block = out[out.index("How the estimate adds up"):out.index("Total:")]
    assert block.count("CMakeLists.txt:22") == 1


def test_apportioned_points_stay_in_order_in_every_row():
    """Columns apportioned on their own can give a row likely 1.0 and high 0.2 when its share of the high column is
    smaller (flash-attention's `library` category read likely 1.2, high 1.1); every row keeps low <= likely <= high
    and every column its total, the steps coming from the row with the most slack."""
    rows = [{"low": 0.5, "likely": 1.0, "high": 10.0}, {"low": 0.5, "likely": 1.0, "high": 1.0}]
    assert apportion([r["high"] for r in rows], 2.2) == [2.0, 0.2]  # what the high column alone gives
    assert apportion_points(rows, {"low": 1.0, "likely": 2.0, "high": 2.2}) == [
        {"low": 0.5, "likely": 1.0, "high": 1.2}, {"low": 0.5, "likely": 1.0, "high": 1.0}]
    # a low above its likely gives steps to the rows with room
    assert apportion_points([{"low": 9.0, "likely": 1.0, "high": 1.0}, {"low": 0.0, "likely": 1.0, "high": 1.0}],
                            {"low": 1.8, "likely": 2.0, "high": 2.0}) == [
        {"low": 1.0, "likely": 1.0, "high": 1.0}, {"low": 0.8, "likely": 1.0, "high": 1.0}]
