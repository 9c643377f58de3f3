"""Session 28: four ports added to bench/calibration/ports.yaml as held-out and never studied (docs/effort-model.md,
"Session 28"), committed before porter ran on their pre-port trees. These tests keep them held out, unstudied, of
projects no fit port shares, and priced by the reference rule."""
from __future__ import annotations

from pathlib import Path

from porter.estimate.calibration import load_history, reference_days

REPO = Path(__file__).resolve().parent.parent
NEW = ("plssvm", "amgcl", "neighbor", "hot-step-cpp")


def test_the_session_28_ports_are_held_out_unstudied_and_priced_by_the_reference_rule():
    h = load_history(REPO / "bench" / "calibration" / "ports.yaml")
    ports = {p.id: p for p in h.ports}
    assert all(ports[i].set == "held-out" and not ports[i].data.get("studied") for i in NEW)
    # lines at 100 a day, capped at calendar days (at least 1) x people: amgcl's 718 lines in a 2-day pull request
    # by one author cap at 2; the others are under their caps
    assert [round(reference_days(ports[i], h.lines_per_day), 2) for i in NEW] == [3.2, 2.0, 9.95, 0.4]
    assert not {p.project for p in h.ports if p.set == "fit"} & {ports[i].project for i in NEW}
    assert len(h.ports) == 40
