#!/usr/bin/env bash
# Show porter on a bundled sample: bootstrap the machine, then assess fixtures/repos/cuda-app for MI355X.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
exec .venv/bin/porter assess fixtures/repos/cuda-app --target mi355x "$@"
