"""Run git on a repository porter does not trust: read-only plumbing with nothing the repository can make execute.

A scanned repository's own .git/config may name programs (core.fsmonitor, filters, textconv, external diff,
hooks, pagers); porter only runs commands that never consult them, and overrides the ones that could be consulted
anyway, including the filter, diff and merge drivers the repository names itself (command() reads their names from
its config and disarms each: `git status` hashes a file whose stat changed through its clean filter). git's own
object reads (`cat-file --batch`) apply no filters. The user's global configuration is trusted; the repository's is
not.
"""
from __future__ import annotations

import errno
import functools
import os
import re
import selectors
import shutil
import stat
import subprocess
import time
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
    # A repository's config could name any file here (a FIFO stalls git until its timeout; an outside file's
    # patterns would decide what a scan lists). /dev/null is "no file" to git. The user's own global excludes and
    # attributes files are then not applied either: `-c` cannot tell whose config set them, and the repository's
    # .gitignore files and .git/info/exclude still are.
    "-c", "core.excludesFile=/dev/null",
    "-c", "core.attributesFile=/dev/null",
    # `git log` would run gpg.program (a repository's config may name any program) to show signatures.
    "-c", "log.showSignature=false",
    # `git diff` reads the file diff.orderFile names (a FIFO stalls it, as an excludes file would): no order file.
    "-c", "diff.orderFile=/dev/null",
    # `diff -M` compares every added file with every removed one up to this many (git's own default); a
    # repository's config may set 0, "no limit", which makes a pull request of thousands of renames quadratic.
    "-c", "diff.renameLimit=1000",
    # A submodule is another repository, whose config nothing here has read: git never recurses into one.
    "-c", "submodule.recurse=false",
    "--no-pager",
    "--no-optional-locks",
)


class GitError(Exception):
    """A git command failed; carries git's own message."""


def _verb(args: tuple[str, ...] | list[str]) -> str:
    """The git command `args` run (`clone` of `-c protocol.file.allow=always clone ...`), for messages."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-c", "-C") else 1
    return args[i] if i < len(args) else ""


class GitTimeout(GitError):
    """A git command ran past its own timeout (not the run's deadline, which says so in its message)."""


# Every git porter starts may allocate at most this much (RLIMIT_DATA, not RLIMIT_AS: git maps pack files, which
# address space would count): a few KB of commit can list 10^9 paths, and git keeps some listings in memory.
MEMORY_MIB = 2048
# The most stdout `run` collects from one git command; over it git is killed.
OUTPUT_MIB = 512


def memory_mib() -> int:
    return int(os.environ.get("PORTER_GIT_MEMORY_MIB") or MEMORY_MIB)


def output_mib() -> int:
    return int(os.environ.get("PORTER_GIT_OUTPUT_MIB") or OUTPUT_MIB)


def capped(cmd: list[str]) -> list[str]:
    """`cmd` as every git porter starts is run: its data segment capped at memory_mib() by sh's `ulimit -d`, and
    killed when porter dies (setpriv's parent-death signal, kept across git's exec), before sh execs git.

    Not a preexec_fn: with one, Python fork()s the whole calling process and runs Python in the child (it vfork()s
    only without one), which in a 300 MB process (a test worker, a fleet worker) cost ~15 ms of system time per git,
    more than git itself. The parent-death signal matters because a git blocked on a FIFO planted in the
    repository's .git outlived a porter killed by its CI job's timeout, reparented to init and blocked for ever
    (reproduced: two such gits left by a killed run). FileNotFoundError when cmd[0] is not on PATH, as Popen."""
    exe = shutil.which(cmd[0])
    if exe is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), cmd[0])
    reaper = _setpriv()
    run = f'exec {reaper} --pdeathsig KILL "$0" "$@"' if reaper else 'exec "$0" "$@"'
    return ["/bin/sh", "-c", f"ulimit -d {memory_mib() * 1024} && {run}", exe, *cmd[1:]]


@functools.cache
def _setpriv() -> str | None:
    """util-linux's setpriv (every Debian/Ubuntu image has it), looked up once; None where there is none (then a
    git outlives a killed porter until its own timeouts, as before)."""
    return shutil.which("setpriv")



