"""Elementwise math with TensorFlow's semantics: unary/binary arithmetic, comparisons, logic, select, cast.

Inputs are numpy arrays already validated against the op's type attrs (both
operands of a binary op share a dtype); outputs keep TF's dtype (integer math
stays integer, comparisons give bool). Binary ops broadcast as TF does and
reject incompatible shapes with TF's "Incompatible shapes" message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from modtensor.framework import dtypes, op_spec
from modtensor.framework.errors import InternalError
from modtensor.kernels.cpu import erf as _erf
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors, quiet_off, quiet_on
from modtensor.kernels.cpu.precision import HALF_TYPES

# float16 and bfloat16 math is done in float32 and rounded once per op, as TF's CPU kernels do.
_WIDENED = HALF_TYPES


def _is_int(dtype: np.dtype) -> bool:
    return np.issubdtype(dtype, np.integer)


def _check_broadcast(x: np.ndarray, y: np.ndarray) -> None:
    """Raise TF's error when x and y do not broadcast together."""
    if x.shape == y.shape or not x.shape or not y.shape:
        return
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {shape_str(x.shape)} vs. {shape_str(y.shape)}") from None


_HALF_SCALARS = frozenset(t.type for t in HALF_TYPES)


def _float_unary(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Wrap a numpy ufunc so half types compute in float32 and no FP warnings leak."""
    is_ufunc = isinstance(fn, np.ufunc)

    def kernel(x: np.ndarray) -> np.ndarray:
        if type(x) is not np.ndarray:
            x = np.asarray(x)
        dt = x.dtype
        token = quiet_on()
        try:
            if dt.type in _HALF_SCALARS:
                return np.asarray(fn(x.astype(np.float32)), dtype=dt)
            out = fn(x, out=...) if is_ufunc else np.asarray(fn(x))
        finally:
            quiet_off(token)
        return out if out.dtype is dt or out.dtype == dt else out.astype(dt)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    kernel.__doc__ = f"Elementwise {kernel.__name__} in x's dtype (TF's unary op semantics)."
    return kernel


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str) -> Callable[..., np.ndarray]:
    """Wrap a numpy ufunc as a broadcasting binary kernel that keeps the operands' dtype.

    The common case (ndarrays, a non-half dtype) is one ufunc call writing a fresh
    array (``out=...`` keeps 0-d results arrays) under a cheaply switched-in quiet
    floating-point state.
    """
    is_ufunc = isinstance(fn, np.ufunc)

    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if type(x) is not np.ndarray:
            x = np.asarray(x)
        if type(y) is not np.ndarray:
            y = np.asarray(y)
        xs, ys = x.shape, y.shape
        if xs != ys and xs and ys:
            _check_broadcast(x, y)
        dt = x.dtype
        token = quiet_on()
        try:
            if dt.type in _HALF_SCALARS:
                return np.asarray(fn(x.astype(np.float32), y.astype(np.float32)), dtype=dt)
            out = fn(x, y, out=...) if is_ufunc else np.asarray(fn(x, y))
        finally:
            quiet_off(token)
        return out if out.dtype is dt or out.dtype == dt else out.astype(dt)

    kernel.__name__ = name
    kernel.__doc__ = f"Broadcasting elementwise {name} in the operands' dtype."
    return kernel


def _compare(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str) -> Callable[..., np.ndarray]:
    @ignoring_fp_errors
    def compute(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(fn(x, y), dtype=np.bool_)

    def kernel(x: np.ndarray, y: np.ndarray, incompatible_shape_error: bool = True) -> np.ndarray:
        x, y = np.asarray(x), np.asarray(y)
        if not incompatible_shape_error:
            try:
                np.broadcast_shapes(x.shape, y.shape)
            except ValueError:
                # Equal/NotEqual with incompatible_shape_error=False answer a scalar.
                return np.asarray(name == "not_equal")
        _check_broadcast(x, y)
        return compute(x, y)

    kernel.__name__ = name
    kernel.__doc__ = f"Broadcasting elementwise {name}, giving bool."
    return kernel


# ---------------------------------------------------------------- arithmetic

add = _binary(np.add, "add")
sub = _binary(np.subtract, "sub")
mul = _binary(np.multiply, "mul")
maximum = _binary(np.maximum, "maximum")  # np.maximum propagates NaN, as TF does
minimum = _binary(np.minimum, "minimum")


def real_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RealDiv: IEEE division of floats (x/0 is +-inf or NaN, no warning)."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        return _int_div(x, y, truncate=True)
    return _binary(np.true_divide, "real_div")(x, y)


def _check_int_divisor(y: np.ndarray) -> None:
    if np.any(y == 0):
        raise invalid_argument("Integer division by zero")


def _int_div(x: np.ndarray, y: np.ndarray, *, truncate: bool) -> np.ndarray:
    _check_int_divisor(y)
    with np.errstate(all="ignore"):
        q = np.floor_divide(x, y)
        if truncate:
            # C division rounds toward zero: fix floor's result where signs differ and a remainder exists.
            q = q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return np.asarray(q, dtype=x.dtype)


def div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Div: integer division truncates toward zero (C semantics), float division is IEEE."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        return _int_div(x, y, truncate=True)
    return _binary(np.true_divide, "div")(x, y)


def floor_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """FloorDiv: floor(x / y); ints round toward -inf and reject a zero divisor."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        return _int_div(x, y, truncate=False)
    # TF computes floor(x / y) with the quotient rounded to x's dtype and, as TF's CPU threads flush
    # denormals to zero, a denormal quotient floors to -0.0, not -1. This differs from numpy's
    # divmod-based floor_divide (1.0 // 0.1 is 9.0 there, 10.0 in TF).
    q = _binary(np.true_divide, "floor_div")(x, y)
    tiny = np.finfo(q.dtype).tiny
    with np.errstate(all="ignore"):
        q = np.where(np.abs(q) < tiny, q * 0, q)
        return np.asarray(np.floor(q), dtype=x.dtype)


def _float_floor_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = np.fmod(x, y)
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)


