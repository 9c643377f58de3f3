"""Keep one sticky porter comment on a pull request (GitHub REST) or merge request (GitLab notes API) up to date.

porter's comment is the one whose first line is the marker `<!-- porter:pr-comment -->`
(porter.render.pr_comment.MARKER) *and* whose author is the token's own identity: anyone can post a comment that
starts with the marker, and porter must never edit theirs. The identity is `GET /user`'s login (GitHub) or
username (GitLab), asked only when some comment carries the marker; `bot_login` names it when the token cannot ask
(a GitHub App's installation token, which posts as `<app-slug>[bot]`); inside GitHub Actions a token refused by
/user is the workflow's GITHUB_TOKEN, which posts as `github-actions[bot]`. Every page of the PR's comments is read
(following the `Link: rel="next"` header, only while it stays on the API's own origin: the token is never sent
anywhere else); the comment is edited when the body changed, left alone when it did not, and a new one is posted
only when there is none. An empty body is refused, never posted over porter's comment.

Every answer is read as a stream and refused past MAX_BODY_BYTES or READ_DEADLINE (status line and headers
included: httpx's timeouts are per socket read, so a watchdog shuts the connection down when the time is up), and
all the requests of one run end by RUN_DEADLINE; JSON that does not parse or has
the wrong shape is an error, not a crash. 5xx answers, 429 and GitHub's secondary rate limit are retried with
exponential backoff (at most RETRIES times and MAX_SLEEP seconds of waiting in all, honouring Retry-After); a
POST is not retried blindly after a 5xx (the comment may exist): the comments are listed again first. API failures
become ApiErrors (exit 2) that say what to fix: a bad token (401), missing permission or a rate limit with when to
retry, the reset as a UTC time (403/429), a wrong repository or PR number (404), a body the API refused (422).
"""
from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import quote

import httpx

from porter.errors import UsageError
from porter.render.pr_comment import LIMIT, MARKER, github_server
from porter.render.safe import inert_markdown

TIMEOUT = 30.0  # seconds per connect, and between two chunks of an answer
READ_DEADLINE = 120.0  # seconds for one whole answer (its head too), however slowly a server drips it
RUN_DEADLINE = 600.0  # seconds for all the requests of one run (100 pages of comments at 120 s each would be hours)
MAX_PAGES = 100  # 10,000 comments at 100 a page: a bound, not a limit anyone meets
# One answer's bytes: a page of 100 comments of 65,536 characters, up to 4 UTF-8 bytes each, is ~26 MiB of JSON at
# the very worst; anything larger is not a comment list.
MAX_BODY_BYTES = 32 * 1024 * 1024
RETRIES = 3  # after the first attempt
BACKOFF = 1.0  # seconds before the first retry of a 5xx (or a 429 without Retry-After); doubling after
SECONDARY_WAIT = 60.0  # GitHub: after a secondary rate limit without Retry-After, wait at least a minute
MAX_SLEEP = 90.0  # seconds of waiting in all, for one run: a CI job must not hang on a sick API
GITHUB_ACTIONS_LOGIN = "github-actions[bot]"  # the author of comments posted with a workflow's GITHUB_TOKEN
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ApiError(UsageError):
    """The code-hosting API refused a request or answered with something unusable; the message says why and what
    to do. `status` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class _ServerError(ApiError):
    """A 5xx answer to a request that is not safe to repeat as it is (a POST)."""


@dataclass(frozen=True)
class Outcome:
    action: str  # "created", "updated", "unchanged", or "skipped" (nothing posted; `reason` says why)
    url: str  # the comment's API URL (or web URL when the API gives one); "" when skipped
    id: int
    reason: str = ""


def inert_body(body: str, own_links: str | None = None) -> str:
    """The body with everything porter's own comments never hold made inert (porter.render.safe.inert_markdown),
    its first line kept when it is porter's marker, so a body from an untrusted job (the fork-safe workflow posts an
    artifact the pull request's own workflow wrote) cannot ping teams, load images, link to a phishing page or post
    raw HTML as the bot. porter's own rendered comments come out unchanged (tests/test_hostile_api.py)."""
    return inert_markdown(body, own_links, keep_first=MARKER)


