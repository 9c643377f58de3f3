"""Put a translation on disk without ever losing an original byte: an output tree, in place, or a diff.

Output tree: refused inside (or around) the source tree and, unless `overwrite`, when it is not empty; every
file goes through a temporary file and `os.replace`, so an existing symlink in the output is replaced, never
written through, and a directory symlink on the way is refused. In place: only in a git work tree whose files to
change have no uncommitted changes (or with `force`); the originals are first copied to a backup directory
(inside .git/ in a git repository) and synced, then each file is replaced atomically; if a replacement fails or
the run is interrupted, the files already replaced are restored before the error propagates. Read-only files
and symlinks are never rewritten; a file that changed on disk since it was read is left alone.
"""
from __future__ import annotations

import difflib
import hashlib
import os
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from porter.translate import BACKUP_DIR, TranslateError, TranslationResult

TMP_PREFIX = ".porter-tmp-"


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


def _atomic_write(dest: Path, data: bytes, mode: int | None, sync: bool) -> None:
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=TMP_PREFIX)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, dest)  # replaces a symlink at dest itself, never its target
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
            _atomic_write(_safe_parent(out, ft.path) / Path(ft.path).name, ft.output, mode_of(ft.path), sync=False)
            (report.written if ft.changed else report.copied).append(ft.path)
        except OSError as e:
            report.skipped.append((ft.path, f"not written: {e.strerror or e}"))
    for rel in result.copies:
        try:
            data = (root / rel).read_bytes()
        except OSError as e:
            report.skipped.append((rel, f"not copied: {e.strerror or e}"))
            continue
        try:
            _atomic_write(_safe_parent(out, rel) / Path(rel).name, data, mode_of(rel), sync=False)
            report.copied.append(rel)
        except OSError as e:
            report.skipped.append((rel, f"not written: {e.strerror or e}"))
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


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)


def _git_dir(root: Path) -> Path | None:
    try:
        r = _git(root, "rev-parse", "--absolute-git-dir")
    except OSError:
        return None
    return Path(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def uncommitted(root: Path, paths: list[str]) -> list[str]:
    """Which of `paths` (relative to root) git reports as modified, staged, untracked or otherwise not committed."""
    if not paths:
        return []
    r = subprocess.run(["git", "-C", str(root), "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths],
                       capture_output=True, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise TranslateError(f"{root}: git status failed: {r.stderr.decode('utf-8', 'replace').strip()}")
    entries = [e for e in r.stdout.decode("utf-8", "surrogateescape").split("\0") if e]
    return sorted({e[3:] for e in entries if len(e) > 3})


def write_in_place(result: TranslationResult, force: bool = False, backup_dir: Path | None = None) -> WriteReport:
    """Rewrite the changed files where they are (see the module docstring for the guarantees)."""
    root = result.root
    git_dir = _git_dir(root)
    changed = [ft for ft in result.files if ft.changed and ft.status != "failed"]
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
            current = p.read_bytes()
        except OSError as e:
            report.skipped.append((ft.path, f"unreadable: {e.strerror or e}"))
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
    if not todo:
        return report
    run_id = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    base = backup_dir or ((git_dir / "porter-backup") if git_dir is not None else (root / BACKUP_DIR))
    backup = Path(base) / run_id
    _write_backup(backup, todo)
    report.backup = str(backup)
    done: list[tuple] = []
    current = ""
    try:
        for ft, p, mode in todo:
            current = ft.path
            _atomic_write(p, ft.output, mode, sync=True)
            done.append((ft, p, mode))
            report.written.append(ft.path)
    except BaseException as e:
        restore_errors = []
        for old, p, mode in reversed(done):
            try:
                _atomic_write(p, old.original, mode, sync=True)
            except OSError as re_err:
                restore_errors.append(f"{old.path}: {re_err}")
        if isinstance(e, OSError):
            extra = f"; could not restore {', '.join(restore_errors)} (originals are in {backup})" if restore_errors else ""
            raise TranslateError(f"in-place write failed on {current}: {e.strerror or e}; "
                                 f"{len(done)} file(s) already rewritten were restored{extra}; backup: {backup}") from None
        raise
    return report


def _write_backup(backup: Path, todo: list[tuple]) -> None:
    """Copy every original (synced) before the first replacement, with a manifest of paths and SHA-256 sums."""
    backup.mkdir(parents=True, exist_ok=False)
    lines = []
    for ft, _p, _mode in todo:
        dest = backup / ft.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "wb") as fh:
            fh.write(ft.original)
            fh.flush()
            os.fsync(fh.fileno())
        lines.append(f"{hashlib.sha256(ft.original).hexdigest()}  {ft.path}")
    with open(backup / "MANIFEST.sha256", "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def unified_diff(result: TranslationResult, context: int = 3) -> bytes:
    """A unified diff (git style a/ b/ paths) of every changed file, as bytes: non-UTF-8 text stays exact."""
    chunks = []
    for ft in result.files:
        if not ft.changed:
            continue
        name = ft.path.encode("utf-8", "surrogateescape")
        lines = difflib.diff_bytes(difflib.unified_diff, ft.original.splitlines(keepends=True),
                                   ft.output.splitlines(keepends=True), b"a/" + name, b"b/" + name, n=context)
        for line in lines:
            chunks.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
    return b"".join(chunks)
