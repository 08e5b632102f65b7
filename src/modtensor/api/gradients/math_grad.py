"""Gradients of math ops: elementwise arithmetic, reductions, scans, segment reductions, matrix products, casts.

TensorFlow 2.21's rules (``tensorflow/python/ops/math_grad.py``; Einsum's from ``linalg_grad.py``,
ClipByValue's from ``clip_ops.py``, the bitwise ops' declarations from ``bitwise_ops.py``): the
same formulas built from the same ops in the same order, so float32 results round as TF's do.

- Broadcasting binary ops sum each operand's gradient back to its shape (``reduce_to``: in Python
  when the shapes are static, else with ``BroadcastGradientArgs``).
- Complex inputs use conjugates (``Conj``), as TF's rules do; the complex-number and FFT ops' own
  gradients are in ``spectral_grad.py``.
- Inputs no tape watches (``skip_input_indices``) get no gradient computed, as TF skips them.
- Where TF's gradient uses a backward op (SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad,
  ReciprocalGrad: ``ops/math_grad_ops.py``), so does this, and those ops have gradients too.
- ``Digamma`` has no gradient here: TF's is ``Polygamma(1, x)``, and modtensor has neither Polygamma nor Zeta.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, indexing_ops, math_ops, segment_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import reduce_to, reduced_shape, static_dims
from modtensor.api.indexed_slices import IndexedSlices
from modtensor.api.op_scope import constant_value
from modtensor.framework import common_shapes, dtypes
from modtensor.framework import graph as graph_lib
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient
from modtensor.runtime import context as runtime_context

# Comparisons, logic, integer and bit ops, shapes: no gradient (TF's NotDifferentiable declarations).
# IsFinite, All and Any are not declared by TF (they only have bool outputs), so they are not here.
for _op in (
    "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Range", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift",
    "Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "BroadcastGradientArgs", "LinSpace",
):  # fmt: skip
    no_gradient(_op)

_graph_stack = graph_lib._default_graph_stack
_EAGER_SCALARS: dict[tuple[float, dtypes.DType], Any] = {}
# The dtypes Cast passes a gradient between (TF's list: no float8, no integers).
_CAST_DIFFERENTIABLE = frozenset(
    [dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16, dtypes.complex64, dtypes.complex128]
)


# --------------------------------------------------------------------------- helpers


def _skips(op: Any) -> tuple[int, ...]:
    """The inputs whose gradient nobody needs (eager ops no tape watches); () for graph ops."""
    return getattr(op, "skip_input_indices", None) or ()


def _is_scalar(t: Any) -> bool:
    return t.shape.rank == 0


def _executing_eagerly() -> bool:
    return runtime_context._eager_enabled and not _graph_stack()


def _scalar(value: float, dtype: Any) -> Any:
    """A scalar constant of ``dtype``; eagerly one cached tensor per value and dtype (the hot path)."""
    dtype = dtype.base_dtype
    if _executing_eagerly():
        key = (value, dtype)
        t = _EAGER_SCALARS.get(key)
        if t is None:
            t = array_ops.constant(value, dtype=dtype)
            if len(_EAGER_SCALARS) < 1024:  # a few constants per dtype, plus Mean's sizes
                _EAGER_SCALARS[key] = t
        return t
    return array_ops.constant(value, dtype=dtype)


def _conj(x: Any) -> Any:
    return apply_op("Conj", input=x) if x.dtype.is_complex else x


def _mul(x: Any, y: Any) -> Any:
    return apply_op("Mul", x=x, y=y)


def _div(x: Any, y: Any) -> Any:
    return apply_op("RealDiv", x=x, y=y)


def _neg(x: Any) -> Any:
    """``-x``; an IndexedSlices gradient stays one (its values negated), as TF's."""
    if isinstance(x, IndexedSlices):
        return -x
    return apply_op("Neg", x=x)


def _sum_of_sparse_grad(grad: Any, x: Any) -> Any:
    """An Add/Sub gradient for operand ``x``: TF sums it to x's shape eagerly (an IndexedSlices turns dense);
    in graphs with x's static shape equal to grad's, an IndexedSlices passes unchanged."""
    if isinstance(grad, IndexedSlices) and _executing_eagerly():
        grad = grad.to_dense()
    return reduce_to(grad, x)


def _select(c: Any, t: Any, e: Any) -> Any:
    return apply_op("Select", condition=c, t=t, e=e)


def _select_v2(c: Any, t: Any, e: Any) -> Any:
    return apply_op("SelectV2", condition=c, t=t, e=e)


def _reshape(x: Any, shape: Any) -> Any:
    return apply_op("Reshape", tensor=x, shape=shape)


def _shape(x: Any) -> Any:
    """x's shape: a Python list when static, else a ``Shape`` tensor."""
    dims = static_dims(x)
    if dims is not None:
        return dims
    return array_ops.shape(x)


def _reduce_sum(x: Any, axes: Any, keepdims: bool = False) -> Any:
    return math_ops.reduce_sum(x, axes, keepdims=keepdims)


def _cast(x: Any, dtype: Any) -> Any:
    return math_ops.cast(x, dtype)


def _zeros_like(x: Any) -> Any:
    return array_ops.zeros_like(x)


def _ones_like(x: Any) -> Any:
    return array_ops.ones_like(x)


def _gather(params: Any, indices: Any) -> Any:
    return array_ops.gather(params, indices)


def _kept_dims(dims: list[int], axes: np.ndarray) -> list[int]:
    """``dims`` with the reduced ``axes`` set to 1 (a reduction's output shape with kept dims)."""
    kept = list(dims)
    rank = len(dims)
    for a in np.asarray(axes).reshape(-1):
        kept[int(a) % rank if rank else 0] = 1
    return kept


def _grad_with_kept_dims(op: Any, grad: Any) -> tuple[Any, Any, Any]:
    """A reduction's input shape, its output shape with kept dims, and ``grad`` reshaped to the latter.

    Python lists when the input shape and the axes are static, else tensors.
    """
    x, axes = op.inputs[0], op.inputs[1]
    dims = static_dims(x)
    axes_value = constant_value(axes) if dims is not None else None
    if dims is not None and axes_value is not None:
        kept = _kept_dims(dims, axes_value)
        if static_dims(grad) != kept:
            grad = _reshape(grad, kept)
        return dims, kept, grad
    input_shape = array_ops.shape(x)
    kept = reduced_shape(input_shape, axes)
    return input_shape, kept, _reshape(grad, kept)


