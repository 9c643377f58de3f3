"""Read the fleet's list of repositories: a file of `LOCATION [REF [NAME]]` lines, or a directory of clones.

A location is a local path or anything `git clone` accepts (https://, ssh, git@host:path). REF is a branch, tag or
commit (`-` or absent: the remote's default branch). NAME is the repository's name in the database (default: the
location's last component without `.git`); names are unique, so a fleet's history is keyed by a name that survives
a move of the remote.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from porter import contain
from porter.errors import UsageError

LIST_LIMIT = 16 * 1048576  # a list of 100,000 repositories is a few MiB; anything larger is not a list
_NAME = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9._/-]{0,199}$")


@dataclass(frozen=True)
class Entry:
    """One repository of the fleet: where it is, which ref to assess (None: the default branch), its name."""

    name: str
    location: str
    ref: str | None = None


def default_name(location: str) -> str:
    """The last path component of a location or URL, without a trailing `.git`."""
    tail = re.split(r"[/:\\]", location.rstrip("/\\"))[-1]
    return tail[:-4] if tail.endswith(".git") and len(tail) > 4 else tail


def parse(text: str, base: Path | None = None, what: str = "list") -> tuple[Entry, ...]:
    """The entries of a list file's text; relative local paths are taken relative to `base` (the list's folder)."""
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        # A comment is a line starting with `#`, or ` #` after the fields (a URL may hold `#` itself).
        line = "" if raw.lstrip().startswith("#") else re.split(r"\s#", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) > 3:
            raise UsageError(f"{what}:{number}: expected LOCATION [REF [NAME]], found {len(fields)} fields")
        location = fields[0]
        ref = fields[1] if len(fields) > 1 and fields[1] != "-" else None
        if ref is not None and (ref.startswith("-") or "\0" in ref):
            raise UsageError(f"{what}:{number}: {ref!r} is not a ref")
        if base is not None and _is_local(location) and not os.path.isabs(location):
            location = str((base / location).resolve())
        name = fields[2] if len(fields) > 2 else default_name(location)
        if not _NAME.match(name) or ".." in name.split("/"):
            raise UsageError(f"{what}:{number}: {name!r} is not a usable name (letters, digits, . _ - /)")
        if name in seen:
            raise UsageError(f"{what}:{number}: the name {name!r} is already used on line {seen[name]}; "
                             "give one of them a NAME (third field)")
        seen[name] = number
        entries.append(Entry(name, location, ref))
    return tuple(entries)


def _is_local(location: str) -> bool:
    """Whether `git clone` would read `location` as a local path rather than a URL or scp-like host:path."""
    if "://" in location:
        return False
    head = location.split("/", 1)[0]
    return not (":" in head and not os.path.isabs(location))


def from_directory(directory: Path) -> tuple[Entry, ...]:
    """Each immediate subdirectory of `directory` that holds a `.git`, named by its folder name, sorted."""
    entries = []
    # Names only: the user's own folder of clones; each clone is then cloned again into porter's cache and read
    # from git objects (porter.fleet.checkout), never through this listing.
    with os.scandir(directory) as it:
        for d in it:
            if d.is_dir(follow_symlinks=False) and os.path.lexists(os.path.join(d.path, ".git")):
                entries.append(Entry(d.name, str(Path(d.path).resolve())))
    return tuple(sorted(entries, key=lambda e: e.name))


def load(path: Path) -> tuple[Entry, ...]:
    """The fleet named on the command line: a list file, or a directory of clones."""
    path = Path(path)
    if path.is_dir():
        found = from_directory(path)
        if not found:
            # A plain source tree (an unpacked tarball, a copy) is the common case: say how to assess it anyway.
            raise UsageError(f"{path}: no git repositories directly under this directory (fleet reads every "
                             "repository from git: make each subdirectory one with `git init && git add -A && git "
                             "commit -m import`, or assess a plain tree with `porter assess DIR`)")
        return found
    try:
        data = contain.read_named(path, LIST_LIMIT, "repository list")
    except contain.Refused as e:
        raise UsageError(str(e)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: the repository list is not UTF-8 text") from None
    found = parse(text, path.resolve().parent, str(path))
    if not found:
        raise UsageError(f"{path}: the repository list names no repository")
    return found
