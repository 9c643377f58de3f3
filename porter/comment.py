"""Keep one sticky porter comment on a pull request (GitHub REST) or merge request (GitLab notes API) up to date.

porter's comment is the one whose first line is the marker `<!-- porter:pr-comment -->`
(porter.render.pr_comment.MARKER). Every page of the PR's comments is read (following the `Link: rel="next"`
header) to find it; it is edited when the body changed, left alone when it did not, and a new comment is posted only
when there is none. No other comment is ever edited. API failures become UsageErrors that say what to fix: a bad
token (401), missing permission or a rate limit with when to retry (403/429), a wrong repository or PR number
(404), a body the API refused (422).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

import httpx

from porter.errors import UsageError
from porter.render.pr_comment import LIMIT, MARKER

TIMEOUT = 30.0
MAX_PAGES = 100  # 10,000 comments at 100 a page: a bound, not a limit anyone meets


class ApiError(UsageError):
    """The code-hosting API refused a request; the message says why and what to do."""


@dataclass(frozen=True)
class Outcome:
    action: str  # "created", "updated" or "unchanged"
    url: str  # the comment's API URL (or web URL when the API gives one)
    id: int


def with_marker(body: str) -> str:
    """The body as posted: the marker first (added when missing), at most LIMIT characters."""
    text = body if body.startswith(MARKER) else f"{MARKER}\n{body}"
    if len(text) > LIMIT:
        raise UsageError(f"the comment body is {len(text)} characters, over the {LIMIT} GitHub accepts "
                         "(render it with `porter scan --new-since ... --format markdown`, which truncates)")
    return text


def is_ours(body: Any) -> bool:
    return isinstance(body, str) and body.splitlines()[:1] == [MARKER]


def _explain(resp: httpx.Response, what: str, token_name: str) -> ApiError:
    try:
        detail = resp.json()
        message = detail.get("message") if isinstance(detail, dict) else None
        errors = detail.get("errors") if isinstance(detail, dict) else None
    except ValueError:
        message, errors = None, None
    said = f": {message}" if message else ""
    if errors:
        said += f" ({json.dumps(errors)[:300]})"
    code = resp.status_code
    retry = resp.headers.get("retry-after")
    remaining = resp.headers.get("x-ratelimit-remaining")
    if code == 401:
        return ApiError(f"{what}: 401 unauthorized{said}: ${token_name} is missing, expired or not a token for this API")
    if code in (403, 429) and (retry or remaining == "0" or code == 429):
        when = f"retry after {retry} s" if retry else (
            f"the limit resets at {resp.headers.get('x-ratelimit-reset')} (epoch seconds)"
            if resp.headers.get("x-ratelimit-reset") else "retry later")
        return ApiError(f"{what}: {code} rate limited{said}: {when}")
    if code == 403:
        return ApiError(f"{what}: 403 forbidden{said}: the token may not write comments here (GitHub: give the job "
                        "`permissions: pull-requests: write`; a pull_request run from a fork only has a read-only "
                        "token, so post from a workflow_run job, see docs/ci.md)")
    if code == 404:
        return ApiError(f"{what}: 404 not found{said}: check the repository / project and the PR / MR number, and "
                        "that the token can see them")
    if code == 422:
        return ApiError(f"{what}: 422 unprocessable{said}: the API refused the comment body")
    return ApiError(f"{what}: HTTP {code}{said}")


class _Api:
    def __init__(self, base: str, headers: Mapping[str, str], token_name: str):
        self.token_name = token_name
        self.client = httpx.Client(base_url=base.rstrip("/") + "/", headers=dict(headers), timeout=TIMEOUT,
                                   follow_redirects=False, trust_env=True)

    def call(self, method: str, url: str, what: str, **kw) -> httpx.Response:
        try:
            resp = self.client.request(method, url, **kw)
        except httpx.HTTPError as e:
            raise ApiError(f"{what}: cannot reach {self.client.base_url}: {e}") from None
        if resp.status_code >= 400:
            raise _explain(resp, what, self.token_name)
        return resp

    def pages(self, url: str, what: str, params: dict[str, Any]) -> list[dict]:
        """Every item of a paginated list, following `Link: <...>; rel="next"`."""
        items: list[dict] = []
        next_url: str | None = url
        for _ in range(MAX_PAGES):
            if next_url is None:
                return items
            resp = self.call("GET", next_url, what, params=params if next_url == url else None)
            try:
                page = resp.json()
            except ValueError:
                raise ApiError(f"{what}: the API answered with something that is not JSON") from None
            if not isinstance(page, list):
                raise ApiError(f"{what}: expected a list of comments from the API")
            items.extend(p for p in page if isinstance(p, dict))
            nxt = resp.links.get("next", {}).get("url")
            next_url = nxt if nxt and nxt != next_url else None
        raise ApiError(f"{what}: more than {MAX_PAGES} pages of comments")

    def close(self) -> None:
        self.client.close()


def _sticky(api: _Api, list_url: str, item_url, body: str, what: str, edit_method: str) -> Outcome:
    text = with_marker(body)
    comments = api.pages(list_url, f"{what}: listing comments", {"per_page": 100})
    ours = [c for c in comments if is_ours(c.get("body"))]
    if ours:
        c = min(ours, key=lambda c: c.get("id", 0))  # the oldest: the one porter has kept updating
        if c.get("body") == text:
            return Outcome("unchanged", str(c.get("html_url") or c.get("url") or ""), int(c.get("id", 0)))
        resp = api.call(edit_method, item_url(c["id"]), f"{what}: updating comment {c['id']}", json={"body": text})
        got = resp.json() if resp.content else {}
        return Outcome("updated", str(got.get("html_url") or got.get("url") or ""), int(c["id"]))
    resp = api.call("POST", list_url, f"{what}: posting the comment", json={"body": text})
    got = resp.json() if resp.content else {}
    return Outcome("created", str(got.get("html_url") or got.get("url") or ""), int(got.get("id", 0)))


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
                head_sha: str | None = None) -> Outcome:
    """Create or update porter's comment on GitHub pull request `pr` (or the event's). With `head_sha`, only when
    the pull request's head is that commit (the number may come from an artifact a fork's run wrote)."""
    env = os.environ if env is None else env
    repo = env.get("GITHUB_REPOSITORY", "")
    token = env.get("GITHUB_TOKEN", "")
    if not token:
        raise UsageError("$GITHUB_TOKEN is not set (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})")
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise UsageError(f"$GITHUB_REPOSITORY must be owner/name, not {repo!r}")
    pr = pr if pr is not None else pr_number_from_event(env)
    if pr is None or pr <= 0:
        raise UsageError("no pull request number: pass --pr N (the event in $GITHUB_EVENT_PATH names none)")
    owner, name = (quote(p, safe="") for p in repo.split("/"))
    api = _Api(env.get("GITHUB_API_URL") or "https://api.github.com",
               {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "porter"}, "GITHUB_TOKEN")
    try:
        if head_sha is not None:
            got = api.call("GET", f"repos/{owner}/{name}/pulls/{pr}", f"{repo}#{pr}: reading the pull request").json()
            actual = (got.get("head") or {}).get("sha") if isinstance(got, dict) else None
            if actual != head_sha:
                raise UsageError(f"{repo}#{pr}: its head is {str(actual)[:12]}, not {head_sha[:12]}: "
                                 "refusing to post a body scanned from another commit")
        return _sticky(api, f"repos/{owner}/{name}/issues/{pr}/comments",
                       lambda cid: f"repos/{owner}/{name}/issues/comments/{int(cid)}", body,
                       f"{repo}#{pr}", "PATCH")
    finally:
        api.close()


def post_gitlab(body: str, mr: int | None = None, env: Mapping[str, str] | None = None,
                token_variable: str = "PORTER_GITLAB_TOKEN") -> Outcome:
    """Create or update porter's note on a GitLab merge request (`mr` or $CI_MERGE_REQUEST_IID)."""
    env = os.environ if env is None else env
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
    api = _Api(api_url, {"PRIVATE-TOKEN": token, "User-Agent": "porter"}, token_variable)
    try:
        return _sticky(api, f"projects/{pid}/merge_requests/{mr}/notes",
                       lambda nid: f"projects/{pid}/merge_requests/{mr}/notes/{int(nid)}", body,
                       f"project {project} !{mr}", "PUT")
    finally:
        api.close()
