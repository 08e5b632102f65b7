"""TF-named math wrappers (``tf.add``, ``tf.matmul``, ``tf.reduce_sum``, ``tf.cast``, ...) over ``apply_op``.

Each function has TensorFlow 2's signature, defaults and semantics, and builds the
graph TF builds for the same call (same op types, attrs and node names; checked
against TF in tests/golden/frontend_ops). Eagerly the same code runs the ops at once.
``__all__`` lists the names TF has at the top level; ``modtensor.math`` adds the
``tf.math``-only ones (``floordiv``, ``log``, ``rsqrt``, ...).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework import graph as _graph_lib
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor
from modtensor.runtime import context as _runtime_context
from modtensor.runtime import eager as _eager
from modtensor.runtime.eager import EagerTensor

_graph_stack = _graph_lib._default_graph_stack

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cast",
    "clip_by_value",
    "cos",
    "cosh",
    "divide",
    "equal",
    "exp",
    "floor",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "matmul",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "range",
    "realdiv",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "round",
    "saturate_cast",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "truediv",
    "truncatediv",
    "truncatemod",
]

# --------------------------------------------------------------------------- binary arithmetic


def add(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x + y`` elementwise with broadcasting (``AddV2``; ``Add`` for strings)."""
    if (
        type(x) is EagerTensor
        and type(y) is EagerTensor
        and x._dtype is y._dtype
        and x._dtype is not dtypes.string
        and _executing_eagerly()
    ):
        out = _eager.run_cached2("AddV2", x, y, None)
        if out is not None:
            return out
    with op_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        op = "Add" if x.dtype.base_dtype == dtypes.string else "AddV2"
        return apply_op(op, name=scope, x=x, y=y)


def subtract(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x - y`` elementwise with broadcasting (``Sub``)."""
    return apply_op("Sub", name=name, x=x, y=y)


def multiply(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x * y`` elementwise with broadcasting (``Mul``)."""
    return apply_op("Mul", name=name, x=x, y=y)


# Integer types that true division first casts to a float type (None: divide as is).
_TRUEDIV_TABLE: dict[dtypes.DType, dtypes.DType | None] = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64,
    dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64,
    dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None,
    dtypes.float16: None,
    dtypes.float32: None,
    dtypes.float64: None,
    dtypes.complex64: None,
    dtypes.complex128: None,
}


def truediv_dtype(dtype: dtypes.DType) -> dtypes.DType | None:
    """The type true division computes ``dtype`` operands in (None: their own); TypeError as TF for others."""
    try:
        return _TRUEDIV_TABLE[dtype]
    except KeyError:
        expected = ", ".join(repr(d) for d in _TRUEDIV_TABLE)
        raise TypeError(f"Invalid dtype {dtype!r} in __truediv__. Expected one of {{{expected}}}.") from None


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Python 3 division: integers are cast to float (int32/int64 -> float64, smaller -> float32), then ``RealDiv``."""
    with op_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}.")
        target = truediv_dtype(x_dtype)
        if target is not None:
            x = cast(x, target)
            y = cast(y, target)
        return apply_op("RealDiv", name=scope, x=x, y=y)


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y`` with Python 3 semantics (see :func:`truediv`); a python ``x`` takes ``y``'s dtype."""
    if name is None and not is_tensor(x):
        x = convert_to_tensor(x, dtype=y.dtype.base_dtype if is_tensor(y) else None)
    return truediv(x, y, name=name)


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y`` for real types without casting (``RealDiv``)."""
    return apply_op("RealDiv", name=name, x=x, y=y)


def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x // y`` rounding toward negative infinity (``FloorDiv``)."""
    with op_scope(name, "floordiv", [x, y]) as scope:
        return apply_op("FloorDiv", name=scope, x=x, y=y)


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x % y`` with the sign of ``y``, as Python (``FloorMod``); also ``tf.math.mod``."""
    return apply_op("FloorMod", name=name, x=x, y=y)


mod = floormod


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x ** y`` elementwise (``Pow``)."""
    with op_scope(name, "Pow", [x]) as scope:
        return apply_op("Pow", name=scope, x=x, y=y)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``(x - y) ** 2`` elementwise (``SquaredDifference``)."""
    return apply_op("SquaredDifference", name=name, x=x, y=y)


def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The larger of ``x`` and ``y`` elementwise (``Maximum``; NaN wins, as in TF)."""
    return apply_op("Maximum", name=name, x=x, y=y)


