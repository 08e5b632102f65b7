"""TensorList kernels beyond the golden programs: copy-on-write, the DEFAULT kernels on a device whose values are
not numpy, batched list ops, and list tensors in graphs (handle data, v1 Session).

The values and error texts of every op, eager and in functions, are TensorFlow's: tests/api/test_list_ops_golden.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import list_ops
from modtensor.framework import dtypes
from modtensor.runtime import device_factory
from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.kernel_registry import global_kernel_registry
from modtensor.runtime.op_kernel import OpKernelConstruction, OpKernelContext, create_kernel
from modtensor.runtime.tensor_list import TensorList, list_value

from .support import make_node, op_def


def cpu() -> Device:
    return device_factory.get_device("/CPU:0")


def run_cpu(node, inputs):
    kernel = create_kernel(node, op_def(node.op), cpu())
    ctx = OpKernelContext(kernel, inputs)
    return kernel.run(ctx)


def f32(*values):
    return np.array(values, dtype=np.float32)


# ------------------------------------------------------------------------------ copy-on-write


def test_push_back_changes_an_unshared_list_in_place():
    node = make_node("TensorListPushBack", element_dtype=dtypes.float32)
    tensor_list = TensorList(dtypes.float32, (2,), [f32(1, 2)])
    inputs = [list_value(tensor_list), f32(3, 4)]
    del tensor_list
    (out,) = run_cpu(node, inputs)
    assert out is inputs[0]  # forwarded: nothing else could see the input list
    assert len(out[()].tensors) == 2


def test_push_back_copies_a_shared_list():
    node = make_node("TensorListPushBack", element_dtype=dtypes.float32)
    held = list_value(TensorList(dtypes.float32, (2,), [f32(1, 2)]))
    (out,) = run_cpu(node, [held, f32(3, 4)])
    assert out is not held
    assert len(held[()].tensors) == 1  # the input list is unchanged
    assert [t.tolist() for t in out[()].tensors] == [[1, 2], [3, 4]]


def test_set_item_copies_when_the_list_object_is_shared():
    node = make_node("TensorListSetItem", element_dtype=dtypes.float32)
    shared = TensorList(dtypes.float32, (), [None, None])
    (out,) = run_cpu(node, [list_value(shared), np.array(0, np.int32), np.array(5.0, np.float32)])
    assert shared.tensors == [None, None]
    assert out[()].tensors[0] == 5.0


def test_popped_and_read_elements_are_not_written_in_place_by_later_kernels():
    element = f32(1, 2)
    tensor_list = TensorList(dtypes.float32, (2,), [element])
    node = make_node("TensorListGetItem", element_dtype=dtypes.float32)
    (item,) = run_cpu(node, [list_value(tensor_list), np.array(0, np.int32), np.array(-1, np.int32)])
    assert item is element
    relu = create_kernel(make_node("Relu", T=dtypes.float32), op_def("Relu"), cpu())
    ctx = OpKernelContext(relu, [item])
    del item
    relu.run(ctx)
    assert ctx.outputs[0] is not element  # the list still holds the element: no forwarding
    assert element.tolist() == [1, 2]


# ------------------------------------------------------------------------------ batched ops


def test_get_item_direct_call_equals_the_kernel_with_a_context():
    """A host executor calls TensorListGetItem without a context (the read changes nothing): same element, same
    zeros for an element never set, same errors."""
    node = make_node("TensorListGetItem", element_dtype=dtypes.float32)
    kernel = create_kernel(node, op_def("TensorListGetItem"), cpu())
    call = kernel.prepared_call()
    stored = f32(1, 2)
    handle = list_value(TensorList(dtypes.float32, (2,), [stored, None]))
    shape = np.int32([-1])
    via_context = kernel.run(OpKernelContext(kernel, [handle, np.int32(0), shape]))[0]
    assert call(handle, np.int32(0), shape) is stored is via_context
    np.testing.assert_array_equal(call(handle, np.int32(1), shape), [0, 0])
    np.testing.assert_array_equal(kernel.run(OpKernelContext(kernel, [handle, np.int32(1), shape]))[0], [0, 0])
    for bad in (np.int32(2), np.int32(-1)):
        with pytest.raises(tf.errors.InvalidArgumentError) as direct:
            call(handle, bad, shape)
        with pytest.raises(tf.errors.InvalidArgumentError) as context:
            kernel.run(OpKernelContext(kernel, [handle, bad, shape]))
        assert direct.value.message == context.value.message
    wrong = list_value(TensorList(dtypes.int32, (2,), [np.int32([1, 2])]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid data types"):
        call(wrong, np.int32(0), shape)


def test_push_back_batch_and_concat_lists_on_vectors_of_lists():
    a = TensorList(dtypes.int32, (), [np.array(1, np.int32)])
    b = TensorList(dtypes.int32, (), [])
    handles = np.empty((2,), dtype=object)
    handles[0], handles[1] = a, b
    (pushed,) = run_cpu(
        make_node("TensorListPushBackBatch", element_dtype=dtypes.int32), [handles, np.array([7, 8], np.int32)]
    )
    assert [[int(t) for t in tl.tensors] for tl in pushed] == [[1, 7], [8]]
    assert len(a.tensors) == 1 and len(b.tensors) == 0
    (joined,) = run_cpu(make_node("TensorListConcatLists", element_dtype=dtypes.int32), [pushed, handles])
    assert [[int(t) for t in tl.tensors] for tl in joined] == [[1, 7, 1], [8]]


def test_push_back_batch_rejects_a_batch_size_mismatch():
    handles = np.empty((2,), dtype=object)
    handles[0] = handles[1] = TensorList(dtypes.int32, None, [])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"Expected tensor.shape\[0\] == input_handles.size, but saw 3 vs. 2"
    ):
        run_cpu(make_node("TensorListPushBackBatch", element_dtype=dtypes.int32), [handles, np.zeros(3, np.int32)])


# ------------------------------------------------------------------------------ DEFAULT kernels on a device


class Buffer:
    """A device value that is not a numpy array."""

    def __init__(self, array: np.ndarray):
        self.array, self.shape, self.dtype = array, array.shape, array.dtype


class BufferDevice(Device):
    is_host = False

    def to_host(self, value: Buffer) -> np.ndarray:
        return value.array

    def from_host(self, array: np.ndarray) -> Buffer:
        return Buffer(np.array(array))


@pytest.fixture
def device() -> Device:
    return BufferDevice(
        DeviceAttributes("/job:localhost/replica:0/task:0/device:BUF:0", "BUF", 1 << 20), CPUAllocator()
    )


def run_default(node, device, inputs):
    """The node's "DEFAULT" kernel (what serves a device type without kernels of its own) run on ``device``."""
    registration = global_kernel_registry().find_kernel(node, op_def(node.op), "DEFAULT")
    kernel = registration.factory(OpKernelConstruction(node, op_def(node.op), device, registration))
    return kernel, kernel.run(OpKernelContext(kernel, inputs, device=device))