def _broadcast_to(x: Any, shape: Any) -> Any:
    if isinstance(shape, list) and static_dims(x) == shape:
        return x
    return apply_op("BroadcastTo", input=x, shape=shape)


# --------------------------------------------------------------------------- no gradient (registered as TF does)


@RegisterGradient("ArgMax")
@RegisterGradient("ArgMin")
@RegisterGradient("FloorDiv")
def _none_for_two_inputs(op: Any, grad: Any) -> list[Any]:
    return [None, None]


@RegisterGradient("Floor")
@RegisterGradient("Ceil")
@RegisterGradient("Round")
def _none_for_one_input(op: Any, grad: Any) -> list[Any]:
    return [None]


@RegisterGradient("Sign")
def _sign_grad(op: Any, grad: Any) -> Any:
    """Zeros (not None: TF's Sign is connected, with a zero gradient)."""
    return _zeros_like(op.inputs[0])


# --------------------------------------------------------------------------- unary


@RegisterGradient("Neg")
def _neg_grad(op: Any, grad: Any) -> Any:
    return _neg(grad)


@RegisterGradient("Abs")
def _abs_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Sign", x=op.inputs[0]))


@RegisterGradient("Square")
def _square_grad(op: Any, grad: Any) -> Any:
    x = _conj(op.inputs[0])
    return _mul(grad, _mul(x, _scalar(2.0, x.dtype)))


@RegisterGradient("Sqrt")
def _sqrt_grad(op: Any, grad: Any) -> Any:
    return apply_op("SqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op: Any, grad: Any) -> list[Any]:
    # z = 0.5 * b / conj(a): dz/da = -conj(grad / a) * z, dz/db = 0.5 * grad / a.
    a, z = op.inputs[0], op.outputs[0]
    ga = _div(grad, a)
    return [_mul(_neg(_conj(ga)), z), _mul(_scalar(0.5, ga.dtype), ga)]


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op: Any, grad: Any) -> Any:
    return apply_op("RsqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op: Any, grad: Any) -> list[Any]:
    # z = -0.5 * b * conj(a)^3.
    a, b = op.inputs
    ca, cg = _conj(a), _conj(grad)
    grad_a = _mul(_mul(_mul(_scalar(-1.5, cg.dtype), cg), b), apply_op("Square", x=ca))
    return [grad_a, apply_op("RsqrtGrad", y=ca, dy=grad)]


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op: Any, grad: Any) -> Any:
    return apply_op("ReciprocalGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("ReciprocalGrad")
def _reciprocal_grad_grad(op: Any, grad: Any) -> list[Any]:
    # z = -b * conj(a)^2.
    a, b = op.inputs
    ca, cg = _conj(a), _conj(grad)
    grad_a = _mul(_mul(_mul(cg, _scalar(-2.0, cg.dtype)), b), ca)
    return [grad_a, apply_op("ReciprocalGrad", y=ca, dy=grad)]


@RegisterGradient("Exp")
def _exp_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, _conj(op.outputs[0]))


@RegisterGradient("Expm1")
def _expm1_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Exp", x=_conj(op.inputs[0])))


@RegisterGradient("Log")
def _log_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Reciprocal", x=_conj(op.inputs[0])))


@RegisterGradient("Log1p")
def _log1p_grad(op: Any, grad: Any) -> Any:
    x = _conj(op.inputs[0])
    return _mul(grad, apply_op("Reciprocal", x=apply_op("AddV2", x=_scalar(1.0, x.dtype), y=x)))


@RegisterGradient("Tanh")
def _tanh_grad(op: Any, grad: Any) -> Any:
    return apply_op("TanhGrad", y=_conj(op.outputs[0]), dy=grad)


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op: Any, grad: Any) -> list[Any]:
    # z = b * (1 - a^2).
    a, b = _conj(op.inputs[0]), _conj(op.inputs[1])
    grad_a = _mul(_mul(_mul(grad, _scalar(-2.0, grad.dtype)), b), a)
    return [grad_a, apply_op("TanhGrad", y=a, dy=grad)]


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op: Any, grad: Any) -> Any:
    return apply_op("SigmoidGrad", y=_conj(op.outputs[0]), dy=grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op: Any, grad: Any) -> list[Any]:
    # z = b * a * (1 - a).
    a, b = _conj(op.inputs[0]), _conj(op.inputs[1])
    gb = _mul(grad, b)
    grad_a = apply_op("Sub", x=gb, y=_mul(_mul(_scalar(2.0, gb.dtype), gb), a))
    return [grad_a, apply_op("SigmoidGrad", y=a, dy=grad)]


def _erf_like_grad(op: Any, grad: Any, scale: float) -> Any:
    x = _conj(op.inputs[0])
    gaussian = apply_op("Exp", x=_neg(apply_op("Square", x=x)))
    return _mul(_mul(grad, _scalar(scale, grad.dtype)), gaussian)


@RegisterGradient("Erf")
def _erf_grad(op: Any, grad: Any) -> Any:
    return _erf_like_grad(op, grad, 2 / np.sqrt(np.pi))


@RegisterGradient("Erfc")
def _erfc_grad(op: Any, grad: Any) -> Any:
    return _erf_like_grad(op, grad, -2 / np.sqrt(np.pi))


@RegisterGradient("Sin")
def _sin_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Cos", x=_conj(op.inputs[0])))


@RegisterGradient("Cos")
def _cos_grad(op: Any, grad: Any) -> Any:
    return _mul(_neg(grad), apply_op("Sin", x=_conj(op.inputs[0])))


def _one_over(x: Any) -> Any:
    return apply_op("Reciprocal", x=x)


def _one_minus_square(x: Any) -> Any:
    return apply_op("Sub", x=_scalar(1.0, x.dtype), y=apply_op("Square", x=x))


@RegisterGradient("Tan")
def _tan_grad(op: Any, grad: Any) -> Any:
    secant = _one_over(apply_op("Cos", x=_conj(op.inputs[0])))
    return _mul(apply_op("Square", x=secant), grad)


