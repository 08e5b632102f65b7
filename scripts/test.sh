#!/usr/bin/env bash
# The test command: installs modtensor into a venv (see bootstrap.sh), lints,
# and runs the whole test suite with pytest. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
echo "[test] ruff"
"$VENV/bin/ruff" check src tests tools
echo "[test] pytest"
exec "$VENV/bin/python" -m pytest tests "$@"