def with_marker(body: str, own_links: str | None = None) -> str:
    """The body as posted: the marker first (added when missing), at most LIMIT characters, not empty. `own_links`:
    the pull request's own repository's blob URL prefix, whose line links (`[L12](prefix…)`, what the PR comment
    renders) are kept."""
    body = inert_body(body, own_links)
    rest = body[len(MARKER):] if body.startswith(MARKER) else body
    if not rest.strip():
        raise UsageError("the comment body is empty: refusing to replace porter's comment with nothing (check the "
                         "step that rendered it: `porter scan --new-since ... --format markdown -o FILE`)")
    text = body if body.startswith(MARKER) else f"{MARKER}\n{body}"
    if len(text) > LIMIT:
        raise UsageError(f"the comment body is {len(text)} characters, over the {LIMIT} GitHub accepts "
                         "(render it with `porter scan --new-since ... --format markdown`, which truncates)")
    return text


def is_ours(body: Any) -> bool:
    """Whether a comment's body starts with porter's marker line (its author is checked separately)."""
    return isinstance(body, str) and body.splitlines()[:1] == [MARKER]


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def _shown_origin(url: httpx.URL) -> str:
    scheme, host, port = _origin(url)
    return f"{scheme}://{host}" + (f":{port}" if port != _DEFAULT_PORTS.get(scheme) else "")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


@dataclass(frozen=True)
class Reply:
    """One answer, read whole (within the bounds): status, headers, body bytes and the `Link: rel="next"` URL."""

    status: int
    headers: httpx.Headers
    body: bytes
    next_url: str | None

    def json(self, what: str, expect: type) -> Any:
        """The body as JSON of the type porter expects (dict or list), else an ApiError saying what came."""
        try:
            doc = json.loads(self.body)
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError; RecursionError: [[[[...]]]]
            raise ApiError(f"{what}: the API answered HTTP {self.status} with something that is not JSON "
                           f"({len(self.body)} bytes)") from None
        if not isinstance(doc, expect):
            raise ApiError(f"{what}: the API answered with {_kind(doc)} where {_kind(expect())} was expected")
        return doc

    def message(self) -> str | None:
        """The API's own error message, when the body is JSON that has one."""
        try:
            doc = json.loads(self.body)
        except (ValueError, RecursionError):
            return None
        msg = doc.get("message") if isinstance(doc, dict) else None
        return msg if isinstance(msg, str) else (json.dumps(msg)[:300] if msg is not None else None)