@RegisterGradient("Asin")
def _asin_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, _one_over(apply_op("Sqrt", x=_one_minus_square(_conj(op.inputs[0])))))


@RegisterGradient("Acos")
def _acos_grad(op: Any, grad: Any) -> Any:
    return _mul(_neg(grad), _one_over(apply_op("Sqrt", x=_one_minus_square(_conj(op.inputs[0])))))


@RegisterGradient("Atan")
def _atan_grad(op: Any, grad: Any) -> Any:
    x = _conj(op.inputs[0])
    return _mul(grad, _one_over(apply_op("AddV2", x=_scalar(1.0, x.dtype), y=apply_op("Square", x=x))))


@RegisterGradient("Sinh")
def _sinh_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Cosh", x=_conj(op.inputs[0])))


@RegisterGradient("Cosh")
def _cosh_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Sinh", x=_conj(op.inputs[0])))


@RegisterGradient("Asinh")
def _asinh_grad(op: Any, grad: Any) -> Any:
    return _div(grad, apply_op("Cosh", x=_conj(op.outputs[0])))


@RegisterGradient("Acosh")
def _acosh_grad(op: Any, grad: Any) -> Any:
    return _div(grad, apply_op("Sinh", x=_conj(op.outputs[0])))


@RegisterGradient("Atanh")
def _atanh_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, _one_over(_one_minus_square(_conj(op.inputs[0]))))


@RegisterGradient("Atan2")
def _atan2_grad(op: Any, grad: Any) -> list[Any]:
    y, x = op.inputs  # d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    scaled = _div(grad, apply_op("AddV2", x=apply_op("Square", x=y), y=apply_op("Square", x=x)))
    return [reduce_to(_mul(x, scaled), y), reduce_to(_mul(_neg(y), scaled), x)]


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    return [reduce_to(apply_op("MulNoNan", x=grad, y=y), x), reduce_to(apply_op("MulNoNan", x=x, y=grad), y)]


@RegisterGradient("NextAfter")
def _next_after_grad(op: Any, grad: Any) -> list[Any]:
    x1, x2 = op.inputs  # the step is locally constant: slope 1 in x1, 0 in x2
    return [reduce_to(grad, x1), reduce_to(_mul(grad, array_ops.zeros_like(x2)), x2)]


no_gradient("TruncateDiv")
no_gradient("Rint")


@RegisterGradient("Cast")
def _cast_grad(op: Any, grad: Any) -> Any:
    src = op.inputs[0].dtype.base_dtype
    if src not in _CAST_DIFFERENTIABLE or grad.dtype.base_dtype not in _CAST_DIFFERENTIABLE:
        return None
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(_cast(grad.values, src), grad.indices, grad.dense_shape)
    return _cast(grad, src)


# --------------------------------------------------------------------------- binary, broadcasting


@RegisterGradient("AddN")
def _add_n_grad(op: Any, grad: Any) -> list[Any]:
    return [grad] * len(op.inputs)


@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    if 1 in skip and _is_scalar(y):
        return [grad, None]
    return [None if 0 in skip else _sum_of_sparse_grad(grad, x), None if 1 in skip else _sum_of_sparse_grad(grad, y)]


@RegisterGradient("Sub")
def _sub_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    if 1 in skip and _is_scalar(y):
        return [grad, None]
    gx = None if 0 in skip else _sum_of_sparse_grad(grad, x)
    gy = None if 1 in skip else _neg(_sum_of_sparse_grad(grad, y))  # summed, then negated: the same numbers
    return [gx, gy]


@RegisterGradient("Mul")
def _mul_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    if 1 in skip and _is_scalar(y):
        return [_mul(grad, _conj(y)), None]
    gx = None if 0 in skip else reduce_to(_mul(grad, _conj(y)), x)
    gy = None if 1 in skip else reduce_to(_mul(_conj(x), grad), y)
    return [gx, gy]


@RegisterGradient("Div")
@RegisterGradient("RealDiv")
def _real_div_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    cx, cy = _conj(x), _conj(y)
    gx = None if 0 in skip else reduce_to(_div(grad, cy), x)
    gy = None if 1 in skip else reduce_to(_mul(grad, _div(_div(_neg(cx), cy), cy)), y)
    return [gx, gy]


@RegisterGradient("FloorMod")
def _floor_mod_grad(op: Any, grad: Any) -> list[Any]:
    # x mod y = x - floor(x / y) * y.
    x, y = op.inputs
    skip = _skips(op)
    gx = None if 0 in skip else reduce_to(grad, x)
    gy = None
    if 1 not in skip:
        floor_xy = apply_op("FloorDiv", x=_conj(x), y=_conj(y))
        gy = reduce_to(_mul(grad, _neg(floor_xy)), y)
    return [gx, gy]


@RegisterGradient("Pow")
def _pow_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    cx, cy = _conj(x), _conj(y)

    def dx() -> Any:  # grad * y * x^(y - 1)
        return _mul(_mul(grad, cy), apply_op("Pow", x=cx, y=apply_op("Sub", x=cy, y=_scalar(1.0, cy.dtype))))

    if 1 in skip and _is_scalar(y):
        return [dx(), None]
    gx = None if 0 in skip else reduce_to(dx(), x)
    gy = None
    if 1 not in skip:
        # grad * z * log(x), with log(x) taken as 0 where x <= 0 (complex: where x == 0).
        mask = apply_op("NotEqual" if x.dtype.is_complex else "Greater", x=cx, y=_scalar(0.0, x.dtype))
        safe_x = _select(mask, cx, _ones_like(x))
        log_x = _select(mask, apply_op("Log", x=safe_x), _zeros_like(x))
        gy = reduce_to(_mul(_mul(grad, _conj(op.outputs[0])), log_x), y)
    return [gx, gy]


def _maximum_minimum_grad(op: Any, grad: Any, selector: str) -> list[Any]:
    """The gradient goes to x where ``selector(x, y)`` holds (ties: x), else to y."""
    x, y = op.inputs
    skip = _skips(op)
    zero = _scalar(0.0, grad.dtype)
    xmask = apply_op(selector, x=x, y=y)
    if 1 in skip and _is_scalar(y):
        return [_select_v2(xmask, grad, zero), None]
    gx = None if 0 in skip else reduce_to(_select_v2(xmask, grad, zero), x)
    gy = None if 1 in skip else reduce_to(_select_v2(xmask, zero, grad), y)
    return [gx, gy]


