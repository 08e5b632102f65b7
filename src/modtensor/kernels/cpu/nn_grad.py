"""CPU kernels of the nn backward ops gradient functions use, with TensorFlow's numerics.

Activation gradients follow TF's functors elementwise (``gradients * (features > 0)`` keeps
NaN and turns ``inf * 0`` into NaN, as TF's multiply does). Convolution backprops are two GEMMs:
the input gradient multiplies ``out_backprop`` by the transposed filter and adds the resulting
patch columns back into the padded input one kernel tap at a time (col2im); the filter gradient
multiplies the transposed im2col patches by ``out_backprop``. Pooling gradients route each output
gradient to its window: max pooling to the first maximum in row-major order (TF's argmax), average
pooling spread by ``1 / (real elements in the window)``. NCHW runs as NHWC (transposed in and out),
half types compute in float32. Also the forward ``Softplus`` (its gradient's op needs it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.kernels.cpu import windows
from modtensor.kernels.cpu.conv import from_nhwc, spatial_attr, to_nhwc
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.precision import HALF_TYPES, widen


def _str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _same_shape(a: np.ndarray, b: np.ndarray, op: str) -> None:
    if a.shape != b.shape:
        raise invalid_argument(
            f"Inputs to operation {op} of type {op} must have the same size and shape.  Input 0: "
            f"{shape_str(a.shape)} != input 1: {shape_str(b.shape)}"
        )


def _out(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return value if value.dtype == dtype else value.astype(dtype)


# --------------------------------------------------------------------------- activations


@ignoring_fp_errors
def relu_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``gradients * (features > 0)``."""
    gradients, features = np.asarray(gradients), np.asarray(features)
    _same_shape(gradients, features, "ReluGrad")
    g = widen(gradients)
    return _out(g * (widen(features) > 0).astype(g.dtype), gradients.dtype)


@ignoring_fp_errors
def relu6_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``gradients * (0 < features < 6)``."""
    gradients, features = np.asarray(gradients), np.asarray(features)
    _same_shape(gradients, features, "Relu6Grad")
    g, f = widen(gradients), widen(features)
    return _out(g * ((f > 0) & (f < 6)).astype(g.dtype), gradients.dtype)


@ignoring_fp_errors
def elu_grad(gradients: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    """``(outputs + 1) * gradients`` where the Elu output is negative, else ``gradients``."""
    gradients, outputs = np.asarray(gradients), np.asarray(outputs)
    _same_shape(gradients, outputs, "EluGrad")
    g, y = widen(gradients), widen(outputs)
    return _out(np.where(y < 0, (y + y.dtype.type(1)) * g, g), gradients.dtype)


@ignoring_fp_errors
def leaky_relu_grad(gradients: np.ndarray, features: np.ndarray, alpha: float = 0.2) -> np.ndarray:
    """``gradients`` where ``features > 0``, else ``gradients * alpha`` (alpha, a float attr, cast to T)."""
    gradients, features = np.asarray(gradients), np.asarray(features)
    _same_shape(gradients, features, "LeakyReluGrad")
    g = widen(gradients)
    a = gradients.dtype.type(np.float32(alpha))
    return _out(np.where(widen(features) > 0, g, g * g.dtype.type(a)), gradients.dtype)


def _softplus_threshold(dtype: np.dtype) -> float:
    """TF's ``log(epsilon) + 2`` of the input's type: below it softplus is exp(x), above its negation x."""
    return float(np.log(np.finfo(dtype).eps)) + 2.0


# SELU's constants (Klambauer et al.), as TF's kernel spells them.
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


@ignoring_fp_errors
def selu(features: np.ndarray) -> np.ndarray:
    """SELU: ``scale * x`` for x >= 0, ``scale * alpha * (exp(x) - 1)`` below, in the input dtype."""
    features = np.asarray(features)
    dtype = features.dtype
    scale, scale_alpha = dtype.type(_SELU_SCALE), dtype.type(_SELU_SCALE_ALPHA)
    out = np.where(features < 0, scale_alpha * (np.exp(features) - dtype.type(1)), scale * features)
    return _out(out, dtype)


@ignoring_fp_errors
def selu_grad(gradients: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    """SeluGrad from SELU's outputs: ``dy * (y + scale * alpha)`` where y < 0, else ``dy * scale``."""
    _same_shape(gradients, outputs, "SeluGrad")
    dtype = gradients.dtype
    scale, scale_alpha = dtype.type(_SELU_SCALE), dtype.type(_SELU_SCALE_ALPHA)
    return _out(np.where(outputs < 0, gradients * (outputs + scale_alpha), gradients * scale), dtype)


@ignoring_fp_errors
def softsign(features: np.ndarray) -> np.ndarray:
    """Softsign ``x / (|x| + 1)``."""
    features = np.asarray(features)
    return _out(features / (np.abs(features) + features.dtype.type(1)), features.dtype)


