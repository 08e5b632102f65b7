"""``modtensor.math``: TensorFlow's ``tf.math`` names (many are also top-level: ``tf.add`` is ``tf.math.add``)."""

import sys as _sys
import types as _types

from modtensor.api.losses import is_finite, reduce_logsumexp
from modtensor.api.math_ops import (
    abs,
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    conj,
    cos,
    divide,
    equal,
    erf,
    erfc,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    round,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)
from modtensor.api.nn_ops import log_softmax, softmax
from modtensor.api.segment_ops import (
    cumprod,
    cumsum,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from modtensor.api.sort_ops import top_k

__all__ = [
    # scans, segment reductions, top_k (issue 13)
    "cumprod",
    "cumsum",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "top_k",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sqrt_n",
    "unsorted_segment_sum",
    "abs",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "ceil",
    "cos",
    "divide",
    "equal",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "floor",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "conj",
    "negative",
    "not_equal",
    "pow",
    "reciprocal",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_std",
    "reduce_sum",
    "reduce_variance",
    "round",
    "rsqrt",
    "scalar_mul",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "sqrt",
    "square",
    "squared_difference",
    "subtract",
    "tanh",
    "truediv",
    # added with the losses (api/losses.py)
    "is_finite",
    "reduce_logsumexp",
]

# the rest of the trigonometric and hyperbolic functions, and tf.math-only rint, nextafter, the no-NaN products
from modtensor.api.math_ops import (  # noqa: E402
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cosh,
    multiply_no_nan,
    nextafter,
    reciprocal_no_nan,
    rint,
    sinh,
    tan,
)

__all__ += ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cosh", "multiply_no_nan", "nextafter",
            "reciprocal_no_nan", "rint", "sinh", "tan"]  # fmt: skip

# tf.math's everyday compositions (namespace-math work: api/math_ops.py, api/nn_impl.py)
from modtensor.api.math_ops import count_nonzero, polyval  # noqa: E402
from modtensor.api.nn_impl import l2_normalize  # noqa: E402

__all__ += ["count_nonzero", "l2_normalize", "polyval"]

# tf.math's safe divisions, NaN/inf tests and special functions (api/special_math_ops.py)
from modtensor.api.nn_ops import softsign  # noqa: E402
from modtensor.api.special_math_ops import (  # noqa: E402
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    digamma,
    divide_no_nan,
    erfcinv,
    erfinv,
    is_inf,
    is_nan,
    lgamma,
    ndtri,
    xdivy,
    xlog1py,
    xlogy,
)

__all__ += ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "digamma", "divide_no_nan", "erfcinv", "erfinv",
            "is_inf", "is_nan", "lgamma", "ndtri", "softsign", "xdivy", "xlog1py", "xlogy"]  # fmt: skip

# tf.math.special: of TF's special functions there, the modified Bessel functions of the first kind
special = _types.ModuleType(f"{__name__}.special", "tf.math.special: bessel_i0, bessel_i0e, bessel_i1, bessel_i1e.")
for _function in (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e):
    setattr(special, _function.__name__, _function)
special.__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]
_sys.modules[special.__name__] = special
__all__ += ["special"]

# tf.math.bincount and tf.math.in_top_k (api/counting_ops.py)
from modtensor.api.counting_ops import bincount, in_top_k  # noqa: E402

__all__ += ["bincount", "in_top_k"]

# tf.math.cumulative_logsumexp (api/math_ops.py)
from modtensor.api.math_ops import cumulative_logsumexp, reduce_euclidean_norm  # noqa: E402

__all__ += ["cumulative_logsumexp", "reduce_euclidean_norm"]

# tf.math.confusion_matrix (api/confusion_matrix.py)
from modtensor.api.confusion_matrix import confusion_matrix  # noqa: E402

__all__ += ["confusion_matrix"]

# complex numbers (api/spectral_ops.py)
from modtensor.api.spectral_ops import angle, imag, real  # noqa: E402

__all__ += ["angle", "imag", "real"]
