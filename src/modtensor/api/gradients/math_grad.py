"""Gradients of math ops: elementwise arithmetic, reductions, matrix products, casts.

TensorFlow's rules (``tensorflow/python/ops/math_grad.py``): broadcasting operands get
their gradient summed back to their shape; complex inputs use conjugates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, indexing_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import reduce_to, reduced_shape, skipped, static_dims
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

for _op in (
    "Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "Less", "LessEqual", "Greater", "GreaterEqual",
    "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "Floor", "Ceil", "Round",
    "Sign", "FloorDiv", "IsFinite", "BroadcastGradientArgs",
):  # fmt: skip
    no_gradient(_op)


def _conj(x: Any) -> Any:
    return apply_op("Conj", input=x) if x.dtype.is_complex else x


@RegisterGradient("AddN")
def _add_n_grad(op: Any, grad: Any) -> list[Any]:
    return [grad] * len(op.inputs)


@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    return [None if skipped(op, 0) else reduce_to(grad, x), None if skipped(op, 1) else reduce_to(grad, y)]


@RegisterGradient("Sub")
def _sub_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    gy = None if skipped(op, 1) else reduce_to(math_ops.negative(grad), y)
    return [None if skipped(op, 0) else reduce_to(grad, x), gy]


@RegisterGradient("Mul")
def _mul_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    gx = None if skipped(op, 0) else reduce_to(math_ops.multiply(grad, _conj(y)), x)
    gy = None if skipped(op, 1) else reduce_to(math_ops.multiply(_conj(x), grad), y)
    return [gx, gy]


@RegisterGradient("RealDiv")
def _real_div_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    x, y = _conj(x), _conj(y)
    gx = None if skipped(op, 0) else reduce_to(math_ops.realdiv(grad, y), x)
    gy = None
    if not skipped(op, 1):
        gy = reduce_to(math_ops.multiply(grad, math_ops.realdiv(math_ops.realdiv(math_ops.negative(x), y), y)), y)
    return [gx, gy]


@RegisterGradient("Neg")
def _neg_grad(op: Any, grad: Any) -> Any:
    return math_ops.negative(grad)


@RegisterGradient("Square")
def _square_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    return math_ops.multiply(grad, math_ops.multiply(array_ops.constant(2, dtype=x.dtype), _conj(x)))


@RegisterGradient("Exp")
def _exp_grad(op: Any, grad: Any) -> Any:
    return math_ops.multiply(grad, _conj(op.outputs[0]))


@RegisterGradient("Log")
def _log_grad(op: Any, grad: Any) -> Any:
    return math_ops.multiply(grad, math_ops.reciprocal(_conj(op.inputs[0])))


@RegisterGradient("Sum")
def _sum_grad(op: Any, grad: Any) -> list[Any]:
    x = op.inputs[0]
    input_shape = array_ops.shape(x)
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(input_shape, op.inputs[1])
        grad = array_ops.reshape(grad, kept)
    return [indexing_ops.broadcast_to(grad, input_shape), None]


@RegisterGradient("Mean")
def _mean_grad(op: Any, grad: Any) -> list[Any]:
    sum_grad = _sum_grad(op, grad)[0]
    x, y = op.inputs[0], op.outputs[0]
    in_dims, out_dims = static_dims(x), static_dims(y)
    if in_dims is not None and out_dims is not None:
        factor = max(int(np.prod(in_dims, dtype=np.int64)) // max(int(np.prod(out_dims, dtype=np.int64)), 1), 1)
        factor_t = array_ops.constant(factor, dtype=sum_grad.dtype)
    else:
        in_size = array_ops.size(x, out_type=dtypes.int32)
        out_size = array_ops.size(y, out_type=dtypes.int32)
        factor_t = math_ops.cast(
            math_ops.maximum(math_ops.floordiv(in_size, math_ops.maximum(out_size, 1)), 1), sum_grad.dtype
        )
    return [math_ops.truediv(sum_grad, factor_t), None]


@RegisterGradient("MatMul")
def _matmul_grad(op: Any, grad: Any) -> list[Any]:
    a, b = op.inputs
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = _conj(a), _conj(b)
    mm = math_ops.matmul
    if not t_a and not t_b:
        ga = None if skipped(op, 0) else mm(grad, b, transpose_b=True)
        gb = None if skipped(op, 1) else mm(a, grad, transpose_a=True)
    elif not t_a and t_b:
        ga = None if skipped(op, 0) else mm(grad, b)
        gb = None if skipped(op, 1) else mm(grad, a, transpose_a=True)
    elif t_a and not t_b:
        ga = None if skipped(op, 0) else mm(b, grad, transpose_b=True)
        gb = None if skipped(op, 1) else mm(a, grad)
    else:
        ga = None if skipped(op, 0) else mm(b, grad, transpose_a=True, transpose_b=True)
        gb = None if skipped(op, 1) else mm(grad, a, transpose_a=True, transpose_b=True)
    return [ga, gb]


@RegisterGradient("Cast")
def _cast_grad(op: Any, grad: Any) -> Any:
    src = op.inputs[0].dtype.base_dtype
    dst = grad.dtype.base_dtype
    if (src.is_floating or src.is_complex) and (dst.is_floating or dst.is_complex):
        return math_ops.cast(grad, src)
    return None


@RegisterGradient("Tanh")
def _tanh_grad(op: Any, grad: Any) -> Any:
    y = op.outputs[0]
    return math_ops.multiply(grad, math_ops.subtract(array_ops.ones_like(y), math_ops.square(y)))


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op: Any, grad: Any) -> Any:
    y = op.outputs[0]
    return math_ops.multiply(grad, math_ops.multiply(y, math_ops.subtract(array_ops.ones_like(y), y)))
