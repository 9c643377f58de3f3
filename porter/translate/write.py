"""Put a translation on disk without ever losing an original byte: an output tree, in place, or a diff.

Output tree: refused inside (or around) the source tree and, unless `overwrite`, when it is not empty; every
file goes through a temporary file and `os.replace`, so an existing symlink in the output is replaced, never
written through, and a directory symlink on the way is refused. In place: only in a git work tree whose files to
change have no uncommitted changes (or with `force`); the originals are first copied to a backup directory
(inside .git/ in a git repository) and synced, then each file is replaced atomically; if a replacement fails or
the run is interrupted (any exception, KeyboardInterrupt included: the CLI turns SIGTERM and SIGHUP into one),
the files already replaced are restored before the error propagates. Read-only files and symlinks are never
rewritten; each file's content is compared with what was translated immediately before its replacement, and a
file edited meanwhile is left alone and reported (the others are still written). The backup's manifests name
files losslessly (any bytes, newlines included) and hold the SHA-256 of each original and of what porter wrote,
so `undo_in_place` can put the newest backup back and refuse a file edited since porter wrote it.

Test hook: with PORTER_TEST_PAUSE_AFTER="N:MARKER" in the environment, an in-place run creates the file MARKER
after rewriting its N-th file and waits (at most 60 s) until MARKER is removed; tests use it to edit a file or
send a signal at an exact point of a real run.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from porter import contain
from porter.render import unidiff
from porter.render.safe import patch_path
from porter.source import git
from porter.translate.model import BACKUP_DIR, TranslateError, TranslationResult

TMP_PREFIX = contain.TMP_PREFIX
MANIFEST = "MANIFEST.sha256"  # the originals: `sha256sum -c` format, names escaped as sha256sum escapes them
WRITTEN = "WRITTEN.sha256"  # what porter replaced them with, same format
UNDONE_SUFFIX = ".undone"  # a backup already put back by undo_in_place
TEST_PAUSE_ENV = "PORTER_TEST_PAUSE_AFTER"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024  # a backup manifest: two lines per file of a translated tree
MAX_RESTORE_BYTES = 1 << 30  # one file put back by --undo (translate reads sources of at most 8 MiB by default)
MAX_GENERATED_BYTES = 16 * 1024 * 1024  # porter_hip_compat.h: a few KiB in practice
CHANGED_DURING_RUN = "changed on disk during the run: not rewritten (your edit is kept)"


@dataclass
class WriteReport:
    mode: str  # outdir | in-place
    target: str
    written: list[str] = field(default_factory=list)  # translated files written
    copied: list[str] = field(default_factory=list)  # files copied unchanged (output tree)
    links: list[str] = field(default_factory=list)  # symlinks recreated (output tree)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    backup: str | None = None  # in-place: where the originals are

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "target": self.target, "written": self.written, "copied": len(self.copied),
            "links": self.links, "skipped": [{"path": p, "reason": r} for p, r in self.skipped], "backup": self.backup,
        }


def check_outdir(root: Path, outdir: Path, overwrite: bool) -> Path:
    """The resolved output directory, or TranslateError when writing there could touch the sources."""
    root = Path(root).resolve()
    out = Path(outdir).resolve()
    if out == root or out.is_relative_to(root):
        raise TranslateError(f"{outdir}: the output directory is inside the source tree {root}; choose one outside it")
    if root.is_relative_to(out):
        raise TranslateError(f"{outdir}: the output directory contains the source tree {root}; choose one beside it")
    if out.exists() and not out.is_dir():
        raise TranslateError(f"{outdir}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise TranslateError(f"{outdir}: not empty; pass --overwrite to write into it")
    return out


def _safe_parent(out: Path, rel: str) -> Path:
    """Create the parents of out/rel, refusing any symlinked directory on the way (never write through one)."""
    d = out
    for part in Path(rel).parts[:-1]:
        d = d / part
        if d.is_symlink():
            raise OSError(f"{d} is a symlink; not written through")
        if not d.exists():
            d.mkdir()
        elif not d.is_dir():
            raise OSError(f"{d} exists and is not a directory")
    return d


def _atomic_write(dest: Path, data: bytes, mode: int, sync: bool, root: Path) -> None:
    """contain.write_bytes keeping `mode` exactly (a rewritten file keeps its own), never outside `root` (checked
    on the directory it writes in, at the write); a failure is contain.WriteFailed, whose `strerror` the callers
    report, or contain.Refused."""
    contain.write_bytes(dest, data, mode=mode, sync=sync, umask=False, root=root)


def write_tree(result: TranslationResult, outdir: Path, overwrite: bool = False) -> WriteReport:
    """Mirror the source tree into `outdir`: translated files, every other file copied, symlinks recreated."""
    out = check_outdir(result.root, outdir, overwrite)
    out.mkdir(parents=True, exist_ok=True)
    report = WriteReport("outdir", str(out))
    root = result.root

    def mode_of(rel: str) -> int:
        try:
            return (os.stat(root / rel).st_mode & 0o777) | stat.S_IWUSR  # the copy stays writable for the next run
        except OSError:
            return 0o644

    for ft in result.files:
        try:
            _atomic_write(_safe_parent(out, ft.path) / Path(ft.path).name, ft.output, mode_of(ft.path), sync=False,
                          root=out)
            (report.written if ft.changed else report.copied).append(ft.path)
        except (OSError, contain.Refused) as e:
            report.skipped.append((ft.path, f"not written: {getattr(e, 'strerror', None) or e}"))
    for rel in result.copies:
        try:
            data = contain.read_bytes(root / rel, MAX_RESTORE_BYTES, root=root)
        except contain.Unreadable as e:
            report.skipped.append((rel, f"not copied: {e}"))
            continue
        try:
            _atomic_write(_safe_parent(out, rel) / Path(rel).name, data, mode_of(rel), sync=False, root=out)
            report.copied.append(rel)
        except (OSError, contain.Refused) as e:
            report.skipped.append((rel, f"not written: {getattr(e, 'strerror', None) or e}"))
    for rel, target in result.symlinks:
        try:
            dest = _safe_parent(out, rel) / Path(rel).name
            if dest.is_symlink() or dest.exists():
                if dest.is_dir() and not dest.is_symlink():
                    raise OSError(f"{dest} is a directory")
                dest.unlink()
            os.symlink(target, dest)
            report.links.append(rel)
        except OSError as e:
            report.skipped.append((rel, f"symlink not recreated: {e.strerror or e}"))
    return report


def _git_dir(root: Path) -> Path | None:
    # The repository's config is checked before git reads it (a FIFO or an [include] would stall or steer git).
    try:
        git.repository_top(Path(root))
    except git.GitError as e:
        raise TranslateError(f"{root}: {e}") from None
    try:  # porter.source.git.run: hardened options, memory and output caps, a timeout and the run's deadline
        out = os.fsdecode(git.run(root, "rev-parse", "--absolute-git-dir").strip())
    except (git.GitError, OSError):
        return None
    return Path(out) if out else None


def uncommitted(root: Path, paths: list[str]) -> list[str]:
    """Which of `paths` (relative to root) git reports as modified, staged, untracked or otherwise not committed."""
    if not paths:
        return []
    # Not `git status`: it may run the repository's clean filters on racy files. Instead compare, in-process, each
    # file's raw bytes (hashed as a git blob) with its index entry, and the index with HEAD. A file a filter would
    # normalise reads as changed, which only makes --in-place refuse (safe) unless --force.
    try:
        staged = git.run(root, "diff-index", "--cached", "-z", "--name-only", "--no-renames", "HEAD", "--", *paths)
        listed = git.run(root, "ls-files", "-s", "-z", "--", *paths)
    except git.GitError as e:
        raise TranslateError(f"{root}: git failed: {e}") from None
    out = {os.fsdecode(n) for n in staged.split(b"\0") if n}
    index: dict[str, str] = {}
    for entry in listed.split(b"\0"):
        if entry:
            meta, _, name = entry.partition(b"\t")
            index[os.fsdecode(name)] = meta.split()[1].decode("ascii")
    for rel in paths:
        try:
            data = contain.read_bytes(root / rel, MAX_RESTORE_BYTES, root=root)
        except contain.Unreadable:
            out.add(rel)
            continue
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        if index.get(rel) != blob:
            out.add(rel)
    return sorted(out)


def write_in_place(result: TranslationResult, force: bool = False, backup_dir: Path | None = None) -> WriteReport:
    """Rewrite the changed files where they are (see the module docstring for the guarantees)."""
    root = result.root
    git_dir = _git_dir(root)
    changed = [ft for ft in result.files if ft.changed and ft.status not in ("failed", "generated")]
    generated = [ft for ft in result.files if ft.status == "generated"]
    if git_dir is None and not force:
        raise TranslateError(f"{root}: not a git work tree; --in-place needs one so the originals stay recoverable "
                             f"(or pass --force: porter still keeps a backup copy)")
    if git_dir is not None and not force:
        dirty = uncommitted(root, [ft.path for ft in changed])
        if dirty:
            shown = ", ".join(dirty[:10]) + (" ..." if len(dirty) > 10 else "")
            raise TranslateError(f"uncommitted changes in files --in-place would rewrite: {shown}; commit or stash them, "
                                 f"or pass --force")
    report = WriteReport("in-place", str(root))
    todo = []
    for ft in changed:
        p = root / ft.path
        if p.is_symlink():
            report.skipped.append((ft.path, "symlink: not written through (its target is translated as its own path)"))
            continue
        try:
            st = os.stat(p)
            current = contain.read_bytes(p, MAX_RESTORE_BYTES, root=root)
        except OSError as e:
            report.skipped.append((ft.path, f"unreadable: {e.strerror or e}"))
            continue
        except contain.Unreadable as e:
            report.skipped.append((ft.path, str(e)))
            continue
        if not os.access(p, os.W_OK) or not (st.st_mode & stat.S_IWUSR):
            report.skipped.append((ft.path, "read-only: not rewritten"))
            continue
        if current != ft.original:
            report.skipped.append((ft.path, "changed on disk since it was read: not rewritten"))
            continue
        todo.append((ft, p, st.st_mode & 0o7777))
    blocked = [(path, why) for path, why in report.skipped if not why.startswith("symlink")]
    if blocked and not force:
        # Rewriting the rest would leave a half-translated tree (headers in HIP, a read-only caller in CUDA).
        shown = "; ".join(f"{path} ({why})" for path, why in blocked[:5])
        raise TranslateError(f"--in-place would leave files untranslated: {shown}; fix them or use --force")
    fresh = []
    for ft in generated:
        prior = _prior_generated(root, ft, report)
        if prior is None:
            continue
        if prior == (b"", None):
            fresh.append(ft)  # not there yet: created after the backup
        elif prior[0] != ft.output:
            # porter's header from an earlier run, perhaps edited since: backed up like any rewritten file, so
            # --undo brings the edit back.
            todo.append((replace(ft, original=prior[0]), root / ft.path, prior[1]))
    if not todo and not fresh:
        return report
    home, anchor = _backup_home(root, git_dir)
    base = backup_dir or home
    # The backup folder is a real directory inside the repository (or its .git), never a planted symlink or file.
    if backup_dir is None:  # one the caller chose is trusted
        try:
            contain.real_directory(Path(base), anchor, "backup folder", create=True)
        except contain.Refused as e:
            raise TranslateError(str(e)) from None
    backup = _fresh_run_dir(Path(base))
    _write_backup(backup, todo)
    report.backup = str(backup)
    done: list[tuple] = []
    current = ""
    try:
        for ft, p, mode in todo:
            current = ft.path
            if _sha256_of(p) != hashlib.sha256(ft.original).hexdigest():
                report.skipped.append((ft.path, CHANGED_DURING_RUN))
                continue
            done.append((ft, p, mode))  # before the replace: an interruption right after it still restores this file
            _atomic_write(p, ft.output, mode, sync=True, root=root)
            report.written.append(ft.path)
            _test_pause(len(report.written))
        for ft in fresh:
            _atomic_write(root / ft.path, ft.output, 0o644, sync=True, root=root)
            report.written.append(ft.path)
    except BaseException as e:
        restore_errors = []
        for old, p, mode in reversed(done):
            try:
                _atomic_write(p, old.original, mode, sync=True, root=root)
            except (OSError, contain.Refused) as re_err:
                restore_errors.append(f"{old.path}: {getattr(re_err, 'strerror', None) or re_err}")
        if isinstance(e, (OSError, contain.WriteFailed)):
            extra = f"; could not restore {', '.join(restore_errors)} (originals are in {backup})" if restore_errors else ""
            raise TranslateError(f"in-place write failed on {current}: {e.strerror or e}; "
                                 f"{len(report.written)} file(s) already rewritten were restored{extra}; backup: {backup}") from None
        raise
    return report


def _prior_generated(root: Path, ft, report: WriteReport) -> tuple[bytes, int | None] | None:
    """What is at a generated file's name (porter_hip_compat.h) before an in-place run: (b"", None) when nothing,
    (its bytes, its mode) when it is porter's own from an earlier run, None (reported as skipped) when it is a
    project file, a symlink or anything but a regular file: those are never overwritten."""
    from porter.translate.fixups import COMPAT_MARK

    p = root / ft.path
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return b"", None
    except OSError as e:
        report.skipped.append((ft.path, f"unreadable: {e.strerror or e}"))
        return None
    try:
        data = contain.read_bytes(p, MAX_GENERATED_BYTES, root=root) if stat.S_ISREG(st.st_mode) else b""
    except contain.Unreadable:
        data = b""
    if not stat.S_ISREG(st.st_mode) or not data.startswith(COMPAT_MARK):
        report.skipped.append((ft.path, "exists and is not porter's generated file: not overwritten"))
        return None
    return data, st.st_mode & 0o7777


def _sha256_of(p: Path, root: Path | None = None) -> str | None:
    """The SHA-256 of a regular file (inside `root` when given), or None: a FIFO, device or link out is no match."""
    try:
        return hashlib.sha256(contain.read_bytes(p, MAX_RESTORE_BYTES, root=root)).hexdigest()
    except contain.Unreadable:
        return None


def _test_pause(done: int) -> None:
    """The documented test hook (module docstring): pause after the N-th rewritten file until MARKER is gone."""
    spec = os.environ.get(TEST_PAUSE_ENV)
    if not spec:
        return
    n, _, marker = spec.partition(":")
    if not n.isdigit() or int(n) != done or not marker:
        return
    Path(marker).write_text(f"{done} file(s) rewritten\n")
    deadline = time.monotonic() + 60
    while os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.01)


def manifest_line(digest: str, path: str) -> bytes:
    """One `sha256sum` line for a file name of any bytes: a name holding a backslash or newline is escaped and
    the line starts with a backslash, exactly as sha256sum writes it (so `sha256sum -c` checks a backup)."""
    name = os.fsencode(path)
    if b"\\" in name or b"\n" in name or b"\r" in name:
        name = name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")
        return b"\\" + digest.encode() + b"  " + name + b"\n"
    return digest.encode() + b"  " + name + b"\n"


def read_manifest(data: bytes) -> list[tuple[str, str]]:
    """(sha256, path) pairs from manifest bytes written by `manifest_line`; paths as os.fsdecode gives them."""
    entries = []
    for line in data.split(b"\n"):
        if not line:
            continue
        escaped = line.startswith(b"\\")
        digest, _, name = (line[1:] if escaped else line).partition(b"  ")
        if escaped:
            name = re.sub(rb"\\(.)", lambda m: {b"n": b"\n", b"r": b"\r"}.get(m.group(1), m.group(1)), name)
        entries.append((digest.decode("ascii"), os.fsdecode(name)))
    return entries


def _write_synced(p: Path, data: bytes) -> None:
    with open(p, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fresh_run_dir(base: Path) -> Path:
    """A backup folder name under `base` no earlier run used, sorting after every earlier one: the time to the
    microsecond, then the process. Two runs in one process within a second (the in-process CLI, a script looping
    over `translate --in-place`) must not collide, and undo takes the newest by name."""
    now = time.time_ns()
    while True:
        seconds, rest = divmod(now, 1_000_000_000)
        name = time.strftime("%Y%m%d-%H%M%S", time.localtime(seconds)) + f"-{rest // 1000:06d}-{os.getpid()}"
        if not os.path.lexists(base / name):
            return base / name
        now += 1000  # taken within the same microsecond: the next one still sorts later


def _write_backup(backup: Path, todo: list[tuple]) -> None:
    """Copy every original (synced) before the first replacement, with manifests of the originals' and the
    translations' SHA-256 sums."""
    backup.mkdir(parents=True, exist_ok=False)
    for ft, _p, _mode in todo:
        dest = backup / ft.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        _write_synced(dest, ft.original)
    _write_synced(backup / MANIFEST, b"".join(manifest_line(hashlib.sha256(ft.original).hexdigest(), ft.path)
                                              for ft, _p, _m in todo))
    _write_synced(backup / WRITTEN, b"".join(manifest_line(hashlib.sha256(ft.output).hexdigest(), ft.path)
                                             for ft, _p, _m in todo))


