"""The typed seams stay typed: `mypy --strict` (the [tool.mypy] configuration in pyproject.toml) passes on the
modules it names, and the check can fail.

The strict set is pyproject's `[tool.mypy] files`; every module in it has the strict flags through
`[[tool.mypy.overrides]]`. Other porter modules are read for their annotations but not reported on
(`follow_imports = "silent"`), so a module joins the strict set by being added to both lists.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

# Whether mypy is installed, asked without importing it: the tests run mypy in a process of its own, and imported
# here it sat in every xdist worker (~5.5 MB), copied into the page tables of every scan worker a later test forks.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="needs mypy (the test extras: pip install -e '.[test]')")

CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def mypy(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """mypy as CI runs it, with its cache beside the checkout's (a warm run takes seconds, a cold one under a minute)."""
    env = {**os.environ, "MYPY_FORCE_COLOR": "0", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_strict_set_passes():
    done = mypy()
    assert done.returncode == 0, f"mypy --strict found errors:\n{done.stdout}{done.stderr}"
    assert done.stdout == ""


def test_strict_set_covers_the_seams():
    """The modules the issue names are in the strict set, and each one listed has the strict flags."""
    files = set(CONFIG["files"])
    assert {"porter/model", "porter/settings.py", "porter/pipeline.py"} <= files
    # the assessment is built typed (porter.model.assessment) and every renderer reads it typed
    assert {"porter/render", "porter/estimate/assess.py", "porter/history/render_html.py"} <= files
    strict = next(o for o in CONFIG["overrides"] if o.get("disallow_untyped_defs"))
    modules = set(strict["module"])
    for f in files:
        name = f.removesuffix(".py").replace("/", ".")
        assert name in modules or f"{name}.*" in modules, f"{f} is checked but has no strict override"
    for flag in ("disallow_untyped_defs", "disallow_incomplete_defs", "disallow_any_generics", "warn_return_any",
                 "disallow_untyped_calls", "no_implicit_reexport", "strict_equality", "disallow_untyped_decorators"):
        assert strict.get(flag) is True, flag


def test_the_configuration_fails_an_untyped_module(tmp_path):
    """The same configuration on a checkout whose porter/model holds an untyped function and a bare generic: mypy
    exits 1 naming both, so a green run above means the strict flags were applied (a plain mypy passes this file)."""
    (tmp_path / "pyproject.toml").write_bytes((REPO / "pyproject.toml").read_bytes())
    for f in CONFIG["files"]:  # every module of the strict set, empty, so the configuration's `files` all exist
        path = tmp_path / f if f.endswith(".py") else tmp_path / f / "__init__.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (tmp_path / "porter" / "__init__.py").write_text("")
    model = tmp_path / "porter" / "model"
    (model / "loose.py").write_text("def untyped(x):\n    return x\n\n\ndef bare() -> dict:\n    return {}\n")
    done = mypy(cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    # (a note may say the stubs leave an override pattern unused, as porter.render.* here)
    assert [line for line in done.stdout.splitlines() if ": error: " in line] == [
        "porter/model/loose.py:1: error: Function is missing a type annotation  [no-untyped-def]",
        'porter/model/loose.py:5: error: Missing type arguments for generic type "dict"  [type-arg]',
    ]
    plain = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--config-file=", str(model / "loose.py")],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stdout + plain.stderr