@RegisterGradient("Maximum")
def _maximum_grad(op: Any, grad: Any) -> list[Any]:
    return _maximum_minimum_grad(op, grad, "GreaterEqual")


@RegisterGradient("Minimum")
def _minimum_grad(op: Any, grad: Any) -> list[Any]:
    return _maximum_minimum_grad(op, grad, "LessEqual")


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    x_grad = _mul(_mul(_scalar(2.0, grad.dtype), grad), apply_op("Sub", x=x, y=y))
    gx = None if 0 in skip else reduce_to(x_grad, x)
    gy = None if 1 in skip else _neg(reduce_to(x_grad, y))
    return [gx, gy]


# --------------------------------------------------------------------------- select, clip


@RegisterGradient("Select")
def _select_grad(op: Any, grad: Any) -> list[Any]:
    # v1 Select: a vector condition picks whole rows; t, e and the output share one shape.
    c, x = op.inputs[0], op.inputs[1]
    skip = _skips(op)
    zeros = _zeros_like(x)
    gx = None if 1 in skip else _select(c, grad, zeros)
    gy = None if 2 in skip else _select(c, zeros, grad)
    return [None, gx, gy]


@RegisterGradient("SelectV2")
def _select_v2_grad(op: Any, grad: Any) -> list[Any]:
    c, x, y = op.inputs
    skip = _skips(op)
    zero = _scalar(0.0, grad.dtype)
    gx = None if 1 in skip else reduce_to(_select_v2(c, grad, zero), x)
    gy = None if 2 in skip else reduce_to(_select_v2(c, zero, grad), y)
    return [None, gx, gy]


@RegisterGradient("ClipByValue")
def _clip_by_value_grad(op: Any, grad: Any) -> list[Any]:
    x, lo, hi = op.inputs
    skip = _skips(op)
    zeros = apply_op("ZerosLike", x=grad)
    below = apply_op("Less", x=x, y=lo)
    above = apply_op("Greater", x=x, y=hi)
    gx = None if 0 in skip else _select(apply_op("LogicalOr", x=below, y=above), zeros, grad)
    glo = None if 1 in skip else reduce_to(_select(below, grad, zeros), lo)
    ghi = None if 2 in skip else reduce_to(_select(above, grad, zeros), hi)
    return [gx, glo, ghi]


# --------------------------------------------------------------------------- reductions


@RegisterGradient("Sum")
def _sum_grad(op: Any, grad: Any) -> list[Any]:
    x = op.inputs[0]
    dims = static_dims(x)
    if dims is not None:
        axes = constant_value(op.inputs[1])
        if axes is not None and np.array_equal(axes, np.arange(len(dims))):
            # Everything summed (TF's fast path, Reshape and Tile there): one BroadcastTo of the scalar.
            return [_broadcast_to(grad, dims), None]
    input_shape, _, grad = _grad_with_kept_dims(op, grad)
    return [_broadcast_to(grad, input_shape), None]


@RegisterGradient("Mean")
def _mean_grad(op: Any, grad: Any) -> list[Any]:
    sum_grad = _sum_grad(op, grad)[0]
    x, y = op.inputs[0], op.outputs[0]
    in_dims, out_dims = static_dims(x), static_dims(y)
    if in_dims is not None and out_dims is not None:
        factor = int(np.prod(in_dims, dtype=np.int64)) // max(int(np.prod(out_dims, dtype=np.int64)), 1)
        return [_div(sum_grad, _scalar(factor, sum_grad.dtype)), None]
    input_shape = array_ops.shape(x)
    rank = array_ops.size(input_shape)
    axes = math_ops.cast(op.inputs[1], rank.dtype)
    axes = math_ops.floormod(math_ops.add(axes, rank), rank)
    factor_t = math_ops.reduce_prod(_gather(input_shape, axes))
    return [_div(sum_grad, _cast(factor_t, sum_grad.dtype)), None]


def _min_or_max_grad(op: Any, grad: Any) -> list[Any]:
    """The gradient split evenly between the elements equal to the extreme value."""
    x, axes, y = op.inputs[0], op.inputs[1], op.outputs[0]
    if not op.get_attr("keep_dims"):
        _, kept, grad = _grad_with_kept_dims(op, grad)
        y = _reshape(y, kept)
    else:
        kept = _shape(y)
    indicators = _cast(apply_op("Equal", x=y, y=x), grad.dtype)
    num_selected = _reshape(_reduce_sum(indicators, axes), kept)
    return [_mul(_div(indicators, num_selected), grad), None]


@RegisterGradient("Max")
def _max_grad(op: Any, grad: Any) -> list[Any]:
    return _min_or_max_grad(op, grad)


@RegisterGradient("Min")
def _min_grad(op: Any, grad: Any) -> list[Any]:
    return _min_or_max_grad(op, grad)


def _prod_permutation(op: Any) -> tuple[Any, Any, Any, Any]:
    """The reduced axes moved to the front: perm, its inverse, and the sizes of the reduced and kept parts.

    Python values when the rank and axes are static (the sizes stay tensors where dims are unknown).
    """
    x, axes = op.inputs[0], op.inputs[1]
    rank = x.shape.rank
    axes_value = constant_value(axes) if rank is not None else None
    if rank is not None and axes_value is not None:
        reduced = [int(a) % rank if rank else 0 for a in np.asarray(axes_value).reshape(-1)]
        other = [i for i in range(rank) if i not in reduced]
        perm = reduced + other
        inverse = [int(i) for i in np.argsort(perm)] if len(set(perm)) == len(perm) else perm
        dims = x.shape.as_list()
        if all(dims[i] is not None for i in perm):
            sizes = (int(np.prod([dims[i] for i in reduced], dtype=np.int64)),
                     int(np.prod([dims[i] for i in other], dtype=np.int64)))  # fmt: skip
            return perm, inverse, sizes[0], sizes[1]
        shape = array_ops.shape(x)
        reduced_num = math_ops.reduce_prod(_gather(shape, reduced)) if reduced else 1
        other_num = math_ops.reduce_prod(_gather(shape, other)) if other else 1
        return perm, inverse, reduced_num, other_num
    # Dynamic rank or axes: TF's ListDiff and InvertPermutation, built from the ops modtensor has.
    shape = array_ops.shape(x)
    rank_t = array_ops.rank(x)
    reduced_t = math_ops.cast(_reshape(axes, [-1]), dtypes.int32)
    reduced_t = math_ops.floormod(math_ops.add(reduced_t, rank_t), rank_t)
    idx = math_ops.range(0, rank_t)
    hit = apply_op("Equal", x=array_ops.expand_dims(idx, 1), y=array_ops.expand_dims(reduced_t, 0))
    is_reduced = math_ops.reduce_any(hit, axis=1)
    other_t = _reshape(_gather(idx, apply_op("Where", input=apply_op("LogicalNot", x=is_reduced))), [-1])
    perm_t = array_ops.concat([reduced_t, other_t], 0)
    inverse_t = indexing_ops.scatter_nd(array_ops.expand_dims(perm_t, 1), idx, array_ops.reshape(rank_t, [1]))
    reduced_num = math_ops.reduce_prod(_gather(shape, reduced_t))
    other_num = math_ops.reduce_prod(_gather(shape, other_t))
    return perm_t, inverse_t, reduced_num, other_num