@dataclass
class UndoReport:
    backup: str
    restored: list[str] = field(default_factory=list)  # put back from the backup
    unchanged: list[str] = field(default_factory=list)  # already the original (porter did not rewrite them)
    overwritten: list[str] = field(default_factory=list)  # edited since porter wrote them, restored under force


def backup_root(root: Path) -> Path:
    """Where in-place runs under `root` keep their backups: inside .git/ in a git work tree, else root/BACKUP_DIR."""
    return _backup_home(root, _git_dir(root))[0]


def _backup_home(root: Path, git_dir: Path | None) -> tuple[Path, Path]:
    """The backup folder for in-place runs under `root` and the directory it must stay inside: the git directory
    when it lies inside the tree, else root/BACKUP_DIR. A `.git` file (`gitdir: /elsewhere`) may name any directory,
    and porter writes nothing outside the tree it was given."""
    if git_dir is not None and contain.inside(git_dir, root):
        return git_dir / "porter-backup", git_dir
    return Path(root) / BACKUP_DIR, Path(root)


def undo_in_place(root: Path, force: bool = False) -> UndoReport:
    """Put every file of the newest in-place backup under `root` back, then mark that backup undone.

    A file whose content is neither the original nor what porter wrote was edited since: nothing is restored
    unless `force` (then that edit is replaced by the original too)."""
    root = Path(root)
    base = backup_root(root)
    # Everything below comes from files a repository could have planted (a `.porter-backup` outside git): the folder
    # must be a real directory, each run a real directory in it, the manifests bounded regular files, and every name
    # they list a path inside the work tree (and inside the backup for the copy read back).
    try:
        if os.path.lexists(base):
            contain.real_directory(base, base.parent, "backup folder")
        runs = sorted(d for d in (base.iterdir() if base.is_dir() else ())
                      if not d.name.endswith(UNDONE_SUFFIX) and stat.S_ISDIR(os.lstat(d).st_mode)
                      and os.path.lexists(d / MANIFEST))
        if not runs:
            raise TranslateError(f"{root}: no in-place backup to undo (looked in {base})")
        backup = runs[-1]
        originals = read_manifest(contain.read_named(backup / MANIFEST, MAX_MANIFEST_BYTES, "backup manifest",
                                                     root=backup))
        written = {rel: digest for digest, rel in read_manifest(
            contain.read_named(backup / WRITTEN, MAX_MANIFEST_BYTES, "backup manifest", root=backup))} \
            if os.path.lexists(backup / WRITTEN) else {}
        for _digest, rel in originals:
            contain.member(Path(root), rel, f"{backup / MANIFEST}")
            contain.member(backup, rel, f"{backup / MANIFEST}")
    except contain.Refused as e:
        raise TranslateError(str(e)) from None
    except UnicodeDecodeError:
        raise TranslateError(f"{backup / MANIFEST}: not a porter backup manifest") from None
    report = UndoReport(str(backup))
    plan, edited = [], []
    for digest, rel in originals:
        current = _sha256_of(root / rel, root)
        if current == digest:
            report.unchanged.append(rel)
        elif current is not None and current == written.get(rel):
            plan.append(rel)
        else:
            edited.append(rel)
    if edited and not force:
        shown = ", ".join(edited[:10]) + (" ..." if len(edited) > 10 else "")
        raise TranslateError(f"changed since porter wrote them: {shown}; nothing was restored from {backup} "
                             f"(pass --force to put the originals back over those edits)")
    for rel in plan + edited:
        dest = root / rel
        if dest.is_symlink():
            raise TranslateError(f"{rel}: is now a symlink; not restored through it (backup: {backup})")
        mode = (os.stat(dest).st_mode & 0o7777) if dest.exists() else 0o644
        try:
            original = contain.read_named(backup / rel, MAX_RESTORE_BYTES, "backup copy", root=backup)
        except contain.Refused as e:
            raise TranslateError(str(e)) from None
        _atomic_write(dest, original, mode, sync=True, root=root)
        (report.overwritten if rel in edited else report.restored).append(rel)
    backup.rename(backup.with_name(backup.name + UNDONE_SUFFIX))
    report.backup = str(backup)
    return report


def unified_diff(result: TranslationResult, context: int = 3) -> bytes:
    """A unified diff (git style a/ b/ paths) of every changed file, as bytes: non-UTF-8 text stays exact."""
    chunks = []
    for ft in result.files:
        if not ft.changed:
            continue
        # porter.render.unidiff, not difflib: difflib costs the file's length per hunk, outside any budget.
        lines = unidiff.unified_diff(unidiff.lines(ft.original), unidiff.lines(ft.output),
                                     patch_path(b"a/", ft.path), patch_path(b"b/", ft.path),
                                     n=context)  # a name's newline starts no header
        for line in lines:
            chunks.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
    return b"".join(chunks)