def floor_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """FloorMod: the remainder takes the divisor's sign (ints: zero divisor is an error)."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        _check_int_divisor(y)
        with np.errstate(all="ignore"):
            return np.asarray(np.remainder(x, y), dtype=x.dtype)
    return _binary(_float_floor_mod, "floor_mod")(x, y)


def _check_truncating_divisor(y: np.ndarray) -> None:
    """TF 2.21's TruncateDiv / TruncateMod report an integer zero divisor as an internal error, in these words."""
    if np.any(y == 0):
        raise InternalError(
            None, None, "Unexpected error in binary operator (only integer div and mod should have errors)"
        )


def truncate_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """TruncateDiv: the quotient rounded toward zero (C division; ints reject a zero divisor)."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        _check_truncating_divisor(y)
        return _int_div(x, y, truncate=True)
    return _binary(lambda a, b: np.trunc(np.true_divide(a, b)), "truncate_div")(x, y)


def truncate_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """TruncateMod: C's remainder, with the dividend's sign (``fmod`` for floats; ints reject a zero divisor)."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        _check_truncating_divisor(y)
        with np.errstate(all="ignore"):
            return np.asarray(np.fmod(x, y), dtype=x.dtype)
    return _binary(np.fmod, "truncate_mod")(x, y)


