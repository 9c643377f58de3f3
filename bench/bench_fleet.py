"""Benchmark `porter fleet scan`: 40 repositories (tests/fleet_repos.py's four kinds with a unique blob each, plus
the five fixtures/repos projects), wall time with 1 and 2 local workers and on a Dask LocalCluster of 2, the
engine's per-repository overhead, and a projection for 2,000 repositories from the measured per-repository cost.

Usage:
    python bench/bench_fleet.py [--repos 40] [--no-dask]

Each configuration runs in a fresh database, clone cache and porter result cache (cold: no configuration reuses
another's clones or cached results). Nothing here is a test: numbers go into notes.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fleet_repos import ENV, make_fleet  # noqa: E402

from porter.fleet.assess import Options  # noqa: E402
from porter.fleet.inventory import Entry  # noqa: E402
from porter.fleet.scan import scan  # noqa: E402
from porter.fleet.store import Store  # noqa: E402


def fixture_repos(root: Path) -> list[Entry]:
    out = []
    for src in sorted((ROOT / "fixtures" / "repos").iterdir()):
        dest = root / "repos" / f"fx-{src.name}"
        shutil.copytree(src, dest)
        env = {**os.environ, **ENV}
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "fixture"]):
            subprocess.run(["git", "-C", str(dest), *cmd], check=True, capture_output=True, env=env)
        out.append(Entry(dest.name, str(dest)))
    return out


def one(entries: list[Entry], work: Path, label: str, **how) -> tuple[float, float, list]:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    store = Store.open(work / "fleet.db")
    seconds: list[float] = []
    options = Options(clone_cache=work / "clones", cache_dir=work / "pcache")
    start = time.perf_counter()
    summary = scan(store, entries, options, progress=lambda o: seconds.append(o.seconds), **how)
    wall = time.perf_counter() - start
    rows = [(r["repository"], r["outcome"], r["verdict"], r["days_likely"]) for r in store.run_rows(summary.run_id)]
    store.close()
    per = sum(seconds) / len(seconds)
    print(f"{label:<22} wall {wall:7.1f} s  {summary.assessed} assessed, {summary.failed} failed; "
          f"per repository (in its worker) {per:5.2f} s", flush=True)
    return wall, per, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", type=int, default=40)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="porter-bench-fleet-"))
    try:
        fixtures = fixture_repos(base)
        made = make_fleet(base, args.repos - len(fixtures), unique=True)
        entries = fixtures + [Entry(n, str(base / "repos" / n)) for n in sorted(made)]
        print(f"{len(entries)} repositories ({len(fixtures)} fixtures/repos projects), {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        w1, per1, rows1 = one(entries, base / "w1", "local, 1 worker", workers=1)
        w2, per2, rows2 = one(entries, base / "w2", "local, 2 workers", workers=2)
        assert rows1 == rows2, "the local pool's results differ between 1 and 2 workers"
        if not args.no_dask:
            from distributed import LocalCluster

            t = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None) as cluster:
                up = time.perf_counter() - t
                addr = "dask://" + cluster.scheduler_address.split("://", 1)[1]
                wd, perd, rowsd = one(entries, base / "dask", "dask LocalCluster of 2", executor=addr)
            assert rowsd == rows1, "Dask's results differ from the local pool's"
            print(f"dask cluster start {up:.1f} s (not in its wall time); engine overhead per repository "
                  f"{(wd - w2) / len(entries):+.2f} s against 2 local workers")
        # One worker alone measures a repository's cost on a core of its own; 2 workers on a shared 2-core machine
        # measure the contended cost. The projection assumes one free core per worker.
        print(f"projection, 2,000 repositories of this size at {per1:.2f} s each (1 worker's cost): "
              + ", ".join(f"{n} workers {2000 * per1 / n / 3600:.2f} h" for n in (2, 16, 64))
              + f"; at the contended {per2:.2f} s: 2 workers {2000 * per2 / 2 / 3600:.2f} h")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
