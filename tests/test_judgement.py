"""Issue 27's noise and recall classes on annotated fixtures: one finding per spot, exact lines."""
from __future__ import annotations

from collections import Counter

from porter.pipeline import scan
from porter.settings import Settings

from conftest import FIXTURES


def test_one_wmma_fragment_declaration_is_one_finding(tmp_path):
    """A fragment's template arguments (`wmma::matrix_a`, `wmma::row_major`) belong to its declaration: one DEV005
    finding per line of fixtures/rules/DEV005-wmma.cu, at the head of each use."""
    (tmp_path / "a.cu").write_bytes((FIXTURES / "rules" / "DEV005-wmma.cu").read_bytes())
    hits = [(f.line, f.column, f.snippet) for f in scan(tmp_path, Settings(jobs=1, cache_dir=None)).findings
            if f.rule == "DEV005"]
    assert Counter(line for line, _, _ in hits) == {5: 1, 7: 1, 11: 1, 13: 1, 15: 1, 17: 1}
    assert [(line, col) for line, col, _ in hits] == [(5, 17), (7, 16), (11, 3), (13, 3), (15, 3), (17, 3)]
