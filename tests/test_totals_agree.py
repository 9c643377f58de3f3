"""One scan, every format, the same totals (porter.model.totals): findings by port status (open, handled, cuda-only),
each by severity, the files scanned / with findings / with open findings, suppressed and skipped — read back out of
console, JSON, Markdown, HTML, CSV and SARIF, with exact values. SARIF lists fewer results by design (the open
rename notes), and its own fields must add up to the same totals.

The fixture is the partly ported dual-app (open, handled and cuda-only findings of several severities) plus, written
here, a file whose one finding a `porter: ignore` comment suppresses and a dangling symlink (skipped). On
pjreddie/darknet, before the totals were one module, JSON listed 489 findings and SARIF 202 results with nothing
saying where the other 287 went.
"""
from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
from collections import Counter

import pytest

from helpers import REPO, git, make_repo, porter_here

SEVS = ("blocker", "high", "medium", "low", "info")
# what the fixture must give, every format alike
WANT = {
    "by_status": {
        "open": {"blocker": 0, "high": 0, "medium": 0, "low": 1, "info": 6},
        "handled": {"blocker": 0, "high": 5, "medium": 4, "low": 8, "info": 13},
        "cuda_only": {"blocker": 1, "high": 1, "medium": 0, "low": 0, "info": 6},
    },
    "findings": 45, "files_scanned": 12, "files_with_findings": 10, "files_with_open_findings": 4,
    "suppressed": 1, "skipped": 1,
}
QUIET = """#include <cuda_runtime.h>
void sync_all() {
  cudaThreadSynchronize();  // porter: ignore[API003] kept until the next release
}
"""


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    root = tmp_path_factory.mktemp("totals") / "dual"
    shutil.copytree(REPO / "fixtures" / "repos" / "dual-app", root)
    (root / "quiet.cu").write_text(QUIET)
    (root / "gone.cu").symlink_to("missing.cu")
    out = {}
    for fmt in ("text", "json", "markdown", "html", "csv", "sarif"):
        quiet = ("-q",) if fmt == "text" else ()  # the summary line alone, unwrapped
        p = porter_here("scan", str(root), "--format", fmt, "--no-cache", "--jobs", "1", *quiet)
        assert p.returncode == 0, p.stderr
        out[fmt] = p.stdout
    p = porter_here("assess", str(root), "--format", "text", "--no-cache", "--jobs", "1", env={"COLUMNS": "160"})
    assert p.returncode == 0, p.stderr
    out["assess-text"] = p.stdout
    return out


def _status_totals(rows) -> dict[str, dict[str, int]]:
    """status key → severity → count from (status, severity) pairs."""
    n = Counter(rows)
    return {key: {s: n[(word, s)] for s in SEVS}
            for key, word in (("open", "open"), ("handled", "handled"), ("cuda_only", "cuda-only"))}


def test_json_totals_are_the_fixture_s_and_its_findings_add_up(texts):
    doc = json.loads(texts["json"])
    t = doc["summary"]["totals"]
    assert {k: t[k] for k in WANT} == WANT
    assert (t["open"], t["handled"], t["cuda_only"]) == (7, 30, 8)
    assert _status_totals((f["status"], f["severity"]) for f in doc["findings"]) == WANT["by_status"]
    assert len({f["path"] for f in doc["findings"]}) == 10
    assert len({f["path"] for f in doc["findings"] if f["status"] == "open"}) == 4
    assert (len(doc["suppressed"]), len(doc["skipped"]), doc["files"]["scanned"]) == (1, 1, 12)


def test_console_and_its_text_alias_print_the_totals(texts):
    line = texts["text"].rstrip("\n")
    assert line == ("45 findings (1 blocker, 6 high, 4 medium, 9 low, 25 info); 12 files scanned, 10 files with "
                    "findings; 7 kernels, 1 launch site; 1 suppressed; 1 file skipped; 7 open (1 low, 6 info), "
                    "30 handled (5 high, 4 medium, 8 low, 13 info), 8 cuda-only (1 blocker, 1 high, 6 info); "
                    "4 files with open findings")


