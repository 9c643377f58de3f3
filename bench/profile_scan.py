"""Profile one cold scan in this process with cProfile: where porter's CPU goes, per function.

Usage:
    python bench/profile_scan.py CORPUS [--top 40] [--sort tottime|cumulative] [--out scan.prof]
    python bench/profile_scan.py CORPUS --warm      # a warm re-scan: one unprofiled scan fills a temporary cache
    python bench/profile_scan.py CORPUS --warm --edit CORPUS/a.cu   # the re-scan after a comment line is appended
    py-spy record -f raw -o out.raw -- python bench/profile_scan.py CORPUS --plain 3   # 3 scans, no cProfile

A real scan forks budgeted workers (porter.budget) for the facts, the per-file scan and port status, and cProfile
sees only the process it runs in; here those workers' tasks run inline instead (porter.budget.Pool and run_stage
replaced by in-process stand-ins, with no clock or memory cap), so one profile holds all of the scan's work.
Start-up (imports) is timed apart. Nothing here is a test: the top of the profile goes into notes
(bench/issue26-speed.md).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path

# The current directory's porter (a worktree's or a snapshot's), as `python -m porter` run there imports it: run as a
# script, this file's own directory came first and an editable install's porter was the one profiled.
sys.path.insert(0, str(Path.cwd()))


class InlinePool:
    """porter.budget.Pool's interface, each task run here and now (a worker's `init` is not run: it readies a
    forked process, e.g. makes its cache hand entries back, which this process must not do)."""

    def __init__(self, budget, workers=1, init=None):
        self.budget = budget  # porter.pipeline shares a pool whose budget is the stage's
        self.workers = workers
        self.started = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def map(self, fn, args, chunk=1):
        for i, a in enumerate(args):
            yield i, fn(*a)


def inline_stage(fn, args, budget=None, *rest, **kw):
    return fn(*args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--warm", action="store_true", help="profile a re-scan with a warm cache")
    ap.add_argument("--edit", type=Path, help="with --warm: append a comment line to this file (of a copy of the "
                    "corpus: it is changed) after the cache is filled, before each timed scan")
    ap.add_argument("--plain", type=int, default=0, metavar="N",
                    help="run N scans without cProfile (for a sampling profiler) and print each one's CPU-s")
    args = ap.parse_args()
    t0 = time.process_time()
    import porter.budget as budget
    import porter.pipeline as pipeline
    from porter.settings import Settings

    imported = time.process_time() - t0
    for module in (budget, pipeline):
        module.Pool = InlinePool  # type: ignore[attr-defined]
        module.run_stage = inline_stage  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory(prefix="porter-profile-") as tmp:
        settings = Settings(jobs=1, cache_dir=Path(tmp) if args.warm else None)
        if args.warm:
            pipeline.run(args.corpus, settings)

        def edit() -> None:
            if args.edit is not None:  # as bench_scan.py's warm_after_one_edit: one more line, one file to scan
                with open(args.edit, "a") as fh:
                    fh.write("// profile_scan: one line added\n")

        if args.plain:
            print(f"imports {imported:.2f} CPU-s")
            for _ in range(args.plain):
                edit()
                t1 = time.process_time()
                pipeline.run(args.corpus, settings)
                print(f"scan {time.process_time() - t1:.2f} CPU-s")
            return
        profile = cProfile.Profile(time.process_time)  # CPU time: a loaded machine stretches wall time
        edit()
        t1 = time.process_time()
        profile.enable()
        pipeline.run(args.corpus, settings)
        profile.disable()
    ran = time.process_time() - t1
    if args.out:
        profile.dump_stats(str(args.out))
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats(args.sort).print_stats(args.top)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"imports {imported:.2f} CPU-s; scan {ran:.2f} CPU-s (under cProfile); peak RSS {peak:.0f} MiB")
    print(out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
