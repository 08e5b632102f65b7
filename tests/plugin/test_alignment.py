"""Every host buffer a plugin gets is on TensorFlow's 64-byte alignment (TF_TensorIsAligned).

Plugins built with Eigen or oneDNN check it (and may abort). tests/plugin/csrc/aligned.c counts
unaligned buffers among its input, its tensor attr, its output and a temporary; the input comes
from every kind of producer: a user's numpy array, a Session feed, a Const, a Python kernel's
output, an eager tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.plugin import load_op_library
from modtensor.runtime.allocator import ALIGNMENT, CPUAllocator, aligned_copy, aligned_empty, is_aligned

from .support import node, run


@pytest.fixture(scope="module")
def ops(build_plugin):
    return load_op_library(build_plugin("aligned"))


def unaligned_array() -> np.ndarray:
    raw = np.zeros(4 * 65 + ALIGNMENT + 4, np.uint8)
    start = (-raw.__array_interface__["data"][0] % ALIGNMENT) + 4
    return raw[start : start + 4 * 65].view(np.float32)


def test_runtime_allocations_are_aligned():
    for shape, dtype in (((), np.float32), ((3,), np.int8), ((1000, 3), np.float64), ((0,), np.float32)):
        assert is_aligned(aligned_empty(shape, dtype)) and is_aligned(CPUAllocator().allocate(shape, dtype))
    a = unaligned_array()
    assert not is_aligned(a)
    b = aligned_copy(a)
    assert is_aligned(b) and b is not a and np.array_equal(a, b)
    assert aligned_copy(b) is b


def _tensor_proto():
    from modtensor.framework import tensor_proto

    return tensor_proto.make_tensor_proto(np.arange(3, dtype=np.float32))


def test_a_users_unaligned_array_reaches_the_plugin_aligned(ops):
    nd = node("MtAlignCheck", ["x"], T=(tf.float32, "type"), value=(_tensor_proto(), "tensor"))
    assert run(nd, [unaligned_array()])[0] == 0


def test_feeds_consts_python_kernel_outputs_and_eager_tensors_reach_it_aligned(ops):
    value = _tensor_proto()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [65], name="x")
        checks = [
            ops.mt_align_check(x, value),  # a feed
            ops.mt_align_check(tf.constant(np.arange(65, dtype=np.float32)), value),  # a Const
            ops.mt_align_check(x * 2.0 + 1.0, value),  # a Python kernel's output
        ]
    with tf.compat.v1.Session(graph=graph) as sess:
        assert sess.run(checks, {x: unaligned_array()}) == [0, 0, 0]
    assert int(ops.mt_align_check(tf.constant(unaligned_array()) * 3.0, value)) == 0  # eager
    assert int(tf.function(lambda t: ops.mt_align_check(t + 1.0, value))(tf.constant(unaligned_array()))) == 0
