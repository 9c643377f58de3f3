"""Red team, session 11: a repository's rules share one compile budget, not one each.

A repository's porter.toml may name a directory of rules (up to 10,000 files, porter.contain's listing bound). Each
rule's tree-sitter queries were compiled within one task's budget (30 s by default) of their own, so N rules whose
queries each take just under it held a scan for N x 30 s: 100 rule files are 50 minutes before the first file is
read. All the queries of rules from outside porter's data now compile within one budget together.
"""
from __future__ import annotations

import time

import pytest
from helpers import write_files
from test_hostile_stages import KERNEL, _rule_file, _slow_query

from porter.budget import Budget
from porter.pipeline import scan
from porter.rules import RuleError, load_rules
from porter.settings import Settings

RULES = 8  # each compiles in ~0.9 s (depth 4): alone within the 2 s budget, together four times past it


def _slow_rules(directory):
    return [_rule_file(directory, f"USR{i:03d}", [_slow_query(4).replace("@x", f"@x{i}")]) for i in range(RULES)]


def test_many_repository_rules_each_within_the_budget_are_stopped_by_one_budget_together(tmp_path):
    rules = tmp_path / "t" / "rules"
    _slow_rules(rules)
    write_files(tmp_path / "t", {"a.cu": KERNEL})
    t = time.monotonic()
    with pytest.raises(RuleError) as e:
        scan(tmp_path / "t", Settings(extra_rules=(rules,), file_seconds=2.0))
    assert time.monotonic() - t < 5
    assert e.value.field == "patterns.0.query"
    assert e.value.problem.endswith("the tree-sitter queries of the rules from outside porter's data took longer "
                                    "than 2 s in all to compile")


def test_one_repository_rule_within_the_budget_still_loads(tmp_path):
    [path] = _slow_rules(tmp_path / "r")[:1]
    ruleset = load_rules(extra=[path], budget=Budget(10.0))
    assert ruleset.get("USR000") is not None