def out_of_memory(stderr: bytes, returncode: int) -> bool:
    """Whether git died of the memory cap (malloc fails: git says so and exits 128; or the kernel killed it)."""
    text = stderr.decode("utf-8", "replace")
    # git words it several ways: "Out of memory, malloc failed", "inflate: out of memory", "Cannot allocate memory".
    return ("out of memory" in text.lower() or "malloc failed" in text or "Cannot allocate memory" in text or (
        returncode in (-9, 137) and not text.strip()))


def memory_message(args: tuple[str, ...] | list[str]) -> str:
    return f"git {args[0] if args else ''} needed more than {memory_mib()} MiB (the repository lists too much)"


def popen(cmd: list[str], protocols: tuple[str, ...] = (), **kwargs) -> subprocess.Popen:
    """subprocess.Popen for git, under the memory cap, allowed only the transports in `protocols` (git_env);
    GitError when git is missing."""
    try:
        return subprocess.Popen(capped(cmd), env=git_env(protocols), **kwargs)
    except FileNotFoundError:
        raise GitError("git is not installed") from None


def git_env(protocols: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment for git: no prompts, no external diff or pager from the environment, C locale messages, and
    no transport but `protocols` (none unless a fleet clone names its own).

    GIT_ALLOW_PROTOCOL is the one setting of transports a repository's config cannot outrank (git(1): it overrides
    protocol.<name>.allow, which `-c protocol.allow=never` does not): a partial clone (`extensions.partialClone`)
    fetches any object it lacks from its promisor remote by itself, on a plain `cat-file` or `ls-tree`, and that
    remote's URL (`ext::<command>`) and `uploadpack` program are the repository's own config, run through the
    shell (tests/test_red_s20_lazy_fetch.py)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") or k in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C",
                "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1",
                # An empty list allows no transport at all; `:` is git's separator.
                "GIT_ALLOW_PROTOCOL": ":".join(protocols)})
    return env


# Repository config keys that name a program git runs by itself, keyed by the name's last part (for a key with a
# driver or URL in the middle, `filter.<driver>.clean`, `credential.<url>.helper`) and the value that disarms it.
# A work-tree read (`git status`, `diff-files`) hashes a file whose stat changed through its clean filter: a
# `.gitattributes` line plus `filter.x.clean = <anything>` in .git/config would run that program. The driver names
# are the repository's own, so SAFE_OPTIONS cannot name them: command() reads them from the config and overrides
# each one (an empty command is "no filter" to git).
_PROGRAM_KEYS = {
    ("filter", "clean"): "", ("filter", "smudge"): "", ("filter", "process"): "", ("filter", "required"): "false",
    ("diff", "textconv"): "", ("diff", "command"): "", ("merge", "driver"): "",
    ("gpg", "program"): "", ("credential", "helper"): "",
}
# Subcommands that read the work tree, with the options that keep them out of submodules: a submodule's own config
# (its drivers) is not this repository's and is never read here, and `submodule.<name>.ignore = none` in a
# committed .gitmodules outranks any `-c` default, so only the command-line option holds. The commands that compare
# commits (log, diff, diff-tree) get `--ignore-submodules=dirty`: any explicit value keeps git from reading
# .gitmodules' settings to compare a gitlink (a committed `update = !cmd`, which git refuses with "invalid value
# for 'submodule.x.update'", ended `git log --raw`: `porter history` and --new-since exited 2, session 25), while
# a gitlink a commit adds or moves is still listed (a new submodule is named as not scanned).
_WORKTREE_READS = {"status": ("--ignore-submodules=all",), "diff-files": ("--ignore-submodules=all",),
                   **{verb: ("--ignore-submodules=dirty",) for verb in ("log", "diff", "diff-tree")}}


def command(repo: Path, *args: str) -> list[str]:
    """The argv of `git ARGS` run on `repo` with every program the repository's config names disarmed."""
    extra = _WORKTREE_READS.get(args[0], ()) if args else ()
    return ["git", *SAFE_OPTIONS, *disarmed(Path(repo)), "-C", str(repo), *args[:1], *extra, *args[1:]]


_DISARMED: dict[tuple, tuple[str, ...]] = {}
# The most program keys a repository's config may name: each is a `-c` pair on every git's command line, and the
# kernel refuses an exec past its argument limit (E2BIG: 100,000 filter drivers ended porter in "internal error").
# A repository has a few (Git LFS names four).
MAX_PROGRAM_KEYS = 256