@RegisterGradient("Prod")
def _prod_grad(op: Any, grad: Any) -> list[Any]:
    # The product of all other entries, as exclusive cumulative products from both sides (exact with zeros):
    # the reduced axes are moved to the front and flattened into one.
    x = op.inputs[0]
    input_shape, _, grad = _grad_with_kept_dims(op, grad)
    grad = _broadcast_to(grad, input_shape)
    perm, inverse, reduced_num, other_num = _prod_permutation(op)
    permuted = array_ops.transpose(x, perm)
    permuted_shape = _shape(permuted)
    if isinstance(reduced_num, int) and isinstance(other_num, int):
        flat_shape: Any = [reduced_num, other_num]
    else:
        flat_shape = array_ops.stack([reduced_num, other_num])
    reshaped = _reshape(permuted, flat_shape)
    left = segment_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = segment_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = _reshape(_mul(_conj(left), _conj(right)), permuted_shape)
    out = _mul(grad, array_ops.transpose(y, inverse))
    return [_reshape(out, input_shape), None]


# --------------------------------------------------------------------------- scans


@RegisterGradient("Cumsum")
def _cumsum_grad(op: Any, grad: Any) -> list[Any]:
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    return [apply_op("Cumsum", x=grad, axis=op.inputs[1], exclusive=exclusive, reverse=not reverse), None]


def _div_no_nan(x: Any, y: Any) -> Any:
    """``x / y``, 0 where ``y`` is 0 (TF's ``math_ops.div_no_nan``)."""
    return apply_op("DivNoNan", x=x, y=y)


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    skip = _skips(op)
    cx, cy = _conj(x), _conj(y)
    gx = None if 0 in skip else reduce_to(_div_no_nan(grad, cy), x)
    gy = None if 1 in skip else reduce_to(_mul(grad, _div_no_nan(_div_no_nan(_neg(cx), cy), cy)), y)
    return [gx, gy]


def _x_op_y_grad(op: Any, grad: Any, partial_y: Any) -> list[Any]:
    """Xlogy/Xlog1py/Xdivy: d/dx is the op of (x != 0) and y, d/dy is ``partial_y``; each summed to its input."""
    x, y = op.inputs
    not_zero_x = _cast(apply_op("NotEqual", x=x, y=_scalar(0.0, x.dtype)), x.dtype)
    partial_x = apply_op(op.type, x=not_zero_x, y=y)
    return [reduce_to(_mul(partial_x, grad), x), reduce_to(_mul(partial_y, grad), y)]


@RegisterGradient("Xlogy")
def _xlogy_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    return _x_op_y_grad(op, grad, apply_op("Xdivy", x=x, y=y))


@RegisterGradient("Xlog1py")
def _xlog1py_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    return _x_op_y_grad(op, grad, apply_op("Xdivy", x=x, y=apply_op("AddV2", x=y, y=_scalar(1.0, y.dtype))))


@RegisterGradient("Xdivy")
def _xdivy_grad(op: Any, grad: Any) -> list[Any]:
    x, y = op.inputs
    return _x_op_y_grad(op, grad, apply_op("Xdivy", x=_neg(x), y=apply_op("Pow", x=y, y=_scalar(2.0, y.dtype))))


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op: Any, grad: Any) -> list[Any]:
    output = op.outputs[0]
    if not op.get_attr("keep_dims"):
        output_shape_kept_dims = reduced_shape(array_ops.shape(op.inputs[0]), op.inputs[1])
        output = _reshape(output, output_shape_kept_dims)
        grad = _reshape(grad, output_shape_kept_dims)
    return [math_ops.truediv(op.inputs[0], math_ops.truediv(output, grad)), None]


@RegisterGradient("Cross")
def _cross_grad(op: Any, grad: Any) -> list[Any]:
    u, v = op.inputs
    return [apply_op("Cross", a=v, b=grad), apply_op("Cross", a=grad, b=u)]


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op: Any, grad: Any) -> list[Any]:
    x, axis = op.inputs
    cumulative_logsumexp = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    # Split the incoming gradient into positive and negative parts to take logs (for stable results).
    lowest = grad.dtype.min
    log_grad_positive = array_ops.where(math_ops.greater(grad, 0), math_ops.log(grad), lowest)
    log_grad_negative = array_ops.where(math_ops.less(grad, 0), math_ops.log(math_ops.negative(grad)), lowest)
    parts = []
    for log_grad in (log_grad_positive, log_grad_negative):
        scan = math_ops.cumulative_logsumexp(
            log_grad - cumulative_logsumexp, axis=axis, reverse=not reverse, exclusive=exclusive
        )
        parts.append(math_ops.exp(scan + x))
    return [parts[0] - parts[1], None]


@RegisterGradient("Lgamma")
def _lgamma_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("Digamma", x=_conj(op.inputs[0])))


@RegisterGradient("Erfinv")
def _erfinv_grad(op: Any, grad: Any) -> Any:
    root_pi_over_two = _scalar(float(np.sqrt(np.pi) / 2), grad.dtype)
    return _mul(_mul(grad, root_pi_over_two), apply_op("Exp", x=apply_op("Square", x=op.outputs[0])))