def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The smaller of ``x`` and ``y`` elementwise (``Minimum``)."""
    return apply_op("Minimum", name=name, x=x, y=y)


def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of same-shaped tensors (``AddN``; one input is returned as is)."""
    try:
        items = list(inputs) if inputs else []
    except TypeError:
        items = []
    if not items:
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."
        )
    items = [convert_to_tensor(v) for v in items]
    if len(items) == 1:
        return _identity(items[0], name) if name else items[0]
    return apply_op("AddN", name=name, inputs=items)


def _identity(value: Tensor, name: str | None) -> Tensor:
    """``Identity`` of a tensor (used where TF's math wrappers return a named copy)."""
    return apply_op("Identity", name=name, input=value)


# --------------------------------------------------------------------------- unary


def conj(x: Any, name: str | None = None) -> Tensor:
    """The complex conjugate (``Conj``); a real or integer tensor is returned as it is (TF's ``tf.math.conj``)."""
    x = convert_to_tensor(x, name="x")
    dtype = x.dtype.base_dtype
    if dtype.is_complex or dtype == dtypes.variant:
        return apply_op("Conj", name=name, input=x)
    if dtype.is_floating or dtype.is_integer:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def negative(x: Any, name: str | None = None) -> Tensor:
    """``-x`` elementwise (``Neg``)."""
    return apply_op("Neg", name=name, x=x)


def abs(x: Any, name: str | None = None) -> Tensor:
    """``|x|`` elementwise (``Abs``; ``ComplexAbs`` of a complex tensor, in its real dtype)."""
    with op_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return apply_op("ComplexAbs", name=scope, x=x, Tout=x.dtype.real_dtype)
        return apply_op("Abs", name=scope, x=x)


def _scoped_unary(op_type: str, x: Any, name: str | None) -> Tensor:
    if type(x) is EagerTensor and _executing_eagerly():
        out = _eager.run_cached1(op_type, (), x, None)
        if out is not None:
            return out
    with op_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op(op_type, name=scope, x=x)


def sigmoid(x: Any, name: str | None = None) -> Tensor:
    """``1 / (1 + exp(-x))`` elementwise (``Sigmoid``); also ``tf.nn.sigmoid``."""
    return _scoped_unary("Sigmoid", x, name)


def tanh(x: Any, name: str | None = None) -> Tensor:
    """Hyperbolic tangent elementwise (``Tanh``); also ``tf.nn.tanh``."""
    return apply_op("Tanh", name=name, x=x)


def square(x: Any, name: str | None = None) -> Tensor:
    """``x * x`` elementwise (``Square``)."""
    return apply_op("Square", name=name, x=x)


def sqrt(x: Any, name: str | None = None) -> Tensor:
    """Square root elementwise (``Sqrt``)."""
    return apply_op("Sqrt", name=name, x=x)


def rsqrt(x: Any, name: str | None = None) -> Tensor:
    """``1 / sqrt(x)`` elementwise (``Rsqrt``)."""
    return apply_op("Rsqrt", name=name, x=x)


def exp(x: Any, name: str | None = None) -> Tensor:
    """``e ** x`` elementwise (``Exp``)."""
    return apply_op("Exp", name=name, x=x)


def log(x: Any, name: str | None = None) -> Tensor:
    """Natural logarithm elementwise (``Log``)."""
    return apply_op("Log", name=name, x=x)


def erf(x: Any, name: str | None = None) -> Tensor:
    """Gauss error function elementwise (``Erf``)."""
    return apply_op("Erf", name=name, x=x)


def erfc(x: Any, name: str | None = None) -> Tensor:
    """Complementary error function elementwise (``Erfc``)."""
    return apply_op("Erfc", name=name, x=x)


def sign(x: Any, name: str | None = None) -> Tensor:
    """-1, 0 or 1 by the sign of ``x`` (``Sign``)."""
    return apply_op("Sign", name=name, x=x)


def floor(x: Any, name: str | None = None) -> Tensor:
    """Largest integer not greater than ``x`` (``Floor``)."""
    return apply_op("Floor", name=name, x=x)


def ceil(x: Any, name: str | None = None) -> Tensor:
    """Smallest integer not less than ``x`` (``Ceil``)."""
    return apply_op("Ceil", name=name, x=x)


