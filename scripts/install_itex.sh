#!/usr/bin/env bash
# Installs Intel Extension for TensorFlow's CPU plugin (intel-extension-for-tensorflow-lib 2.15.0.0.0, a
# binary TensorFlow plugin) into the modtensor venv, from a cached wheel: the ~110 MB download happens
# once into ~/.cache/modtensor/wheels (MODTENSOR_WHEEL_CACHE to change it). Only the wheel is installed
# (--no-deps: ITEX needs nothing from TensorFlow but its C API, which modtensor provides). It lands in
# <site-packages>/tensorflow-plugins/, where modtensor discovers it (tests/plugin/test_itex.py).
# Exit status 0 when installed (or already there); 2 when this platform has no such wheel; 1 on a
# failed download (the message says why).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MODTENSOR_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
SPEC="intel-extension-for-tensorflow-lib==2.15.0.0.0"
CACHE="${MODTENSOR_WHEEL_CACHE:-$HOME/.cache/modtensor/wheels}"

if ! "$PY" -c 'import sys, platform; sys.exit(not (sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info[:2] in ((3, 9), (3, 10), (3, 11))))'; then
  echo "[itex] no ITEX 2.15 CPU wheel for this platform/Python (needs Linux x86_64, Python 3.9-3.11)" >&2
  exit 2
fi
if "$PY" -c 'import importlib.metadata as m; m.version("intel-extension-for-tensorflow-lib")' >/dev/null 2>&1; then
  echo "[itex] already installed in $VENV"
  exit 0
fi
mkdir -p "$CACHE"
wheel=$(ls "$CACHE"/intel_extension_for_tensorflow_lib-2.15.0.0.0-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ]; then
  echo "[itex] downloading $SPEC into $CACHE (once, ~110 MB)"
  if ! "$PY" -m pip download -q --no-deps --only-binary=:all: "$SPEC" -d "$CACHE" >&2; then
    echo "[itex] could not download $SPEC (is PyPI reachable?)" >&2
    exit 1
  fi
  wheel=$(ls "$CACHE"/intel_extension_for_tensorflow_lib-2.15.0.0.0-*.whl | head -n1)
fi
echo "[itex] installing $(basename "$wheel") into $VENV"
"$PY" -m pip install -q --no-deps "$wheel"
