"""The losses a training loop needs, with TensorFlow 2's names, graphs and errors.

``tf.nn.softmax_cross_entropy_with_logits`` and ``sparse_softmax_cross_entropy_with_logits``
reshape to the 2-D form of TF's ``SoftmaxCrossEntropyWithLogits`` /
``SparseSoftmaxCrossEntropyWithLogits`` ops (any rank, any class axis, float16/bfloat16
computed in float32) as TF's Python does; ``sigmoid_cross_entropy_with_logits`` is TF's
stable composite ``max(x, 0) - x * z + log1p(exp(-|x|))``; ``tf.nn.l2_loss`` is the
``L2Loss`` op; ``tf.math.reduce_logsumexp`` subtracts the (finite) maximum first.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, context, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "is_finite",
    "l2_loss",
    "reduce_logsumexp",
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
]

_LOW_PRECISION = (dtypes.float16, dtypes.bfloat16)


def _static_dims(tensor: Tensor) -> list[int | None] | None:
    shape = tensor.shape
    return None if shape.rank is None else shape.as_list()


def _flatten_outer_dims(tensor: Tensor) -> Tensor:
    """TF's ``_flatten_outer_dims``: ``[..., n]`` -> ``[prod(...), n]`` (static shape kept where known)."""
    rank = array_ops.rank(tensor)
    last = array_ops.slice(array_ops.shape(tensor), array_ops.reshape(math_ops.subtract(rank, 1), [1]), [1])
    output = array_ops.reshape(tensor, array_ops.concat([[-1], last], 0))
    dims = _static_dims(tensor)
    if not context.executing_eagerly() and dims is not None and all(d is not None for d in dims[:-1]):
        product = 1
        for d in dims[:-1]:
            product *= d  # type: ignore[operator]
        output.set_shape([product, dims[-1]])
    return output


def _move_dim_to_end(tensor: Tensor, axis: int, rank: Tensor) -> Tensor:
    return array_ops.transpose(
        tensor,
        array_ops.concat([math_ops.range(axis), math_ops.range(axis + 1, rank), [axis]], 0),
    )


def softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, axis: int = -1, name: str | None = None
) -> Tensor:
    """Cross entropy between ``labels`` (a distribution over ``axis``) and ``softmax(logits)``; one value per row.

    float16/bfloat16 logits are computed in float32 and the loss cast back, as TF.
    """
    with op_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        low = logits.dtype.base_dtype in _LOW_PRECISION
        precise = math_ops.cast(logits, dtypes.float32) if low else logits
        labels = math_ops.cast(labels, precise.dtype)
        rank = array_ops.rank(precise)
        static = _static_dims(logits)
        if axis != -1:
            precise = _move_dim_to_end(precise, axis, rank)
            labels = _move_dim_to_end(labels, axis, rank)
        input_shape = array_ops.shape(precise)
        precise = _flatten_outer_dims(precise)
        labels = _flatten_outer_dims(labels)
        cost = apply_op("SoftmaxCrossEntropyWithLogits", name=scope, features=precise, labels=labels)[0]
        output_shape = array_ops.slice(input_shape, [0], array_ops.reshape(math_ops.subtract(rank, 1), [1]))
        cost = array_ops.reshape(cost, output_shape)
        if not context.executing_eagerly() and static is not None:
            del static[axis]
            cost.set_shape(static)
        return math_ops.cast(cost, logits.dtype) if low else cost


def _shape_text(tensor: Tensor) -> str:
    return str(tensor.shape)


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any, name: str | None = None) -> Tensor:
    """Cross entropy of the class index ``labels`` against ``softmax(logits)`` over the last axis of ``logits``.

    ``labels`` has ``logits``' shape without its last dimension; out-of-range labels fail in the
    kernel with TF's message.
    """
    with op_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]) as scope:
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        low = logits.dtype.base_dtype in _LOW_PRECISION
        precise = math_ops.cast(logits, dtypes.float32) if low else logits
        label_dims = _static_dims(labels)
        logit_dims = _static_dims(logits)
        if logit_dims is not None and len(logit_dims) == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if logit_dims is not None and label_dims is not None and len(label_dims) != len(logit_dims) - 1:
            raise ValueError(
                f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                f"{_shape_text(labels)} of rank {len(label_dims)} and logits.shape={_shape_text(logits)} of rank "
                f"{len(logit_dims)}"
            )
        if (
            logit_dims is not None
            and label_dims is not None
            and all(d is not None for d in label_dims + logit_dims[:-1])
            and label_dims != logit_dims[:-1]
        ):
            raise ValueError(
                f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: labels.shape="
                f"{_shape_text(labels)} and logits.shape={_shape_text(logits)}"
            )
        if logit_dims is not None and len(logit_dims) == 2:
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=scope, features=precise, labels=labels)[0]
            return math_ops.cast(cost, logits.dtype) if low else cost
        labels_shape = array_ops.shape(labels)
        num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
        precise = array_ops.reshape(precise, array_ops.stack([-1, num_classes]))
        flat_labels = array_ops.reshape(labels, [-1])
        cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=scope, features=precise, labels=flat_labels)[0]
        cost = array_ops.reshape(cost, labels_shape)
        if not context.executing_eagerly() and label_dims is not None:
            cost.set_shape(label_dims)
        return math_ops.cast(cost, logits.dtype) if low else cost


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> Tensor:
    """Elementwise logistic loss ``max(x, 0) - x * z + log1p(exp(-|x|))`` (``x`` logits, ``z`` labels)."""
    with op_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(
                f"`logits` and `labels` must have the same shape, received ({logits.shape} vs {labels.shape})."
            )
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = math_ops.greater_equal(logits, zeros)
        relu_logits = array_ops.where(cond, logits, zeros)
        neg_abs_logits = array_ops.where(cond, math_ops.negative(logits), logits)
        return math_ops.add(
            math_ops.subtract(relu_logits, math_ops.multiply(logits, labels)),
            math_ops.log1p(math_ops.exp(neg_abs_logits)),
            name=scope,
        )


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """``sum(t ** 2) / 2`` (the ``L2Loss`` op)."""
    return apply_op("L2Loss", name=name, t=t)


def is_finite(x: Any, name: str | None = None) -> Tensor:
    """Elementwise: not inf and not nan (``IsFinite``)."""
    return apply_op("IsFinite", name=name, x=x)


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """``log(sum(exp(input_tensor), axis))`` computed stably: the finite maximum is taken out first, as TF."""
    with op_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        input_tensor = convert_to_tensor(input_tensor)
        raw_max = math_ops.reduce_max(input_tensor, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(
            apply_op("SelectV2", condition=is_finite(raw_max), t=raw_max, e=convert_to_tensor(0, dtype=raw_max.dtype))
        )
        result = math_ops.log(
            math_ops.reduce_sum(
                math_ops.exp(math_ops.subtract(input_tensor, my_max)), axis=axis, keepdims=keepdims
            )
        )
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return math_ops.add(result, my_max, name=scope)
