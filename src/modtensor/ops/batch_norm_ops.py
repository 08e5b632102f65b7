"""Fused batch normalization: FusedBatchNorm and FusedBatchNormV3 (what TF 1 layers and Keras 2 export).

OpDefs equal TensorFlow 2.21's; the shape function is TF's FusedBatchNormShape: y has
x's shape (the channel dim merged with every per-channel input), the statistics are
vectors of the channel count, V3's reserve_space_3 is unknown.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _attr_str(ctx: InferenceContext, name: str) -> str:
    value = ctx.get_attr(name)
    return value.decode() if isinstance(value, bytes) else str(value)


def fused_batch_norm_shape(ctx: InferenceContext) -> None:
    """y like x; batch_mean/variance and reserve spaces ``[C]`` (V3's reserve_space_3 unknown)."""
    data_format = _attr_str(ctx, "data_format")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise invalid(f"Invalid data format string: {data_format}")
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    x = ctx.with_rank(ctx.input(0), rank)
    is_training = bool(ctx.get_attr("is_training"))
    factor = float(ctx.get_attr("exponential_avg_factor"))
    number_inputs = 3 if is_training and factor == 1.0 else 5
    channel_index = 1 if data_format.startswith("NC") else rank - 1
    channel = ctx.dim(x, channel_index)
    for i in range(1, number_inputs):
        vec = ctx.with_rank(ctx.input(i), 1)
        channel = ctx.merge_dim(channel, ctx.dim(vec, 0))
    ctx.set_output(0, ctx.replace_dim(x, channel_index, channel))
    for i in range(1, 5):
        ctx.set_output(i, ctx.vector(channel))
    if ctx.num_outputs() > 5:
        ctx.set_output(5, ctx.unknown_shape())


(
    register_op("FusedBatchNorm")
    .input("x: T")
    .input("scale: T")
    .input("offset: T")
    .input("mean: T")
    .input("variance: T")
    .output("y: T")
    .output("batch_mean: T")
    .output("batch_variance: T")
    .output("reserve_space_1: T")
    .output("reserve_space_2: T")
    .attr("T: {float}")
    .attr("epsilon: float = 0.0001")
    .attr("exponential_avg_factor: float = 1.0")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_shape)
)
(
    register_op("FusedBatchNormV3")
    .input("x: T")
    .input("scale: U")
    .input("offset: U")
    .input("mean: U")
    .input("variance: U")
    .output("y: T")
    .output("batch_mean: U")
    .output("batch_variance: U")
    .output("reserve_space_1: U")
    .output("reserve_space_2: U")
    .output("reserve_space_3: U")
    .attr("T: {half, bfloat16, float}")
    .attr("U: {bfloat16, float}")
    .attr("epsilon: float = 0.0001")
    .attr("exponential_avg_factor: float = 1.0")
    .attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_shape)
)
