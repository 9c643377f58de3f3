"""A hostile repository cannot steer porter's output: file names with rich markup, ANSI/OSC escapes, HTML,
backticks and newlines reach every format as inert text (issue 18, parts 6 and 7).

Every test runs the real CLI on a real git repository made in tmp_path.
"""
from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from helpers import REPO, make_repo, porter_here
from porter.render.safe import html_text, literal, md_code, md_text, one_line, printable
from porter.render.sarif import artifact_uri

KERNEL = b"__global__ void k(float* x){ x[threadIdx.x]=1; }\nint main(){ float* d; cudaMalloc(&d, 4); k<<<1,32>>>(d); }\n"
SCRIPT = "<script>alert(1)</script>.cu"  # a directory `<script>alert(1)<` holding `script>.cu`
IMG = "<img src=x onerror=alert(1)>.cu"
PIXEL = "![t](https:/track.invalid/p.png).cu"
MARKUP = "[bold red]INJECTED.cu"
CLOSING = "x[/red].cu"  # a directory `x[` holding `red].cu`: the closing tag crashed rich
OSC = "a\x1b]0;pwned\x07b\x1b[2J.cu"  # set the terminal title, clear the screen
TICKS = "tick`s``.cu"
NEWLINE = "new\nline.cu"
NAMES = (SCRIPT, IMG, PIXEL, MARKUP, CLOSING, OSC, TICKS, NEWLINE)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("hostile") / "repo", {name: KERNEL for name in NAMES})


def porter_ok(*args: str) -> str:
    p = porter_here(*args, *(() if args[0] == "translate" else ("--no-cache",)))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout


# --- the helpers ---------------------------------------------------------------------------------------------

def test_printable_escapes_controls_bidi_and_surrogate_bytes_but_keeps_tab_and_newline():
    assert printable("a\x1b[2Jb\x07\x9b\u202e\udcff\tc\n") == "a\\x1b[2Jb\\x07\\x9b\\u202e\\xff\tc\n"
    assert one_line("new\nline\t.cu") == "new\\x0aline\\x09.cu"


def test_literal_is_never_markup():
    t = literal("[bold red]x[/red] \x1b]0;t\x07")
    assert t.plain == "[bold red]x[/red] \\x1b]0;t\\x07"
    assert t.spans == []


def test_markdown_text_and_code_spans():
    assert md_text("<img src=x> & [a](http://t) *b* `c` |d| ~e~ \\") == \
        "&lt;img src=x> &amp; \\[a\\](`http://t)` \\*b\\* \\`c\\` \\|d\\| \\~e\\~ \\\\"  # a bare URL is code (GFM autolinks it)
    assert md_text("two\nlines") == "two lines"
    assert md_code("a``b`c") == "```a``b`c```"
    assert md_code("`x") == "`` `x ``"
    assert md_code("a|b <i>") == "`a\\|b <i>`"
    assert html_text("<b>\n&\"") == "&lt;b&gt;\\x0a&amp;&quot;"


def test_sarif_uri_keeps_non_utf8_names_addressable():
    assert artifact_uri("src/k\udcff.cu") == "src/k%FF.cu"  # surrogate-escaped
    assert artifact_uri("src/k\\xff.cu") == "src/k%FF.cu"  # as discovery shows it
    assert artifact_uri("a b#\\x41/é.cu") == "a%20b%23%5Cx41/%C3%A9.cu"  # \x41 is never a discovery escape


# --- Markdown ------------------------------------------------------------------------------------------------

class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)


def test_markdown_report_renders_no_html_from_the_repository(hostile):
    md = porter_ok("assess", str(hostile), "--explain", "-f", "markdown")
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    tags = _Tags()
    tags.feed(rendered)
    # only the tags porter writes itself: no script, img, a (tracking pixels and spoofed links) or anything else
    assert tags.tags == {"h1", "h2", "h3", "p", "strong", "code", "ul", "li", "table", "thead",
                         "tbody", "tr", "th", "td", "details", "summary", "br"}
    lines = md.splitlines()
    # the kernels table: names as code spans fenced longer than their backtick runs, one row per kernel
    # (the last cell, days, is each row's share of the rounded total: not what this test is about)
    rows = {line.rsplit(" | ", 1)[0] for line in lines if line.startswith("| `k` |")}
    assert "| `k` | ```tick`s``.cu:1``` | 1 | retune | block-not-wave-multiple: block of 32 threads is not a " \
           "multiple of 64" in rows
    assert "| `k` | `new line.cu:1` | 1 | retune | block-not-wave-multiple: block of 32 threads is not a " \
           "multiple of 64" in rows
    # --explain's <summary> is raw HTML in Markdown: its names are HTML-escaped, control characters visible
    summaries = sorted(line for line in lines if line.startswith("<details><summary>CUDA API"))
    assert summaries == sorted(
        f"<details><summary>CUDA API name that hipify renames — {shown} (1)</summary>" for shown in (
            "&lt;img src=x onerror=alert(1)&gt;.cu", "&lt;script&gt;alert(1)&lt;/script&gt;.cu",
            "![t](https:/track.invalid/p.png).cu", "[bold red]INJECTED.cu", "a\\x1b]0;pwned\\x07b\\x1b[2J.cu",
            "new\\x0aline.cu", "tick`s``.cu", "x[/red].cu"))
    assert not any(line.startswith("line.cu") for line in lines)  # the newline injected no line
    assert "\x1b" not in md and "\x07" not in md


