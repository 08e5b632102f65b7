"""Image kernels with TensorFlow's semantics: resizing (bilinear, nearest neighbor, bicubic, area),
AdjustContrastv2, AdjustHue, AdjustSaturation, RGBToHSV, HSVToRGB and ExtractImagePatches.

Sampling positions follow TF's scalers (legacy ``x * scale``, half-pixel centers, align
corners) computed in float32 as TF does, so the chosen source pixels and weights are
TF's; bilinear interpolates in float32 in TF's order, bicubic uses TF's 1025-entry Keys
coefficient table. Bilinear, bicubic and area output float32 for every input type.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from modtensor.framework.errors import FailedPreconditionError, OutOfRangeError
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.windows import window_axis

_F = np.float32


def _validate(images: np.ndarray, size: np.ndarray, align_corners: bool, half_pixel_centers: bool) -> tuple[int, int]:
    """TF's ImageResizerState checks; returns the output (height, width)."""
    if half_pixel_centers and align_corners:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{shape_str(images.shape)}")
    if size.ndim != 1:
        raise invalid_argument(f"shape_t must be 1-dimensional{shape_str(size.shape)}")
    if size.size != 2:
        raise invalid_argument(f"shape_t must have two elements{shape_str(size.shape)}")
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise invalid_argument("output dimensions must be positive")
    if images.shape[3] <= 0:
        raise invalid_argument("image must have at least one channel")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise invalid_argument("input image must be of non-zero size")
    return out_h, out_w


def _scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's CalculateResizeScale, in float32 (align_corners only applies when both sizes exceed 1)."""
    if align_corners and in_size > 1 and out_size > 1:
        return _F(in_size - 1) / _F(out_size - 1)
    return _F(in_size) / _F(out_size)


# --------------------------------------------------------------------------- bilinear


def _bilinear_axis(in_size: int, out_size: int, scale: np.float32, half_pixel: bool):
    """(lower index, upper index, lerp) per output position, as TF's compute_interpolation_weights."""
    pos = np.arange(out_size, dtype=_F)
    source = (pos + _F(0.5)) * scale - _F(0.5) if half_pixel else pos * scale
    floor = np.floor(source)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(source).astype(np.int64), in_size - 1)
    return lower, upper, (source - floor).astype(_F)


