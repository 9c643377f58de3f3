#!/usr/bin/env bash
# Run porter's test suite: bootstrap the machine, then pytest (arguments pass through).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
# Three pytest workers on CI's two cores (pytest-xdist): the suite is CPU-bound (porter subprocesses, compilers), but
# some tests wait (deadlines, a Dask cluster, git), and a third worker fills those gaps. Idle machine: session 13,
# in a worktree, -n 3 284.5 s vs -n auto 289-291 s; session 14, a fresh clone, 309.9 s vs 336.3 s (bench/suite-time.md).
# `--dist worksteal`: a worker that runs out of tests takes queued ones from a busy worker, so the long compiler and
# install tests do not leave one worker finishing alone. `-n 0` in the arguments runs them in this process.
exec .venv/bin/python -m pytest -q -n 3 --dist worksteal "$@"
