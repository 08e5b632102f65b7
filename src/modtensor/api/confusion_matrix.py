"""``tf.math.confusion_matrix``: TF 2.21's composition (asserts on the labels, ``ScatterNd`` of weights or ones).

Labels and predictions lose a trailing size-1 dim as TF's ``remove_squeezable_dimensions`` decides (statically
when both ranks are known, else with ``tf.cond`` on the ranks), are cast to int64 and checked nonnegative
(and below ``num_classes`` when it is given); the matrix is ``scatter_nd([labels, predictions], values, [n, n])``.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, check_ops, indexing_ops, math_ops
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["confusion_matrix", "remove_squeezable_dimensions"]


def remove_squeezable_dimensions(
    labels: Any, predictions: Any, expected_rank_diff: int = 0, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Squeeze a last dim of size 1 from ``labels`` or ``predictions`` when their ranks differ by one more."""
    from modtensor.api.cond import cond

    with op_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions_shape, labels_shape = predictions.shape, labels.shape
        predictions_rank, labels_rank = predictions_shape.ndims, labels_shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1 and predictions_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and labels_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if predictions_rank is None or predictions_shape.dims[-1].is_compatible_with(1):
            squeezable = math_ops.equal(expected_rank_diff + 1, rank_diff)
            predictions = cond(squeezable, lambda: array_ops.squeeze(predictions, [-1]), lambda: predictions)
        if labels_rank is None or labels_shape.dims[-1].is_compatible_with(1):
            squeezable = math_ops.equal(expected_rank_diff - 1, rank_diff)
            labels = cond(squeezable, lambda: array_ops.squeeze(labels, [-1]), lambda: labels)
        return labels, predictions


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    weights: Any = None,
    dtype: Any = dtypes.int32,
    name: str | None = None,
) -> Tensor:
    """The ``[n, n]`` matrix counting (or summing ``weights`` of) each (label, prediction) pair."""
    with op_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"), convert_to_tensor(predictions, name="predictions")
        )
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = check_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")], labels
        )
        predictions = check_ops.with_dependencies(
            [check_ops.assert_non_negative(predictions, message="`predictions` contains negative values")], predictions
        )
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
        else:
            num_classes_int64 = math_ops.cast(num_classes, dtypes.int64)
            labels = check_ops.with_dependencies(
                [check_ops.assert_less(labels, num_classes_int64, message="`labels` out of bound")], labels
            )
            predictions = check_ops.with_dependencies(
                [check_ops.assert_less(predictions, num_classes_int64, message="`predictions` out of bound")],
                predictions,
            )
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops._ones_like_v1(predictions, dtype) if weights is None else weights  # TF's array_ops.ones_like
        return indexing_ops.scatter_nd(indices=indices, updates=values, shape=math_ops.cast(shape, dtypes.int64))
