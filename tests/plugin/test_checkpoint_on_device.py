"""Checkpoints and SavedModels with variables on the example plugin device (MY_DEVICE): values leave and enter
device memory through the plugin's copies; a loaded model's variables and functions run on the device."""

from __future__ import annotations

import textwrap
from pathlib import Path

from .test_demo_device_runtime import build, run_child

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "saved_model"

SCRIPT = textwrap.dedent(
    f"""
    import sys, tempfile
    import numpy as np
    import modtensor as tf
    from modtensor.plugin import load_library
    from modtensor.runtime.pluggable_device import DeviceBuffer

    load_library(sys.argv[1])
    scratch = tempfile.mkdtemp()
    with tf.device("/MY_DEVICE:0"):
        module = tf.Module()
        module.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        module.b = tf.Variable([0.5, -0.5, 1.5])
    path = tf.train.Checkpoint(model=module).write(scratch + "/ck")
    with tf.device("/MY_DEVICE:0"):
        other = tf.Module()
        other.w = tf.Variable(np.zeros((2, 3), np.float32))
        other.b = tf.Variable(np.zeros(3, np.float32))
    tf.train.Checkpoint(model=other).read(path).assert_consumed()
    assert other.w.device.endswith("MY_DEVICE:0")
    assert isinstance(other.w.handle._value[()].resource.tensor, DeviceBuffer)  # restored into device memory
    np.testing.assert_array_equal(other.w.numpy(), module.w.numpy())
    np.testing.assert_array_equal(other.b.numpy(), [0.5, -0.5, 1.5])

    with tf.device("/MY_DEVICE:0"):
        loaded = tf.saved_model.load({str(GOLDEN / "keras")!r})
        features = np.linspace(-1, 1, 2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3)
        on_device = loaded.serve(features).numpy()
    kernel = loaded.variables[7]
    assert kernel.device.endswith("MY_DEVICE:0"), kernel.device
    on_cpu = tf.saved_model.load({str(GOLDEN / "keras")!r})
    with tf.device("/CPU:0"):
        np.testing.assert_allclose(on_device, on_cpu.serve(features).numpy(), rtol=1e-5, atol=1e-6)
    print("checkpoint on device ok", flush=True)
    """
)


def test_checkpoint_and_saved_model_variables_on_my_device(build_plugin):
    assert run_child(SCRIPT, build(build_plugin, "MY_DEVICE")).strip() == "checkpoint on device ok"
