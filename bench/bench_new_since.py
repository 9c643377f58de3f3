"""Benchmark `porter scan --new-since`: a one-file change in a large repository against a full cold scan.

Usage:
    python bench/bench_new_since.py                  # generate a 200k+ line CUDA repository in a temp dir
    python bench/bench_new_since.py --lines 400000 --jobs 2

The repository is a real git repository (bench_scan's generated corpus, committed), then one commit that adds a
kernel with a 32-bit mask and inline PTX to one file. Each measurement is a real `porter scan` subprocess with its
own empty cache directory (cold), as a CI job starts: the full scan of HEAD, and `--new-since HEAD~1`, which scans
that one file at the base and at HEAD from git objects. The goal (issue 15) is new-since < 15% of the full scan.
Nothing here is a test: numbers go into notes.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import generate, run_scan  # noqa: E402

CHANGE = """
__global__ void added_vote(const int *x, unsigned *out) {
  unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == 0) out[blockIdx.x] = m;
}
"""


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=200_000, help="size of the generated repository")
    ap.add_argument("--jobs", type=int, default=0, help="porter --jobs (0: all cores)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        tmp_path = Path(tmp)
        repo = tmp_path / "repo"
        files, lines = generate(repo, args.lines)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        every = sorted(repo.rglob("*.cu"))
        changed = every[len(every) // 2]
        with open(changed, "a") as fh:
            fh.write(CHANGE)
        git(repo, "commit", "-q", "-am", "one file changes")
        full = run_scan(repo, tmp_path / "cache-full", args.jobs, [])
        diff_cold = run_scan(repo, tmp_path / "cache-diff", args.jobs, ["--new-since", "HEAD~1"])
        diff_warm = run_scan(repo, tmp_path / "cache-diff", args.jobs, ["--new-since", "HEAD~1"])
        diff_nocache = run_scan(repo, tmp_path / "cache-unused", args.jobs, ["--new-since", "HEAD~1", "--no-cache"])
        out = subprocess.run([sys.executable, "-m", "porter", "scan", str(repo), "--new-since", "HEAD~1", "-f",
                              "json", "--no-cache"], capture_output=True, text=True, check=False)
        doc = json.loads(out.stdout)
        print(json.dumps({
            "files": files,
            "lines": lines,
            "jobs": args.jobs or os.cpu_count(),
            "changed_file": changed.relative_to(repo).as_posix(),
            "new_findings": doc["diff"]["new"],
            "full_cold": full,
            "new_since_cold": diff_cold,
            "new_since_warm": diff_warm,
            "new_since_no_cache": diff_nocache,
            "cold_wall_ratio": diff_cold["wall_s"] / full["wall_s"],
            "cold_cpu_ratio": diff_cold["cpu_s"] / full["cpu_s"],
        }, indent=2))


if __name__ == "__main__":
    main()
