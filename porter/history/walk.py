"""Replay the first-parent history of a git repository from one `git log --raw`: each commit's changed paths and blobs.

No checkout and no work-tree change: the tree before the first commit of the window comes from one `ls-tree`, and
every commit after it is applied as the path → blob changes `git log --first-parent --raw -z --no-abbrev` lists
(diffed against the first parent, so a merge is one step of the main line). All git calls go through the hardened
runner in porter.source.git (the repository's own config can make git run nothing).

The log is read as a stream and never kept (`Walk.replay`): a small repository can list gigabytes of changes (a
commit that adds 20,000 files, the next that deletes them, a thousand times), so `walk` keeps each commit's header
only and a replay yields one commit with its changes at a time. One token of the log (a path, a subject) longer
than MAX_TOKEN_BYTES is refused.
"""
from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from porter import contain
from porter.errors import UsageError
from porter.source import git

DEFAULT_MAX_COMMITS = 1000
EVERY = ("commit", "day", "week", "month")
# Header fields of one commit in the log; NUL-separated, so no subject or name can be mistaken for another field.
_MARK = b"\x1eporter-commit"
_FORMAT = "%x1eporter-commit%x00%H%x00%P%x00%an%x00%cI%x00%s%x00"
SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"
# The longest token of the log accepted (git allows 4 KiB paths on most systems; a subject is one line).
MAX_TOKEN_BYTES = 1024 * 1024
_CHUNK = 1 << 20
LOG_SECONDS = 600
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


@dataclass(frozen=True)
class Change:
    """One path a commit changed: its new mode and blob, or blob None when the commit deleted it."""

    path: str  # repository-relative, as git stores it (decoded with surrogateescape)
    mode: str
    blob: str | None


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    date: str  # committer date, ISO 8601 with its offset: when the change landed on this line
    subject: str
    changes: tuple[Change, ...]

    @property
    def merge(self) -> bool:
        return len(self.parents) > 1


@dataclass(frozen=True)
class Walk:
    """The commits of a window, oldest first, and the tree (path → (mode, blob)) just before the first one."""

    repo: Path  # the top of the work tree
    subdir: str  # the part of the repository the history is about ('' for all of it)
    label: str  # the path as the user named it
    base: dict[str, tuple[str, str]]
    commits: tuple[Commit, ...]  # headers only (changes empty): `replay` streams the changes
    shallow_boundary: str | None = None  # the commit a shallow clone's history starts at, when the window reaches it
    notices: tuple[str, ...] = ()
    log: tuple[str, ...] = ()  # the `git log` arguments that list these commits (with --raw for `replay`)

    def replay(self) -> Iterator[Commit]:
        """The window's commits again, oldest first, each with its changes, read from `git log --raw` as it runs
        (one commit's changes in memory at a time). The shallow boundary's commit comes as the baseline it is."""
        n = 0
        for n, c in enumerate(_stream_log(self.repo, ("--raw", "--diff-merges=first-parent", *self.log))):
            if n >= len(self.commits) or c.sha != self.commits[n].sha:
                raise UsageError(f"{self.repo}: git log listed other commits on a second reading")
            yield self.commits[n] if n == 0 and self.shallow_boundary else c
        if n + 1 != len(self.commits):
            raise UsageError(f"{self.repo}: git log listed other commits on a second reading")


def parse_date(text: str, option: str, end_of_day: bool = False) -> str:
    """An ISO 8601 date or date-time as git should read it; git's own parser accepts anything (even typos).
    A bare date means the start of that day (the end of it with `end_of_day`, for --until): given to git as it is,
    git would read it as that date at the current time of day, so the window would move with the clock."""
    try:
        if len(text.strip()) == 10:
            day = dt.date.fromisoformat(text.strip())
            return dt.datetime.combine(day, dt.time(23, 59, 59) if end_of_day else dt.time()).isoformat()
        return dt.datetime.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise UsageError(f"{option} must be an ISO date such as 2024-05-01 (or 2024-05-01T12:00:00+00:00), "
                         f"not {text!r}") from None


