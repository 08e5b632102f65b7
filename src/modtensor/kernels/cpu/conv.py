"""2-D convolutions with TensorFlow's semantics: Conv2D and DepthwiseConv2dNative.

The input is padded once, viewed as patches through stride tricks (no copy),
and contracted with the filter by one BLAS GEMM (im2col; a 1x1 stride-1 filter
multiplies the input directly). NCHW inputs are transposed to NHWC and back.
Depthwise convolution sums KH*KW shifted, broadcast products in place, which
needs no im2col buffer at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from modtensor.kernels.cpu import windows
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on
from modtensor.kernels.cpu.precision import widen


def spatial_attr(values: Sequence[int], data_format: str, what: str) -> tuple[int, int]:
    """(H, W) entries of a 4-entry strides/dilations/ksize attr, rejecting batch/depth entries != 1."""
    if len(values) != 4:
        raise invalid_argument(f"Sliding window {what} field must specify 4 dimensions")
    n, c, h, w = (0, 1, 2, 3) if data_format.startswith("NC") else (0, 3, 1, 2)
    if values[n] != 1 or values[c] != 1:
        # TF 2.21's CPU kernels raise Unimplemented for strides but InvalidArgument for dilations.
        make = unimplemented if what == "strides" else invalid_argument
        raise make(f"Current implementation does not yet support {what} in the batch and depth dimensions.")
    return int(values[h]), int(values[w])


def to_nhwc(x: np.ndarray, data_format: str) -> np.ndarray:
    """View an NCHW array as NHWC (NHWC input is returned unchanged)."""
    return x.transpose(0, 2, 3, 1) if data_format.startswith("NC") else x


def from_nhwc(x: np.ndarray, data_format: str) -> np.ndarray:
    """Return an NHWC result in data_format, contiguous."""
    return np.asarray(x.transpose(0, 3, 1, 2) if data_format.startswith("NC") else x, order="C")


def _geometry(
    x: np.ndarray,
    kernel_hw: tuple[int, int],
    strides: Sequence[int],
    padding: str,
    explicit_paddings: Sequence[int],
    data_format: str,
    dilations: Sequence[int],
) -> tuple[tuple[int, int], tuple[int, int], tuple[windows.Axis, windows.Axis]]:
    strides_hw = spatial_attr(strides, data_format, "strides")
    dilations_hw = spatial_attr(dilations, data_format, "dilations")
    explicit = windows.explicit_pairs(explicit_paddings, data_format) if padding == "EXPLICIT" else ((0, 0), (0, 0))
    axes = windows.spatial_axes(x.shape[1:3], kernel_hw, strides_hw, dilations_hw, padding, explicit)
    return strides_hw, dilations_hw, axes


def conv2d(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter: np.ndarray,  # noqa: A002
    strides: Sequence[int],
    padding: str,
    explicit_paddings: Sequence[int] = (),
    data_format: str = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
    use_cudnn_on_gpu: bool = True,
) -> np.ndarray:
    """Conv2D: input [N,H,W,C] (or NCHW) with filter [KH,KW,C/groups,OC], TF's padding rules."""
    del use_cudnn_on_gpu
    input, filter = np.asarray(input), np.asarray(filter)
    if input.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{shape_str(input.shape)}")
    if filter.ndim != 4:
        raise invalid_argument(f"filter must be 4-dimensional: {shape_str(filter.shape)}")
    x = to_nhwc(input, data_format)
    kh, kw, f_in, out_c = filter.shape
    in_c = x.shape[3]
    if f_in == 0 or in_c % f_in != 0:
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {in_c} vs {f_in}")
    groups = in_c // f_in
    if out_c % groups != 0:
        raise invalid_argument(f"output depth must be evenly divisible by number of groups: {out_c} vs {groups}")
    strides_hw, dilations_hw, axes = _geometry(x, (kh, kw), strides, padding, explicit_paddings, data_format, dilations)
    work = widen(x)
    w = widen(filter)
    token = quiet_on()
    try:
        if groups == 1:
            out = _conv_gemm(work, w, axes, strides_hw, dilations_hw)
        else:
            per = out_c // groups
            out = np.concatenate(
                [
                    _conv_gemm(work[..., g * f_in : (g + 1) * f_in], w[..., g * per : (g + 1) * per], axes,
                               strides_hw, dilations_hw)
                    for g in range(groups)
                ],
                axis=-1,
            )  # fmt: skip
    finally:
        quiet_off(token)
    return from_nhwc(out.astype(input.dtype, copy=False), data_format)


def _conv_gemm(
    x: np.ndarray,
    w: np.ndarray,
    axes: tuple[windows.Axis, windows.Axis],
    strides_hw: tuple[int, int],
    dilations_hw: tuple[int, int],
) -> np.ndarray:
    """One group's convolution as a single GEMM: [N*OH*OW, KH*KW*C] patches (im2col) times [KH*KW*C, OC].

    A 1x1 filter with stride 1 and no padding needs no im2col: the input is the patch matrix.
    """
    kh, kw, c, oc = w.shape
    n, oh, ow = x.shape[0], axes[0].out, axes[1].out
    w2 = w.reshape(kh * kw * c, oc)
    if kh == kw == 1 and strides_hw == (1, 1) and x.shape[1:3] == (oh, ow):
        return np.matmul(x.reshape(n * oh * ow, c), w2).reshape(n, oh, ow, oc)
    cols = windows.patches(windows.pad_nhwc(x, axes), axes, (kh, kw), strides_hw, dilations_hw)
    return np.matmul(cols.reshape(n * oh * ow, kh * kw * c), w2).reshape(n, oh, ow, oc)


def depthwise_conv2d_native(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter: np.ndarray,  # noqa: A002
    strides: Sequence[int],
    padding: str,
    explicit_paddings: Sequence[int] = (),
    data_format: str = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
) -> np.ndarray:
    """DepthwiseConv2dNative: filter [KH,KW,C,M]; output channel c*M + m convolves input channel c."""
    input, filter = np.asarray(input), np.asarray(filter)
    if input.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{shape_str(input.shape)}")
    if filter.ndim != 4:
        raise invalid_argument(f"filter must be 4-dimensional: {shape_str(filter.shape)}")
    x = to_nhwc(input, data_format)
    kh, kw, f_in, mult = filter.shape
    if x.shape[3] != f_in:
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {x.shape[3]} vs {f_in}")
    strides_hw, dilations_hw, axes = _geometry(x, (kh, kw), strides, padding, explicit_paddings, data_format, dilations)
    work = widen(x)
    w = widen(filter)
    padded = windows.pad_nhwc(work, axes)
    n, oh, ow = x.shape[0], axes[0].out, axes[1].out
    dtype = np.result_type(work.dtype, w.dtype)
    # Sum of KH*KW shifted products, accumulated in place: one output-sized buffer and one temporary.
    # With one filter per channel (mult 1) the products stay 4-D, so numpy's inner loop runs along the channels.
    acc = np.zeros((n, oh, ow, f_in) if mult == 1 else (n, oh, ow, f_in, mult), dtype=dtype)
    tmp = np.empty_like(acc)
    token = quiet_on()
    try:
        for i, j, tap in windows.taps(padded, axes, (kh, kw), strides_hw, dilations_hw):
            if mult == 1:
                np.multiply(tap, w[i, j, :, 0], out=tmp)
            else:
                np.multiply(tap[..., None], w[i, j], out=tmp)
            acc += tmp
    finally:
        quiet_off(token)
    out = acc.reshape(n, oh, ow, f_in * mult)
    return from_nhwc(out.astype(input.dtype, copy=False), data_format)
