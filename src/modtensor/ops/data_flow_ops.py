"""Partition and stitch ops: DynamicPartition, DynamicStitch and ParallelDynamicStitch, with TensorFlow 2.21's
OpDefs and shape functions."""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _dynamic_partition_shape(ctx: InferenceContext) -> None:
    """Each output: ``[?] + data.shape[partitions.rank:]``; ``data``'s shape must start with ``partitions``'."""
    partitions = ctx.input(1)
    if not ctx.rank_known(partitions):
        for i in range(ctx.num_outputs()):
            ctx.set_output(i, ctx.unknown_shape())
        return
    data = ctx.input(0)
    ctx.merge_prefix(data, partitions)
    result = ctx.concatenate(ctx.make_shape([ctx.unknown_dim()]), ctx.subshape(data, ctx.rank(partitions)))
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, result)


def _dynamic_stitch_shape(ctx: InferenceContext) -> None:
    """``[max index + 1 (when every index is a constant)] + the data's shape past its indices'."""
    n = int(ctx.get_attr("N"))
    extra = ctx.unknown_shape()
    # the shapes first: TF checks them in a first pass that has no constant inputs (its errors name none)
    for i in range(n):
        indices, data = ctx.input(i), ctx.input(i + n)
        if ctx.rank_known(indices):
            ctx.merge_prefix(data, indices)
            extra = ctx.merge(extra, ctx.subshape(data, ctx.rank(indices)))
    all_constant, max_index = True, -1
    for i in range(n):
        indices_value = ctx.input_tensor(i)
        if indices_value is None:
            all_constant = False
        elif ctx.rank_known(ctx.input(i)) and indices_value.size:
            max_index = max(max_index, int(indices_value.max()))
    first = ctx.make_dim(max_index + 1) if all_constant else ctx.unknown_dim()
    ctx.set_output(0, ctx.concatenate(ctx.vector(first), extra))


(
    register_op("DynamicPartition")
    .input("data: T")
    .input("partitions: int32")
    .output("outputs: num_partitions * T")
    .attr("num_partitions: int >= 1")
    .attr("T: type")
    .set_shape_fn(_dynamic_partition_shape)
)
for _name in ("DynamicStitch", "ParallelDynamicStitch"):
    (
        register_op(_name)
        .input("indices: N * int32")
        .input("data: N * T")
        .output("merged: T")
        .attr("N: int >= 1")
        .attr("T: type")
        .set_shape_fn(_dynamic_stitch_shape)
    )
