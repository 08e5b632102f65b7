"""Gradients of image ops (TensorFlow's rules, ``tensorflow/python/ops/image_grad.py``).

The resize gradients are TF's backward ops (``ResizeBilinearGrad``, ...) with the forward op's
``align_corners`` and ``half_pixel_centers``; the output size input gets none.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

no_gradient("ResizeBilinearGrad")


def _resize_attrs(op: Any) -> dict[str, Any]:
    return {"align_corners": op.get_attr("align_corners"), "half_pixel_centers": op.get_attr("half_pixel_centers")}


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op: Any, grad: Any) -> list[Any]:
    image = op.inputs[0]
    spatial = image.shape[1:3] if image.shape.rank is not None else None
    if spatial is not None and spatial.is_fully_defined():
        size = array_ops.constant([int(d) for d in spatial.as_list()], dtype=dtypes.int32)
    else:
        size = array_ops.shape(image)[1:3]
    return [apply_op("ResizeNearestNeighborGrad", grads=grad, size=size, **_resize_attrs(op)), None]


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op: Any, grad: Any) -> list[Any]:
    return [apply_op("ResizeBilinearGrad", grads=grad, original_image=op.inputs[0], **_resize_attrs(op)), None]


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op: Any, grad: Any) -> list[Any]:
    # TF's backward op takes float and double images only; other input types get no gradient.
    if op.inputs[0].dtype.base_dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]
    return [apply_op("ResizeBicubicGrad", grads=grad, original_image=op.inputs[0], **_resize_attrs(op)), None]
