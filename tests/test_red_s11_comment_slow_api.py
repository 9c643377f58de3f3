"""Red team, session 11: `porter comment` against an API that sends its answer's head a byte at a time.

Each answer's body was read within READ_DEADLINE, but the clock started once the status line and headers were in:
httpx's timeout is per socket read, so a server (GITHUB_API_URL / CI_API_V4_URL point anywhere) that drips header
bytes faster than TIMEOUT held `porter comment` for as long as it liked (16 KiB of header at 29 s a byte is five
days). The deadline now covers the whole exchange, and all of one run's requests share one more deadline.
"""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from unittest import mock

import pytest

import porter.comment as comment
from porter.comment import ApiError, post_github


@contextmanager
def dripping_server(head: bytes = b"HTTP/1.1 200 OK\r\n"):
    """A server on 127.0.0.1 that answers every request with `head` and then one header byte every 0.1 s."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    done = threading.Event()

    def drip(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(head)
                while not done.is_set():
                    conn.sendall(b"X")
                    time.sleep(0.1)
            except OSError:
                pass

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        done.set()
        srv.close()


def _env(url: str) -> dict:
    return {"GITHUB_API_URL": url, "GITHUB_REPOSITORY": "acme/widget", "GITHUB_TOKEN": "t0ken"}


def test_an_answer_whose_headers_drip_in_ends_at_the_read_deadline():
    with dripping_server() as url, mock.patch.object(comment, "READ_DEADLINE", 1.0):
        t = time.monotonic()
        with pytest.raises(ApiError) as e:
            post_github("hello", pr=7, env=_env(url), bot_login="porter-bot", sleep=lambda s: None)
        took = time.monotonic() - t
    assert took < 4, took
    assert str(e.value) == "acme/widget#7: listing comments: the API took over 1 s to send its answer"


def test_all_requests_of_one_run_share_one_deadline():
    # Each answer alone is within its 10 s; the run's 1.5 s for all of them ends it.
    with dripping_server() as url, mock.patch.object(comment, "READ_DEADLINE", 10.0), \
            mock.patch.object(comment, "RUN_DEADLINE", 1.5):
        t = time.monotonic()
        with pytest.raises(ApiError) as e:
            post_github("hello", pr=7, env=_env(url), bot_login="porter-bot", sleep=lambda s: None)
        took = time.monotonic() - t
    assert took < 4.5, took
    assert str(e.value) == ("acme/widget#7: listing comments: the API took over 1.5 s, porter comment's time for "
                            "all its requests, to answer")