def _program_override(name: str) -> str | None:
    """The harmless value porter sets for a config key that names a program (`filter.x.clean`), or None."""
    parts = name.split(".")
    return _PROGRAM_KEYS.get((parts[0], parts[-1])) if len(parts) >= 2 else None


def _count_programs(entries: list[str]) -> int:
    return len({name for name in entries if _program_override(name) is not None})


def disarmed(repo: Path) -> tuple[str, ...]:
    """`-c KEY=VALUE` pairs overriding every key of `repo`'s own config (and config.worktree) that names a program
    (_PROGRAM_KEYS), remembered per config file state (path, inode, size, mtime) so a history walk's hundreds of
    git calls parse the config once."""
    found = _find_git_dir(Path(os.path.abspath(repo)))
    if found is None:
        return ()
    gitdir, common = found
    files = []
    for cfg in (Path(common) / "config", Path(gitdir) / "config.worktree"):
        try:
            st = os.stat(cfg)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            files.append((str(cfg), st.st_ino, st.st_size, st.st_mtime_ns))
    key = tuple(files)
    if key not in _DISARMED:
        out: dict[str, None] = {}  # ordered and linear to search: a config may repeat a key any number of times
        for path, *_ in files:
            try:
                entries = _config_keys(Path(path))
            except ForeignRepository:
                continue  # unparsable: git refuses it too, before running anything
            for name in entries:
                value = _program_override(name)
                if value is None:
                    continue
                if "=" in name or "\n" in name:
                    # `-c` splits at the first `=`: the override would set some other key and leave this one armed
                    raise ForeignRepository(f"{path}: repository config names a program under {name!r}, which porter "
                                            "cannot override; not read")
                out[f"{name}={value}"] = None
                if len(out) > MAX_PROGRAM_KEYS:
                    raise ForeignRepository(
                        f"{path}: repository config names {_count_programs(entries)} programs (filter, diff, merge "
                        f"drivers...), more than the {MAX_PROGRAM_KEYS} porter overrides")
        if len(_DISARMED) > 256:  # a fleet run visits many repositories; their states need not all be kept
            _DISARMED.clear()
        _DISARMED[key] = tuple(x for pair in (("-c", o) for o in out) for x in pair)
    return _DISARMED[key]


