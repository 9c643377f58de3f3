"""Measure one past ROCm port from a repository's history: what bench/calibration/ports.yaml records for it.

    python bench/calibration/measure.py --git-dir /work/.mirror/ggerganov+llama.cpp/repo --port 6bbc598a6 --pr 1087 \
        --id llama.cpp --repository ggerganov/llama.cpp

Reads git only (never builds or runs the repository). For the port commit (a merge or a squashed PR on the default
branch) it takes the pre-port commit (its first parent) and measures:

- `lines_added` / `lines_deleted` / `lines_changed`: authored lines of C, C++, CUDA/HIP, Python and build files
  between the pre-port commit and the port, with copy detection (`git diff -C -C`): a file the port adds as a copy
  of a pre-port file (a hipified `kernels.hip` beside `kernels.cu`) counts only the lines that differ from the
  original, not its whole length. Documentation, data, lock files and vendored third-party trees are left out.
- `files_changed`, `started` (first authored commit of the pull request), `merged`, `calendar_days`, `people`
  (distinct authors) and `author_days` (distinct author and author-date pairs of the pull request's non-merge
  commits: the days people really worked on it), from `refs/pull/<N>/head` when the mirror has it, else from the
  port commit's own second-parent history.

Prints the YAML entry. Only commits, paths and numbers: nothing of the repository's code.
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import subprocess
import sys

CODE = re.compile(r"(?i)(\.(c|cc|cpp|cxx|h|hh|hpp|hxx|cu|cuh|hip|py|pyx|cmake|inl|sh)|CMakeLists\.txt|Makefile|setup\.py)$")
SKIP = re.compile(r"(?i)(^|/)(third_party|3rdparty|thirdparty|vendor|external|submodules?|docs?)/|\.(md|rst|txt|json|lock|yaml|yml)$")


def git(gd: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gd, *args], check=True, capture_output=True, text=True).stdout


def counted(path: str) -> bool:
    return bool(CODE.search(path)) and not (SKIP.search(path) and not path.endswith("CMakeLists.txt"))


# What hipify (or a port's own rename macro header) turns into another name, mapped to one spelling on both sides:
# cuBLAS/rocBLAS/hipBLAS (and RAND, SPARSE, SOLVER, FFT) are one library name, CUB/hipCUB one, and a vendor-neutral
# prefix a port defines over both runtimes (GPUMD's gpuMalloc, GPU_CHECK_KERNEL in gpu_macro.cuh) is the same rename
# as hipify's cuda -> hip. Lines that differ only by such a rename are not authored lines.
_LIBRARY_RENAME = re.compile(r"(?i)(?:cu|roc|hip)(blas|rand|sparse|solver|fft)")
_CUB = re.compile(r"(?i)(?:hip)?cub\b")
_RENAME = re.compile(r"(?i)cuda|gpu|nvidia|__nv_|nv_")


def _normal(line: str) -> str:
    """A line as a hipify-style rename sees it: CUDA names as HIP names, whitespace dropped."""
    line = _CUB.sub("hipcub", _LIBRARY_RENAME.sub(r"hip\1", line))
    return re.sub(r"\s+", "", _RENAME.sub("hip", line)).lower()


def hipified_copy_lines(gd: str, pre: str, port: str, path: str, pre_paths: set[str]) -> int | None:
    """For a file the port adds whose name says it is the HIP twin of a pre-port file (`kernels.hip` beside
    `kernels.cu`, `ops_hip.cuh` beside `ops.cuh`, `hip/x.cu` beside `cuda/x.cu`): the lines of it that do not match
    the original after CUDA-to-HIP renames (difflib on normalised lines), i.e. what an engineer wrote beyond
    hipify. None when the file has no such twin."""
    import difflib
    import posixpath

    stem, ext = posixpath.splitext(path)
    twins = [stem + e for e in (".cu", ".cuh", ".h", ".cpp")] if ext in (".hip", ".cpp", ".h", ".cuh", ".cu") else []
    twins += [re.sub(r"(?i)hip", "cuda", path), re.sub(r"(?i)_hip", "", path), re.sub(r"(?i)hip", "cu", path)]
    twin = next((t for t in twins if t != path and t in pre_paths), None)
    if twin is None:
        return None
    old = [_normal(x) for x in git(gd, "show", f"{pre}:{twin}").splitlines()]
    new = [_normal(x) for x in git(gd, "show", f"{port}:{path}").splitlines()]
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    same = sum(b.size for b in sm.get_matching_blocks())
    return len([x for x in new if x]) - same if len(new) > same else 0


def normalised_lines(gd: str, pre: str, port: str, old_path: str, new_path: str) -> tuple[int, int]:
    """Lines added and deleted between `old_path` at the pre-port commit and `new_path` at the port, compared as
    hipify-style renames and whitespace see them (blank lines dropped): a file the port rewrote in place (hipified,
    re-indented, its line endings changed) counts only what an engineer changed, not its whole length."""
    import difflib

    old = [x for x in (_normal(x) for x in git(gd, "show", f"{pre}:{old_path}").splitlines()) if x]
    new = [x for x in (_normal(x) for x in git(gd, "show", f"{port}:{new_path}").splitlines()) if x]
    same = sum(b.size for b in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks())
    return len(new) - same, len(old) - same


_VARIANT = re.compile(r"(?i)\b(\d+|true|false|half|bf16|bp16|fp16|fp32|float|double|bfloat16)(_t)?\b")


def instance_lines(text: str, seen: dict[str, list[tuple[list[str], list[str]]]], directory: str) -> int | None:
    """For a file the port adds beside others it adds in the same directory: when it is one of a family of
    instantiations (the same lines but for numbers, types and flags: xformers' 128 `instances/*.cpp`, each an
    explicit instantiation for one head size, dtype and mask), the lines that differ from the closest earlier member
    (at least one), else None. The first member counts in full."""
    import difflib

    plain = [x for x in (_normal(ln) for ln in text.splitlines()) if x]
    shape = [_VARIANT.sub("V", x) for x in plain]
    best = None
    for other_plain, other_shape in seen.get(directory, [])[-8:]:
        if difflib.SequenceMatcher(None, other_shape, shape, autojunk=False).ratio() < 0.9:
            continue
        same = sum(b.size for b in difflib.SequenceMatcher(None, other_plain, plain, autojunk=False).get_matching_blocks())
        best = max(1, len(plain) - same) if best is None else min(best, max(1, len(plain) - same))
    seen.setdefault(directory, []).append((plain, shape))
    return best


def lines(gd: str, pre: str, port: str, exclude: list[str] = ()) -> tuple[int, int, int]:
    added = deleted = files = 0
    seen: dict[str, list[tuple[list[str], list[str]]]] = {}
    pre_paths = set(git(gd, "ls-tree", "-r", "--name-only", pre).splitlines())
    spec = ["--", "."] + [f":!{x}" for x in exclude] if exclude else []
    for row in git(gd, "diff", "--numstat", "-C", "-C", "--find-copies-harder", pre, port, *spec).splitlines():
        a, d, path = row.split("\t", 2)
        if a == "-":
            continue  # binary
        source = path
        if "=>" in path:  # a rename or copy: `dir/{a => b}` or `a => b`; the new name decides
            source = re.sub(r"\{([^{}]*) => [^{}]*\}", r"\1", path).split(" => ")[0].replace("//", "/")
            path = re.sub(r"\{[^{}]* => ([^{}]*)\}", r"\1", path)
            path = path.split(" => ")[-1].replace("//", "/")
        if counted(path):
            if int(d) == 0 and path not in pre_paths and source == path:
                copy = hipified_copy_lines(gd, pre, port, path, pre_paths)
                if copy is None:
                    copy = instance_lines(git(gd, "show", f"{port}:{path}"), seen, path.rpartition("/")[0])
                a = str(max(0, copy)) if copy is not None else a
            elif source in pre_paths and int(d) > 0:
                # modified in place, or a copy/rename that was edited: what differs beyond renames and whitespace
                na, nd = normalised_lines(gd, pre, port, source, path)
                a, d = str(min(int(a), na)), str(min(int(d), nd))
            added += int(a)
            deleted += int(d)
            files += 1
    return added, deleted, files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--port", required=True, help="the port commit on the default branch (merge or squash)")
    ap.add_argument("--pre", help="the pre-port commit (default: the port commit's first parent)")
    ap.add_argument("--pr", type=int, help="the pull request number, to read refs/pull/<N>/head")
    ap.add_argument("--id", required=True)
    ap.add_argument("--repository", required=True)
    ap.add_argument("--what", default="")
    ap.add_argument("--scope", default="")
    ap.add_argument("--exclude", action="append", default=[],
                    help="a path to leave out (a large data blob the mirror lacks)")
    a = ap.parse_args(argv)
    gd = a.git_dir
    port = git(gd, "rev-parse", a.port + "^{commit}").strip()
    pre = git(gd, "rev-parse", (a.pre or port + "^1") + "^{commit}").strip()
    head = None
    if a.pr is not None:
        try:
            head = git(gd, "rev-parse", f"refs/pull/{a.pr}/head").strip()
        except subprocess.CalledProcessError:
            head = None
    parents = git(gd, "log", "-1", "--format=%P", port).split()
    if head is None and len(parents) > 1:
        head = parents[1]
    if head is not None:
        base = git(gd, "merge-base", pre, head).strip()
        rows = git(gd, "log", "--no-merges", "--format=%aN\t%ad", "--date=short", f"{base}..{head}").splitlines()
    else:
        rows = git(gd, "log", "-1", "--format=%aN\t%ad", "--date=short", port).splitlines()
    # bots (pre-commit.ci, dependabot) are not people who worked on the port
    rows = [r.split("\t") for r in rows if "\t" in r and "[bot]" not in r]
    merged = git(gd, "log", "-1", "--format=%cd", "--date=short", port).strip()
    started = min((d for _, d in rows), default=merged)
    cal = (dt.date.fromisoformat(merged) - dt.date.fromisoformat(started)).days
    added, deleted, files = lines(gd, pre, port, a.exclude)
    people = len({n for n, _ in rows}) or 1
    author_days = len({(n, d) for n, d in rows}) or 1
    out = [f"  - id: {a.id}", f"    repository: {a.repository}", f"    pre_port_commit: {pre}", f"    port_commit: {port}"]
    if a.pr is not None:
        out.append(f"    pull_request: {a.pr}")
    out += [f"    lines_added: {added}", f"    lines_deleted: {deleted}", f"    lines_changed: {added + deleted}",
            f"    files_changed: {files}", f"    started: {started}", f"    merged: {merged}",
            f"    calendar_days: {cal}", f"    people: {people}", f"    author_days: {author_days}",
            "    measured: code lines with copy detection (bench/calibration/measure.py)"]
    if a.scope:
        out.append(f"    scope: {a.scope}")
    if a.what:
        out.append(f"    what: {a.what!r}".replace("'", '"'))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
