"""Replay the first-parent history of a git repository from one `git log --raw`: each commit's changed paths and blobs.

No checkout and no work-tree change: the tree before the first commit of the window comes from one `ls-tree`, and
every commit after it is applied as the path → blob changes `git log --first-parent --raw -z --no-abbrev` lists
(diffed against the first parent, so a merge is one step of the main line). All git calls go through the hardened
runner in porter.source.git (the repository's own config can make git run nothing).
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

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
    commits: tuple[Commit, ...]
    shallow_boundary: str | None = None  # the commit a shallow clone's history starts at, when the window reaches it
    notices: tuple[str, ...] = ()


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
    top = git.require_top(path.resolve(), "; history reads the commits of one")
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
    out = git.run(top, "log", *window, "--diff-merges=first-parent", "--raw", "-z", "--no-abbrev", "--no-renames",
                  "--no-show-signature", "--no-decorate", "--no-color", "--no-mailmap", f"--format={_FORMAT}",
                  "--reverse", f"--max-count={min(limit, total)}", head, "--", timeout=600)
    commits = parse_log(out)
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
    return Walk(top, subdir, str(path), base, tuple(commits), boundary, tuple(notices))


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


def parse_log(out: bytes) -> list[Commit]:
    """Commits from `git log --raw -z` with porter's header format, in the order git gave them."""
    tokens = out.split(b"\0")
    commits: list[Commit] = []
    i, n = 0, len(tokens)
    header: list[bytes] | None = None
    changes: list[Change] = []

    def flush() -> None:
        if header is not None:
            sha, parents, author, date, subject = (t.decode("utf-8", "replace") for t in header)
            commits.append(Commit(sha, tuple(parents.split()), author, date, subject, tuple(changes)))

    while i < n:
        tok = tokens[i].lstrip(b"\n")
        if tok == _MARK:
            flush()
            header, changes = tokens[i + 1:i + 6], []
            if len(header) < 5:
                raise UsageError("git log output ended inside a commit header")
            i += 6
        elif tok.startswith(b":"):
            meta = tok[1:].split()
            if len(meta) < 5 or i + 1 >= n or header is None:
                raise UsageError("git log --raw output is not in the expected form")
            new_mode, new_blob, status = meta[1].decode("ascii"), meta[3].decode("ascii"), meta[4][:1]
            path = os.fsdecode(tokens[i + 1])
            changes.append(Change(path, new_mode, None if status == b"D" else new_blob))
            i += 2
        elif not tok:
            i += 1
        else:
            raise UsageError(f"git log output is not in the expected form near {tok[:40]!r}")
    flush()
    return commits


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
