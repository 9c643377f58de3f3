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
