"""Backward ops of image gradients: ResizeBilinearGrad, ResizeNearestNeighborGrad, ResizeBicubicGrad."""

from __future__ import annotations

import numpy as np

OPS = ["ResizeBilinearGrad", "ResizeNearestNeighborGrad", "ResizeBicubicGrad"]

MODES = [  # (align_corners, half_pixel_centers)
    (False, False),
    (True, False),
    (False, True),
]
SIZES = [  # (original h, w), (resized h, w)
    ((4, 5), (7, 3)),
    ((6, 6), (3, 4)),
    ((3, 4), (3, 4)),
    ((1, 5), (4, 2)),
]


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    U = None  # noqa: N806
    for (ih, iw), (oh, ow) in SIZES:
        grads = rnd((2, oh, ow, 3))
        image = rnd((2, ih, iw, 3))
        for align, half in MODES:
            attrs = {"align_corners": align, "half_pixel_centers": half}
            kernel_case("ResizeBilinearGrad", grads, image, **attrs)
            kernel_case("ResizeBicubicGrad", grads, image, **attrs)
            kernel_case("ResizeNearestNeighborGrad", grads, np.array([ih, iw], np.int32), **attrs)
    grads = rnd((1, 5, 7, 2))
    for dt in (np.float64, np.float16):
        kernel_case("ResizeBilinearGrad", grads, rnd((1, 3, 4, 2), dt), half_pixel_centers=True)
        kernel_case("ResizeNearestNeighborGrad", grads.astype(dt), np.array([3, 4], np.int32), half_pixel_centers=True)
    kernel_case("ResizeBicubicGrad", grads, rnd((1, 3, 4, 2), np.float64), half_pixel_centers=True)
    kernel_case("ResizeBicubicGrad", grads, rnd((1, 3, 4, 2), np.float64))
    for dt in (np.int32, np.uint8, np.int8):
        kernel_case("ResizeNearestNeighborGrad", rnd((1, 5, 7, 2), dt), np.array([3, 4], np.int32))
    # errors
    kernel_case("ResizeBilinearGrad", grads, rnd((1, 3, 4)))
    kernel_case("ResizeBilinearGrad", grads, rnd((1, 3, 4, 2)), align_corners=True, half_pixel_centers=True)
    kernel_case("ResizeNearestNeighborGrad", grads, np.array([3, 4, 1], np.int32))
    kernel_case("ResizeNearestNeighborGrad", grads, np.array([0, 4], np.int32))
    kernel_case("ResizeNearestNeighborGrad", rnd((5, 7, 2)), np.array([3, 4], np.int32))
    kernel_case("ResizeBilinearGrad", rnd((5, 7, 2)), rnd((1, 3, 4, 2)))
    # the gradient's batch and channels come from grads, the original image gives only its height and width
    kernel_case("ResizeBilinearGrad", rnd((2, 5, 7, 3)), rnd((1, 3, 4, 1)))
    kernel_case("ResizeBicubicGrad", rnd((2, 5, 7, 3)), rnd((1, 3, 4, 1)))
    # shapes
    for op in ("ResizeBilinearGrad", "ResizeBicubicGrad"):
        shape_case(op, P([2, 5, 7, 3]), P([2, U, 4, 3]))
        shape_case(op, P([2, 5, 7, 3]), P(None))
        shape_case(op, P(None), P([1, 2, 3]))
    shape_case("ResizeNearestNeighborGrad", P([2, 5, 7, 3]), C([3, 4]))
    shape_case("ResizeNearestNeighborGrad", P([2, 5, 7, 3]), P([2], "int32"))
    shape_case("ResizeNearestNeighborGrad", P(None), C([3, 4]))
    shape_case("ResizeNearestNeighborGrad", P([2, 5, 7]), C([3, 4]))
    shape_case("ResizeNearestNeighborGrad", P([2, 5, 7, 3]), C([3, 4, 5]))
    shape_case("ResizeNearestNeighborGrad", P([2, 5, 7, 3]), P([U], "int32"))
