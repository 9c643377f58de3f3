"""Issue 26, session 30: a warm re-scan's fixed costs. A file whose result the cache holds is not given its scanning
readings (what nvcc compiles, other files' spelling macros) only to be looked up. Every answer is the one the old
code gave; the re-scans are compared byte for byte with a scan without the cache."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import porter_here

APP = Path(__file__).resolve().parent.parent / "fixtures/repos/cuda-app"


def _scan_text(root: Path, *args: str) -> str:
    p = porter_here("scan", str(root), "--format", "json", "--jobs", "1", *args)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """cuda-app as a plain folder (no git: every file's cache key is named by a hash of its bytes, as read)."""
    root = tmp_path / "app"
    shutil.copytree(APP, root)
    return root


@pytest.fixture
def readings(monkeypatch) -> list[str]:
    """The files porter.pipeline read as compiled in this process (a hit is looked up in the scan's process; a miss
    is scanned in a forked worker, whose calls are not seen here)."""
    import porter.source.preprocessor as preprocessor

    seen: list[str] = []
    real = preprocessor.as_compiled

    def as_compiled(data: bytes) -> bytes:
        caller = sys._getframe(1)
        if caller.f_globals.get("__name__") == "porter.pipeline":
            seen.append(caller.f_code.co_name)
        return real(data)

    monkeypatch.setattr(preprocessor, "as_compiled", as_compiled)
    return seen


def test_a_warm_rescan_makes_no_reading_of_a_cached_file(tree: Path, tmp_path: Path, readings: list[str]):
    cache = tmp_path / "cache"
    cold = _scan_text(tree, "--no-cache")
    assert json.loads(cold)["summary"]["findings"] == 153
    assert _scan_text(tree, "--cache-dir", str(cache)) == cold
    filled = len(readings)
    # the run cache would answer an unchanged tree before any file is looked at: a flag it does not keep runs
    # (--select is part of its key) makes it miss while every file's entry stays the same
    assert _scan_text(tree, "--cache-dir", str(cache), "--select", "") == cold
    assert readings[filled:] == []
    # one file edited: only that one is scanned again (in a worker), the other nine files' results come back unread
    with open(tree / "src/kernels/reduce.cu", "a") as fh:
        fh.write("// one more line\n")
    edited = _scan_text(tree, "--cache-dir", str(cache))
    assert readings[filled:] == []
    assert edited == _scan_text(tree, "--no-cache")
    assert json.loads(edited)["files"]["lines"] == json.loads(cold)["files"]["lines"] + 1

