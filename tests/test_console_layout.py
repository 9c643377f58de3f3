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
    """Equal to the committed snapshot. A missing or different one fails, with what was rendered written beside it
    as `.new` to read and move over (as ruff's snapshot tool does); PORTER_UPDATE_SNAPSHOTS=1 accepts it in place."""
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("PORTER_UPDATE_SNAPSHOTS") == "1":
        path.write_text(got, encoding="utf-8")
    if path.exists() and got == path.read_text(encoding="utf-8"):
        return
    new = path.with_name(path.name + ".new")
    new.write_text(got, encoding="utf-8")
    pytest.fail(f"{path} {'differs' if path.exists() else 'is missing'}: the rendering is in {new} "
                "(read it, then move it over, or run with PORTER_UPDATE_SNAPSHOTS=1)")


def test_a_missing_snapshot_fails_and_is_written_as_new(monkeypatch, tmp_path):
    monkeypatch.setattr(sys.modules[__name__], "SNAPSHOTS", tmp_path)
    monkeypatch.delenv("PORTER_UPDATE_SNAPSHOTS", raising=False)
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        check_snapshot("absent", "text\n")
    assert [p.name for p in tmp_path.iterdir()] == ["absent.txt.new"]
    (tmp_path / "absent.txt").write_text("other\n")
    with pytest.raises(pytest.fail.Exception, match="differs"):
        check_snapshot("absent", "text\n")
    (tmp_path / "absent.txt").write_text("text\n")
    check_snapshot("absent", "text\n")


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
    # every kernel's location under its name, whole or broken only after a '/' (never inside a file name)
    lines = got.splitlines()
    for k in run.result.kernels:
        at = next(n for n, line in enumerate(lines) if line.split(" ")[0] == k.qualified_name)
        parts = []
        for line in lines[at + 1:]:
            parts.append(line.split(" ")[0])
            if not parts[-1].endswith("/"):
                break
        assert "".join(parts) == f"{k.path}:{k.line}", parts
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
    # the headline effort once; the optional-work line after it (cuda-app's -lineinfo under an OFF option) costs
    # its own part apart, never in the headline
    assert box.count("Effort:") == 1
    assert box.count("engineer-days") == 1 + box.count("Optional (not in the headline")
    assert "Effort: 2–3.5 engineer-days (likely 3)" in box  # __reduce_add_sync in HIP from ROCm 7.0; the name map
    # (the optional-work line's own "finding(s)" wording is built in porter/estimate/assess.py, which the calibration
    # record fingerprints: rewording it waits for a calibration re-run)
    rest = "\n".join(line for line in got.splitlines() if "kept CUDA-only or under optional" not in line
                     and not line.lstrip("│ ").startswith(("Optional (not in the headline", "at most", "engineer-days")))
    assert not re.search(r"\b(file|kernel|finding)\(s\)| 1 files", rest)


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


def _table_text(table, width: int) -> str:
    import io

    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, legacy_windows=False).print(table)
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines())


def test_at_80_columns_no_number_is_cut_and_paths_break_between_directories():
    # Five targets and a two-digit day count at 80 columns: rich cropped 45.2 to "45." when the columns' minimum
    # widths did not fit; paths folded mid-name ("elementwise.\ncu:16").
    from rich.text import Text

    from porter.render.layout import Col, fit_table

    tids = ["mi300x", "mi325x", "mi350x", "mi355x", "mi455x"]
    cols = [Col("kernel", 0, 24, wrap="fold"), *(Col(t, 0, wrap="none") for t in tids), Col("top reason", 1, 18),
            Col("days", 0, justify="right", wrap="none")]
    name = Text("attention_fwd_kernel_with_a_long_name\nsrc/csrc/flash_attn/kernels/flash_fwd_kernel.h:1042")
    rows = [[name, *(["rewrite"] * 5), "reason", "45.2"], [Text("tiny\nsrc/a.cu:1"), *(["ok"] * 5), "", "0.1"]]
    got = _table_text(fit_table("Kernels", cols, rows, 80, footer=["all kernels", *[""] * 6, "45.3"]), 80)
    assert got.splitlines() == [
        "Kernels",
        "kernel                    mi300x    mi325x    mi350x    mi355x    mi455x    days",
        "─" * 80,
        "attention_fwd_kernel_wi   rewrite   rewrite   rewrite   rewrite   rewrite   45.2",
        "th_a_long_name",  # one name wider than the column: folded, as nothing else can show it
        "src/csrc/flash_attn/",
        "kernels/",
        "flash_fwd_kernel.h:1042",
        "tiny                      ok        ok        ok        ok        ok         0.1",
        "src/a.cu:1",
        "",
        "all kernels                                                                 45.3",
        "(wider terminal shows: top reason)",
    ]


def test_a_cut_kernel_table_shows_the_kernels_needing_work_first(tmp_path):
    """Twelve kernels, the last one the only one needing work: cut to ten, it comes first and the rest keep file
    order (session 25's new user saw the first ten of 77 in file order, all ok, while 17 needed a fix)."""
    from helpers import porter_here

    lines = ["#include <cuda_runtime.h>"]
    lines += [f"__global__ void ok{i:02d}(float* x) {{ x[threadIdx.x] *= 2.0f; }}" for i in range(11)]
    lines.append("__global__ void bad(float* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 1); }")
    lines.append("void run(float* x) { " + " ".join(f"ok{i:02d}<<<1, 64>>>(x);" for i in range(11))
                 + " bad<<<1, 64>>>(x); }")
    (tmp_path / "k.cu").write_text("\n".join(lines) + "\n")
    out = porter_here("scan", str(tmp_path), "--no-cache", "--target", "mi300x",
                      env={"COLUMNS": "160", "NO_COLOR": "1"}).stdout
    table = out[out.index("Kernels ("):].splitlines()
    assert table[0] == "Kernels (12; the 10 needing most work, -v for all)"
    names = [line.split()[0] for line in table[3:] if line and not line.startswith("k.cu:")][:10]
    assert names == ["bad"] + [f"ok{i:02d}" for i in range(9)]
    everything = porter_here("scan", str(tmp_path), "--no-cache", "--target", "mi300x", "-v",
                             env={"COLUMNS": "160", "NO_COLOR": "1"}).stdout
    full = everything[everything.index("Kernels ("):].splitlines()
    assert full[0] == "Kernels (12)"  # all of them: file order
    assert [line.split()[0] for line in full[3:] if line.startswith(("ok", "bad"))][-2:] == ["ok10", "bad"]
