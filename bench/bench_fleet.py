"""Benchmark `porter fleet scan`: 40 repositories — public GPU projects fetched as git mirrors (PUBLIC, under
--mirrors: the `fetch` tool's /work/.mirror/OWNER+NAME/repo by default; those missing are left out and said so),
the five fixtures/repos projects, and tests/fleet_repos.py's four kinds with a unique blob each to make up the
count — wall time with 1 and 2 local workers and on a Dask LocalCluster of 2, the engine's per-repository overhead,
and a projection for 2,000 repositories on N workers from the measured per-repository costs.

Usage:
    python bench/bench_fleet.py [--repos 40] [--mirrors /work/.mirror] [--no-dask]

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


# Public projects with CUDA kernels (owner+name as the mirror directory names them); only paths and commits of them
# are ever printed, never their code.
PUBLIC = ("rusty1s+pytorch_scatter", "turboderp+exllama", "Dao-AILab+causal-conv1d",
          "Dao-AILab+fast-hadamard-transform", "rusty1s+pytorch_cluster", "rusty1s+pytorch_spline_conv",
          "1ytic+warp-rnnt", "google-research+sputnik")


def public_repos(mirrors: Path) -> list[Entry]:
    out = []
    for name in PUBLIC:
        repo = mirrors / name / "repo"
        if (repo / "HEAD").is_file():
            out.append(Entry("pub-" + name.replace("+", "-"), str(repo)))
        else:
            print(f"left out {name}: no mirror at {repo}")
    return out


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


def one(entries: list[Entry], work: Path, label: str, **how) -> tuple[float, dict[str, float], list]:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    store = Store.open(work / "fleet.db")
    seconds: dict[str, float] = {}
    options = Options(clone_cache=work / "clones", cache_dir=work / "pcache")
    start = time.perf_counter()
    summary = scan(store, entries, options, progress=lambda o: seconds.__setitem__(o.name, o.seconds), **how)
    wall = time.perf_counter() - start
    rows = [(r["repository"], r["outcome"], r["commit_id"], r["verdict"], r["days_likely"], r["open_findings"])
            for r in store.run_rows(summary.run_id)]
    store.close()
    per = sum(seconds.values()) / len(seconds)
    pub = [v for k, v in seconds.items() if k.startswith("pub-")]
    print(f"{label:<24} wall {wall:7.1f} s  {summary.assessed} assessed, {summary.failed} failed; per repository "
          f"(in its worker) {per:5.2f} s" + (f", public projects {sum(pub) / len(pub):5.2f} s" if pub else "")
          + f"  (load {os.getloadavg()[0]:.1f})", flush=True)
    return wall, seconds, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", type=int, default=40)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="porter-bench-fleet-"))
    try:
        public = public_repos(args.mirrors)
        fixtures = fixture_repos(base)
        made = make_fleet(base, args.repos - len(fixtures) - len(public), unique=True)
        entries = public + fixtures + [Entry(n, str(base / "repos" / n)) for n in sorted(made)]
        print(f"{len(entries)} repositories ({len(public)} public projects, {len(fixtures)} fixtures/repos "
              f"projects, {len(made)} generated), {os.cpu_count()} cores, load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        w1, sec1, rows1 = one(entries, base / "w1", "local, 1 worker", workers=1)
        for name in sorted(k for k in sec1 if k.startswith("pub-")):
            row = next(r for r in rows1 if r[0] == name)
            print(f"  {name:<40} {sec1[name]:6.2f} s  commit {row[2][:12]}  {row[3]}, {row[5]} open findings")
        per1 = sum(sec1.values()) / len(sec1)
        w2, sec2, rows2 = one(entries, base / "w2", "local, 2 workers", workers=2)
        per2 = sum(sec2.values()) / len(sec2)
        assert rows1 == rows2, "the local pool's results differ between 1 and 2 workers"
        if not args.no_dask:
            from distributed import LocalCluster

            t = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None) as cluster:
                up = time.perf_counter() - t
                addr = "dask://" + cluster.scheduler_address.split("://", 1)[1]
                wd, secd, rowsd = one(entries, base / "dask", "dask LocalCluster of 2", executor=addr)
            assert rowsd == rows1, "Dask's results differ from the local pool's"
            perd = sum(secd.values()) / len(secd)
            print(f"dask cluster start {up:.1f} s (not in its wall time); engine overhead per repository: "
                  f"{(wd - w2) / len(entries):+.2f} s of wall time against 2 local workers, "
                  f"{perd - per2:+.2f} s in its worker")
        # One worker alone measures a repository's cost on a core of its own; 2 workers on a shared 2-core machine
        # measure the contended cost. The projection assumes one free core per worker and no queueing.
        pub = [v for k, v in sec1.items() if k.startswith("pub-")]
        for label, cost in (("this mix", per1), ("public projects", sum(pub) / len(pub) if pub else None)):
            if cost:
                print(f"projection, 2,000 repositories at {cost:.2f} s each ({label}, 1 worker's cost): "
                      + ", ".join(f"{n} workers {2000 * cost / n / 3600:.2f} h" for n in (1, 2, 8, 16, 64)))
        print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
