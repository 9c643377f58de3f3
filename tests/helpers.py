"""Small builders for tests: real git repositories and real porter runs as a user would start them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PORTER = [sys.executable, "-m", "porter"]

# What a test that needs a program says when it skips: the program, where it comes from, and what installs it, so a
# skip in CI's summary (`-rs`) says exactly what the machine lacks (docs/toolchains.md has the details).
NEEDS = {
    "nvcc": "needs nvcc (the CUDA toolkit: the machine image ships /usr/local/bin/nvcc -> /usr/local/cuda; apt has "
            "none; docs/toolchains.md)",
    "hipcc": "needs hipcc (Debian package hipcc, with libamdhip64-dev and rocm-device-libs; scripts/bootstrap.sh "
             "installs them as root)",
    "g++": "needs g++ (Debian package g++)",
    "gcc": "needs gcc and ar (Debian packages gcc and binutils)",
    "git": "needs git (Debian package git)",
    "clang++": "needs a clang++ on PATH (clang++-19 or clang++-22: Debian packages clang-19 / clang-22; "
               "scripts/bootstrap.sh installs them as root)",
    "libclang": "needs libclang with clang resource headers (the 'deep' extra, libclang, and a system LLVM such as "
                "Debian clang-19, or PORTER_LIBCLANG and PORTER_CLANG_RESOURCE_DIR)",
}


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


def pull_request(root: Path, base: dict[str, str], files: dict[str, str]) -> Path:
    """A real git repository at `root`: `base` committed on main, then `files` written and committed on branch `pr`
    (checked out), as a PR gate's `--new-since main` sees a stranger's change."""
    repo = make_repo(root, base)
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return repo


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def _porter_env(env: dict | None) -> dict:
    """The environment both runners give porter: no shared cache unless PORTER_TEST_CACHE names one, 200 columns."""
    return {**os.environ, "PORTER_CACHE_DIR": os.environ.get("PORTER_TEST_CACHE", "/nonexistent-porter-cache"),
            "COLUMNS": "200", **(env or {})}


def run_porter(*args: str, cwd: Path | None = None, env: dict | None = None, prefix: list[str] | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess, as a user would (optionally under a wrapper such as setpriv). For a test
    that needs a process of its own: signals, resource limits, a deadline counted from process start, a hang that
    only a timeout can end, an environment or working directory porter must not see from its parent. Anything
    else calls porter_here (a fifth of the CPU time)."""
    cmd = [*(prefix or []), *PORTER, *args]
    return subprocess.run(cmd, cwd=cwd or REPO, capture_output=True, text=True, env=_porter_env(env),
                          timeout=timeout)


def scan_json(*args: str, **kw) -> dict:
    """`porter scan ARGS --format json --no-cache`, parsed: in this process, or in one of its own under a wrapper
    (`prefix=`, which only a process can have)."""
    run = run_porter if "prefix" in kw else porter_here
    p = run("scan", *args, "--format", "json", "--no-cache", **kw)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


class _TimedOut(BaseException):
    """porter_here's alarm: a BaseException, so no `except Exception` in porter turns a hang into an exit code."""


def porter_here(*args: str, cwd: Path | None = None, env: dict | None = None, replace_env: bool = False,
                stdin: bytes | None = None, timeout: float | None = None,
                terminal: int | None = None) -> subprocess.CompletedProcess:
    """The CLI run in this process through porter.cli.main(argv) -> int, for a test that needs no process of its
    own: what run_porter returns (exit status, stdout and stderr as text), in a fraction of its time. For the
    duration of the call the environment is run_porter's (or exactly `env` with replace_env), the working
    directory is `cwd` (default: the checkout, as run_porter's), stdin holds `stdin` (default: empty), and
    stdout/stderr are fresh buffers that are not terminals; all are restored afterwards, so in-process runs
    cannot leak into each other through them. With `timeout`, a run still going after that many seconds is
    interrupted (SIGALRM) and subprocess.TimeoutExpired raised, as run_porter's timeout does; a hang inside one C
    call that does not return on a signal needs run_porter. With `terminal` (the follower end of a pty.openpty())
    stdout and stderr both write to that terminal, as a person's shell gives them, and come back empty here: the
    caller reads what the terminal received from the leader end."""
    import io
    import signal
    from unittest import mock

    from porter.cli import main

    def stream(data: bytes = b"") -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")

    if terminal is None:
        out, err = stream(), stream()
    else:  # line-buffered and written through, as a terminal's stdout is; each has its own descriptor to close
        out, err = (open(os.dup(terminal), "w", encoding="utf-8", errors="strict", buffering=1) for _ in range(2))
    full_env = dict(env or {}) if replace_env else _porter_env(env)
    here = os.getcwd()

    def expire(signum, frame):
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, expire) if timeout else None
    try:
        os.chdir(cwd or REPO)
        with mock.patch.dict(os.environ, full_env, clear=True), mock.patch.object(sys, "stdout", out), \
                mock.patch.object(sys, "stderr", err), mock.patch.object(sys, "stdin", stream(stdin or b"")):
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, timeout)
            code = main(list(args))
            out.flush()
            err.flush()
    except _TimedOut:
        raise subprocess.TimeoutExpired(["porter", *args], timeout) from None
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
        if terminal is not None:
            out.close()
            err.close()
    if terminal is not None:
        return subprocess.CompletedProcess(["porter", *args], code, "", "")
    return subprocess.CompletedProcess(["porter", *args], code, out.buffer.getvalue().decode("utf-8"),
                                       err.buffer.getvalue().decode("utf-8"))


def porter_on_a_terminal(*argv: str, env: dict[str, str]) -> tuple[int, bytes]:
    """porter with stdout and stderr on a real pseudo-terminal, as a person runs it, in exactly the environment
    `env`: its exit status and what the terminal received. The command runs in this process (porter_here) while a
    thread reads the terminal's other end."""
    import pty
    import threading

    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        p = porter_here(*argv, env=env, replace_env=True, cwd=REPO, terminal=follower, timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=60)
        os.close(leader)
    assert not reader.is_alive()
    return p.returncode, b"".join(chunks)