def round(x: Any, name: str | None = None) -> Tensor:
    """Round half to even (``Round``); integer tensors are returned unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return apply_op("Round", name=name, x=x)


def reciprocal(x: Any, name: str | None = None) -> Tensor:
    """``1 / x`` elementwise (``Reciprocal``)."""
    return apply_op("Reciprocal", name=name, x=x)


def sin(x: Any, name: str | None = None) -> Tensor:
    """Sine elementwise (``Sin``)."""
    return apply_op("Sin", name=name, x=x)


def cos(x: Any, name: str | None = None) -> Tensor:
    """Cosine elementwise (``Cos``)."""
    return apply_op("Cos", name=name, x=x)


def _unary_wrapper(op_type: str, function_name: str, doc: str) -> Any:
    """TF's generated wrapper of a unary op: the op named ``name``, no scope of its own."""

    def function(x: Any, name: str | None = None) -> Tensor:
        return apply_op(op_type, name=name, x=x)

    function.__name__ = function.__qualname__ = function_name
    function.__doc__ = doc
    return function


tan = _unary_wrapper("Tan", "tan", "Tangent elementwise (``Tan``).")
asin = _unary_wrapper("Asin", "asin", "Inverse sine elementwise, in [-pi/2, pi/2]; NaN outside [-1, 1] (``Asin``).")
acos = _unary_wrapper("Acos", "acos", "Inverse cosine elementwise, in [0, pi]; NaN outside [-1, 1] (``Acos``).")
atan = _unary_wrapper("Atan", "atan", "Inverse tangent elementwise, in (-pi/2, pi/2) (``Atan``).")
sinh = _unary_wrapper("Sinh", "sinh", "Hyperbolic sine elementwise (``Sinh``).")
cosh = _unary_wrapper("Cosh", "cosh", "Hyperbolic cosine elementwise (``Cosh``).")
asinh = _unary_wrapper("Asinh", "asinh", "Inverse hyperbolic sine elementwise (``Asinh``).")
acosh = _unary_wrapper("Acosh", "acosh", "Inverse hyperbolic cosine elementwise; NaN below 1 (``Acosh``).")
atanh = _unary_wrapper("Atanh", "atanh", "Inverse hyperbolic tangent elementwise; +-inf at +-1 (``Atanh``).")
rint = _unary_wrapper("Rint", "rint", "The nearest integer elementwise, halves to even (``Rint``; tf.math only).")


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point ``(x, y)`` elementwise, in [-pi, pi], broadcast (``Atan2``)."""
    return apply_op("Atan2", name=name, y=y, x=x)


def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y`` rounded toward zero, as C divides (``TruncateDiv``; tf.truncatediv, not in tf.math)."""
    return apply_op("TruncateDiv", name=name, x=x, y=y)


def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """C's remainder: the sign of ``x`` (``TruncateMod``; tf.truncatemod, not in tf.math)."""
    return apply_op("TruncateMod", name=name, x=x, y=y)


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """The next representable value after ``x1`` toward ``x2`` (``NextAfter``; tf.math only)."""
    return apply_op("NextAfter", name=name, x1=x1, x2=x2)


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x * y``, but 0 where ``y`` is 0 even for a NaN or infinite ``x`` (``MulNoNan``; tf.math only)."""
    with op_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        if is_tensor(y) and y.dtype.base_dtype != x.dtype.base_dtype:  # TF's conversion error, named
            raise ValueError(f"y: Tensor conversion requested dtype {x.dtype.base_dtype.name} for Tensor with dtype "
                             f"{y.dtype.base_dtype.name}: {y!r}")  # fmt: skip
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}")
        return apply_op("MulNoNan", name=scope, x=x, y=y)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """``1 / x``, and 0 where ``x`` is 0 (``DivNoNan`` of a one; tf.math only)."""
    with op_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype.base_dtype, name="one")
        return apply_op("DivNoNan", name=scope, x=one, y=x)


def expm1(x: Any, name: str | None = None) -> Tensor:
    """``exp(x) - 1`` elementwise (``Expm1``)."""
    return apply_op("Expm1", name=name, x=x)


def log1p(x: Any, name: str | None = None) -> Tensor:
    """``log(1 + x)`` elementwise (``Log1p``)."""
    return apply_op("Log1p", name=name, x=x)


# --------------------------------------------------------------------------- comparisons and logic


def less(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x < y`` elementwise (``Less``)."""
    return apply_op("Less", name=name, x=x, y=y)


