"""`porter scan --new-since BASE -f markdown | porter comment - --dry-run`, the pipe `comment --help` suggests, posts
the scan's Markdown as the scan wrote it (found by session 25's new-user trial).

Two things went wrong on the way. Inside a GitHub Actions step the scan's stdout carries the `::stop-commands::`
wrapper that keeps the runner from reading a report as commands; piped into `comment -` it was posted, and porter's
marker, no longer the first line, was escaped and shown. And the Markdown writes every backtick in prose as `\\``;
the inerting turned that into `\\&#96;`, which GitHub shows as the text "&#96;" (the backslash escapes the `&`)."""
from __future__ import annotations

from markdown_it import MarkdownIt

from porter.cli.output import inert_in_actions, outside_actions_wrapper
from porter.comment import MARKER
from tests.helpers import git, make_repo, porter_here

KERNEL = ("#include <cuda_runtime.h>\n"
          "__global__ void k(unsigned* out) {\n"
          "  unsigned lane;\n"
          "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
          "  out[threadIdx.x] = __shfl_down_sync(0xffffffff, lane, 1) & 31;\n"
          "}\n")


def _pr_repo(tmp_path):
    repo = make_repo(tmp_path / "r", {"README.md": "x\n"})
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "k.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add a kernel")
    return repo


def test_a_scan_piped_into_comment_in_an_actions_step_posts_the_markdown_as_written(tmp_path):
    repo = _pr_repo(tmp_path)
    actions = {"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "", "PORTER_CACHE_DIR": str(tmp_path / "c")}
    plain = porter_here("scan", str(repo), "--new-since", "main", "-f", "markdown",
                        env={"PORTER_CACHE_DIR": str(tmp_path / "c")})
    scan = porter_here("scan", str(repo), "--new-since", "main", "-f", "markdown", env=actions)
    assert plain.returncode == 0 and scan.returncode == 0, scan.stderr
    assert scan.stdout.startswith("::stop-commands::") and not plain.stdout.startswith("::")
    assert "\\`" in plain.stdout  # the Markdown escapes prose backticks, the case that was garbled
    posted = porter_here("comment", "-", "--dry-run", env={"GITHUB_REPOSITORY": ""},
                         stdin=scan.stdout.encode())
    piped_plain = porter_here("comment", "-", "--dry-run", env={"GITHUB_REPOSITORY": ""},
                              stdin=plain.stdout.encode())
    assert posted.returncode == 0, posted.stderr
    assert posted.stdout == piped_plain.stdout  # the wrapper is gone, nothing else differs
    lines = posted.stdout.splitlines()
    assert lines[0] == MARKER and "stop-commands" not in posted.stdout and "&lt;!--" not in posted.stdout
    shown = MarkdownIt("commonmark").enable("table").render(posted.stdout)
    assert "&amp;#96;" not in shown  # no entity shown as its own text
    # every line of the scan's Markdown is posted as it was written, backslash-escaped backticks included
    assert [line for line in plain.stdout.splitlines() if "\\`" in line] == \
        [line for line in lines if "\\`" in line]


def test_only_porters_own_wrapper_is_taken_off():
    body = b"<!-- porter:pr-comment -->\nbody\n"
    assert outside_actions_wrapper(inert_in_actions(body)) == body
    assert outside_actions_wrapper(inert_in_actions(b"no newline")) == b"no newline"
    # a wrapper whose token is not the SHA-256 of what it wraps is someone else's text: left as it is
    forged = b"::stop-commands::" + b"0" * 64 + b"\nbody\n::" + b"0" * 64 + b"::\n"
    assert outside_actions_wrapper(forged) == forged
    assert outside_actions_wrapper(b"::stop-commands::abc\nx\n::abc::\n") == b"::stop-commands::abc\nx\n::abc::\n"
