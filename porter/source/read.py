"""Where a scan's files come from: a work tree on disk, or a git tree at any commit read from git objects.

A source lists candidates (path as shown, language, and for git trees the blob id and size) and reads a
candidate's bytes once, bounded, and only if it is a regular file inside the root. The pipeline does not care
which kind it has, so `scan --new-since` and history walks scan old commits without a checkout, and the cache
keys git files by blob id without reading them.
"""
from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from porter.contain import Unreadable, read_bytes
from porter.errors import UsageError
from porter.model import Skipped
from porter.source import git
from porter.source import discover as discovery
from porter.source.discover import (Candidate, Discovery, another_alias, discover, files_not_kept,
                                    inside_git, language_of, printable, selected, shown_path,
                                    unread_reason)


# A candidate that cannot be read; the message is the reason listed under `skipped`.
SourceReadError = Unreadable


@dataclass(frozen=True)
class WorkTree:
    """Files on disk under `root` (a directory, git work tree or one file)."""

    root: Path

    @property
    def label(self) -> str:
        return str(self.root)  # as the user named it: the result must not depend on where it was run from

    def discover(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Discovery:
        found = discover(self.root, list(include), list(exclude))
        if found.is_git:  # git listed the files: the repository was checked there (git.repository_top), once
            self.__dict__["_checked_git"] = True
        return found

    @functools.cached_property
    def real_root(self) -> str:
        """Where every file read must really be (the root, or the one file named): checked on each opened file, so a
        symlink swapped in after discovery cannot lead a read outside."""
        if os.path.isdir(self.root):
            return os.path.realpath(self.root)
        # One file: it must really be in the tree it is named in (its git work tree, else its directory), so a
        # symlink committed as `main.cu` that leads out of the checkout is not read by `porter scan main.cu`.
        from porter.settings import repository_root

        return os.path.realpath(repository_root(Path(os.path.abspath(self.root)).parent))

    def read(self, c: Candidate, limit: int) -> bytes:
        return read_bytes(c.abspath, limit, root=self.real_root)

    def included(self, paths: Iterable[str], include: tuple[str, ...] = (),
                 exclude: tuple[str, ...] = ()) -> tuple[Candidate, ...]:
        """Candidates, read as C/C++/CUDA, for files under the root that scanned sources `#include "..."` though
        their names give porter no language (`kern.txt`): each a regular file (no symlink) inside the root
        (_includable: include/exclude globs, never under .git). The read checks containment again."""
        if not os.path.isdir(self.root):
            return ()
        root = Path(self.real_root)
        out = []
        for rel in _includable(paths, include, exclude):
            try:
                st = os.lstat(root / rel)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append(Candidate(rel, root / rel, "cuda"))
        return tuple(out)

    def names_under(self, directory: str, recursive: bool, limit: int) -> list[str] | None:
        """The regular files' paths under `directory` (relative to the root; recursive or not), relative to it,
        for a build file's glob (porter.pipeline._resolved_build_sources); None past `limit` entries. Never enters a
        symlink, version control's directories, or anything outside the root."""
        if not os.path.isdir(self.root):
            return []
        root = self.real_root
        top = os.path.realpath(os.path.join(root, directory)) if directory else root
        if top != root and not top.startswith(root + os.sep):
            return []
        out: list[str] = []
        seen = 0
        stack = [""]
        while stack:
            rel = stack.pop()
            try:
                with os.scandir(os.path.join(top, rel) if rel else top) as it:
                    entries = sorted((e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False))
                                     for e in it)
            except OSError:
                continue
            for name, is_dir, is_file in entries:
                seen += 1
                if seen > limit:
                    return None
                path = f"{rel}/{name}" if rel else name
                if is_dir and recursive and name not in _VCS_DIRS:
                    stack.append(path)
                elif is_file:
                    out.append(shown_path(path))
        return sorted(out)

    def head(self, c: Candidate, limit: int) -> tuple[bytes, int]:
        """The first `limit` bytes and the whole size (binary artefacts are examined, never loaded whole)."""
        return read_bytes(c.abspath, limit, root=self.real_root, truncate=True), _size(c.abspath)

    def size(self, c: Candidate) -> int:
        return _size(c.abspath)

    def prefix(self) -> str:
        """The scanned root relative to the top of its git work tree ('' at the top or outside git)."""
        base = self.root if self.root.is_dir() else self.root.parent
        if self.__dict__.get("_checked_git"):
            # Discovery already ran git.repository_top on this tree and it is the tree's own repository, so its top
            # is the nearest directory holding `.git` (a worktree's or submodule's `.git` file included): found
            # lexically instead of running and checking git a second time.
            real = base.resolve()
            top = next((d for d in (real, *real.parents) if os.path.lexists(d / ".git")), None)
        else:
            top = git.top_level(base.resolve()) if inside_git(base.resolve()) else None
        if top is None:
            return ""
        rel = base.resolve().relative_to(top.resolve()).as_posix()
        return "" if rel == "." else rel