def test_default_kernels_keep_elements_on_the_device_and_lists_in_host_memory(device):
    from_tensor = make_node("TensorListFromTensor", element_dtype=dtypes.float32, shape_type=dtypes.int32)
    kernel, (handle,) = run_default(
        from_tensor, device, [Buffer(f32(1, 2, 3, 4).reshape(2, 2)), np.array([2], np.int32)]
    )
    assert kernel.input_host_memory == (False, True) and kernel.output_host_memory == (True,)
    assert isinstance(handle, np.ndarray) and handle.dtype == object
    assert all(isinstance(t, Buffer) for t in handle[()].tensors)

    get = make_node("TensorListGetItem", element_dtype=dtypes.float32)
    kernel, (item,) = run_default(get, device, [handle, np.array(1, np.int32), np.array(-1, np.int32)])
    assert kernel.input_host_memory == (True, True, True) and kernel.output_host_memory == (False,)
    assert isinstance(item, Buffer) and item.array.tolist() == [3, 4]

    stack = make_node("TensorListStack", element_dtype=dtypes.float32)
    _, (stacked,) = run_default(stack, device, [handle, np.array(-1, np.int32)])
    assert isinstance(stacked, Buffer) and stacked.array.tolist() == [[1, 2], [3, 4]]

    reserve = make_node("TensorListReserve", element_dtype=dtypes.float32, shape_type=dtypes.int32)
    _, (empty,) = run_default(reserve, device, [np.array([3], np.int32), np.array(2, np.int32)])
    _, (zeros,) = run_default(get, device, [empty, np.array(0, np.int32), np.array(-1, np.int32)])
    assert isinstance(zeros, Buffer) and zeros.array.tolist() == [0, 0, 0]

    length = make_node("TensorListLength")
    kernel, (n,) = run_default(length, device, [handle])
    assert kernel.output_host_memory == (True,) and int(n) == 2


