#!/usr/bin/env bash
# The main job: installs modtensor into a venv (see bootstrap.sh), builds the
# example device plugin (examples/plugins/demo_device, device type MY_DEVICE),
# runs `modtensor demo` on the bundled TensorFlow-exported models (import,
# shapes, round trip, outputs against TensorFlow's on CPU, then again on the
# plugin's device), then runs one model with `modtensor run` and its placement log.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
echo "[demo] building examples/plugins/demo_device"
make -s -C examples/plugins/demo_device PYTHON="$VENV/bin/python"
# The demo shows modtensor's own kernels and the bundled device plugin. Binary TensorFlow plugins in
# site-packages/tensorflow-plugins (ITEX, which the test command installs into the same venv) stay out:
# ITEX's graph optimizer aborts the process on a device type it does not know (MY_DEVICE), in TF too.
export MODTENSOR_NO_TF_PLUGINS="${MODTENSOR_NO_TF_PLUGINS:-1}"
"$VENV/bin/modtensor" demo --device-plugin examples/plugins/demo_device/libdemo_device.so "$@"
echo
echo "== modtensor run examples/models/small_cnn.pb --input image=examples/models/small_cnn.input.npy --log-placement"
exec "$VENV/bin/modtensor" run examples/models/small_cnn.pb \
  --input image=examples/models/small_cnn.input.npy --log-placement