def less_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x <= y`` elementwise (``LessEqual``)."""
    return apply_op("LessEqual", name=name, x=x, y=y)


def greater(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x > y`` elementwise (``Greater``)."""
    return apply_op("Greater", name=name, x=x, y=y)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x >= y`` elementwise (``GreaterEqual``)."""
    return apply_op("GreaterEqual", name=name, x=x, y=y)


def equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x == y`` elementwise (``Equal``)."""
    return apply_op("Equal", name=name, x=x, y=y)


def not_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x != y`` elementwise (``NotEqual``)."""
    return apply_op("NotEqual", name=name, x=x, y=y)


def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise AND of booleans (``LogicalAnd``)."""
    return apply_op("LogicalAnd", name=name, x=x, y=y)


def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise OR of booleans (``LogicalOr``)."""
    return apply_op("LogicalOr", name=name, x=x, y=y)


def logical_not(x: Any, name: str | None = None) -> Tensor:
    """Elementwise NOT of booleans (``LogicalNot``)."""
    return apply_op("LogicalNot", name=name, x=x)


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Tensor:
    """Elementwise XOR of booleans, as TF composes it: ``(x or y) and not (x and y)``."""
    either = apply_op("LogicalOr", x=x, y=y)
    both = apply_op("LogicalAnd", x=x, y=y)
    return apply_op("LogicalAnd", name=name, x=either, y=apply_op("LogicalNot", x=both))


# --------------------------------------------------------------------------- cast


# The cache-key signature of a converted int32 host input, computed on first use.
_INDEX_SIG: list[int] = []

# DType -> the cache-key attrs of an eager ``Cast`` to it.
_CAST_ATTRS: dict[dtypes.DType, tuple[Any, ...]] = {}


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """``x`` converted to ``dtype`` (``Cast``: floats truncate toward zero, nonzero -> True); same dtype: ``x``."""
    base = dtypes.as_dtype(dtype).base_dtype
    if type(x) is EagerTensor and _executing_eagerly():
        if x._dtype is base:
            return x
        attrs = _CAST_ATTRS.get(base)
        if attrs is None:
            attrs = _CAST_ATTRS[base] = _eager.frozen_attrs(DstT=base)
        out = _eager.run_cached1("Cast", attrs, x, None)
        if out is not None:
            return out
    if is_tensor(x) and x.dtype.base_dtype == base:
        return x
    with op_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != base:
            x = apply_op("Cast", name=scope, x=x, DstT=base)
        return x


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """``value`` cast to ``dtype`` after clipping it to the range both dtypes hold (TF 2.21's ``tf.saturate_cast``:
    a ``ClipByValue`` named ``clamp`` whose limits are nudged toward zero where the other dtype would round them
    out of range, then ``Cast``). Complex inputs are not supported."""
    with op_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        in_dtype = value.dtype
        if in_dtype.is_complex or dtype.is_complex:
            raise NotImplementedError("saturate_cast of complex values is not implemented")
        np_in = in_dtype.as_numpy_dtype
        try:
            promoted = np.promote_types(np_in, dtype.as_numpy_dtype)
        except TypeError:
            promoted = np.dtype(float)
        min_limit = np_in(np.maximum(in_dtype.min, dtype.min))
        if np.array([min_limit, dtype.min], dtype=promoted)[0] < np.array([min_limit, dtype.min], dtype=promoted)[1]:
            min_limit = np.nextafter(min_limit, np_in(0), dtype=np_in)
        max_limit = np_in(np.minimum(float(in_dtype.max), float(dtype.max)))
        if np.array([max_limit, dtype.max], dtype=promoted)[0] > np.array([max_limit, dtype.max], dtype=promoted)[1]:
            max_limit = np.nextafter(max_limit, np_in(0), dtype=np_in)
        value = apply_op(
            "ClipByValue",
            name="clamp",
            t=value,
            clip_value_min=convert_to_tensor(min_limit, dtype=in_dtype),
            clip_value_max=convert_to_tensor(max_limit, dtype=in_dtype),
        )
        return cast(value, dtype, name=scope)


# --------------------------------------------------------------------------- matmul


def _executing_eagerly() -> bool:
    return _runtime_context._eager_enabled and not _graph_stack()


# The cache-key attrs of an eager ``MatMul`` without flags, as ``apply_op`` passes them.
_MATMUL_ATTRS = _eager.frozen_attrs(transpose_a=False, transpose_b=False, grad_a=False, grad_b=False)
_run_cached = _eager.run_cached


def _conj_real(x: Tensor, what: str) -> Tensor:
    """``tf.math.conj`` for the adjoint flags: real tensors are their own conjugate."""
    if x.dtype.is_complex:
        raise NotImplementedError(
            f"matmul with {what} of a complex tensor needs the 'Conj' op, which modtensor does not implement yet"
        )
    return x


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """``a @ b``: ``MatMul`` for matrices, ``BatchMatMulV2`` (broadcast batch dims) when a rank exceeds 2.

    ``adjoint_*`` equals ``transpose_*`` for real types. ``a_is_sparse``/``b_is_sparse``
    are hints only (TF may pick ``SparseMatMul``; the result is the same).
    """
    if (
        type(a) is EagerTensor
        and type(b) is EagerTensor
        and not (transpose_a or transpose_b or adjoint_a or adjoint_b or grad_a or grad_b)
        and output_type is None
        and len(a._value.shape) == 2
        and len(b._value.shape) == 2
        and _executing_eagerly()
    ):
        # Eager hot path: two matrices, no flags; the cached kernel runs with the attrs' precomputed key.
        out = _run_cached("MatMul", _MATMUL_ATTRS, (a, b), name)
        if out is not None:
            return out
    with op_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError(
                "Only one of `transpose_a` and `adjoint_a` can be True. "
                f"Received `transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}."
            )
        if transpose_b and adjoint_b:
            raise ValueError(
                "Only one of `transpose_b` and `adjoint_b` can be True. "
                f"Received `transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}."
            )
        a = a if is_tensor(a) else convert_to_tensor(a, name="a")
        b = b if is_tensor(b) else convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        # An output_type other than the inputs' dtype (int8 x int8 -> int32, ...) is BatchMatMulV3, as in TF.
        use_v3 = bool(output_type) and (
            dtypes.as_dtype(output_type) != a.dtype or dtypes.as_dtype(output_type) != b.dtype
        )
        rank_a, rank_b = a.shape.rank, b.shape.rank
        batched = rank_a is None or rank_a > 2 or rank_b is None or rank_b > 2
        if batched:
            if transpose_a:
                a, adjoint_a = _conj_real(a, "transpose_a"), True
            if transpose_b:
                b, adjoint_b = _conj_real(b, "transpose_b"), True
            if use_v3:
                return apply_op("BatchMatMulV3", name=scope, x=a, y=b, adj_x=adjoint_a, adj_y=adjoint_b,
                                Tout=dtypes.as_dtype(output_type), grad_x=grad_a, grad_y=grad_b)  # fmt: skip
            return apply_op(
                "BatchMatMulV2", name=scope, x=a, y=b, adj_x=adjoint_a, adj_y=adjoint_b, grad_x=grad_a, grad_y=grad_b
            )
        if adjoint_a:
            a, transpose_a = _conj_real(a, "adjoint_a"), True
        if adjoint_b:
            b, transpose_b = _conj_real(b, "adjoint_b"), True
        if use_v3:
            return apply_op("BatchMatMulV3", name=scope, x=a, y=b, adj_x=transpose_a, adj_y=transpose_b,
                            Tout=dtypes.as_dtype(output_type), grad_x=grad_a, grad_y=grad_b)  # fmt: skip
        return apply_op(
            "MatMul",
            name=scope,
            a=a,
            b=b,
            transpose_a=transpose_a,
            transpose_b=transpose_b,
            grad_a=grad_a,
            grad_b=grad_b,
        )


# --------------------------------------------------------------------------- reductions


def _reduction_dims(x: Any, axis: Any) -> Any:
    """TF's ``_ReductionDims``: ``axis``, or every axis (a constant for a known nonzero rank, else a Range)."""
    if axis is not None:
        return axis
    rank = x.shape.rank if isinstance(x, Tensor) else None
    if rank:
        if isinstance(x, SymbolicTensor):
            return constant(np.arange(rank, dtype=np.int32))
        return _ALL_AXES[rank] if rank < len(_ALL_AXES) else np.arange(rank, dtype=np.int32)
    from modtensor.api import array_ops

    return range(0, array_ops.rank(x))


