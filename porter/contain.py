"""Open what a scanned repository can influence only through here: inside its root, a regular file, bounded, non-blocking.

A PR bot runs porter on strangers' code, and a repository influences many paths besides its sources: files its
porter.toml names (rules, effort, target profiles, and every file inside a named directory), its .gitignore files,
its .git (a file pointing elsewhere), translate's backup folder and manifest entries, and output paths inside the
checkout (`-o porter.sarif` where the PR committed a symlink of that name). Each of those goes through one of the
functions below, so the rules are written once:

- A read resolves the path, requires the real object to lie inside the root (checked again on the descriptor it
  opened, so a symlink swapped in between the check and the open cannot lead out), requires a regular file (a FIFO,
  device or directory is refused before it is opened; the open is non-blocking too) with one name (a hard link's
  other names may lie outside the root) and reads at most its limit.
- A directory listing visits each entry once, without following a symlink out of the root, to a bounded depth and
  count.
- A write never follows a symlink at the name it writes (it writes a temporary file beside it and renames over the
  name, which replaces a link instead of writing through it), and, given a root, refuses a parent outside it.
- Errors name the path and the reason, never what the file held.

tests/test_architecture.py fails when a module outside an allow-list opens, lists or writes a path by other means.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from porter.errors import UsageError

OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
# A directory a repository names (a rules folder) is walked at most this deep and this wide: enough for any real
# layout, and a bound on what a planted tree of a million empty directories can cost.
MAX_LIST_DEPTH = 32
MAX_LIST_ENTRIES = 10_000


# The reason a path inside a git directory is refused (a scan lists it under `skipped` with it).
GIT_REFUSED = "inside the repository's git directory (.git: git's configuration, not the repository's content); not read"


class Unreadable(Exception):
    """A path that may not or cannot be read; the message is the reason (a scan lists it under `skipped`)."""


class Refused(UsageError):
    """A path a repository or its configuration influences that porter will not use (exit 2); names the path."""


class WriteFailed(Refused):
    """A write the system refused (a full disk, a permission): `strerror` is the system's reason."""

    def __init__(self, message: str, strerror: str):
        super().__init__(message)
        self.strerror = strerror


# Temporary files write_bytes leaves beside a name only if killed mid-write (a test looks for strays by this prefix).
TMP_PREFIX = ".porter-tmp-"


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether the real location of `path` (every symlink on the way followed) is `root`'s real location or below."""
    return _under(os.path.realpath(path), os.path.realpath(root))


def _under(real: str, top: str) -> bool:
    """Whether the resolved path `real` is the resolved root `top` or below it."""
    return real == top or real.startswith(top.rstrip("/") + "/")


GIT_DIR_NAME = ".git"
# What a `.git` file at the top of a checkout may name (a linked worktree's, a submodule's, --separate-git-dir):
# read bounded, since it is a file in the checkout.
_GITFILE_LIMIT = 4096


def in_git_dir(real: str, top: str, named: tuple[str, ...] | None = None) -> bool:
    """Whether the resolved path `real`, inside the resolved root `top`, lies in a git directory: a `.git` directory
    (or one of its parts: worktrees, modules, a submodule's own `.git`) anywhere below the root, or the git directory
    a `.git` file at the root's checkout names, where that lies inside the root. Such a file is git's, never the
    repository's content: `.git/config` holds a CI job's token (actions/checkout's extraheader), and a committed
    symlink `src/cfg.cu -> ../.git/config` would put it in a finding's snippet. `named`: _named_git_dirs(top), when
    the caller asks of several paths under one root at once (read_bytes asks of a path and of its descriptor)."""
    if not _under(real, top):
        return False
    rel = real[len(top.rstrip("/")) + 1:] if real != top else ""
    if GIT_DIR_NAME in rel.split("/"):
        return True
    return any(_under(real, gd) for gd in (named if named is not None else _named_git_dirs(top)))


