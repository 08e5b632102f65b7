"""``tf.add``, ``tf.matmul``, ``tf.reduce_sum``, ``tf.cast``, ``tf.range``, ... and ``modtensor.math`` against TF 2.21.

Each golden case (tests/golden/frontend_ops, from tools/make_golden_frontend_ops.py) is a
TF snippet run with ``modtensor`` as ``tf``: in a graph it must build TF's nodes (names,
ops, inputs, attrs, constants) and static shapes or raise TF's error; eagerly it must
compute TF's values or raise TF's error class and message.
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import math_ops

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    tensorflow_names,
)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "math_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "math_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_top_level_names_are_tensorflows_and_exported() -> None:
    assert set(math_ops.__all__) <= tensorflow_names("tf")
    for name in math_ops.__all__:
        assert getattr(tf, name) is getattr(math_ops, name), name


def test_math_module_has_tensorflows_names_and_aliases() -> None:
    assert set(tf.math.__all__) <= tensorflow_names("tf.math")
    for name in set(tf.math.__all__) & set(math_ops.__all__):
        assert getattr(tf.math, name) is getattr(tf, name), name
    assert tf.math.mod is tf.math.floormod


def test_cast_to_the_same_dtype_returns_the_tensor() -> None:
    x = tf.constant([1.5])
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(x, "float32") is x


def test_divide_python_scalar_by_int_tensor_is_float64() -> None:
    result = tf.divide(7, tf.constant([2], tf.int64))
    assert result.dtype == tf.float64 and result.numpy().tolist() == [3.5]


def test_reduce_over_all_axes_of_unknown_shape_is_a_scalar_in_graphs() -> None:
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, None)
        assert tf.reduce_mean(x).shape.as_list() == []
        assert tf.reduce_mean(x, keepdims=True).shape.rank is None


def test_matmul_of_numpy_arrays_runs_eagerly() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(tf.matmul(a, a, transpose_b=True).numpy(), a @ a.T)
