"""The assessment's typed parts (porter.model.assessment) serialise to exactly the JSON they were built from: same
keys, same order, same values (an int stays an int), so a report's JSON is byte-identical to the plain rows' JSON."""
from __future__ import annotations

import json

import pytest

from helpers import REPO
from porter.model.assessment import (Breakdowns, HandledCounts, OptionalWork, Range, Recommendation, TargetLine)

NAMES = ("cuda-app", "dual-app", "llm-serving", "no-cuda", "torch-ext")


def _doc(name: str) -> dict:
    # json.load keeps the key order of the committed report (reports/ is checked fresh by test_reports_fresh)
    return json.loads((REPO / "reports" / name / "assessment.json").read_text(encoding="utf-8"))["assessment"]


def _same(built: object, raw: object) -> None:
    assert json.dumps(built, ensure_ascii=False) == json.dumps(raw, ensure_ascii=False)


@pytest.mark.parametrize("name", NAMES)
def test_breakdowns_and_recommendations_round_trip(name):
    a = _doc(name)
    _same(Breakdowns.of(a["breakdowns"]).to_dict(), a["breakdowns"])
    _same([Recommendation.of(r).to_dict() for r in a["recommendations"]], a["recommendations"])


def test_the_fixtures_exercise_every_part():
    """The round trip above is only as good as the rows it sees: kernels on two targets, plans, optional and handled
    work all occur in the committed reports."""
    docs = [_doc(n) for n in NAMES]
    assert any(len(k["targets"]) == 2 for d in docs for k in d["breakdowns"]["by_kernel"])
    assert any(r["plan"] for d in docs for r in d["recommendations"])
    assert any(d["optional"] for d in docs) and any(d["handled"] for d in docs)


def test_optional_handled_and_target_lines_keep_their_json():
    dual = _doc("dual-app")
    opt, handled = dual["optional"], dual["handled"]
    built = OptionalWork(opt["findings"], opt["kernels"], opt["files"], Range.of(opt["hours"]), Range.of(opt["days"]),
                         opt["mean_hours"], opt["text"], tuple(opt["items"]))
    _same(built.to_dict(), opt)
    _same(HandledCounts(**handled).to_dict(), handled)
    for t in dual["targets"]:
        line = TargetLine(t["id"], t["name"], t["gfx"], t["pre_release"], t["verdict"], Range.of(t["effort"]),
                          t["effort"]["unit"], tuple(t["deciding"]))
        _same(line.to_dict(), t)


def test_a_range_keeps_ints_and_floats_as_given():
    assert json.dumps(Range.of({"low": 0, "likely": 0.5, "high": 2}).to_dict()) == '{"low": 0, "likely": 0.5, "high": 2}'


def test_kernel_rows_name_the_deciding_target():
    k = next(k for d in map(_doc, NAMES) for k in d["breakdowns"]["by_kernel"] if len(k["targets"]) == 2)
    row = Breakdowns.of({**_doc("cuda-app")["breakdowns"], "by_kernel": [k]}).by_kernel[0]
    assert row.deciding == row.targets[k["worst_target"]]
    assert row.deciding.verdict == k["targets"][k["worst_target"]]["verdict"]
    assert row.label == k["qualified_name"] and row.share.likely == k["share"]["likely"]
