#!/usr/bin/env bash
# Run porter's test suite: bootstrap the machine, then pytest (arguments pass through).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest -q "$@"
