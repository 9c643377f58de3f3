"""Shared test helpers: the repository's paths, and the whole rule set loaded once."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


@pytest.fixture(scope="session")
def ruleset():
    from porter.rules import load_rules

    return load_rules()