def test_the_assess_console_prints_the_totals_table(texts):
    text = texts["assess-text"]
    block = text[text.index("Findings by status and severity\n"):].split("\n")[3:7]
    assert _table([line.rsplit(None, 6) for line in block]) == WANT["by_status"]
    assert FILES_LINE + "; 7 kernels · 1 launch site · 1 suppressed;" in text


def _table(rows) -> dict[str, dict[str, int]]:
    got = {}
    for label, *cells in rows:
        key = {"open": "open", "handled": "handled", "cuda-only": "cuda_only", "all findings": "all"}[label]
        values = [int(c) for c in cells]
        assert sum(values[:-1]) == values[-1], label  # each row's total is its severities' sum
        got[key] = dict(zip(SEVS, values[:-1]))
    assert got.pop("all") == {s: sum(got[k][s] for k in got) for s in SEVS}
    return got


FILES_LINE = "12 files scanned · 10 files with findings · 4 files with open findings · 1 file skipped"


def test_markdown_prints_the_totals_table_and_file_counts(texts):
    md = texts["markdown"]
    head = "| status | blocker | high | medium | low | info | total |"
    assert head in md
    block = md[md.index(head):].split("\n\n")[0].splitlines()[2:]
    rows = [[c.strip().strip("*") for c in line.strip("|").split("|")] for line in block]
    assert _table(rows) == WANT["by_status"]
    assert FILES_LINE + ". 7 kernels · 1 launch site · 1 suppressed." in md


def test_html_prints_the_totals_table_and_file_counts(texts):
    page = texts["html"]
    table = page[page.index('<table id="totals">'):].split("</table>")[0]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", tr)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table) if "<td" in tr]
    assert _table(rows) == WANT["by_status"]
    assert f'<p class="muted" id="count-notes">{FILES_LINE}. 7 kernels · 1 launch site · 1 suppressed.' in page


def test_csv_rows_pivot_to_the_totals(texts):
    rows = list(csv.DictReader(io.StringIO(texts["csv"])))
    assert len(rows) == WANT["findings"]
    assert _status_totals((r["status"], r["severity"]) for r in rows) == WANT["by_status"]
    assert len({r["path"] for r in rows}) == 10 and len({r["path"] for r in rows if r["status"] == "open"}) == 4


def test_sarif_results_and_notifications_reconcile_with_the_totals(texts):
    run = json.loads(texts["sarif"])["runs"][0]
    props = run["properties"]["porter"]
    assert {k: props["totals"][k] for k in WANT} == WANT
    results = run["results"]
    # SARIF 3.27.23: suppressions on every result or on none
    assert all("suppressions" in r for r in results)
    listed = [r for r in results if not r["suppressions"]]
    external = [r for r in results if r["suppressions"] and r["suppressions"][0]["kind"] == "external"]
    in_source = [r for r in results if r["suppressions"] and r["suppressions"][0]["kind"] == "inSource"]
    assert (len(listed), len(external), len(in_source), len(results)) == (1, 22, 1, 24)
    assert {r["properties"]["porter"]["status"] for r in listed} == {"open"}
    assert {r["properties"]["porter"]["status"] for r in external} == {"handled", "cuda-only"}
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in in_source] == [
        ("API003", "quiet.cu")]
    # the rename notes are counted per rule and status, in the property bag and as one notification per rule
    apart = props["counted_not_listed"]
    assert apart == {"API001": {"cuda_only": 1, "handled": 4, "open": 1}, "API005": {"cuda_only": 3, "handled": 2, "open": 1},
                     "BLD008": {"open": 1}, "KRN001": {"cuda_only": 1, "handled": 4, "open": 2}, "KRN002": {"open": 1},
                     "LIB001": {"cuda_only": 1}}
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert {n["associatedRule"]["id"]: int(n["message"]["text"].split()[0]) for n in notes} == {
        rid: sum(per.values()) for rid, per in apart.items()}
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert all(rules[n["associatedRule"]["index"]] == n["associatedRule"]["id"] for n in notes)
    # listed + counted apart = the findings, status by status and severity by severity
    pairs = [(r["properties"]["porter"]["status"], r["properties"]["porter"]["severity"]) for r in listed + external]
    pairs += [(key.replace("_", "-"), "info") for per in apart.values() for key, n in per.items() for _ in range(n)]
    assert _status_totals(pairs) == WANT["by_status"]


