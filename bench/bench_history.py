"""Benchmark `porter history`: the last N first-parent commits of a real repository, cold cache then warm.

Usage:
    python bench/bench_history.py REPO                 # REPO: a clone (or `git clone --no-checkout` of a mirror)
    python bench/bench_history.py REPO --commits 500 --jobs 2 --keep-json out.json

Each run is a real `porter history` subprocess with its own fresh cache directory (cold), then the same command
again on that cache (warm). Prints wall seconds, the walk's own summary line (points computed/cached, blobs
scanned, cache hits) and the commits that moved the open work most. Nothing here is a test: numbers go into notes.
Targets (issue 14): ≤ 60 s cold and < 5 s warm for 500 commits of a ~30k-line project on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(repo: Path, commits: int, jobs: int, cache: Path, out: Path) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "porter", "history", str(repo), "--max-commits", str(commits), "--jobs", str(jobs),
           "--format", "json", "-o", str(out), "--cache-dir", str(cache)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"porter history failed ({p.returncode}): {p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # CPU seconds (porter and its workers) are the number to compare on a shared machine; wall time is what a
    # user waits, and depends on what else runs.
    return wall, f"{cpu:.1f} CPU-s, load {os.getloadavg()[0]:.1f}; " + " ".join(p.stderr.split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep-json", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="porter-bench-history-") as tmp:
        cache, out = Path(tmp) / "cache", Path(tmp) / "history.json"
        cold, cold_note = run(args.repo, args.commits, args.jobs, cache, out)
        warm, warm_note = run(args.repo, args.commits, args.jobs, cache, out)
        doc = json.loads(out.read_text())
        if args.keep_json:
            args.keep_json.write_text(out.read_text())
    points = doc["points"]
    print(f"repository {args.repo}: {len(points)} points, {points[0]['date'][:10]} .. {points[-1]['date'][:10]}")
    print(f"cold {cold:.1f} s   ({cold_note})")
    print(f"warm {warm:.2f} s   ({warm_note})")
    first, last = points[0], points[-1]
    print(f"open likely days {first['effort']['likely']:g} -> {last['effort']['likely']:g}; open findings "
          f"{first['open_findings']} -> {last['open_findings']}; handled {first['handled_findings']} -> "
          f"{last['handled_findings']}; projection: {doc['projection']['status']}")
    for key in ("reduced", "added"):
        for m in doc["movers"][key]:
            print(f"  {key:8} {m['commit'][:10]} {m['date'][:10]} {m['effort_likely']:+7g} d {m['open_findings']:+5d} "
                  f"open  {m['subject'][:70]}")


if __name__ == "__main__":
    main()
