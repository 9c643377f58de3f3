"""CPU-seconds of one real `porter scan` process tree by part: imports, the parent's stages, the forked workers.

Usage (from a porter source tree or snapshot, byte-compiled as bench_scan.py runs it):
    env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=/tmp/pyc python bench/cli_stages.py \
        scan CORPUS --format json -o /dev/null --no-cache --jobs 1
    python bench/cli_stages.py --edit CORPUS/some.cu scan CORPUS --format json -o /dev/null --cache-dir C --jobs 1
        # the re-scan after one edit (a comment line appended to the file first; C warmed by a scan before)

Each stage's parent CPU is followed by `+` the CPU of the workers that ended inside it (a stage that forks).

The process is set up as porter.cli.entry sets up the `porter` program's (its collector thresholds, and a process
that ends with its command: porter.cli.base.ends_with_command), and the parent's cycle collections are counted and
timed (gc.callbacks): without entry's thresholds a FasterTransformer re-scan after one edit made 147 collections
in the parent where the program makes 2.

bench/stage_times.py runs the workers' tasks inline, so it shows the per-file work but not what the command line
adds around it: the imports, the parent's own stages (loading rules, warming the query, reading the workers' answers
back, complete(), the report) and the forks. Here porter's command line runs as a user runs it (porter.cli.main, in
this process, the current directory first on sys.path so a snapshot's package is the one imported); a few pipeline
functions are wrapped with a CPU clock (process_time) in the parent, and the workers' CPU is RUSAGE_CHILDREN. The
wrapped parts nest (scan_files holds _prepare and _warm). Nothing here is a test: numbers go into notes
(bench/issue26-speed.md).
"""
from __future__ import annotations

import gc
import os
import resource
import sys
import time

sys.path.insert(0, os.getcwd())

STAGES = ("load_rules_cached", "cached_repository_facts", "scan_files", "_prepare", "_warm", "complete", "assemble",
          "_budgeted_pass", "run_inherited_all")


def main() -> None:
    t0 = time.process_time()
    import porter.cli as cli
    import porter.cli.scan  # noqa: F401 - the scan command's imports, timed with the rest
    t1 = time.process_time()
    from porter.cli import base

    # as porter.cli.entry: its collector thresholds, and a process that ends with its command
    gc.set_threshold(*cli.GC_THRESHOLDS)
    base.end_without_freeing()
    pid = os.getpid()
    collections = [0, 0.0]  # the parent's cycle collections: how many, CPU-s
    began = [0.0]

    def collected(phase: str, info: dict) -> None:
        if os.getpid() != pid:
            return
        if phase == "start":
            began[0] = time.process_time()
        else:
            collections[0] += 1
            collections[1] += time.process_time() - began[0]

    gc.callbacks.append(collected)
    import porter.pipeline as pipeline
    t2 = time.process_time()
    import porter.match.engine  # noqa: F401
    t3 = time.process_time()
    import porter.cache as cache

    spent: dict[str, float] = {}
    forked: dict[str, float] = {}  # the workers' CPU that ended inside each stage (RUSAGE_CHILDREN)

    def children() -> float:
        c = resource.getrusage(resource.RUSAGE_CHILDREN)
        return c.ru_utime + c.ru_stime

    def wrapped(name, fn):
        def timed(*args, **kwargs):
            if os.getpid() != pid:  # a forked worker runs the stage's task: not timed there
                return fn(*args, **kwargs)
            start, workers = time.process_time(), children()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - start
                forked[name] = forked.get(name, 0.0) + children() - workers
        return timed

    for name in STAGES:
        setattr(pipeline, name, wrapped(name, getattr(pipeline, name)))
    cache.Cache.get = wrapped("Cache.get", cache.Cache.get)  # type: ignore[method-assign]
    args = sys.argv[1:]
    if args[:1] == ["--edit"]:
        # A re-scan after an edit of one file, as bench_scan.py makes it: a comment line appended first.
        with open(args[1], "a") as fh:
            fh.write("// cli_stages: one line added\n")
        args = args[2:]
    start = time.process_time()
    cli.main(args)
    end = time.process_time()
    if os.getpid() == pid:  # not in a forked worker that returned here
        print(f"imports: porter.cli {t1 - t0:.3f} porter.pipeline {t2 - t1:.3f} porter.match.engine {t3 - t2:.3f}; "
              f"command {end - start:.3f} (" + ", ".join(f"{k} {v:.3f}" + (f"+{forked[k]:.3f}" if forked[k] else "")
                                                       for k, v in spent.items())
              + f"); workers {children():.3f} CPU-s; parent's cycle collections {collections[0]} "
              f"({collections[1]:.3f} CPU-s)", file=sys.stderr)


if __name__ == "__main__":
    main()