@ignoring_fp_errors
def resize_bilinear(
    images: np.ndarray, size: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeBilinear: each output pixel interpolates its four source pixels (float32 output)."""
    images, size = np.asarray(images), np.asarray(size)
    out_h, out_w = _validate(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    ys = _bilinear_axis(in_h, out_h, _scale(in_h, out_h, align_corners), half_pixel_centers)
    xs = _bilinear_axis(in_w, out_w, _scale(in_w, out_w, align_corners), half_pixel_centers)
    x = images.astype(_F, copy=False)
    top, bottom = x[:, ys[0]], x[:, ys[1]]
    x_lerp = xs[2][None, None, :, None]
    top_interp = top[:, :, xs[0]] + (top[:, :, xs[1]] - top[:, :, xs[0]]) * x_lerp
    bottom_interp = bottom[:, :, xs[0]] + (bottom[:, :, xs[1]] - bottom[:, :, xs[0]]) * x_lerp
    return top_interp + (bottom_interp - top_interp) * ys[2][None, :, None, None]


# --------------------------------------------------------------------------- nearest neighbor


def _nearest_axis(in_size: int, out_size: int, scale: np.float32, align_corners: bool, half_pixel: bool):
    pos = np.arange(out_size, dtype=_F)
    source = (pos + _F(0.5)) * scale if half_pixel else pos * scale
    if align_corners:
        index = np.trunc(source + np.copysign(_F(0.5), source)).astype(np.int64)  # roundf: half away from zero
    else:
        index = np.floor(source).astype(np.int64)
    index = np.minimum(index, in_size - 1)
    return np.maximum(index, 0) if half_pixel else index


def resize_nearest_neighbor(
    images: np.ndarray, size: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeNearestNeighbor: each output pixel copies its nearest source pixel (output keeps the input type)."""
    images, size = np.asarray(images), np.asarray(size)
    out_h, out_w = _validate(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    ys = _nearest_axis(in_h, out_h, _scale(in_h, out_h, align_corners), align_corners, half_pixel_centers)
    xs = _nearest_axis(in_w, out_w, _scale(in_w, out_w, align_corners), align_corners, half_pixel_centers)
    return np.ascontiguousarray(images[:, ys][:, :, xs])


# --------------------------------------------------------------------------- bicubic

_TABLE_SIZE = 1024


@functools.cache
def _coeffs_table(a: float) -> np.ndarray:
    """TF's bicubic convolution coefficients at 1025 offsets: [i, 0] for |d| <= 1, [i, 1] for 1 <= |d| <= 2."""
    x = np.arange(_TABLE_SIZE + 1, dtype=np.float64) / _TABLE_SIZE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(_F)


def _bicubic_axis(in_size: int, out_size: int, scale: np.float32, half_pixel: bool):
    """(4 source indices, 4 weights) per output position, as TF's GetWeightsAndIndices."""
    pos = np.arange(out_size, dtype=_F)
    source = (pos + _F(0.5)) * scale - _F(0.5) if half_pixel else pos * scale
    in_loc = np.floor(source).astype(np.int64)
    delta = source - in_loc.astype(_F)
    offset = np.rint(delta * _F(_TABLE_SIZE)).astype(np.int64)  # lrintf: half to even
    table = _coeffs_table(-0.5 if half_pixel else -0.75)
    weights = np.stack(
        [table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0], table[_TABLE_SIZE - offset, 1]], axis=1
    )
    wanted = in_loc[:, None] + np.arange(-1, 3)[None, :]
    indices = np.clip(wanted, 0, in_size - 1)
    if half_pixel:  # Keys cubic: taps outside the image weigh 0 and the rest are renormalized
        weights = np.where(indices == wanted, weights, _F(0))
        total = weights[:, 0] + weights[:, 1] + weights[:, 2] + weights[:, 3]
        safe = np.abs(total) >= _F(1000.0) * np.finfo(_F).tiny
        weights = np.where(safe[:, None], weights * (_F(1) / np.where(safe, total, _F(1)))[:, None], weights)
    return indices, weights.astype(_F)


@ignoring_fp_errors
def resize_bicubic(
    images: np.ndarray, size: np.ndarray, align_corners: bool = False, half_pixel_centers: bool = False
) -> np.ndarray:
    """ResizeBicubic: 4x4 cubic convolution (Keys' a=-0.5 with half-pixel centers, else a=-0.75)."""
    images, size = np.asarray(images), np.asarray(size)
    out_h, out_w = _validate(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    y_idx, y_w = _bicubic_axis(in_h, out_h, _scale(in_h, out_h, align_corners), half_pixel_centers)
    x_idx, x_w = _bicubic_axis(in_w, out_w, _scale(in_w, out_w, align_corners), half_pixel_centers)
    x = images.astype(_F, copy=False)
    rows = []
    for i in range(4):  # interpolate along x for each of the 4 source rows, then along y, in TF's order
        row = x[:, y_idx[:, i]]
        r = row[:, :, x_idx[:, 0]] * x_w[None, None, :, 0, None]
        for j in range(1, 4):
            r = r + row[:, :, x_idx[:, j]] * x_w[None, None, :, j, None]
        rows.append(r)
    out = rows[0] * y_w[None, :, 0, None, None]
    for i in range(1, 4):
        out = out + rows[i] * y_w[None, :, i, None, None]
    return out


# --------------------------------------------------------------------------- area


def _area_weights(in_size: int, out_size: int, scale: np.float32) -> np.ndarray:
    """``[out, in]``: how much of each (clamped) source cell each output cell covers, in float32 as TF."""
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    for o in range(out_size):
        start_f = _F(o) * scale
        end_f = _F(o + 1) * scale
        for i in range(int(np.floor(start_f)), int(np.ceil(end_f))):
            if i < start_f:
                w = scale if _F(i + 1) > end_f else _F(i + 1) - start_f
            else:
                w = end_f - _F(i) if _F(i + 1) > end_f else _F(1)
            weights[o, min(max(i, 0), in_size - 1)] += float(_F(w))
    return weights


@ignoring_fp_errors
def resize_area(images: np.ndarray, size: np.ndarray, align_corners: bool = False) -> np.ndarray:
    """ResizeArea: each output pixel averages the source area it covers (float32 output)."""
    images, size = np.asarray(images), np.asarray(size)
    out_h, out_w = _validate(images, size, align_corners, False)
    _, in_h, in_w, _ = images.shape
    h_scale, w_scale = _scale(in_h, out_h, align_corners), _scale(in_w, out_w, align_corners)
    wy = _area_weights(in_h, out_h, h_scale)
    wx = _area_weights(in_w, out_w, w_scale)
    out = np.einsum("oh,nhwc,pw->nopc", wy, images.astype(np.float64), wx, optimize=True)
    return (out * (1.0 / (float(h_scale) * float(w_scale)))).astype(_F)


def _plane_sums(planes: np.ndarray) -> np.ndarray:
    """Per-channel sums of ``planes [batch, pixels, channels]`` (float32) as TF's AdjustContrastv2 folds them:
    the second half of the pixels is added onto the first half until one pixel is left (same rounding)."""
    remaining = planes.shape[1]
    right = remaining // 2
    left = remaining - right
    sums = planes[:, :left].copy()
    sums[:, :right] = planes[:, left : left + right] + planes[:, :right]
    remaining = left
    while remaining > 1:
        right = remaining // 2
        left = remaining - right
        sums[:, :right] += sums[:, left : left + right]
        remaining = left
    return sums[:, 0]


@ignoring_fp_errors
def adjust_contrast_v2(images: np.ndarray, contrast_factor: np.ndarray) -> np.ndarray:
    """AdjustContrastv2: per image and channel, ``(x - mean) * factor + mean`` in float32 (TF's CPU kernel)."""
    images, factor = np.asarray(images), np.asarray(contrast_factor)
    if images.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape{shape_str(images.shape)}")
    if factor.ndim != 0:
        raise invalid_argument(f"contrast_factor must be scalar: {shape_str(factor.shape)}")
    shape = images.shape
    pixels = shape[-3] * shape[-2]
    planes = images.astype(_F, copy=False).reshape(-1, pixels, shape[-1])
    if planes.size == 0:
        return np.empty(shape, images.dtype)
    means = (_plane_sums(planes) * (_F(1.0) / _F(pixels)))[:, None, :]
    out = means + _F(factor) * (planes - means)  # TF: output += factor * (input - output)
    return out.reshape(shape).astype(images.dtype, copy=False)


# --------------------------------------------------------------------------- colour spaces


def _check_colorspace(images: np.ndarray) -> None:
    """RGBToHSV / HSVToRGB's checks: at least 1-D with 3 channels (a FailedPrecondition, as TF's kernel)."""
    if images.ndim < 1:
        raise invalid_argument(f"input must be at least 1D{shape_str(images.shape)}")
    channels = images.shape[-1]
    if channels != 3:
        raise FailedPreconditionError(None, None, f"input must have 3 channels but input only has {channels} channels.")


@ignoring_fp_errors
def rgb_to_hsv(images: np.ndarray) -> np.ndarray:
    """RGBToHSV, elementwise in the input's float type as TF's Eigen functor (hue and saturation in [0, 1])."""
    images = np.asarray(images)
    _check_colorspace(images)
    t = images.dtype.type
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    value_range = v - np.minimum(np.minimum(r, g), b)
    s = np.where(v > 0, value_range / np.where(v > 0, v, t(1)), t(0)).astype(images.dtype)
    norm = (t(1) / value_range) * (t(1) / t(6))
    h = np.where(
        r == v,
        norm * (g - b),
        np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)),
    )
    h = np.where(value_range > 0, h, t(0))
    h = np.where(h < 0, h + t(1), h).astype(images.dtype)
    return np.stack([h, s, v], axis=-1)