@ignoring_fp_errors
def softsign_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """SoftsignGrad ``dy / (|x| + 1) ** 2``."""
    _same_shape(gradients, features, "SoftsignGrad")
    dtype = gradients.dtype
    return _out(gradients / np.square(np.abs(features) + dtype.type(1)), dtype)


def _depth_window_sum(t: np.ndarray, radius: int) -> np.ndarray:
    """Per element, the sum of ``t`` over depths ``d - radius .. d + radius`` (clipped to the depth dim)."""
    depth = t.shape[-1]
    padded = np.concatenate([np.zeros(t.shape[:-1] + (1,), t.dtype), np.cumsum(t, axis=-1)], axis=-1)
    hi = np.minimum(np.arange(depth) + radius + 1, depth)
    lo = np.maximum(np.arange(depth) - radius, 0)
    return padded[..., hi] - padded[..., lo]


@ignoring_fp_errors
def lrn(
    input: np.ndarray,  # noqa: A002  (TF's arg name)
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
) -> np.ndarray:
    """Local response normalization: ``x / (bias + alpha * sum(x ** 2 over the depth window)) ** beta``."""
    if input.ndim != 4:
        raise invalid_argument("in must be 4-dimensional")
    x = input.astype(np.float64)
    norm = bias + alpha * _depth_window_sum(x * x, int(depth_radius))
    return (x / norm**beta).astype(input.dtype)


@ignoring_fp_errors
def lrn_grad(
    input_grads: np.ndarray,
    input_image: np.ndarray,
    output_image: np.ndarray,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
) -> np.ndarray:
    """LRNGrad: the gradient of LRN at ``input_image`` (whose result was ``output_image``) for ``input_grads``."""
    if input_grads.ndim != 4 or input_image.ndim != 4:
        raise invalid_argument("inputs must be 4-dimensional")
    if not input_grads.shape == input_image.shape == output_image.shape:
        raise invalid_argument("input_grads, input_image, and out_image should have the same shape")
    radius = int(depth_radius)
    dy, x, y = (t.astype(np.float64) for t in (input_grads, input_image, output_image))
    norm = bias + alpha * _depth_window_sum(x * x, radius)
    through_norms = _depth_window_sum(dy * y / norm, radius)
    return (dy * norm**-beta - 2.0 * alpha * beta * x * through_norms).astype(input_grads.dtype)


@ignoring_fp_errors
def softplus(features: np.ndarray) -> np.ndarray:
    """Softplus ``log(exp(x) + 1)``: ``x`` for large x, ``exp(x)`` for very negative x (TF's thresholds)."""
    features = np.asarray(features)
    x = widen(features)
    threshold = x.dtype.type(_softplus_threshold(features.dtype))
    e = np.exp(x)
    out = np.where(x > -threshold, x, np.where(x < threshold, e, np.log1p(e)))
    return _out(out, features.dtype)


