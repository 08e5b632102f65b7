"""Backward ops of array gradients: BroadcastGradientArgs, ..."""

from __future__ import annotations

import numpy as np

OPS = ["BroadcastGradientArgs"]


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    U = None  # noqa: N806
    for a, b in ([[2, 1, 3], [3]], [[1], [1]], [[1, 1], [1]], [[2, 3], [2, 3]], [[], [2, 3]], [[1, 3], [2, 1]],
                 [[5, 1], [1, 1]], [[2], [3]]):  # fmt: skip
        for dtype in (np.int32, np.int64):
            kernel_case("BroadcastGradientArgs", np.asarray(a, dtype), np.asarray(b, dtype))
    shape_case("BroadcastGradientArgs", P([U], "int32"), P([3], "int32"))
    shape_case("BroadcastGradientArgs", P([2, 2], "int32"), P([3], "int32"))
