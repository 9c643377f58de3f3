"""porter history tells the truth: it refuses a directory git does not track, ranks movers by open findings as well
as days, names what it is about, and leaves the subject column readable at 120 columns."""
from __future__ import annotations

import json
import subprocess

import pytest

from helpers import git, porter_here
from porter.history import trend
from porter.history.points import Point
from porter.model.assessment import Range
from porter.model.history import PointChange

from test_history import STEPS, Step, build


def pt(i: int, likely: float, open_: int, prev: Point | None, subject: str = "s") -> Point:
    change = None if prev is None else PointChange(effort_likely=round(likely - prev.effort.likely, 1),
                                                   open_findings=open_ - prev.open_findings, handled_findings=0,
                                                   cuda_only_findings=0, open_kernels={}, blockers=0)
    return Point(commit=f"{i:040x}", date=f"2024-03-{i:02d}T00:00:00+00:00", author="a", subject=subject,
                 merge=False, commits=1, open_findings=open_, handled_findings=0, cuda_only_findings=0,
                 effort=Range(likely, likely, likely), verdict="port", open_kernels={},
                 blockers=(), files=1, change=change)


def test_movers_rank_by_open_findings_as_well_as_days():
    """Six commits each retire a little work; one routes 234 spots through a compat header and retires no day.
    By days alone it is not among the five biggest; by open findings it is the first."""
    points = [pt(1, 100.0, 1000, None)]
    for i, (d, n) in enumerate([(-5, -3), (-4, -2), (-3, -1), (-2, -2), (-1.5, -1), (-1, -1), (0, -234)], start=2):
        points.append(pt(i, points[-1].effort.likely + d, points[-1].open_findings + n, points[-1],
                         "compat header for every CUDA call" if n == -234 else f"retune {i}"))
    m = trend.movers(points)
    assert [x["effort_likely"] for x in m["reduced"]] == [-5, -4, -3, -2, -1.5]
    assert all(x["open_findings"] != -234 for x in m["reduced"])
    assert [(x["subject"], x["open_findings"], x["effort_likely"]) for x in m["reduced_open"]] == [
        ("compat header for every CUDA call", -234, 0), ("retune 2", -3, -5), ("retune 3", -2, -4),
        ("retune 5", -2, -2), ("retune 4", -1, -3)]  # equal open findings: the larger fall of days first
    assert m["added"] == [] and m["added_open"] == []


def test_history_of_a_directory_git_does_not_track_is_refused(tmp_path):
    root = tmp_path / "r"
    build(root, STEPS[:2])
    (root / "scratch").mkdir()
    (root / "scratch" / "k.cu").write_text("__global__ void k() {}\n")
    p = porter_here("history", str(root / "scratch"), "--no-cache")
    assert p.returncode == 2, p.stdout
    assert p.stderr.strip().endswith(
        f"{root / 'scratch'}: git does not track this directory (no commit of {root} touches scratch/); "
        "history reads committed files: commit them, or name a tracked directory")
    assert p.stdout == ""
    # a tracked directory is walked as before
    p = porter_here("history", str(root / "src"), "--no-cache", "-f", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["about"]["name"] == "r/src"


def test_titles_say_what_the_history_is_about(tmp_path):
    from porter import __version__

    root = tmp_path / "engine"
    shas = build(root, STEPS[:3])
    env = {"PORTER_CACHE_DIR": str(tmp_path / "c")}
    line = f"porter {__version__} · branch main · commit {shas[-1][:12]}"
    md = porter_here("history", str(root), "-f", "md", "-q", env=env).stdout
    assert md.splitlines()[:3] == ["# Port burndown: engine", "", line]
    page = porter_here("history", str(root), "-f", "html", "-q", env=env).stdout
    assert f"<title>Port burndown: engine · {line}</title>" in page and "<h1>Port burndown: engine</h1>" in page
    text = porter_here("history", str(root), "-q", env=env).stdout
    assert text.splitlines()[0] == f"Port burndown: engine · {line}"
    doc = json.loads(porter_here("history", str(root), "-f", "json", "-q", env=env).stdout)
    assert doc["about"] == {"name": "engine", "commit": shas[-1], "branch": "main", "version": __version__, "date": None}


def test_console_subject_column_keeps_its_words_at_120_columns(tmp_path):
    from porter.history import report
    from porter.history.points import history
    from porter.history.walk import walk
    from porter.settings import Settings

    root = tmp_path / "r"
    long = "route every CUDA runtime call through the compat header for ROCm builds"
    build(root, [*STEPS[:2], Step(long, {"src/kern.cu": STEPS[1].write["src/kern.cu"].replace("cudaFree(dev);", "")})])
    h = history(walk(root), Settings(cache_dir=tmp_path / "c", jobs=1, targets=("mi300x", "mi355x")))
    text = report.render("console", report.document(h), width=120).decode()
    rows = [line for line in text.splitlines() if line[:12] in {p.commit[:12] for p in h.points}]
    assert len(rows) == 3 and all(len(line) <= 120 for line in rows)
    last = rows[-1]
    subject = last[last.index("route"):]
    assert len(subject) > 15 and subject == long[:len(subject) - 1] + "…"
    header = next(line for line in text.splitlines() if line.startswith("commit"))
    assert header.split() == ["commit", "date", "open", "handled", "cuda-only", "open", "days", "change", "kernels", "subject"]
    assert "kernels: kernels not ok on mi300x/mi355x" in text


def test_html_chart_has_round_ticks_dates_and_a_legend(tmp_path):
    import re

    from porter.history import report
    from porter.history.points import history
    from porter.history.render_html import date_ticks
    from porter.history.walk import walk
    from porter.settings import Settings

    root = tmp_path / "r"
    build(root)
    doc = report.document(history(walk(root), Settings(cache_dir=tmp_path / "c", jobs=1)))
    page = report.render("html", doc).decode()
    top = max(p["effort"]["likely"] for p in doc["points"])
    svg = page[page.index("<svg"):page.index("</svg>")]
    ticks = re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="end">([^<]+)</text>', svg)
    # four round steps (0.2) up to the first round top above the scenario's largest open work (0.5 likely days)
    assert top == 0.5 and ticks == ["0", "0.2", "0.4", "0.6", "0.8"]
    dates = re.findall(r'<text class="tick" x="[\d.]+" y="[\d.]+" text-anchor="middle">([^<]+)</text>', svg)
    assert dates == ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06"]  # commits at noon, 01-01..06
    legend = re.findall(r'<text x="[\d.]+" y="334">([^<]+)</text>', svg)
    assert legend == ["open likely engineer-days (left axis)", "handled findings (right axis)", "reduced the most",
                      "added the most"]
    import datetime as dt

    def ts(s):
        return dt.datetime.fromisoformat(s).timestamp()

    assert [label for _, label in date_ticks(ts("2024-01-15T00:00:00+00:00"), ts("2025-03-01T00:00:00+00:00"))] == [
        "2024-03", "2024-05", "2024-07", "2024-09", "2024-11", "2025-01", "2025-03"]
