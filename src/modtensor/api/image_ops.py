"""``tf.image.resize`` and ``tf.image.ResizeMethod``: TF 2's resize (half-pixel centers) over the Resize* ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


class ResizeMethod:
    """The methods ``tf.image.resize`` takes (TF's names and string values)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _resize(images: Tensor, size: Tensor, method: str, antialias: bool) -> Tensor:
    if antialias and method in (ResizeMethod.BILINEAR, ResizeMethod.BICUBIC):
        raise NotImplementedError("resize with antialias=True needs 'ScaleAndTranslate', not implemented yet")
    if method == ResizeMethod.BILINEAR:
        return apply_op("ResizeBilinear", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return apply_op("ResizeNearestNeighbor", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.BICUBIC:
        return apply_op("ResizeBicubic", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.AREA:
        return apply_op("ResizeArea", images=images, size=size)
    if method in (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC):
        raise NotImplementedError(f"resize method {method!r} needs 'ScaleAndTranslate', not implemented yet")
    raise ValueError(f"Resize method is not implemented: {method}")


def resize(
    images: Any,
    size: Any,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: str | None = None,
) -> Tensor:
    """Images (``[b, h, w, c]`` or ``[h, w, c]``) resized to ``size`` by ``method``; float32 except nearest."""
    with op_scope(name, "resize", [images, size]):
        return resize_images_common(images, size, preserve_aspect_ratio, lambda x, s: _resize(x, s, method, antialias))


def resize_images_common(
    images: Any, size: Any, preserve_aspect_ratio: bool, resize_4d: Callable[[Tensor, Tensor], Tensor]
) -> Tensor:
    """The frame every resize spelling shares (TF's ``_resize_images_common``): 3-D images as a batch of one,
    ``size`` checked (or fitted to the aspect ratio), ``resize_4d(images, size)`` run, the static shape set."""
    images = convert_to_tensor(images, name="images")
    rank = images.shape.rank
    if rank is None:
        raise ValueError("'images' contains no shape.")
    is_batch = rank == 4
    if rank == 3:
        images = array_ops.expand_dims(images, 0)
    elif rank != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    try:
        size = convert_to_tensor(size, dtypes.int32, name="size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if preserve_aspect_ratio:
        shape = array_ops.shape(images)
        height, width = math.cast(shape[1], dtypes.float32), math.cast(shape[2], dtypes.float32)
        factor = math.minimum(
            math.cast(size[0], dtypes.float32) / height, math.cast(size[1], dtypes.float32) / width
        )
        new_h = math.cast(math.round(factor * height), dtypes.int32)
        new_w = math.cast(math.round(factor * width), dtypes.int32)
        size = convert_to_tensor([new_h, new_w], dtypes.int32, name="size")
    resized = resize_4d(images, size)
    if isinstance(resized, SymbolicTensor):
        static = constant_value(size)
        dims = [None, None] if static is None else [int(v) for v in static]
        resized.set_shape([None, *dims, None])
    if not is_batch:
        resized = array_ops.squeeze(resized, axis=[0])
    return resized