@ignoring_fp_errors
def softplus_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``gradients / (exp(-features) + 1)``."""
    gradients, features = np.asarray(gradients), np.asarray(features)
    _same_shape(gradients, features, "SoftplusGrad")
    g, f = widen(gradients), widen(features)
    return _out(g / (np.exp(-f) + f.dtype.type(1)), gradients.dtype)


# --------------------------------------------------------------------------- bias


def bias_add_grad(out_backprop: np.ndarray, data_format: str = "NHWC") -> np.ndarray:
    """The sum of ``out_backprop`` over every dim but the channel one (last; dim 1 for NCHW)."""
    out_backprop = np.asarray(out_backprop)
    if out_backprop.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {shape_str(out_backprop.shape)}")
    channel = 1 if _str(data_format) == "NCHW" else out_backprop.ndim - 1
    axes = tuple(a for a in range(out_backprop.ndim) if a != channel)
    dtype = out_backprop.dtype
    if dtype in HALF_TYPES:
        return np.sum(out_backprop, axis=axes, dtype=np.float32).astype(dtype)
    return np.asarray(np.sum(out_backprop, axis=axes, dtype=dtype))


# --------------------------------------------------------------------------- convolution geometry


def _sizes(value: np.ndarray, what: str, op: str) -> list[int]:
    value = np.asarray(value)
    if value.ndim != 1:
        raise invalid_argument(f"{op}: {what} input must be 1-dim, not {value.ndim}")
    return [int(v) for v in value]


def _nhwc_shape(shape: Sequence[int], data_format: str) -> tuple[int, int, int, int]:
    if data_format == "NCHW":
        return shape[0], shape[2], shape[3], shape[1]
    return shape[0], shape[1], shape[2], shape[3]


def _input_sizes(input_sizes: np.ndarray, out_backprop: np.ndarray, filter_in: int, data_format: str,
                 op: str) -> tuple[int, int, int, int]:  # fmt: skip
    """The NHWC input shape ``input_sizes`` gives: 4 dims, or the 2 spatial ones (batch from out_backprop,
    depth from the filter)."""
    sizes = np.asarray(input_sizes)
    if sizes.ndim != 1 or sizes.size not in (2, 4):
        raise invalid_argument(f"{op} requires input_sizes to contain 4 values or 2 values, but got: {sizes.size}")
    values = [int(v) for v in sizes]
    if len(values) == 2:
        batch = out_backprop.shape[0] if out_backprop.ndim == 4 else 0
        return batch, values[0], values[1], filter_in
    return _nhwc_shape(values, data_format)


class _Geometry:
    """A convolution's NHWC input shape, kernel size, strides, dilations and per-axis output/padding."""

    def __init__(self, label: str, x_shape: Sequence[int], filter_shape: Sequence[int], dy: np.ndarray,
                 strides: Sequence[int], padding: str, explicit_paddings: Sequence[int], data_format: str,
                 dilations: Sequence[int], depthwise: bool = False) -> None:  # fmt: skip
        if len(x_shape) != 4:
            raise invalid_argument(f"{label}: input must be 4-dimensional")
        if len(filter_shape) != 4:
            raise invalid_argument(f"{label}: filter must be 4-dimensional")
        if dy.ndim != 4:
            raise invalid_argument(f"{label}: out_backprop must be 4-dimensional")
        self.strides = spatial_attr(strides, data_format, "strides")
        self.dilations = spatial_attr(dilations, data_format, "dilations")
        if depthwise and self.strides[0] != self.strides[1]:
            raise invalid_argument("Current implementation only supports equal length strides in the row and column "
                                   "dimensions.")  # fmt: skip
        n, h, w, c = x_shape
        kh, kw, f_in, f_out = filter_shape
        dn, doh, dow, dc = dy.shape
        if depthwise:
            if f_in != c:
                raise invalid_argument(f"{label}: input and filter must have the same in_depth")
            if f_in * f_out != dc:
                raise invalid_argument(f"{label}: depth_multiplier * in_depth not equal to out_depth")
            if n != dn:
                raise invalid_argument(f"{label}: input and out_backprop must have the same batch size")
        else:
            if n != dn:
                raise invalid_argument(
                    f"{label}: input and out_backprop must have the same batch size. Input batch: {n}, "
                    f"outbackprop batch: {dn}, batch_dim: 0"
                )
            if f_in <= 0:
                raise invalid_argument(f"{label}: filter depth must be strictly greated than zero")
            if c % f_in:
                raise invalid_argument(f"{label}: input depth must be evenly divisible by filter depth")
            if f_out != dc:
                raise invalid_argument(f"{label}: filter and out_backprop must have the same out_depth")
        explicit = windows.explicit_pairs(explicit_paddings, data_format) if padding == "EXPLICIT" else ((0, 0),) * 2
        self.axes = windows.spatial_axes((h, w), (kh, kw), self.strides, self.dilations, padding, explicit)
        spatial_index = (2, 3) if data_format == "NCHW" else (1, 2)
        for k, (actual, axis) in enumerate(zip((doh, dow), self.axes, strict=True)):
            if actual == axis.out:
                continue
            if depthwise:
                raise invalid_argument(
                    f"{label}: Number of {('rows', 'cols')[k]} of out_backprop doesn't match computed: "
                    f"actual = {actual}, computed = {axis.out}"
                )
            raise invalid_argument(
                f"{label}: Size of out_backprop doesn't match computed: actual = {actual}, computed = {axis.out} "
                f"spatial_dim: {spatial_index[k]} input: {(h, w)[k]} filter: {(kh, kw)[k]} output: {actual} "
                f"stride: {self.strides[k]} dilation: {self.dilations[k]}"
            )
        self.x_shape = (n, h, w, c)
        self.kernel = (kh, kw)

    def padded_zeros(self, dtype: np.dtype) -> np.ndarray:
        n, h, w, c = self.x_shape
        (ah, aw) = self.axes
        return np.zeros((n, h + ah.pad_before + ah.pad_after, w + aw.pad_before + aw.pad_after, c), dtype)

    def crop(self, padded: np.ndarray) -> np.ndarray:
        _, h, w, _ = self.x_shape
        (ah, aw) = self.axes
        return padded[:, ah.pad_before : ah.pad_before + h, aw.pad_before : aw.pad_before + w, :]

    def tap_views(self, padded: np.ndarray) -> Any:
        """(i, j, view of ``padded`` tap (i, j) reads): writable views for col2im, as windows.taps makes them."""
        return windows.taps(padded, self.axes, self.kernel, self.strides, self.dilations)


def _attrs(data_format: Any, padding: Any) -> tuple[str, str]:
    return _str(data_format), _str(padding)


def _check_nhwc_strides(strides: Sequence[int]) -> None:
    if len(strides) != 4:
        raise invalid_argument("Sliding window strides field must specify 4 dimensions")


# --------------------------------------------------------------------------- Conv2D backprops


