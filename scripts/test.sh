#!/usr/bin/env bash
# Run porter's test suite: bootstrap the machine, then pytest (arguments pass through).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
# One pytest worker per core (pytest-xdist): the suite is CPU-bound (porter subprocesses, compilers), and CI's
# five-minute budget holds only with both cores busy. `-n 0` in the arguments runs them in this process.
exec .venv/bin/python -m pytest -q -n auto "$@"
