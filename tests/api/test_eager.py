"""Eager execution beyond TF's recorded values: the kernel cache, stateful kernels, placement on a plugged
device (scopes, soft placement, copies; the ``fake_device`` fixture), ``execute``, tensor immutability."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import modtensor as tf
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes
from modtensor.runtime import eager, op_kernel
from modtensor.runtime.eager import EagerTensor
from modtensor.runtime.kernel_registry import global_kernel_registry

from .fake_device import FakeBuffer, FakeDevice

FAKE = "/job:localhost/replica:0/task:0/device:FAKE:0"
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_scoped_op_runs_on_the_plugged_device(fake_device: None) -> None:
    with tf.device("/device:FAKE:0"):
        x = tf.constant([1.0, 2.0])
        y = x + x
    assert x.device == FAKE and y.device == FAKE
    assert isinstance(y._value, FakeBuffer)
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    assert repr(y) == "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>"


def test_soft_placement_falls_back_to_cpu_and_copies_inputs(fake_device: None) -> None:
    with tf.device("/device:FAKE:0"):
        x = tf.constant([-1.0, 2.0])
        y = tf.nn.relu(x)  # no Relu kernel for FAKE
        z = x + 1  # int inputs would have no FAKE kernel either; float32 has one
        w = tf.constant([1, 2]) + 1  # int32: soft placement to CPU
    assert y.device == CPU and z.device == FAKE and w.device == CPU
    np.testing.assert_array_equal(y.numpy(), [0.0, 2.0])
    assert FakeDevice.copies_out >= 1  # x was copied off the device for the CPU kernel


def test_unscoped_ops_run_on_the_preferred_device(fake_device: None) -> None:
    preferred = tf.constant([1.0]) + tf.constant([2.0])
    assert preferred.device == FAKE  # host inputs: the non-CPU device with a kernel wins, as a GPU in TF
    assert preferred.numpy().tolist() == [3.0]
    assert (tf.constant([1, 2]) + tf.constant([3])).device == CPU  # small int32 shape arithmetic stays on host
    with tf.device("/device:FAKE:0"):
        a = tf.constant([1.0])
    assert (a + a).device == FAKE  # inputs on FAKE
    mixed = a + tf.constant([1.0])  # inputs on two devices: the highest-priority type with a kernel
    assert mixed.device == FAKE
    from_python = apply_op("AddV2", x=1.0, y=2.0)  # no tensor inputs: FAKE outranks CPU
    assert from_python.device == FAKE and float(from_python) == 3.0


def test_explicit_device_of_execute(fake_device: None) -> None:
    (out,) = eager.execute("AddV2", [tf.constant([1.0]), tf.constant([2.0])], device="/device:FAKE:0")
    assert out.device == FAKE
    (out,) = eager.execute("AddV2", [tf.constant([1.0]), tf.constant([2.0])], device=CPU)
    assert out.device == CPU


# ----------------------------------------------------------------------------- the kernel cache


def test_cache_hit_creates_no_kernel_and_no_node_def(monkeypatch: pytest.MonkeyPatch) -> None:
    x = tf.constant([1.0, 2.0])
    first = x * x  # fills the cache for (Mul, float32 on CPU, float32 on CPU)
    calls: list[str] = []

    def no_kernel(*args: object, **kwargs: object) -> None:
        calls.append("create_kernel")
        raise AssertionError("a cache hit must not create a kernel")

    class NoNodeDefs:
        def NodeDef(self, *args: object, **kwargs: object) -> None:  # noqa: N802 - the protobuf class's name
            raise AssertionError("a cache hit must not build a NodeDef")

    monkeypatch.setattr(op_kernel, "create_kernel", no_kernel)
    monkeypatch.setattr(eager, "node_def_pb2", NoNodeDefs())
    second = x * tf.constant([3.0, 4.0])
    via_dispatch = apply_op("Mul", x=x, y=x)
    assert calls == []
    np.testing.assert_array_equal(second.numpy(), [3.0, 8.0])
    np.testing.assert_array_equal(via_dispatch.numpy(), first.numpy())


def test_stateful_kernel_continues_its_stream_until_the_cache_is_cleared() -> None:
    def draw() -> np.ndarray:
        return apply_op("RandomUniform", shape=[4], dtype=tf.float32, seed=7, seed2=3).numpy()

    eager.clear_kernel_cache()
    first, second = draw(), draw()
    assert not np.array_equal(first, second)
    eager.clear_kernel_cache()
    np.testing.assert_array_equal(draw(), first)


def test_set_seed_restarts_eager_random_sequences() -> None:
    tf.random.set_seed(42)
    a = [tf.random.uniform([3]).numpy() for _ in range(2)]
    tf.random.set_seed(42)
    b = [tf.random.uniform([3]).numpy() for _ in range(2)]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])


def test_execute_groups_list_inputs_and_checks_attrs() -> None:
    (out,) = eager.execute("ConcatV2", [tf.constant([1]), tf.constant([2, 3]), tf.constant(0)], {"N": 2})
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3])
    (cast,) = eager.execute("Cast", [tf.constant([1.7])], {"DstT": tf.int32, "SrcT": tf.float32})
    assert cast.dtype == tf.int32 and cast.numpy().tolist() == [1]
    assert eager.execute("NoOp", []) == []


def test_graph_tensor_passed_to_an_eager_op_is_a_type_error() -> None:
    with tf.Graph().as_default():
        symbolic = tf.constant(1.0)
    with pytest.raises(TypeError, match="graph tensor.*'AddV2'"):
        apply_op("AddV2", x=symbolic, y=1.0)


def test_kernel_python_errors_become_internal_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    from modtensor.kernels.cpu import OP_FUNCTIONS
    from modtensor.runtime.kernel_registry import register_kernel_function

    def broken(x: np.ndarray) -> np.ndarray:
        raise ZeroDivisionError("boom")

    registration = register_kernel_function("Sign", broken, "CPU", constraints={"T": [dtypes.float64]}, priority=5)
    try:
        eager.clear_kernel_cache()
        with pytest.raises(tf.errors.InternalError) as info:
            apply_op("Sign", x=np.array([1.0]))
        assert "raised ZeroDivisionError: boom [Op:Sign]" in str(info.value)
        assert isinstance(info.value.__cause__, ZeroDivisionError)
    finally:
        global_kernel_registry().remove(registration)
        eager.clear_kernel_cache()
    assert OP_FUNCTIONS["Sign"](np.array([-2.0])).tolist() == [-1.0]


# ----------------------------------------------------------------------------- tensors


def test_numpy_returns_a_copy_and_asarray_a_read_only_view() -> None:
    x = tf.constant([1.0, 2.0])
    copy_ = x.numpy()
    copy_[0] = 99.0
    assert x.numpy().tolist() == [1.0, 2.0]
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 5.0


def test_kernels_never_write_into_a_tensor_they_were_given() -> None:
    x = tf.constant(np.arange(4.0))
    before = x.numpy()
    _ = -x, x + x, tf.reshape(x, [2, 2]), tf.nn.relu(x)
    np.testing.assert_array_equal(x.numpy(), before)


def test_copy_pickle_and_constructor() -> None:
    x = tf.constant([[1, 2]], dtype=tf.int64)
    assert copy.copy(x) is x and copy.deepcopy(x) is x
    restored = pickle.loads(pickle.dumps(x))
    assert isinstance(restored, EagerTensor) and restored.dtype == tf.int64
    np.testing.assert_array_equal(restored.numpy(), [[1, 2]])
    made = EagerTensor([1.5, 2.5], dtype=tf.float64)
    assert made.dtype == tf.float64 and made.device == CPU and made.shape == tf.TensorShape([2])


def test_tensors_convert_implicitly_where_python_needs_numbers() -> None:
    n = tf.constant(3)
    assert list(range(n)) == [0, 1, 2]
    assert [10, 20, 30, 40][n] == 40
    assert np.arange(5)[tf.constant(1) : tf.constant(3)].tolist() == [1, 2]
    assert float(tf.constant(2.5)) * 2 == 5.0


def test_iteration_yields_rows_that_are_tensors() -> None:
    rows = list(tf.constant([[1, 2], [3, 4]]))
    assert all(isinstance(r, EagerTensor) for r in rows)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4]]
    assert (rows[0] + rows[1]).numpy().tolist() == [4, 6]


def test_tensors_from_numpy_arrays_do_not_follow_later_writes() -> None:
    array = np.array([1.0, 2.0], np.float32)
    made = [tf.constant(array), tf.convert_to_tensor(array), tf.identity(array), apply_op("Identity", input=array)]
    array[0] = 99.0
    assert [t.numpy().tolist() for t in made] == [[1.0, 2.0]] * 4


def test_attr_values_the_op_def_forbids_are_the_runtimes_error_eagerly_and_valueerror_in_graphs() -> None:
    """As TF: an eager op validates its attrs as the runtime does (InvalidArgumentError naming the node and the
    OpDef), while building a graph node raises the Python wrapper's ValueError."""
    x = tf.ones([1, 4, 4, 1])
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="FULL")
    assert raised.value.message.startswith(
        "Value for attr 'padding' of \"FULL\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\""
        "\n\t; NodeDef: {{node MaxPool}}; Op<name=MaxPool; signature=input:T -> output:T;"
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="Length for attr 'ksize' of 3 must be at least minimum 4"):
        tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2], strides=[1, 1, 1, 1], padding="SAME")
    with tf.Graph().as_default(), pytest.raises(ValueError, match="passed string 'FULL' not in"):
        tf.raw_ops.MaxPool(input=tf.ones([1, 4, 4, 1]), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="FULL")
