"""Session 27: six ports added to bench/calibration/ports.yaml as held-out and never studied (docs/effort-model.md,
"Session 27"). They were committed before porter ran on their pre-port trees; these tests keep them held out and
keep the recorded run they were priced in tied to the entries it priced."""
from __future__ import annotations

from pathlib import Path

import yaml

from porter.estimate.calibration import load_history, reference_days

REPO = Path(__file__).resolve().parent.parent
NEW = ("cuda_memtest", "eckit", "morpheus", "tioga", "hashcat", "bevfusion")


def test_the_session_27_ports_are_held_out_unstudied_and_priced_by_the_reference_rule():
    h = load_history(REPO / "bench" / "calibration" / "ports.yaml")
    ports = {p.id: p for p in h.ports}
    # session 28 studied them (docs/effort-model.md, "Session 28"): development data now, as session 8's held-out were
    assert all(ports[i].set == "fit" and ports[i].data.get("studied", "").startswith("session 28") for i in NEW)
    # lines at 100 a day, capped at calendar days (at least 1) x people: three one-day ports cap at 1,
    # morpheus at 4 x 1, hashcat at 7 x 2; bevfusion's 68 lines are under its 316-day cap
    assert [round(reference_days(ports[i], h.lines_per_day), 2) for i in NEW] == [1.0, 1.0, 4.0, 1.0, 14.0, 0.68]
    held_out_projects = {p.project for p in h.ports if p.set == "held-out"}
    assert not held_out_projects & {ports[i].project for i in NEW}


def test_the_session_27_record_prices_the_entries_of_ports_yaml():
    rec = yaml.safe_load((REPO / "bench" / "calibration" / "results-s27.yaml").read_text(encoding="utf-8"))
    h = load_history(REPO / "bench" / "calibration" / "ports.yaml")
    lines = {p.id: p.lines_changed for p in h.ports}
    rows = {r["id"]: r for r in rec["ports"]}
    # the session-27 run priced the 36 ports of its day; ports added later (session 28's four) are not in it
    assert set(NEW) <= set(rows) and len(rows) == 36 and set(rows) <= set(lines)
    assert all(rows[i]["lines"] == lines[i] and rows[i]["set"] == "held-out" for i in NEW)
    assert {s["label"] for s in rec["summaries"]} >= {"held-out set", "all ports, leave-one-project-out"}
