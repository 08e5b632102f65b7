"""Image backward ops: ResizeBilinearGrad, ResizeNearestNeighborGrad, ResizeBicubicGrad.

OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt); shape functions follow TF's:
the bilinear and bicubic gradients have the original image's shape, the nearest-neighbor gradient
the incoming gradient's with its spatial dims from ``size``.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _original_image_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.input(1))


def _nearest_neighbor_grad_shape(ctx: InferenceContext) -> None:
    """``grads [b, h, w, c]`` and a 2-vector ``size`` -> ``[b, size[0], size[1], c]``."""
    grads = ctx.with_rank(ctx.input(0), 4)
    size = ctx.with_rank(ctx.input(1), 1)
    ctx.with_value(ctx.dim(size, 0), 2)
    value = ctx.input_tensor(1)
    if value is None:
        height, width = ctx.unknown_dim(), ctx.unknown_dim()
    else:
        if value.dtype.name != "int32":
            raise invalid(f"Bad size input type: Expected DT_INT32 but got {value.dtype.name}")
        height, width = ctx.make_dim(int(value[0])), ctx.make_dim(int(value[1]))
    ctx.set_output(0, ctx.replace_dim(ctx.replace_dim(grads, 1, height), 2, width))


for _name, _types in (
    ("ResizeBilinearGrad", "{float, bfloat16, half, double}"),
    ("ResizeBicubicGrad", "{float, double}"),
):
    (
        register_op(_name)
        .input("grads: float")
        .input("original_image: T")
        .output("output: T")
        .attr(f"T: {_types}")
        .attr("align_corners: bool = false")
        .attr("half_pixel_centers: bool = false")
        .set_shape_fn(_original_image_shape)
    )
(
    register_op("ResizeNearestNeighborGrad")
    .input("grads: T")
    .input("size: int32")
    .output("output: T")
    .attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
    .attr("align_corners: bool = false")
    .attr("half_pixel_centers: bool = false")
    .set_shape_fn(_nearest_neighbor_grad_shape)
)
