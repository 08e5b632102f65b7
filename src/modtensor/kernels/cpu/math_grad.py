"""CPU kernels of the math backward ops gradient functions use, with TensorFlow's numerics.

``SigmoidGrad``, ``TanhGrad``, ``SqrtGrad``, ``RsqrtGrad`` and ``ReciprocalGrad`` take a unary
op's output ``y`` and the incoming gradient ``dy`` (same element count; the result has ``y``'s
shape). Each step is computed in the tensor's own dtype, half types included (Eigen's half
arithmetic rounds after every operation), in the order of TF's vectorized Eigen functors:

- SigmoidGrad: ``dy * (y * (1 - y))``
- TanhGrad: ``dy * (1 - y * y)``
- SqrtGrad: ``dy * (0.5 / conj(y))``, 0 where ``dy`` is 0
- RsqrtGrad: ``(-0.5 * (conj(y) * conj(y))) * (conj(y) * dy)``, 0 where ``dy`` is 0
- ReciprocalGrad: ``-(conj(y) * conj(y)) * dy``, 0 where ``dy`` is 0

The zero guards make a zero gradient stay zero where ``y`` is 0 or infinite (no NaN).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on


def _operands(y: Any, dy: Any) -> tuple[np.ndarray, np.ndarray]:
    y, dy = np.asarray(y), np.asarray(dy)
    if y.size != dy.size:
        raise invalid_argument(
            f"The two arguments to a cwise op must have same number of elements, got {y.size} and {dy.size}"
        )
    return y, dy.reshape(y.shape)


def _conj(y: np.ndarray) -> np.ndarray:
    return np.conj(y) if y.dtype.kind == "c" else y


def _zero_where_dy_is_zero(dy: np.ndarray, z: np.ndarray) -> np.ndarray:
    zero = dy == 0
    if zero.any():
        z = np.where(zero, np.zeros((), z.dtype), z)
    return z


def _kernel(fn: Callable[[np.ndarray, np.ndarray, Any], np.ndarray], name: str) -> Callable[..., np.ndarray]:
    def kernel(y: Any, dy: Any) -> np.ndarray:
        y, dy = _operands(y, dy)
        token = quiet_on()
        try:
            return np.asarray(fn(y, dy, y.dtype.type), dtype=y.dtype)
        finally:
            quiet_off(token)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = fn.__doc__
    return kernel


def _sigmoid_grad(y: np.ndarray, dy: np.ndarray, t: Any) -> np.ndarray:
    """``dy * y * (1 - y)``: the gradient of sigmoid's input from its output ``y``."""
    return dy * (y * (t(1) - y))


def _tanh_grad(y: np.ndarray, dy: np.ndarray, t: Any) -> np.ndarray:
    """``dy * (1 - y**2)``: the gradient of tanh's input from its output ``y``."""
    return dy * (t(1) - y * y)


def _sqrt_grad(y: np.ndarray, dy: np.ndarray, t: Any) -> np.ndarray:
    """``dy / (2 conj(y))``: the gradient of sqrt's input from its output ``y`` (0 where ``dy`` is 0)."""
    return _zero_where_dy_is_zero(dy, dy * (t(0.5) / _conj(y)))


def _rsqrt_grad(y: np.ndarray, dy: np.ndarray, t: Any) -> np.ndarray:
    """``-dy conj(y)**3 / 2``: the gradient of rsqrt's input from its output ``y`` (0 where ``dy`` is 0)."""
    cy = _conj(y)
    return _zero_where_dy_is_zero(dy, (t(-0.5) * (cy * cy)) * (cy * dy))


def _reciprocal_grad(y: np.ndarray, dy: np.ndarray, t: Any) -> np.ndarray:
    """``-dy conj(y)**2``: the gradient of reciprocal's input from its output ``y`` (0 where ``dy`` is 0)."""
    cy = _conj(y)
    return _zero_where_dy_is_zero(dy, -(cy * cy) * dy)


sigmoid_grad = _kernel(_sigmoid_grad, "sigmoid_grad")
tanh_grad = _kernel(_tanh_grad, "tanh_grad")
sqrt_grad = _kernel(_sqrt_grad, "sqrt_grad")
rsqrt_grad = _kernel(_rsqrt_grad, "rsqrt_grad")
reciprocal_grad = _kernel(_reciprocal_grad, "reciprocal_grad")


def conj(x: np.ndarray) -> np.ndarray:
    """The complex conjugate, elementwise (Conj)."""
    return np.asarray(np.conjugate(x))


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "Conj": conj,
    "SigmoidGrad": sigmoid_grad,
    "TanhGrad": tanh_grad,
    "SqrtGrad": sqrt_grad,
    "RsqrtGrad": rsqrt_grad,
    "ReciprocalGrad": reciprocal_grad,
}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {op: {"T": "FLOATS COMPLEX"} for op in OP_FUNCTIONS}
CPU_TYPE_CONSTRAINTS["Conj"] = {"T": "COMPLEX"}