def _collect(cmd: list[str], args: tuple[str, ...], timeout: float,
             protocols: tuple[str, ...] = ()) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, first 64 KiB of stderr) of one git command under the memory cap, allowed only the
    transports in `protocols`; GitError when it runs past `timeout`, prints more than output_mib() MiB, or dies of
    the memory cap."""
    limit, cut = within_deadline(timeout)
    proc = popen(cmd, protocols, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cap = output_mib() * 1048576
    out: list[bytes] = []
    err = bytearray()
    size = 0
    deadline = time.monotonic() + limit
    problem = ""
    timed_out = False
    with selectors.DefaultSelector() as sel:
        assert proc.stdout is not None and proc.stderr is not None
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        try:
            while sel.get_map() and not problem:
                left = deadline - time.monotonic()
                if left <= 0:
                    problem = cut or f"git {_verb(args)} took longer than {timeout:g} s"
                    timed_out = not cut
                    break
                for key, _ in sel.select(min(left, 1.0)):
                    chunk = os.read(key.fd, 1 << 20)
                    if not chunk:
                        sel.unregister(key.fileobj)
                    elif key.fileobj is proc.stdout:
                        size += len(chunk)
                        if size > cap:
                            problem = f"git {_verb(args)} printed more than {output_mib()} MiB (the repository lists too much)"
                            break
                        out.append(chunk)
                    elif len(err) < 65536:
                        err += chunk
        finally:
            if problem or sel.get_map():  # stopped early (a problem, or an exception here): git must not outlive it
                proc.kill()
            try:
                code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            proc.stdout.close()
            proc.stderr.close()
    if problem:
        raise (GitTimeout if timed_out else GitError)(problem)
    if code != 0 and out_of_memory(bytes(err), code):
        raise GitError(memory_message(args))
    return code, b"".join(out), bytes(err)


def within_deadline(timeout: float) -> tuple[float, str]:
    """(the seconds a git command may take, and what to say when it is stopped for the run's deadline rather than
    its own timeout): the run's deadline (PORTER_DEADLINE_S, porter.budget) holds for git as for the parsers, so a
    git directory that stalls git (a FIFO among its objects) cannot carry a run past it."""
    from porter import budget

    d = budget.run_deadline()
    if d is None or d[0] - time.monotonic() >= timeout:
        return timeout, ""
    return max(d[0] - time.monotonic(), 0.0), f"git stopped at the run's deadline of {d[1]:g} s ({budget.DEADLINE_ENV})"


def run(repo: Path, *args: str, timeout: float = 120.0, check: bool = True,
        protocols: tuple[str, ...] = ()) -> bytes:
    """stdout of one git command, as bytes; GitError when it fails (and check), runs past `timeout`, prints more than
    output_mib() MiB, or needs more than memory_mib() MiB. git may use no transport but `protocols` (git_env)."""
    code, out, err = _collect(command(repo, *args), args, timeout, protocols)
    if check and code != 0:
        raise GitError(err.decode("utf-8", "replace").strip() or f"git {args[0]} failed ({code})")
    return out


def succeeds(repo: Path, *args: str, timeout: float = 60.0) -> bool:
    """Whether a git command exits 0 (for predicates such as check-ignore); False when git cannot run."""
    try:
        code, _, _ = _collect(command(repo, *args), args, timeout)
    except GitError:
        return False
    return code == 0


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

    A scanned tree may carry a `.git` *file* (`gitdir: /other/repo/.git`), a `core.worktree` naming another
    directory, a `.git/commondir` naming another repository's git directory, a `.git/objects` symlink, or an
    `objects/info/alternates` borrowing another repository's object store; reading commits through any of them
    would report another repository's code. So the work tree must hold `path`; the git directory must be inside the
    work tree, or be a linked worktree's or submodule's git directory that points back at this work tree (files a
    scanned tree cannot plant outside itself); the common directory must be inside the work tree or hold the git
    directory; the object store must be inside the common directory and every alternate inside the work tree or the
    common directory. The repository's config is checked before git reads it (see _check_config)."""
    d = path if path.is_dir() else path.parent
    early = _find_git_dir(d)
    if early is not None:
        _check_config(*early)  # before any git reads it: a FIFO or an [include] would stall or steer git
    try:
        out = run(d, "rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir",
                  "--git-common-dir", "--git-path", "objects", timeout=30)
    except GitError as e:
        if "not a git repository" in str(e):
            return None
        raise
    lines = [os.fsdecode(x) for x in out.split(b"\n") if x]
    if len(lines) != 4:
        return None  # a bare repository or a git directory itself: no work tree
    top, gitdir, common, objects = (Path(x) for x in lines)
    if not contain.inside(d, top):
        raise ForeignRepository(f"git's work tree for {d} is {top}, which does not contain it (core.worktree?)")
    if not (contain.inside(gitdir, top) or _points_back(gitdir, top)):
        raise ForeignRepository(f"{top}/.git leads to the git directory {gitdir}, outside the repository, which "
                                "does not belong to it")
    if not (contain.inside(common, top) or contain.inside(gitdir, common)):
        raise ForeignRepository(f"{gitdir}/commondir leads to {os.path.realpath(common)}, another repository's git "
                                "directory, which does not belong to it")
    if early is None or os.path.realpath(early[0]) != os.path.realpath(gitdir) or \
            os.path.realpath(early[1]) != os.path.realpath(common):
        _check_config(gitdir, common)
    if not contain.inside(objects, common):
        raise ForeignRepository(f"{gitdir}'s object store leads to {os.path.realpath(objects)}, outside its git "
                                f"directory {common} (a .git/objects symlink?)")
    _check_alternates(Path(os.path.realpath(objects)), top, common)
    return top


def is_bare(path: Path) -> bool:
    """Whether `path` itself is a bare repository's git directory, by its layout (HEAD, objects/ and refs/, and no
    config saying `bare = false`, which a work tree's .git directory says; git takes a git directory without the
    setting, as a mirror may be, for bare): read from the files, before any git command reads the config."""
    if not (os.path.isfile(path / "HEAD") and os.path.isdir(path / "objects") and os.path.isdir(path / "refs")):
        return False
    if not os.path.lexists(path / "config"):
        return True
    try:
        cfg = contain.read_bytes(path / "config", 1 << 20)
    except contain.Unreadable:
        return False
    return re.search(rb"(?mi)^[ \t]*bare[ \t]*=[ \t]*false[ \t]*$", cfg) is None