# ``[0, ..., rank - 1]`` for eager reductions over all axes (converted by the eager op like any numpy input).
_ALL_AXES = [np.arange(rank, dtype=np.int32) for rank in builtins.range(9)]
for _axes in _ALL_AXES:
    _axes.flags.writeable = False


def _may_reduce_to_scalar(keepdims: bool, axis: Any, output: Tensor) -> Tensor:
    """A graph reduction over all axes is a scalar even when the input's shape is not known."""
    if isinstance(output, SymbolicTensor) and not output.shape.is_fully_defined() and not keepdims and axis is None:
        output.set_shape(())
    return output


def _eager_axes(value: EagerTensor, axis: Any) -> np.ndarray | None:
    """The host int32 axes array an eager reduction over ``axis`` (None or a python int) converts to; else None."""
    if axis is None:
        rank = len(value._value.shape)
        return _ALL_AXES[rank] if 0 < rank < len(_ALL_AXES) else None
    if type(axis) is int and -(2**31) <= axis < 2**31:
        found = _INT_AXES.get(axis)
        if found is None:
            found = np.array(axis, np.int32)
            found.flags.writeable = False
            _INT_AXES[axis] = found
        return found
    return None


_INT_AXES: dict[int, np.ndarray] = {}
_KEEP_DIMS_ATTRS = {flag: _eager.frozen_attrs(keep_dims=flag) for flag in (False, True)}