@ignoring_fp_errors
def conv2d_backprop_input(
    input_sizes: np.ndarray,
    filter: np.ndarray,  # noqa: A002 - TF's argument name
    out_backprop: np.ndarray,
    strides: Sequence[int],
    padding: Any,
    explicit_paddings: Sequence[int] = (),
    data_format: Any = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
    use_cudnn_on_gpu: bool = True,
) -> np.ndarray:
    """Conv2D's input gradient: ``out_backprop @ filter^T`` as patch columns, summed back into the input (col2im)."""
    del use_cudnn_on_gpu
    data_format, padding = _attrs(data_format, padding)
    filter, out_backprop = np.asarray(filter), np.asarray(out_backprop)
    label = "Conv2DCustomBackpropInput"
    _check_nhwc_strides(strides)
    f_in = filter.shape[2] if filter.ndim == 4 else 0
    dy = to_nhwc(out_backprop, data_format) if out_backprop.ndim == 4 else out_backprop
    x_shape = _input_sizes(input_sizes, out_backprop, f_in, data_format, "Conv2DBackpropInput")
    geo = _Geometry(label, x_shape, filter.shape, dy, strides, padding, explicit_paddings, data_format, dilations)
    dtype = out_backprop.dtype
    g, w = widen(dy), widen(filter)
    kh, kw, f_in, out_c = w.shape
    groups = geo.x_shape[3] // f_in
    per = out_c // groups
    n, oh, ow = g.shape[0], geo.axes[0].out, geo.axes[1].out
    padded = geo.padded_zeros(np.result_type(g.dtype, w.dtype))
    rows = g.reshape(n * oh * ow, out_c)
    for group in range(groups):
        w_g = w[..., group * per : (group + 1) * per].reshape(kh * kw * f_in, per)
        cols = np.matmul(rows[:, group * per : (group + 1) * per], w_g.T).reshape(n, oh, ow, kh, kw, f_in)
        target = padded[..., group * f_in : (group + 1) * f_in]
        for i, j, view in geo.tap_views(target):
            view += cols[:, :, :, i, j, :]
    return from_nhwc(_out(geo.crop(padded), dtype), data_format)


@ignoring_fp_errors
def conv2d_backprop_filter(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter_sizes: np.ndarray,
    out_backprop: np.ndarray,
    strides: Sequence[int],
    padding: Any,
    explicit_paddings: Sequence[int] = (),
    data_format: Any = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
    use_cudnn_on_gpu: bool = True,
) -> np.ndarray:
    """Conv2D's filter gradient: the input's im2col patches, transposed, times ``out_backprop``."""
    del use_cudnn_on_gpu
    data_format, padding = _attrs(data_format, padding)
    input, out_backprop = np.asarray(input), np.asarray(out_backprop)
    label = "Conv2DCustomBackpropFilter"
    _check_nhwc_strides(strides)
    filter_shape = _sizes(filter_sizes, "filter_sizes", label)
    if input.ndim != 4:
        raise invalid_argument(f"{label}: input must be 4-dimensional")
    x = to_nhwc(input, data_format)
    dy = to_nhwc(out_backprop, data_format) if out_backprop.ndim == 4 else out_backprop
    geo = _Geometry(label, x.shape, filter_shape, dy, strides, padding, explicit_paddings, data_format, dilations)
    kh, kw, f_in, out_c = filter_shape
    groups = x.shape[3] // f_in
    per = out_c // groups
    xw, g = widen(x), widen(dy)
    n, oh, ow = g.shape[0], geo.axes[0].out, geo.axes[1].out
    padded = windows.pad_nhwc(xw, geo.axes)
    rows = g.reshape(n * oh * ow, out_c)
    parts = []
    for group in range(groups):
        cols = windows.patches(padded[..., group * f_in : (group + 1) * f_in], geo.axes, (kh, kw), geo.strides,
                               geo.dilations)  # fmt: skip
        cols = cols.reshape(n * oh * ow, kh * kw * f_in)
        parts.append(np.matmul(cols.T, rows[:, group * per : (group + 1) * per]).reshape(kh, kw, f_in, per))
    result = parts[0] if groups == 1 else np.concatenate(parts, axis=-1)
    return np.ascontiguousarray(_out(result, input.dtype))


# --------------------------------------------------------------------------- depthwise backprops


@ignoring_fp_errors
def depthwise_conv2d_native_backprop_input(
    input_sizes: np.ndarray,
    filter: np.ndarray,  # noqa: A002 - TF's argument name
    out_backprop: np.ndarray,
    strides: Sequence[int],
    padding: Any,
    explicit_paddings: Sequence[int] = (),
    data_format: Any = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
) -> np.ndarray:
    """Depthwise input gradient: per tap, ``sum_m out_backprop[..., c, m] * filter[i, j, c, m]`` added back."""
    data_format, padding = _attrs(data_format, padding)
    filter, out_backprop = np.asarray(filter), np.asarray(out_backprop)
    label = "DepthwiseConv2DBackpropInput"
    _check_nhwc_strides(strides)
    x_shape = _nhwc_shape(_sizes(input_sizes, "input_sizes", label), data_format)
    dy = to_nhwc(out_backprop, data_format) if out_backprop.ndim == 4 else out_backprop
    geo = _Geometry(label, x_shape, filter.shape, dy, strides, padding, explicit_paddings, data_format, dilations,
                    depthwise=True)  # fmt: skip
    g, w = widen(dy), widen(filter)
    _, _, c, mult = w.shape
    g5 = g.reshape(g.shape[:3] + (c, mult))
    padded = geo.padded_zeros(np.result_type(g.dtype, w.dtype))
    for i, j, view in geo.tap_views(padded):
        view += g5[..., 0] * w[i, j, :, 0] if mult == 1 else np.einsum("nhwcm,cm->nhwc", g5, w[i, j])
    return from_nhwc(_out(geo.crop(padded), out_backprop.dtype), data_format)


