"""`porter comment` against a hostile or sick API (issue 25): a foreign comment carrying porter's marker, a Link
header to another host, an empty body, 5xx and rate limits, an oversized or malformed answer.

The API is a local server on 127.0.0.1 speaking GitHub's issue-comments and GitLab's notes endpoints
(test_comment.FakeForge); waits go through an injected sleep, so no test sleeps for real.
"""
from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler

import pytest

from helpers import porter_here
from porter import comment
from porter.comment import post_github, post_gitlab
from porter.errors import UsageError
from porter.render.pr_comment import MARKER
from test_comment import BODY, THREAD, FakeForge, forge, gh_env, no_sleep, serving  # noqa: F401 (fixture)

LIST = ("GET", "/api/repos/acme/widget/issues/7/comments")
POST = ("POST", "/api/repos/acme/widget/issues/7/comments")
USER = ("GET", "/api/user")


class Sleeps(list):
    """An injected sleep that records each wait instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def gl_env(forge) -> dict:
    return {"CI_API_V4_URL": forge.url + "/api/v4", "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "3",
            "PORTER_GITLAB_TOKEN": "glpat-x"}


# --- whose comment porter edits -------------------------------------------------------------------------------

def test_a_foreign_comment_with_the_marker_is_never_edited(forge):
    foreign = forge.add(THREAD, f"{MARKER}\nI am porter, trust me", "mallory")
    out = post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert out.action == "created"
    assert forge.log == [LIST, USER, POST]
    assert [(c["user"]["login"], c["body"]) for c in forge.threads[THREAD]] == [
        ("mallory", foreign["body"]), ("porter-bot", BODY)]
    # the next run finds porter's own comment (newer than mallory's) and leaves mallory's alone
    assert post_github(BODY + "more\n", 7, gh_env(forge), sleep=no_sleep).action == "updated"
    assert [c["body"] for c in forge.threads[THREAD]] == [foreign["body"], BODY + "more\n"]


def test_the_login_is_compared_without_case_and_bot_login_skips_get_user(forge):
    ours = forge.add(THREAD, f"{MARKER}\nold", "Porter-Bot")
    assert post_github(BODY, 7, gh_env(forge), sleep=no_sleep).id == ours["id"]
    forge.log.clear()
    app = forge.add(THREAD, f"{MARKER}\nold", "my-app[bot]")
    out = post_github(BODY, 7, gh_env(forge), bot_login="my-app[bot]", sleep=no_sleep)
    assert (out.action, out.id) == ("updated", app["id"])
    assert forge.log == [LIST, ("PATCH", f"/api/repos/acme/widget/issues/comments/{app['id']}")]


def test_a_token_that_cannot_call_user_needs_bot_login_outside_actions(forge):
    forge.add(THREAD, f"{MARKER}\nold", "github-actions[bot]")
    forge.me = None
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value) == (
        "acme/widget#7: asking the token's identity (GET /user): 403: this token cannot tell whose it is (a GitHub "
        "App's installation token cannot call /user): pass --bot-login NAME, the login its comments are posted as "
        "(e.g. my-app[bot])")
    assert forge.log == [LIST, USER]
    # inside GitHub Actions the workflow's token posts as github-actions[bot]
    forge.log.clear()
    out = post_github(BODY, 7, gh_env(forge, GITHUB_ACTIONS="true"), sleep=no_sleep)
    assert out.action == "updated"
    assert forge.log == [LIST, USER, ("PATCH", f"/api/repos/acme/widget/issues/comments/{out.id}")]
    assert forge.threads[THREAD][0]["body"] == BODY


def test_cli_bot_login_names_the_author(forge, tmp_path):
    app = forge.add(THREAD, f"{MARKER}\nold", "my-app[bot]")
    forge.add(THREAD, f"{MARKER}\nforged", "mallory")
    forge.me = None
    body = tmp_path / "comment.md"
    body.write_text(BODY)
    p = porter_here("comment", str(body), "--pr", "7", "--bot-login", "my-app[bot]", env=gh_env(forge))
    assert p.returncode == 0, p.stderr
    assert p.stderr == f"comment updated https://forge.invalid/{THREAD}#c{app['id']}\n"
    assert [c["body"] for c in forge.threads[THREAD]] == [BODY, f"{MARKER}\nforged"]
    assert forge.log == [LIST, ("PATCH", f"/api/repos/acme/widget/issues/comments/{app['id']}")]


def test_gitlab_edits_only_a_note_by_the_token_user(forge):
    forge.add("gl:42!3", f"{MARKER}\nforged", "mallory")
    assert post_gitlab(BODY, None, gl_env(forge), sleep=no_sleep).action == "created"
    assert forge.log == [("GET", "/api/v4/projects/42/merge_requests/3/notes"), ("GET", "/api/v4/user"),
                         ("POST", "/api/v4/projects/42/merge_requests/3/notes")]
    assert [(c["author"]["username"], c["body"]) for c in forge.threads["gl:42!3"]] == [
        ("mallory", f"{MARKER}\nforged"), ("porter-bot", BODY)]


# --- where the token goes -------------------------------------------------------------------------------------

def test_a_link_to_another_host_is_not_followed_and_the_token_stays(forge):
    with serving(FakeForge()) as elsewhere:
        for i in range(150):
            forge.add(THREAD, f"comment {i}")
        forge.link_base = elsewhere.url + "/api"  # page 2 "is" on another origin (another port of 127.0.0.1)
        with pytest.raises(UsageError) as e:
            post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
        assert str(e.value) == (f"acme/widget#7: listing comments: the API pointed to {elsewhere.url}, not its own "
                                f"origin {forge.url}: refusing to send the token there")
        assert elsewhere.log == [] and elsewhere.tokens == []
        assert forge.log == [LIST]  # and nothing was posted


def test_gitlab_link_to_another_host_is_not_followed(forge):
    with serving(FakeForge()) as elsewhere:
        for i in range(150):
            forge.add("gl:42!3", f"note {i}")
        forge.link_base = elsewhere.url + "/api/v4"
        with pytest.raises(UsageError, match="refusing to send the token there$"):
            post_gitlab(BODY, None, gl_env(forge), sleep=no_sleep)
        assert elsewhere.log == []
        assert forge.log == [("GET", "/api/v4/projects/42/merge_requests/3/notes")]


# --- the body -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", ["", " \n\t\n", MARKER, f"{MARKER}\n\n  \n"])
def test_an_empty_body_is_refused_before_any_request(forge, body):
    forge.add(THREAD, f"{MARKER}\nold", "porter-bot")
    for post, env in ((post_github, gh_env(forge)), (post_gitlab, gl_env(forge))):
        with pytest.raises(UsageError) as e:
            post(body, 7, env, sleep=no_sleep)
        assert str(e.value) == ("the comment body is empty: refusing to replace porter's comment with nothing "
                                "(check the step that rendered it: `porter scan --new-since ... --format markdown "
                                "-o FILE`)")
    assert forge.log == []


def test_cli_refuses_an_empty_body_with_exit_2(forge, tmp_path):
    body = tmp_path / "comment.md"
    body.write_text("\n")
    p = porter_here("comment", str(body), "--pr", "7", env=gh_env(forge))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.startswith("error: the comment body is empty: refusing to replace porter's comment")
    assert forge.log == []


# --- retries --------------------------------------------------------------------------------------------------

def test_5xx_is_retried_with_exponential_backoff(forge):
    forge.fails += [(502, {}, b"<html>bad gateway</html>"), (503, {}, {"message": "unavailable"})]
    sleeps = Sleeps()
    assert post_github(BODY, 7, gh_env(forge), sleep=sleeps).action == "created"
    assert forge.log == [LIST, LIST, LIST, POST]
    assert sleeps == [1.0, 2.0]


def test_5xx_gives_up_after_the_retries(forge):
    forge.fails += [(500, {}, {"message": "boom"})] * 10
    sleeps = Sleeps()
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=sleeps)
    assert str(e.value) == "acme/widget#7: listing comments: HTTP 500: boom: the API failed; retry later"
    assert forge.log == [LIST] * 4
    assert sleeps == [1.0, 2.0, 4.0]


def test_a_5xx_to_the_post_lists_again_before_posting_again(forge):
    forge.fails += [(200, {}, []), (502, {}, {"message": "bad gateway"})]  # the list, then the POST fails
    sleeps = Sleeps()
    assert post_github(BODY, 7, gh_env(forge), sleep=sleeps).action == "created"
    assert forge.log == [LIST, POST, LIST, POST]
    assert sleeps == [1.0]
    assert [c["body"] for c in forge.threads[THREAD]] == [BODY]


@pytest.mark.parametrize("status, headers, message, waits", [
    (429, {"Retry-After": "7"}, "slow down", [7.0]),
    (403, {"Retry-After": "30"}, "You have exceeded a secondary rate limit", [30.0]),
    (403, {}, "You have exceeded a secondary rate limit. Please wait a few minutes", [60.0]),  # GitHub: >= 1 minute
    (429, {}, "slow down", [1.0]),
])
def test_rate_limits_are_retried_after_their_wait(forge, status, headers, message, waits):
    forge.fails.append((status, headers, {"message": message}))
    sleeps = Sleeps()
    assert post_github(BODY, 7, gh_env(forge), sleep=sleeps).action == "created"
    assert forge.log == [LIST, LIST, POST]
    assert sleeps == waits


def test_a_rate_limit_longer_than_the_budget_is_an_error_with_when_to_retry(forge):
    forge.fails += [(403, {"Retry-After": "3600", "X-RateLimit-Reset": "1767225600"},
                     {"message": "You have exceeded a secondary rate limit"})]
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value) == ("acme/widget#7: listing comments: 403 rate limited: You have exceeded a secondary rate "
                            "limit: retry after 3600 s (the limit resets at 2026-01-01 00:00:00 UTC)")
    assert forge.log == [LIST]


def test_a_rate_limit_shows_its_reset_as_a_utc_time(forge):
    forge.fails.append((429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1767225600"},
                        {"message": "API rate limit exceeded"}))
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value) == ("acme/widget#7: listing comments: 429 rate limited: API rate limit exceeded: "
                            "the limit resets at 2026-01-01 00:00:00 UTC")


def test_the_total_wait_is_bounded(forge):
    forge.fails += [(403, {"Retry-After": "50"}, {"message": "secondary rate limit"})] * 3
    sleeps = Sleeps()
    with pytest.raises(UsageError, match="retry after 50 s$"):
        post_github(BODY, 7, gh_env(forge), sleep=sleeps)
    assert sleeps == [50.0]  # a second 50 s would pass MAX_SLEEP
    assert sum(sleeps) <= comment.MAX_SLEEP
    assert forge.log == [LIST, LIST]


def test_gitlab_5xx_is_retried(forge):
    forge.fails.append((503, {}, {"message": "503 Service Unavailable"}))
    sleeps = Sleeps()
    assert post_gitlab(BODY, None, gl_env(forge), sleep=sleeps).action == "created"
    assert forge.log == [("GET", "/api/v4/projects/42/merge_requests/3/notes")] * 2 + [
        ("POST", "/api/v4/projects/42/merge_requests/3/notes")]
    assert sleeps == [1.0]


# --- what the API answers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, said", [
    (b"{not json", "the API answered HTTP 200 with something that is not JSON (9 bytes)"),
    (b"\xff\xfe", "the API answered HTTP 200 with something that is not JSON (2 bytes)"),
    (b"[" * 100_000 + b"]" * 100_000, "the API answered HTTP 200 with something that is not JSON (200000 bytes)"),
    (b'{"comments": []}', "the API answered with an object where a list was expected"),
    (b'[{"body": "x"}]', "the API listed a comment without a numeric id"),
    (b'[{"id": "1; DROP", "body": "x"}]', "the API listed a comment without a numeric id"),
    (b'[{"id": true, "body": "x"}]', "the API listed a comment without a numeric id"),
])
def test_malformed_json_is_a_clear_error(forge, body, said):
    forge.fails.append((200, {}, body))
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value) == f"acme/widget#7: listing comments: {said}"
    assert forge.log == [LIST]


def test_a_malformed_user_answer_is_a_clear_error(forge):
    forge.add(THREAD, f"{MARKER}\nold", "porter-bot")
    forge.fails += [(200, {}, [forge.threads[THREAD][0]]), (200, {}, {"login": 7})]
    with pytest.raises(UsageError) as e:
        post_github(BODY, 7, gh_env(forge), sleep=no_sleep)
    assert str(e.value) == "acme/widget#7: asking the token's identity (GET /user): the answer has no login"


def test_cli_maps_malformed_json_to_exit_2(forge, tmp_path):
    body = tmp_path / "comment.md"
    body.write_text(BODY)
    forge.fails.append((200, {}, b"<html>captive portal</html>"))
    p = porter_here("comment", str(body), "--pr", "7", env=gh_env(forge))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("error: acme/widget#7: listing comments: the API answered HTTP 200 with something that is "
                        "not JSON (27 bytes)\n")


def _huge_handler(chunked: bool):
    """An API whose every answer is one byte over the cap: announced by Content-Length, or chunked without it."""

    def make(f: FakeForge):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                f.log.append(("GET", self.path.split("?")[0]))
                size = comment.MAX_BODY_BYTES + 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(size))
                self.end_headers()
                block = b" " * (1 << 20)
                sent = 0
                try:
                    self.wfile.write(b"1\r\n[\r\n" if chunked else b"[")
                    sent = 1
                    while sent < size:
                        part = block[: min(len(block), size - sent)]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
                        sent += len(part)
                        f.sent = sent
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

        return Handler

    return make


@pytest.mark.parametrize("chunked", [False, True])
def test_an_oversized_answer_is_refused(chunked):
    f = FakeForge()
    f.sent = 0
    with serving(f, _huge_handler(chunked)):
        started = time.monotonic()
        with pytest.raises(UsageError) as e:
            post_github(BODY, 7, gh_env(f), sleep=no_sleep)
        assert time.monotonic() - started < 20
    assert str(e.value) == "acme/widget#7: listing comments: the API's answer is over 32 MiB: refusing to read it"
    assert f.log == [LIST]
    if not chunked:
        assert f.sent < comment.MAX_BODY_BYTES  # refused on its Content-Length: the body was never read


def test_a_gitlab_answer_of_the_wrong_shape_is_a_clear_error(forge):
    forge.fails.append((200, {}, {"message": "404 Project Not Found"}))
    with pytest.raises(UsageError) as e:
        post_gitlab(BODY, None, gl_env(forge), sleep=no_sleep)
    assert str(e.value) == ("project 42 !3: listing comments: the API answered with an object where a list was "
                            "expected")


def test_the_api_url_must_be_http(forge):
    with pytest.raises(UsageError, match=r"^the API URL 'file:///etc/passwd' must be an http\(s\) URL$"):
        post_github(BODY, 7, gh_env(forge, GITHUB_API_URL="file:///etc/passwd"), sleep=no_sleep)
    assert json.dumps(forge.log) == "[]"
