"""A plugin's kernels read and update resource variables through kernels_experimental.h's variable functions.

tests/plugin/csrc/variable_plugin.c is written against TensorFlow's headers only:
``TF_MaybeLockVariableInputMutexesInOrder`` + ``TF_GetInputTensorFromVariable`` (dense and
sparse), ``TF_AssignVariable``, ``TF_AssignUpdateVariable`` with its updateFunc,
``TF_ReleaseVariableInputLockHolder`` and ``TF_GetSerializedResourceHandleProto``. Its kernels
run eagerly on ``modtensor.Variable`` handles, inside ``modtensor.function`` (ordered with the
variable's other ops) and in v1 Sessions, with TF's copy-on-write: a value someone still
holds is copied (with the plugin's copyFunc) before the plugin writes.

(TensorFlow 2.21's pip wheel does not export these functions, so no TF run of the plugin exists
to record; the expectations follow TF's kernels_experimental.cc and resource_variable_ops.cc.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors
from modtensor.framework.protos import resource_handle_pb2


@pytest.fixture(scope="module")
def plugin(build_plugin) -> Path:
    from modtensor.plugin import load_library

    path = build_plugin("variable_plugin")
    load_library(path)
    return path


pytestmark = pytest.mark.usefixtures("plugin")


def test_eager_dense_update_in_place_and_copy_on_write() -> None:
    v = tf.Variable([1.0, 2.0])
    tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=[1.0, 1.0])  # may copy once: the initial value's buffer
    np.testing.assert_array_equal(v.numpy(), [3.0, 5.0])
    copies = tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=[1.0, 1.0])
    assert int(copies) == 0  # the variable owns its buffer and nobody holds it: updated in place
    np.testing.assert_array_equal(v.numpy(), [7.0, 11.0])
    before = v.read_value()
    copies = tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=[1.0, 1.0])
    assert int(copies) == 1  # a read holds the buffer: the plugin's copyFunc gives the variable its own copy
    np.testing.assert_array_equal(before.numpy(), [7.0, 11.0])
    np.testing.assert_array_equal(v.numpy(), [15.0, 23.0])


def test_assign_update_and_their_errors() -> None:
    v = tf.Variable([1.0, 2.0])
    tf.raw_ops.MtVarUpdate(resource=v.handle, value=[0.5, 0.5])
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])
    tf.raw_ops.MtVarUpdate(resource=v.handle, value=[0.5, 0.5], subtract=True)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    tf.raw_ops.MtVarAssign(resource=v.handle, value=[9.0, 8.0])
    np.testing.assert_array_equal(v.numpy(), [9.0, 8.0])
    with pytest.raises(errors.InvalidArgumentError, match=r"wrong shape. Expected \[2\] got \[3\]"):
        tf.raw_ops.MtVarAssign(resource=v.handle, value=[9.0, 8.0, 7.0], validate_shape=True)
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot update variable with shape \[2\] using a Tensor"):
        tf.raw_ops.MtVarUpdate(resource=v.handle, value=[9.0, 8.0, 7.0])
    tf.raw_ops.MtVarAssign(resource=v.handle, value=[1.0, 2.0, 3.0])  # without validate_shape the shape may change
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_sparse_read_and_the_serialized_handle() -> None:
    v = tf.Variable([1.0, 2.0, 4.0], name="w")
    total, handle = tf.raw_ops.MtVarSum(resource=v.handle)
    assert float(total) == 7.0
    proto = resource_handle_pb2.ResourceHandleProto()
    proto.ParseFromString(handle.numpy())
    assert proto.device == v.device and proto.container == "Anonymous" and proto.name.startswith("w/")
    assert proto.maybe_type_name == "N10tensorflow3VarE"
    assert proto.dtypes_and_shapes[0].shape.dim[0].size == 3
    held = v.read_value()
    tf.raw_ops.MtVarSum(resource=v.handle)  # sparse access switches the variable to copy-on-read
    v.assign_add([1.0, 1.0, 1.0])
    np.testing.assert_array_equal(held.numpy(), [1.0, 2.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0, 5.0])


def test_plugin_kernels_in_a_function_run_in_program_order() -> None:
    v = tf.Variable([1.0, 1.0])

    @tf.function
    def step(x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        tf.raw_ops.MtVarUpdate(resource=v.handle, value=x)  # 2, 2
        copies = tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=x)  # 5, 5
        v.assign_sub([1.0, 1.0])  # 4, 4
        return v.read_value(), copies

    value, _ = step(tf.constant([1.0, 1.0]))
    np.testing.assert_array_equal(value.numpy(), [4.0, 4.0])
    value, _ = step(tf.constant([1.0, 1.0]))
    np.testing.assert_array_equal(value.numpy(), [10.0, 10.0])


def test_plugin_kernels_in_a_session() -> None:
    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.Variable([1.0, 2.0, 3.0], name="w")
        update = tf.raw_ops.MtVarUpdate(resource=w.handle, value=[1.0, 1.0, 1.0])
        scale_add = tf.raw_ops.MtVarScaleAdd(resource=w.handle, value=[1.0, 1.0, 1.0])
        with tf.compat.v1.Session() as sess:
            with pytest.raises(errors.NotFoundError, match="Container localhost does not exist"):
                sess.run(scale_add)
            sess.run(w.initializer)
            sess.run(update)
            sess.run(scale_add)
            np.testing.assert_array_equal(sess.run(w), [5.0, 7.0, 9.0])


def test_lock_holder_without_locking_is_harmless_and_ref_variables_are_refused() -> None:
    v = tf.Variable([0.0])
    for _ in range(3):  # a holder taken and released over and over leaves no lock held
        tf.raw_ops.MtVarSum(resource=v.handle)
        tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=[1.0])
    assert v.handle._value[()].resource.mu.acquire(blocking=False)
    v.handle._value[()].resource.mu.release()
    np.testing.assert_array_equal(v.numpy(), [7.0])
