"""``tf.image``'s pixel-value functions: ``convert_image_dtype``, brightness, contrast, gamma, hue, saturation,
standardization, the colour-space conversions, ``image_gradients``, ``total_variation`` and ``psnr``.

Each is composed of existing ops the way TF 2.21's ``image_ops_impl`` composes it (same op
order, names, dtype conversions and checks), so graphs, values and errors equal TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, check_ops, context, linalg_ops
from modtensor.api import image_checks as checks
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.graph import get_default_graph
from modtensor.framework.tensor import Tensor

__all__: list[str] = []

# TF's conversion matrices (image_ops_impl), applied as ``tensordot(images, kernel, [[-1], [0]])``.
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Tensor:
    """``image`` converted to ``dtype``, rescaling values: floats span [0, 1), integers [0, dtype.max].

    Integer to integer divides or multiplies by the ratio of the ranges; integer to float
    multiplies by ``1 / in.max``; float to integer multiplies by ``out.max + 0.5`` and casts
    (clipped first with ``saturate``). Same dtype: an Identity.
    """
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with op_scope(name, "convert_image", [image]) as scope:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                scaled = math.floordiv(image, (scale_in + 1) // (scale_out + 1))
                if saturate:
                    return math.saturate_cast(scaled, dtype, name=scope)
                return math.cast(scaled, dtype, name=scope)
            cast = math.saturate_cast(image, dtype) if saturate else math.cast(image, dtype)
            return math.multiply(cast, (scale_out + 1) // (scale_in + 1), name=scope)
        if image.dtype.is_floating and dtype.is_floating:
            return math.cast(image, dtype, name=scope)
        if image.dtype.is_integer:
            cast = math.cast(image, dtype)
            return math.multiply(cast, 1.0 / image.dtype.max, name=scope)
        scaled = math.multiply(image, dtype.max + 0.5)
        if saturate:
            return math.saturate_cast(scaled, dtype, name=scope)
        return math.cast(scaled, dtype, name=scope)


def _as_float(image: Tensor) -> Tensor:
    """float16/float32 images as they are, others converted to float32 (TF's adjust_* prologue)."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """``image + delta`` computed in float (integer images are converted there and back, saturating)."""
    with op_scope(None, "adjust_brightness", [image, delta]) as scope:
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _as_float(image)
        adjusted = math.add(flt_image, math.cast(delta, flt_image.dtype), name=scope)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    """Each channel of each image moved away from (or toward) its mean by ``contrast_factor`` (AdjustContrastv2)."""
    with op_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt_images = _as_float(images)
        adjusted = apply_op("AdjustContrastv2", name=scope, images=flt_images, contrast_factor=contrast_factor)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Tensor:
    """``gain * image ** gamma`` computed in float; a negative ``gamma`` is TF's ValueError (or failing Assert)."""
    with op_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _as_float(image)
        assert_op = checks.assert_(gamma >= 0, ValueError, "Gamma should be a non-negative real number.")
        if assert_op:
            gamma = check_ops.with_dependencies(assert_op, gamma)
        adjusted = gain * flt_image**gamma
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Tensor:
    """RGB images with each pixel's hue rotated by ``delta`` (a fraction of the colour wheel, in [-1, 1]) by the
    AdjustHue op, computed in float (other dtypes are converted there and back)."""
    with op_scope(name, "adjust_hue", [image]):
        if context.executing_eagerly() and (delta < -1 or delta > 1):
            raise ValueError("delta must be in the interval [-1, 1]")
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _as_float(image)
        rgb_altered = apply_op("AdjustHue", images=flt_image, delta=delta)
        return convert_image_dtype(rgb_altered, orig_dtype)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Tensor:
    """RGB images with each pixel's HSV saturation scaled by ``saturation_factor`` (clipped to [0, 1]) by the
    AdjustSaturation op, computed in float (other dtypes are converted there and back)."""
    with op_scope(name, "adjust_saturation", [image]):
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _as_float(image)
        adjusted = apply_op("AdjustSaturation", images=flt_image, scale=saturation_factor)
        return convert_image_dtype(adjusted, orig_dtype)


def per_image_standardization(image: Any) -> Tensor:
    """Each image scaled to mean 0 and variance 1: ``(x - mean) / max(stddev, 1 / sqrt(num_pixels))`` in float32."""
    with op_scope(None, "per_image_standardization", [image]) as scope:
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        image = math.cast(image, dtype=dtypes.float32)
        num_pixels = math.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = math.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = apply_op("Rsqrt", x=math.cast(num_pixels, dtypes.float32))
        adjusted_stddev = math.maximum(stddev, min_stddev)
        image -= image_mean
        return math.divide(image, adjusted_stddev, name=scope)


def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    """RGB images (last dim 3) as one-channel luma ``0.2989 R + 0.587 G + 0.114 B``, in the input dtype."""
    with op_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt_image = convert_image_dtype(images, dtypes.float32)
        gray_float = linalg_ops.tensordot(flt_image, [0.2989, 0.587, 0.114], [-1, -1])
        gray_float = array_ops.expand_dims(gray_float, -1)
        return convert_image_dtype(gray_float, orig_dtype, name=scope)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """One-channel images with the channel repeated 3 times (``Tile``)."""
    with op_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = checks.assert_grayscale_image(images)
        images = convert_to_tensor(images, name="images")
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        shape_list = [array_ops.ones(rank_1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)]
        multiples = array_ops.concat(shape_list, 0)
        rgb = array_ops.tile(images, multiples, name=scope)
        rgb.set_shape(images.shape[:-1].concatenate([3]))
        return rgb


def _convert_colors(images: Any, kernel: list[list[float]]) -> Tensor:
    """``images`` (last dim 3) times a 3x3 colour matrix, in the images' dtype (``Tensordot``)."""
    images = convert_to_tensor(images, name="images")
    kernel_t = convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
    ndims = images.shape.rank
    return linalg_ops.tensordot(images, kernel_t, axes=[[ndims - 1], [0]])


def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    """RGB images (floats in [0, 1], last dim 3) as hue, saturation and value, each in [0, 1] (the RGBToHSV op)."""
    return apply_op("RGBToHSV", name=name, images=images)


def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """HSV images (last dim 3) back in RGB (the HSVToRGB op)."""
    return apply_op("HSVToRGB", name=name, images=images)


def rgb_to_yiq(images: Any) -> Tensor:
    """RGB images (floats in [0, 1]) in the YIQ colour space."""
    return _convert_colors(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> Tensor:
    """YIQ images back in RGB."""
    return _convert_colors(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> Tensor:
    """RGB images (floats in [0, 1]) in the YUV colour space."""
    return _convert_colors(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> Tensor:
    """YUV images back in RGB."""
    return _convert_colors(images, _YUV_TO_RGB)


def image_gradients(image: Tensor) -> tuple[Tensor, Tensor]:
    """``(dy, dx)``: forward differences of a ``[b, h, w, c]`` image, zero in the last row / column."""
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    image_shape = array_ops.shape(image)
    batch_size, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    shape = array_ops.stack([batch_size, 1, width, depth])
    dy = array_ops.concat([dy, array_ops.zeros(shape, image.dtype)], 1)
    dy = array_ops.reshape(dy, image_shape)
    shape = array_ops.stack([batch_size, height, 1, depth])
    dx = array_ops.concat([dx, array_ops.zeros(shape, image.dtype)], 2)
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def total_variation(images: Tensor, name: str | None = None) -> Tensor:
    """The sum of absolute differences of neighbouring pixels: a scalar for a 3-D image, one per 4-D batch item."""
    with op_scope(name, "total_variation"):
        ndims = images.shape.rank
        if ndims == 3:
            pixel_dif1 = images[1:, :, :] - images[:-1, :, :]
            pixel_dif2 = images[:, 1:, :] - images[:, :-1, :]
            sum_axis = None
        elif ndims == 4:
            pixel_dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            pixel_dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            sum_axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return math.reduce_sum(math.abs(pixel_dif1), axis=sum_axis) + math.reduce_sum(
            math.abs(pixel_dif2), axis=sum_axis
        )


def _verify_compatible_image_shapes(img1: Tensor, img2: Tensor) -> list[Any]:
    """TF's checks that two image batches can be compared: static ones now, two Assert ops for the rest."""
    shape1 = img1.shape.with_rank_at_least(3)
    shape2 = img2.shape.with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.rank is not None and shape2.rank is not None:
        for dim1, dim2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3]), strict=False):
            if not (dim1 == 1 or dim2 == 1 or dim1.is_compatible_with(dim2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    dyn1, dyn2 = array_ops.shape_n([img1, img2])
    return [
        check_ops.Assert(math.greater_equal(array_ops.size(dyn1), 3), [dyn1, dyn2], summarize=10),
        check_ops.Assert(math.reduce_all(math.equal(dyn1[-3:], dyn2[-3:])), [dyn1, dyn2], summarize=10),
    ]


def psnr(a: Tensor, b: Tensor, max_val: Any, name: str | None = None) -> Tensor:
    """Peak signal-to-noise ratio of ``a`` and ``b`` per image, in dB, for pixel values up to ``max_val``."""
    with op_scope(name, "PSNR", [a, b]):
        max_val = math.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = math.reduce_mean(math.squared_difference(a, b), [-3, -2, -1])
        psnr_val = math.subtract(
            20 * math.log(max_val) / math.log(10.0), np.float32(10 / np.log(10)) * math.log(mse), name="psnr"
        )
        assert_ops = _verify_compatible_image_shapes(a, b)
        if context.executing_eagerly():
            return array_ops.identity(psnr_val)
        with get_default_graph().control_dependencies(assert_ops):
            return array_ops.identity(psnr_val)
