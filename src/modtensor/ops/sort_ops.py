"""Ordering ops: TopKV2 (also what tf.sort/argsort build on), Unique, and ClipByValue.

OpDefs equal TensorFlow 2.21's; shape functions follow TF's TopKShapeFn, Unique's and UnchangedShape.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _top_k_shape(ctx: InferenceContext) -> None:
    """values and indices: the input with its last dim replaced by ``k``."""
    shape = ctx.with_rank_at_least(ctx.input(0), 1)
    k = ctx.make_dim_for_scalar_input(1)
    last = ctx.dim(shape, -1)
    if last.value is not None and k.value is not None and last.value < k.value:
        raise invalid(f"input must have last dimension >= k = {k.value} but is {last.value}")
    out = ctx.concatenate(ctx.subshape(shape, 0, -1), ctx.vector(k))
    ctx.set_output(0, out)
    ctx.set_output(1, out)


(
    register_op("TopKV2")
    .input("input: T")
    .input("k: Tk")
    .output("values: T")
    .output("indices: index_type")
    .attr("sorted: bool = true")
    .attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .attr("Tk: {int16, int32, int64} = DT_INT32")
    .attr("index_type: {int16, int32, int64} = DT_INT32")
    .set_shape_fn(_top_k_shape)
)


def _unique_shape(ctx: InferenceContext) -> None:
    """y: a vector of unknown length; idx: the input's shape (a vector)."""
    ctx.set_output(0, ctx.vector(None))
    ctx.set_output(1, ctx.input(0))
    ctx.with_rank(ctx.input(0), 1)


(
    register_op("Unique")
    .input("x: T")
    .output("y: T")
    .output("idx: out_idx")
    .attr("T: type")
    .attr("out_idx: {int32, int64} = DT_INT32")
    .set_shape_fn(_unique_shape)
)


def _unique_with_counts_shape(ctx: InferenceContext) -> None:
    """y and count: vectors of unknown length; idx: the input's shape (unchecked: the kernel wants a vector)."""
    unique = ctx.vector(None)
    ctx.set_output(0, unique)
    ctx.set_output(1, ctx.input(0))
    ctx.set_output(2, unique)


(
    register_op("UniqueWithCounts")
    .input("x: T")
    .output("y: T")
    .output("idx: out_idx")
    .output("count: out_idx")
    .attr("T: type")
    .attr("out_idx: {int32, int64} = DT_INT32")
    .set_shape_fn(_unique_with_counts_shape)
)
(
    register_op("ClipByValue")
    .input("t: T")
    .input("clip_value_min: T")
    .input("clip_value_max: T")
    .output("output: T")
    .attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
        "quint16, uint16, complex128, half, uint32, uint64}"
    )
    .set_shape_fn(common_shapes.unchanged_shape)
)