def check_bare(path: Path) -> None:
    """ForeignRepository unless the bare repository at `path` keeps its objects to itself: its object store inside
    it (not a symlink elsewhere), every alternate inside it, and a config git can read without following it out
    (as repository_top requires of a work tree's git directory). A clone copies whatever objects the store reaches."""
    path = Path(os.path.realpath(path))
    objects = Path(os.path.realpath(path / "objects"))
    if not contain.inside(objects, path):
        raise ForeignRepository(f"{path}/objects leads to {objects}, outside the repository (a symlink?)")
    _check_config(path, path)
    _check_alternates(objects, path, path)


# git follows alternates of alternates this deep; so does the check.
_ALTERNATE_DEPTH = 5


def _check_alternates(objects: Path, top: Path, common: Path) -> None:
    """ForeignRepository unless every object store `objects` borrows from (objects/info/alternates, and theirs in
    turn) is inside the work tree or the common directory."""
    todo, seen = [(objects, 0)], set()
    while todo:
        store, depth = todo.pop()
        if store in seen or depth > _ALTERNATE_DEPTH:
            continue
        seen.add(store)
        alt = store / "info" / "alternates"
        if not os.path.lexists(alt):
            continue
        try:
            data = contain.read_bytes(alt, 1 << 20)
        except contain.Unreadable as e:
            raise ForeignRepository(f"{alt}: {e}; not read") from None
        for raw in data.split(b"\n"):
            line = os.fsdecode(raw.strip())
            if not line or line.startswith("#"):
                continue
            if line.startswith('"'):
                raise ForeignRepository(f"{alt} names a quoted object store, which porter does not follow")
            where = Path(os.path.realpath(os.path.join(store, line)))
            if not (contain.inside(where, top) or contain.inside(where, common)):
                raise ForeignRepository(
                    f"{alt} (alternates) leads to the object store {where}, outside the repository: its commits "
                    "would be read from another repository (a `git clone --shared` or `--reference` clone; "
                    "`git repack -a -d` and removing the alternates file make it self-contained)")
            todo.append((where, depth + 1))


