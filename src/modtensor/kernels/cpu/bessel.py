"""CPU kernels of the modified Bessel functions of the first kind: BesselI0e, BesselI1e, BesselI0, BesselI1.

TF's kernels evaluate Cephes' Chebyshev expansions (its ``i0e``/``i1e``: one series in ``x / 2 - 2`` up to
``|x| = 8``, one in ``32 / |x| - 2`` times ``1 / sqrt(|x|)`` above), with the full double-precision series for
float64 and their shorter tails in float32 arithmetic for float32; float16 goes through float32. These do the same
in numpy, so a float32 result carries TF's own float32 rounding. ``I0``/``I1`` are ``exp(|x|)`` (in the dtype, so it
overflows where TF's does) times the scaled function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]

# Cephes' coefficients (i0.c, i1.c): the series for |x| <= 8 (A) and for |x| > 8 (B), highest order first. The
# float32 kernels use the last 18 / 7 (I0) and 17 / 7 (I1) of them.
_I0_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16, 1.71539128555513303061e-15,
    -1.16853328779934516808e-14, 7.67618549860493561688e-14, -4.85644678311192946090e-13, 2.95505266312963983461e-12,
    -1.72682629144155570723e-11, 9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
    -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07, 1.11738753912010371815e-06,
    -4.41673835845875056359e-06, 1.64484480707288970893e-05, -5.75419501008210370398e-05, 1.88502885095841655729e-04,
    -5.76375574538582365885e-04, 1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
    -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02, 1.71620901522208775349e-01,
    -3.04682672343198398683e-01, 6.76795274409476084995e-01,
)  # fmt: skip
_I0_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17, 3.46122286769746109310e-17,
    -2.82762398051658348494e-16, -3.42548561967721913462e-16, 1.77256013305652638360e-15, 3.81168066935262242075e-15,
    -9.55484669882830764870e-15, -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11, -3.14991652796324136454e-11,
    1.18891471078464383424e-11, 4.94060238822496958910e-10, 3.39623202570838634515e-09, 2.26666899049817806459e-08,
    2.04891858946906374183e-07, 2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
    8.04490411014108831608e-01,
)  # fmt: skip
_I1_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16, -1.10559694773538630805e-15,
    7.60068429473540693410e-15, -5.04218550472791168711e-14, 3.22379336594557470981e-13, -1.98397439776494371520e-12,
    1.17361862988909016308e-11, -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
    9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07, -8.56872026469545474066e-07,
    3.47025130813767847674e-06, -1.32731636560394358279e-05, 4.78156510755005422638e-05, -1.61760815825896745588e-04,
    5.12285956168575772895e-04, -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
    2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01, -1.76416518357834055153e-01,
    2.52587186443633654823e-01,
)  # fmt: skip
_I1_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17, -3.20952592199342395980e-17,
    2.96262899764595013876e-16, 3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15,
    1.04202769841288027642e-14, 4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11, 3.25260358301548823856e-11,
    -1.89749581235054123450e-11, -5.58974346219658380687e-10, -3.83538038596423702205e-09, -2.63146884688951950684e-08,
    -2.51223623787020892529e-07, -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
    7.78576235018280120474e-01,
)  # fmt: skip
# Each function's two series with the number of trailing terms its float32 kernel keeps.
_I0 = ((_I0_A, 18), (_I0_B, 7))
_I1 = ((_I1_A, 17), (_I1_B, 7))


def _chebyshev(t: np.ndarray, series: tuple[tuple[float, ...], int]) -> np.ndarray:
    """Cephes' chbevl: a Chebyshev series at ``t`` by Clenshaw's recurrence, in t's dtype (float32: its tail)."""
    coeffs, float32_terms = series
    c = np.asarray(coeffs[-float32_terms:] if t.dtype == np.float32 else coeffs, t.dtype)
    b0, b1, b2 = np.full_like(t, c[0]), np.zeros_like(t), np.zeros_like(t)
    for value in c[1:]:
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + value
    return (b0 - b2) * t.dtype.type(0.5)


def _working(x: np.ndarray) -> np.ndarray:
    """x in the dtype TF computes in: float16 through float32."""
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == np.float16 else x


@ignoring_fp_errors
def _scaled(x: np.ndarray, function: tuple, odd: bool) -> np.ndarray:
    """exp(-|x|) I_n(x) for n = 0 (odd False, ``_I0``) or 1 (``_I1``), in x's working dtype."""
    small, large = function
    one = x.dtype.type
    y = np.abs(x)
    near = _chebyshev(y * one(0.5) - one(2.0), small)
    if odd:
        near = near * y
    far = _chebyshev(one(32.0) / y - one(2.0), large) / np.sqrt(y)
    out = np.where(y <= one(8.0), near, far)
    return np.where(x < 0, -out, out) if odd else out


@ignoring_fp_errors
def bessel_i0e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I0(x) elementwise."""
    w = _working(x)
    return _scaled(w, _I0, odd=False).astype(x.dtype, copy=False)


@ignoring_fp_errors
def bessel_i1e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I1(x) elementwise."""
    w = _working(x)
    return _scaled(w, _I1, odd=True).astype(x.dtype, copy=False)


@ignoring_fp_errors
def bessel_i0(x: np.ndarray) -> np.ndarray:
    """I0(x) elementwise: exp(|x|) times I0e, both in the working dtype (inf where exp overflows)."""
    w = _working(x)
    return (np.exp(np.abs(w)) * _scaled(w, _I0, odd=False)).astype(x.dtype, copy=False)


@ignoring_fp_errors
def bessel_i1(x: np.ndarray) -> np.ndarray:
    """I1(x) elementwise: exp(|x|) times I1e, both in the working dtype."""
    w = _working(x)
    return (np.exp(np.abs(w)) * _scaled(w, _I1, odd=True)).astype(x.dtype, copy=False)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "BesselI0e": bessel_i0e,
    "BesselI1e": bessel_i1e,
    "BesselI0": bessel_i0,
    "BesselI1": bessel_i1,
}

# TF 2.21's CPU kernels (tests/golden/spectral_ops/ops/cpu_kernel_constraints.json): no bfloat16 kernel.
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {op: {"T": "float16 float32 float64"} for op in OP_FUNCTIONS}
