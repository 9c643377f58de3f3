"""Run git on a repository porter does not trust: read-only plumbing with nothing the repository can make execute.

A scanned repository's own .git/config may name programs (core.fsmonitor, filters, textconv, external diff,
hooks, pagers); porter only runs commands that never consult them, and overrides the ones that could be consulted
anyway. git's own object reads (`cat-file --batch`) apply no filters. The user's global configuration is trusted;
the repository's is not.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from porter import contain
from porter.errors import UsageError

# Given to every git call: repository config that could make git run a program or page output is overridden.
SAFE_OPTIONS = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.untrackedCache=false",
    "-c", "diff.external=",
    "-c", "core.sshCommand=false",
    "-c", "protocol.allow=never",
    "-c", "credential.helper=",
    "--no-pager",
    "--no-optional-locks",
)


class GitError(Exception):
    """A git command failed; carries git's own message."""


def git_env() -> dict[str, str]:
    """The environment for git: no prompts, no external diff or pager from the environment, C locale messages."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") or k in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C",
                "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1"})
    return env


def command(repo: Path, *args: str) -> list[str]:
    return ["git", *SAFE_OPTIONS, "-C", str(repo), *args]


def run(repo: Path, *args: str, timeout: float = 120.0, check: bool = True) -> bytes:
    """stdout of one git command, as bytes; GitError when it fails (and check)."""
    try:
        r = subprocess.run(command(repo, *args), stdin=subprocess.DEVNULL, capture_output=True, env=git_env(),
                           timeout=timeout)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {timeout:g} s") from None
    if check and r.returncode != 0:
        raise GitError(r.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed ({r.returncode})")
    return r.stdout


def succeeds(repo: Path, *args: str, timeout: float = 60.0) -> bool:
    """Whether a git command exits 0 (for predicates such as check-ignore); False when git cannot run."""
    try:
        r = subprocess.run(command(repo, *args), stdin=subprocess.DEVNULL, capture_output=True, env=git_env(),
                           timeout=timeout)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


class ForeignRepository(GitError):
    """The repository git found for a path is not the path's own: its work tree or git directory lies elsewhere."""


def top_level(path: Path) -> Path | None:
    """The work tree holding `path`, or None outside git, where git refuses the repository, or where the repository
    is not the path's own (see repository_top)."""
    try:
        return repository_top(path)
    except GitError:
        return None


def repository_top(path: Path) -> Path | None:
    """The work tree holding `path` (None outside git); ForeignRepository when the repository git finds does not
    belong to the tree `path` is in.

    A scanned tree may carry a `.git` *file* (`gitdir: /other/repo/.git`) or a `core.worktree` naming another
    directory; reading commits through either would report another repository's code. So the work tree must hold
    `path`, and the git directory must be inside the work tree, or be a linked worktree's or submodule's git
    directory that points back at this work tree (files a scanned tree cannot plant outside itself)."""
    d = path if path.is_dir() else path.parent
    try:
        out = run(d, "rev-parse", "--show-toplevel", "--absolute-git-dir", timeout=30)
    except GitError as e:
        if "not a git repository" in str(e):
            return None
        raise
    lines = [os.fsdecode(x) for x in out.split(b"\n") if x]
    if len(lines) != 2:
        return None  # a bare repository or a git directory itself: no work tree
    top, gitdir = Path(lines[0]), Path(lines[1])
    if not contain.inside(d, top):
        raise ForeignRepository(f"git's work tree for {d} is {top}, which does not contain it (core.worktree?)")
    if not (contain.inside(gitdir, top) or _points_back(gitdir, top)):
        raise ForeignRepository(f"{top}/.git leads to the git directory {gitdir}, outside the repository, which "
                                "does not belong to it")
    return top


def require_top(path: Path, why: str) -> Path:
    """repository_top for a command that needs the repository (`scan --rev`, `--new-since`, `history`): every way it
    can fail is a UsageError naming `path`; `why` ends the "not inside a git repository" message."""
    try:
        top = repository_top(path)
    except ForeignRepository as e:
        raise UsageError(f"{path}: {e}; not read") from None
    except GitError as e:
        raise UsageError(f"{path}: git cannot read the repository: {e}") from None
    if top is None:
        raise UsageError(f"{path}: not inside a git repository{why}")
    return top


