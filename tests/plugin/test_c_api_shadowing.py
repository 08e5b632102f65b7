"""A plugin is refused, with a clear error, when another copy of the C API was loaded globally before the shim."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from .support import REPO

CHILD = textwrap.dedent(
    """
    import ctypes, os, sys
    ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_GLOBAL)  # "TensorFlow", imported first
    import modtensor as tf
    from modtensor.framework import errors
    try:
        tf.load_library(sys.argv[2])
    except errors.FailedPreconditionError as e:
        print("refused:", e.message)
    else:
        print("loaded")
    """
)


def test_plugin_loaded_after_another_c_api_copy_is_refused(build_plugin):
    shadow = build_plugin("shadow_c_api")
    plugin = build_plugin("unknown_op")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(shadow), str(plugin)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.strip()
    assert out.startswith(f"refused: {plugin}: its TF_* C API calls would resolve to another library"), out
    assert "load native plugins before importing TensorFlow" in out


def test_plugin_loads_when_the_shim_comes_first(build_plugin):
    shadow = build_plugin("shadow_c_api")
    plugin = build_plugin("api_plugin")
    shim_first = "from modtensor.plugin.native import bridge\nbridge()\n" + CHILD
    done = subprocess.run(
        [sys.executable, "-c", shim_first, str(shadow), str(plugin)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "loaded"
