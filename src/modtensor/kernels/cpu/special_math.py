"""CPU kernels of tf.math's safe divisions, NaN/inf tests and special functions, as numpy functions.

DivNoNan, Xdivy, Xlogy, Xlog1py (0 where TF's Eigen functors give 0, else the plain formula in the
input dtype), IsNan, IsInf, and Lgamma, Digamma, Erfinv, Ndtri: numpy has no special functions and
scipy is not a dependency, so these are evaluated in float64 (``math.lgamma`` per element, digamma's
recurrence and asymptotic series, Newton-refined inverses of erf/erfc) and rounded once to the input
dtype, as close to TF's as its own float32 kernels are (Erfinv rounds ``(x + 1) / 2`` in the input dtype
first, as TF's kernel does).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu import erf as _erf
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]


def _broadcast(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both operands broadcast to one shape, or TF's BCast error."""
    try:
        shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {shape_str(x.shape)} vs. {shape_str(y.shape)}") from None
    return np.broadcast_to(x, shape), np.broadcast_to(y, shape)


@ignoring_fp_errors
def div_no_nan(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x / y``, and 0 wherever ``y`` is 0 (even for a nonfinite ``x``)."""
    x, y = _broadcast(x, y)
    return np.where(y == 0, np.zeros((), x.dtype), x / y).astype(x.dtype, copy=False)


@ignoring_fp_errors
def xdivy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x / y``, and 0 wherever ``x`` is 0 (even for ``y`` 0 or NaN)."""
    x, y = _broadcast(x, y)
    return np.where(x == 0, x, x / y).astype(x.dtype, copy=False)


@ignoring_fp_errors
def xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * log(y)``, and 0 wherever ``x`` is 0 (even for ``y`` 0 or NaN)."""
    x, y = _broadcast(x, y)
    return np.where(x == 0, x, x * np.log(y)).astype(x.dtype, copy=False)


@ignoring_fp_errors
def xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * log1p(y)``, and 0 wherever ``x`` is 0 (even for ``y`` -1 or NaN)."""
    x, y = _broadcast(x, y)
    return np.where(x == 0, x, x * np.log1p(y)).astype(x.dtype, copy=False)


def is_nan(x: np.ndarray) -> np.ndarray:
    """Elementwise: is NaN."""
    return np.isnan(x)


def is_inf(x: np.ndarray) -> np.ndarray:
    """Elementwise: is +inf or -inf."""
    return np.isinf(x)


def _lgamma_scalar(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # poles at 0, -1, -2, ...
        return math.inf


def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| elementwise; +inf at the poles and at -inf."""
    flat = np.asarray(x, np.float64).ravel()
    out = np.fromiter((_lgamma_scalar(float(v)) for v in flat), np.float64, count=flat.size)
    return out.reshape(np.shape(x)).astype(x.dtype)


# Bernoulli terms of digamma's asymptotic series: B_2k / (2k), k = 1..7.
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


@ignoring_fp_errors
def _digamma64(x: np.ndarray) -> np.ndarray:
    """psi(x) of a float64 array: reflection below 0, recurrence up to 10, then the asymptotic series."""
    pole = (x <= 0) & (x == np.floor(x))
    negative = x < 0
    z = np.where(negative, 1.0 - x, x)
    shift = np.zeros_like(z)
    for _ in range(10):  # psi(z) = psi(z + 1) - 1/z until every z >= 10
        small = z < 10
        if not small.any():
            break
        shift = np.where(small, shift + 1.0 / z, shift)
        z = np.where(small, z + 1.0, z)
    inv2 = 1.0 / (z * z)
    series = np.zeros_like(z)
    for coeff in reversed(_DIGAMMA_SERIES):
        series = (series + coeff) * inv2
    psi = np.log(z) - 0.5 / z - series - shift
    psi = np.where(negative, psi - math.pi / np.tan(math.pi * x), psi)
    psi = np.where(np.isposinf(x), np.inf, psi)
    return np.where(pole | np.isneginf(x), np.nan, psi)


def digamma(x: np.ndarray) -> np.ndarray:
    """The digamma function psi(x) = d/dx lgamma(x) elementwise; NaN at the poles and at -inf."""
    return _digamma64(np.asarray(x, np.float64)).astype(x.dtype)


# Acklam's rational approximation of the normal quantile (relative error 1.2e-9), refined by Halley steps.
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_SQRT2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _horner(coeffs: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    out = np.full_like(t, coeffs[0])
    for c in coeffs[1:]:
        out = out * t + c
    return out


@ignoring_fp_errors
def _ndtri64(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile of a float64 array; -inf at 0, inf at 1, NaN outside [0, 1]."""
    inside = (p > 0) & (p < 1)
    q = np.where(inside, p, 0.5)
    tail = np.sqrt(-2.0 * np.log(np.minimum(q, 1.0 - q)))
    tail_z = _horner(_C, tail) / (_horner(_D, tail) * tail + 1.0)
    r = (q - 0.5) * (q - 0.5)
    central_z = (q - 0.5) * _horner(_A, r) / (_horner(_B, r) * r + 1.0)
    z = np.where(q < 0.02425, tail_z, np.where(q > 1 - 0.02425, -tail_z, central_z))
    for _ in range(2):  # Halley on Phi(z) - p, Phi from erfc so the lower tail keeps its precision
        e = 0.5 * _erf.erfc(-z / _SQRT2) - q
        u = e * _SQRT_2PI * np.exp(z * z / 2.0)
        z = z - u / (1.0 + z * u / 2.0)
    z = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, z))
    return np.where(inside | (p == 0) | (p == 1), z, np.nan)


def ndtri(x: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal CDF elementwise."""
    return _ndtri64(np.asarray(x, np.float64)).astype(x.dtype)


@ignoring_fp_errors
def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse error function elementwise, as TF's Eigen kernel: ``ndtri((x + 1) / 2) / sqrt(2)``.

    ``(x + 1) / 2`` is rounded in x's dtype first, as in TF, so values near 0 carry TF's error too.
    """
    x = np.asarray(x)
    half = (x + x.dtype.type(1)) / x.dtype.type(2)
    return (_ndtri64(half.astype(np.float64)) / _SQRT2).astype(x.dtype)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "DivNoNan": div_no_nan,
    "Xdivy": xdivy,
    "Xlogy": xlogy,
    "Xlog1py": xlog1py,
    "IsNan": is_nan,
    "IsInf": is_inf,
    "Lgamma": lgamma,
    "Digamma": digamma,
    "Erfinv": erfinv,
    "Ndtri": ndtri,
}

# TF 2.21's CPU kernels (tests/golden/op_breadth/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    **{op: {"T": "FLOATS COMPLEX"} for op in ("DivNoNan", "Xdivy", "Xlogy", "Xlog1py")},
    "IsNan": {"T": "FLOATS"},
    "IsInf": {"T": "FLOATS"},
    "Lgamma": {"T": "float16 float32 float64"},
    "Digamma": {"T": "float16 float32 float64"},
    "Erfinv": {"T": "float32 float64"},
    "Ndtri": {"T": "float32 float64"},
}
