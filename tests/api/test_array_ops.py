"""``tf.reshape``, ``tf.concat``, ``tf.stack``, ``tf.zeros``, ``tf.gather``, ``tf.where``, ... against TF 2.21.

Golden snippets as in test_math_ops.py: TF's graph (including its graph-mode shortcuts:
static ``tf.shape`` is a ``Const``, small ``tf.zeros`` one ``Const``, lists holding tensors
packed) and TF's eager values and errors.
"""

from __future__ import annotations

import pytest

import modtensor as tf
from modtensor.api import array_ops

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    tensorflow_names,
)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "array_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "array_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_top_level_names_are_tensorflows_and_exported() -> None:
    assert set(array_ops.__all__) <= tensorflow_names("tf")
    for name in array_ops.__all__:
        assert getattr(tf, name) is getattr(array_ops, name), name


def test_unstack_returns_a_list_of_tensors() -> None:
    parts = tf.unstack(tf.constant([[1, 2], [3, 4]]), axis=1)
    assert isinstance(parts, list) and [p.numpy().tolist() for p in parts] == [[1, 3], [2, 4]]


def test_shape_of_a_partially_known_tensor_is_computed_at_run_time() -> None:
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        shape = tf.shape(x)
        assert shape.op.type == "Shape"
        with tf.compat.v1.Session() as sess:
            assert sess.run(shape, {x: [[1, 2, 3]] * 4}).tolist() == [4, 3]


def test_zeros_like_keeps_dtype_and_shape_eagerly() -> None:
    z = tf.zeros_like(tf.constant([[True, False]]))
    assert z.dtype == tf.bool and z.numpy().tolist() == [[False, False]]
