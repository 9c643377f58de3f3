"""Red team (session 21): `porter translate --diff` prints the repository's code through porter's one stdout writer.

The diff quotes every changed file's context lines as they are. It was written to stdout directly, so a source line
holding `ESC ] 0 ; … BEL` (set the terminal's title) or `ESC [ 2 J` (clear the screen) reached the terminal as
control sequences, and in a GitHub Actions step a line holding `##[error]…` was run as a workflow command, where
every other report on stdout goes through porter.cli.output.write_output (which wraps it inert in Actions). Now the
diff goes through write_output too, and write_output shows control characters as escapes when stdout is a terminal
(a diff piped to a file or to `git apply` stays byte-exact)."""
from __future__ import annotations

import os
import subprocess

from tests.helpers import git, make_repo, porter_here, porter_on_a_terminal

SOURCE = ("#include <cuda_runtime.h>\n"
          "// \x1b]0;PWNED\x07\x1b[2J ##[error]spoofed annotation\n"
          "void f() { cudaMalloc(0, 4); }\n")


def _on_a_terminal(*argv: str) -> bytes:
    env = {**os.environ, "COLUMNS": "120", "PORTER_CACHE_DIR": "/nonexistent-porter-cache", "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    code, out = porter_on_a_terminal(*argv, env=env)
    assert code == 0
    return out


def test_a_diff_on_a_terminal_shows_the_repositorys_control_characters_as_escapes(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": SOURCE})
    out = _on_a_terminal("translate", str(repo), "--diff")
    assert b"\x1b]" not in out and b"\x07" not in out and b"\x1b[2J" not in out
    assert b" // \\x1b]0;PWNED\\x07\\x1b[2J ##[error]spoofed annotation\r\n" in out


def test_a_diff_in_a_github_actions_step_runs_no_workflow_command(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": SOURCE})
    p = porter_here("translate", str(repo), "--diff", env={"GITHUB_ACTIONS": "true"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 64 and lines[-1] == f"::{token}::"
    assert lines[1:4] == ["--- a/k.cu", "+++ b/k.cu", "@@ -1,3 +1,3 @@"]


def test_a_piped_diff_stays_byte_exact_and_applies(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": SOURCE})
    p = porter_here("translate", str(repo), "--diff")
    assert p.returncode == 0, p.stderr
    assert " // \x1b]0;PWNED\x07\x1b[2J ##[error]spoofed annotation\n" in p.stdout
    subprocess.run(["git", "apply"], cwd=repo, input=p.stdout.encode(), check=True)
    assert (repo / "k.cu").read_text() == SOURCE.replace("cuda_runtime.h", "hip/hip_runtime.h").replace(
        "cudaMalloc", "hipMalloc")
    assert git(repo, "status", "--porcelain") == " M k.cu\n"


def test_a_port_patch_on_a_terminal_shows_control_characters_as_escapes(tmp_path):
    kernel = ("#include <cuda_runtime.h>\n// \x1b]0;PWNED\x07\n"
              "__global__ void k(float* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 1); }\n")
    repo = make_repo(tmp_path / "r", {"k.cu": kernel})
    out = _on_a_terminal("port", str(repo))
    assert b"\x1b]" not in out and b"\x07" not in out
    assert b"\\x1b]0;PWNED\\x07" in out  # the patch's context line, shown


def test_a_dry_run_comment_body_from_an_artifact_steers_neither_terminal_nor_runner(tmp_path):
    body = tmp_path / "comment.md"
    body.write_text("findings\n::error file=x.cu::spoofed\n\x1b]0;PWNED\x07\n")
    p = porter_here("comment", str(body), "--dry-run", env={"GITHUB_ACTIONS": "true"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 64 and lines[-1] == f"::{token}::" and "::error file=x.cu::spoofed" in lines
    out = _on_a_terminal("comment", str(body), "--dry-run")
    assert b"\x1b]" not in out and b"\\x1b]0;PWNED\\x07" in out


def test_porter_check_lines_naming_a_hostile_file_run_no_workflow_command(tmp_path):
    # pre-commit (pre-commit/action in a workflow) prints a hook's stdout as it is
    name = "::error file=README.md,line=1::approved.cu"
    repo = make_repo(tmp_path / "r", {name: "__global__ void k() { __shfl_down_sync(0xffffffff, 1, 1); }\n"})
    p = porter_here("check", name, cwd=repo, env={"GITHUB_ACTIONS": "true"})
    assert p.returncode == 1, p.stderr
    lines = p.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 64 and lines[-1] == f"::{token}::"
    assert lines[1].startswith(name + ":1:") and len(lines) == 4
