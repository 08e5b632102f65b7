"""Operators beyond the recorded TF cases: tensor-aware right operands, graph indexing with tensors, the
cached fast path agreeing with the general one, and unsupported forms failing clearly."""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework.tensor_shape import Dimension
from modtensor.runtime import eager


class Meters:
    """A value that knows how to combine with tensors from the right, as TF lets such objects do."""

    def __init__(self, value: float):
        self.value = value

    def __radd__(self, other: object) -> str:
        return f"radd({other.numpy().tolist()}, {self.value})"  # type: ignore[attr-defined]


def test_unconvertible_right_operand_gets_its_reflected_operator() -> None:
    assert tf.constant([1.0]) + Meters(2.0) == "radd([1.0], 2.0)"
    with pytest.raises(ValueError, match="unsupported type"):
        tf.constant([1.0]) - Meters(2.0)  # no __rsub__: TF's conversion error stands


_SINGLE_OP_EXPRESSIONS = ["x + y", "x - y", "x * y", "x // y", "x % y", "x ** y", "x < y", "x >= y", "-x"]


@pytest.mark.parametrize(
    ("expression", "dtype"),
    [(e, tf.float32) for e in [*_SINGLE_OP_EXPRESSIONS, "x / y"]] + [(e, tf.int64) for e in _SINGLE_OP_EXPRESSIONS],
)
def test_cached_fast_path_matches_the_general_path(expression: str, dtype: tf.DType) -> None:
    operands = {"x": tf.constant([7, -7, 3], dtype=dtype), "y": tf.constant([2, 3, 2], dtype=dtype)}
    eager.clear_kernel_cache()
    first = eval(expression, operands)  # noqa: S307 - cache miss: the general path
    second = eval(expression, operands)  # noqa: S307 - cache hit: the operator's fast path
    assert first.dtype == second.dtype
    np.testing.assert_array_equal(first.numpy(), second.numpy())


def test_graph_indexing_with_tensors_and_dimensions() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.arange(12).reshape(3, 4))
        i = tf.constant(1)
        row = x[i]
        part = x[:, Dimension(1) : Dimension(None)]
        wide = x[tf.constant(0, tf.int64) :]
    ops = {op.name: op.type for op in g.get_operations()}
    assert ops["strided_slice/stack"] == "Pack" and ops["strided_slice/stack_1"] == "Pack"
    assert ops["strided_slice"] == "StridedSlice"
    assert (row.shape.as_list(), part.shape.as_list()) == ([4], [3, 3])
    assert wide.op.inputs[1].dtype == tf.int64  # int64 indices make every index vector int64


def test_boolean_mask_indexing_is_tf_boolean_mask() -> None:
    # as TF's _slice_helper (golden cases in tests/kernels/test_bitwise.py)
    assert tf.constant([1, 2])[tf.constant([True, False])].numpy().tolist() == [1]


def test_matmul_of_python_lists_from_either_side() -> None:
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert (m @ [[1.0], [1.0]]).numpy().tolist() == [[3.0], [7.0]]
    assert ([[1.0, 1.0]] @ m).numpy().tolist() == [[4.0, 6.0]]


def test_operators_are_installed_on_the_base_class() -> None:
    for name in ("__add__", "__rtruediv__", "__matmul__", "__getitem__", "__eq__", "__invert__"):
        assert name in vars(tf.Tensor)
    with pytest.raises(ValueError, match="Overriding __len__ is disallowed"):
        tf.Tensor._override_operator("__len__", len)
