#!/usr/bin/env bash
# The main job: installs modtensor into a venv (see bootstrap.sh), runs
# `modtensor demo` on the bundled TensorFlow-exported models (import, shapes,
# round trip, outputs against TensorFlow's), then runs one of them with
# `modtensor run` on a saved input, printing where each op ran.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
"$VENV/bin/modtensor" demo "$@"
echo
echo "== modtensor run examples/models/small_cnn.pb --input image=examples/models/small_cnn.input.npy --log-placement"
exec "$VENV/bin/modtensor" run examples/models/small_cnn.pb \
  --input image=examples/models/small_cnn.input.npy --log-placement