@dataclass(frozen=True)
class GitTree:
    """The tree of `commit` in the repository at `repo`, limited to `subdir` (relative to the repository top)."""

    repo: Path
    commit: str
    subdir: str = ""
    _reader: git.BlobReader = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    def __post_init__(self):
        object.__setattr__(self, "_reader", git.BlobReader(self.repo))

    @property
    def label(self) -> str:
        return f"{self.repo}@{self.commit[:12]}" + (f":{self.subdir}" if self.subdir else "")

    def discover(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Discovery:
        try:
            args = ["ls-tree", "-r", "-z", "-l", "--full-tree", self.commit]
            if self.subdir:
                args += ["--", self.subdir.rstrip("/") + "/"]
            out = git.run(self.repo, *args)
        except git.GitError as e:
            raise UsageError(f"{self.label}: cannot list the tree: {e}") from None
        files: list[Candidate] = []
        skipped: list[Skipped] = []
        links: list[tuple[str, bytes, bytes, str]] = []
        strip = len(self.subdir.rstrip("/")) + 1 if self.subdir else 0
        more = 0  # entries past discovery.MAX_FILES
        for record, end in _records(out):  # not out.split(): a list of a million records is itself ~100 MiB
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, blob, size = meta.split()
            rel = shown_path(os.fsdecode(raw_path)[strip:])
            if not selected(rel, list(include) or None, list(exclude) or None):
                continue
            if git_refuses(raw_path):
                skipped.append(Skipped(rel, REFUSED_PATH))
                continue
            if kind == b"commit":  # whatever its name, as a work tree's discovery lists it
                skipped.append(Skipped(rel, "git submodule or nested repository: scan it separately"))
                continue
            lang = language_of(rel)
            if lang is None:
                if (why := unread_reason(rel)) is not None:
                    skipped.append(Skipped(rel, why))
                continue
            if mode == b"120000":
                links.append((rel, raw_path, blob, lang))
            elif kind == b"blob" and not size.isdigit():
                # ls-tree prints no size for an object the repository lacks (a partial clone, a damaged mirror)
                skipped.append(Skipped(rel, "blob missing from the repository (partial clone?): not read"))
            elif kind == b"blob" and len(files) >= discovery.MAX_FILES:
                more = out.count(b"\0", end) + (not out.endswith(b"\0"))  # this entry and the rest, not parsed
                break
            elif kind == b"blob":
                files.append(Candidate(rel, Path(os.fsdecode(raw_path)), lang, blob=blob.decode("ascii"),
                                       size=int(size)))
        if links:
            followed = self._follow(out, [(raw, blob) for _, raw, blob, _ in links])
            aliases: dict[str, list[str]] = {}
            for rel, raw_path, blob, lang in sorted(links):
                got = followed.get(raw_path)
                if got is None:
                    skipped.append(Skipped(rel, "symlink in the git tree: not followed"))
                elif (problem := another_alias(aliases, os.fsdecode(got[0]), rel)) is not None:
                    skipped.append(Skipped(rel, problem))
                else:
                    target, target_blob, size = got
                    files.append(Candidate(rel, Path(os.fsdecode(target)), lang, blob=target_blob, size=size,
                                           target=shown_path(os.fsdecode(target)[strip:])))
        if more:
            skipped.append(files_not_kept(more, files[-1].path))
        files.sort(key=lambda c: c.path)
        return Discovery(self.repo, tuple(files), tuple(sorted(skipped)), True)

    def _follow(self, listing: bytes, links: list[tuple[bytes, bytes]]) -> dict[bytes, tuple[bytes, str, int]]:
        """For each symlink (its path from the top, its blob: the target's name), the regular file of this listing it
        leads to, following up to MAX_LINK_HOPS links: (its path, its blob id, its size). A link leading out of the
        tree (or out of `subdir`, which the listing holds), to nothing, or round a loop has none. A build compiles
        a committed `src/k.cu -> ../docs/kernel.txt` as the kernel it leads to, and a checkout's scan reads it."""
        entries: dict[bytes, tuple[bytes, bytes, bytes]] = {}
        wanted: dict[bytes, bytes] = {}  # link path -> the path it names now
        for raw, blob in links:
            nxt = self._link_target(raw, blob)
            if nxt is not None:
                wanted[raw] = nxt
        out: dict[bytes, tuple[bytes, str, int]] = {}
        for _ in range(MAX_LINK_HOPS):
            if not wanted:
                break
            names = set(wanted.values()) - set(entries)
            if names:  # one pass over the listing for every name this hop asks for
                for record in listing.split(b"\0"):
                    meta, _, path = record.partition(b"\t")
                    if path in names:
                        fields = meta.split()
                        if len(fields) == 4:
                            entries[path] = (fields[0], fields[2], fields[3])
            still: dict[bytes, bytes] = {}
            for link, name in wanted.items():
                found = entries.get(name)
                if found is None:
                    continue
                mode, blob, size = found
                if mode in (b"100644", b"100755") and size.isdigit():
                    out[link] = (name, blob.decode("ascii"), int(size))
                elif mode == b"120000":
                    again = self._link_target(name, blob)
                    if again is not None:
                        still[link] = again
            wanted = still
        return out

    def link_target(self, path: str, blob: str) -> str | None:
        """The path from the repository top that the symlink at `path` (its blob id `blob`) names, None when it
        leads out of the tree or cannot be read: the one reading of a committed link, for discovery here and for
        `porter history`'s per-commit trees."""
        got = self._link_target(os.fsencode(path), blob.encode("ascii"))
        return os.fsdecode(got) if got is not None else None

    def _link_target(self, raw: bytes, blob: bytes) -> bytes | None:
        """The path from the repository top that the symlink at `raw` names, or None when it leads out of the tree
        (an absolute target, or `..` past the top) or cannot be read."""
        try:
            text = self._reader.read(blob.decode("ascii"), 4096)
        except (git.GitError, SourceReadError):
            return None
        if not text or text.startswith(b"/") or b"\0" in text or b"\n" in text:
            return None
        parts = raw.split(b"/")[:-1]
        for part in text.split(b"/"):
            if part == b"..":
                if not parts:
                    return None
                parts.pop()
            elif part not in (b"", b"."):
                parts.append(part)
        return b"/".join(parts) or None

    def included(self, paths: Iterable[str], include: tuple[str, ...] = (),
                 exclude: tuple[str, ...] = ()) -> tuple[Candidate, ...]:
        """As WorkTree.included, from the commit's tree: a regular blob (no symlink, no submodule) at each path."""
        wanted = _includable(paths, include, exclude)
        out: list[Candidate] = []
        base = self.subdir.strip("/") + "/" if self.subdir.strip("/") else ""
        for i in range(0, len(wanted), 512):  # a bounded command line per git call
            chunk = [base + rel for rel in wanted[i:i + 512]]
            try:  # literal pathspecs: a name holding `*` or `:(glob)` is only that name
                listed = git.run(self.repo, "--literal-pathspecs", "ls-tree", "-z", "-l", "--full-tree",
                                 self.commit, "--", *chunk)
            except git.GitError as e:
                raise UsageError(f"{self.label}: cannot list the tree: {e}") from None
            for record in listed.split(b"\0"):
                meta, _, raw_path = record.partition(b"\t")
                fields = meta.split()
                if len(fields) != 4 or fields[0] not in (b"100644", b"100755") or not fields[3].isdigit() \
                        or git_refuses(raw_path):
                    continue
                rel = os.fsdecode(raw_path)[len(base):]
                out.append(Candidate(rel, Path(os.fsdecode(raw_path)), "cuda", blob=fields[2].decode("ascii"),
                                     size=int(fields[3])))
        return tuple(sorted(out, key=lambda c: c.path))

    def names_under(self, directory: str, recursive: bool, limit: int) -> list[str] | None:
        """As WorkTree.names_under, from the commit's tree: its regular blobs under `directory`."""
        base = self.subdir.strip("/") + "/" if self.subdir.strip("/") else ""
        where = base + directory.strip("/") + "/" if directory.strip("/") else base
        args = ["--literal-pathspecs", "ls-tree", "-z", "--full-tree", *(["-r"] if recursive else []), self.commit]
        try:
            listed = git.run(self.repo, *args, *(["--", where] if where else []))
        except git.GitError:
            return []
        out: list[str] = []
        for n, record in enumerate(listed.split(b"\0")):
            if n >= limit:
                return None
            meta, _, raw_path = record.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[0] in (b"100644", b"100755") and not git_refuses(raw_path):
                out.append(shown_path(os.fsdecode(raw_path)[len(where):]))
        return sorted(out)

    def read(self, c: Candidate, limit: int) -> bytes:
        if c.size is not None and c.size > limit:
            raise SourceReadError(f"file is {c.size / 1048576:.1f} MiB, over the {limit / 1048576:.0f} MiB limit")
        try:
            return self._reader.read(c.blob or "", limit)
        except git.GitError as e:
            raise SourceReadError(f"unreadable: {e}") from None

    def head(self, c: Candidate, limit: int) -> tuple[bytes, int]:
        try:
            return self._reader.read(c.blob or "", limit, truncate=True), c.size or 0
        except git.GitError as e:
            raise SourceReadError(f"unreadable: {e}") from None

    def size(self, c: Candidate) -> int:
        return c.size or 0

    def prefix(self) -> str:
        return self.subdir.strip("/")

    def close(self) -> None:
        """Stop this process's `git cat-file`. A read after it starts another: the reader lives while something reads
        (a run, a walk: `pipeline.run` closes its source when it ends), not as long as the GitTree, which a caller
        may keep (a run cache, a CLI command's locals) in a process that goes on: a test worker, a fleet worker."""
        self._reader.close()

    def __enter__(self) -> GitTree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# How many symlinks in a row a git tree's link is followed through (a loop ends here too).
MAX_LINK_HOPS = 8

# What git_refuses' paths are listed with.
REFUSED_PATH = "a path git refuses to check out (a '.', '..' or '.git' part, or an empty one): not read"


def git_refuses(raw: bytes) -> bool:
    """Whether a path from a git tree has a part git never checks out (verify_path in git's read-cache.c, fsck's
    hasDot / hasDotdot / hasDotgit / emptyName): `.`, `..`, `.git` in any case, or an empty one. A tree written with
    `hash-object --literally` can hold them, and a server without receive.fsckObjects (git's default) takes it;
    `../../x.cu` as a scanned file's name led a pull-request comment's line link into another repository and a
    SARIF location out of %SRCROOT%."""
    return any(part in (b"", b".", b"..") or part.lower() == b".git" for part in raw.split(b"/"))


def _records(out: bytes) -> Iterable[tuple[bytes, int]]:
    """The NUL-separated records of git's -z output, one at a time, each with where it ends."""
    start = 0
    while start < len(out):
        end = out.find(b"\0", start)
        if end < 0:
            end = len(out)
        yield out[start:end], end
        start = end + 1


def _includable(paths: Iterable[str], include: tuple[str, ...], exclude: tuple[str, ...]) -> list[str]:
    """Of relative paths some source names in an `#include`, those porter may read as sources: shown as they are
    (printable), never inside version control's own directories, selected by the include/exclude globs. (Other
    SKIP_DIRS, `build/` and the like, are not left out: a compiler reads an include there, and git discovery lists
    a tracked file there too.)"""
    return sorted(rel for rel in set(paths)
                  if printable(rel) == rel and rel.isprintable() and language_of(rel) is None
                  and not any(part in _VCS_DIRS for part in rel.split("/")[:-1])
                  and selected(rel, list(include) or None, list(exclude) or None))


_VCS_DIRS = frozenset({".git", ".hg", ".svn"})


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError as e:
        raise SourceReadError(f"cannot stat: {e.strerror}") from None


def read_file(path: Path, limit: int, truncate: bool = False, *, root: Path | str | None = None) -> bytes:
    """A regular file's bytes, never more than `limit` (or the first `limit` with truncate), through porter.contain:
    non-blocking, so a FIFO or device can never hang a scan; with `root`, only inside it (checked on the opened
    descriptor) and not a hard link."""
    return read_bytes(path, limit, truncate=truncate, root=root, root_name="the repository")


def source_for(path: Path | str, commit: str | None = None) -> WorkTree | GitTree:
    """The source a command names: a work tree, or with `commit` the git tree of that commit under `path`."""
    path = Path(path)
    if commit is None:
        return WorkTree(path)
    top = git.require_top(path.resolve(), f", so there is no commit {commit!r} to read")
    try:
        sha = git.run(top, "rev-parse", "--verify", "--end-of-options", f"{commit}^{{commit}}").decode().strip()
    except git.GitError:
        raise UsageError(f"{commit!r}: no such commit in {top}") from None
    rel = path.resolve().relative_to(top.resolve()).as_posix()
    return GitTree(top, sha, "" if rel == "." else rel)
