"""porter.classcode: a dataclass's generated methods compiled once and kept; what runs is what dataclasses writes."""
from __future__ import annotations

import dataclasses
import importlib.util
import marshal

import pytest

from porter import classcode


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """classcode's state for one test: no kept code, its file under tmp_path, dataclasses calling its exec."""
    path = tmp_path / "dataclass-code.test.marshal"
    monkeypatch.setattr(classcode, "_KEPT", {})
    monkeypatch.setattr(classcode, "_USED", {})
    monkeypatch.setattr(classcode, "_NEW", False)
    monkeypatch.setattr(classcode, "_PATH", path)
    monkeypatch.setattr(classcode.sys, "dont_write_bytecode", False)
    monkeypatch.setattr(dataclasses, "exec", classcode._exec, raising=False)
    return path


def _point_class():
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2

    return Point


def test_methods_compiled_once_then_taken_from_the_file(kept, monkeypatch):
    first = _point_class()
    assert classcode._NEW is True
    texts = set(classcode._USED)
    # __init__, __repr__, __eq__, __hash__, and frozen's __setattr__ and __delattr__: one text each
    assert len(texts) == 6 and sum(" def __init__(self," in t for t in texts) == 1
    classcode.save()
    magic, table = marshal.loads(kept.read_bytes())
    assert magic == importlib.util.MAGIC_NUMBER and set(table) == texts

    # A later process: the file's code, nothing compiled.
    monkeypatch.setattr(classcode, "_KEPT", classcode._load(kept))
    monkeypatch.setattr(classcode, "_USED", {})
    monkeypatch.setattr(classcode, "_NEW", False)
    compiled = []
    monkeypatch.setattr(classcode, "compile", lambda *a, **k: compiled.append(a) or compile(*a, **k), raising=False)
    second = _point_class()
    assert compiled == [] and classcode._NEW is False and set(classcode._USED) == texts
    p = second(1)
    assert repr(p) == "_point_class.<locals>.Point(x=1, y=2)" and p == second(1, 2) and p != second(1, 3)
    assert hash(p) == hash((1, 2)) == hash(first(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]


def test_a_file_that_does_not_load_is_ignored(tmp_path):
    bad = tmp_path / "bad.marshal"
    bad.write_bytes(b"\x00not marshal")
    assert classcode._load(bad) == {}
    bad.write_bytes(marshal.dumps((b"\x00\x00\r\n", {"def f(): pass": compile("pass", "<string>", "exec")})))
    assert classcode._load(bad) == {}  # another Python's magic number
    bad.write_bytes(marshal.dumps((importlib.util.MAGIC_NUMBER, {"text": "not code", 1: None})))
    assert classcode._load(bad) == {}
    assert classcode._load(tmp_path / "missing.marshal") == {}


def test_nothing_written_where_bytecode_is_not(kept, monkeypatch):
    monkeypatch.setattr(classcode.sys, "dont_write_bytecode", True)
    _point_class()
    classcode.save()
    assert not kept.exists()


def test_kept_beside_porters_bytecode():
    path = classcode.cache_path()
    pyc = importlib.util.cache_from_source(str(importlib.util.find_spec("porter").origin))
    assert path is not None and str(path.parent) == str(__import__("pathlib").Path(pyc).parent)
    assert path.name.startswith("dataclass-code.") and path.name.endswith(".marshal")
