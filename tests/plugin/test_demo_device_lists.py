"""TensorLists and TensorArrays on the example device plugin: the DEFAULT list kernels keep element values in the
plugin's memory (lists themselves in host memory), eagerly and in ``tf.function``, with the CPU's results."""

from __future__ import annotations

import textwrap

from .test_demo_device_runtime import build, run_child

PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import modtensor as tf
    from modtensor.api import list_ops
    from modtensor.plugin import load_library

    load_library(sys.argv[1])
    X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0

    def program(x):
        handle = list_ops.tensor_list_reserve([4], 3, tf.float32)
        for i in range(3):
            handle = list_ops.tensor_list_set_item(handle, i, tf.nn.relu(x[i]))
        ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(tf.nn.relu(x))
        return list_ops.tensor_list_stack(handle, tf.float32), list_ops.tensor_list_get_item(handle, 1, tf.float32), \\
            ta.stack(), ta.read(2), ta.concat()

    cpu = [t.numpy() for t in program(tf.constant(X))]
    with tf.device("/device:MY_DEVICE:0"):
        x = tf.constant(X)
        eager = program(x)
        handle = list_ops.tensor_list_from_tensor(tf.nn.relu(x), [4])
        element = handle._value[()].tensors[0]
        assert type(element).__name__ != "ndarray", type(element)  # a device buffer, not a host array
        assert eager[0].device.endswith("MY_DEVICE:0"), eager[0].device
        graph = tf.function(program)(x)
    for got in (eager, graph):
        for a, b in zip(got, cpu):
            np.testing.assert_allclose(a.numpy(), b)
    print("lists ok", flush=True)
    """
)


def test_lists_and_arrays_on_my_device_match_the_cpu(build_plugin):
    assert run_child(PROGRAM, build(build_plugin, "MY_DEVICE")).strip() == "lists ok"