def _reduce(op_type: str, input_tensor: Any, axis: Any, keepdims: Any, name: str | None) -> Tensor:
    keepdims = False if keepdims is None else bool(keepdims)
    if type(input_tensor) is EagerTensor and _executing_eagerly():
        # Eager hot path: the axes as the host array the op call would convert them to, and the cached kernel.
        axes = _eager_axes(input_tensor, axis)
        if axes is not None:
            if not _INDEX_SIG:
                _INDEX_SIG.append(_eager.signature(dtypes.int32))
            out = _eager.run_cached_values(
                op_type,
                _KEEP_DIMS_ATTRS[keepdims],
                (input_tensor._sig, _INDEX_SIG[0]),
                [input_tensor._value, axes],
                name,
            )
            if out is not None:
                return out
    dims = _reduction_dims(input_tensor, axis)
    output = apply_op(op_type, name=name, input=input_tensor, reduction_indices=dims, keep_dims=keepdims)
    return _may_reduce_to_scalar(keepdims, axis, output)


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Sum over ``axis`` (int, list, tensor; None = all axes); ``keepdims`` keeps them as size 1 (``Sum``)."""
    return _reduce("Sum", input_tensor, axis, keepdims, name)


def reduce_euclidean_norm(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """``sqrt(sum(x ** 2))`` over ``axis`` (``EuclideanNorm``; integer results truncated, as TF)."""
    return _reduce("EuclideanNorm", input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Mean over ``axis`` (integer inputs give the truncated integer mean, as TF) (``Mean``)."""
    return _reduce("Mean", input_tensor, axis, keepdims, name)


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Variance over ``axis``: ``Mean(Square(x - Mean(x)))`` in a ``reduce_variance`` scope (TF's composition);
    integer inputs are TF's TypeError, as the mean would truncate."""
    with op_scope(None, name or "reduce_variance", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor)
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type {means.dtype}.")
        if means.dtype.is_complex:
            raise NotImplementedError("reduce_variance of complex values is not implemented")
        squared_deviations = apply_op("Square", x=input_tensor - means)
        return reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Standard deviation over ``axis``: ``Sqrt`` of :func:`reduce_variance` in a ``reduce_std`` scope."""
    with op_scope(None, name or "reduce_std", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor)
        variance = reduce_variance(input_tensor, axis=axis, keepdims=keepdims)
        return apply_op("Sqrt", x=variance)


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Maximum over ``axis`` (``Max``)."""
    return _reduce("Max", input_tensor, axis, keepdims, name)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Minimum over ``axis`` (``Min``)."""
    return _reduce("Min", input_tensor, axis, keepdims, name)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Product over ``axis`` (``Prod``)."""
    return _reduce("Prod", input_tensor, axis, keepdims, name)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Logical AND over ``axis`` of a boolean tensor (``All``)."""
    return _reduce("All", input_tensor, axis, keepdims, name)


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Logical OR over ``axis`` of a boolean tensor (``Any``)."""
    return _reduce("Any", input_tensor, axis, keepdims, name)


_ARGMAX_AXIS_TYPES = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64)


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (``ArgMax``)."""
    if axis is None:
        axis = 0
    if hasattr(axis, "dtype") and not is_tensor(axis):
        # TF looks numpy dtypes up in a set of DTypes, where they are never found.
        raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
    if is_tensor(axis):
        if axis.dtype.base_dtype not in _ARGMAX_AXIS_TYPES:
            raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
        if axis.dtype.base_dtype in (dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16):
            axis = cast(axis, dtypes.int32)
    elif not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return apply_op("ArgMax", name=name, input=input, dimension=axis, output_type=output_type)


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0), as ``output_type`` (``ArgMin``)."""
    if axis is None:
        axis = 0
    return apply_op("ArgMin", name=name, input=input, dimension=axis, output_type=output_type)