def _reset_time(value: str | None) -> str | None:
    """X-RateLimit-Reset (epoch seconds) as a UTC time a person can read."""
    try:
        return datetime.fromtimestamp(int(value or ""), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (ValueError, OverflowError, OSError):
        return None


def _seconds(value: str | None) -> float | None:
    """Retry-After as seconds (GitHub and GitLab send delta-seconds; an HTTP date is not trusted for a wait)."""
    return float(value) if value is not None and value.strip().isdigit() else None


def _secondary_limit(reply: Reply) -> bool:
    """GitHub's secondary rate limit: a 403 with Retry-After, or one whose message says so."""
    return reply.status == 403 and (reply.headers.get("retry-after") is not None
                                    or "secondary rate limit" in (reply.message() or "").lower())


def _explain(reply: Reply, what: str, token_name: str) -> ApiError:
    message = reply.message()
    said = f": {message}" if message else ""
    try:
        errors = json.loads(reply.body).get("errors")
    except (ValueError, RecursionError, AttributeError):
        errors = None
    if errors:
        said += f" ({json.dumps(errors)[:300]})"
    code = reply.status
    retry = reply.headers.get("retry-after")
    remaining = reply.headers.get("x-ratelimit-remaining")
    if code == 401:
        return ApiError(f"{what}: 401 unauthorized{said}: ${token_name} is missing, expired or not a token for this "
                        "API", code)
    if code == 429 or (code == 403 and (retry or remaining == "0" or _secondary_limit(reply))):
        reset = _reset_time(reply.headers.get("x-ratelimit-reset"))
        # a reset the API names is said as a time, beside the wait it asks for (a person reads "resets at 14:00 UTC",
        # not an epoch; Retry-After alone is a wait from now, said in seconds)
        resets = f"the limit resets at {reset}" if reset else ""
        when = (f"retry after {retry} s" + (f" ({resets})" if resets else "") if retry
                else resets or "retry later")
        return ApiError(f"{what}: {code} rate limited{said}: {when}", code)
    if code == 403:
        return ApiError(f"{what}: 403 forbidden{said}: the token may not write comments here (GitHub: give the job "
                        "`permissions: pull-requests: write`; a pull_request run from a fork only has a read-only "
                        "token, so post from a workflow_run job, see docs/ci.md)", code)
    if code == 404:
        return ApiError(f"{what}: 404 not found{said}: check the repository / project and the PR / MR number, and "
                        "that the token can see them", code)
    if code == 422:
        return ApiError(f"{what}: 422 unprocessable{said}: the API refused the comment body", code)
    if code >= 500:
        return ApiError(f"{what}: HTTP {code}{said}: the API failed; retry later", code)
    return ApiError(f"{what}: HTTP {code}{said}", code)


class _Api:
    """A client bound to one API origin: every request stays on it, every answer is read within bounds, transient
    failures are retried within one budget of waiting."""

    def __init__(self, base: str, headers: Mapping[str, str], token_name: str,
                 sleep: Callable[[float], None] = time.sleep):
        try:
            self.base = httpx.URL(base.rstrip("/") + "/")
        except httpx.InvalidURL as e:
            raise UsageError(f"the API URL {base!r} is not a URL: {e}") from None
        if self.base.scheme not in _DEFAULT_PORTS or not self.base.host:
            raise UsageError(f"the API URL {base!r} must be an http(s) URL")
        self.origin = _origin(self.base)
        self.token_name = token_name
        self.sleep = sleep
        self.slept = 0.0
        self.client = httpx.Client(base_url=self.base, headers=dict(headers), timeout=TIMEOUT,
                                   follow_redirects=False, trust_env=True)
        self.ends = time.monotonic() + RUN_DEADLINE
        self._sockets: list[Any] = []  # every connection this client opened, for the watchdog to shut down

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpx's trace hook: note the socket of each new connection (TCP, then TLS over it)."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                self._sockets.append(sock)

    def _expire(self, expired: threading.Event) -> None:
        """The watchdog: a blocked read returns at once when its socket is shut down."""
        expired.set()
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _once(self, method: str, url: str, what: str, **kw: Any) -> Reply:
        try:
            request = self.client.build_request(method, url, **kw)
        except httpx.InvalidURL as e:
            raise ApiError(f"{what}: the API pointed to an unusable URL: {e}") from None
        if _origin(request.url) != self.origin:
            # A Link header (or anything else the API says) naming another host must not get the token.
            raise ApiError(f"{what}: the API pointed to {_shown_origin(request.url)}, not its own origin "
                           f"{_shown_origin(self.base)}: refusing to send the token there")
        started = time.monotonic()
        whole_run = self.ends - started < READ_DEADLINE
        late = (ApiError(f"{what}: the API took over {RUN_DEADLINE:g} s, porter comment's time for all its requests, "
                         "to answer") if whole_run else
                ApiError(f"{what}: the API took over {READ_DEADLINE:g} s to send its answer"))
        if self.ends <= started:
            raise late
        request.extensions["trace"] = self._trace
        expired = threading.Event()
        watchdog = threading.Timer(min(READ_DEADLINE, self.ends - started), self._expire, (expired,))
        watchdog.daemon = True
        watchdog.start()
        try:
            resp = self.client.send(request, stream=True)
            try:
                body = self._read(resp, what, started, expired, late)
            finally:
                resp.close()
        except httpx.HTTPError as e:
            if expired.is_set():
                raise late from None
            raise ApiError(f"{what}: cannot reach {_shown_origin(self.base)}: {e}") from None
        finally:
            watchdog.cancel()
            if expired.is_set():
                self._sockets.clear()  # shut down: the pool opens new connections for any later request
        return Reply(resp.status_code, resp.headers, body, resp.links.get("next", {}).get("url"))

    def _read(self, resp: httpx.Response, what: str, started: float, expired: threading.Event,
              late: ApiError) -> bytes:
        too_big = ApiError(f"{what}: the API's answer is over {MAX_BODY_BYTES // 1048576} MiB: refusing to read it")
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise too_big
        buf = bytearray()
        for chunk in resp.iter_bytes():  # decoded (gzip) bytes: the cap holds for what is kept, not what was sent
            buf += chunk
            if len(buf) > MAX_BODY_BYTES:
                raise too_big
            if expired.is_set() or time.monotonic() - started > min(READ_DEADLINE, self.ends - started):
                raise late
        return bytes(buf)

    def pause(self, attempt: int, wait: float | None = None) -> bool:
        """Sleep before retry `attempt` (0-based) when the budget allows: `wait`, else exponential backoff."""
        wait = BACKOFF * 2 ** attempt if wait is None else wait
        if attempt >= RETRIES or self.slept + wait > MAX_SLEEP:
            return False
        self.sleep(wait)
        self.slept += wait
        return True

    def _retry_wait(self, reply: Reply, repeatable: bool) -> float | None | bool:
        """How long to wait before repeating a failed request: seconds, None for the default backoff, or False
        when it must not be repeated (a client error, a primary rate limit, a 5xx to a POST)."""
        if reply.status >= 500:
            return None if repeatable else False
        retry_after = _seconds(reply.headers.get("retry-after"))
        if reply.status == 429 or _secondary_limit(reply):
            if retry_after is not None:
                return retry_after
            if reply.headers.get("x-ratelimit-remaining") == "0":
                return False  # the primary limit: it resets at the hour, not within a job's patience
            return SECONDARY_WAIT if reply.status == 403 else None
        return False

    def call(self, method: str, url: str, what: str, repeatable: bool = True, **kw: Any) -> Reply:
        for attempt in range(RETRIES + 1):
            reply = self._once(method, url, what, **kw)
            if reply.status < 400:
                return reply
            wait = self._retry_wait(reply, repeatable)
            if wait is False or not self.pause(attempt, wait):
                error = _explain(reply, what, self.token_name)
                raise _ServerError(str(error), reply.status) if reply.status >= 500 and not repeatable else error
        raise AssertionError("unreachable: the last attempt raises")

    def pages(self, url: str, what: str, params: dict[str, Any]) -> Iterator[list[Any]]:
        """Each page of a paginated list, following `Link: <...>; rel="next"` (on this origin only)."""
        page_url = url
        seen = {url}
        for _ in range(MAX_PAGES):
            reply = self.call("GET", page_url, what, params=params if page_url == url else None)
            yield reply.json(what, list)
            next_url = reply.next_url
            if not next_url or next_url in seen:
                return
            seen.add(next_url)
            page_url = next_url
        raise ApiError(f"{what}: more than {MAX_PAGES} pages of comments")

    def close(self) -> None:
        self.client.close()


def _comment(c: Any, what: str) -> tuple[int, Any]:
    """A listed comment's id and body, checked: the id goes into a URL and the body is compared."""
    cid = c.get("id") if isinstance(c, dict) else None
    if not isinstance(cid, int) or isinstance(cid, bool) or cid <= 0:
        raise ApiError(f"{what}: the API listed a comment without a numeric id")
    return cid, c.get("body")


def _sticky(api: _Api, list_url: str, item_url: Callable[[int], str], text: str, what: str, edit_method: str,
            whoami: Callable[[], str], author_of: Callable[[dict[str, Any]], Any]) -> Outcome:
    me: str | None = None
    for attempt in range(RETRIES + 1):
        ours: list[tuple[int, dict[str, Any]]] = []
        for page in api.pages(list_url, f"{what}: listing comments", {"per_page": 100}):
            for c in page:
                cid, body = _comment(c, f"{what}: listing comments")
                if is_ours(body):
                    me = me if me is not None else whoami()  # asked only when some comment carries the marker
                    author = author_of(c)
                    if isinstance(author, str) and author.casefold() == me.casefold():
                        ours.append((cid, c))
        if ours:
            cid, c = min(ours, key=lambda pair: pair[0])  # the oldest: the one porter has kept updating
            if c.get("body") == text:
                return Outcome("unchanged", str(c.get("html_url") or c.get("url") or ""), cid)
            reply = api.call(edit_method, item_url(cid), f"{what}: updating comment {cid}", json={"body": text})
            got = reply.json(f"{what}: updating comment {cid}", dict) if reply.body else {}
            return Outcome("updated", str(got.get("html_url") or got.get("url") or ""), cid)
        try:
            reply = api.call("POST", list_url, f"{what}: posting the comment", repeatable=False, json={"body": text})
        except _ServerError:
            if not api.pause(attempt):
                raise
            continue  # the POST may have gone through: list again before posting again
        got = reply.json(f"{what}: posting the comment", dict) if reply.body else {}
        new_id = got.get("id")
        return Outcome("created", str(got.get("html_url") or got.get("url") or ""),
                       new_id if isinstance(new_id, int) and not isinstance(new_id, bool) else 0)
    raise AssertionError("unreachable: the last attempt raises")


def _login(api: _Api, what: str, field: str, bot_login: str | None, env: Mapping[str, str], github: bool) -> str:
    """The identity porter's comments are posted as: `bot_login`, else GET /user's `field`."""
    if bot_login:
        return bot_login
    asked = f"{what}: asking the token's identity (GET /user)"
    try:
        doc = api.call("GET", "user", asked).json(asked, dict)
    except ApiError as e:
        if e.status != 403:
            raise
        if github and env.get("GITHUB_ACTIONS") == "true":
            return GITHUB_ACTIONS_LOGIN  # a workflow's GITHUB_TOKEN may not call /user; it posts as this bot
        raise ApiError(f"{asked}: 403: this token cannot tell whose it is (a GitHub App's installation token "
                       "cannot call /user): pass --bot-login NAME, the login its comments are posted as "
                       "(e.g. my-app[bot])", 403) from None
    login = doc.get(field)
    if not isinstance(login, str) or not login:
        raise ApiError(f"{asked}: the answer has no {field}")
    return login


def pr_number_from_event(env: Mapping[str, str]) -> int | None:
    """The pull-request number from the GitHub event payload ($GITHUB_EVENT_PATH), when it names one."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"$GITHUB_EVENT_PATH {path}: cannot read the event: {e}") from None
    for candidate in (event.get("pull_request", {}).get("number") if isinstance(event.get("pull_request"), dict) else None,
                      event.get("number") if "pull_request" in event else None,
                      (event.get("issue") or {}).get("number") if (event.get("issue") or {}).get("pull_request") else None):
        if isinstance(candidate, int) and candidate > 0:
            return candidate
    return None


def post_github(body: str, pr: int | None = None, env: Mapping[str, str] | None = None,
                head_sha: str | None = None, bot_login: str | None = None,
                sleep: Callable[[float], None] = time.sleep) -> Outcome:
    """Create or update porter's comment on GitHub pull request `pr` (or the event's). With `head_sha`, only when
    the pull request's head is that commit (the number may come from an artifact a fork's run wrote). `bot_login`:
    the login the token posts as, when it cannot call /user."""
    env = os.environ if env is None else env
    repo = env.get("GITHUB_REPOSITORY", "")
    # Line links into the pull request's own repository (porter.render.pr_comment) are porter's; any other link is not.
    own = f"{github_server(env)}/{repo}/blob/" if repo.count("/") == 1 and all(repo.split("/")) else None
    text = with_marker(body, own)  # an empty body fails before any request
    token = env.get("GITHUB_TOKEN", "")
    if not token:
        raise UsageError("$GITHUB_TOKEN is not set (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})")
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise UsageError(f"$GITHUB_REPOSITORY must be owner/name, not {repo!r}")
    pr = pr if pr is not None else pr_number_from_event(env)
    if pr is None or pr <= 0:
        raise UsageError("no pull request number: pass --pr N (the event in $GITHUB_EVENT_PATH names none)")
    owner, name = (quote(p, safe="") for p in repo.split("/"))
    what = f"{repo}#{pr}"
    api = _Api(env.get("GITHUB_API_URL") or "https://api.github.com",
               {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "porter"}, "GITHUB_TOKEN", sleep)
    try:
        if head_sha is not None:
            reading = f"{what}: reading the pull request"
            got = api.call("GET", f"repos/{owner}/{name}/pulls/{pr}", reading).json(reading, dict)
            head = got.get("head")
            actual = head.get("sha") if isinstance(head, dict) else None
            if not isinstance(actual, str) or not actual:
                raise UsageError(f"{what}: the pull request names no head commit; refusing to post")
            if actual != head_sha:
                # The pull request moved on (a push after the scanned one): that push's own run comments. Posting
                # this body would describe another commit; failing would turn the PR's check red for a routine race.
                return Outcome("skipped", "", 0, f"{what}: its head is {actual[:12]}, not {head_sha[:12]}: not posting "
                                                 "a body scanned from another commit (the newer push's run comments)")
        return _sticky(api, f"repos/{owner}/{name}/issues/{pr}/comments",
                       lambda cid: f"repos/{owner}/{name}/issues/comments/{int(cid)}", text, what, "PATCH",
                       lambda: _login(api, what, "login", bot_login, env, github=True),
                       lambda c: (c.get("user") or {}).get("login") if isinstance(c.get("user"), dict) else None)
    finally:
        api.close()


def post_gitlab(body: str, mr: int | None = None, env: Mapping[str, str] | None = None,
                token_variable: str = "PORTER_GITLAB_TOKEN", bot_login: str | None = None,
                sleep: Callable[[float], None] = time.sleep) -> Outcome:
    """Create or update porter's note on a GitLab merge request (`mr` or $CI_MERGE_REQUEST_IID). The note porter
    edits is the one with the marker whose author is the token's user (GET /user's username, or `bot_login`)."""
    env = os.environ if env is None else env
    text = with_marker(body)  # an empty body fails before any request
    api_url = env.get("CI_API_V4_URL", "")
    project = env.get("CI_PROJECT_ID", "")
    token = env.get(token_variable, "")
    if not api_url:
        raise UsageError("$CI_API_V4_URL is not set (run in a GitLab merge-request pipeline)")
    if not project:
        raise UsageError("$CI_PROJECT_ID is not set")
    if not token:
        raise UsageError(f"${token_variable} is not set: a project or group access token with the api scope "
                         "(CI_JOB_TOKEN cannot write notes)")
    if mr is None:
        iid = env.get("CI_MERGE_REQUEST_IID", "")
        if not iid.isdigit():
            raise UsageError("no merge request: pass --pr N or run in a merge-request pipeline "
                             "($CI_MERGE_REQUEST_IID)")
        mr = int(iid)
    pid = quote(project, safe="")
    what = f"project {project} !{mr}"
    api = _Api(api_url, {"PRIVATE-TOKEN": token, "User-Agent": "porter"}, token_variable, sleep)
    try:
        return _sticky(api, f"projects/{pid}/merge_requests/{mr}/notes",
                       lambda nid: f"projects/{pid}/merge_requests/{mr}/notes/{int(nid)}", text, what, "PUT",
                       lambda: _login(api, what, "username", bot_login, env, github=False),
                       lambda c: (c.get("author") or {}).get("username") if isinstance(c.get("author"), dict) else None)
    finally:
        api.close()