def _mul_no_nan(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(y == 0, np.zeros((), np.result_type(x, y)), np.multiply(x, y))


mul_no_nan = _binary(_mul_no_nan, "mul_no_nan")  # 0 where y is 0, even for a NaN or infinite x
atan2 = _binary(np.arctan2, "atan2")
next_after = _binary(np.nextafter, "next_after")


def pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # noqa: A001 - TF's op name
    """Pow: x ** y; integer bases reject negative integer exponents as TF does."""
    x, y = np.asarray(x), np.asarray(y)
    _check_broadcast(x, y)
    if _is_int(x.dtype):
        if np.any(y < 0):
            raise invalid_argument("Integers to negative integer powers are not allowed")
        with np.errstate(all="ignore"):
            return np.asarray(np.power(x, y), dtype=x.dtype)
    return _binary(np.power, "pow")(x, y)


def squared_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """SquaredDifference: (x - y) ** 2 elementwise; half types round the difference first, as TF does."""
    return square(sub(x, y))


def neg(x: np.ndarray) -> np.ndarray:
    """Neg: -x (integers wrap as in C)."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.asarray(np.negative(x), dtype=x.dtype)


def abs(x: np.ndarray) -> np.ndarray:  # noqa: A001 - TF's op name
    """Abs: |x| in x's dtype."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.asarray(np.abs(x), dtype=x.dtype)


def square(x: np.ndarray) -> np.ndarray:
    """Square: x * x in x's dtype."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.asarray(np.multiply(x, x), dtype=x.dtype)


def sign(x: np.ndarray) -> np.ndarray:
    """Sign: -1, 0 or 1 (NaN stays NaN)."""
    x = np.asarray(x)
    return np.asarray(np.sign(x), dtype=x.dtype)


def round(x: np.ndarray) -> np.ndarray:  # noqa: A001 - TF's op name
    """Round: half to even (banker's rounding); integers are unchanged."""
    x = np.asarray(x)
    if _is_int(x.dtype):
        return x.copy()
    return np.asarray(np.round(x), dtype=x.dtype)


sqrt = _float_unary(np.sqrt)
exp = _float_unary(np.exp)
log = _float_unary(np.log)
log1p = _float_unary(np.log1p)
expm1 = _float_unary(np.expm1)
floor = _float_unary(np.floor)
ceil = _float_unary(np.ceil)
sin = _float_unary(np.sin)
cos = _float_unary(np.cos)
tan = _float_unary(np.tan)
asin = _float_unary(np.arcsin)
acos = _float_unary(np.arccos)
atan = _float_unary(np.arctan)
sinh = _float_unary(np.sinh)
cosh = _float_unary(np.cosh)
asinh = _float_unary(np.arcsinh)
acosh = _float_unary(np.arccosh)
atanh = _float_unary(np.arctanh)
rint = _float_unary(np.rint)  # halves to even, as TF's Rint
reciprocal = _float_unary(np.reciprocal)


def rsqrt(x: np.ndarray) -> np.ndarray:
    """Rsqrt: 1 / sqrt(x)."""
    return _float_unary(lambda v: 1.0 / np.sqrt(v))(x)


def erf(x: np.ndarray) -> np.ndarray:
    """Erf: the error function, accurate to the dtype's precision."""
    return _erf.erf(x)


def erfc(x: np.ndarray) -> np.ndarray:
    """Erfc: 1 - erf(x), accurate in the tails."""
    return _erf.erfc(x)


# ---------------------------------------------------------------- comparisons and logic

less = _compare(np.less, "less")
less_equal = _compare(np.less_equal, "less_equal")
greater = _compare(np.greater, "greater")
greater_equal = _compare(np.greater_equal, "greater_equal")
equal = _compare(np.equal, "equal")
not_equal = _compare(np.not_equal, "not_equal")


def logical_and(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """LogicalAnd of bools, broadcasting."""
    return _binary(np.logical_and, "logical_and")(x, y)


def logical_or(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """LogicalOr of bools, broadcasting."""
    return _binary(np.logical_or, "logical_or")(x, y)


def logical_not(x: np.ndarray) -> np.ndarray:
    """LogicalNot of bools."""
    return np.logical_not(np.asarray(x))


# Kernels the executor's C plan loop may compute itself on two 0-d operands of one int32/int64/float32/float64
# (bool) dtype, with these functions' results (csrc/plan/scalar_ops.c, by these names; other operands still
# come here): the counters, bounds and predicates of while loops.
for _kernel in (add, sub, mul, maximum, minimum, less, less_equal, greater, greater_equal, equal, not_equal,
                logical_and, logical_or):  # fmt: skip
    _kernel.scalar_op = _kernel.__name__  # type: ignore[attr-defined]
del _kernel


# ---------------------------------------------------------------- select


def select(condition: np.ndarray, t: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Select (v1): condition is t's shape, a scalar, or a vector picking whole rows of t and e; no broadcasting."""
    condition, t, e = np.asarray(condition), np.asarray(t), np.asarray(e)
    if t.shape != e.shape:
        raise invalid_argument(
            f"'then' and 'else' must have the same size.  but received: {shape_str(t.shape)} vs. {shape_str(e.shape)}"
        )
    if condition.ndim == 0:
        return np.asarray(t if condition else e).copy()
    if condition.shape == t.shape:
        return np.where(condition, t, e)
    if condition.ndim == 1 and t.ndim >= 1:
        if condition.shape[0] != t.shape[0]:
            raise invalid_argument(
                f"Number of batches of 'then' must match size of 'cond', but saw: {t.shape[0]} vs. {condition.shape[0]}"
            )
        return np.where(condition.reshape(condition.shape + (1,) * (t.ndim - 1)), t, e)
    raise invalid_argument(
        "Inputs to operation Select of type Select must have the same size and shape.  "
        f"Input 0: {shape_str(condition.shape)} != input 1: {shape_str(t.shape)}"
    )


def select_v2(condition: np.ndarray, t: np.ndarray, e: np.ndarray) -> np.ndarray:
    """SelectV2: elementwise choice with all three operands broadcast together."""
    condition, t, e = np.asarray(condition), np.asarray(t), np.asarray(e)
    try:
        np.broadcast_shapes(condition.shape, t.shape, e.shape)
    except ValueError:
        raise invalid_argument(
            f"condition {shape_str(condition.shape)}, then {shape_str(t.shape)}, and else "
            f"{shape_str(e.shape)} must be broadcastable"
        ) from None
    return np.asarray(np.where(condition, t, e), dtype=t.dtype)


# ---------------------------------------------------------------- cast

_MANTISSA_BITS = {np.dtype(np.float64): 52, np.dtype(np.float32): 23, np.dtype(np.float16): 10}
_UINT_OF = {8: np.uint64, 4: np.uint32, 2: np.uint16}
_MANTISSA_BITS[np.dtype(ml_dtypes.bfloat16)] = 7


def as_numpy_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype from a dtype attr given as numpy dtype, name, or an object with ``as_numpy_dtype``."""
    return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))


def _truncate_mantissa(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """Zero the mantissa bits the destination float lacks, so the cast truncates instead of rounding."""
    drop = _MANTISSA_BITS.get(x.dtype, 0) - _MANTISSA_BITS.get(dst, 0)
    if drop <= 0:
        return x
    uint = _UINT_OF[x.dtype.itemsize]
    bits = x.view(uint) & ~uint((1 << drop) - 1)
    return np.where(np.isnan(x), x, bits.view(x.dtype))


def cast(x: np.ndarray, DstT: Any, Truncate: bool = False) -> np.ndarray:  # noqa: N803 - TF's attr names
    """Cast x to DstT as C's static_cast does (float->int truncates, nonzero->True, bool->0/1)."""
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    dst = _CAST_TARGETS.get(DstT)
    if dst is None:
        dst = as_numpy_dtype(DstT)
        with contextlib.suppress(TypeError):
            _CAST_TARGETS[DstT] = dst
    if (dst == np.object_) != (x.dtype == np.object_):  # TF's CPU Cast: strings only to strings
        names = [
            "string" if dt == np.object_ else op_spec.data_type_string(dtypes.as_dtype(dt).as_datatype_enum)
            for dt in (x.dtype, DstT)
        ]
        raise unimplemented(f"Cast {names[0]} to {names[1]} is not supported")
    if dst == np.bool_:
        return np.asarray(x != 0)
    if Truncate and x.dtype in _MANTISSA_BITS and dst in _MANTISSA_BITS:
        x = _truncate_mantissa(x, dst)
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real
    token = quiet_on()
    try:
        return x.astype(dst)
    finally:
        quiet_off(token)


# DstT attr value -> numpy dtype (the attr arrives as a DType, numpy dtype or name).
_CAST_TARGETS: dict[Any, np.dtype] = {}


# Added with tf.add_n (frontend issue).
def add_n(inputs: list[np.ndarray]) -> np.ndarray:
    """AddN: the sum of same-shaped tensors (no broadcasting), added left to right in their dtype as TF does."""
    arrays = [np.asarray(x) for x in inputs]
    first = arrays[0]
    for i, x in enumerate(arrays[1:], start=1):
        if x.shape != first.shape:
            raise invalid_argument(
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {shape_str(first.shape)} != input {i}: {shape_str(x.shape)}"
            )
    total = first.copy()
    with np.errstate(all="ignore"):
        for x in arrays[1:]:
            total += x
    return total
