"""2-D pooling with TensorFlow's semantics: MaxPool and AvgPool (ksize, strides, SAME/VALID, NHWC/NCHW).

Windows are read tap by tap from strided views of the padded input (no patch copy). MaxPool pads
with the dtype's lowest value so padding never wins; AvgPool divides each
window by the number of real (unpadded) elements it covers, as TF does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from modtensor.kernels.cpu import windows
from modtensor.kernels.cpu.conv import from_nhwc, to_nhwc
from modtensor.kernels.cpu.errors import invalid_argument, unimplemented
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on
from modtensor.kernels.cpu.precision import widen


def _window(ksize: Sequence[int], strides: Sequence[int], data_format: str) -> tuple[tuple, tuple, int, int]:
    """(H, W) window and stride, and depth window and stride, with TF's checks."""
    if len(ksize) != 4:
        raise invalid_argument("Sliding window ksize field must specify 4 dimensions")
    if len(strides) != 4:
        raise invalid_argument("Sliding window stride field must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise unimplemented("Pooling is not yet supported on the batch dimension.")
    h, w, c = (2, 3, 1) if data_format.startswith("NC") else (1, 2, 3)
    return (int(ksize[h]), int(ksize[w])), (int(strides[h]), int(strides[w])), int(ksize[c]), int(strides[c])


def _check_rank(x: np.ndarray) -> None:
    if x.ndim != 4:
        raise invalid_argument("Input must be 4 or 5-dimensional")


def _lowest(dtype: np.dtype) -> float | int:
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min
    return -np.inf


def _depth_max_pool(x: np.ndarray, depth_k: int, depth_s: int, k_hw: tuple, s_hw: tuple) -> np.ndarray:
    """MaxPool across channels only: TF requires a window that tiles the depth exactly."""
    if k_hw != (1, 1) or s_hw != (1, 1):
        raise unimplemented("MaxPooling supports exactly one of pooling across depth or pooling across width/height.")
    if x.shape[3] % depth_k != 0:
        raise unimplemented("Depthwise max pooling requires the depth window to evenly divide the input depth")
    if depth_s != depth_k:
        raise unimplemented("Depthwise max pooling requires the depth window to equal the depth stride")
    # Unlike spatial pooling, TF's depth pooling propagates NaN.
    return np.max(x.reshape(x.shape[:3] + (x.shape[3] // depth_k, depth_k)), axis=4)


def max_pool(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    explicit_paddings: Sequence[int] = (),
    data_format: str = "NHWC",
) -> np.ndarray:
    """MaxPool: window maximum; padding never wins and, as in TF's CPU kernel, NaN does not either."""
    input = np.asarray(input)
    _check_rank(input)
    k_hw, s_hw, depth_k, depth_s = _window(ksize, strides, data_format)
    x = to_nhwc(input, data_format)
    if depth_k != 1:
        return from_nhwc(_depth_max_pool(x, depth_k, depth_s, k_hw, s_hw), data_format)
    explicit = windows.explicit_pairs(explicit_paddings, data_format) if padding == "EXPLICIT" else ((0, 0), (0, 0))
    axes = windows.spatial_axes(x.shape[1:3], k_hw, s_hw, (1, 1), padding, explicit)
    padded = windows.pad_nhwc(x, axes, _lowest(x.dtype))
    out = np.full((x.shape[0], axes[0].out, axes[1].out, x.shape[3]), _lowest(x.dtype), x.dtype)
    if out.size:
        # fmax over the taps, in place: NaN loses to any number, as in TF's CPU kernel.
        for _, _, tap in windows.taps(padded, axes, k_hw, s_hw):
            np.fmax(out, tap, out=out)
    return from_nhwc(out.astype(input.dtype, copy=False), data_format)


def avg_pool(
    value: np.ndarray,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    data_format: str = "NHWC",
) -> np.ndarray:
    """AvgPool: window mean over the real elements only (SAME padding is not counted)."""
    value = np.asarray(value)
    _check_rank(value)
    if padding not in ("SAME", "VALID"):
        raise invalid_argument(f"AvgPool supports SAME and VALID padding, got {padding!r}")
    k_hw, s_hw, depth_k, _ = _window(ksize, strides, data_format)
    if depth_k != 1:
        raise unimplemented("Non-spatial pooling is not yet supported.")
    x = to_nhwc(value, data_format)
    axes = windows.spatial_axes(x.shape[1:3], k_hw, s_hw, (1, 1), padding)
    work = widen(x)
    padded = windows.pad_nhwc(work, axes, 0)
    token = quiet_on()
    try:
        sums = np.zeros((x.shape[0], axes[0].out, axes[1].out, x.shape[3]), work.dtype)
        for _, _, tap in windows.taps(padded, axes, k_hw, s_hw):
            sums += tap
        if padding == "VALID":
            out = sums / work.dtype.type(k_hw[0] * k_hw[1]) if sums.size else sums
        else:
            ones = windows.pad_nhwc(np.ones((1,) + x.shape[1:3] + (1,), dtype=np.int64), axes, 0)
            counts = windows.patches(ones, axes, k_hw, s_hw).sum(axis=(3, 4))
            out = sums / counts.astype(work.dtype)
    finally:
        quiet_off(token)
    return from_nhwc(out.astype(value.dtype, copy=False), data_format)