def test_sarif_lists_every_finding_when_a_minimum_severity_is_asked(tmp_path):
    root = tmp_path / "dual"
    shutil.copytree(REPO / "fixtures" / "repos" / "dual-app", root)
    p = porter_here("scan", str(root), "--format", "sarif", "--no-cache", "--jobs", "1", "--min-severity", "info")
    run = json.loads(p.stdout)["runs"][0]
    assert run["properties"]["porter"]["counted_not_listed"] == {}
    assert run["invocations"][0]["toolExecutionNotifications"] == []
    assert len(run["results"]) == run["properties"]["porter"]["totals"]["findings"] == 44


def test_a_diff_s_sarif_and_json_count_the_same_new_findings(tmp_path):
    """--new-since: JSON's `findings` are the new ones; SARIF's `new` results plus the rename notes it counts
    apart for `new` are the same number, and its totals are JSON's."""
    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k(int *a) { a[0] = 1; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "b.cu").write_text("#include <cuda_runtime.h>\n__global__ void j(unsigned *a) {\n"
                               "  a[0] = __ballot_sync(0xffffffff, 1);\n}\nvoid s() { cudaDeviceSynchronize(); }\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    out = {}
    for fmt in ("json", "sarif"):
        p = porter_here("scan", str(repo), "--new-since", base, "--format", fmt, "--no-cache", "--jobs", "1")
        assert p.returncode == 0, p.stderr
        out[fmt] = json.loads(p.stdout)
    new = out["json"]["findings"]
    run = out["sarif"]["runs"][0]
    props = run["properties"]["porter"]
    assert props["totals"] == out["json"]["summary"]["totals"]
    listed_new = [r for r in run["results"] if r["baselineState"] == "new"]
    apart = sum(n for per in props["counted_not_listed"]["new"].values() for n in per.values())
    assert len(listed_new) + apart == len(new) == props["totals"]["findings"]
    assert apart > 0 and listed_new


def test_a_narrowed_report_says_which_findings_its_totals_count(tmp_path):
    """`--status open`: JSON's totals and the Markdown table count the 7 open findings shown; the Markdown says its
    Counts and effort are the assessment's, of all 45 (they disagreed silently before)."""
    root = tmp_path / "dual"
    shutil.copytree(REPO / "fixtures" / "repos" / "dual-app", root)
    (root / "quiet.cu").write_text(QUIET)
    (root / "gone.cu").symlink_to("missing.cu")
    out = {}
    for fmt in ("json", "markdown"):
        p = porter_here("scan", str(root), "--format", fmt, "--status", "open", "--no-cache", "--jobs", "1")
        assert p.returncode == 0, p.stderr
        out[fmt] = p.stdout
    t = json.loads(out["json"])["summary"]["totals"]
    assert t["by_status"] == {**{k: dict.fromkeys(SEVS, 0) for k in ("handled", "cuda_only")},
                              "open": WANT["by_status"]["open"]}
    assert (t["findings"], t["files_with_findings"], t["files_with_open_findings"]) == (7, 4, 4)
    md = out["markdown"]
    assert ("This table counts the 7 findings shown (--status or --min-severity narrowed them); the counts and the "
            "effort are the assessment's, of all 45 findings.\n\n| status |") in md
    assert "| **all findings** | **0** | **0** | **0** | **1** | **6** | **7** |" in md
    assert "| **all findings** | 45 |" in md
