"""An empty section of the fleet report says so in words in every format, instead of a table of headers alone
(which reads as a rendering fault): no blockers, no failed repository, no change since the previous run."""
from __future__ import annotations

from porter.fleet.render import render


def doc(previous_run=None):
    target = {"target": "mi355x", "verdicts": {"blocked": 0, "port": 1, "mechanical": 0, "ready": 0},
              "open_days": {"low": 1.0, "likely": 1.5, "high": 2.5},
              "ranking": [{"repository": "gpuRIR", "verdict": "port", "days_likely": 1.5, "days_low": 1.0,
                           "days_high": 2.5, "open_findings": 221, "handled_findings": 7,
                           "commit": "fd8af43a4a11"}],
              "ready_now": [], "blockers": []}
    return {"run": {"id": 2, "started": "2026-12-03T05:59:46Z", "executor": "local:1", "porter_version": "0.1.0"},
            "totals": {"repositories": 1, "assessed": 1, "failed": 0, "open_findings": 221, "handled_findings": 7,
                       "kernels": 10},
            "targets": [target], "blockers": [], "libraries": [], "failed": [], "previous_run": previous_run,
            "changes": [], "burndown": []}


def test_markdown_says_none_where_a_section_is_empty():
    md = render("markdown", doc(previous_run=1)).decode()
    assert "Blockers on mi355x (0): none.\n" in md
    assert "## Blockers across the fleet\n\nNone.\n" in md
    assert "## Libraries across the fleet\n\nNone.\n" in md
    assert "## Failed\n\nNone.\n" in md
    assert md.endswith("## Changes since run 1\n\nNo change since run 1.\n")
    assert "| blocker |" not in md and "| repository | reason |" not in md
    # each repository's own open findings beside its days (a fleet total alone hid which repository held them)
    assert "| gpuRIR | port | 1.5 | 1 | 2.5 | 221 | 7 | `fd8af43a4a11` |\n" in md


def test_html_has_no_header_only_table():
    page = render("html", doc(previous_run=1)).decode()
    assert "<h3>Blockers on mi355x (0)</h3>\n<p>None.</p>" in page
    assert "<h2>Blockers across the fleet</h2>\n<p>None.</p>" in page
    assert "<h2>Failed</h2>\n<p>None.</p>" in page
    assert "<h2>Changes since run 1</h2>\n<p>No change since run 1.</p>" in page
    assert page.count("<table") == 1  # the ranking, the one section with rows


def test_console_says_none():
    text = render("console", doc(previous_run=1)).decode().splitlines()
    assert "  blockers on mi355x (0): none" in text
    assert "Blockers across the fleet (0): none" in text
    assert "Libraries across the fleet (0): none" in text
    assert "Failed (0): none" in text
    assert text[-1] == "Changes since run 1: none"
    assert render("console", doc()).decode().splitlines()[-1] == "Changes: no earlier run"