@ignoring_fp_errors
def depthwise_conv2d_native_backprop_filter(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter_sizes: np.ndarray,
    out_backprop: np.ndarray,
    strides: Sequence[int],
    padding: Any,
    explicit_paddings: Sequence[int] = (),
    data_format: Any = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
) -> np.ndarray:
    """Depthwise filter gradient: per tap, ``sum_{n,h,w} input_tap[..., c] * out_backprop[..., c, m]``."""
    data_format, padding = _attrs(data_format, padding)
    input, out_backprop = np.asarray(input), np.asarray(out_backprop)
    label = "DepthwiseConv2DBackpropFilter"
    _check_nhwc_strides(strides)
    filter_shape = _sizes(filter_sizes, "filter_sizes", label)
    if input.ndim != 4:
        raise invalid_argument(f"{label}: input must be 4-dimensional")
    x = to_nhwc(input, data_format)
    dy = to_nhwc(out_backprop, data_format) if out_backprop.ndim == 4 else out_backprop
    geo = _Geometry(label, x.shape, filter_shape, dy, strides, padding, explicit_paddings, data_format, dilations,
                    depthwise=True)  # fmt: skip
    kh, kw, c, mult = filter_shape
    xw, g = widen(x), widen(dy)
    g5 = g.reshape(g.shape[:3] + (c, mult))
    result = np.zeros((kh, kw, c, mult), np.result_type(xw.dtype, g.dtype))
    for i, j, tap in windows.taps(windows.pad_nhwc(xw, geo.axes), geo.axes, (kh, kw), geo.strides, geo.dilations):
        result[i, j] = np.einsum("nhwc,nhwcm->cm", tap, g5)
    return _out(result, input.dtype)


# --------------------------------------------------------------------------- pooling


def _pool_window(ksize: Sequence[int], strides: Sequence[int], data_format: str, op: str) -> tuple[tuple, tuple]:
    if len(ksize) != 4:
        raise invalid_argument("Sliding window ksize field must specify 4 dimensions")
    if len(strides) != 4:
        raise invalid_argument("Sliding window strides field must specify 4 dimensions")
    n, c, h, w = (0, 1, 2, 3) if data_format == "NCHW" else (0, 3, 1, 2)
    if ksize[n] != 1 or strides[n] != 1:
        raise unimplemented("Pooling is not yet supported on the batch dimension.")
    if ksize[c] != 1 or strides[c] != 1:
        raise unimplemented(f"{op} is not yet supported on the depth dimension.")
    return (int(ksize[h]), int(ksize[w])), (int(strides[h]), int(strides[w]))


def _pool_axes(x_shape: Sequence[int], k_hw: tuple, s_hw: tuple, padding: str, explicit_paddings: Sequence[int],
               data_format: str) -> tuple[windows.Axis, windows.Axis]:  # fmt: skip
    explicit = windows.explicit_pairs(explicit_paddings, data_format) if padding == "EXPLICIT" else ((0, 0),) * 2
    return windows.spatial_axes(x_shape[1:3], k_hw, s_hw, (1, 1), padding, explicit)


def _check_rank4(x: np.ndarray, what: str) -> None:
    if x.ndim != 4:
        raise invalid_argument(f"{what} must be 4-dimensional")


def _max_pool_taps(x: np.ndarray, axes: tuple, k_hw: tuple, s_hw: tuple) -> np.ndarray:
    """Per output element, the window tap (``i * KW + j``) holding TF's argmax: the first element in row-major
    order strictly greater than those before it (padding never counts), i.e. the first maximum. A NaN only
    counts as the first element of its window (TF's ``max < value`` test): with NaN, the scan is followed."""
    n, h, w, c = x.shape
    lowest = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf
    padded = windows.pad_nhwc(x, axes, lowest)
    real = None if padded is x else windows.pad_nhwc(np.ones((1, h, w, 1), bool), axes, False)
    shape = (n, axes[0].out, axes[1].out, c)
    views = [v for _, _, v in windows.taps(padded, axes, k_hw, s_hw)]
    valid = [None] * len(views) if real is None else [v for _, _, v in windows.taps(real, axes, k_hw, s_hw)]
    tap = np.full(shape, -1, np.int32)
    if x.dtype.kind in "iu" or not np.isnan(x).any():
        best = views[0].copy()
        for values in views[1:]:
            np.maximum(best, values, out=best)
        for k in range(len(views) - 1, -1, -1):  # the first tap equal to the maximum is written last
            hit = views[k] == best
            if valid[k] is not None:
                hit &= valid[k]
            np.copyto(tap, k, where=hit)
        return tap
    best = np.zeros(shape, x.dtype)
    for k, (values, real_k) in enumerate(zip(views, valid, strict=True)):
        take = (tap < 0) | (values > best)
        if real_k is not None:
            take &= real_k
        np.copyto(best, values, where=take)
        np.copyto(tap, k, where=take)
    return tap


