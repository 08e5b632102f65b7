"""``tf.nn`` activations, softmax over any axis, ``bias_add``, convolutions and pooling against TF 2.21.

Golden snippets as in test_math_ops.py; ``softmax`` over a non-last axis must build
TF's transpose-compute-transpose graph node for node.
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    tensorflow_names,
)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "nn_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "nn_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_nn_module_has_tensorflows_names() -> None:
    assert set(tf.nn.__all__) <= tensorflow_names("tf.nn")
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh
    assert tf.math.softmax is tf.nn.softmax and tf.math.log_softmax is tf.nn.log_softmax


def test_dilated_depthwise_conv2d_runs_on_space_to_batch_grids_as_tf() -> None:
    # TF rewrites rate > 1 with space-to-batch ops (tf.nn.with_space_to_batch): the op sees the input cut into
    # rate x rate interleaved grids with VALID padding and no dilations of its own (the numbers: the golden cases
    # nn_depthwise_conv2d_dilated and nsmath_depthwise_conv2d_dilated*)
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 6, 6, 2])
        out = tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], "VALID", dilations=[2, 2])
        assert out.op.type == "BatchToSpaceND" and out.shape.as_list() == [1, 4, 4, 2]
        native = out.op.inputs[0].op
        assert native.type == "DepthwiseConv2dNative" and native.get_attr("dilations") == [1, 1, 1, 1]
        assert native.get_attr("padding") in (b"VALID", "VALID")
        assert native.inputs[0].op.type == "SpaceToBatchND" and native.inputs[0].shape.as_list() == [4, 3, 3, 2]


def test_softmax_rows_sum_to_one_on_every_axis() -> None:
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    for axis in (0, 1, 2, -1, -2, -3):
        total = tf.reduce_sum(tf.nn.softmax(x, axis=axis), axis=axis).numpy()
        np.testing.assert_allclose(total, np.ones_like(total), rtol=1e-6)
