"""Red team, session 11: a repository's rules share one compile budget, not one each.

A repository's porter.toml may name a directory of rules (up to 10,000 files, porter.contain's listing bound). Each
rule's tree-sitter queries were compiled within one task's budget (30 s by default) of their own, so N rules whose
queries each take just under it held a scan for N x 30 s: 100 rule files are 50 minutes before the first file is
read. All the queries of rules from outside porter's data now compile within one budget together.
"""
from __future__ import annotations

import math
import resource
import time

import pytest
from helpers import write_files
from test_hostile_stages import KERNEL, _rule_file, _slow_query

from porter.budget import Budget
from porter.pipeline import scan
from porter.rules import RuleError, load_rules
from porter.settings import Settings

# The wall clock all the repository's rules share. Each rule below compiles in a small part of it, so that one rule
# alone stays within it even on a machine loaded fifteen-fold (a depth-1 query: ~0.05 CPU-s, 0.7 s of wall clock at
# load 15 on two cores), and there are enough of them that all together need three budgets of CPU.
BUDGET = 2.0
DEPTH = 1


def _compile_cpu_seconds(depth: int) -> float:
    """CPU seconds this process takes to compile one _slow_query(depth). Its capture name is one no rule uses:
    compiled queries are cached per text, and a worker forked from here would inherit this one."""
    from porter.source.parse_queries import query

    started = time.process_time()
    query("cuda", _slow_query(depth).replace("@x", "@calibrate"))
    return time.process_time() - started


def _slow_rules(directory, count: int, depth: int = DEPTH):
    return [_rule_file(directory, f"USR{i:03d}", [_slow_query(depth).replace("@x", f"@x{i}")]) for i in range(count)]


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_many_repository_rules_each_within_the_budget_are_stopped_by_one_budget_together(tmp_path):
    # As many rules as compiling them all would take three budgets of CPU, measured on this machine (not wall
    # clock, which a loaded machine stretches).
    count = math.ceil(3 * BUDGET / max(_compile_cpu_seconds(DEPTH), 0.01))
    rules = tmp_path / "t" / "rules"
    _slow_rules(rules, count)
    write_files(tmp_path / "t", {"a.cu": KERNEL})
    before = _children_cpu_seconds()
    with pytest.raises(RuleError) as e:
        scan(tmp_path / "t", Settings(extra_rules=(rules,), file_seconds=BUDGET))
    compiled = _children_cpu_seconds() - before
    # Stopped by the shared budget: its compiling workers (one at a time) ran for at most about BUDGET of wall
    # clock, so used at most about BUDGET of CPU (less under load). Every rule compiled before the error (one budget
    # each, or the shared one checked only at the end) is at least 3 x BUDGET.
    assert compiled < 2 * BUDGET, (compiled, count)
    assert e.value.field == "patterns.0.query"
    assert e.value.problem.endswith("the tree-sitter queries of the rules from outside porter's data took longer "
                                    f"than {BUDGET:g} s in all to compile")
    # a rule past the first one, stopped by what the rules before it spent
    assert e.value.problem.startswith("rule USR") and not e.value.problem.startswith("rule USR000:"), e.value.problem


def test_one_repository_rule_within_the_budget_still_loads(tmp_path):
    # depth 2: ~0.1 CPU-s, within the 10 s budget on a machine loaded fifty-fold
    [path] = _slow_rules(tmp_path / "r", 1, depth=2)
    ruleset = load_rules(extra=[path], budget=Budget(10.0))
    assert ruleset.get("USR000") is not None
