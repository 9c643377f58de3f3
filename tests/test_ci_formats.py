"""The CI formats on hand-made results: exact escaping of workflow commands, GitHub's per-step budget, the PR
comment's size limit and escaping of hostile repository text, and the registry entries."""
from __future__ import annotations

import pytest

from porter.diff import Diff, KernelChange
from porter.model import Confidence, Finding, ScanResult, ScanStats, Severity, Status
from porter.pipeline import Run
from porter.render import FORMATS, format_for, render
from porter.render.github import command, escape_data, escape_property
from porter.render.github import render as github
from porter.render.pr_comment import LIMIT, MARKER
from porter.render.pr_comment import render as pr_comment
from porter.settings import Settings


def finding(path="a.cu", line=1, rule="DEV002", severity=Severity.HIGH, message="m", snippet="", **kw) -> Finding:
    return Finding(path, line, 3, rule, line, 9, "device", severity, Confidence.HIGH, message, snippet=snippet,
                   fingerprint=f"{path}:{line}:{rule}", **kw)


def result(findings, **kw) -> ScanResult:
    return ScanResult("repo", tuple(findings), (), (), (), (), (), **kw)


def test_escaping_is_the_actions_toolkits():
    # @actions/core escapeData / escapeProperty: % first, then CR, LF; properties also ':' and ','.
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext%3A a%2Cb"
    assert command("error", {"file": "dir/a:b,c.cu", "line": 3}, "x\n::warning::spoof") == (
        "::error file=dir/a%3Ab%2Cc.cu,line=3::x%0A::warning::spoof")


def test_repository_text_cannot_start_a_second_command():
    hostile = finding(path="evil.cu\n::error file=x::pwned", message="msg\r\n::set-output name=x::y")
    out = github(result([hostile]))
    assert out.count("\n") == 1 and out.startswith("::error file=evil.cu%0A%3A%3Aerror file=x%3A%3Apwned,")
    assert out.endswith("::msg%0D%0A::set-output name=x::y\n")
    assert github(result([finding(message="\x1b]8;;https://t.invalid\x07link")])).endswith(
        "::\\x1b]8;;https://t.invalid\\x07link\n")  # an OSC hyperlink shown, not sent


def test_most_severe_first_within_ten_errors_and_ten_warnings_then_a_count():
    fs = ([finding(line=i, severity=Severity.HIGH) for i in range(1, 26)]
          + [finding(line=100 + i, severity=Severity.MEDIUM) for i in range(12)]
          + [finding(line=200 + i, severity=Severity.INFO) for i in range(3)]
          + [finding(line=300, severity=Severity.BLOCKER)])
    lines = github(result(fs)).splitlines()
    kinds = [l.split(" ", 1)[0] for l in lines]
    assert kinds == ["::error"] * 10 + ["::warning"] * 10 + ["::notice"] * 4
    assert lines[0].startswith("::error file=a.cu,line=300,")  # the blocker first
    assert [l.split("line=")[1].split(",")[0] for l in lines[1:10]] == [str(i) for i in range(1, 10)]
    assert lines[-1] == ("::notice title=porter::18 more findings not annotated (GitHub shows 10 of each kind per "
                         "step): see the job summary or the SARIF upload")


def test_within_budget_there_is_no_count_notice():
    lines = github(result([finding(line=i, severity=Severity.INFO) for i in range(10)])).splitlines()
    assert len(lines) == 10 and all(l.startswith("::notice file=a.cu,") for l in lines)


def test_the_verdict_line_tells_new_kernels_from_kernels_that_got_worse():
    """A kernel the change adds is counted once, however many targets list it; a kernel the base had, per target."""
    new = [finding("b.cu", 7, "DEV001", message="Inline PTX")]
    changes = [KernelChange("k", "b.cu", 5, "mi300x", None, "fix"), KernelChange("k", "b.cu", 5, "mi355x", None, "fix"),
               KernelChange("j", "c.cu", 2, "mi300x", "ok", "retune"),
               KernelChange("j", "c.cu", 2, "mi355x", "ok", "retune")]
    assert pr_comment(result(new), diff_of(new, (), changes)).splitlines()[1] == (
        "⚠️ **porter: this change adds 1 open finding for ROCm** (1 high) and makes 2 kernel verdicts worse and "
        "adds 1 kernel that needs work")
    assert pr_comment(result([]), diff_of((), (), changes[:2])).splitlines()[1] == (
        "⚠️ **porter: this change adds 1 kernel that needs work**")


def test_endcolumn_only_on_single_line_spans_and_prefix_is_added():
    multi = Finding("k.cu", 4, 2, "DEV001", 6, 3, "device", Severity.HIGH, Confidence.HIGH, "ptx")
    out = github(result([multi], stats=ScanStats(prefix="src/gpu")))
    assert out == "::error file=src/gpu/k.cu,line=4,endLine=6,col=2,title=porter DEV001%3A DEV001::ptx\n"