# --- console -------------------------------------------------------------------------------------------------

SHOWN = ("[bold red]INJECTED.cu", "x[/red].cu", "a\\x1b]0;pwned\\x07b\\x1b[2J.cu", "new\\x0aline.cu",
         "<script>alert(1)</script>.cu")


@pytest.mark.parametrize("args", [("scan",), ("scan", "-v"), ("assess",), ("assess", "--explain")])
def test_console_views_show_names_literally_and_carry_no_escapes(hostile, args):
    out = porter_ok(*args, str(hostile))
    assert "\x1b" not in out and "\x07" not in out
    for name in SHOWN:
        if args[0] == "scan" or name != "new\\x0aline.cu":  # assess' top-10 tables may leave one out
            assert name in out, name


def test_translate_console_shows_names_literally(hostile, tmp_path):
    out = porter_ok("translate", str(hostile), "-o", str(tmp_path / "out"), "--engine", "builtin")
    assert "\x1b" not in out
    rows = [re.sub(r"\s+", " ", line) for line in out.splitlines() if "translated │" in line]
    assert sorted(r.split("│")[1].strip() for r in rows) == sorted(
        ["![t](https:/track.invalid/p.png).cu", "<img src=x onerror=alert(1)>.cu", "<script>alert(1)</script>.cu",
         "[bold red]INJECTED.cu", "a\\x1b]0;pwned\\x07b\\x1b[2J.cu", "new\\x0aline.cu", "tick`s``.cu", "x[/red].cu"])


def test_porters_own_rule_text_with_brackets_does_not_crash_scan_verbose():
    p = porter_here("scan", "-v", str(REPO / "fixtures/rules/CTR004-nvidia-device-request"), "--no-cache",
                   env={"COLUMNS": "400"})
    assert p.returncode == 0, p.stderr
    assert "on ROCm use compose `devices: [/dev/kfd, /dev/dri]` with `group_add: [video]`" in p.stdout


def test_error_messages_show_paths_literally(tmp_path):
    p = porter_here("scan", str(tmp_path / "[red]x[/red]\x1b[2J"))
    assert p.returncode == 2
    assert p.stderr == f"error: {tmp_path}/[red]x[/red]\\x1b[2J: no such file or directory\n"


# --- HTML and SARIF ------------------------------------------------------------------------------------------

def test_html_report_escapes_names_and_shows_control_characters(hostile):
    page = porter_ok("assess", str(hostile), "--explain", "-f", "html")
    assert page.count("<script") == 1  # porter's own table sorter
    assert "<img" not in page
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;.cu</code>" in page
    assert "<code>a\\x1b]0;pwned\\x07b\\x1b[2J.cu</code>" in page
    assert "\x1b" not in page and "\x07" not in page


