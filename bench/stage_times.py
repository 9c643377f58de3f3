"""CPU-seconds of a cold scan's stages and of each pattern kind's matcher, measured without a profiler.

Usage:
    python bench/stage_times.py CORPUS [--rounds 2]

cProfile (bench/profile_scan.py) charges every Python call its own overhead, so code made of many small Python
calls looks several times dearer than it is beside C code: under it, compiling the rules' regexes with `re` looked
like 0.6 CPU-s of a cuda-samples scan and took 0.03 unprofiled. Here a few functions are wrapped with a CPU clock
(process_time) instead, so the totals are what the scan spends: the parse and its parts (the combined tree-sitter
query, the preprocessor's pass for braces, the macro and numeric-run rewrites), run_rules and its parts (each pattern
kind's matcher, with its hits consumed; the rule gates; refine; fingerprints), the kernel measurement, port facts,
complete(), repository facts. As in bench/profile_scan.py the workers' tasks run inline (porter.budget.Pool and
run_stage replaced), so one process holds the scan's work; start-up (imports) is timed apart. Wrapped parts nest
(parse holds p.*, run_rules holds m.* and r.*), so the lines do not add up to the run. The second round's run has
no first-use costs (rules loaded, regexes and queries compiled). Nothing here is a test: numbers go into notes
(bench/issue26-speed.md).
"""
from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path
from typing import Any, Callable

# The current directory's porter (a worktree's or a snapshot's), as bench/profile_scan.py takes it: run as a script,
# this file's own directory came first and an editable install's porter (main's) was the one timed.
sys.path.insert(0, str(Path.cwd()))


class InlinePool:
    """porter.budget.Pool's interface, each task run here and now (see bench/profile_scan.py)."""

    def __init__(self, budget: Any, workers: int = 1, init: Any = None):
        self.budget = budget  # porter.pipeline shares a pool whose budget is the stage's
        self.workers = workers
        self.started = 0

    def __enter__(self) -> "InlinePool":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Callable, args: Any, chunk: int = 1) -> Any:
        for i, a in enumerate(args):
            yield i, fn(*a)


def inline_stage(fn: Callable, args: Any, budget: Any = None, *rest: Any, **kw: Any) -> Any:
    return fn(*args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    t0 = time.process_time()
    import porter.budget as budget
    import porter.match.engine as engine
    import porter.pipeline as pipeline
    import porter.source.parse as parse
    import porter.source.preprocessor as preprocessor
    from porter.match.registry import MATCHERS
    from porter.settings import Settings

    imported = time.process_time() - t0
    for module in (budget, pipeline):
        module.Pool = InlinePool  # type: ignore[attr-defined]
        module.run_stage = inline_stage  # type: ignore[attr-defined]
    spent: dict[str, float] = {}

    def timed(fn: Callable, label: str, consume: bool = False) -> Callable:
        @functools.wraps(fn)
        def wrapper(*a: Any, **kw: Any) -> Any:
            t = time.process_time()
            try:
                out = fn(*a, **kw)
                return list(out) if consume and not isinstance(out, (list, tuple)) else out
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - t
        return wrapper

    def wrap(module: Any, name: str, label: str) -> None:
        setattr(module, name, timed(getattr(module, name), label))

    wrap(pipeline, "cached_repository_facts", "repository facts")
    wrap(pipeline, "complete", "complete()")
    wrap(pipeline, "scan_source", "scan_source")
    wrap(pipeline, "parse", "parse")
    wrap(pipeline, "measure", "kernel measurement")
    wrap(pipeline, "device_helpers", "device helpers")
    wrap(pipeline.port_status, "file_facts", "port facts")
    wrap(engine, "prepare_rules", "prepare_rules")
    wrap(engine, "run_rules", "run_rules")
    wrap(engine, "refine", "r.refine")
    wrap(engine, "_fingerprinted", "r.fingerprints")
    wrap(engine, "_may_fire", "r.gates")
    wrap(parse, "captures", "p.combined query")
    wrap(parse, "neutralise_macros", "p.macros")
    wrap(parse, "blank_numeric_runs", "p.numeric runs")
    wrap(parse, "_parse_python", "p.python files")
    wrap(preprocessor, "one_arm_for_braces", "p.one arm for braces")
    for kind in list(MATCHERS):  # each kind's hits consumed inside its own clock
        MATCHERS[kind] = timed(MATCHERS[kind], "m." + kind, consume=True)
    print(f"imports {imported:.2f} CPU-s")
    for r in range(args.rounds):
        spent.clear()
        t1 = time.process_time()
        pipeline.run(args.corpus, Settings(jobs=1, cache_dir=None))
        ran = time.process_time() - t1
        shown = " ".join(f"{k} {v:.2f}" for k, v in sorted(spent.items(), key=lambda kv: -kv[1]) if v >= 0.01)
        print(f"round {r + 1}: run {ran:.2f} CPU-s; {shown}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