def diff_of(new=(), fixed=(), kernels=()) -> Diff:
    return Diff("a" * 40, "b" * 40, tuple(new), tuple(fixed), (), tuple(kernels))


def test_pr_comment_shape():
    new = [finding("b.cu", 7, "DEV001", message="Inline PTX", snippet='asm("mov.u32 %0, %%laneid;")'),
           finding("a.cu", 2, "API004", Severity.LOW, message="ballot"),
           finding("a.cu", 9, "DEV002", status=Status.HANDLED, handled_by="a.cu:1")]
    body = pr_comment(result(new, targets=("mi300x",)),
                      diff_of(new, [finding("c.cu", 3, "API001", Severity.INFO)],
                              [KernelChange("k", "b.cu", 5, "mi300x", "ok", "rewrite"),
                               KernelChange("j", "b.cu", 20, "mi300x", "retune", "check")]))
    assert body.splitlines() == [
        MARKER,
        "⚠️ **porter: this change adds 2 open findings for ROCm** (1 high, 1 low) and makes 1 kernel verdict worse"
        " · 1 new already handled or kept CUDA-only · 1 fixed",
        "<sub>compared `aaaaaaaaaaaa` → `bbbbbbbbbbbb` · targets: mi300x</sub>",
        "",
        "### New (3)",
        "",
        "**`b.cu`**",  # worst first: the file with an open high finding before one whose worst open one is low
        '- L7 **DEV001** (high): Inline PTX<br>`asm("mov.u32 %0, %%laneid;")`',
        "",
        "**`a.cu`**",
        "- L2 **API004** (low): ballot",
        "- L9 **DEV002** (high) _handled_: m",
        "",
        "### Fixed (1)",
        "- ~~`c.cu` L3 API001: API001~~",
        "",
        "### Kernel verdicts",
        "| kernel | file | target | before | after | why |",
        "|---|---|---|---|---|---|",
        "| `k` | `b.cu`:5 | mi300x | ok | **rewrite** |  |",  # no such kernel in the head scan: no reason to give
        "| `j` | `b.cu`:20 | mi300x | retune | check |  |",
    ]


def test_pr_comment_clean_change():
    body = pr_comment(result([]), diff_of())
    assert body.splitlines()[:2] == [MARKER, "✅ **porter: no new CUDA-only code**"]


def test_pr_comment_escapes_hostile_repository_text():
    evil = finding('x.cu"><img src=//t.invalid/p.png>', 1, message="see ![x](https://t.invalid/i.png) <script>",
                   snippet="`` <b>bold</b>")
    body = pr_comment(result([evil]), diff_of([evil]))
    # Outside code spans nothing opens a tag or an image; inside one, text is shown as it is.
    assert '**``x.cu"><img src=//t.invalid/p.png>``**' not in body
    assert '**`x.cu"><img src=//t.invalid/p.png>`**' in body.splitlines()
    assert "<br>``` `` <b>bold</b> ```" in body
    # the URL is code too: GFM would autolink it bare
    assert "- L1 **DEV002** (high): see !\\[x\\](`https://t.invalid/i.png)` &lt;script>" in body


def test_pr_comment_never_exceeds_the_limit_and_says_what_was_cut():
    new = [finding(f"dir{i:04}/file.cu", i, message="x" * 300, snippet="y" * 200) for i in range(1, 400)]
    fixed = [finding("gone.cu", i, "API001") for i in range(1, 50)]
    body = pr_comment(result(new), diff_of(new, fixed))
    assert len(body) <= LIMIT
    shown = body.count("\n- L")
    assert 100 < shown < 399
    assert body.rstrip().endswith(f"_… 49 fixed findings, {399 - shown} new findings not shown (comment size limit): "
                                  "the job summary and the SARIF upload (code scanning) list them all._")


def test_registry_has_the_ci_formats():
    assert {"github", "gitlab", "rdjsonl", "pr-comment"} <= set(FORMATS)
    assert format_for("GitHub").name == "github"
    with pytest.raises(Exception, match="github, pr-comment, rdjsonl, gitlab"):
        format_for("nope")


def test_markdown_of_a_run_with_a_diff_is_the_pr_comment():
    new = [finding()]
    run = Run(result(new), (), Settings(), None, diff_of(new))
    assert render("markdown", run).decode().startswith(MARKER + "\n⚠️ **porter: this change adds 1 open")
    assert render("pr-comment", Run(result(new), (), Settings())).decode().splitlines()[:2] == [
        MARKER, "⚠️ **porter: this change adds 1 open finding for ROCm** (1 high)"]
