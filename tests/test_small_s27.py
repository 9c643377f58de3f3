"""Session 27 (nub): small things the new user met (port's open items after --apply, DEV002's wave wording,
the fleet's dropped repositories, the PR comment's advice lines)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_repo, porter_here

from porter.port.patch import line_after

LAUNCH = """#include <cuda_runtime.h>
__global__ void k(int *o) { o[threadIdx.x] = 1; }
void run(int *o) {
  cudaMemset(o, 0, 4);
  k<< <1, 32>> >(o);
}
"""


def test_line_after_follows_insertions_and_replacements() -> None:
    before, after = b"a\nb\nc\nd\n", b"x\ny\na\nb\nC\nd\n"
    assert [line_after(before, after, i) for i in (1, 2, 3, 4)] == [3, 4, 5, 6]


def test_open_items_after_apply_name_the_applied_lines(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"src/launch.cu": LAUNCH})
    dry = porter_here("port", str(repo), "--summary", str(tmp_path / "dry.json"), "-o", str(tmp_path / "p.patch"))
    assert dry.returncode == 0, dry.stderr
    before = {(o["rule"], o["line"]) for o in json.loads((tmp_path / "dry.json").read_text())["open_work"]}
    assert ("DEV040", 5) in before  # without --apply: the tree as it is
    r = porter_here("port", str(repo), "--apply", "--summary", str(tmp_path / "s.json"))
    assert r.returncode == 0, r.stderr
    items = json.loads((tmp_path / "s.json").read_text())["open_work"]
    dev040 = next(o for o in items if o["rule"] == "DEV040")
    lines = (repo / "src/launch.cu").read_text().splitlines()
    assert lines[dev040["line"] - 1].strip() == "k<< <1, 32>> >(o);"
    assert dev040["line"] > 5 and dev040["finding"] == "DEV040 src/launch.cu:5"
    assert f"open src/launch.cu:{dev040['line']} DEV040" in r.stderr.replace("\n", " ")


def test_fleet_changes_say_a_repository_left_or_joined_the_list() -> None:
    from porter.fleet.report import _changes

    row = {"repository": "a/x", "outcome": "stored", "commit_id": "0123456789abcdef", "reason": None, "targets": []}
    joined = {"repository": "b/y", "outcome": "failed", "commit_id": "", "reason": "clone failed", "targets": []}
    assert _changes([row], [joined]) == [
        {"repository": "a/x", "target": "", "change": "removed", "before": "assessed at 0123456789ab",
         "after": "not in this run's list (its stored results stay)"},
        {"repository": "b/y", "target": "", "change": "added", "before": "not in the previous run's list",
         "after": "failed: clone failed"},
    ]


def test_dev002_message_holds_on_a_wave32_only_scan(tmp_path: Path) -> None:
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text("__global__ void k(int *o) { o[0] = __shfl_sync(0xffffffff, o[1], 0); }\n")
    found = run(tmp_path, Settings(jobs=1, targets=("mi455x",))).result.findings
    assert [f.message for f in found if f.rule == "DEV002"] == [
        "__shfl_sync gets the 32-bit mask 0xffffffff: HIP's *_sync intrinsics require a 64-bit mask type (on every "
        "AMD GPU), and on a 64-lane wavefront (CDNA: MI300X-MI355X) it names lanes 0-31 only."]


def test_advice_that_repeats_the_code_gives_the_rules_advice_instead(tmp_path: Path) -> None:
    from porter.pipeline import run
    from porter.render.ci import advice as ci_advice
    from porter.render.pr_comment import advice as pr_advice
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text(LAUNCH)
    result = run(tmp_path, Settings(jobs=1)).result
    by_rule = {f.rule: f for f in result.findings}
    assert pr_advice(result, by_rule["KRN001"]) == ci_advice(result, by_rule["KRN001"]) == (
        "HIP: Nothing to change by itself; read the kernel's per-target verdict (`porter scan --target all`) for "
        "what it needs.")
    assert pr_advice(result, by_rule["API001"]) == "HIP: use hipMemset"  # a rename still names the HIP call
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "k.cu").write_text("__global__ void k(int *o) { o[0] = 1; }\nvoid run(int *o) { k<<<1, 32>>>(o); }\n")
    result = run(tmp_path / "b", Settings(jobs=1)).result
    launch = next(f for f in result.findings if f.rule == "KRN002")
    assert pr_advice(result, launch).startswith("HIP: Keep the chevrons (HIP supports them) or use `hipLaunchKernelGGL(")
