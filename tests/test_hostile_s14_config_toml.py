"""A repository's porter.toml / pyproject.toml is parsed under a time budget (porter.settings.parse_toml through
porter.budget): tomllib is quadratic in a key's dotted parts, so `a.a.a… = 1` in the 1 MiB a configuration may
hold kept porter's own process parsing for hours, before any stage (and its budget) began. The user's own
`--config FILE` is trusted and parsed in-process.
"""
from __future__ import annotations

import time

from helpers import make_repo, porter_here
from porter import settings

DOTTED = "a" + ".a" * 200_000 + " = 1\n"  # 400 KB; minutes of tomllib at least


def test_a_quadratic_porter_toml_is_refused_within_its_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "CONFIG_BUDGET_SECONDS", 1.0, raising=False)
    root = make_repo(tmp_path / "r", {"porter.toml": DOTTED, "a.cu": "int x;\n"})
    started = time.monotonic()
    p = porter_here("scan", str(root), "--no-cache", "-q", "--include", "*.cu", timeout=120)
    assert time.monotonic() - started < 60
    assert p.returncode == 2
    assert p.stderr.strip() == f"error: {root}/porter.toml: reading it as TOML took longer than 1 s; not a configuration"


def test_a_quadratic_pyproject_is_not_taken_for_a_configuration(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "CONFIG_BUDGET_SECONDS", 1.0, raising=False)
    root = make_repo(tmp_path / "r", {"pyproject.toml": "[tool.porter]\n" + DOTTED, "a.cu": "int x;\n"})
    started = time.monotonic()
    p = porter_here("scan", str(root), "--no-cache", "-q", "--include", "*.cu", timeout=120)
    assert time.monotonic() - started < 60
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("0 findings (none); 1 file scanned")


def test_a_real_repository_configuration_still_applies(tmp_path):
    root = make_repo(tmp_path / "r", {"porter.toml": 'disable = ["KRN001"]\n',
                                      "a.cu": "__global__ void k(){}\n"})
    p = porter_here("scan", str(root), "--no-cache", "-q")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("0 findings (none); 2 files scanned")
    assert p.stderr == "note: repository porter.toml disables 1 rule(s): KRN001\n"
