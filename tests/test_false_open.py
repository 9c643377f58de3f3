"""bench/false_open.py: which sets it scores by default, and how it tallies judged rows per rule and per set."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _module():
    sys.path.insert(0, str(REPO / "bench"))
    spec = importlib.util.spec_from_file_location("false_open", REPO / "bench" / "false_open.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(rule: str, real: bool, is_open: bool) -> dict:
    return {"set": "heldout9", "project": "p/q", "dual": False, "rule": rule, "path": "a.cu", "line": 1,
            "real": real, "open": is_open, "reason": "r", "now": "open/medium" if is_open else None}


def test_the_default_is_the_development_sets_only():
    names = _module().dev_sets()
    # heldout3-49 are development data (session 31); a set built later is held out and never read by default
    assert names[0] == "heldout3" and names[-1] == "heldout49"
    assert all(3 <= int(n[7:]) <= 49 for n in names) and "heldout47" in names


def test_a_false_family_is_counted_by_the_projects_it_occurs_in():
    rows = [_row("DEV011", False, True), dict(_row("DEV011", False, True), project="r/s"),
            dict(_row("DEV011", False, True), line=2), _row("DEV011", True, True), _row("API002", False, False)]
    got = _module().false_projects({"heldout9": {"rows": rows, "projects": {}}})
    assert {k: sorted(v) for k, v in got.items()} == {"DEV011": [("heldout9", "p/q"), ("heldout9", "r/s")]}


def test_rules_and_sets_are_tallied_over_open_judged_rows():
    fo = _module()
    data = {"heldout9": {"projects": {"p/q": {"open": 7, "lines": 100, "dual": False}},
                         "rows": [_row("DEV011", False, True), _row("DEV011", True, True), _row("DEV011", True, False),
                                  _row("LIB007", False, False)]}}
    table = fo.per_rule(data)
    assert dict(table["DEV011"]) == {"false_open": 1, "real_open": 1, "real": 2}
    assert dict(table["LIB007"]) == {"false_open": 0, "real_open": 0, "real": 0}
    assert fo.set_line("heldout9", data["heldout9"]) == (
        "heldout9: precision 50.0% (1/2) | real kept 50.0% (1/2) | 7 open findings in 1 trees")


def test_kernel_agreement_is_pooled_per_target():
    fo = _module()
    data = {"projects": {"p/q": {"open": 1, "lines": 10, "dual": False,
                                 "kernels": {"mi300x": [3, 4], "mi355x": [3, 4], "mi455x": [4, 4]}},
                         "r/s": {"open": 1, "lines": 10, "dual": False,
                                 "kernels": {"mi300x": [1, 1], "mi355x": [0, 1], "mi455x": [1, 1]}}}, "rows": []}
    assert fo.kernel_line("heldout9", data) == (
        "heldout9: kernels mi300x 80.0% (4/5), mi355x 60.0% (3/5), mi455x 100.0% (5/5)")
