"""A tf.function's outputs stay on the device that produced them, and device-resident arguments are fed there.

TensorFlow's functions return tensors on the devices of their ``_Retval`` producers and take
arguments where they are. With the example device plugin: a function called under
``tf.device('/MY_DEVICE:0')`` returns tensors on MY_DEVICE:0, a result fed back into the function
goes straight to the device (no trip through the host). Runs in a child process, as the other
plugin tests do.
"""

from __future__ import annotations

import textwrap

from .test_demo_device_runtime import build, run_child

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import modtensor as tf
    from modtensor.plugin import load_library
    from modtensor.runtime import pluggable_device

    load_library(sys.argv[1])
    w = np.arange(16, dtype=np.float32).reshape(4, 4) / 10.0

    @tf.function
    def step(x):  # MatMul, AddV2 and Relu all have MY_DEVICE kernels
        return tf.nn.relu(tf.matmul(x, tf.constant(w)) + (-1.0)), tf.shape(x)

    x = np.ones((2, 4), np.float32)
    with tf.device("/MY_DEVICE:0"):
        y, shape = step(tf.constant(x))
    assert y.device.endswith("device:MY_DEVICE:0"), y.device
    assert isinstance(y._value, pluggable_device.DeviceBuffer)
    np.testing.assert_array_equal(shape.numpy(), [2, 4])
    expected = np.maximum(x @ w - 1.0, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)

    copies = []
    real = pluggable_device.PluggableDevice.to_host
    pluggable_device.PluggableDevice.to_host = lambda self, v: copies.append(1) or real(self, v)
    with tf.device("/MY_DEVICE:0"):
        z, _ = step(y)  # y is on the device: fed there, not through the host
    pluggable_device.PluggableDevice.to_host = real
    assert z.device.endswith("device:MY_DEVICE:0"), z.device
    assert copies == [], copies
    np.testing.assert_allclose(z.numpy(), np.maximum(expected @ w - 1.0, 0), rtol=1e-5)
    print("outputs on device ok")
    """
)


def test_function_outputs_stay_on_the_device_and_device_arguments_are_fed_there(build_plugin):
    out = run_child(SCRIPT, build(build_plugin, "MY_DEVICE"))
    assert out.strip() == "outputs on device ok"
