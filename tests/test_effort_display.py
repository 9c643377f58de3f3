"""The headline effort as a buyer reads it: a job of a few hours never reads as possibly zero days (a new user's
2.7–4.2 hour job read "0–1 engineer-days"), and every format shows the JSON's numbers."""
from __future__ import annotations

import json
import re

from helpers import REPO, porter_here
from porter.estimate.effort_model import Hours
from porter.model.assessment import Range
from porter.estimate.wording import days_range, days_span, effort_text

DUAL = REPO / "fixtures" / "repos" / "dual-app"


def test_a_few_hours_read_in_hours_with_the_days_as_a_ceiling():
    # 2.7–4.2 h at 6 h a day is 0.45–0.7 days: the model rounds the low end down to 0 and the high end up to 1
    days, hours = Range(0, 0.5, 1), Hours(2.7, 3.3, 4.2)
    assert effort_text(days, hours) == "2.7–4.2 hours (likely 3.3), at most 1 engineer-day"
    assert days_range(days) == "at most 1 engineer-day (likely 0.5)"
    assert days_span(days) == "at most 1"
    assert effort_text(Range(0, 0.5, 1.5), Hours(2.7, 3.6, 8.5)) == "2.7–8.5 hours (likely 3.6), at most 1.5 engineer-days"


def test_a_low_end_above_zero_days_and_no_work_keep_their_days():
    assert effort_text(Range(0.5, 0.5, 1), Hours(3.4, 4.1, 5)) == "0.5–1 engineer-days (likely 0.5)"
    assert effort_text(Range(2, 2.5, 3.5), Hours(14.9, 16.8, 19.1)) == "2–3.5 engineer-days (likely 2.5)"
    assert effort_text(Range(0, 0, 0), Hours(0, 0, 0)) == "0 engineer-days"
    assert days_span(Range(0, 0, 0)) == "0"


def test_every_format_shows_the_jsons_hours_for_a_job_under_half_a_day():
    doc = json.loads(porter_here("assess", str(DUAL), "--format", "json", "--no-cache").stdout)
    effort = doc["assessment"]["effort"]
    assert (effort["low"], effort["likely"], effort["high"]) == (0.0, 0.5, 0.5)
    assert effort["hours"] == {"low": 1.52, "likely": 2.08, "high": 2.85}
    want = "1.5–2.8 hours (likely 2.1), at most 0.5 engineer-days"
    # the one-line headline (JSON and SARIF) writes the same effort, not "0–0.5 engineer-days"
    assert doc["assessment"]["headline"] == f"Mechanical (hipify plus review): {want}, for AMD Instinct MI355X."
    sarif = json.loads(porter_here("assess", str(DUAL), "--format", "sarif", "--no-cache").stdout)
    assert sarif["runs"][0]["properties"]["porter"]["headline"] == doc["assessment"]["headline"]
    md = porter_here("assess", str(DUAL), "--format", "markdown", "--no-cache").stdout
    assert f"**Effort: {want}**  " in md.splitlines()
    assert "| **Total** | | | | **1.5–2.1–2.8** | 6 h per engineer-day → at most 0.5 engineer-days (likely 0.5) |" in md
    text = porter_here("assess", str(DUAL), "--no-cache", env={"COLUMNS": "100"}).stdout
    assert [ln.strip("│ ") for ln in text.splitlines() if "Effort:" in ln] == [f"Effort: {want}"]
    html = porter_here("assess", str(DUAL), "--format", "html", "--no-cache").stdout
    assert re.findall(r'<div class="big">.*?</div>', html) == [
        '<div class="big">1.5–2.8 <span class="unit">hours, at most 0.5 engineer-days</span></div>']