def _route_to_taps(tap: np.ndarray, grad: np.ndarray, x_shape: Sequence[int], axes: tuple, k_hw: tuple,
                   s_hw: tuple) -> np.ndarray:  # fmt: skip
    """An input-shaped (NHWC) array where each element of ``grad`` is added at its window tap ``tap``."""
    n, h, w, c = x_shape
    g = widen(grad)
    ah, aw = axes
    padded = np.zeros((n, h + ah.pad_before + ah.pad_after, w + aw.pad_before + aw.pad_after, c), g.dtype)
    zero = g.dtype.type(0)
    for k, (_, _, view) in enumerate(windows.taps(padded, axes, k_hw, s_hw)):
        view += np.where(tap == k, g, zero)
    return _out(padded[:, ah.pad_before : ah.pad_before + h, aw.pad_before : aw.pad_before + w, :], grad.dtype)


@ignoring_fp_errors
def max_pool_grad(
    orig_input: np.ndarray,
    orig_output: np.ndarray,
    grad: np.ndarray,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: Any,
    explicit_paddings: Sequence[int] = (),
    data_format: Any = "NHWC",
) -> np.ndarray:
    """MaxPool's input gradient: each output gradient added at its window's maximum (TF recomputes the argmax
    from ``orig_input``; only ``orig_output``'s shape is checked)."""
    data_format, padding = _attrs(data_format, padding)
    orig_input, grad = np.asarray(orig_input), np.asarray(grad)
    _check_rank4(orig_input, "tensor_in")
    _check_rank4(np.asarray(orig_output), "tensor_out")
    _check_rank4(grad, "out_backprop")
    k_hw, s_hw = _pool_window(ksize, strides, data_format, "MaxPoolingGrad")
    x, g = to_nhwc(orig_input, data_format), to_nhwc(grad, data_format)
    axes = _pool_axes(x.shape, k_hw, s_hw, padding, explicit_paddings, data_format)
    expected = (x.shape[0], axes[0].out, axes[1].out, x.shape[3])
    want = shape_str(from_nhwc(np.empty(expected, np.int8), data_format).shape)
    if np.shape(orig_output) != from_nhwc(np.empty(expected, np.int8), data_format).shape:
        raise invalid_argument(f"Expected orig_output shape to be {want}, but got {shape_str(np.shape(orig_output))}")
    if g.shape != expected:
        raise invalid_argument(f"Expected grad shape to be {want}, but got {shape_str(grad.shape)}")
    tap = _max_pool_taps(x, axes, k_hw, s_hw)
    return from_nhwc(_route_to_taps(tap, g, x.shape, axes, k_hw, s_hw), data_format)


@ignoring_fp_errors
def max_pool_grad_grad(
    orig_input: np.ndarray,
    orig_output: np.ndarray,
    grad: np.ndarray,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: Any,
    data_format: Any = "NHWC",
) -> np.ndarray:
    """MaxPoolGrad's gradient: per output window, ``grad`` at the first input (row-major) equal to the
    window's ``orig_output`` value; 0 where none is."""
    data_format, padding = _attrs(data_format, padding)
    orig_input, orig_output, grad = np.asarray(orig_input), np.asarray(orig_output), np.asarray(grad)
    _check_rank4(orig_input, "tensor_in")
    _check_rank4(orig_output, "tensor_out")
    _check_rank4(grad, "out_grad_backprop")
    k_hw, s_hw = _pool_window(ksize, strides, data_format, "MaxPoolingGradGrad")
    x, y, g = (to_nhwc(a, data_format) for a in (orig_input, orig_output, grad))
    axes = _pool_axes(x.shape, k_hw, s_hw, padding, (), data_format)
    expected = (x.shape[0], axes[0].out, axes[1].out, x.shape[3])
    if y.shape != expected:
        want = from_nhwc(np.empty(expected, np.int8), data_format).shape
        raise invalid_argument(
            f"Expected orig_output shape to be {shape_str(want)}, but got {shape_str(orig_output.shape)}"
        )
    if g.shape != x.shape:
        raise invalid_argument(
            f"Expected grad shape to be {shape_str(orig_input.shape)}, but got {shape_str(grad.shape)}"
        )
    h, w = x.shape[1:3]
    padded_x, padded_g = windows.pad_nhwc(x, axes, 0), windows.pad_nhwc(g, axes, 0)
    real = windows.pad_nhwc(np.ones((1, h, w, 1), bool), axes, False)
    out = np.zeros(expected, grad.dtype)
    found = np.zeros(expected, bool)
    for (_, _, xv), (_, _, gv), (_, _, rv) in zip(
        windows.taps(padded_x, axes, k_hw, s_hw),
        windows.taps(padded_g, axes, k_hw, s_hw),
        windows.taps(real, axes, k_hw, s_hw),
        strict=True,
    ):
        hit = rv & ~found & (xv == y)
        np.copyto(out, gv, where=hit)
        found |= hit
    return from_nhwc(out, data_format)


