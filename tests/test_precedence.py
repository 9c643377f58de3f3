"""Refine's rule-precedence table is data (rules/kb/precedence.yaml, shipped in the package): the loader gives the
table exactly, names every rule it mentions from the rule set, and refuses a malformed file with its field."""
from __future__ import annotations

import pytest

from porter.match.refine import PRECEDENCE_FILE, PrecedenceError, specific
from porter.rules import load_rules


def test_the_shipped_table_is_loaded_exactly_in_its_order():
    assert specific() == {
        "DEV001": ("DEV006", "DEV007", "DEV012", "PYT010"),
        "API004": ("DEV002", "DEV003", "DEV011"),
        "API001": ("DEV002", "DEV003", "DEV015"),
        "LIB001": ("API006",),
        "LIB002": ("API006",),
        "LIB003": ("API006",),
        "DEV005": ("DEV006",),
        "DEV013": ("DEV014",),
        "PYT013": ("DEV014",),
        "DEV009": ("DEV016",),
        "KRN001": (),
    }
    assert PRECEDENCE_FILE.parts[-2:] == ("kb", "precedence.yaml")


def test_every_rule_the_table_names_is_a_rule():
    ids = {r.id for r in load_rules().rules}
    named = set(specific()) | {r for rules in specific().values() for r in rules}
    assert named - ids == set()


@pytest.mark.parametrize("text, field", [
    ("specific: []\n", "specific"),
    ("other: {}\n", "specific"),
    ("specific:\n  dev001: [DEV006]\n", "specific.dev001"),
    ("specific:\n  DEV001: DEV006\n", "specific.DEV001"),
    ("specific:\n  DEV001: [DEV006, 7]\n", "specific.DEV001"),
    ("specific:\n  DEV001: [DEV001]\n", "specific.DEV001"),
])
def test_a_malformed_table_is_refused_with_its_field(tmp_path, text, field):
    path = tmp_path / "precedence.yaml"
    path.write_text(text)
    with pytest.raises(PrecedenceError) as e:
        specific(path)
    assert (e.value.path, e.value.field) == (str(path), field)