def test_sarif_addresses_a_file_whose_name_is_not_utf8(tmp_path):
    # A 32-bit mask (DEV002): a kernel alone gives only KRN001's note, which SARIF leaves out by default.
    mask = b"__device__ int f(int v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    repo = make_repo(tmp_path / "repo", {"k\udcff.cu": KERNEL + mask})
    sarif = json.loads(porter_ok("assess", str(repo), "-f", "sarif"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"k%FF.cu"}


# --- numbers: an effort override (the repository's porter.toml names it) and --max-file-size-mb (issue 25) -------

@pytest.mark.parametrize("value, said", [
    (".nan", "nan is not a finite number"),
    (".inf", "inf is not a finite number"),
    ("-.inf", "-inf is not a finite number"),
    ("1.0e-320", "1e-320 is neither 0 nor at least 1e-06"),  # a denormal: 6 / 1e-320 hours is inf days
    ("-2", "-2 is negative"),
    ("1.0e+300", "1e+300 is more than 1e+06"),
])
def test_effort_override_numbers_are_refused_with_the_key_named(tmp_path, value, said):
    repo = make_repo(tmp_path / "repo", {"k.cu": KERNEL, "porter.toml": 'effort = "effort.yaml"\n',
                                         "effort.yaml": f"hours_per_day: {value}\n"})
    p = porter_here("assess", str(repo), "--no-cache", "-q")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"error: {repo}/effort.yaml (merged over rules/effort/model.yaml): hours_per_day: {said}\n"


def test_effort_override_numbers_are_checked_everywhere_in_the_model(tmp_path):
    from porter.estimate.effort_model import EffortModelError, load_effort_model

    for doc, where in (("sizes: {s: [0, 1, .nan]}", "sizes.s.2: nan is not a finite number"),
                       ("round_days_to: 1.0e-320", "round_days_to: 1e-320 is neither 0 nor at least 1e-06"),
                       ("calibration: {scale: {kernel: .inf}}", "calibration.scale.kernel: inf is not a finite number"),
                       ("per: {hit: {saturation: .inf}}", "per.hit.saturation: inf is not a finite number"),
                       ("one_offs: [{id: cuda-graphs, hours: [-1, 1, 2]}]", "one_offs[cuda-graphs].hours.0: -1 is negative")):
        (tmp_path / "e.yaml").write_text(doc + "\n")
        with pytest.raises(EffortModelError) as e:
            load_effort_model(tmp_path / "e.yaml")
        assert str(e.value).endswith(f"(merged over rules/effort/model.yaml): {where}"), (doc, str(e.value))


@pytest.mark.parametrize("value, shown", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("1e-320", "1e-320"),
                                          ("0", "0.0"), ("-1", "-1.0"), ("4097", "4097.0")])
def test_max_file_size_mb_must_be_a_sane_number(hostile, value, shown):
    p = porter_here("scan", str(hostile), "--no-cache", f"--max-file-size-mb={value}")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"error: --max-file-size-mb must be a number from 0.000001 to 4096 (MiB), not {shown}\n"


def test_max_file_size_mb_is_checked_for_library_callers_too(hostile):
    from porter.errors import UsageError
    from porter.settings import CommandLine, resolve_settings

    with pytest.raises(UsageError, match=r"^--max-file-size-mb must be a number from 0\.000001 to 4096 \(MiB\), not nan$"):
        resolve_settings(hostile, CommandLine(max_file_size_mb=float("nan"), isolated=True))
    assert resolve_settings(hostile, CommandLine(max_file_size_mb=0.5, isolated=True)).max_file_bytes == 524288


# --- invisible characters, mentions and porter's marker (issue 25) -----------------------------------------------

BIDI = "ev\u202eil.cu"  # RIGHT-TO-LEFT OVERRIDE: shows as "evuc.li"
ZERO_WIDTH = "zero\u200bwidth.cu"  # looks like zerowidth.cu
MENTION = "@octocat.cu"
MARKED = "<!-- porter:pr-comment -->.cu"
ESC_CR = "e\x1b[31mx\r.cu"
INVISIBLE = ("\u202e", "\u200b", "\x1b", "\r")


@pytest.fixture(scope="module")
def sneaky(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("sneaky") / "repo",
                     {name: KERNEL for name in (BIDI, ZERO_WIDTH, MENTION, MARKED, ESC_CR)})


def test_zero_width_and_bidi_marks_are_escaped():
    assert printable("a\u202eb\u200bc\ufeffd\u2066e\u200ff\u2060g\u061ch") == \
        "a\\u202eb\\u200bc\\ufeffd\\u2066e\\u200ff\\u2060g\\u061ch"
    assert md_text("x\u200by") == "x\\\\u200by"  # the backslash of the escape is itself escaped for Markdown
    assert md_code("x\u202ey") == "`x\\u202ey`"
    assert html_text("x\u2067y") == "x\\u2067y"


def test_mentions_become_code_and_the_marker_never_appears_in_a_code_span():
    assert md_text("see @octocat and @org/team, mail a@b.c") == "see `@octocat` and `@org/team`, mail a`@b.c`"
    assert md_text("@x_y *z*") == "`@x_y` \\*z\\*"
    assert html_text("@octocat <b>") == "<code>@octocat</code> &lt;b&gt;"
    assert md_code("<!-- porter:pr-comment -->.cu") == "`\\x3c!-- porter:pr-comment -->.cu`"
    assert md_text("<!-- porter:pr-comment -->") == "&lt;!-- porter:pr-comment -->"