@RegisterGradient("Ndtri")
def _ndtri_grad(op: Any, grad: Any) -> Any:
    root_two_pi = _scalar(float(np.sqrt(2 * np.pi)), grad.dtype)
    half_square = _div(apply_op("Square", x=op.outputs[0]), _scalar(2.0, grad.dtype))
    return _mul(_mul(grad, root_two_pi), apply_op("Exp", x=half_square))


@RegisterGradient("BesselI0")
def _bessel_i0_grad(op: Any, grad: Any) -> Any:
    return _mul(grad, apply_op("BesselI1", x=op.inputs[0]))


@RegisterGradient("BesselI0e")
def _bessel_i0e_grad(op: Any, grad: Any) -> Any:
    x, y = op.inputs[0], op.outputs[0]
    return _mul(grad, apply_op("Sub", x=apply_op("BesselI1e", x=x), y=_mul(apply_op("Sign", x=x), y)))


def _at_zero(x: Any, value: float, elsewhere: Any) -> Any:
    """``value`` where x is 0 (the limit a ``y / x`` term misses there), ``elsewhere`` otherwise."""
    zero = math_ops.equal(x, _scalar(0.0, x.dtype))
    return apply_op("SelectV2", condition=zero, t=_scalar(value, x.dtype), e=elsewhere)


@RegisterGradient("BesselI1")
def _bessel_i1_grad(op: Any, grad: Any) -> Any:
    x, y = op.inputs[0], op.outputs[0]  # I1' = I0 - I1 / x, 1 at 0
    return _mul(grad, _at_zero(x, 1.0, apply_op("Sub", x=apply_op("BesselI0", x=x), y=_div(y, x))))


@RegisterGradient("BesselI1e")
def _bessel_i1e_grad(op: Any, grad: Any) -> Any:
    x, y = op.inputs[0], op.outputs[0]  # I1e' = I0e - I1e (sign(x) + 1 / x), 1/2 at 0
    slope = _mul(y, apply_op("AddV2", x=apply_op("Sign", x=x), y=apply_op("Reciprocal", x=x)))
    return _mul(grad, _at_zero(x, 0.5, apply_op("Sub", x=apply_op("BesselI0e", x=x), y=slope)))


@RegisterGradient("Cumprod")
def _cumprod_grad(op: Any, grad: Any) -> list[Any]:
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = apply_op("Cumprod", x=x, axis=axis, exclusive=exclusive, reverse=reverse)
    out = apply_op("Cumsum", x=_mul(prod, grad), axis=axis, exclusive=exclusive, reverse=not reverse)
    return [_div_no_nan(out, x), None]


# --------------------------------------------------------------------------- segment reductions


@RegisterGradient("SegmentSum")
def _segment_sum_grad(op: Any, grad: Any) -> list[Any]:
    return [_gather(grad, op.inputs[1]), None]


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op: Any, grad: Any) -> list[Any]:
    data, ids = op.inputs
    data_dims, ids_dims = static_dims(data), static_dims(ids)
    if data_dims is not None and ids_dims is not None:
        ones_shape: Any = ids_dims + [1] * (len(data_dims) - 1)
    else:
        ids_shape = array_ops.shape(ids)
        rest = array_ops.ones(
            array_ops.expand_dims(apply_op("Sub", x=array_ops.rank(data), y=1), 0), dtype=ids_shape.dtype
        )
        ones_shape = array_ops.concat([ids_shape, rest], 0)
    ones = array_ops.ones(ones_shape, dtype=grad.dtype)
    counts = apply_op("SegmentSum", data=ones, segment_ids=ids)
    return [_gather(_div(grad, counts), ids), None]


def _segment_min_or_max_grad(op: Any, grad: Any) -> list[Any]:
    data, ids = op.inputs
    zeros = _zeros_like(data)
    is_selected = apply_op("Equal", x=data, y=_gather(op.outputs[0], ids))
    num_selected = apply_op("SegmentSum", data=_cast(is_selected, grad.dtype), segment_ids=ids)
    gathered_grads = _gather(_div(grad, num_selected), ids)
    return [_select_v2(is_selected, gathered_grads, zeros), None]


@RegisterGradient("SegmentMax")
def _segment_max_grad(op: Any, grad: Any) -> list[Any]:
    return _segment_min_or_max_grad(op, grad)


@RegisterGradient("SegmentMin")
def _segment_min_grad(op: Any, grad: Any) -> list[Any]:
    return _segment_min_or_max_grad(op, grad)


@RegisterGradient("SegmentProd")
def _segment_prod_grad(op: Any, grad: Any) -> list[Any]:
    # Per segment: no zero -> prod / x; one zero -> the product of the others at the zero, 0 elsewhere;
    # two or more zeros -> 0.
    data, ids = op.inputs
    is_zero = apply_op("Equal", x=data, y=_scalar(0.0, data.dtype))
    num_zeros = apply_op("SegmentSum", data=_cast(is_zero, dtypes.int32), segment_ids=ids)
    grad = _select_v2(apply_op("Greater", x=num_zeros, y=_scalar(1, dtypes.int32)), _zeros_like(grad), grad)
    non_zero_data = _select_v2(is_zero, _ones_like(data), data)
    non_zero_prod = apply_op("SegmentProd", data=non_zero_data, segment_ids=ids)
    gathered_prod = _gather(op.outputs[0], ids)
    gathered_non_zero_prod = _gather(non_zero_prod, ids)
    prod_divided_by_el = _div(gathered_prod, non_zero_data)
    partial = _select_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    return [_mul(_gather(grad, ids), partial), None]


