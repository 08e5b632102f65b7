#!/usr/bin/env bash
# The test command: installs modtensor into a venv (see bootstrap.sh), lints,
# and runs the whole test suite with pytest. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
# Intel Extension for TensorFlow (a binary TF plugin from PyPI) for tests/plugin/test_itex.py: the wheel
# is cached in ~/.cache/modtensor/wheels; without network the test says why it skipped.
bash "$ROOT/scripts/install_itex.sh" || echo "[test] ITEX not installed (see above); tests/plugin/test_itex.py will say why"
echo "[test] ruff"
"$VENV/bin/ruff" check src tests tools
echo "[test] pytest"
exec "$VENV/bin/python" -m pytest tests "$@"
