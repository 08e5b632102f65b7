"""CPU kernels of the image ops gradient functions use, with TensorFlow's numerics.

The resize gradients send each incoming gradient back to the source pixels the forward resize
read, with the forward's weights (its sampling positions and weights, from ``image.py``). As in
TF, a bilinear term is ``grad * y_weight * x_weight`` rounded to float32 (a bicubic one in the
output type) before it is summed into the original image's shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.image import _bicubic_axis, _bilinear_axis, _nearest_axis, _scale
from modtensor.kernels.cpu.precision import HALF_TYPES

_F = np.float32


def _validate(grads: np.ndarray, original_hw: tuple[int, int], align_corners: bool, half_pixel_centers: bool) -> None:
    if half_pixel_centers and align_corners:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise invalid_argument(f"input_grad must be 4-dimensional{shape_str(grads.shape)}")
    if original_hw[0] <= 0 or original_hw[1] <= 0:
        raise invalid_argument("original image must be of non-zero size")


def _accumulate(terms: list[tuple[np.ndarray, np.ndarray, np.ndarray]], shape: tuple[int, int, int, int],
                dtype: np.dtype) -> np.ndarray:  # fmt: skip
    """Sum ``value[n, y, x, c]`` into ``out[n, rows[y], cols[x], c]`` for each (rows, cols, value) term."""
    n, h, w, c = shape
    size = n * h * w * c
    total = np.zeros(size, np.float64)
    batch = np.arange(n, dtype=np.int64)[:, None, None, None] * h
    channel = np.arange(c, dtype=np.int64)
    for rows, cols, value in terms:
        flat = ((batch + rows[None, :, None, None]) * w + cols[None, None, :, None]) * c + channel
        total += np.bincount(flat.ravel(), weights=value.astype(np.float64).ravel(), minlength=size)
    return total.astype(dtype).reshape(shape)


def _original(original_image: np.ndarray) -> tuple[int, int]:
    """The original image's (height, width): the gradient takes its batch and channels from ``grads``, as TF."""
    if original_image.ndim != 4:
        raise invalid_argument(f"original_image must be 4-dimensional{shape_str(original_image.shape)}")
    return original_image.shape[1], original_image.shape[2]


@ignoring_fp_errors
def resize_bilinear_grad(
    grads: np.ndarray, original_image: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeBilinear's image gradient: each gradient split over its 4 source pixels by the lerp weights."""
    grads, original_image = np.asarray(grads, _F), np.asarray(original_image)
    in_h, in_w = _original(original_image)
    _validate(grads, (in_h, in_w), align_corners, half_pixel_centers)
    n, out_h, out_w, c = grads.shape
    top, bottom, y_lerp = _bilinear_axis(in_h, out_h, _scale(in_h, out_h, align_corners), half_pixel_centers)
    left, right, x_lerp = _bilinear_axis(in_w, out_w, _scale(in_w, out_w, align_corners), half_pixel_centers)
    y_weights = ((top, _F(1) - y_lerp), (bottom, y_lerp))
    x_weights = ((left, _F(1) - x_lerp), (right, x_lerp))
    terms = [
        (rows, cols, grads * wy[None, :, None, None] * wx[None, None, :, None])
        for rows, wy in y_weights
        for cols, wx in x_weights
    ]
    return _accumulate(terms, (n, in_h, in_w, c), original_image.dtype)


@ignoring_fp_errors
def resize_bicubic_grad(
    grads: np.ndarray, original_image: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeBicubic's image gradient: each gradient spread over its 4x4 source pixels by the cubic weights."""
    grads, original_image = np.asarray(grads, _F), np.asarray(original_image)
    in_h, in_w = _original(original_image)
    _validate(grads, (in_h, in_w), align_corners, half_pixel_centers)
    n, out_h, out_w, c = grads.shape
    y_idx, y_w = _bicubic_axis(in_h, out_h, _scale(in_h, out_h, align_corners), half_pixel_centers)
    x_idx, x_w = _bicubic_axis(in_w, out_w, _scale(in_w, out_w, align_corners), half_pixel_centers)
    work = np.float64 if original_image.dtype == np.float64 else _F
    g = grads.astype(work)
    terms = [
        (
            y_idx[:, i],
            x_idx[:, j],
            g * y_w[None, :, i, None, None].astype(work) * x_w[None, None, :, j, None].astype(work),
        )
        for i in range(4)
        for j in range(4)
    ]
    return _accumulate(terms, (n, in_h, in_w, c), original_image.dtype)


def resize_nearest_neighbor_grad(
    grads: np.ndarray, size: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeNearestNeighbor's image gradient: each gradient summed into the source pixel it copied."""
    grads, size = np.asarray(grads), np.asarray(size)
    if half_pixel_centers and align_corners:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{shape_str(grads.shape)}")
    if size.ndim != 1:
        raise invalid_argument(f"shape_t must be 1-dimensional{shape_str(size.shape)}")
    if size.size != 2:
        raise invalid_argument(f"shape_t must have two elements{shape_str(size.shape)}")
    in_h, in_w = int(size[0]), int(size[1])
    if in_h <= 0 or in_w <= 0:
        raise invalid_argument("shape_t's elements must be positive")
    n, out_h, out_w, c = grads.shape
    ys = _nearest_axis(in_h, out_h, _scale(in_h, out_h, align_corners), align_corners, half_pixel_centers)
    xs = _nearest_axis(in_w, out_w, _scale(in_w, out_w, align_corners), align_corners, half_pixel_centers)
    if grads.dtype.kind == "f" or grads.dtype in HALF_TYPES:
        return _accumulate([(ys, xs, grads)], (n, in_h, in_w, c), grads.dtype)
    rows = np.zeros((n, in_h, out_w, c), grads.dtype)
    np.add.at(rows, (slice(None), ys), grads)
    out = np.zeros((n, in_h, in_w, c), grads.dtype)
    np.add.at(out, (slice(None), slice(None), xs), rows)
    return out


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ResizeBilinearGrad": resize_bilinear_grad,
    "ResizeBicubicGrad": resize_bicubic_grad,
    "ResizeNearestNeighborGrad": resize_nearest_neighbor_grad,
}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "ResizeBilinearGrad": {"T": "FLOATS"},
    "ResizeBicubicGrad": {"T": "float32 float64"},
    "ResizeNearestNeighborGrad": {"T": "FLOATS INTS UINTS"},
}