# --------------------------------------------------------------------------- range, clip


_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Tensor:
    """``[start, start + delta, ...)`` up to ``limit`` (``range(n)`` counts from 0); dtype: the widest argument's."""
    if limit is None:
        start, limit = 0, start
    with op_scope(name, "Range", [start, limit, delta]) as scope:
        start = start if is_tensor(start) else convert_to_tensor(start, dtype=dtype, name="start")
        limit = limit if is_tensor(limit) else convert_to_tensor(limit, dtype=dtype, name="limit")
        delta = delta if is_tensor(delta) else convert_to_tensor(delta, dtype=dtype, name="delta")
        if dtype is None:
            args = (start, limit, delta)
            for arg in args:
                if arg.dtype.base_dtype not in _RANGE_DTYPES:
                    raise TypeError(
                        f"range() does not support arguments of dtype {arg.dtype.name}; use one of "
                        f"{', '.join(d.name for d in _RANGE_DTYPES)}"
                    )
            inferred = builtins.max((a.dtype.base_dtype for a in args), key=_RANGE_DTYPES.index)
        else:
            inferred = dtypes.as_dtype(dtype)
        start, limit, delta = (cast(t, inferred) for t in (start, limit, delta))
        return apply_op("Range", name=scope, start=start, limit=limit, delta=delta)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Tensor:
    """``t`` limited to ``[clip_value_min, clip_value_max]`` (``Minimum``, ``Maximum``); may not broadcast ``t``."""
    with op_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    """``scalar * x`` for a 0-D ``scalar`` converted to ``x``'s dtype (``Mul``)."""
    with op_scope(name, "scalar_mul", [x]) as scope:
        scalar = convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
        if scalar.shape.rank != 0:
            raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
        return apply_op("Mul", name=scope, x=scalar, y=x)


# --------------------------------------------------------------------------- tf.math compositions (namespace math)


def count_nonzero(
    input: Any, axis: Any = None, keepdims: bool | None = None, dtype: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    """Number of nonzero elements over ``axis`` (TF's ``NotEqual`` + int64 ``Sum`` + ``Cast`` composition)."""
    if keepdims is None:
        keepdims = False
    with op_scope(name, "count_nonzero", [input]):
        input = convert_to_tensor(input, name="input")
        if input.dtype == dtypes.bool:
            predicate = input
        else:
            from modtensor.api.array_ops import zeros

            predicate = apply_op("NotEqual", x=input, y=zeros([], dtype=input.dtype))
        return cast(reduce_sum(cast(predicate, dtypes.int64), axis=axis, keepdims=keepdims), dtype=dtype)


def polyval(coeffs: list[Any], x: Any, name: str | None = None) -> Tensor:
    """The polynomial with ``coeffs`` (highest power first) at ``x``, by Horner's rule as TF composes it."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with op_scope(name, "polyval", [*coeffs, x]) as scope:
        x = convert_to_tensor(x, name="x")
        if len(coeffs) < 1:
            from modtensor.api.array_ops import zeros_like

            return zeros_like(x, name=scope)
        tensors = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = tensors[0]
        for c in tensors[1:]:
            p = c + p * x
        return p


def cumulative_logsumexp(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """Running ``log(sum(exp(x)))`` along ``axis`` without overflow (``CumulativeLogsumexp``)."""
    with op_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("CumulativeLogsumexp", name=scope, x=x, axis=axis, exclusive=exclusive, reverse=reverse)


def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """The cross product of the innermost 3-vectors of ``a`` and ``b`` (``Cross``)."""
    return apply_op("Cross", name=name, a=a, b=b)
