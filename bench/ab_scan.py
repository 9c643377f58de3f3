"""Paired A/B of two porter snapshots: their cold `porter scan --no-cache` alternated, CPU-seconds of each.

Usage:
    python bench/ab_scan.py CORPUS BASE_DIR AFTER_DIR [--pairs 12] [--jobs 1]

BASE_DIR and AFTER_DIR are source trees of porter (e.g. `git archive` snapshots); each scan runs `python -m porter
scan CORPUS --format json -o /dev/null --no-cache --jobs N` from that directory, so the snapshot's package is the
one imported, byte-compiled into a temporary PYTHONPYCACHEPREFIX (one untimed scan of each first). The pairs
alternate their order (base first, then after first, ...), and each process tree's CPU-seconds (user + system,
its workers included) are read from RUSAGE_CHILDREN. On a machine whose load moves, a few per cent between two
snapshots is lost in bench_scan.py's separate runs (the same code's scan moved by a third between them in session
16); the per-pair difference, taken minutes apart at most, is what to read. Nothing here is a test: numbers go
into notes (bench/issue26-speed.md).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def cpu_of(snapshot: str, corpus: str, jobs: int, env: dict[str, str]) -> float:
    """CPU-seconds of one cold `porter scan --no-cache` run from `snapshot`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "porter", "scan", corpus, "--format", "json", "-o", os.devnull,
                    "--no-cache", "--jobs", str(jobs)], cwd=snapshot, env=env, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("base")
    ap.add_argument("after")
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="porter-ab-") as pycache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        snaps = [os.path.abspath(args.base), os.path.abspath(args.after)]
        for s in snaps:  # bytecode written, the corpus in the page cache
            cpu_of(s, args.corpus, args.jobs, env)
        runs: dict[str, list[float]] = {s: [] for s in snaps}
        for i in range(args.pairs):
            for s in (snaps if i % 2 == 0 else snaps[::-1]):
                runs[s].append(cpu_of(s, args.corpus, args.jobs, env))
    for name, s in zip(("base", "after"), snaps):
        xs = runs[s]
        print(f"{name}: median {statistics.median(xs):.3f} mean {statistics.mean(xs):.3f} CPU-s;",
              " ".join(f"{x:.2f}" for x in xs))
    diffs = [a - b for a, b in zip(runs[snaps[1]], runs[snaps[0]])]
    lower = sum(d < 0 for d in diffs)
    print(f"after - base, per pair: median {statistics.median(diffs):+.3f} mean {statistics.mean(diffs):+.3f} "
          f"({lower} of {len(diffs)} lower);", " ".join(f"{d:+.2f}" for d in diffs))


if __name__ == "__main__":
    main()
