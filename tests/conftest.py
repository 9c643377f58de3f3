"""Shared test helpers: the repository's paths, and the whole rule set loaded once.

How a test runs the CLI is chosen in one place, tests/helpers.py: `porter_here` (in this process, through
porter.cli.main) unless the test needs a process of its own, then `run_porter`."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


@pytest.fixture(scope="session")
def ruleset():
    from porter.rules import load_rules

    return load_rules()


def _rule_queries(value, languages, out: set) -> None:
    if isinstance(value, dict):
        if isinstance(value.get("query"), str):
            out.update((lang, value["query"]) for lang in languages)
        for v in value.values():
            _rule_queries(v, languages, out)
    elif isinstance(value, list):
        for v in value:
            _rule_queries(v, languages, out)


@pytest.fixture(scope="session", autouse=True)
def _rule_queries_compiled(ruleset):
    """The built-in rules' tree-sitter queries compiled once in each test process. porter compiles a rule's query
    in the forked parser worker that first needs it (porter.source.parse_queries.query caches it per process), and
    a worker ends with its scan: every in-process scan of the session compiled the same queries again (~50 ms of
    CPU per scan, over a fifth of a small scan's). Compiled here, before any scan forks, every worker inherits them.
    What a scan finds does not change: the cache holds the same compiled query either way."""
    from porter.source.parse_queries import query

    wanted: set = set()
    for rule in ruleset.rules:
        _rule_queries(list(rule.patterns), rule.languages, wanted)
    for lang, source in sorted(wanted):
        try:
            query(lang, source)
        except Exception:  # noqa: BLE001 - a query that does not compile for a language fails where porter runs it
            pass
