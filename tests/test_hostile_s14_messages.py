"""A finding's message quotes the repository (an image name, a runner label, a requirement) and a repository's own
rule writes its message, title and help: none of that may carry a control character, a bidi mark, a live @mention,
image or link into a format a bot posts (rdjsonl, read by reviewdog into PR review comments) or code scanning shows
(SARIF). Session 14's red team found each of these reaching the machine formats verbatim; the console was escaped.

Every test runs the real CLI on a git repository written in tmp_path.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import make_repo, porter_here

ESC_REQ = "cupy-cuda12x\x1b[2J==1\n"  # clears a terminal that prints the message
BIDI_CI = 'jobs:\n  b:\n    runs-on: "gpu-\\e]0;t\\a-\\u202eX"\n    steps:\n      - run: nvcc a.cu\n'
PIXEL_CI = ('jobs:\n  b:\n    runs-on: "gpu ![p](https://t.invalid/p.png) @org/team"\n'
            '    container: nvidia/cuda:12.1-@octocat\n    steps:\n      - run: nvcc a.cu\n')


def scan(root: Path, fmt: str, *extra: str) -> str:
    p = porter_here("scan", str(root), "--no-cache", "-j", "1", "-f", fmt, *extra)
    assert p.returncode == 0, p.stderr
    return p.stdout


def messages(root: Path, fmt: str) -> list[str]:
    out = scan(root, fmt)
    if fmt == "rdjsonl":
        return [json.loads(line)["message"] for line in out.splitlines()]
    if fmt == "gitlab":
        return [d["description"] for d in json.loads(out)]
    if fmt == "sarif":
        return [r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]]
    return [f["message"] for f in json.loads(out)["findings"]]


@pytest.fixture(scope="module")
def controls(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("controls") / "repo", {
        "requirements.txt": ESC_REQ, ".github/workflows/ci.yml": BIDI_CI})


@pytest.mark.parametrize("fmt", ["json", "sarif", "rdjsonl", "gitlab"])
def test_control_characters_and_bidi_marks_in_quoted_text_are_escaped_in_every_machine_format(controls, fmt):
    got = messages(controls, fmt)
    cupy = [m for m in got if "CuPy CUDA wheel (" in m]
    runner = [m for m in got if "CI runner" in m]
    assert [m[m.index("CuPy CUDA wheel ("):m.index(")") + 1] for m in cupy] == ["CuPy CUDA wheel (cupy-cuda12x\\x1b[2J==1)"]
    assert [m[m.index("`"):m.index("`", m.index("`") + 1) + 1] for m in runner] == ["`gpu-\\x1b]0;t\\x07-\\u202eX`"]
    assert not any(ch in m for m in got for ch in "\x1b\x07\u202e")


@pytest.fixture(scope="module")
def mentions(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("mentions") / "repo", {
        ".github/workflows/ci.yml": PIXEL_CI})


def test_rdjsonl_messages_hold_no_live_mention_image_or_link(mentions):
    got = messages(mentions, "rdjsonl")
    image = [m for m in got if m.startswith("Image ")]
    runner = [m for m in got if m.startswith("CI runner")]
    # reviewdog posts the message as Markdown under the bot's name: `@octocat` would notify octocat.
    assert [m.split(" is NVIDIA")[0] for m in image] == ["Image nvidia/cuda:12.1-`@octocat`"]
    # porter's own code span around the label is kept (it already makes the label inert).
    assert [m.split(" is an NVIDIA")[0] for m in runner] == ["CI runner `gpu ![p](https://t.invalid/p.png) @org/team`"]


def test_rdjsonl_keeps_porter_own_markdown(tmp_path):
    # porter's own messages (code spans, `<<<...>>>`) come out as they were, `<` as an entity (it opens no HTML).
    root = make_repo(tmp_path / "repo", {
        "a.cu": "__global__ void k(){}\nint main(){ void* p; cudaMalloc(&p, 4); k<<<1, 1>>>(); }\n",
        "CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\n"})
    plain = messages(root, "json")
    inert = messages(root, "rdjsonl")
    assert len(plain) == len(inert) >= 4
    assert any("`" in m for m in plain) and any("<<<" in m for m in plain)
    assert all(any(r.startswith(m.replace("<", "&lt;") + "\n") for r in inert) for m in plain)


EVIL_RULE = """\
id: ZZZ001
title: "Evil <img src=x> \\u001b[31mRED \\u202e"
category: api
severity: high
confidence: high
languages: [cuda]
patterns:
  - regex: 'cudaMalloc'
message: "msg @octocat \\u001b]8;;https://t.invalid\\u0007link ![p](https://t.invalid/p.png)"
docs:
  what: "what <b>x</b> [l](https://phish.invalid) `code`"
  why: "why @octocat ![i](https://t.invalid/w.png)"
  instead: "see https://phish.invalid/x"
  example: "ex"
hip_equivalent: {kind: rename, note: "note <i>x</i>"}
effort: {size: none, per: hit}
references:
  - "https://t.invalid/<script>"
  - "https://ok.invalid/rule"
"""


@pytest.fixture(scope="module")
def evil_rule(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("evilrule") / "repo", {
        "porter.toml": 'rules = ["myrules"]\n', "myrules/ZZZ001-evil.yaml": EVIL_RULE,
        "a.cu": "int main(){ void* p; cudaMalloc(&p, 4); }\n"})


def test_a_repository_rule_reaches_sarif_without_controls_links_images_or_mentions(evil_rule):
    run = json.loads(scan(evil_rule, "sarif"))["runs"][0]
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "ZZZ001")
    assert rule["name"] == "Evil <img src=x> \\x1b[31mRED \\u202e"
    assert rule["help"]["markdown"] == (
        "**What it does.** what &lt;b>x&lt;/b> [l]\\(`https://phish.invalid)` `code`\n\n"
        "**Why it matters on AMD.** why `@octocat` !\\[i]\\(`https://t.invalid/w.png)`\n\n"
        "**Use instead.** see `https://phish.invalid/x`\n\n"
        "**HIP/ROCm:** rename (note &lt;i>x&lt;/i>)\n\n"
        "**References:** `https://t.invalid/`&lt;script>, `https://ok.invalid/rule`")
    # the first reference is no plain URL: the second is the help link
    assert rule["helpUri"] == "https://ok.invalid/rule"
    result = next(r for r in run["results"] if r["ruleId"] == "ZZZ001")
    # `](` escaped: SARIF 2.1.0 3.11.6 reads [text](target) in a message as an embedded link
    assert result["message"]["text"] == "msg @octocat \\x1b]8;;https://t.invalid\\x07link ![p\\](https://t.invalid/p.png)"


def test_a_repository_rule_message_is_inert_in_rdjsonl(evil_rule):
    got = [m for m in messages(evil_rule, "rdjsonl") if m.startswith("msg")]
    assert [m.split("\n")[0] for m in got] == [
        "msg `@octocat` \\x1b]8;;`https://t.invalid\\x07link` !\\[p]\\(`https://t.invalid/p.png)`"]
