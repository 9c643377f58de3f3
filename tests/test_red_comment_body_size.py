"""Red team: `porter comment` reads a body (an untrusted job's artifact in the fork-safe workflow) only as far as a
body GitHub could take: 4 bytes for each of its 65,536 characters. Before, the whole file was read first, so
`porter comment /dev/zero` grew without bound (a MemoryError, exit 3, under a 2 GB ulimit)."""
from __future__ import annotations

from helpers import porter_here


def test_an_endless_body_file_is_refused_unread():
    r = porter_here("comment", "/dev/zero", "--pr", "1", env={"GITHUB_TOKEN": "t"}, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: the comment body: /dev/zero: not a regular file"


def test_a_body_file_over_four_bytes_a_character_is_refused_unread(tmp_path):
    body = tmp_path / "body.md"
    body.write_bytes(b"a" * 262145)
    r = porter_here("comment", str(body), "--pr", "1", env={"GITHUB_TOKEN": "t"}, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: the comment body: {body}: file is 0.3 MiB, over the 0 MiB limit (generated?)"


def test_an_endless_body_on_stdin_is_refused_too():
    r = porter_here("comment", "-", "--pr", "1", stdin=b"a" * 262145, env={"GITHUB_TOKEN": "t"}, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == ("error: -: the comment body is over 262144 bytes, more than the 65536 "
                                "characters GitHub accepts")


def test_a_body_that_is_not_utf8_is_still_named_as_unreadable(tmp_path):
    body = tmp_path / "body.md"
    body.write_bytes(b"\xff\xfe")
    r = porter_here("comment", str(body), "--pr", "1", env={"GITHUB_TOKEN": "t"}, timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: {body}: cannot read the comment body: 'utf-8' codec can't decode byte 0xff")
