"""Red team (session 21): repository text in porter's Markdown carries no live link and no issue reference.

GFM links a bare `https://…` / `ftp://…` URL and a `www.` domain with no Markdown around them (the autolink
extension, https://github.github.com/gfm/#autolinks-extension-), and GitHub links `#12`, `GH-12` and
`owner/repo#12` to issues and pull requests; one to another repository adds a "mentioned this" event to that
issue's timeline, so a bot posting a stranger's text can be made to spam any project
(https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/autolinked-references-and-urls).
None of these is recognised inside a code span. Before the fix a commit subject came out of `porter history -f
markdown` as live prose, and `porter comment` posted a body's `www.` link and references live (only `scheme://`
URLs and @mentions were made code)."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from porter.comment import MARKER, inert_body
from porter.render.safe import html_text, md_text
from tests.helpers import git, make_repo, porter_here

LIVE = ("https://evil.example/login", "www.evil.example/x", "torvalds/linux#1", "GH-7", "#12")
SUBJECT = "Fix see https://evil.example/login and www.evil.example/x, fixes torvalds/linux#1 GH-7 (#12)"


class _Prose(HTMLParser):
    """The text of rendered HTML outside <code>: where GitHub's autolinker and reference filter look."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.depth += tag == "code"

    def handle_endtag(self, tag):
        self.depth -= tag == "code"

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)


def _prose(md: str) -> str:
    p = _Prose()
    p.feed(MarkdownIt("commonmark", {"html": True}).enable("table").render(md))
    return "".join(p.text)


def _live_in(md: str) -> list[str]:
    prose = _prose(md)
    return [t for t in LIVE if re.search(r"(?<![\w/])" + re.escape(t), prose)]


def test_a_commit_subject_in_history_markdown_links_nothing(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": "__global__ void k() {}\n"})
    (repo / "k.cu").write_text("__global__ void k() { __syncthreads(); }\n")
    git(repo, "commit", "-qam", SUBJECT)
    p = porter_here("history", str(repo), "-f", "markdown", "--no-cache")
    assert p.returncode == 0, p.stderr
    row = next(line for line in p.stdout.splitlines() if "evil" in line)
    assert row.endswith("| Fix see `https://evil.example/login` and `www.evil.example/x,` fixes `torvalds/linux#1` "
                        "`GH-7` (`#12`) |")
    assert _live_in(p.stdout) == []


def test_a_posted_body_makes_www_links_and_references_inert():
    body = f"{MARKER}\n- {SUBJECT}\n- WWW.evil.example and org/repo#3."
    posted = inert_body(body)
    assert posted.splitlines()[1:] == [
        "- Fix see `https://evil.example/login` and `www.evil.example/x,` fixes `torvalds/linux#1` `GH-7` (`#12`)",
        "- `WWW.evil.example` and `org/repo#3`."]
    assert _live_in(posted) == []
    assert inert_body(posted) == posted  # porter's own output passes unchanged


def test_the_text_helpers_code_live_tokens_and_leave_near_misses():
    assert md_text("see www.e.example, #3 and a/b#4") == "see `www.e.example,` `#3` and `a/b#4`"
    assert html_text("x #3 ftp://h/p") == "x <code>#3</code> <code>ftp://h/p</code>"
    # no link there: a # inside a word or a path, an anchor, an e-mail's host already coded as a mention
    assert md_text("k#3 src/a/b#4 #pragma x@y.z") == "k#3 src/a/b#4 #pragma x`@y.z`"