# ------------------------------------------------------------------------------ graphs


def test_handle_data_gives_reads_their_static_element_shape():
    g = tf.Graph()
    with g.as_default():
        handle = list_ops.tensor_list_reserve([None, 3], 4, tf.float32)
        handle = list_ops.tensor_list_set_item(handle, 0, tf.compat.v1.placeholder(tf.float32, [2, 3]))
        handle = tf.identity(handle)
        item = list_ops.tensor_list_get_item(handle, 1, tf.float32)
        stacked = list_ops.tensor_list_stack(handle, tf.float32, num_elements=4)
        shape = list_ops.tensor_list_element_shape(handle, tf.int32)
    assert item.shape.as_list() == [None, 3]
    assert stacked.shape.as_list() == [4, None, 3]
    assert shape.shape.as_list() == [2]
    assert handle._handle_data[0][0].as_list() == [None, 3] and handle._handle_data[0][1] == tf.float32
    with pytest.raises(
        ValueError, match="Expected list with element dtype int32 but got list with element dtype float"
    ), g.as_default():
        list_ops.tensor_list_get_item(handle, 0, tf.int32)


def test_list_program_runs_in_a_v1_session():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        handle = list_ops.tensor_list_from_tensor(x, [2])
        handle = list_ops.tensor_list_push_back(handle, tf.constant([9.0, 9.0]))
        handle, last = list_ops.tensor_list_pop_back(handle, tf.float32)
        out = list_ops.tensor_list_stack(handle, tf.float32)
        n = list_ops.tensor_list_length(handle)
    with tf.compat.v1.Session(graph=g) as sess:
        got_out, got_last, got_n = sess.run([out, last, n], {x: [[1, 2], [3, 4]]})
    assert got_out.tolist() == [[1, 2], [3, 4]]
    assert got_last.tolist() == [9, 9]
    assert got_n == 2


def test_eager_list_tensor_prints_as_tensorflow_does():
    handle = list_ops.tensor_list_reserve([2], 3, tf.float32)
    assert handle.dtype == tf.variant and handle.shape.as_list() == []
    assert repr(handle) == "<tf.Tensor: shape=(), dtype=variant, value=<TensorList>>"
    assert str(handle) == "tf.Tensor(<TensorList>, shape=(), dtype=variant)"


def test_a_list_captured_by_a_function_keeps_its_handle_data():
    from modtensor.framework.func_graph import FuncGraph

    outer = tf.Graph()
    with outer.as_default():
        handle = list_ops.tensor_list_reserve([None, 3], 2, tf.float32)
    inner = FuncGraph("f", outer_graph=outer)
    with inner.as_default():
        captured = inner.capture(handle)
        item = list_ops.tensor_list_get_item(captured, 0, tf.float32)
    assert item.shape.as_list() == [None, 3]
