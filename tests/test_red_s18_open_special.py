"""A special file inside the scanned tree (a FIFO, a device node) is refused without being opened.

Opening is already an effect: a FIFO's waiting writer is released by a reader's open, and a device driver's open
runs (a watchdog is armed by it, a tape rewinds). git never checks a device or FIFO out, but a tree unpacked from
an archive as root (`tar x` keeps device nodes) or built by a script can hold one at any name, and the realpath
check only refuses a link leading out of the tree, not a node inside it. The plain walk reads every `.gitignore`
it meets through porter.contain.read_bytes, which opened the path and only then asked fstat what it was.
"""
from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from porter import contain
from porter.source.discover import discover


def _writer_released_by(fifo: Path, read) -> bool:
    """Whether running `read()` releases a writer blocked in open(fifo, O_WRONLY): it is released exactly when
    something opens the FIFO for reading."""
    released = threading.Event()

    def writer() -> None:
        fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens the FIFO
        released.set()
        os.close(fd)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    time.sleep(0.3)  # the writer is waiting in open() by now; a reader's open would release it at once
    try:
        read()
        return released.wait(0.5)
    finally:
        if not released.is_set():
            # Release the writer ourselves so the thread ends.
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            released.wait(5)
            os.close(fd)
        t.join(5)


def test_read_bytes_refuses_a_fifo_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe.h"
    os.mkfifo(fifo)

    def read() -> None:
        with pytest.raises(contain.Unreadable, match="^not a regular file$"):
            contain.read_bytes(fifo, 1024, root=tmp_path)

    assert _writer_released_by(fifo, read) is False


def test_a_plain_walk_does_not_open_a_fifo_planted_as_gitignore(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("__global__ void k() {}\n")
    fifo = tmp_path / "src" / ".gitignore"
    os.mkfifo(fifo)
    found: list[str] = []

    def walk() -> None:
        found.extend(c.path for c in discover(tmp_path).files)

    assert _writer_released_by(fifo, walk) is False
    assert found == ["src/a.cu"]


def test_a_device_node_inside_the_tree_is_not_opened(tmp_path, monkeypatch):
    dev = tmp_path / ".gitignore"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o644, os.makedev(1, 3))  # /dev/null's numbers: harmless if opened
    except (PermissionError, OSError):
        pytest.skip("making a device node needs CAP_MKNOD")
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(contain.os, "open", spy)
    with pytest.raises(contain.Unreadable, match="^not a regular file$"):
        contain.read_bytes(dev, 1024, root=tmp_path)
    assert opened == []