def _named_git_dirs(top: str) -> tuple[str, ...]:
    """The resolved git directories that `.git` files at `top` and above name (`gitdir: PATH`), lying inside `top`."""
    out = []
    cur = top
    while True:
        dotgit = os.path.join(cur, GIT_DIR_NAME)
        try:
            st = os.lstat(dotgit)
        except OSError:
            st = None
        if st is not None:
            if stat.S_ISREG(st.st_mode):
                try:
                    fd = os.open(dotgit, OPEN_FLAGS)
                    try:
                        head = os.read(fd, _GITFILE_LIMIT)
                    finally:
                        os.close(fd)
                except OSError:
                    head = b""
                line = head.decode("utf-8", "surrogateescape").splitlines()[0] if head else ""
                if line.startswith("gitdir:"):
                    named = os.path.realpath(os.path.join(cur, line[len("gitdir:"):].strip()))
                    if _under(named, top):
                        out.append(named)
            elif stat.S_ISLNK(st.st_mode) and _under(os.path.realpath(dotgit), top):
                out.append(os.path.realpath(dotgit))  # a `.git` symlink to a directory inside the root
            # (a `.git` directory inside the root is covered by its name)
            break  # the nearest checkout decides
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    return tuple(out)


def _descriptor_path(fd: int) -> str | None:
    """What the kernel says an open descriptor is (Linux's /proc); None where that is not available."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def read_bytes(path: Path | str, limit: int, *, root: Path | str | None = None, truncate: bool = False,
               root_name: str = "the scanned root") -> bytes:
    """A regular file's bytes, never more than `limit` (the first `limit` with truncate). With `root`, the file's
    real location must be inside it, checked on the opened descriptor. Raises Unreadable with the reason."""
    # The root resolved once per read, for both checks (the path before the open, the descriptor after it).
    top = os.path.realpath(root) if root is not None else ""
    # Each path resolved once per check (both questions read the same resolution): realpath is an lstat per
    # component, and two of them per question were most of a read's cost on a deep tree.
    where = os.path.realpath(path) if root is not None else ""
    if root is not None and not _under(where, top):
        raise Unreadable(f"leads outside {root_name}; not read")
    # The git directories `.git` files at the root and above name: looked up once for both checks (a walk up the
    # root's folders, an lstat each: two per file were a sixth of reading FasterTransformer's 765 sources).
    named = _named_git_dirs(top) if root is not None else ()
    if root is not None and in_git_dir(where, top, named):
        raise Unreadable(GIT_REFUSED)
    # Asked before the open, not only after it: opening is already an effect on a special file (a FIFO's waiting
    # writer is released, a device driver's open runs: a watchdog is armed, a tape rewinds), and a tree unpacked
    # as root can hold a device node at any name. The fstat on the descriptor below still decides.
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise Unreadable("not a regular file")
    except OSError as e:
        raise Unreadable(f"unreadable: {e.strerror or e}") from None
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as e:
        raise Unreadable(f"unreadable: {e.strerror or e}") from None
    try:
        if root is not None:
            # The kernel's name for the open file: an absolute path with every symlink already resolved (its
            # dentry's path), so it is compared as it is; resolving it again (an lstat per folder) could only follow
            # a symlink planted after the open, away from the file actually opened.
            opened = _descriptor_path(fd)
            if opened is not None and not os.path.isabs(opened):
                opened = os.path.realpath(opened)  # not a path of this file system's tree (never seen): resolved
            if opened is not None and not _under(opened, top):
                raise Unreadable(f"leads outside {root_name}; not read")
            if opened is not None and in_git_dir(opened, top, named):
                raise Unreadable(GIT_REFUSED)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("not a regular file")
        if root is not None and st.st_nlink > 1:
            # A hard link is the same file under another name, which may lie anywhere on the file system (an
            # unpacked archive or a cache restore can make one; git never does): nothing on this side says where.
            raise Unreadable(f"a hard link ({st.st_nlink} names; the others may lie outside {root_name}); not read")
        if st.st_size > limit and not truncate:
            raise Unreadable(f"file is {st.st_size / 1048576:.1f} MiB, over the {limit / 1048576:.0f} MiB limit (generated?)")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as e:
        raise Unreadable(f"unreadable: {e.strerror or e}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if truncate:
            return data[:limit]
        raise Unreadable(f"file grew past the {limit / 1048576:.0f} MiB limit while being read")
    return data


def read_named(path: Path | str, limit: int, what: str, *, root: Path | str | None = None) -> bytes:
    """read_bytes for a file a user or configuration named: a refusal is a Refused error naming `what` and the path."""
    try:
        return read_bytes(path, limit, root=root, root_name="the repository")
    except Unreadable as e:
        raise Refused(f"{path}: {e}" if what == str(path) else f"{what}: {path}: {e}") from None


def resolve_inside(value: str | Path, base: Path, top: Path, what: str, *, allow_dir: bool = False) -> Path:
    """`value` (relative to `base`) resolved one component at a time, refusing anything that leaves `top`.

    Absolute paths, `..` past the top and symlinks (at any component) that lead outside are refused, as is anything
    that is not a regular file (or a directory, with allow_dir). The error names `what`, never the contents."""
    raw = Path(value)
    if raw.is_absolute():
        raise Refused(f"{what}: {str(value)!r} is an absolute path; repository configuration may only name files "
                      "inside the repository")
    top = top.resolve()
    cur = base.resolve()
    if not cur.is_relative_to(top):
        raise Refused(f"{what}: the configuration file is outside the repository ({top})")
    for part in raw.parts:
        nxt = cur.parent if part == ".." else cur / part
        try:
            st = os.lstat(nxt)
        except OSError:
            raise Refused(f"{what}: {str(value)!r} does not exist") from None
        if stat.S_ISLNK(st.st_mode):
            nxt = nxt.resolve()
        if not nxt.is_relative_to(top):
            raise Refused(f"{what}: {str(value)!r} leads outside the repository")
        cur = nxt
    try:
        st = os.stat(cur)
    except OSError:
        raise Refused(f"{what}: {str(value)!r} does not exist") from None
    if in_git_dir(str(cur), str(top)):
        raise Refused(f"{what}: {str(value)!r} is {GIT_REFUSED}")
    if stat.S_ISDIR(st.st_mode) and allow_dir:
        return cur
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise Refused(f"{what}: {str(value)!r} is {kind}")
    if st.st_nlink > 1:
        raise Refused(f"{what}: {str(value)!r} is {_HARD_LINK}")
    return cur


# A file a repository's configuration names with several names: the others may lie anywhere (an unpacked archive or a
# cache restore can make one; git never does), as read_bytes refuses a scanned file.
_HARD_LINK = "a hard link (the file has other names, which may lie outside the repository); not read"


def files_under(directory: Path, top: Path, what: str, suffixes: tuple[str, ...]) -> list[Path]:
    """The regular files ending in `suffixes` under `directory`, each inside `top`, sorted. A symlink that leads out
    of `top`, or an entry that is not a regular file or directory, is refused (the configuration is wrong, and
    skipping it silently would hide that); symlinked directories are not entered."""
    out: list[Path] = []
    for path, st in _entries(directory, what):
        if not path.name.endswith(suffixes):
            continue
        if stat.S_ISLNK(st.st_mode):
            if not inside(path, top):
                raise Refused(f"{what}: {path} is a symlink leading outside the repository")
            try:
                st = os.stat(path)
            except OSError:
                raise Refused(f"{what}: {path} is a dangling symlink") from None
        if stat.S_ISDIR(st.st_mode):
            continue
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{what}: {path} is not a regular file")
        if in_git_dir(os.path.realpath(path), os.path.realpath(top)):
            raise Refused(f"{what}: {path} is {GIT_REFUSED}")
        if st.st_nlink > 1:
            raise Refused(f"{what}: {path} is {_HARD_LINK}")
        out.append(path)
    return sorted(out)


def _entries(directory: Path, what: str) -> Iterator[tuple[Path, os.stat_result]]:
    """Every entry below `directory` with its lstat, breadth first, never through a symlinked directory, bounded."""
    todo: list[tuple[Path, int]] = [(directory, 0)]
    count = 0
    while todo:
        d, depth = todo.pop(0)
        try:
            with os.scandir(d) as it:
                names = sorted(e.name for e in it)
        except OSError as e:
            raise Refused(f"{what}: {d}: cannot list: {e.strerror or e}") from None
        for name in names:
            count += 1
            if count > MAX_LIST_ENTRIES:
                raise Refused(f"{what}: {directory} holds more than {MAX_LIST_ENTRIES:,} entries")
            p = d / name
            try:
                st = os.lstat(p)
            except OSError:
                continue
            yield p, st
            if stat.S_ISDIR(st.st_mode):
                if depth + 1 > MAX_LIST_DEPTH:
                    raise Refused(f"{what}: {directory} is nested deeper than {MAX_LIST_DEPTH} levels")
                todo.append((p, depth + 1))


def named_in(directory: Path | str, prefix: str, limit: int = 1000) -> list[Path]:
    """The entries of one directory (not below it) whose names start with `prefix`, sorted; at most `limit` (a
    repository's git directory holding 10^6 planted names is not listed past that). Empty when it cannot be listed."""
    out: list[Path] = []
    try:
        with os.scandir(directory) as it:
            for e in it:
                if e.name.startswith(prefix):
                    out.append(Path(directory) / e.name)
                    if len(out) >= limit:
                        break
    except OSError:
        return []
    return sorted(out)


def real_directory(path: Path, top: Path, what: str, *, create: bool = False) -> Path:
    """A directory that is itself (not through a symlink at its name) inside `top`: what translate's backup folder
    must be, so a planted `.porter-backup` symlink cannot receive or supply files. With `create`, made if missing."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise Refused(f"{what}: {path} does not exist") from None
        try:
            os.makedirs(path, exist_ok=True)
            st = os.lstat(path)
        except OSError as e:
            raise Refused(f"{what}: {path}: cannot create: {e.strerror or e}") from None
    except OSError as e:
        raise Refused(f"{what}: {path}: {e.strerror or e}") from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{what}: {path} is a symlink; porter does not follow it")
    if not stat.S_ISDIR(st.st_mode):
        raise Refused(f"{what}: {path} exists and is not a directory")
    if not inside(path, top):
        raise Refused(f"{what}: {path} leads outside {top}")
    return path


def member(base: Path, rel: str, what: str) -> Path:
    """`base / rel` for a relative name a file inside the repository supplied (a manifest entry): it must stay under
    `base` lexically and after every symlink on the way is followed."""
    p = Path(rel)
    if not rel or p.is_absolute() or ".." in p.parts or "\0" in rel:
        raise Refused(f"{what}: {rel!r} is not a relative path inside {base}")
    full = base / p
    if not inside(full.parent, base):
        raise Refused(f"{what}: {rel!r} leads outside {base}")
    return full


def _umask() -> int:
    """The process's umask (read by setting it, so set straight back), for the mode a written file gets."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_bytes(path: Path | str, data: bytes, *, root: Path | str | None = None, mode: int = 0o644,
                sync: bool = False, umask: bool = True) -> None:
    """Write `data` at `path` atomically (a temporary file in the same directory, renamed over the name): a symlink
    at `path` is replaced, never written through, and a reader never sees half a file. With `root`, the directory
    must be inside it. A directory or other non-regular file at `path` is refused. The file gets `mode` less the
    umask, or exactly `mode` without `umask` (translate keeps a rewritten file's own mode).
    The directory is opened once and everything after is done relative to that descriptor, whose real location is
    what `root` is checked against: a directory of the path swapped for a symlink after the check cannot lead the
    write out of the root."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if root is not None and not inside(parent, root):
        raise Refused(f"{path}: its directory leads outside {root}; not written")
    try:
        dir_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise WriteFailed(f"{path}: cannot write: {e.strerror or e}", e.strerror or str(e)) from None
    try:
        if root is not None:
            real = _descriptor_path(dir_fd)
            if real is None or not inside(real, root):
                raise Refused(f"{path}: its directory leads outside {root}; not written")
        _write_at(dir_fd, path, data, mode & ~_umask() if umask else mode, sync, root is None)
    finally:
        os.close(dir_fd)


def _write_at(dir_fd: int, path: Path, data: bytes, mode: int, sync: bool, devices: bool) -> None:
    """write_bytes inside the directory open at `dir_fd`; `devices`: a device or pipe at the name is written to (the
    user's own `-o /dev/null`, outside any checkout)."""
    name = path.name
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise WriteFailed(f"{path}: cannot write: {e.strerror or e}", e.strerror or str(e)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteFailed(f"{path}: cannot write: {os.strerror(errno.EISDIR)}", os.strerror(errno.EISDIR))
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        if devices and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            _write_through(path, data)
            return
        raise Refused(f"{path}: exists and is not a regular file; not written")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = f"{TMP_PREFIX}{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
        except OSError as e:
            raise WriteFailed(f"{path}: cannot write: {e.strerror or e}", e.strerror or str(e)) from None
    else:
        raise WriteFailed(f"{path}: cannot write: no free temporary name", "no free temporary name")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as e:  # an interrupt too: no temporary file is left behind
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise WriteFailed(f"{path}: cannot write: {e.strerror or e}", e.strerror or str(e)) from None
        raise


def _write_through(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
    except OSError as e:
        raise Refused(f"{path}: cannot write: {e.strerror or e}") from None


def checkout_of(path: Path | str) -> Path | None:
    """The work tree an output path lies in, found lexically (the nearest directory above it holding `.git`, without
    following symlinks on the way), or None. Output written there must really land there: `-o reports/x.sarif`
    where a PR committed `reports` as a symlink to somewhere else is refused. Where the path's directory leaves a
    checkout around it (`reports` linking to another checkout, whose own `.git` is then the nearest), that checkout
    is the one returned, so the caller's check refuses it too."""
    d = Path(os.path.abspath(path)).parent
    tops = [cur for cur in (d, *d.parents) if os.path.lexists(cur / ".git")]
    return leaves_checkout(d) or (tops[0] if tops else None)


def leaves_checkout(path: Path | str) -> Path | None:
    """The git checkout a named path lies in (by its name: every directory above it, and itself, holding `.git`)
    whose real location the path's real location is outside, or None. `porter scan src` where a pull request
    committed `src` as a symlink to /home/ci would otherwise scan, and quote, whatever lies there; a symlink that
    leads to another git checkout is caught by the checkout around it."""
    p = Path(os.path.abspath(path))
    real = os.path.realpath(p)
    for cur in (p, *p.parents):
        if os.path.lexists(cur / ".git") and not _under(real, os.path.realpath(cur)):
            return cur
    return None


def append_text(path: Path | str, text: str) -> None:
    """Append to a file (a CI job's step summary): never through a symlink at its name, never to a FIFO or device,
    and inside its checkout when it lies in one."""
    path = Path(path)
    top = checkout_of(path)
    if top is not None and not inside(path.parent, top):
        raise Refused(f"{path}: its directory leads outside {top}; not written")
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Refused(f"{path}: is a symlink; not written through") from None
        raise Refused(f"{path}: cannot append: {e.strerror or e}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(f"{path}: exists and is not a regular file; not written")
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    except OSError as e:
        raise Refused(f"{path}: cannot append: {e.strerror or e}") from None
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------- confining a child process

# A compiler porter runs on the repository (`port --verify`) reads whatever the sources name: `#include "/any/file"`,
# and clang's `#embed "/home/ci/.netrc"` turns a file's bytes into values that an error located in the tree quotes
# in full (`implicit instantiation of undefined template 'Leak<'m', 'a', ...>'`), so hiding errors located outside
# the tree does not keep the file out of the report. Landlock (Linux 5.13+, unprivileged) confines such a child
# to what it was given: the tree read-only, the toolchain's system directories read and execute, its temporary
# directory read-write. Nothing else can be opened, whatever the sources say.
TOOLCHAIN_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt/rocm", "/opt/cuda", "/etc/alternatives",
                  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/dev/null", "/dev/urandom")
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same number on every architecture
_PR_SET_NO_NEW_PRIVS = 38
_LL_EXECUTE, _LL_WRITE_FILE, _LL_READ_FILE, _LL_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_LL_FILE_RIGHTS_V1 = _LL_EXECUTE | _LL_WRITE_FILE | _LL_READ_FILE
_LL_TRUNCATE, _LL_IOCTL_DEV, _LL_REFER = 1 << 14, 1 << 15, 1 << 13


class Confinement:
    """A Landlock ruleset built in the parent (`available` False where the kernel has none): `apply()` is a
    preexec_fn that confines the child to it; close() in the parent after the child started."""

    def __init__(self, reads: tuple[str, ...], writes: tuple[str, ...], tools: tuple[str, ...] = ()):
        import ctypes

        self.fd = -1
        self._libc = ctypes.CDLL(None, use_errno=True)
        libc = self._libc
        abi = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
        if abi < 1:
            return
        handled = (1 << 13) - 1  # every right of ABI 1
        if abi >= 2:
            handled |= _LL_REFER
        if abi >= 3:
            handled |= _LL_TRUNCATE
        if abi >= 5:
            handled |= _LL_IOCTL_DEV
        file_rights = _LL_FILE_RIGHTS_V1 | (handled & (_LL_TRUNCATE | _LL_IOCTL_DEV))

        class RulesetAttr(ctypes.Structure):
            _fields_ = [("handled_access_fs", ctypes.c_uint64)]

        class PathBeneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

        attr = RulesetAttr(handled)
        fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
        if fd < 0:
            return
        os.set_inheritable(fd, False)
        rules = [(p, _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR) for p in (*TOOLCHAIN_DIRS, *tools)]
        rules += [(p, _LL_READ_FILE | _LL_READ_DIR) for p in reads]
        rules += [(p, handled) for p in writes]
        for path, rights in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a toolchain directory this system lacks
            try:
                if not stat.S_ISDIR(os.fstat(pfd).st_mode):
                    rights &= file_rights
                rule = PathBeneath(rights & handled, pfd)
                if libc.syscall(_SYS_ADD_RULE, fd, ctypes.c_int(1), ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    os.close(fd)
                    return
            finally:
                os.close(pfd)
        self.fd = fd

    @property
    def available(self) -> bool:
        return self.fd >= 0

    def apply(self) -> None:
        """In the child, before exec: no new privileges (Landlock requires it), then the ruleset. A failure ends the
        child (exec never happens unconfined)."""
        if self.fd < 0:
            return
        import ctypes

        if self._libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
                self._libc.syscall(_SYS_RESTRICT_SELF, self.fd, ctypes.c_uint32(0)) != 0:
            os._exit(126)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def confinement(reads: tuple[str | Path, ...], writes: tuple[str | Path, ...],
                tools: tuple[str | Path, ...] = ()) -> Confinement:
    """A child's confinement to `reads` (read-only, with the toolchain's system directories), `writes`, and `tools`
    (a tool installed outside the system directories: read and execute)."""
    return Confinement(tuple(os.fspath(p) for p in reads), tuple(os.fspath(p) for p in writes),
                       tuple(os.fspath(p) for p in tools))
