"""Bring one fleet repository into porter's clone cache and resolve the commit to assess.

Every repository, local or remote, is cloned (`--no-checkout`: no file of it is ever written out) into a folder of
the cache named by its location, and fetched on later runs; the pipeline then reads the commit from git objects
(porter.source.read.GitTree). So a scanned repository's own folder is never written to, its hooks never run (git
runs with porter.source.git's safe options), and the cache never sits inside a scanned repository.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from porter.fleet.inventory import Entry
from porter.source import git


class CheckoutError(Exception):
    """A repository that cannot be cloned, fetched or resolved; the message is the reason stored for it."""


class CheckoutTimeout(CheckoutError):
    """git's clone or fetch ran past the timeout it was given (the repository's own timeout)."""


@dataclass(frozen=True)
class Checkout:
    """A repository in the clone cache at the commit to assess."""

    path: Path
    commit: str


def clone_dir(cache: Path, entry: Entry) -> Path:
    """The cache folder of `entry`'s location: a readable name plus a digest of the location, so two entries of one
    location (two refs) share a clone."""
    from porter.fleet.inventory import default_name

    digest = hashlib.sha256(entry.location.encode()).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", default_name(entry.location))[:60]
    return Path(cache) / f"{safe}-{digest}"


def checkout(entry: Entry, cache: Path, timeout: float = 600.0) -> Checkout:
    """Clone (first time) or fetch `entry` into `cache` and resolve its ref; CheckoutError with the reason."""
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    dest = clone_dir(cache, entry)
    location = entry.location
    local = local_path(location)
    if local is not None and (not local.is_absolute() or "\0" in str(local) or not os.path.isdir(local)):
        raise CheckoutError(f"{location}: no such directory")
    transport = transport_options(location)
    # git allows no transport but the one the LIST entry names (porter.source.git.git_env), whatever a config says.
    allowed = tuple(o.split(".")[1] for o in transport if o.startswith("protocol."))
    try:
        # Checked before a fetch too: a repository that was its own at the first clone may borrow another's objects
        # by the next run, and a fetch copies what its alternates reach just as a clone does.
        if local is not None:
            _check_local(local)
        if (dest / ".git").is_dir():
            git.run(dest, *transport, "fetch", "--quiet", "--prune", "--tags", "--force", "origin",
                    "+refs/heads/*:refs/remotes/origin/*", timeout=timeout, protocols=allowed)
        else:
            # Cloned beside and renamed: a clone interrupted half-way is never taken for a clone, and two workers
            # cloning one location at once each finish their own (the second rename finds the first in place).
            tmp = dest.with_name(f"{dest.name}.partial-{os.getpid()}-{threading.get_ident()}")
            shutil.rmtree(tmp, ignore_errors=True)
            # `--` ends options: a location starting with `-` is a path, never an option. The location's transport
            # is allowed for this clone only (transport_options). No submodules are cloned, so nothing the
            # repository names is fetched.
            try:
                git.run(cache, *transport, "clone", "--quiet", "--no-checkout", "--no-local", "--", location, str(tmp),
                        timeout=timeout, protocols=allowed)
            except git.GitError:
                # git killed at its timeout leaves what it had made of the clone (it cleans up only when it exits on
                # its own), and the cache would keep it for ever
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            try:
                os.rename(tmp, dest)
            except OSError:
                if not (dest / ".git").is_dir():
                    raise CheckoutError(f"cannot move the clone of {location} into {dest}") from None
                shutil.rmtree(tmp, ignore_errors=True)
    except git.GitError as e:
        kind = CheckoutTimeout if isinstance(e, git.GitTimeout) else CheckoutError
        raise kind(f"git cannot clone or fetch {location}: {_reason(str(e))}") from None
    return Checkout(dest, resolve(dest, entry.ref))


def holding(entry: Entry, cache: Path, commit: str) -> Path | None:
    """The clone of `entry` when it already holds `commit` (its repository task fetched it moments ago, on this
    machine), else None: a history point names an exact commit, so it needs no fetch of its own (one git process
    rather than four)."""
    dest = clone_dir(Path(cache), entry)
    if not (dest / ".git").is_dir() or not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        return None
    try:
        git.run(dest, "cat-file", "-e", "--end-of-options", f"{commit}^{{commit}}", timeout=60)
    except git.GitError:
        return None
    return dest


# The transports a fleet LIST may name, by URL scheme. porter's safe git options refuse every transport
# (protocol.allow=never: a scanned repository's config or submodules must not make git fetch anything); a location
# the user wrote in the LIST is allowed its own transport for its clone and fetches, and no other. `ext::` and
# `fd::` (which run a command or use a descriptor) are never allowed.
TRANSPORTS = {"file": "file", "https": "https", "http": "http", "git": "git", "ssh": "ssh", "git+ssh": "ssh",
              "ssh+git": "ssh"}


def transport_options(location: str) -> tuple[str, ...]:
    """The `git -c` options that let git clone and fetch `location` over its own transport, or CheckoutError for a
    transport a fleet does not use. A local path is the file transport; `host:path` and `user@host:path` (git's
    scp-like syntax) are ssh. ssh also gets back the plain `ssh` command that the safe options replace with `false`
    (a repository's config cannot name one here: the clone's config is git's own)."""
    if local_path(location) is not None:
        name = "file"
    elif "://" in location:
        name = TRANSPORTS.get(location.split("://", 1)[0].lower(), "")
    elif "::" in location.split("/", 1)[0]:  # git's <transport>::<address> syntax (ext::, fd::, a remote helper)
        name = ""
    elif ":" in location.split("/", 1)[0]:
        name = "ssh"
    else:
        name = "file"  # a relative path: refused by checkout as not absolute
    if not name:
        raise CheckoutError(f"{location}: not a transport a fleet clones over (file, https, http, git or ssh)")
    options: tuple[str, ...] = ("-c", f"protocol.{name}.allow=always")
    if name == "ssh":
        options += ("-c", "core.sshCommand=ssh")
    return options


def local_path(location: str) -> Path | None:
    """The local repository `git clone` reads for `location`, or None for a remote one: an absolute path, or a
    `file://` URL as git reads it (the host, if any, ignored; %-escapes decoded), so that a `file://` spelling of a
    local path meets the same checks (_check_local) as the path itself."""
    from urllib.parse import unquote

    if location.startswith("file://"):
        rest = location[len("file://"):]
        slash = rest.find("/")
        return Path(unquote(rest[slash:]) if slash >= 0 else rest)  # without a path git refuses it too
    if "://" not in location and os.path.isabs(location):
        return Path(location)
    return None


def _check_local(path: Path) -> None:
    """CheckoutError unless the local repository at `path` is one porter may clone: a work tree or a bare repository
    whose objects are its own (git.repository_top / git.check_bare: `git clone` copies every object an alternates
    file or an objects symlink reaches, so another repository's code would be assessed under this one's name).
    Checked before the first clone, since git's own message for a missing repository is about the transport."""
    try:
        if git.is_bare(path):  # the one bare-repository check (scan --rev and history ask it too)
            git.check_bare(path)
            return
        if git.repository_top(path) is not None:
            return
    except git.ForeignRepository as e:
        raise CheckoutError(f"{path}: {e}") from None
    except git.GitError as e:  # a work tree's own git directory given as the location: no work tree there
        raise CheckoutError(f"{path}: git cannot read it as a repository: {e}") from None
    raise CheckoutError(f"{path}: not a git repository (commit it first: git init && git add -A && git commit)")


def resolve(clone: Path, ref: str | None) -> str:
    """The commit `ref` names in a clone: the remote's branch, a tag, or a commit id (default: the remote's HEAD)."""
    names = ["refs/remotes/origin/HEAD"] if ref is None else [f"refs/remotes/origin/{ref}", f"refs/tags/{ref}", ref]
    for name in names:
        try:
            return git.run(clone, "rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{name}^{{commit}}", timeout=60).decode().strip()
        except git.GitError:
            continue
    raise CheckoutError(f"no ref {ref!r} in the repository" if ref else "the repository has no default branch (empty?)")


def _reason(text: str) -> str:
    """The line of git's stderr that says why a clone or fetch failed. When the serving side aborts, its own
    `remote: fatal:` line is the cause and git's last line only the echo ("fetch-pack: invalid index-pack output");
    otherwise git's last line. A repository missing an object it refers to gets a pointer to `git fsck`."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if not lines:
        return text
    cause = next((x for x in lines if re.match(r"remote: (fatal|error):", x)), lines[-1])
    if re.search(r"unable to read [0-9a-f]{40}|did not send all necessary objects|missing (blob|tree|commit)", cause):
        cause += " (the repository lacks an object it refers to: `git fsck` in it lists what is missing)"
    return cause