def _gather_drop_negatives(params: Any, ids: Any, clipped: Any = None, is_positive: Any = None) -> tuple:
    """``params`` gathered at ``ids``, zero for negative ids; also the clipped ids and the (broadcast) mask."""
    if clipped is None:
        clipped = apply_op("Maximum", x=ids, y=_zeros_like(ids))
    gathered = _gather(params, clipped)
    if is_positive is None:
        is_positive = apply_op("GreaterEqual", x=ids, y=_scalar(0, ids.dtype))
        ids_dims, gathered_dims = static_dims(is_positive), static_dims(gathered)
        if ids_dims is not None and gathered_dims is not None:
            shape: Any = ids_dims + [1] * (len(gathered_dims) - len(ids_dims))
        else:
            pos_shape = array_ops.shape(is_positive)
            extra = apply_op("Sub", x=array_ops.rank(gathered), y=array_ops.rank(is_positive))
            shape = array_ops.concat([pos_shape, array_ops.ones(array_ops.reshape(extra, [1]), pos_shape.dtype)], 0)
        is_positive = _reshape(is_positive, shape)
        is_positive = apply_op("LogicalAnd", x=is_positive, y=array_ops.ones_like(gathered, dtype=dtypes.bool))
    return _select_v2(is_positive, gathered, _zeros_like(gathered)), clipped, is_positive


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: Any, grad: Any) -> list[Any]:
    return [_gather_drop_negatives(grad, op.inputs[1])[0], None, None]


def _unsorted_segment_min_or_max_grad(op: Any, grad: Any) -> list[Any]:
    data, ids, num_segments = op.inputs
    gathered_outputs, clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = apply_op("LogicalAnd", x=apply_op("Equal", x=data, y=gathered_outputs), y=is_positive)
    num_selected = apply_op(
        "UnsortedSegmentSum", data=_cast(is_selected, grad.dtype), segment_ids=ids, num_segments=num_segments
    )
    gathered_grads, _, _ = _gather_drop_negatives(_div(grad, num_selected), None, clipped, is_positive)
    return [_select_v2(is_selected, gathered_grads, _zeros_like(gathered_grads)), None, None]


@RegisterGradient("UnsortedSegmentMax")
def _unsorted_segment_max_grad(op: Any, grad: Any) -> list[Any]:
    return _unsorted_segment_min_or_max_grad(op, grad)


@RegisterGradient("UnsortedSegmentMin")
def _unsorted_segment_min_grad(op: Any, grad: Any) -> list[Any]:
    return _unsorted_segment_min_or_max_grad(op, grad)


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op: Any, grad: Any) -> list[Any]:
    # SegmentProd's three cases; negative ids get no gradient.
    data, ids, num_segments = op.inputs
    is_zero = apply_op("Equal", x=data, y=_scalar(0.0, data.dtype))
    num_zeros = apply_op(
        "UnsortedSegmentSum", data=_cast(is_zero, dtypes.int32), segment_ids=ids, num_segments=num_segments
    )
    grad = _select_v2(apply_op("Greater", x=num_zeros, y=_scalar(1, dtypes.int32)), _zeros_like(grad), grad)
    non_zero_data = _select_v2(is_zero, _ones_like(data), data)
    non_zero_prod = apply_op("UnsortedSegmentProd", data=non_zero_data, segment_ids=ids, num_segments=num_segments)
    clipped = apply_op("Maximum", x=ids, y=_zeros_like(ids))
    gathered_prod = _gather(op.outputs[0], clipped)
    gathered_non_zero_prod = _gather(non_zero_prod, clipped)
    prod_divided_by_el = _div(gathered_prod, data)  # inf/nan at zeros, replaced next
    partial = _select_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, ids, clipped)[0]
    return [_mul(gathered_grad, partial), None, None]


# --------------------------------------------------------------------------- matrix products


def _matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, **grad_flag: bool) -> Any:
    return apply_op("MatMul", a=a, b=b, transpose_a=transpose_a, transpose_b=transpose_b, **grad_flag)


@RegisterGradient("MatMul")
def _matmul_grad(op: Any, grad: Any) -> list[Any]:
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    skip = _skips(op)
    ga = gb = None
    if 0 not in skip:
        b = _conj(op.inputs[1])
        if not t_a and not t_b:
            ga = _matmul(grad, b, transpose_b=True, grad_a=True)
        elif not t_a:
            ga = _matmul(grad, b, grad_a=True)
        elif not t_b:
            ga = _matmul(b, grad, transpose_b=True, grad_a=True)
        else:
            ga = _matmul(b, grad, transpose_a=True, transpose_b=True, grad_a=True)
    if 1 not in skip:
        a = _conj(op.inputs[0])
        if not t_a and not t_b:
            gb = _matmul(a, grad, transpose_a=True, grad_b=True)
        elif not t_a:
            gb = _matmul(grad, a, transpose_a=True, grad_b=True)
        elif not t_b:
            gb = _matmul(a, grad, grad_b=True)
        else:
            gb = _matmul(grad, a, transpose_a=True, transpose_b=True, grad_b=True)
    return [ga, gb]


@RegisterGradient("BatchMatMulV2")
@RegisterGradient("BatchMatMulV3")
def _batch_matmul_grad(op: Any, grad: Any) -> list[Any]:
    # The batch dims broadcast: each gradient is summed back over the dims its operand was broadcast along.
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    skip = _skips(op)
    mm = math_ops.matmul
    gx = gy = None
    if 0 not in skip:
        if not adj_x:
            gx = mm(grad, y, adjoint_b=not adj_y, grad_a=True)
        elif not adj_y:
            gx = mm(y, grad, adjoint_b=True, grad_a=True)
        else:
            gx = mm(y, grad, adjoint_a=True, adjoint_b=True, grad_a=True)
        gx = reduce_to(gx, x)
    if 1 not in skip:
        if not adj_x:
            gy = mm(x, grad, adjoint_a=True, grad_b=True) if not adj_y else mm(grad, x, adjoint_a=True, grad_b=True)
        elif not adj_y:
            gy = mm(x, grad, grad_b=True)
        else:
            gy = mm(grad, x, adjoint_a=True, adjoint_b=True, grad_b=True)
        gy = reduce_to(gy, y)
    return [gx, gy]


# --------------------------------------------------------------------------- einsum

_ELLIPSIS = "..."


def _einsum(inputs: list[Any], equation: str) -> Any:
    return apply_op("Einsum", inputs=inputs, equation=equation)


def _axis_of_label(subscripts: str, label: str) -> int | None:
    """The axis of ``label``'s leftmost occurrence: from the front before an ellipsis, negative after it."""
    parts = subscripts.split(_ELLIPSIS)
    index = parts[0].find(label)
    if index != -1:
        return index
    if len(parts) < 2:
        return None
    index = parts[1].find(label)
    return index - len(parts[1]) if index != -1 else None


