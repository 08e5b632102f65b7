"""Reductions along the first axes: segment reductions (Segment*, UnsortedSegment*) and scans (Cumsum, Cumprod).

OpDefs equal TensorFlow 2.21's; shape functions follow TF's SegmentReductionShapeFn,
UnsortedSegmentReductionShapeFn and UnchangedShape.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext

_NUMBER = (
    "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
    "quint16, uint16, complex128, half, uint32, uint64}"
)
_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"


def _segment_shape(ctx: InferenceContext) -> None:
    """``[num_segments (unknown)] + data.shape[1:]``; segment_ids is a vector."""
    data = ctx.with_rank_at_least(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, ctx.concatenate(ctx.vector(None), ctx.subshape(data, 1)))


def unsorted_segment_shape(ctx: InferenceContext) -> None:
    """``[num_segments] + data.shape[rank(segment_ids):]`` with data's leading dims merged with segment_ids'."""
    data, ids = ctx.input(0), ctx.input(1)
    ctx.with_rank(ctx.input(2), 0)
    if ids.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    data, ids = ctx.merge_prefix(data, ids)
    num_segments = ctx.make_dim_for_scalar_input(2)
    ctx.set_output(0, ctx.concatenate(ctx.vector(num_segments), ctx.subshape(data, len(ids.dims))))


for _name, _types in (("SegmentSum", _NUMBER), ("SegmentMean", _NUMBER), ("SegmentProd", _NUMBER),
                      ("SegmentMax", _REAL), ("SegmentMin", _REAL)):  # fmt: skip
    (
        register_op(_name)
        .input("data: T")
        .input("segment_ids: Tindices")
        .output("output: T")
        .attr(f"T: {_types}")
        .attr("Tindices: {int32, int64}")
        .set_shape_fn(_segment_shape)
    )
for _name, _types, _indices in (
    ("UnsortedSegmentSum", _NUMBER, "{int16, int32, int64}"),
    ("UnsortedSegmentProd", _NUMBER, "{int32, int64}"),
    ("UnsortedSegmentMax", _REAL, "{int32, int64}"),
    ("UnsortedSegmentMin", _REAL, "{int32, int64}"),
):
    (
        register_op(_name)
        .input("data: T")
        .input("segment_ids: Tindices")
        .input("num_segments: Tnumsegments")
        .output("output: T")
        .attr(f"T: {_types}")
        .attr(f"Tindices: {_indices}")
        .attr("Tnumsegments: {int32, int64} = DT_INT32")
        .set_shape_fn(unsorted_segment_shape)
    )

for _name in ("Cumsum", "Cumprod"):
    (
        register_op(_name)
        .input("x: T")
        .input("axis: Tidx")
        .output("out: T")
        .attr("exclusive: bool = false")
        .attr("reverse: bool = false")
        .attr(f"T: {_NUMBER}")
        .attr("Tidx: {int32, int64} = DT_INT32")
        .set_shape_fn(common_shapes.unchanged_shape)
    )
