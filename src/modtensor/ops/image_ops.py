"""Image ops: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea, AdjustContrastv2.

OpDefs equal TensorFlow 2.21's registered ones; the resize shape function is TF's
ResizeShapeFn: ``[batch, size[0], size[1], channels]`` with ``size`` read when constant;
AdjustContrastv2 keeps its input's shape (rank >= 3).
"""

from __future__ import annotations

from modtensor.framework.common_shapes import unchanged_shape_with_rank_at_least
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid

_TYPES = "{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"


def resize_shape(ctx: InferenceContext) -> None:
    """``images [b, h, w, c]`` and a 2-vector ``size`` -> ``[b, size[0], size[1], c]``."""
    images = ctx.with_rank(ctx.input(0), 4)
    size = ctx.with_rank(ctx.input(1), 1)
    ctx.with_value(ctx.dim(size, 0), 2)
    value = ctx.input_tensor(1)
    if value is None:
        height, width = ctx.unknown_dim(), ctx.unknown_dim()
    else:
        if value.dtype.name != "int32":
            raise invalid(
                f"Bad size input type for SetOutputToSizedImage: Expected DT_INT32 but got {value.dtype.name}"
            )
        height, width = ctx.make_dim(int(value[0])), ctx.make_dim(int(value[1]))
    ctx.set_output(0, ctx.make_shape([ctx.dim(images, 0), height, width, ctx.dim(images, 3)]))


for _name, _out, _types in (
    ("ResizeBilinear", "float", "{int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}"),
    ("ResizeNearestNeighbor", "T", _TYPES),
    ("ResizeBicubic", "float", _TYPES),
):
    (
        register_op(_name)
        .input("images: T")
        .input("size: int32")
        .output(f"resized_images: {_out}")
        .attr(f"T: {_types}")
        .attr("align_corners: bool = false")
        .attr("half_pixel_centers: bool = false")
        .set_shape_fn(resize_shape)
    )
(
    register_op("ResizeArea")
    .input("images: T")
    .input("size: int32")
    .output("resized_images: float")
    .attr(f"T: {_TYPES}")
    .attr("align_corners: bool = false")
    .set_shape_fn(resize_shape)
)
(
    register_op("AdjustContrastv2")
    .input("images: T")
    .input("contrast_factor: float")
    .output("output: T")
    .attr("T: {half, float} = DT_FLOAT")
    .set_shape_fn(unchanged_shape_with_rank_at_least(3))
)
