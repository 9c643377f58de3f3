"""The remainder row of the directory breakdown counts the findings and files it stands for, so the findings
column adds up like the days: warp-ctc's 30 top-level CMake findings were a blank cell under a 55-finding root."""
from __future__ import annotations

from porter.model.assessment import DirectoryRow, Range
from porter.render.figures import directory_rows


def row(path: str, findings: int, files: int, likely: float) -> DirectoryRow:
    r = Range(0.0, likely, likely * 2)
    return DirectoryRow(path, path.count("/") + (path != "."), findings, files, r, r, r, r)


def test_the_remainder_rows_count_what_sits_directly_in_a_directory():
    rows = [row(".", 55, 10, 0.5), row("include", 14, 4, 0.2), row("include/detail", 10, 3, 0.15),
            row("src", 6, 2, 0.0), row("tests", 1, 1, 0.0)]
    shown = directory_rows(rows, Range(0.0, 0.5, 1.0), max_depth=2)
    assert [(r.label, r.depth, r.findings, r.files) for r in shown if r.source is None] == [
        ("(files directly in include/)", 2, 4, 1),
        ("(repository-wide jobs, top-level files)", 1, 34, 3)]
    top = [r for r in shown if r.depth == 1]
    assert sum(r.source.findings if r.source else r.findings for r in top) == 55


def test_a_remainder_with_findings_and_no_days_is_still_shown():
    rows = [row(".", 12, 3, 0.3), row("src", 10, 2, 0.3)]
    shown = directory_rows(rows, Range(0.0, 0.3, 0.6))
    assert [(r.label, r.findings, r.files, r.days.likely) for r in shown if r.source is None] == [
        ("(repository-wide jobs, top-level files)", 2, 1, 0.0)]


def test_the_limit_folds_the_directories_beyond_it_into_the_remainder():
    rows = [row(".", 9, 3, 0.9), row("a", 4, 1, 0.4), row("b", 3, 1, 0.3), row("c", 2, 1, 0.2)]
    shown = directory_rows(rows, Range(0.0, 0.9, 1.8), limit=1)
    assert [(r.label, r.findings, r.files) for r in shown if r.source is None] == [
        ("(repository-wide jobs, top-level files, 2 more directories)", 5, 2)]
