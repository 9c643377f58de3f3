"""A CPU sampler around a bench script (bench/profile_scan.py --plain): each function's inclusive and own share.

Usage:
    python bench/sample_scan.py bench/profile_scan.py CORPUS --plain 2 [> /dev/null]   # report on stderr
    SAMPLE_OUT=out.txt TOP=120 python bench/sample_scan.py bench/profile_scan.py CORPUS --warm --edit CORPUS/a.cu --plain 1

cProfile charges every Python call its own overhead, so code made of many small calls looks dearer than it is beside
C code. Here a SIGPROF timer (ITIMER_PROF, every 2 ms of the process's CPU) records the Python stack: a function's
inclusive share counts the samples with it anywhere on the stack (once per sample), its own share those with it on
top. A timer that falls due inside one long C call (tree-sitter's parse or query) is delivered once, when the call
returns, so those are undercounted: take their CPU from cProfile's own time of the C call. Nothing here is a test:
numbers go into notes (bench/issue26-speed.md, session 31).
"""
from __future__ import annotations

import atexit
import collections
import os
import runpy
import signal
import sys

_INCLUSIVE: collections.Counter = collections.Counter()
_OWN: collections.Counter = collections.Counter()
_SAMPLES = [0]
_HERE = os.getcwd()


def _key(frame) -> str:
    code = frame.f_code
    name = code.co_filename
    name = os.path.relpath(name, _HERE) if name.startswith(_HERE) else os.path.basename(name)
    return f"{name}:{code.co_firstlineno}({code.co_name})"


def _sample(signum, frame) -> None:
    _SAMPLES[0] += 1
    seen = set()
    top = True
    while frame is not None:
        k = _key(frame)
        if top:
            _OWN[k] += 1
            top = False
        if k not in seen:
            _INCLUSIVE[k] += 1
            seen.add(k)
        frame = frame.f_back


def _report() -> None:
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    n = _SAMPLES[0] or 1
    top = int(os.environ.get("TOP", "90"))
    with open(os.environ.get("SAMPLE_OUT", "/dev/stderr"), "w") as out:
        print(f"samples {_SAMPLES[0]} (2 ms of CPU each)", file=out)
        print("== inclusive", file=out)
        for k, v in _INCLUSIVE.most_common(top):
            print(f"{v * 100 / n:6.1f}% {v:6d} {k}", file=out)
        print("== own", file=out)
        for k, v in _OWN.most_common(60):
            print(f"{v * 100 / n:6.1f}% {v:6d} {k}", file=out)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    signal.signal(signal.SIGPROF, _sample)
    signal.setitimer(signal.ITIMER_PROF, 0.002, 0.002)
    atexit.register(_report)
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
