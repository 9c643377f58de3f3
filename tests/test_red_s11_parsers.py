"""Red team, session 11: a 68-byte static archive that loops porter's ar reader until the file's time budget.

porter.match.kinds.binary._ar_members reads each member's size with int() and seeks `data_start + size`: a size of
-60 seeks back onto the same header, forever. The per-file budget (30 s) ends it, so each such file costs a scan
the whole budget: a hundred of them, 6.8 KB in all, are 25 minutes of a 2-core CI runner. A negative size is a
malformed archive.
"""
from __future__ import annotations

import time


from porter.pipeline import scan
from porter.settings import Settings


def _header(name: str, size: int) -> bytes:
    return (name.ljust(16) + "0".ljust(12) + "0".ljust(6) * 2 + "644".ljust(8) + str(size).ljust(10) + "`\n").encode()


def test_an_archive_member_of_negative_size_is_malformed_not_an_endless_loop(tmp_path):
    assert len(_header("a.o/", -60)) == 60
    (tmp_path / "libx.a").write_bytes(b"!<arch>\n" + _header("a.o/", -60))
    t = time.monotonic()
    result = scan(tmp_path, Settings(file_seconds=3.0))
    took = time.monotonic() - t
    assert [(s.path, s.reason) for s in result.skipped] == [("libx.a", "malformed static archive: bad member size")]
    assert took < 3
