"""`porter comment`: one sticky comment kept up to date, against a local server that speaks GitHub's and GitLab's
comment endpoints (pagination by Link header, the error codes), since the real services are out of reach here."""
from __future__ import annotations

import json
import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from helpers import porter_here
from porter.comment import post_github, post_gitlab
from porter.errors import UsageError
from porter.render.pr_comment import MARKER

PER_PAGE_MAX = 100


class FakeForge:
    """Comments per thread ("gh:owner/name#N" or "gl:project!N"), a log of requests, and injected failures.

    The token's identity (GET /user) is `me`; comments it posts carry that author, as GitHub's `user.login` or
    GitLab's `author.username`."""

    def __init__(self):
        self.threads: dict[str, list[dict]] = {}
        self.heads: dict[int, str] = {}
        self.log: list[tuple[str, str]] = []
        # answers for the next requests, in order: (status, headers, body: JSON-able, or bytes sent as they are)
        self.fails: list[tuple[int, dict, object]] = []
        self.tokens: list[str | None] = []
        self.me: str | None = "porter-bot"  # None: GET /user is refused (403), as for a GitHub App's token
        self.link_base: str | None = None  # where Link: rel="next" points (default: this server)
        self.next_id = 1000
        self.lock = threading.Lock()

    def add(self, thread: str, body: str, user: str = "someone") -> dict:
        self.next_id += 1
        author = {"author": {"username": user}} if thread.startswith("gl:") else {"user": {"login": user}}
        c = {"id": self.next_id, "body": body, **author, "html_url": f"https://forge.invalid/{thread}#c{self.next_id}"}
        self.threads.setdefault(thread, []).append(c)
        return c