def _points_back(gitdir: Path, top: Path) -> bool:
    """Whether `gitdir` (outside `top`) is `top`'s own: a linked worktree's (its `gitdir` file names `top/.git`) or
    a submodule's (its core.worktree is `top`)."""
    try:
        back = contain.read_bytes(gitdir / "gitdir", 4096).decode("utf-8").strip()
        if back and os.path.realpath(os.path.join(gitdir, back)) == os.path.realpath(top / ".git"):
            return True
    except (contain.Unreadable, UnicodeDecodeError):
        pass
    try:
        # `git config --file` only parses the file: nothing in it runs.
        wt = run(top, "config", "--file", str(gitdir / "config"), "--get", "core.worktree", timeout=30, check=False)
    except GitError:
        return False
    text = os.fsdecode(wt.strip())
    return bool(text) and os.path.realpath(os.path.join(gitdir, text)) == os.path.realpath(top)


class BlobReader:
    """Reads blobs by id through one long-lived `git cat-file --batch` (one per process; started on first use)."""

    def __init__(self, repo: Path):
        self.repo = Path(repo)
        self._proc: subprocess.Popen | None = None
        self._pid = 0

    def _process(self) -> subprocess.Popen:
        if self._proc is None or self._pid != os.getpid() or self._proc.poll() is not None:
            self._proc = subprocess.Popen(command(self.repo, "cat-file", "--batch"), stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env())
            self._pid = os.getpid()
        return self._proc

    def read(self, blob: str, limit: int, truncate: bool = False) -> bytes:
        """The blob's bytes; GitError when it is missing or larger than `limit` (then it is not read into memory),
        or with truncate its first `limit` bytes."""
        p = self._process()
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(blob.encode("ascii") + b"\n")
        p.stdin.flush()
        header = p.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(f"{blob}: not a blob in this repository")
        size = int(header[2])
        if size > limit and truncate:
            data = p.stdout.read(limit)
            left = size - limit + 1
            while left:
                left -= len(p.stdout.read(min(left, 1 << 20)))
            return data
        if size > limit:
            # Drain what git sends so the next request starts at a header, without holding it all at once.
            left = size + 1
            while left:
                left -= len(p.stdout.read(min(left, 1 << 20)))
            raise GitError(f"blob is {size} bytes, over the limit")
        data = p.stdout.read(size)
        p.stdout.read(1)  # the newline git adds after each object
        return data

    def close(self) -> None:
        if self._proc is not None and self._pid == os.getpid():
            try:
                self._proc.stdin.close()  # type: ignore[union-attr]
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
        self._proc = None

    def __getstate__(self):  # a worker process starts its own git
        return {"repo": self.repo}

    def __setstate__(self, state):
        self.__init__(state["repo"])


def object_sizes(repo: Path, ids: list[str], timeout: float = 600.0) -> dict[str, int]:
    """The size of every blob in `ids` that the repository has, through one `git cat-file --batch-check`.

    The requests are written from a thread while this one reads the answers: writing them all first would
    deadlock once both pipe buffers fill (git blocks on a full stdout, we on a full stdin)."""
    import threading

    try:
        p = subprocess.Popen(command(repo, "cat-file", "--batch-check"), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env())
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    assert p.stdin is not None and p.stdout is not None

    def feed() -> None:
        try:
            for i in ids:
                p.stdin.write(i.encode("ascii") + b"\n")  # type: ignore[union-attr]
            p.stdin.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass  # git exited early; the reader reports what it got

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    sizes: dict[str, int] = {}
    try:
        for line in p.stdout:
            parts = line.split()
            if len(parts) == 3 and parts[1] == b"blob":
                sizes[parts[0].decode("ascii")] = int(parts[2])
        writer.join(timeout)
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        raise GitError(f"git cat-file took longer than {timeout:g} s") from None
    finally:
        p.stdout.close()
    return sizes
