"""``tf.TensorArray`` beyond the golden programs: which implementation serves which mode, loop components,
v1 graphs, and TF's refusal to carry an eager array into a function."""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import tensor_array_ops


def test_eager_arrays_are_python_lists_and_graph_arrays_are_tensor_lists():
    eager = tf.TensorArray(tf.float32, size=2)
    assert isinstance(eager._implementation, tensor_array_ops._EagerTensorArray)
    assert eager.flow.dtype == tf.int32 and eager.handle is None
    assert eager.write(0, 1.0) is eager  # eager writes return the same array, as in TF

    seen = {}

    @tf.function
    def f():
        ta = tf.TensorArray(tf.float32, size=2)
        seen["impl"] = type(ta._implementation)
        seen["flow"] = ta.flow.dtype
        written = ta.write(0, [1.0, 2.0])
        seen["new_object"] = written is not ta
        seen["shared_shape"] = ta.element_shape.as_list()  # the write refined the shape both arrays share
        return written.stack()

    assert f().numpy().tolist() == [[1.0, 2.0], [0.0, 0.0]]
    assert seen == {
        "impl": tensor_array_ops._GraphTensorArrayV2,
        "flow": tf.variant,
        "new_object": True,
        "shared_shape": [2],
    }


def test_spec_round_trips_an_array_through_its_flow_as_loops_carry_it():
    @tf.function
    def f():
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=[2])
        ta = ta.write(0, [1, 2])
        spec = tf.TensorArraySpec.from_value(ta)
        (flow,) = spec.to_components(ta)
        rebuilt = spec.from_components([tf.identity(flow)])
        assert spec.is_compatible_with(rebuilt) and rebuilt.dynamic_size
        return rebuilt.write(1, [3, 4]).stack()

    assert f().numpy().tolist() == [[1, 2], [3, 4]]


def test_eager_array_used_inside_a_function_is_refused_as_in_tensorflow():
    ta = tf.TensorArray(tf.float32, size=1)

    @tf.function
    def f():
        return tensor_array_ops.build_ta_with_new_flow(ta, tf.constant(0.0)).flow

    with pytest.raises(NotImplementedError, match="Instead, construct a new TensorArray inside the function."):
        f()


def test_tensor_array_in_a_v1_session():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3, 2])
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        ta = ta.write(1, tf.constant([7.0, 8.0]))
        stacked, last = ta.stack(), ta.read(2)
    assert stacked.shape.as_list() == [3, 2]
    with tf.compat.v1.Session(graph=g) as sess:
        got, got_last = sess.run([stacked, last], {x: np.arange(6, dtype=np.float32).reshape(3, 2)})
    assert got.tolist() == [[0, 1], [7, 8], [4, 5]]
    assert got_last.tolist() == [4, 5]


def test_wrong_dtype_write_in_a_function_is_logged_as_tensorflow_does(caplog):
    @tf.function
    def f():
        return tf.TensorArray(tf.float32, size=1).write(0, tf.constant(1)).flow

    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid data types; op elements int32 but list"):
        f()
    assert "has dtype <dtype: 'int32'>, but expected dtype <dtype: 'float32'>" in caplog.text


def test_lists_and_arrays_on_a_plugin_device_keep_device_elements(fake_device: None):
    """The DEFAULT list kernels serve a device type without its own: elements stay device values (FakeBuffer),
    the list itself is host memory; eagerly and in a function."""
    from modtensor.api import list_ops

    from .fake_device import FakeBuffer

    x = tf.constant([1.0, 2.0])
    with tf.device("/device:FAKE:0"):
        y = x + x
        handle = list_ops.tensor_list_set_item(list_ops.tensor_list_reserve([2], 2, tf.float32), 0, y)
        stacked = list_ops.tensor_list_stack(handle, tf.float32)
    assert isinstance(handle._value[()].tensors[0], FakeBuffer)
    assert handle.device.endswith("CPU:0")  # a host-memory output
    assert stacked.device.endswith("FAKE:0") and isinstance(stacked._value, FakeBuffer)
    assert stacked.numpy().tolist() == [[2.0, 4.0], [0.0, 0.0]]

    @tf.function
    def f(a):
        with tf.device("/device:FAKE:0"):
            ta = tf.TensorArray(tf.float32, size=2).write(1, a + a)
            return ta.stack(), ta.size()

    out, size = f(x)
    assert out.numpy().tolist() == [[0.0, 0.0], [2.0, 4.0]] and int(size) == 2