def make_handler(forge: FakeForge):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def _send(self, status: int, doc, headers: dict | None = None):
            data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading (a refused answer)
                pass

        def _body(self) -> dict:
            n = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(n) or b"{}")

        def _route(self, method: str):
            url = urlparse(self.path)
            with forge.lock:
                forge.log.append((method, url.path))
                forge.tokens.append(self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN"))
                if forge.fails:
                    status, headers, doc = forge.fails.pop(0)
                    return self._send(status, doc, headers)
                if url.path in ("/api/user", "/api/v4/user") and forge.me is None:  # an app's installation token
                    return self._send(403, {"message": "Resource not accessible by integration"})
                if url.path == "/api/user" and method == "GET":
                    return self._send(200, {"login": forge.me, "id": 1})
                if url.path == "/api/v4/user" and method == "GET":
                    return self._send(200, {"username": forge.me, "id": 1})
                m = re.fullmatch(r"/api/repos/([^/]+)/([^/]+)/issues/(\d+)/comments", url.path)
                g = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes", url.path)
                if m or g:
                    thread = f"gh:{m[1]}/{m[2]}#{m[3]}" if m else f"gl:{g[1]}!{g[2]}"
                    if method == "GET":
                        q = parse_qs(url.query)
                        per = min(int(q.get("per_page", ["30"])[0]), PER_PAGE_MAX)
                        page = int(q.get("page", ["1"])[0])
                        items = forge.threads.get(thread, [])
                        chunk = items[(page - 1) * per: page * per]
                        headers = {}
                        if page * per < len(items):
                            nxt = f"{forge.link_base or 'http://' + self.headers['Host']}{url.path}?per_page={per}&page={page + 1}"
                            headers["Link"] = f'<{nxt}>; rel="next", <{nxt}>; rel="last"'
                        return self._send(200, chunk, headers)
                    if method == "POST":
                        return self._send(201, forge.add(thread, self._body()["body"], forge.me))
                e = re.fullmatch(r"/api/repos/[^/]+/[^/]+/issues/comments/(\d+)", url.path)
                n = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/\d+/notes/(\d+)", url.path)
                if (e and method == "PATCH") or (n and method == "PUT"):
                    cid = int((e or n)[1])
                    for items in forge.threads.values():
                        for c in items:
                            if c["id"] == cid:
                                c["body"] = self._body()["body"]
                                return self._send(200, c)
                    return self._send(404, {"message": "Not Found"})
                p = re.fullmatch(r"/api/repos/[^/]+/[^/]+/pulls/(\d+)", url.path)
                if p and method == "GET" and int(p[1]) in forge.heads:
                    return self._send(200, {"number": int(p[1]), "head": {"sha": forge.heads[int(p[1])]}})
                return self._send(404, {"message": "Not Found"})

        def do_GET(self):
            self._route("GET")

        def do_POST(self):
            self._route("POST")

        def do_PATCH(self):
            self._route("PATCH")

        def do_PUT(self):
            self._route("PUT")

    return Handler


@contextmanager
def serving(f: FakeForge, handler=None):
    """`f` served on 127.0.0.1 (a free port; f.url says which) for the duration."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), (handler or make_handler)(f))
    # a short poll: shutdown() waits up to one interval, and every test starts and stops a server
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    f.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield f
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def forge():
    with serving(FakeForge()) as f:
        yield f


def no_sleep(seconds: float) -> None:
    raise AssertionError(f"slept {seconds} s where no retry was due")


def gh_env(forge, **extra) -> dict:
    return {"GITHUB_API_URL": forge.url + "/api", "GITHUB_REPOSITORY": "acme/widget", "GITHUB_TOKEN": "t0ken", **extra}


THREAD = "gh:acme/widget#7"
BODY = f"{MARKER}\nporter: no new CUDA-only code\n"


def test_posts_one_comment_when_there_is_none(forge):
    forge.add(THREAD, "LGTM")
    out = post_github(BODY, 7, gh_env(forge))
    assert out.action == "created"
    assert forge.log == [("GET", "/api/repos/acme/widget/issues/7/comments"),
                         ("POST", "/api/repos/acme/widget/issues/7/comments")]
    assert [c["body"] for c in forge.threads[THREAD]] == ["LGTM", BODY]
    assert set(forge.tokens) == {"Bearer t0ken"}


def test_finds_its_comment_on_a_later_page_and_edits_only_it(forge):
    for i in range(150):
        forge.add(THREAD, f"comment {i}")
    # Someone quoting the marker mid-text is not porter's comment.
    forge.add(THREAD, f"see {MARKER} above")
    ours = forge.add(THREAD, f"{MARKER}\nold body", "porter-bot")
    out = post_github(BODY, 7, gh_env(forge))
    assert (out.action, out.id) == ("updated", ours["id"])
    # the token's login is asked once a comment carries the marker (on page 2)
    assert forge.log == [("GET", "/api/repos/acme/widget/issues/7/comments"),
                         ("GET", "/api/repos/acme/widget/issues/7/comments"),
                         ("GET", "/api/user"),
                         ("PATCH", f"/api/repos/acme/widget/issues/comments/{ours['id']}")]
    bodies = [c["body"] for c in forge.threads[THREAD]]
    assert bodies[:150] == [f"comment {i}" for i in range(150)]
    assert bodies[150:] == [f"see {MARKER} above", BODY]


def test_nothing_is_sent_when_the_body_is_unchanged(forge):
    forge.add(THREAD, BODY, "porter-bot")
    assert post_github(BODY, 7, gh_env(forge)).action == "unchanged"
    assert forge.log == [("GET", "/api/repos/acme/widget/issues/7/comments"), ("GET", "/api/user")]


def test_marker_is_added_when_the_body_lacks_it(forge):
    post_github("plain body\n", 7, gh_env(forge))
    assert forge.threads[THREAD][0]["body"] == f"{MARKER}\nplain body\n"


def test_pr_number_from_the_event_payload(forge, tmp_path):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "opened", "number": 7, "pull_request": {"number": 7}}))
    assert post_github(BODY, None, gh_env(forge, GITHUB_EVENT_PATH=str(event))).action == "created"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))
    with pytest.raises(UsageError, match="no pull request number: pass --pr N"):
        post_github(BODY, None, gh_env(forge, GITHUB_EVENT_PATH=str(event)))


@pytest.mark.parametrize("status, headers, doc, expected", [
    (401, {}, {"message": "Bad credentials"}, r"401 unauthorized: Bad credentials: \$GITHUB_TOKEN is missing"),
    # the primary limit is not retried (it resets at the hour); its reset is shown as a time, not epoch seconds
    (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1767225600"}, {"message": "API rate limit exceeded"},
     r"403 rate limited: API rate limit exceeded: the limit resets at 2026-01-01 00:00:00 UTC$"),
    (403, {}, {"message": "Resource not accessible by integration"},
     r"403 forbidden: Resource not accessible by integration: the token may not write comments here"),
    (404, {}, {"message": "Not Found"}, r"404 not found: Not Found: check the repository"),
    (422, {}, {"message": "Validation Failed", "errors": [{"code": "custom", "message": "Body is too long"}]},
     r"422 unprocessable: Validation Failed \(\[\{\"code\": \"custom\", \"message\": \"Body is too long\"\}\]\)"),
])
def test_api_errors_say_what_to_fix(forge, status, headers, doc, expected):
    forge.fails.append((status, headers, doc))
    with pytest.raises(UsageError, match=expected) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value).startswith("acme/widget#7: listing comments: ")
    assert forge.log == [("GET", "/api/repos/acme/widget/issues/7/comments")]  # not retried


def test_head_sha_must_match_before_posting(forge):
    forge.heads[7] = "a" * 40
    # A newer push moved the PR on: nothing is posted, and the job is not failed for a routine race.
    out = post_github(BODY, 7, gh_env(forge), head_sha="b" * 40)
    assert (out.action, out.url, out.reason) == ("skipped", "", (
        "acme/widget#7: its head is aaaaaaaaaaaa, not bbbbbbbbbbbb: not posting a body scanned from another commit "
        "(the newer push's run comments)"))
    assert THREAD not in forge.threads
    assert post_github(BODY, 7, gh_env(forge), head_sha="a" * 40).action == "created"


def test_missing_environment_is_a_usage_error(forge):
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, {"GITHUB_REPOSITORY": "acme/widget"})
    assert str(e.value) == ("$GITHUB_TOKEN is not set (in a workflow: env: GITHUB_TOKEN: ${{ github.token }}; "
                            "`porter comment --dry-run` shows the body without posting)")
    with pytest.raises(UsageError, match=r"\$GITHUB_REPOSITORY must be owner/name, not 'widget'"):
        post_github(BODY, 7, {"GITHUB_REPOSITORY": "widget", "GITHUB_TOKEN": "x"})
    with pytest.raises(UsageError) as e:  # was "must be owner/name, not ''"
        post_github(BODY, 7, {"GITHUB_TOKEN": "x"})
    assert str(e.value) == ("$GITHUB_REPOSITORY is not set (owner/name of the repository whose pull request to "
                            "comment on; `porter comment --dry-run` shows the body without posting)")


def test_gitlab_notes_are_updated_in_place(forge):
    env = {"CI_API_V4_URL": forge.url + "/api/v4", "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "3",
           "PORTER_GITLAB_TOKEN": "glpat-x"}
    assert post_gitlab(BODY, None, env).action == "created"
    assert post_gitlab(BODY, None, env).action == "unchanged"
    assert post_gitlab(BODY + "more\n", None, env).action == "updated"
    note_id = forge.threads["gl:42!3"][0]["id"]
    assert forge.log == [("GET", "/api/v4/projects/42/merge_requests/3/notes"),
                         ("POST", "/api/v4/projects/42/merge_requests/3/notes"),
                         ("GET", "/api/v4/projects/42/merge_requests/3/notes"),
                         ("GET", "/api/v4/user"),
                         ("GET", "/api/v4/projects/42/merge_requests/3/notes"),
                         ("GET", "/api/v4/user"),
                         ("PUT", f"/api/v4/projects/42/merge_requests/3/notes/{note_id}")]
    assert [c["body"] for c in forge.threads["gl:42!3"]] == [BODY + "more\n"]
    assert set(forge.tokens) == {"glpat-x"}
    with pytest.raises(UsageError, match=r"\$PORTER_GITLAB_TOKEN is not set"):
        post_gitlab(BODY, None, {k: v for k, v in env.items() if k != "PORTER_GITLAB_TOKEN"})


def test_cli_posts_and_maps_errors_to_exit_2(forge, tmp_path):
    body = tmp_path / "comment.md"
    body.write_text(BODY)
    p = porter_here("comment", str(body), "--pr", "7", env=gh_env(forge))
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith("comment created https://forge.invalid/gh:acme/widget#7#c")
    forge.fails.append((401, {}, {"message": "Bad credentials"}))
    p = porter_here("comment", str(body), "--pr", "7", env=gh_env(forge))
    assert p.returncode == 2
    assert "401 unauthorized: Bad credentials" in p.stderr


def test_a_stale_head_is_skipped_by_the_command_with_exit_0(forge, tmp_path):
    forge.heads[7] = "a" * 40
    body = tmp_path / "comment.md"
    body.write_text(BODY)
    p = porter_here("comment", str(body), "--pr", "7", "--head-sha", "b" * 40, env=gh_env(forge))
    assert (p.returncode, p.stdout) == (0, "")
    assert p.stderr == ("comment skipped: acme/widget#7: its head is aaaaaaaaaaaa, not bbbbbbbbbbbb: not posting a "
                        "body scanned from another commit (the newer push's run comments)\n")
    assert THREAD not in forge.threads


def test_a_pull_request_without_a_head_commit_is_an_error(forge):
    with pytest.raises(UsageError, match="acme/widget#7: reading the pull request"):
        post_github(BODY, 7, gh_env(forge), head_sha="b" * 40)  # 404: the server knows no head for #7


def test_dry_run_prints_the_body_as_posted_and_sends_nothing(forge, tmp_path):
    """A bot tried offline (no token, no network): `--dry-run` shows what would be posted, made inert, and posts
    nothing; an empty body is refused as a real run would refuse it."""
    body = tmp_path / "comment.md"
    body.write_text("porter found [L3](https://github.com/acme/widget/blob/" + "a" * 40 + "/k.cu#L3) and "
                    "[x](https://evil.invalid/) for @team\n")
    env = {**gh_env(forge), "GITHUB_REPOSITORY": "acme/widget", "GITHUB_TOKEN": "",
           "GITHUB_API_URL": "http://127.0.0.1:9"}
    p = porter_here("comment", str(body), "--dry-run", env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == (f"{MARKER}\nporter found [L3](https://github.com/acme/widget/blob/{'a' * 40}/k.cu#L3) and "
                        "[x]\\(`https://evil.invalid/)` for `@team`\n")
    assert p.stderr == "comment not posted (--dry-run)\n"
    assert forge.log == []
    body.write_text(MARKER + "\n  \n")
    p = porter_here("comment", str(body), "--dry-run", env=env)
    assert p.returncode == 2 and "the comment body is empty" in p.stderr and p.stdout == ""
