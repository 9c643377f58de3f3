"""Render a diff as SARIF 2.1.0 whose results carry `baselineState`: new, unchanged (still there) or absent (fixed).

The results are porter.render.sarif's, for the new findings, then the unchanged ones, then the fixed ones as they
were at the base; only the state is added, so both SARIF forms share one rule table and one location encoding.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from porter.diff import Diff
from porter.estimate import Assessment
from porter.model import ScanResult, Severity
from porter.model.totals import carried, merge_counted, totals
from porter.render.sarif import to_sarif


def to_sarif_diff(result: ScanResult, diff: Diff, assessment: Assessment | None = None, prefix: str = "",
                  min_severity: Severity | None = None) -> dict[str, Any]:
    from porter.rules import load_rules

    rules = result.rules or load_rules()
    carry = tuple((state, carried("sarif", fs, rules, min_severity))
                  for state, fs in (("new", diff.new), ("unchanged", diff.unchanged), ("absent", diff.fixed)))
    groups = tuple((state, sorted(c.findings)) for state, c in carry)
    every = tuple(f for _, fs in groups for f in fs)
    # the rename notes left out of the new and unchanged results, counted as porter.render.sarif counts them (the
    # absent ones are no longer there to count)
    apart = merge_counted(*(c.counted_apart for state, c in carry if state != "absent"))
    doc = to_sarif(dataclasses.replace(result, findings=every), assessment, rules, prefix=prefix, filtered=True,
                   counted_apart=apart)
    # the totals are the run's (with a diff: of the new findings, what JSON's `findings` holds); what each state left
    # out, per state, so new results + counted_not_listed["new"] = the totals' findings
    props = doc["runs"][0]["properties"]["porter"]
    props["totals"] = totals(result).to_dict()
    props["counted_not_listed"] = {state: merge_counted(c.counted_apart) for state, c in carry}
    states = [state for state, fs in groups for _ in fs]
    for res, state in zip(doc["runs"][0]["results"], states, strict=True):
        res["baselineState"] = state
    doc["runs"][0].setdefault("properties", {}).setdefault("porter", {})["diff"] = diff.counts()
    return doc


def render(result: ScanResult, diff: Diff, assessment: Assessment | None = None, prefix: str = "",
           min_severity: Severity | None = None) -> str:
    return json.dumps(to_sarif_diff(result, diff, assessment, prefix, min_severity), indent=2,
                      ensure_ascii=False) + "\n"
