"""tf.math's safe divisions, NaN/inf tests and special functions, built as TF 2.21's Python builds them.

``divide_no_nan`` converts and casts like ``tf.math.divide`` (integers to float) before ``DivNoNan``;
``xdivy``, ``xlog1py``, ``erfinv``, ``ndtri`` and ``erfcinv`` open TF's name scope around their op;
the Bessel functions too; the others are TF's generated wrappers (the op takes ``name``).
"""

from __future__ import annotations

import math
from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.api.math_ops import _TRUEDIV_TABLE, cast
from modtensor.api.op_scope import convert_to_tensor, is_tensor, op_scope
from modtensor.framework.tensor import Tensor

__all__ = [
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "digamma",
    "divide_no_nan",
    "erfcinv",
    "erfinv",
    "is_inf",
    "is_nan",
    "lgamma",
    "ndtri",
    "xdivy",
    "xlog1py",
    "xlogy",
]


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y``, 0 where ``y`` is 0 (``DivNoNan``); integers are cast to float as ``tf.math.divide`` does."""
    with op_scope(name, "div_no_nan", [x, y]) as scope:
        if not is_tensor(x) and is_tensor(y):
            y = convert_to_tensor(y, name="y")
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
        else:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}.")
        try:
            target = _TRUEDIV_TABLE[x_dtype]
        except KeyError:
            expected = ", ".join(repr(d) for d in _TRUEDIV_TABLE)
            raise TypeError(
                f"Invalid dtype {x_dtype!r} in tf.math.divide_no_nan. Expected one of {{{expected}}}."
            ) from None
        if target is not None:
            x = cast(x, target)
            y = cast(y, target)
        return apply_op("DivNoNan", name=scope, x=x, y=y)


def xdivy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y``, 0 where ``x`` is 0 (``Xdivy``)."""
    with op_scope(name, "xdivy", [x]):
        return apply_op("Xdivy", x=x, y=y)


def xlogy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x * log(y)``, 0 where ``x`` is 0 (``Xlogy``)."""
    return apply_op("Xlogy", name=name, x=x, y=y)


def xlog1py(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x * log1p(y)``, 0 where ``x`` is 0 (``Xlog1py``)."""
    with op_scope(name, "xlog1py", [x]):
        return apply_op("Xlog1py", x=x, y=y)


def is_nan(x: Any, name: str | None = None) -> Tensor:
    """Elementwise: is NaN (``IsNan``)."""
    return apply_op("IsNan", name=name, x=x)


def is_inf(x: Any, name: str | None = None) -> Tensor:
    """Elementwise: is +inf or -inf (``IsInf``)."""
    return apply_op("IsInf", name=name, x=x)


def lgamma(x: Any, name: str | None = None) -> Tensor:
    """``log|Gamma(x)|`` elementwise (``Lgamma``)."""
    return apply_op("Lgamma", name=name, x=x)


def digamma(x: Any, name: str | None = None) -> Tensor:
    """The derivative of lgamma elementwise (``Digamma``)."""
    return apply_op("Digamma", name=name, x=x)


def erfinv(x: Any, name: str | None = None) -> Tensor:
    """The inverse error function elementwise (``Erfinv``)."""
    with op_scope(name, "erfinv", [x]):
        return apply_op("Erfinv", x=x)


def ndtri(x: Any, name: str | None = None) -> Tensor:
    """The standard normal quantile elementwise (``Ndtri``)."""
    with op_scope(name, "ndtri", [x]):
        return apply_op("Ndtri", x=x)


def erfcinv(x: Any, name: str | None = None) -> Tensor:
    """The inverse complementary error function, ``-ndtri(x / 2) * sqrt(0.5)`` as TF composes it."""
    with op_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * math.sqrt(0.5)


def _bessel(op_type: str, default_name: str, doc: str) -> Any:
    def function(x: Any, name: str | None = None) -> Tensor:
        with op_scope(name, default_name, [x]):
            return apply_op(op_type, x=x)

    function.__name__ = function.__qualname__ = default_name
    function.__doc__ = doc
    return function


bessel_i0 = _bessel(
    "BesselI0", "bessel_i0", "The modified Bessel function of the first kind of order 0 (``BesselI0``)."
)
bessel_i0e = _bessel("BesselI0e", "bessel_i0e", "``exp(-|x|) * bessel_i0(x)``, finite for large |x| (``BesselI0e``).")
bessel_i1 = _bessel(
    "BesselI1", "bessel_i1", "The modified Bessel function of the first kind of order 1 (``BesselI1``)."
)
bessel_i1e = _bessel("BesselI1e", "bessel_i1e", "``exp(-|x|) * bessel_i1(x)``, finite for large |x| (``BesselI1e``).")
