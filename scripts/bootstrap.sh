#!/usr/bin/env bash
# Creates (or reuses) the project venv at $MODTENSOR_VENV (default .venv) and
# installs modtensor into it with its test extras. Sourced by demo.sh and test.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MODTENSOR_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

need_apt=()
# gcc builds the native plugin library (csrc/) with the package; g++ builds the C++ example plugin in the tests.
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
if ! "$PY" -c "import venv, ensurepip" >/dev/null 2>&1; then
  need_apt+=("python3-venv")
fi
# Python.h, for the native bridge (a CPython extension).
if ! "$PY" -c "import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" >/dev/null 2>&1; then
  need_apt+=("python3-dev")
fi
# libjpeg, libpng and libwebp headers, for the image codecs (optional: without them the codec ops say what to install).
codec_apt=()
if command -v gcc >/dev/null 2>&1; then
  printf '#include <stdio.h>\n#include <jpeglib.h>\n' | gcc -fsyntax-only -x c - >/dev/null 2>&1 || codec_apt+=(libjpeg-dev)
  printf '#include <png.h>\n' | gcc -fsyntax-only -x c - >/dev/null 2>&1 || codec_apt+=(libpng-dev zlib1g-dev)
  printf '#include <webp/demux.h>\n' | gcc -fsyntax-only -x c - >/dev/null 2>&1 || codec_apt+=(libwebp-dev)
else
  codec_apt+=(libjpeg-dev libpng-dev zlib1g-dev libwebp-dev)
fi
if [ ${#codec_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    need_apt+=("${codec_apt[@]}")
  else
    echo "[bootstrap] note: ${codec_apt[*]} missing: modtensor builds without those image codecs" >&2
  fi
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[bootstrap] installing ${need_apt[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "[bootstrap] missing ${need_apt[*]}: install them (apt-get install ${need_apt[*]}) and rerun" >&2
    exit 1
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[bootstrap] creating venv $VENV"
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
echo "[bootstrap] installing modtensor into $VENV"
"$VENV/bin/python" -m pip install -q "$ROOT[test]"
