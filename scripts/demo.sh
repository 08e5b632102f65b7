#!/usr/bin/env bash
# The main job: installs modtensor into a venv (see bootstrap.sh) and runs
# `modtensor demo` on the bundled TensorFlow-exported models.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
exec "$VENV/bin/modtensor" demo "$@"