@ignoring_fp_errors
def hsv_to_rgb(images: np.ndarray) -> np.ndarray:
    """HSVToRGB, elementwise in the input's float type as TF's Eigen functor (piecewise-linear channel ramps)."""
    images = np.asarray(images)
    _check_colorspace(images)
    t = images.dtype.type
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_s = -s + t(1)
    return np.stack([(one_s + s * d) * v for d in (dr, dg, db)], axis=-1).astype(images.dtype)


def _check_adjust(images: np.ndarray, factor: np.ndarray, factor_name: str) -> None:
    """AdjustHue / AdjustSaturation's checks, TF's messages."""
    if images.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape{shape_str(images.shape)}")
    if factor.ndim != 0:
        raise invalid_argument(f"{factor_name} must be scalar: {shape_str(factor.shape)}")
    channels = images.shape[-1]
    if channels != 3:
        raise invalid_argument(f"input must have 3 channels but instead has {channels} channels.")


@ignoring_fp_errors
def adjust_hue(images: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """AdjustHue: each pixel's hue rotated by ``delta`` (a fraction of the colour wheel), float32 as TF's CPU
    kernel: RGB to (hue in [0, 6), min, max), shifted hue wrapped back into [0, 6), then back to RGB."""
    images, delta = np.asarray(images), np.asarray(delta)
    _check_adjust(images, delta, "delta")
    if images.size == 0:
        return np.empty(images.shape, images.dtype)
    x = images.astype(_F, copy=False)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # TF's six hue sectors (by which channel is largest / middle / smallest), ties counted as TF counts them
    r_lt_g = r < g
    category = np.where(
        r_lt_g,
        np.where(b < r, 1, np.where(b > g, 3, 2)),
        np.where(b < g, 0, np.where(b > r, 4, 5)),
    )
    v_max = np.choose(category, [r, g, g, b, b, r])
    v_mid = np.choose(category, [g, r, b, g, r, b])
    v_min = np.choose(category, [b, b, r, r, g, g])
    ratio = (v_mid - v_min) / (v_max - v_min)
    increase = (category & 1) == 0
    h = category.astype(_F) + np.where(increase, ratio, _F(1) - ratio)
    h = np.where(v_max == v_min, _F(0), h).astype(_F)
    h = h + _F(delta) * _F(6)
    while np.any(h < 0):  # TF wraps by adding or subtracting 6 (no fmod), in float32
        h = np.where(h < 0, h + _F(6), h)
    while np.any(h >= 6):
        h = np.where(h >= 6, h - _F(6), h)
    h_category = h.astype(np.int32)
    ratio = h - h_category.astype(_F)
    ratio = np.where((h_category & 1) == 0, ratio, _F(1) - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    category = np.minimum(h_category, 5)
    out_r = np.choose(category, [v_max, v_mid, v_min, v_min, v_mid, v_max])
    out_g = np.choose(category, [v_mid, v_max, v_max, v_mid, v_min, v_min])
    out_b = np.choose(category, [v_min, v_min, v_mid, v_max, v_max, v_mid])
    return np.stack([out_r, out_g, out_b], axis=-1).astype(images.dtype)


@ignoring_fp_errors
def adjust_saturation(images: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """AdjustSaturation: each pixel's HSV saturation multiplied by ``scale`` and clipped to [0, 1], float32 as
    TF's CPU kernel (its own scalar RGB/HSV conversions, which add the 2/6 and 4/6 hue offsets in double)."""
    images, scale = np.asarray(images), np.asarray(scale)
    _check_adjust(images, scale, "scale")
    if images.size == 0:
        return np.empty(images.shape, images.dtype)
    x = images.astype(_F, copy=False)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(r, np.maximum(g, b))
    value_range = v - np.minimum(r, np.minimum(g, b))
    s = np.where(v > 0, value_range / np.where(v > 0, v, _F(1)), _F(0)).astype(_F)
    norm = _F(1) / (_F(6) * value_range)
    f64 = np.float64
    h = np.where(
        r == v,
        norm * (g - b),
        np.where(
            g == v,
            ((norm * (b - r)).astype(f64) + 2.0 / 6.0).astype(_F),
            ((norm * (r - g)).astype(f64) + 4.0 / 6.0).astype(_F),
        ),
    ).astype(_F)
    h = np.where(value_range <= 0, _F(0), h)
    h = np.where(h < 0, h + _F(1), h)
    s = np.minimum(_F(1), np.maximum(_F(0), s * _F(scale)))
    c = s * v
    m = v - c
    dh = h * _F(6)
    h_category = dh.astype(np.int32)
    fmodu = dh
    while np.any(fmodu <= 0):
        fmodu = np.where(fmodu <= 0, fmodu + _F(2), fmodu)
    while np.any(fmodu >= 2):
        fmodu = np.where(fmodu >= 2, fmodu - _F(2), fmodu)
    xx = c * (_F(1) - np.abs(fmodu - _F(1)))
    zero = np.zeros_like(c)
    category = np.where((h_category >= 0) & (h_category <= 5), h_category, 6)
    rr = np.choose(category, [c, xx, zero, zero, xx, c, zero])
    gg = np.choose(category, [xx, c, c, xx, zero, zero, zero])
    bb = np.choose(category, [zero, zero, xx, c, c, xx, zero])
    return np.stack([rr + m, gg + m, bb + m], axis=-1).astype(images.dtype)


# --------------------------------------------------------------------------- patches


def _vec4(values: Any, name: str) -> list[int]:
    """TF's ParseAttributeVec4: 1 in the batch and depth entries, >= 1 in the spatial ones."""
    values = [int(v) for v in values]
    if values[0] != 1 or values[3] != 1:
        raise unimplemented(f"Only support {name} across space.")
    if values[1] < 1 or values[2] < 1:
        raise OutOfRangeError(None, None, f"{name} is out of range.")
    return values


def extract_image_patches(
    images: np.ndarray, ksizes: Any = (), strides: Any = (), rates: Any = (), padding: Any = "VALID"
) -> np.ndarray:
    """ExtractImagePatches: each output pixel holds its ``ksize`` window (dilated by ``rates``, zero padded for
    SAME) flattened as ``[rows, cols, depth]``."""
    images = np.asarray(images)
    ksizes, strides, rates = _vec4(ksizes, "ksizes"), _vec4(strides, "strides"), _vec4(rates, "rates")
    padding = padding.decode() if isinstance(padding, bytes) else str(padding)
    if images.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional{shape_str(images.shape)}")
    batch, in_rows, in_cols, depth = images.shape
    rows = window_axis(in_rows, ksizes[1], strides[1], rates[1], padding)
    cols = window_axis(in_cols, ksizes[2], strides[2], rates[2], padding)
    out = np.zeros((batch, rows.out, cols.out, ksizes[1], ksizes[2], depth), images.dtype)
    if out.size == 0:
        return out.reshape(batch, rows.out, cols.out, ksizes[1] * ksizes[2] * depth)
    padded = np.zeros(
        (batch, in_rows + rows.pad_before + rows.pad_after, in_cols + cols.pad_before + cols.pad_after, depth),
        images.dtype,
    )
    padded[:, rows.pad_before : rows.pad_before + in_rows, cols.pad_before : cols.pad_before + in_cols] = images
    for i in range(ksizes[1]):
        r0 = i * rates[1]
        for j in range(ksizes[2]):
            c0 = j * rates[2]
            out[:, :, :, i, j] = padded[
                :,
                r0 : r0 + (rows.out - 1) * strides[1] + 1 : strides[1],
                c0 : c0 + (cols.out - 1) * strides[2] + 1 : strides[2],
            ]
    return out.reshape(batch, rows.out, cols.out, ksizes[1] * ksizes[2] * depth)


OP_FUNCTIONS: dict[str, Any] = {
    "ResizeBilinear": resize_bilinear,
    "ResizeNearestNeighbor": resize_nearest_neighbor,
    "ResizeBicubic": resize_bicubic,
    "ResizeArea": resize_area,
    "AdjustContrastv2": adjust_contrast_v2,
    "AdjustHue": adjust_hue,
    "AdjustSaturation": adjust_saturation,
    "RGBToHSV": rgb_to_hsv,
    "HSVToRGB": hsv_to_rgb,
    "ExtractImagePatches": extract_image_patches,
}
_T = "FLOATS INTS UINTS"
CPU_TYPE_CONSTRAINTS = {op: {"T": _T} for op in OP_FUNCTIONS}
CPU_TYPE_CONSTRAINTS["AdjustContrastv2"] = {"T": "float32"}  # TF's CPU kernel is float only
CPU_TYPE_CONSTRAINTS["AdjustHue"] = {"T": "float32"}  # (so is AdjustSaturation's)
CPU_TYPE_CONSTRAINTS["AdjustSaturation"] = {"T": "float32"}
CPU_TYPE_CONSTRAINTS["RGBToHSV"] = {"T": "FLOATS"}
CPU_TYPE_CONSTRAINTS["HSVToRGB"] = {"T": "FLOATS"}
CPU_TYPE_CONSTRAINTS["ExtractImagePatches"] = {"T": "FLOATS INTS UINTS COMPLEX"}
