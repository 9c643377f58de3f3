"""Small builders for tests: real git repositories and real porter runs as a user would start them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PORTER = [sys.executable, "-m", "porter"]


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def make_repo(root: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    """A real git repository holding `files` (committed unless told otherwise)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "fixture")
    return root


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def run_porter(*args: str, cwd: Path | None = None, env: dict | None = None, prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess, as a user would (optionally under a wrapper such as setpriv)."""
    cmd = [*(prefix or []), *PORTER, *args]
    full_env = {**os.environ, "PORTER_CACHE_DIR": os.environ.get("PORTER_TEST_CACHE", "/nonexistent-porter-cache"),
                "COLUMNS": "200", **(env or {})}
    return subprocess.run(cmd, cwd=cwd or REPO, capture_output=True, text=True, env=full_env, timeout=300)


def scan_json(*args: str, **kw) -> dict:
    p = run_porter("scan", *args, "--format", "json", "--no-cache", **kw)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def porter_here(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI run in this process through porter.cli.main(argv) -> int, for a test that needs no process of its
    own (no signals, no cwd, no wrapper): what run_porter returns, in a fraction of its time. The environment is
    run_porter's for the duration of the call."""
    import io
    from unittest import mock

    from porter.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    full_env = {**os.environ, "PORTER_CACHE_DIR": os.environ.get("PORTER_TEST_CACHE", "/nonexistent-porter-cache"),
                "COLUMNS": "200", **(env or {})}
    with mock.patch.dict(os.environ, full_env, clear=True), mock.patch.object(sys, "stdout", out), \
            mock.patch.object(sys, "stderr", err):
        code = main(list(args))
        out.flush()
        err.flush()
    return subprocess.CompletedProcess(["porter", *args], code, out.buffer.getvalue().decode("utf-8"),
                                       err.buffer.getvalue().decode("utf-8"))