@ignoring_fp_errors
def avg_pool_grad(
    orig_input_shape: np.ndarray,
    grad: np.ndarray,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: Any,
    data_format: Any = "NHWC",
) -> np.ndarray:
    """AvgPool's input gradient: each output gradient times ``1 / (real elements in its window)`` (the
    coefficient rounded to T, as TF), added to every element of the window."""
    data_format, padding = _attrs(data_format, padding)
    sizes = np.asarray(orig_input_shape)
    grad = np.asarray(grad)
    if sizes.ndim != 1 or sizes.size != 4:
        raise invalid_argument("out_backprop must be 1-dimensional and 4 elements")
    _check_rank4(grad, "out_backprop")
    k_hw, s_hw = _pool_window(ksize, strides, data_format, "AvgPoolingGrad")
    x_shape = _nhwc_shape([int(v) for v in sizes], data_format)
    g = widen(to_nhwc(grad, data_format))
    axes = _pool_axes(x_shape, k_hw, s_hw, padding, (), data_format)
    expected = (x_shape[0], axes[0].out, axes[1].out, x_shape[3])
    if g.shape != expected:  # TF reads past such a gradient; modtensor refuses it
        want = from_nhwc(np.empty(expected, np.int8), data_format).shape
        raise invalid_argument(f"Expected grad shape to be {shape_str(want)}, but got {shape_str(grad.shape)}")
    h, w = x_shape[1:3]
    ones = windows.pad_nhwc(np.ones((1, h, w, 1), np.int64), axes, 0)
    counts = windows.patches(ones, axes, k_hw, s_hw).sum(axis=(3, 4))
    coeff = (1.0 / counts.astype(np.float64)).astype(grad.dtype).astype(g.dtype)
    scaled = g * coeff
    n, _, _, c = x_shape
    padded = np.zeros((n, h + axes[0].pad_before + axes[0].pad_after, w + axes[1].pad_before + axes[1].pad_after, c),
                      g.dtype)  # fmt: skip
    for _, _, view in windows.taps(padded, axes, k_hw, s_hw):
        view += scaled
    out = padded[:, axes[0].pad_before : axes[0].pad_before + h, axes[1].pad_before : axes[1].pad_before + w, :]
    return from_nhwc(_out(out, grad.dtype), data_format)


# --------------------------------------------------------------------------- batch normalization


@ignoring_fp_errors
def _fused_batch_norm_grad(
    y_backprop: np.ndarray,
    x: np.ndarray,
    scale: np.ndarray,
    reserve_space_1: np.ndarray,
    reserve_space_2: np.ndarray,
    epsilon: float,
    data_format: Any,
    is_training: bool,
) -> tuple[np.ndarray, ...]:
    """x, scale and offset backprops of a fused batch norm, from its saved mean and variance (the batch's in
    training, the population's in inference), computed in float32 as TF's CPU kernel."""
    y_backprop, x = np.asarray(y_backprop), np.asarray(x)
    data_format = _str(data_format)
    for value in (y_backprop, x):
        if value.ndim not in (4, 5):
            raise invalid_argument(f"input must be 4 or 5-dimensional{shape_str(value.shape)}")
    for name, vec in (("scale", scale), ("reserve_space_1", reserve_space_1), ("reserve_space_2", reserve_space_2)):
        if np.ndim(vec) != 1:
            raise invalid_argument(f"{name} must be 1-dimensional{shape_str(np.shape(vec))}")
    if x.shape != y_backprop.shape:
        raise invalid_argument(
            f"x and y_backprop must have same shape, but x has shape {shape_str(x.shape)} and y_backprop has shape "
            f"{shape_str(y_backprop.shape)}"
        )
    rank = x.ndim
    if not is_training and data_format.startswith("NC"):
        raise invalid_argument(
            "The implementation of FusedBatchNormGrad with is_training=False only support NHWC tensor format for now."
        )
    channel_axis = 1 if data_format.startswith("NC") else rank - 1
    channels = x.shape[channel_axis]
    for name, vec in (("scale", scale), ("reserve_space_1", reserve_space_1), ("reserve_space_2", reserve_space_2)):
        if np.shape(vec)[0] != channels:
            raise invalid_argument(
                f"{name} must have the same number of elements as the channels of x, got {np.shape(vec)[0]} "
                f"and {channels}"
            )
    f32 = np.float32
    dy = np.moveaxis(y_backprop, channel_axis, -1).astype(f32).reshape(-1, channels)
    xs = np.moveaxis(x, channel_axis, -1).astype(f32).reshape(-1, channels)
    scale_f, mean, variance = (np.asarray(v, f32) for v in (scale, reserve_space_1, reserve_space_2))
    rest = dy.shape[0]
    coef0 = f32(1) / np.sqrt(variance + f32(epsilon))
    centered = xs - mean
    offset_backprop = dy.sum(axis=0, dtype=f32)
    scale_backprop = (dy * (centered * coef0)).sum(axis=0, dtype=f32)
    if is_training:
        rest_inv = f32(1.0 / rest) if rest else f32(np.inf)
        dy_centered = dy - offset_backprop * rest_inv
        coef2 = coef0 * coef0 * ((dy * centered).sum(axis=0, dtype=f32) * rest_inv)
        x_backprop = (scale_f * coef0) * (dy_centered - centered * coef2)
    else:
        x_backprop = dy * (scale_f * coef0)
    moved = [d for a, d in enumerate(x.shape) if a != channel_axis] + [channels]
    x_backprop = np.moveaxis(x_backprop.reshape(moved), -1, channel_axis)
    empty = np.zeros((0,), f32)
    return np.ascontiguousarray(x_backprop.astype(x.dtype)), scale_backprop, offset_backprop, empty, empty.copy()