def open_repository(path: Path) -> tuple[Path, str]:
    """The work tree top holding `path` and `path` relative to it; clear errors for everything else."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file or directory")
    if not path.is_dir():
        raise UsageError(f"{path}: history needs a directory (the repository or a part of it), not a file")
    top = git.require_top(path.resolve(), ": history walks the commits of one (for a tree without git history, `porter "
                                          "assess` gives its present state)")
    real, top_real = path.resolve(), top.resolve()
    if not real.is_relative_to(top_real):
        raise UsageError(f"{path}: outside the repository at {top}")
    rel = real.relative_to(top_real).as_posix()
    return top, "" if rel == "." else rel


def walk(path: Path, *, since: str | None = None, until: str | None = None, max_commits: int | None = None,
         allow_shallow: bool = False, rev: str = "HEAD") -> Walk:
    """The first-parent commits of the repository holding `path` (newest `max_commits` of the window, default
    at most DEFAULT_MAX_COMMITS), oldest first, with the tree before the first."""
    top, subdir = open_repository(path)
    if max_commits is not None and max_commits < 1:
        raise UsageError("--max-commits must be at least 1")
    try:
        head = git.run(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
    except git.GitError:
        head = ""
    if not head:
        raise UsageError(f"{top}: the repository has no commits yet" if rev == "HEAD" else f"{rev!r}: no such commit")
    if subdir and not git.run(top, "rev-list", "-1", head, "--", subdir).strip():
        # Walking the enclosing repository would report its history ("No open work left.") as this directory's.
        raise UsageError(f"{path}: git does not track this directory (no commit of {top} touches {subdir}/); "
                         "history reads committed files: commit them, or name a tracked directory")
    shallow = git.run(top, "rev-parse", "--is-shallow-repository").strip() == b"true"
    if shallow and not allow_shallow:
        raise UsageError(f"{top} is a shallow clone: its history is cut off, so the oldest commit would count the "
                         "whole code base as added. Fetch the full history (actions/checkout with `fetch-depth: 0`, "
                         "or `git fetch --unshallow`), or pass --allow-shallow to start at the shallow boundary")
    window = ["--first-parent"]
    if since:
        window.append(f"--since={parse_date(since, '--since')}")
    if until:
        window.append(f"--until={parse_date(until, '--until', end_of_day=True)}")
    total = int(git.run(top, "rev-list", "--count", *window, head, "--").strip() or 0)
    if total == 0:
        raise UsageError(f"no first-parent commits of {head[:12]} between "
                         f"{since or 'the first commit'} and {until or 'now'}")
    notices: list[str] = []
    limit = max_commits or DEFAULT_MAX_COMMITS
    if total > limit and max_commits is None:
        notices.append(f"{total} first-parent commits in the window; only the last {limit} are walked "
                       "(--max-commits N, --since DATE or --every week to reach further back)")
    log = (*window, "-z", "--no-abbrev", "--no-renames", "--no-show-signature",
           "--no-decorate", "--no-color", "--no-mailmap", f"--format={_FORMAT}", "--reverse",
           f"--max-count={min(limit, total)}", head, "--")
    commits = list(_stream_log(top, ("--no-patch", *log)))  # headers only: Walk.replay streams the changes
    if not commits:
        raise UsageError(f"{top}: git log listed no commits")
    first = commits[0]
    boundary = None
    if shallow and _shallow_commits(top) & {first.sha}:
        boundary = first.sha
        notices.append(f"shallow clone: the history starts at the shallow boundary {first.sha[:12]} "
                       f"({first.date[:10]}); its tree is the baseline, not work added there")
    base: dict[str, tuple[str, str]] = {}
    if boundary:
        base = _tree(top, first.sha)
        commits = [_as_baseline(first)] + commits[1:]
    elif first.parents:
        base = _tree(top, first.parents[0])
    merges = sum(1 for c in commits if c.merge)
    if merges and merges * 2 >= len(commits):
        notices.append(f"{merges} of {len(commits)} first-parent commits are merges: each point is one merged "
                       "branch as a whole (the change against its first parent), attributed to the merge commit")
    return Walk(top, subdir, str(path), base, tuple(commits), boundary, tuple(notices), log)


def _stream_log(top: Path, args: tuple[str, ...]) -> Iterator[Commit]:
    """The commits `git log ARGS` lists, parsed as its output arrives; git is killed after LOG_SECONDS or at the
    run's deadline (PORTER_DEADLINE_S, as git.run keeps it: a FIFO planted as a tree object holds `git log --raw`
    until killed), and when the reader stops early."""
    limit, cut = git.within_deadline(LOG_SECONDS)
    with tempfile.TemporaryFile() as err:
        try:
            proc = git.popen(git.command(top, "log", *args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=err)
        except git.GitError as e:
            raise UsageError(str(e)) from None
        fired: list[bool] = []
        timer = threading.Timer(limit, lambda: (fired.append(True), proc.kill()))
        timer.start()
        try:
            assert proc.stdout is not None
            yield from iter_log(_tokens(proc.stdout.read))
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
        if code != 0:
            err.seek(0)
            message = err.read(4096).decode("utf-8", "replace").strip()
            if cut and fired:  # killed at the run's deadline, not at LOG_SECONDS
                raise UsageError(f"{top}: git log {cut.removeprefix('git ')}")
            if git.out_of_memory(message.encode(), code):
                raise UsageError(f"{top}: {git.memory_message(('log',))}")
            raise UsageError(f"{top}: git log failed: {message or f'exit {code} (over {LOG_SECONDS} s?)'}")


def _as_baseline(c: Commit) -> Commit:
    """A boundary commit as the baseline: its tree is read whole, so it changes nothing on top of it."""
    return Commit(c.sha, (), c.author, c.date, c.subject, ())


def _shallow_commits(top: Path) -> set[str]:
    path = git.run(top, "rev-parse", "--git-path", "shallow").decode().strip()
    p = Path(path) if os.path.isabs(path) else top / path
    try:
        # Bounded and non-blocking: one 41-byte line per shallow commit.
        text = contain.read_bytes(p, 64 * 1024 * 1024).decode("ascii", "replace")
    except contain.Unreadable:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}


def _tree(top: Path, commit: str) -> dict[str, tuple[str, str]]:
    out = git.run(top, "ls-tree", "-r", "-z", "--full-tree", commit, timeout=600)
    tree: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw = record.partition(b"\t")
        mode, _kind, blob = meta.split()
        tree[os.fsdecode(raw)] = (mode.decode("ascii"), blob.decode("ascii"))
    return tree


def _tokens(read: Callable[[int], bytes]) -> Iterator[bytes]:
    """The NUL-separated tokens of a stream, read a chunk at a time; a token past MAX_TOKEN_BYTES is refused."""
    tail = b""
    while chunk := read(_CHUNK):
        parts = (tail + chunk).split(b"\0")
        tail = parts.pop()
        if len(tail) > MAX_TOKEN_BYTES:
            raise UsageError(f"git log output has a field longer than {MAX_TOKEN_BYTES} bytes; not walked")
        yield from parts
    if tail:
        yield tail


def parse_log(out: bytes) -> list[Commit]:
    """Commits from `git log --raw -z` with porter's header format, in the order git gave them."""
    return list(iter_log(iter(out.split(b"\0"))))


