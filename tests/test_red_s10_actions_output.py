"""Output a GitHub Actions step prints cannot carry workflow commands from the scanned repository (red team F4): a
file named `aaaaaaaaaaaaaaaaaaaa ::error::Injected.cu` wrapped onto its own console line was an annotation, and
`##[cmd]` works anywhere in a line. On stdout under GITHUB_ACTIONS=true every format but `github` is wrapped in
`::stop-commands::<token>` ... `::<token>::`, the token the SHA-256 of the text (deterministic, and not guessable
by the text it covers)."""
from __future__ import annotations

import hashlib

from helpers import porter_here, write_files

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n"
NAME = "aaaaaaaaaaaaaaaaaaaa ::error::Injected.cu"


def test_console_output_in_an_actions_step_is_wrapped_in_stop_commands(tmp_path):
    write_files(tmp_path / "r", {NAME: KERNEL})
    plain = porter_here("scan", str(tmp_path / "r"), "--isolated", "--no-cache")
    assert any(line.strip().startswith("::error::Injected.cu") for line in plain.stdout.splitlines())
    inside = porter_here("scan", str(tmp_path / "r"), "--isolated", "--no-cache", env={"GITHUB_ACTIONS": "true"})
    assert inside.returncode == plain.returncode
    token = hashlib.sha256(plain.stdout.encode()).hexdigest()
    assert inside.stdout == f"::stop-commands::{token}\n{plain.stdout}::{token}::\n"


def test_the_github_format_stays_workflow_commands(tmp_path):
    write_files(tmp_path / "r", {NAME: KERNEL})
    r = porter_here("scan", str(tmp_path / "r"), "--isolated", "--no-cache", "--format", "github",
                    env={"GITHUB_ACTIONS": "true"})
    assert r.stdout.startswith("::")
    assert "stop-commands" not in r.stdout
