"""Terminal reports at 80, 100 and 160 columns: snapshots of the text, and the rules every width keeps.

Regenerate the snapshots after an intended change with PORTER_UPDATE_SNAPSHOTS=1 (then read the diff).
"""
from __future__ import annotations

import os
import re
import sys

import pytest

from helpers import REPO

sys.path.insert(0, str(REPO / "scripts"))

from make_reports import assess_repo  # noqa: E402

from porter.render import RenderOptions, render  # noqa: E402

SNAPSHOTS = REPO / "tests" / "snapshots"
WIDTHS = (80, 100, 160)
CASES = {"cuda-app-2": ("fixtures/repos/cuda-app", ("mi300x", "mi355x")),
         "cuda-app-all": ("fixtures/repos/cuda-app", ("all",))}


@pytest.fixture(scope="module")
def runs():
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return {name: assess_repo(rel, targets) for name, (rel, targets) in CASES.items()}
    finally:
        os.chdir(cwd)


def text(run, command: str, width: int, explain: bool = False) -> str:
    from porter.render.about import about

    # the fixture's own name, not the checkout's commit (which changes with every commit of porter)
    return render("console", run, RenderOptions(width=width, command=command, explain=explain,
                                                about=about(run.result.root, use_git=False))).decode()


def check_snapshot(name: str, got: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("PORTER_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8"), f"{path} differs (PORTER_UPDATE_SNAPSHOTS=1 to accept)"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["scan", "assess"])
def test_console_snapshot(runs, case, command, width):
    got = text(runs[case], command, width, explain=command == "assess")
    check_snapshot(f"{command}-{case}-{width}", got)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["scan", "assess"])
def test_every_width_keeps_names_and_verdicts(runs, case, command, width):
    run = runs[case]
    got = text(run, command, width, explain=command == "assess")
    assert max(len(line) for line in got.splitlines()) <= width
    assert "…" not in got  # nothing is cut: names and reasons wrap
    for k in run.result.kernels:  # every kernel name whole, on one line
        assert re.search(rf"^{re.escape(k.qualified_name)}\b", got, re.M), k.qualified_name
    kernels = got[got.index("Kernels ("):]
    header = kernels.splitlines()[1]
    targets = [t for t in run.result.targets]
    assert header.startswith("kernel ")
    assert all(t in header for t in targets) or " verdict " in header
    for k in run.result.kernels:  # each kernel row carries its verdict(s)
        row = next(line for line in kernels.splitlines() if line.startswith(k.qualified_name + " "))
        assert re.search(r"\b(ok|check|retune|fix|rewrite)\b", row), row


def test_narrow_terminals_drop_launches_not_verdicts(runs):
    run = runs["cuda-app-2"]
    at = {w: text(run, "scan", w) for w in WIDTHS}
    head = {w: at[w][at[w].index("Kernels ("):].splitlines()[1].split() for w in WIDTHS}
    assert head[80] == ["kernel", "mi300x", "mi355x", "top", "reason"]
    assert head[160] == ["kernel", "mi300x", "mi355x", "launches", "top", "reason"]
    assert "(wider terminal shows: launches)" in at[80]
    everything = text(runs["cuda-app-all"], "scan", 80)
    assert everything[everything.index("Kernels ("):].splitlines()[1].split() == ["kernel", "verdict", "top", "reason"]
    assert "fix mi300x, mi325x ·" in everything


def test_verdict_box_states_the_effort_once(runs):
    got = text(runs["cuda-app-2"], "assess", 100)
    box = got[: got.index("╰")]
    assert box.count("engineer-days") == 1
    assert "Effort: 5.5–7.5 engineer-days (likely 6.5)" in box
    assert not re.search(r"\b(file|kernel|finding)\(s\)| 1 files", got)


def test_a_status_column_appears_when_some_spot_is_not_open(runs):
    """Port-awareness sets status; the scan view shows it (and only then) next to the verdicts."""
    import dataclasses

    from porter.model import Status

    run = runs["cuda-app-2"]
    kernels = tuple(dataclasses.replace(k, status=Status.HANDLED, handled_by="src/hip/reduce.hip:15")
                    if k.qualified_name == "reduce_sum_kernel" else k for k in run.result.kernels)
    handled = dataclasses.replace(run, result=dataclasses.replace(run.result, kernels=kernels))
    plain = text(run, "scan", 160)
    tagged = text(handled, "scan", 160)
    head = tagged[tagged.index("Kernels ("):].splitlines()[1].split()
    assert "status" not in plain[plain.index("Kernels ("):].splitlines()[1].split()
    assert head == ["kernel", "mi300x", "mi355x", "launches", "status", "top", "reason"]
    row = next(line for line in tagged.splitlines() if line.startswith("reduce_sum_kernel "))
    assert row.split()[:5] == ["reduce_sum_kernel", "fix", "fix", "1", "handled"]
    narrow = text(handled, "scan", 80)  # the status goes before the verdicts do
    assert narrow[narrow.index("Kernels ("):].splitlines()[1].split()[:3] == ["kernel", "mi300x", "mi355x"]
