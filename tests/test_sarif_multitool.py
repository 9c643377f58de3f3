"""porter's SARIF passes Microsoft's SARIF Multitool validator (errors and warnings; its notes are style advice such
as Pascal-case rule names), every rule's helpUri is the URL of its generated page under docs/rules/, notes that
only say hipify renames a name are not uploaded unless a minimum severity asks for them, and cuda-only spots are
suppressed like handled ones."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from helpers import REPO, git, make_repo, porter_here
from porter.model import Severity
from porter.pipeline import run
from porter.render.sarif import to_sarif
from porter.settings import Settings

MULTITOOL = Path(os.environ.get("PORTER_SARIF_MULTITOOL") or
                 REPO / ".venv/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
needs_multitool = pytest.mark.skipif(not os.access(MULTITOOL, os.X_OK), reason=(
    "needs the SARIF Multitool (npm @microsoft/sarif-multitool-linux; scripts/bootstrap.sh installs it into .venv, "
    "or set PORTER_SARIF_MULTITOOL)"))
DUAL = REPO / "fixtures" / "repos" / "dual-app"
DOCS = "https://github.com/porter-rocm/porter/blob/main/docs/rules/"


def _problems(path: Path) -> list[str]:
    p = subprocess.run([str(MULTITOOL), "validate", str(path), "--level", "Error;Warning"], capture_output=True,
                       text=True, timeout=300)
    assert "Analysis completed successfully" in p.stdout, p.stdout + p.stderr
    return [line for line in p.stdout.splitlines() if re.search(r"\b(error|warning) SARIF\d+", line)]


@needs_multitool
def test_a_scan_and_a_diff_validate(tmp_path):
    scan = porter_here("scan", str(DUAL), "-f", "sarif", "-o", str(tmp_path / "scan.sarif"), "--no-cache")
    assert scan.returncode in (0, 1), scan.stderr
    assert _problems(tmp_path / "scan.sarif") == []
    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k(int *a) { a[0] = 1; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "b.cu").write_text("__global__ void j(unsigned *a) { a[0] = __ballot_sync(0xffffffff, 1); }\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    diff = porter_here("scan", str(repo), "--new-since", base, "-f", "sarif", "-o", str(tmp_path / "diff.sarif"),
                      "--no-cache")
    assert diff.returncode in (0, 1), diff.stderr
    assert _problems(tmp_path / "diff.sarif") == []


def test_help_uris_are_the_rule_pages_and_the_pages_exist():
    doc = to_sarif(run(DUAL, Settings(jobs=1, cache_dir=None)).result)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rules and all(r["helpUri"] == f"{DOCS}{r['id']}.md" for r in rules)
    assert all((REPO / "docs" / "rules" / f"{r['id']}.md").is_file() for r in rules)
    check = subprocess.run([str(REPO / ".venv/bin/python"), "scripts/make_rule_pages.py", "--check"], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout


def test_rename_notes_stay_out_unless_asked_and_cuda_only_is_suppressed():
    result = run(DUAL, Settings(jobs=1, cache_dir=None)).result
    default = to_sarif(result)["runs"][0]["results"]
    everything = to_sarif(result, min_severity=Severity.INFO)["runs"][0]["results"]
    renames = [f for f in result.findings if f.severity == Severity.INFO
               and result.rules.get(f.rule).hip_equivalent.get("kind") == "rename"]
    assert {"API001", "KRN001"} <= {f.rule for f in renames}
    assert not {r["ruleId"] for r in default} & {"API001", "KRN001"}
    assert len(everything) == len(result.findings) == len(default) + len(renames)
    cuda_only = [r for r in default if r["properties"]["porter"]["status"] == "cuda-only"]
    assert cuda_only and all(r["suppressions"] == [{
        "kind": "external", "status": "accepted",
        "justification": f"kept NVIDIA-only by {r['properties']['porter']['handledBy']}"}] for r in cuda_only)


def test_render_options_carry_the_minimum_severity_to_both_sarif_forms():
    from porter.render import RenderOptions, render

    r = run(DUAL, Settings(jobs=1, cache_dir=None))
    default = json.loads(render("sarif", r))["runs"][0]["results"]
    asked = json.loads(render("sarif", r, RenderOptions(min_severity=Severity.INFO)))["runs"][0]["results"]
    assert len(asked) == len(r.result.findings) > len(default)
    assert {x["ruleId"] for x in asked} - {x["ruleId"] for x in default} >= {"API001", "KRN001"}


def test_scan_min_severity_on_the_command_line_is_what_sarif_uploads():
    """`scan -f sarif --min-severity info` is how a user asks for the rename notes: the command line passed the
    option to what is shown but not to the SARIF renderer, so the notes could not be uploaded at all."""
    def uploaded(*extra: str) -> tuple[int, list[str]]:
        p = porter_here("scan", str(DUAL), "-f", "sarif", "--no-cache", "--jobs", "1", *extra)
        assert p.returncode == 0, p.stderr
        results = json.loads(p.stdout)["runs"][0]["results"]
        return len(results), sorted({r["ruleId"] for r in results})

    assert uploaded() == (23, ["API003", "API004", "BLD001", "BLD002", "BLD006", "DEV001", "DEV002", "DEV007",
                               "DEV011", "LIB004", "LIB007", "PYT003"])
    assert uploaded("--min-severity", "info") == (44, [
        "API001", "API003", "API004", "API005", "BLD001", "BLD002", "BLD006", "BLD008", "DEV001", "DEV002", "DEV007",
        "DEV011", "KRN001", "KRN002", "LIB001", "LIB004", "LIB007", "PYT003"])
    assert uploaded("--min-severity", "high") == (7, ["DEV001", "DEV002", "DEV007"])


def test_a_bidi_override_in_a_file_name_reaches_no_sarif_string_raw(tmp_path):
    """effortItem and handledBy carry the path: a viewer that renders properties showed `evil\\u202euc.cu` as
    `evilcu.cu`-style spoofed text (session-26 attacker); they are escaped as the message is."""
    name = "evil\u202euc.cu"
    (tmp_path / name).write_text('__global__ void evil(float *x) { asm volatile("bar.sync 0;"); }\n')
    p = porter_here("scan", str(tmp_path), "-f", "sarif", "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert "\u202e" not in json.dumps(doc, ensure_ascii=False)
    assert [(r["ruleId"], r["properties"]["porter"]["effortItem"]) for r in doc["runs"][0]["results"]] == \
        [("DEV001", "kernel:evil\\u202euc.cu:1:evil")]
