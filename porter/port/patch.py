"""Turn a PortPlan into a git-style unified diff, or write it into a clean git work tree.

The diff applies with `git apply` (and reverses with `git apply -R` to byte-identical files): `a/`/`b/` paths,
`new file mode` for the compat header, "\\ No newline at end of file" where a file ends without one. `apply` refuses
(exit 2) a tree that is not a git work tree, has staged changes, or whose files the patch touches differ from the
commit; each write goes through porter.contain at a path checked to lie inside the repository, so a symlinked
directory or file planted in it cannot lead a write outside (a symlink is never written through).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from porter import contain
from porter.errors import UsageError
from porter.port.model import PortPlan
from porter.render import unidiff
from porter.render.safe import patch_path
from porter.source.discover import on_disk


def unified_diff(plan: PortPlan, context: int = 3) -> bytes:
    chunks: list[bytes] = []
    for fp in plan.files:
        old, new = patch_path(b"a/", on_disk(fp.path)), patch_path(b"b/", on_disk(fp.path))  # as git quotes the name on disk
        before = fp.before or b""
        head = [b"diff --git " + old + b" " + new + b"\n"]
        if fp.before is None:
            head.append(b"new file mode 100644\n")
        # porter.render.unidiff, not difflib: difflib costs the file's length per hunk, outside any budget.
        lines = unidiff.unified_diff(unidiff.lines(before), unidiff.lines(fp.after),
                                     b"/dev/null" if fp.before is None else old, new, n=context)
        if not lines:
            continue
        chunks += head
        for line in lines:
            if line.startswith((b"--- ", b"+++ ")):
                chunks.append(line.rstrip(b"\n") + b"\n")  # difflib's file lines carry no date here
                continue
            chunks.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
    return b"".join(chunks)


class DirtyTree(UsageError):
    """--apply on a tree with uncommitted changes where the patch writes (or staged anywhere)."""


def check_clean(root: Path, plan: PortPlan) -> None:
    """Refuse a tree that is not a git work tree, has staged changes, or has uncommitted changes in a file the
    patch touches (or an untracked file where it creates one)."""
    from porter.source import git
    from porter.translate.write import uncommitted

    try:
        # repository_top checks the repository's config before git reads it: a FIFO named by [include] would stall
        # every later git call until its timeout, and a .git file or core.worktree may lead to another repository.
        if git.repository_top(root) is None:
            raise git.GitError("not a git repository")
        top = git.run(root, "rev-parse", "--show-toplevel").decode().strip()
        staged = git.run(root, "diff-index", "--cached", "--name-only", "HEAD").decode().split()
    except git.GitError as e:
        raise UsageError(f"{root}: --apply needs a git work tree with a commit ({e})") from None
    if os.path.realpath(top) != os.path.realpath(root):
        raise UsageError(f"{root}: --apply needs the top of a git work tree (the top is {top})")
    if staged:
        raise DirtyTree(f"{root}: staged changes ({', '.join(staged[:5])}); commit or stash them first")
    edited = [fp.path for fp in plan.files if fp.before is not None]
    dirty = uncommitted(root, edited)
    dirty += [fp.path for fp in plan.files if fp.before is None and os.path.lexists(root / on_disk(fp.path))]
    if dirty:
        raise DirtyTree(f"{root}: uncommitted changes in {', '.join(sorted(dirty)[:5])}; commit or stash them first")


def _target(root: Path, rel: str) -> Path:
    """`root/rel` for writing: inside the repository with every symlink followed, and no symlink at the name."""
    p = contain.member(root, on_disk(rel), "port")
    real_parent = os.path.realpath(p.parent)
    if not contain.inside(real_parent, root):
        raise contain.Refused(f"{rel}: leads outside {root}; not written")
    if os.path.realpath(p.parent) != os.path.join(os.path.realpath(root), *Path(rel).parts[:-1]):
        raise contain.Refused(f"{rel}: a directory on its way is a symlink; not written")
    if os.path.islink(p):
        raise contain.Refused(f"{rel}: is a symlink; not written through")
    return p


def apply(plan: PortPlan) -> list[str]:
    """Write the plan's files into its repository (checked clean first); the paths written."""
    root = Path(plan.root)
    check_clean(root, plan)
    targets = [(fp, _target(root, fp.path)) for fp in plan.files]  # every path checked before the first write
    written = []
    for fp, p in targets:
        mode = 0o644
        if fp.before is not None:
            mode = stat.S_IMODE(os.lstat(p).st_mode)
        else:
            contain.real_directory(p.parent, root, "port", create=True)
        contain.write_bytes(p, fp.after, root=root, mode=mode, umask=fp.before is None)
        written.append(fp.path)
    return written


def line_after(before: bytes, after: bytes, line: int) -> int:
    """Where line `line` (1-based) of `before` stands in `after`: the same line where the patch kept it, else the
    first line of what replaced it (difflib's matching blocks, deterministic)."""
    import difflib

    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if i1 <= line - 1 < i2:  # an insertion holds no old line: the line is in a later block
            return j1 + (line - 1 - i1 if tag == "equal" else 0) + 1
    return line + len(new) - len(old)


def as_applied(plan: PortPlan) -> PortPlan:
    """`plan` with its open items' lines moved to the files as the patch leaves them: after `--apply` the compat
    include and guards the port added stand above a launch, which the report must name where it now is (`:102`,
    not the original `:97`). The item's `finding` keeps the scan's original place."""
    import dataclasses

    patched = {f.path: f for f in plan.files if f.before is not None}
    if not any(o.path in patched for o in plan.open_work):
        return plan
    items = tuple(dataclasses.replace(o, line=line_after(patched[o.path].before or b"", patched[o.path].after, o.line))
                  if o.path in patched else o for o in plan.open_work)
    return dataclasses.replace(plan, open_work=items)