def test_pr_comment_carries_no_live_mention_no_second_marker_and_no_invisible_character(sneaky):
    body = porter_ok("scan", str(sneaky), "-f", "pr-comment")
    assert body.startswith("<!-- porter:pr-comment -->\n")
    assert body.count("<!--") == 1 and body.count("porter:pr-comment -->") == 2  # the marker, then the shown name
    headers = sorted(line for line in body.splitlines() if line.startswith("**`"))
    assert headers == ["**`@octocat.cu`**", "**`\\x3c!-- porter:pr-comment -->.cu`**", "**`e\\x1b[31mx\\x0d.cu`**",
                       "**`ev\\u202eil.cu`**", "**`zero\\u200bwidth.cu`**"]
    html = MarkdownIt("commonmark", {"html": True}).render(body)
    # GitHub's mention filter skips text inside <code>: every @ must be in one
    assert re.sub(r"<code>[^<]*</code>", "", html).count("@") == 0
    assert not any(ch in body for ch in INVISIBLE)


def test_csv_escapes_every_cell_including_the_effort_item(sneaky):
    out = porter_ok("assess", str(sneaky), "-f", "csv")
    assert not any(ch in out for ch in INVISIBLE)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sorted({(r["path"], r["effort_item"]) for r in rows if r["rule"] == "KRN001"}) == [
        ("'@octocat.cu", "rule:KRN001:@octocat.cu"),
        ("<!-- porter:pr-comment -->.cu", "rule:KRN001:<!-- porter:pr-comment -->.cu"),
        ("e\\x1b[31mx\\x0d.cu", "rule:KRN001:e\\x1b[31mx\\x0d.cu"),
        ("ev\\u202eil.cu", "rule:KRN001:ev\\u202eil.cu"),
        ("zero\\u200bwidth.cu", "rule:KRN001:zero\\u200bwidth.cu")]


@pytest.mark.parametrize("args, shown", [
    (("scan", "-v"), ("ev\\u202eil.cu:1", "zero\\u200bwidth.cu:1")),
    (("assess", "--explain", "-f", "markdown"), ("`ev\\u202eil.cu`", "`zero\\u200bwidth.cu`")),
    (("assess", "--explain", "-f", "html"), ("<code>ev\\u202eil.cu</code>", "<code>zero\\u200bwidth.cu</code>")),
])
def test_console_markdown_and_html_show_invisible_characters_as_escapes(sneaky, args, shown):
    out = porter_ok(*args, str(sneaky))
    assert not any(ch in out for ch in INVISIBLE)
    for text in shown:
        assert text in out, text
    if args[-1] == "html":  # the inline data the page's script draws from
        data = json.loads(re.search(r'<pre id="porter-data" hidden>(.*?)</pre>', out, re.S)[1]
                          .replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
        assert "ev\\u202eil.cu" in data["files"]
        assert not any(ch in json.dumps(data, ensure_ascii=False) for ch in INVISIBLE)


def test_porters_own_pr_comment_passes_the_comment_sanitiser_unchanged(sneaky):
    # `porter comment` makes a body inert before posting (the fork-safe workflow posts an artifact the pull request's
    # own job wrote); porter's real comments, hostile names included, must come through byte for byte.
    from porter.comment import inert_body

    body = porter_ok("scan", str(sneaky), "-f", "pr-comment")
    assert inert_body(body) == body


def test_a_body_from_an_untrusted_job_is_posted_inert():
    from porter.comment import MARKER, with_marker

    forged = ("✅ **porter: no new CUDA-only code** cc @acme/security-team\n"
              "![logo](https://evil.example/p.png) <img src=x onerror=alert(1)> [login](https://phish.example/x)\n"
              "see https://phish.example/@user, mail a@b.c, `@kept` <br> <sub>ok</sub>\n"
              "<!-- porter:pr-comment -->")
    assert with_marker(forged) == (
        f"{MARKER}\n"
        "✅ **porter: no new CUDA-only code** cc `@acme/security-team`\n"
        "!\\[logo]\\(`https://evil.example/p.png)` &lt;img src=x onerror=alert(1)> [login]\\(`https://phish.example/x)`\n"
        "see `https://phish.example/@user,` mail a`@b.c`, `@kept` <br> <sub>ok</sub>\n"
        "&lt;!-- porter:pr-comment -->")
