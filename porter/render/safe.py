"""Neutralise repository-derived text before any renderer shows it: one place for control characters and markup.

A scanned repository chooses its file names, snippets, kernel and library names; none of them may steer a
terminal (ANSI/OSC escapes, rich markup) or a Markdown report (raw HTML, broken code spans, injected lines).
`printable` makes control characters visible; `literal` is the rich Text every console renderer prints repository
text through; `md_text`, `md_code` and `html_text` are the Markdown and HTML-in-Markdown forms.
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported by the console renderers that call literal(), not by every run
    from rich.text import Text

# C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides and isolates (Trojan-source
# reordering), bidi marks and zero-width characters (U+061C, U+180E, U+200B-U+200F, U+2060-U+2064, U+FEFF: a name
# that looks like another, or text that reads differently from what it is), and lone surrogates (bytes of a
# non-UTF-8 name that the terminal could not encode).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                      "\u2066-\u2069\ufeff\ud800-\udfff]")
_LINE_BREAKS = re.compile("[\t\n\u2028\u2029]")


def _escape(ch: str) -> str:
    n = ord(ch)
    if 0xDC80 <= n <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{n - 0xDC00:02x}"
    return f"\\x{n:02x}" if n <= 0xFF else f"\\u{n:04x}"


def printable(text: str) -> str:
    """Control characters (a snippet from a binary file) as visible \\xNN escapes; tab and newline are kept."""
    return _CONTROL.sub(lambda m: _escape(m.group(0)), text)


def one_line(text: str) -> str:
    """A name on one line: every control character escaped, newlines and tabs too (they would inject lines)."""
    return _LINE_BREAKS.sub(lambda m: _escape(m.group(0)), printable(text))


@functools.cache
def _text_class() -> type[Text]:
    from rich.text import Text

    return Text


def literal(text: object, style: str = "") -> Text:
    """Repository text for a rich console: never parsed as markup, control characters shown as escapes."""
    return _text_class()(printable(str(text)), style=style)


def literal_name(text: object, style: str = "") -> Text:
    """A file, kernel or library name for a rich console: `literal`, on one line."""
    return _text_class()(one_line(str(text)), style=style)


# Markdown punctuation that could open emphasis, a link or image (external images are tracking pixels), a
# table cell, a code span or strike-through; < and & become character references so no HTML tag, and no entity
# that decodes to a control or bidi character, reaches the renderer (a lone > opens nothing mid-line).
_MD_SPECIAL = re.compile(r"[\\`*\[\]|~]|(?<![^\W_])_|_(?![^\W_])")  # an intraword _ emphasises nothing
_HTML = {"&": "&amp;", "<": "&lt;"}


# `@name` (or `@org/team`) in prose is a live mention on GitHub and GitLab: it notifies that user. Their renderers
# (html-pipeline's MentionFilter and its GitLab counterpart) look for mentions in the text nodes of the rendered
# HTML and skip text inside code, pre and a elements. An escape does not help: `&#64;` and `\@` both decode to a
# plain "@" in the text node the filter reads. So a mention-shaped token from the repository becomes a code span.
# Every `@name`-shaped token is wrapped, whatever precedes it: which preceding characters spare one differs between
# renderers (Ruby's ASCII \W on GitHub: `é@name` and a lone backtick before `@name` mention), and a code span around
# an e-mail address's `@b.c` costs nothing. One pattern for every renderer and for `porter comment`'s inert bodies.
MENTION = re.compile(r"@[A-Za-z0-9][A-Za-z0-9_./-]*")
# Links no Markdown asks for: GFM's autolink extension links a bare http(s)/ftp URL and a `www.` domain
# (https://github.github.com/gfm/#autolinks-extension-), and GitHub links `#12`, `GH-12` and `owner/repo#12` to issues
# and pull requests; one to another repository adds a "mentioned this" event to that issue, so a bot posting a
# stranger's commit subject can spam any project. None of them is recognised in a code span, and an escape does not
# stop a reference (GitHub finds it in the rendered text, as a mention). A trailing comma or period a URL takes
# along only shows inside the span.
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>`]+", re.IGNORECASE)
_WWW = re.compile(r"(?<![A-Za-z0-9])www\.[^\s<>`]+", re.IGNORECASE)
_REFERENCE = re.compile(r"(?<![\w/.-])(?:[A-Za-z0-9][\w.-]*/[\w.-]+)?#\d+\b|\bGH-\d+\b", re.IGNORECASE)
# Every token that is live in prose, for the renderers that wrap repository text (md_text, html_text).
LIVE = re.compile("|".join(f"(?:{p.pattern})" for p in (MENTION, _URL, _WWW, _REFERENCE)), re.IGNORECASE)
# porter's PR-comment marker is an HTML comment; a code span shows its text verbatim, so a file name could carry the
# marker into porter's own body. `<!--` in a code span is shown with its `<` as the escape \x3c instead.
_COMMENT_OPEN = "<!--"


def _md_escape(flat: str) -> str:
    flat = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), flat)
    return re.sub("[&<]", lambda m: _HTML[m.group(0)], flat)


def md_text(text: object) -> str:
    """Repository text inside Markdown prose or a table cell: one line, no markup, no HTML, no live @mention, link
    or issue reference (LIVE: each such token becomes a code span)."""
    flat = " ".join(printable(str(text)).split())
    out, last = [], 0
    for m in LIVE.finditer(flat):
        out += [_md_escape(flat[last:m.start()]), md_code(m.group(0))]
        last = m.end()
    return "".join(out) + _md_escape(flat[last:])


def md_code(text: object) -> str:
    """An inline code span holding `text` verbatim: fenced by a backtick run longer than any inside it.

    A code span shows its content literally (no HTML, no emphasis, no mention); pipes are still escaped because a
    GFM table splits its cells before it reads code spans, and `<!--` shows as `\\x3c!--` (see _COMMENT_OPEN)."""
    flat = " ".join(printable(str(text)).split()).replace("|", "\\|").replace(_COMMENT_OPEN, "\\x3c!--")
    if not flat:
        return ""
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def html_text(text: object) -> str:
    """Repository text inside one of porter's own HTML tags in Markdown (e.g. <summary>), where Markdown escapes do
    not apply: one line, HTML-escaped, a mention, link or reference (LIVE) inside <code>: GitHub finds mentions and
    references in the rendered HTML's text, inside porter's own tags too."""
    import html

    flat = " ".join(one_line(str(text)).split())
    out, last = [], 0
    for m in LIVE.finditer(flat):
        out += [html.escape(flat[last:m.start()], quote=True), f"<code>{html.escape(m.group(0), quote=True)}</code>"]
        last = m.end()
    return "".join(out) + html.escape(flat[last:], quote=True)


def spreadsheet_cell(text: object) -> str:
    """Repository text in a CSV cell: control characters escaped, and a cell a spreadsheet would run as a formula
    (starting with = + - @ tab or CR) shown as text."""
    out = printable(str(text))
    return "'" + out if out[:1] in ("=", "+", "-", "@", "\t", "\r") else out


# ------------------------------------------------------------------------- Markdown a bot posts, made inert

# What porter's own comment uses outside code spans (porter.render.pr_comment): Markdown emphasis, headings, lists,
# tables, <br>, <sub> and the <details>/<summary> fold of its notes. Anything else in a body is not porter's and is
# made inert (see inert_markdown).
_OWN_TAGS = re.compile(r"<(?:br|/?sub|/?details|/?summary)>")
# A code span as GitHub reads one, or less: an opening run that is a whole run (not the tail of a longer one, not
# after a backslash, which makes its first backtick literal), closed by a run of the same length, with no unescaped
# `|` inside (a GFM table splits its cells at those before it looks for code spans). Text this misses as a span is
# only made inert where it did not need to be; text it took for a span that GitHub does not would be posted live.
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(?:\\\||[^|])+?(?<!`)\1(?!`)")
# A line that starts a raw HTML block with one of porter's own tags (after any quote or list markers): `<details>` or
# `<summary>` with anything after it, or `<sub>`/`</sub>`/`<br>` alone. GitHub then reads every line up to the next
# blank one as HTML, where a code span is not a span (its `<img>` renders) and a backticked @name still mentions.
_HTML_BLOCK = re.compile(r"^(?:[ \t>]|(?:[-+*]|\d{1,9}[.)])[ \t])*(?:</?(?:details|summary)>|<(?:br|/?sub)>[ \t]*$)")


def inert_markdown(body: str, own_links: str | None = None, keep_first: str | None = None, *,
                   own_tags: bool = True) -> str:
    """Markdown a bot posts (porter comment's body, an rdjsonl message reviewdog posts, a repository rule's SARIF
    help) with everything porter's own comments never hold made inert: outside code spans, `@name` becomes a code
    span, `![` and `[` lose their link meaning, bare URLs, `www.` domains and issue references (`#12`,
    `owner/repo#12`) become code, and `<` is escaped except in porter's own
    `<br>` / `<sub>` tags (and a first line equal to `keep_first`, porter's marker). `own_links`: the pull
    request's own blob URL prefix, whose line links (`[L12](prefix…)`) are kept. Without `own_tags` no tag is
    kept either (an rdjsonl message: porter writes none there, so a `<details>` in one is the repository's)."""
    # No line is left as it is for being inside a fenced code block: porter's comments hold none, and telling a fence
    # as GitHub does (indentation, info strings, closing runs at least as long, containers, HTML blocks) is a parser
    # of its own; inside a real fence the escapes only show literally.
    out: list[str] = []
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if i == 0 and keep_first is not None and line == keep_first:
            out.append(line)
            continue
        pieces, last = [], 0
        for m in _CODE_SPAN.finditer(line):
            pieces += [_inert_text(line[last:m.start()], own_links, own_tags), m.group(0)]
            last = m.end()
        out.append("".join(pieces) + _inert_text(line[last:], own_links, own_tags))
        if _HTML_BLOCK.match(out[-1]) and i + 1 < len(lines) and lines[i + 1].strip():
            out.append("")  # ends the HTML block: the next line is Markdown again (porter's own have the blank line)
    return "\n".join(out)


def _inert_text(text: str, own_links: str | None = None, own_tags: bool = True) -> str:
    """One stretch of Markdown outside code spans, made inert (inert_markdown)."""
    kept: list[str] = []

    def keep(m: re.Match[str] | _Code) -> str:
        kept.append(m.group(0))
        return f"\0{len(kept) - 1}\0"

    text = text.replace("\0", "")
    if own_tags:
        text = _OWN_TAGS.sub(keep, text)
    if own_links:
        # A `.` or `..` segment (`%2e` is one too, in the WHATWG URL standard browsers follow) would lead a link
        # with the prefix out of the pull request's repository: `blob/<head>/../../../../x/y` is github.com/x/y.
        text = re.sub(r"\[L\d+\]\(" + re.escape(own_links) + r"(?![^\s()<>`\[\]]*?(?<=/)(?:\.|%2e){1,2}(?:[/?#)]))"
                      r"[^\s()<>`\[\]]*\)", keep, text, flags=re.IGNORECASE)
    # GitHub autolinks bare URLs and `www.` domains and links issue references, never in code
    text = _INERT_CODE.sub(lambda m: keep(_Code(f"`{m.group(0)}`")), text)
    # A backtick left here is one GitHub could still pair with a neighbour (a run the span pattern did not take, or
    # the one before a mention's code span below: "``" + "`@x`" opens a run of three and leaves @x live): as an
    # entity it shows as a backtick and opens nothing. A backtick after an odd run of backslashes is already
    # literal and opens nothing: it stays, since `\&#96;` would show the entity's own text (the backslash escapes
    # the `&`), and porter's Markdown writes `\`` for every backtick in prose.
    text = re.sub(r"(\\*)`", lambda m: m.group(0) if len(m.group(1)) % 2 else m.group(1) + "&#96;", text)
    text = text.replace("<", "&lt;").replace("![", "!\\[").replace("](", "]\\(")
    # A backslash just before a code span added here (a mention, a URL) would escape its opening backtick and leave
    # the @name or the link live.
    text = re.sub(r"\\+(?=@|\0)", lambda m: "&#92;" * len(m.group(0)), text)
    text = MENTION.sub(lambda m: f"`{m.group(0)}`", text)  # the one pattern every renderer uses
    return re.sub("\0(\\d+)\0", lambda m: kept[int(m.group(1))], text)


_INERT_CODE = re.compile("|".join(f"(?:{p.pattern})" for p in (_URL, _WWW, _REFERENCE)), re.IGNORECASE)


class _Code(str):
    """Text _inert_text keeps as it is (quacks like the match its `keep` takes)."""

    def group(self, _n: int = 0) -> str:
        return str(self)


# Git's C-style quoting of a path in a patch header (`git diff` writes `"a/x\n.cu"`; `git apply` and GNU patch read
# it): a name holding a newline written raw starts a header line of the attacker's (`+++ b/other`, a hunk of theirs).
_GIT_QUOTED = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v", 0x0C: b"\\f", 0x0D: b"\\r",
               0x22: b'\\"', 0x5C: b"\\\\"}


def patch_path(prefix: bytes, name: str) -> bytes:
    """`prefix + name` as a unified diff's header shows it: as is, or quoted as git quotes it when it holds a control
    character, a quote, a backslash or a byte past ASCII (each such byte as an octal escape)."""
    raw = prefix + name.encode("utf-8", "surrogateescape")
    if all(0x20 <= b < 0x7F and b not in (0x22, 0x5C) for b in raw):
        return raw
    return b'"' + b"".join(_GIT_QUOTED.get(b) or (bytes([b]) if 0x20 <= b < 0x7F else b"\\%03o" % b)
                           for b in raw) + b'"'
