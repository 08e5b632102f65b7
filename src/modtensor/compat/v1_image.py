"""``tf.compat.v1.image``: TF 1's resize spellings (``align_corners``, no half-pixel centers by default).

``resize_bilinear`` / ``resize_nearest_neighbor`` / ``resize_bicubic`` / ``resize_area`` are the ops themselves
(4-D images); ``resize_images`` (also ``resize``) takes 3-D or 4-D images and TF 1's method codes. ``ResizeMethod``
here is TF 1's (integer codes); ``tf.image.ResizeMethod`` is TF 2's.
"""

from __future__ import annotations

from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.api.image_ops import resize_images_common
from modtensor.api.op_scope import op_scope
from modtensor.framework.tensor import Tensor

__all__ = [
    "ResizeMethod",
    "resize",
    "resize_area",
    "resize_bicubic",
    "resize_bilinear",
    "resize_images",
    "resize_nearest_neighbor",
]


class ResizeMethod:
    """TF 1's ``ResizeMethodV1`` codes."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def resize_bilinear(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                    half_pixel_centers: bool = False) -> Tensor:  # fmt: skip
    """The ResizeBilinear op: float32 output."""
    return apply_op("ResizeBilinear", images=images, size=size, align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers, name=name)  # fmt: skip


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                            half_pixel_centers: bool = False) -> Tensor:  # fmt: skip
    """The ResizeNearestNeighbor op: the images' dtype."""
    return apply_op("ResizeNearestNeighbor", images=images, size=size, align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers, name=name)  # fmt: skip


def resize_bicubic(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                   half_pixel_centers: bool = False) -> Tensor:  # fmt: skip
    """The ResizeBicubic op: float32 output."""
    return apply_op("ResizeBicubic", images=images, size=size, align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers, name=name)  # fmt: skip


def resize_area(images: Any, size: Any, align_corners: bool = False, name: str | None = None) -> Tensor:
    """The ResizeArea op: float32 output."""
    return apply_op("ResizeArea", images=images, size=size, align_corners=align_corners, name=name)


_BY_METHOD = {
    ResizeMethod.BILINEAR: resize_bilinear,
    ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
    ResizeMethod.BICUBIC: resize_bicubic,
    ResizeMethod.AREA: resize_area,
    "bilinear": resize_bilinear,  # TF 1 also takes TF 2's strings for these four
    "nearest": resize_nearest_neighbor,
    "bicubic": resize_bicubic,
    "area": resize_area,
}


def resize_images(images: Any, size: Any, method: Any = ResizeMethod.BILINEAR, align_corners: bool = False,
                  preserve_aspect_ratio: bool = False, name: str | None = None) -> Tensor:  # fmt: skip
    """TF 1's ``tf.image.resize``: 3-D or 4-D images, ``method`` a ``ResizeMethod`` code (or TF 2 string)."""
    op = _BY_METHOD.get(method)
    if op is None:
        raise ValueError("Resize method is not implemented: {}".format(method))  # noqa: UP032 - TF's text
    with op_scope(name, "resize", [images, size]):
        return resize_images_common(images, size, preserve_aspect_ratio,
                                    lambda x, s: op(x, s, align_corners=align_corners))  # fmt: skip


resize = resize_images
