"""Extract a git mirror's source files (never its data blobs) into a scratch directory outside any repository.

HeCBench's mirror lacks some large data blobs (DVC/LFS), so `git archive` of the whole tree fails; this copies
blob by blob through `git cat-file --batch`, keeps only the folders asked for, skips files over a size cap and
objects the mirror does not hold, and writes a marker so a second run is free.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

MAX_BYTES = 2 * 1024 * 1024


def extract(git_dir: Path, rev: str, dest: Path, keep, max_bytes: int = MAX_BYTES) -> Path:
    """Write every blob of `rev` whose path satisfies keep(path) and is at most max_bytes under dest."""
    commit = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    marker = dest / f".extracted-{commit}"
    if marker.exists():
        return dest
    ls = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-l", "-z", commit],
                        capture_output=True, check=True).stdout.split(b"\0")
    wanted: list[tuple[str, str]] = []
    for entry in ls:
        if not entry:
            continue
        meta, path_b = entry.split(b"\t", 1)
        mode, kind, sha, size = meta.decode().split()
        path = path_b.decode("utf-8", "replace")
        if kind != "blob" or mode == "120000" or not size.isdigit() or int(size) > max_bytes or not keep(path):
            continue
        wanted.append((sha, path))
    proc = subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    for sha, path in wanted:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        out = dest / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    proc.stdin.close()
    proc.wait()
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(commit + "\n")
    return dest
