"""Red team: `porter comment` posts a body from an untrusted job inert (porter.comment.inert_body) also where GitHub's
Markdown reads fences and code spans differently from a line-by-line guess.

Each body below was posted with a live @team mention, raw HTML or an image before the fix: porter took a line for
the inside of a fence, or a stretch for a code span, that GitHub (CommonMark/GFM) does not."""
from __future__ import annotations

import pytest

from porter.comment import inert_body

PAYLOAD = "@acme/admins <img src=x> ![p](t)"
INERT = "`@acme/admins` &lt;img src=x> !\\[p]\\(t)"


@pytest.mark.parametrize("body, expected", [
    # four spaces: an indented code line, not a fence, so the next line is prose
    ("intro\n\n    ```\n" + PAYLOAD, "intro\n\n    &#96;&#96;&#96;\n" + INERT),
    # a closing fence has no info string: "```x" does not close the first fence, the third line does
    ("```\n```x\n```\n" + PAYLOAD, "&#96;&#96;&#96;\n&#96;&#96;&#96;x\n&#96;&#96;&#96;\n" + INERT),
    # a fence of four is closed only by four or more
    ("````\nx\n```\n" + "y\n````\n" + PAYLOAD,
     "&#96;&#96;&#96;&#96;\nx\n&#96;&#96;&#96;\ny\n&#96;&#96;&#96;&#96;\n" + INERT),
])
def test_a_line_porter_took_for_fenced_code_is_made_inert(body, expected):
    assert inert_body(body) == expected


@pytest.mark.parametrize("body, expected", [
    # a backslash makes the first backtick literal: no code span opens there
    # (it stays `\``: `\&#96;` would show "&#96;", the backslash escaping the entity's `&`)
    ("see \\`" + PAYLOAD + "`", "see \\`" + INERT + "&#96;"),
    # two backslashes are one literal backslash: the backtick after them is live and is made an entity
    ("see \\\\`" + PAYLOAD + "`", "see \\\\&#96;" + INERT + "&#96;"),
    # a run of two is not closed by a run of one: "``" is literal and the span is "`rest`"
    ("``" + PAYLOAD + "`rest`", "&#96;&#96;" + INERT + "`rest`"),
    # a GFM table splits cells at unescaped pipes before it reads code spans
    ("| `a | " + PAYLOAD + " | b` |", "| &#96;a | " + INERT + " | b&#96; |"),
])
def test_a_stretch_porter_took_for_a_code_span_is_made_inert(body, expected):
    assert inert_body(body) == expected


def test_a_backslash_before_an_added_code_span_cannot_escape_its_backtick():
    assert inert_body("x \\@acme/admins and \\https://evil.example/p") == \
        "x &#92;`@acme/admins` and &#92;`https://evil.example/p`"


def test_real_code_spans_still_pass_unchanged():
    body = "ok `<b>@x\\|y</b>` and ``a`b`` and ```t``s`.cu```"
    assert inert_body(body) == body


@pytest.mark.parametrize("body, expected", [
    # `<details>` starts an HTML block up to the next blank line: the span's <img> rendered, the @name mentioned
    ("<details>\n`<img src=x>` @acme/admins", "<details>\n\n`<img src=x>` `@acme/admins`"),
    ("> - <summary>\n> `<img src=x>`", "> - <summary>\n\n> `<img src=x>`"),
    # a lone <sub> (an HTML block of the kind that needs the tag alone on its line)
    ("<sub>\n`<img>`", "<sub>\n\n`<img>`"),
    # porter's own layout (a blank line after the tag) and inline tags are left as they are
    ("<details><summary>x</summary>\n\n- a\n\n</details>", "<details><summary>x</summary>\n\n- a\n\n</details>"),
    ("<sub>compared</sub>\n`<img>`", "<sub>compared</sub>\n`<img>`"),
])
def test_a_line_porters_own_tag_starts_as_html_block_is_ended_by_a_blank_line(body, expected):
    assert inert_body(body) == expected