def fused_batch_norm_grad(
    y_backprop: np.ndarray,
    x: np.ndarray,
    scale: np.ndarray,
    reserve_space_1: np.ndarray,
    reserve_space_2: np.ndarray,
    epsilon: float = 0.0001,
    data_format: Any = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    """FusedBatchNormGrad: x_backprop, scale_backprop, offset_backprop and two empty placeholders."""
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                                  is_training)  # fmt: skip


def fused_batch_norm_grad_v3(
    y_backprop: np.ndarray,
    x: np.ndarray,
    scale: np.ndarray,
    reserve_space_1: np.ndarray,
    reserve_space_2: np.ndarray,
    reserve_space_3: np.ndarray,
    epsilon: float = 0.0001,
    data_format: Any = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    """FusedBatchNormGradV3: as FusedBatchNormGrad (reserve_space_3, empty on CPU, is not read)."""
    del reserve_space_3
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon, data_format,
                                  is_training)  # fmt: skip


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ReluGrad": relu_grad,
    "Relu6Grad": relu6_grad,
    "EluGrad": elu_grad,
    "LeakyReluGrad": leaky_relu_grad,
    "Softplus": softplus,
    "SoftplusGrad": softplus_grad,
    "Selu": selu,
    "SeluGrad": selu_grad,
    "LRN": lrn,
    "LRNGrad": lrn_grad,
    "Softsign": softsign,
    "SoftsignGrad": softsign_grad,
    "BiasAddGrad": bias_add_grad,
    "Conv2DBackpropInput": conv2d_backprop_input,
    "Conv2DBackpropFilter": conv2d_backprop_filter,
    "DepthwiseConv2dNativeBackpropInput": depthwise_conv2d_native_backprop_input,
    "DepthwiseConv2dNativeBackpropFilter": depthwise_conv2d_native_backprop_filter,
    "MaxPoolGrad": max_pool_grad,
    "MaxPoolGradGrad": max_pool_grad_grad,
    "AvgPoolGrad": avg_pool_grad,
    "FusedBatchNormGrad": fused_batch_norm_grad,
    "FusedBatchNormGradV3": fused_batch_norm_grad_v3,
}

_REAL = "FLOATS INTS UINTS"
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "ReluGrad": {"T": _REAL},
    "Relu6Grad": {"T": _REAL},
    "EluGrad": {"T": "FLOATS"},
    "LeakyReluGrad": {"T": _REAL},
    "Softplus": {"T": "FLOATS"},
    "SoftplusGrad": {"T": "FLOATS"},
    **{op: {"T": "FLOATS"} for op in ("Selu", "SeluGrad", "Softsign", "SoftsignGrad")},
    "LRN": {"T": "float16 float32"},
    "LRNGrad": {"T": "float16 float32"},
    "BiasAddGrad": {"T": "FLOATS INTS UINTS COMPLEX"},
    "Conv2DBackpropInput": {"T": "FLOATS int32"},
    "Conv2DBackpropFilter": {"T": "FLOATS"},
    "DepthwiseConv2dNativeBackpropInput": {"T": "FLOATS"},
    "DepthwiseConv2dNativeBackpropFilter": {"T": "FLOATS"},
    "MaxPoolGrad": {"T": _REAL},
    "MaxPoolGradGrad": {"T": _REAL},
    "AvgPoolGrad": {"T": "FLOATS"},
    "FusedBatchNormGrad": {"T": "float32"},
    "FusedBatchNormGradV3": {"T": "bfloat16 float16 float32", "U": "float32"},
}
