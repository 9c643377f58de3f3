"""Say what a report is about: the repository's name, commit and branch, the porter version, and the date when asked.

A report mailed around or attached to CI must name its subject: "fixtures/repos/x" is not enough when three teams
assess three branches. The commit and branch come from git through the hardened runner (porter.source.git), only
when the scanned directory is in a work tree that belongs to it; the date is never read from the clock unless the
caller passes one, so the same tree renders the same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from porter import __version__
from porter.source import git


@dataclass(frozen=True)
class About:
    name: str  # the repository's directory name, with the scanned part ("vllm/csrc"); else the directory's own name
    path: str  # the path as scanned
    commit: str | None = None  # HEAD's full id
    branch: str | None = None  # the checked-out branch; None when detached or outside git
    subdir: str = ""  # the scanned part of the repository ('' for all of it)
    dirty: bool = False  # the work tree differs from HEAD (the report is of the files, not of the commit)
    version: str = __version__
    date: str | None = None  # only when asked
    no_commit: str = "commit not recorded"  # said instead of a commit: not asked for, or not in git

    def line(self) -> str:
        """'porter 0.9.0 · branch main · commit 1a2b3c4d5e6f (modified) · 2026-12-02': the subject line under a
        title (the name is the title's own)."""
        parts = [f"porter {self.version}"]
        if self.branch:
            parts.append(f"branch {self.branch}")
        if self.commit:
            parts.append(f"commit {self.commit[:12]}" + (" (with uncommitted changes)" if self.dirty else ""))
        elif not self.branch:
            parts.append(self.no_commit)
        if self.date:
            parts.append(self.date)
        return " · ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "path": self.path, "commit": self.commit, "branch": self.branch,
                "subdir": self.subdir, "dirty": self.dirty, "version": self.version, "date": self.date}


def about(root: str | Path, date: str | None = None, use_git: bool = True) -> About:
    """What a report of the tree at `root` is about; `use_git=False` names the directory only (example reports of
    fixtures that live inside another repository)."""
    path = Path(root)
    name = PurePath(path.resolve()).name or str(root)
    if not use_git or not path.is_dir():
        return About(name=name, path=str(root), date=date)
    top = git.top_level(path.resolve())
    if top is None:
        return About(name=name, path=str(root), date=date, no_commit="not a git work tree")
    try:
        commit = git.run(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip() or None
        branch = git.run(top, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).decode().strip() or None
        rel = path.resolve().relative_to(top.resolve()).as_posix()
        dirty = bool(git.run(top, "status", "--porcelain", "--untracked-files=no", "--", ".", check=False).strip()) if commit else False
    except (git.GitError, ValueError, UnicodeDecodeError):
        return About(name=name, path=str(root), date=date)
    return About(name=top.name + (f"/{rel}" if rel != "." else ""), path=str(root), commit=commit, branch=branch, subdir="" if rel == "." else rel,
                 dirty=dirty, date=date)
