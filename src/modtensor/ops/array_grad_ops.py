"""Array ops that gradient functions use: BroadcastGradientArgs and the backward ops of array ops.

``StridedSliceGrad`` (StridedSlice's gradient: ``dy`` written into zeros of the input's shape),
``MirrorPadGrad`` (MirrorPad's gradient: the padded borders folded back onto the input),
``InvertPermutation`` (Transpose's gradient) and ``ConcatOffset`` (ConcatV2's gradient).
OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _two_unknown_vectors(ctx: InferenceContext) -> None:
    """BroadcastGradientArgs: both shapes are vectors; the reduction indices are vectors of unknown length."""
    ctx.with_rank(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, ctx.vector(None))
    ctx.set_output(1, ctx.vector(None))


register_op("BroadcastGradientArgs").input("s0: T").input("s1: T").output("r0: T").output("r1: T").attr(
    "T: {int32, int64} = DT_INT32"
).set_shape_fn(_two_unknown_vectors)


def _strided_slice_grad_shape(ctx: InferenceContext) -> None:
    """StridedSliceGrad: the output has the shape that the ``shape`` input holds."""
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


(
    register_op("StridedSliceGrad")
    .input("shape: Index")
    .input("begin: Index")
    .input("end: Index")
    .input("strides: Index")
    .input("dy: T")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int32, int64}")
    .attr("begin_mask: int = 0")
    .attr("end_mask: int = 0")
    .attr("ellipsis_mask: int = 0")
    .attr("new_axis_mask: int = 0")
    .attr("shrink_axis_mask: int = 0")
    .set_shape_fn(_strided_slice_grad_shape)
)


def _mirror_pad_grad_shape(ctx: InferenceContext) -> None:
    """MirrorPadGrad: each dim shrinks by its two paddings (unknown dims of the input's rank without their values)."""
    paddings = ctx.with_rank(ctx.input(1), 2)
    rows = ctx.dim(paddings, 0).value
    if rows is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    data = ctx.with_rank(ctx.input(0), rows)
    ctx.merge(paddings, ctx.matrix(rows, 2))
    values = ctx.input_tensor(1)
    if values is None:
        ctx.set_output(0, ctx.unknown_shape_of_rank(rows))
        return
    dims = []
    for i in range(rows):
        before, after = int(values[i, 0]), int(values[i, 1])
        if before < 0 or after < 0:
            raise invalid("Paddings must be non-negative")
        dims.append(ctx.subtract(ctx.dim(data, i), before + after))
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("MirrorPadGrad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = DT_INT32")
    .attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .set_shape_fn(_mirror_pad_grad_shape)
)


def _invert_permutation_shape(ctx: InferenceContext) -> None:
    """InvertPermutation: a vector of the input's length."""
    ctx.set_output(0, ctx.with_rank(ctx.input(0), 1))


(
    register_op("InvertPermutation")
    .input("x: T")
    .output("y: T")
    .attr("T: {int32, int64} = DT_INT32")
    .set_shape_fn(_invert_permutation_shape)
)


def _concat_offset_shape(ctx: InferenceContext) -> None:
    """ConcatOffset: offset ``i`` has the shape of shape input ``i``."""
    for i in range(1, ctx.num_inputs()):
        ctx.set_output(i - 1, ctx.input(i))


(
    register_op("ConcatOffset")
    .input("concat_dim: int32")
    .input("shape: N * shape_type")
    .output("offset: N * shape_type")
    .attr("N: int >= 2")
    .attr("shape_type: {int32, int64} = DT_INT32")
    .set_shape_fn(_concat_offset_shape)
)
