"""Start-up: the methods `@dataclass` writes for each class, compiled once and kept beside porter's bytecode.

`dataclasses` writes `__init__`, `__repr__`, `__eq__`, `__hash__` and the frozen `__setattr__`/`__delattr__` of
every class as Python source and compiles it with `exec` while the module defining the class is imported. porter's
CLI defines ~95 dataclasses on a scan's path (28 in porter.model.kernel alone): ~540 compiles, 0.075-0.085 CPU-s of
every run, a sixth of a one-file scan's CPU and more than the whole process of a bare tree-sitter parse. The source
text of those methods is the same from run to run, so its code object is too: here the text compiled once is kept,
by text, in one marshal file where Python keeps porter's own bytecode (importlib.util.cache_from_source's
directory: `porter/__pycache__/` or under PYTHONPYCACHEPREFIX), and later runs exec the kept code object instead.

What runs is what `exec(text)` would run: the same text compiled with the same file name ("<string>") and no
inherited compiler flags (dataclasses.py has no __future__ imports). The file is trusted as porter's bytecode is,
since it sits in the same place; it is written only where Python would write bytecode (not under
PYTHONDONTWRITEBYTECODE), and a file that does not load (another Python's magic number, truncated, not a dict of
texts to code objects) is ignored and rewritten. Nothing here reads the scanned repository.
"""
from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import marshal
import os
import sys
import tempfile
from pathlib import Path
from types import CodeType
from typing import Any

# Entries kept across runs: every command's classes (scan, assess, translate ...) fit many times over; past this the
# file keeps only what the last run used, so texts of classes since changed do not pile up.
MAX_ENTRIES = 5000

_KEPT: dict[str, CodeType] = {}  # text -> code, from the file
_USED: dict[str, CodeType] = {}  # what this process executed (kept or compiled)
_NEW = False  # a text compiled in this process that the file did not hold
_PATH: Path | None = None
_INSTALLED = False


def cache_path() -> Path | None:
    """Where the kept code lives: beside porter's bytecode, named for this interpreter (None when it has no cache
    tag, i.e. keeps no bytecode)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    pyc = Path(importlib.util.cache_from_source(str(Path(__file__).resolve().parent / "__init__.py")))
    return pyc.with_name(f"dataclass-code.{tag}.marshal")


def _exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    """`exec` as dataclasses calls it, with a text's code object taken from the kept ones or compiled once."""
    global _NEW
    if isinstance(source, str):
        code = _KEPT.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _NEW = True
        _USED[source] = code
        source = code
    # dataclasses always names the globals; None would otherwise mean this module's rather than its own
    exec(source, vars(dataclasses) if globals is None else globals, locals)


def _load(path: Path) -> dict[str, CodeType]:
    try:
        magic, table = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if magic != importlib.util.MAGIC_NUMBER or not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType)}


def save() -> None:
    """Write the kept code with this process's new texts, atomically (a run at the same time writes whole files
    too; the last one stays). Nothing to do when every text was kept already or bytecode is not written."""
    global _NEW
    if not _NEW or _PATH is None or sys.dont_write_bytecode:
        return
    table = {**_KEPT, **_USED} if len(_KEPT) + len(_USED) <= MAX_ENTRIES else dict(_USED)
    try:
        _PATH.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=_PATH.parent, prefix=_PATH.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps((importlib.util.MAGIC_NUMBER, table)))
            os.replace(tmp, _PATH)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return  # a read-only install keeps compiling, as it keeps no bytecode either
    _KEPT.update(table)
    _NEW = False


def install() -> None:
    """From now on in this process, dataclasses compiles each method text at most once per installation of porter
    (once per process: later calls do nothing). Saved at exit; porter.cli installs it before its imports."""
    global _INSTALLED, _PATH
    if _INSTALLED or not hasattr(dataclasses, "_create_fn") and not hasattr(dataclasses, "_FuncBuilder"):
        return  # a dataclasses that does not build methods from text: nothing to keep
    _INSTALLED = True
    _PATH = cache_path()
    if _PATH is not None:
        _KEPT.update(_load(_PATH))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the module's global shadows the builtin it calls
    atexit.register(save)