def _ellipsis_span(subscripts: str) -> tuple[int, int | None]:
    """``(start, end)`` with ``shape[start:end]`` the dims the ellipsis stands for; ``(0, 0)`` without one."""
    start = subscripts.find(_ELLIPSIS)
    if start == -1:
        return 0, 0
    remaining = len(subscripts) - (start + len(_ELLIPSIS))
    return start, (-remaining if remaining > 0 else None)


def _einsum_reduced_grad(
    output_grad: Any, output_subs: str, input_subs: str, input_shape: Any, reduced_labels: set[str]
) -> Any:
    """The gradient of a unary einsum ``input_subs->output_subs`` that sums out ``reduced_labels``."""
    reduced_subs = "".join(sorted(reduced_labels))
    reduced_axes = [_axis_of_label(input_subs, s) for s in reduced_subs]
    static = isinstance(input_shape, list)
    repeated = len(set(input_subs)) + len(set(output_subs)) < len(input_subs) + len(output_subs)
    kept_subs = "".join(s for s in input_subs if s not in reduced_labels)
    if not repeated and kept_subs == output_subs:
        # A plain sum over some axes: reshape to the kept-dims shape and broadcast back.
        if static:
            kept = _kept_dims(input_shape, np.asarray(reduced_axes))
        else:
            kept = reduced_shape(input_shape, array_ops.constant(reduced_axes, dtype=dtypes.int32))
        return _broadcast_to(_reshape(output_grad, kept), input_shape)
    # Traces or transposes too: broadcast over the summed labels put in front, then undo the rest by einsum.
    grad_dims = static_dims(output_grad)
    if static and grad_dims is not None:
        full: Any = [input_shape[a] for a in reduced_axes] + grad_dims
        kept_shape: Any = [1] * len(reduced_subs) + grad_dims
    else:
        shape_t = array_ops.shape(output_grad)
        shape_in = input_shape if not static else array_ops.constant(input_shape, dtype=dtypes.int32)
        reduced_dims = array_ops.stack([shape_in[a] for a in reduced_axes])
        full = array_ops.concat([reduced_dims, shape_t], 0)
        kept_shape = array_ops.concat([array_ops.ones([len(reduced_subs)], dtype=dtypes.int32), shape_t], 0)
    broadcast = _broadcast_to(_reshape(output_grad, kept_shape), full)
    return _einsum([broadcast], f"{reduced_subs + output_subs}->{input_subs}")


def _einsum_grad_wrt(
    output_grad: Any, other: Any, input_shape: Any, input_subs: str, other_subs: str, output_subs: str
) -> Any:
    """The gradient of one operand of a binary einsum (before summing over broadcast batch dims)."""
    reduced_labels = set(input_subs).difference(set(output_subs + other_subs + "."))
    left_subs = "".join(s for s in input_subs if s not in reduced_labels)
    grad_reduced = _einsum([output_grad, other], f"{output_subs},{other_subs}->{left_subs}")
    if not reduced_labels:
        return grad_reduced
    return _einsum_reduced_grad(grad_reduced, left_subs, input_subs, input_shape, reduced_labels)


@RegisterGradient("Einsum")
def _einsum_grad(op: Any, grad: Any) -> Any:
    # An einsum is linear in each operand: its gradient is the einsum with that operand's and the output's
    # subscripts swapped, once the labels only that operand has (sums) are handled by broadcasting.
    equation = op.get_attr("equation")
    if isinstance(equation, bytes):
        equation = equation.decode()
    input_subs, output_subs = equation.split("->")
    if len(op.inputs) == 1:
        reduced_labels = set(input_subs).difference(set(output_subs + _ELLIPSIS))
        if not reduced_labels:
            return _einsum([grad], f"{output_subs}->{input_subs}")
        return _einsum_reduced_grad(grad, output_subs, input_subs, _shape(op.inputs[0]), reduced_labels)

    x_subs, y_subs = input_subs.split(",")
    if _ELLIPSIS in output_subs:
        # The reversed equations need an ellipsis on each operand when the output has one.
        if _ELLIPSIS not in x_subs:
            x_subs += _ELLIPSIS
        if _ELLIPSIS not in y_subs:
            y_subs += _ELLIPSIS
    x, y = op.inputs
    if grad.dtype.is_complex:
        x, y = _conj(x), _conj(y)
    skip = _skips(op)
    x_shape, y_shape = _shape(x), _shape(y)
    gx = None if 0 in skip else _einsum_grad_wrt(grad, y, x_shape, x_subs, y_subs, output_subs)
    gy = None if 1 in skip else _einsum_grad_wrt(grad, x, y_shape, y_subs, x_subs, output_subs)
    if _ELLIPSIS not in output_subs:
        return [gx, gy]
    bx_start, bx_end = _ellipsis_span(x_subs)
    by_start, by_end = _ellipsis_span(y_subs)
    static = isinstance(x_shape, list) and isinstance(y_shape, list)
    if static and x_shape[bx_start:bx_end] == y_shape[by_start:by_end]:
        return [gx, gy]
    # Sum each gradient over the broadcast dims of its ellipsis.
    if static:
        rx, ry = common_shapes.broadcast_gradient_axes(x_shape[bx_start:bx_end], y_shape[by_start:by_end])
        rx_t: Any = [bx_start + a for a in rx]
        ry_t: Any = [by_start + a for a in ry]
    else:
        xs = x_shape if not isinstance(x_shape, list) else array_ops.constant(x_shape, dtype=dtypes.int32)
        ys = y_shape if not isinstance(y_shape, list) else array_ops.constant(y_shape, dtype=dtypes.int32)
        rx_t, ry_t = apply_op("BroadcastGradientArgs", s0=xs[bx_start:bx_end], s1=ys[by_start:by_end])
        rx_t = apply_op("AddV2", x=rx_t, y=_scalar(bx_start, rx_t.dtype))
        ry_t = apply_op("AddV2", x=ry_t, y=_scalar(by_start, ry_t.dtype))
    if gx is not None and not (static and not rx_t):
        gx = _reshape(_reduce_sum(gx, rx_t), x_shape)
    if gy is not None and not (static and not ry_t):
        gy = _reshape(_reduce_sum(gy, ry_t), y_shape)
    return [gx, gy]