def iter_log(tokens: Iterator[bytes]) -> Iterator[Commit]:
    """Commits from the tokens of `git log [--raw] -z` with porter's header format, each as soon as it is whole."""
    header: list[bytes] | None = None
    changes: list[Change] = []
    modes: dict[bytes, str] = {}  # a handful of modes, each decoded once
    for raw in tokens:
        tok = raw.lstrip(b"\n")
        if tok == _MARK:
            if header is not None:
                yield _commit(header, changes)
            header, changes = [t for t in (next(tokens, None) for _ in range(5)) if t is not None], []
            if len(header) < 5:
                raise UsageError("git log output ended inside a commit header")
        elif tok.startswith(b":"):
            meta = tok[1:].split()
            path = next(tokens, None)
            if len(meta) < 5 or path is None or header is None:
                raise UsageError("git log --raw output is not in the expected form")
            mode = modes.get(meta[1]) or modes.setdefault(meta[1], meta[1].decode("ascii"))
            # os.fsdecode's own decoding, without its per-call type checks (a walk decodes millions of paths)
            changes.append(Change(path.decode(_FS_ENCODING, _FS_ERRORS), mode,
                                  None if meta[4][:1] == b"D" else meta[3].decode("ascii")))
        elif tok:
            raise UsageError(f"git log output is not in the expected form near {tok[:40]!r}")
    if header is not None:
        yield _commit(header, changes)


def _commit(header: list[bytes], changes: list[Change]) -> Commit:
    sha, parents, author, date, subject = (t.decode("utf-8", "replace") for t in header)
    return Commit(sha, tuple(parents.split()), author, date, subject, tuple(changes))


def bucket(date: str, every: str) -> str:
    """The period a commit date falls in (UTC): the commit itself, its day, ISO week or month."""
    d = dt.datetime.fromisoformat(date).astimezone(dt.timezone.utc)
    if every == "day":
        return d.date().isoformat()
    if every == "week":
        y, w, _ = d.isocalendar()
        return f"{y}-W{w:02d}"
    if every == "month":
        return f"{d.year}-{d.month:02d}"
    raise ValueError(every)


def select(commits: tuple[Commit, ...], every: str) -> list[int]:
    """Indices of the commits that are points: every commit, or the last commit of each day, week or month."""
    if every not in EVERY:
        raise UsageError(f"--every must be one of {', '.join(EVERY)}, not {every!r}")
    if every == "commit":
        return list(range(len(commits)))
    keys = [bucket(c.date, every) for c in commits]
    return [i for i in range(len(commits)) if i + 1 == len(commits) or keys[i + 1] != keys[i]]
