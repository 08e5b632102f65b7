"""Gradients of image ops (TensorFlow's rules, ``tensorflow/python/ops/image_grad.py``).

The resize gradients are TF's backward ops (``ResizeBilinearGrad``, ...) with the forward op's
``align_corners`` and ``half_pixel_centers``; the output size input gets none. RGBToHSV's is TF's
piecewise formula of elementwise ops.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, math_ops
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


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op: Any, grad: Any) -> list[Any]:
    """TF's piecewise derivatives of (hue, saturation, value) by (r, g, b), the terms in TF's order of evaluation.

    A pixel's largest channel is picked with ties going to red, then green; its smallest with ties going to blue,
    then green. Value follows the largest channel. Saturation = (max - min) / max: the largest channel's term is
    min / max^2, the smallest's -1 / max. Hue's terms (in degrees, scaled by 1/360) come from the sector formulas
    of the channel that is largest; reciprocals are DivNoNan, so flat pixels get zero.
    """
    dtype = op.inputs[0].dtype.base_dtype
    r, g, b = op.inputs[0][..., 0], op.inputs[0][..., 1], op.inputs[0][..., 2]
    s, v = op.outputs[0][..., 1], op.outputs[0][..., 2]

    def ind(cond: Any) -> Any:
        return math_ops.cast(cond, dtype)

    def rec(x: Any) -> Any:
        return apply_op("DivNoNan", x=math_ops.cast(1.0, dtype), y=x)

    sq = math_ops.square
    r_max, g_max, b_max = ind((r >= b) & (r >= g)), ind((g > r) & (g >= b)), ind((b > r) & (b > g))
    r_min, g_min, b_min = ind((r < b) & (r < g)), ind((g <= r) & (g < b)), ind((b <= r) & (b <= g))
    r_pos, g_pos, b_pos = ind(r > 0), ind(g > 0), ind(b > 0)

    ds_dr = r_pos * ((r_max * (g_min * g + b_min * b) * rec(sq(r))) + (r_min * -1 * rec(g_max * g + b_max * b)))
    ds_dg = g_pos * ((g_max * (r_min * r + b_min * b) * rec(sq(g))) + (g_min * -1 * rec(r_max * r + b_max * b)))
    ds_db = b_pos * ((b_max * (g_min * g + r_min * r) * rec(sq(b))) + (b_min * -1 * rec(g_max * g + r_max * r)))

    dh_dr = (
        60 * (r_pos * r_max * -1 * (g - b) * rec(sq(s)) * rec(sq(v)))
        + 60 * (g_pos * g_max * r_min * (b - g) * rec(sq(r - g)))
        + 60 * (g_pos * g_max * b_min * -1 * rec(g - b))
        + 60 * (b_pos * b_max * r_min * (b - g) * rec(sq(b - r)))
        + 60 * (b_pos * b_max * g_min * rec(b - g))
    ) / 360
    dh_dg = (
        60 * (g_pos * g_max * -1 * (b - r) * rec(sq(s)) * rec(sq(v)))
        + 60 * (r_pos * r_max * g_min * (r - b) * rec(sq(r - g)))
        + 60 * (r_pos * r_max * b_min * rec(r - b))
        + 60 * (b_pos * b_max * g_min * (r - b) * rec(sq(b - g)))
        + 60 * (b_pos * b_max * r_min * -1 * rec(b - r))
    ) / 360
    dh_db = (
        60 * (b_pos * b_max * -1 * (r - g) * rec(sq(s)) * rec(sq(v)))
        + 60 * (r_pos * r_max * b_min * (g - r) * rec(sq(r - b)))
        + 60 * (r_pos * r_max * g_min * -1 * rec(r - g))
        + 60 * (g_pos * g_max * b_min * (g - r) * rec(sq(g - b)))
        + 60 * (g_pos * g_max * r_min * rec(g - r))
    ) / 360

    gh, gs, gv = grad[..., 0], grad[..., 1], grad[..., 2]
    by_value = array_ops.stack([gv * r_max, gv * g_max, gv * b_max], axis=-1)
    by_saturation = array_ops.stack([gs * ds_dr, gs * ds_dg, gs * ds_db], axis=-1)
    by_hue = array_ops.stack([gh * dh_dr, gh * dh_dg, gh * dh_db], axis=-1)
    return [(by_value + by_saturation) + by_hue]