def _find_git_dir(d: Path) -> tuple[Path, Path] | None:
    """(git directory, common directory) as git's discovery would find them from `d`, worked out without running
    git, so their config can be checked before git reads it; None when there is none (or it is not plain: then
    git's own answer is checked after it)."""
    for a in (d, *d.parents):
        dotgit = a / ".git"
        if os.path.isdir(dotgit):
            gitdir = dotgit
        elif os.path.lexists(dotgit):
            try:
                text = contain.read_bytes(dotgit, 4096).decode("utf-8").strip()
            except (contain.Unreadable, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = Path(os.path.join(a, text[len("gitdir:"):].strip()))
        elif os.path.isfile(a / "HEAD") and os.path.isdir(a / "objects") and os.path.isdir(a / "refs"):
            gitdir = a  # a git directory itself (a bare repository)
        else:
            continue
        common = gitdir
        if os.path.lexists(gitdir / "commondir"):
            try:
                text = contain.read_bytes(gitdir / "commondir", 4096).decode("utf-8").strip()
            except (contain.Unreadable, UnicodeDecodeError):
                return None
            common = Path(os.path.join(gitdir, text))
        return gitdir, common
    return None


# Files of a git directory that the commands porter runs read (besides config, checked below): git opens each with
# a blocking open and no bound, so a FIFO at any of them stalls that command until its timeout (reproduced: a FIFO
# at .git/info/exclude held `git ls-files --exclude-standard`, the scan's discovery, for the full 120 s; one at
# .git/info/attributes held `git status`; one at a split index's sharedindex.<id> held `git ls-files`), and a symlink
# could hand git a file from elsewhere.
_READ_BY_GIT = ("HEAD", "index", "packed-refs", "shallow", "commondir", "info/exclude", "info/attributes",
                "info/sparse-checkout", "info/grafts")


def _check_git_files(gitdir: Path, common: Path) -> None:
    """ForeignRepository when a file git reads from the git directory (_READ_BY_GIT, and the branch HEAD names) is
    not a regular file, or is a symlink leading out of the git directory."""
    names = [Path(gitdir) / n for n in _READ_BY_GIT] + [Path(common) / n for n in _READ_BY_GIT]
    # A split index (`git update-index --split-index`) makes every index read open sharedindex.<id> too.
    names += contain.named_in(gitdir, "sharedindex.")
    try:
        head = contain.read_bytes(Path(gitdir) / "HEAD", 4096).decode("utf-8", "replace").strip()
    except contain.Unreadable:
        head = ""
    if head.startswith("ref: refs/") and ".." not in head:
        names.append(Path(common) / head[len("ref: "):])
    for path in dict.fromkeys(names):
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            real = os.path.realpath(path)
            if not (contain.inside(real, gitdir) or contain.inside(real, common)):
                raise ForeignRepository(f"{path} is a symlink leading to {real}, outside the git directory; not read")
            try:
                st = os.stat(path)
            except OSError:
                continue
        if not stat.S_ISREG(st.st_mode):
            raise ForeignRepository(f"{path} is not a regular file; git would wait on it, so it is not read")


def _check_config(gitdir: Path, common: Path) -> None:
    """ForeignRepository when the repository config git would read is not a plain file inside the repository, or
    makes git read other files ([include], [includeIf]): git would follow them with no bound (a FIFO stalls every
    git call until its timeout) and another file's settings would steer it. The other files git reads from the
    git directory are checked too (_check_git_files)."""
    _check_git_files(gitdir, common)
    for cfg in (Path(common) / "config", Path(gitdir) / "config.worktree"):
        try:
            st = os.lstat(cfg)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            real = os.path.realpath(cfg)
            if not contain.inside(real, common):
                raise ForeignRepository(f"{cfg} (the repository config) is a symlink leading to {real}, outside "
                                        "the git directory; not read")
            try:
                st = os.stat(cfg)
            except OSError:
                continue
        if not stat.S_ISREG(st.st_mode):
            raise ForeignRepository(f"{cfg} (the repository config) is not a regular file; not read")
        for key in _config_keys(cfg):
            if key.lower().startswith(("include.", "includeif.")):
                raise ForeignRepository(f"{cfg}: repository config uses [include]; porter does not follow it")


def _config_keys(cfg: Path) -> list[str]:
    """The keys a config file sets, as git spells them (section and name lower case, a subsection as written);
    ForeignRepository when git cannot parse it. `git config --file` only parses the file (no includes with
    --no-includes); run from / so no repository's own config is read for it."""
    code, out, err = _collect(["git", *SAFE_OPTIONS, "-C", "/", "config", "--file", str(cfg), "--no-includes",
                               "--list", "-z"], ("config",), 30)
    if code != 0:
        raise ForeignRepository(f"{cfg}: git cannot parse the repository config: "
                                f"{err.decode('utf-8', 'replace').strip()}")
    return [entry.partition(b"\n")[0].decode("utf-8", "surrogateescape") for entry in out.split(b"\0") if entry]


def require_top(path: Path, why: str) -> Path:
    """repository_top for a command that needs the repository (`scan --rev`, `--new-since`, `history`): every way it
    can fail is a UsageError naming `path`; `why` ends the "not inside a git repository" message."""
    try:
        if is_bare(path):
            # A bare repository (a mirror, a fleet's clone cache) has commits and no work tree: its git directory is
            # the repository, checked as a fleet checks a bare clone before git reads it.
            check_bare(path)
            return Path(os.path.realpath(path))
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
            self._proc = popen(command(self.repo, "cat-file", "--batch"), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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

    timeout, cut = within_deadline(timeout)
    p = popen(command(repo, "cat-file", "--batch-check"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
              stderr=subprocess.DEVNULL)
    # The reads below block until git answers: a watchdog kills git at the timeout (a FIFO planted as an object
    # would hold it forever), which ends the reads.
    watchdog = threading.Timer(timeout, p.kill)
    watchdog.daemon = True
    watchdog.start()
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
        raise GitError(cut or f"git cat-file took longer than {timeout:g} s") from None
    finally:
        fired = not watchdog.is_alive() and p.returncode is not None and p.returncode < 0
        watchdog.cancel()
        p.stdout.close()
    if fired:
        raise GitError(cut or f"git cat-file took longer than {timeout:g} s")
    return sizes
