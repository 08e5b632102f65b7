"""Backward ops of math gradients: SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad; Conj.

Also kernel cases of the Einsum forms only gradients use: a label repeated in the output (the
gradient of a diagonal or trace puts values on a diagonal).
"""

from __future__ import annotations

import numpy as np

UNARY_GRADIENT_OPS = ["SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"]
OPS = [*UNARY_GRADIENT_OPS, "Conj"]

# y (a unary op's output) and dy where the kernels' guards and IEEE rules show: zeros, infinities, NaN.
_SPECIAL_Y = [0.0, 0.0, 1.0, np.inf, np.inf, -np.inf, np.nan, 2.0, 0.0, 3.0, -1.5, 0.25]
_SPECIAL_DY = [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, np.nan, np.inf, 1.0, 0.0, -2.0]


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    U = None  # noqa: N806
    for op in UNARY_GRADIENT_OPS:
        # (no bfloat16 cases: the kernel goldens' npz files cannot hold it; the kernels compute it like float16)
        for dtype in (np.float32, np.float64, np.float16, np.complex64, np.complex128):
            kernel_case(op, rnd((3, 37), dtype), rnd((3, 37), dtype))
        kernel_case(op, np.asarray(_SPECIAL_Y, np.float32), np.asarray(_SPECIAL_DY, np.float32))
        kernel_case(op, np.asarray(_SPECIAL_Y, np.float64), np.asarray(_SPECIAL_DY, np.float64))
        kernel_case(op, rnd((), np.float32), rnd((), np.float32))
        kernel_case(op, rnd((0, 3)), rnd((0,)))
        kernel_case(op, rnd((2, 3)), rnd((6,)))  # same element count: y's shape
        kernel_case(op, rnd((2, 3)), rnd((3,)))  # different counts: TF's error
        shape_case(op, P([2, U]), P([U, 3]))
        shape_case(op, P(None), P([2, 3]))
        shape_case(op, P([2, 3]), P(None))
        shape_case(op, P([2, 3], "float64"), P([3], "float64"))
    for dtype in (np.complex64, np.complex128):
        kernel_case("Conj", rnd((2, 5), dtype))
        kernel_case("Conj", rnd((), dtype))
    shape_case("Conj", P([2, U], "complex64"))
    shape_case("Conj", P(None, "complex128"))
    inflating = (("i->ii", [(3,)]), ("bi->bii", [(2, 3)]), ("i,j->iij", [(3,), (2,)]), ("ij->iji", [(3, 2)]),
                 ("ab,b->aab", [(2, 3), (3,)]), ("...i->...ii", [(2, 3)]))  # fmt: skip
    for equation, shapes in inflating:
        kernel_case("Einsum", [rnd(s) for s in shapes], equation=equation)
    kernel_case("Einsum", [rnd((2, 3), np.float64)], equation="ij->jii")
