"""Notices on stderr cannot carry workflow commands into a GitHub Actions step either: the runner reads `::cmd::`
lines and `##[cmd]` from stderr as from stdout, and a notice quotes what it is about. Under GITHUB_ACTIONS=true the
command line's stderr is InertStderr: a write the runner would act on goes out inside
`::stop-commands::<sha256 of the write>` ... `::<token>::`; other writes pass through unchanged."""
from __future__ import annotations

import hashlib
import io

from helpers import porter_here

from porter.cli.output import InertStderr, commands_in

PATH = "nonexistent\n::error::Injected.cu"


def test_a_notice_quoting_a_workflow_command_is_wrapped_in_an_actions_step(tmp_path):
    missing = str(tmp_path / PATH)
    plain = porter_here("scan", missing, "--isolated", "--no-cache")
    assert plain.returncode == 2
    assert "\n::error::Injected.cu" in plain.stderr
    inside = porter_here("scan", missing, "--isolated", "--no-cache", env={"GITHUB_ACTIONS": "true"})
    assert inside.returncode == 2
    token = hashlib.sha256(plain.stderr.encode()).hexdigest()
    assert inside.stderr == f"::stop-commands::{token}\n{plain.stderr}::{token}::\n"


def test_a_notice_without_commands_is_left_as_it_is_in_an_actions_step(tmp_path):
    missing = str(tmp_path / "nonexistent")
    plain = porter_here("scan", missing, "--isolated", "--no-cache")
    inside = porter_here("scan", missing, "--isolated", "--no-cache", env={"GITHUB_ACTIONS": "true"})
    assert inside.stderr == plain.stderr
    assert "stop-commands" not in inside.stderr


def test_which_text_the_runner_would_act_on():
    assert commands_in("x\n  ::error::y\n")
    assert commands_in("warning: a ##[group]b")
    assert not commands_in("error: std::vector<int> in a.cu:3")
    assert not commands_in("")


def test_inert_stderr_wraps_each_write_on_its_own():
    raw = io.BytesIO()
    inner = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    s = InertStderr(inner)
    s.write("plain\n")
    s.write("::warning::x\n")
    s.write("tail\n")
    s.flush()
    token = hashlib.sha256(b"::warning::x\n").hexdigest()
    assert raw.getvalue().decode() == f"plain\n::stop-commands::{token}\n::warning::x\n::{token}::\ntail\n"


def test_inert_stderr_over_a_text_only_stream():
    inner = io.StringIO()
    InertStderr(inner).write("##[group]x\n")
    token = hashlib.sha256(b"##[group]x\n").hexdigest()
    assert inner.getvalue() == f"::stop-commands::{token}\n##[group]x\n::{token}::\n"
