"""Array ops that gather, scatter, broadcast or reverse elements: GatherNd, ScatterNd, TensorScatterUpdate/Add,
BroadcastTo, ReverseV2.

OpDefs equal TensorFlow 2.21's; shape functions follow TF's C++ ones (GatherNdShape,
ScatterNdShapeHelper, BroadcastTo's and ReverseV2's), including their errors.
"""

from __future__ import annotations

from modtensor.framework import errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid


def _value(d) -> int:
    return -1 if d.value is None else d.value


def _gather_nd_shape(ctx: InferenceContext) -> None:
    """``indices[..., r]`` picks slices of ``params``: ``indices.shape[:-1] + params.shape[r:]``."""
    params = ctx.input(0)
    indices = ctx.with_rank_at_least(ctx.input(1), 1)
    r_dim = ctx.dim(indices, -1)
    if params.dims is None or r_dim.value is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    if r_dim.value > len(params.dims):
        raise invalid(
            "indices.shape[-1] must be <= params.rank, but saw indices shape: "
            f"{ctx.debug_string(indices)} and params shape: {ctx.debug_string(params)}"
        )
    ctx.set_output(0, ctx.concatenate(ctx.subshape(indices, 0, -1), ctx.subshape(params, r_dim.value)))


(
    register_op("GatherNd")
    .input("params: Tparams")
    .input("indices: Tindices")
    .output("output: Tparams")
    .attr("Tparams: type")
    .attr("Tindices: {int16, int32, int64}")
    .attr("bad_indices_policy: string = ''")
    .set_shape_fn(_gather_nd_shape)
)


def scatter_nd_shape_helper(
    ctx: InferenceContext, indices: ShapeHandle, updates: ShapeHandle, output: ShapeHandle
) -> None:
    """TF's ScatterNdShapeHelper: updates must be ``indices.shape[:-1] + output.shape[indices.shape[-1]:]``."""
    if _value(ctx.num_elements(output)) == 0 and (
        _value(ctx.num_elements(indices)) > 0 or _value(ctx.num_elements(updates)) > 0
    ):
        raise invalid("Indices and updates specified for empty input")
    if indices.dims is not None and updates.dims is not None and len(updates.dims) != 0:
        outer = len(indices.dims) - 1
        ix = ctx.dim(indices, -1).value
        if ix is not None:
            prefix_indices = ctx.subshape(indices, 0, outer)
            prefix_updates = ctx.subshape(updates, 0, outer)
            try:
                ctx.merge(prefix_indices, prefix_updates)
            except errors.InvalidArgumentError as e:
                raise invalid(
                    f"Dimensions [0,{outer}) of indices[shape={ctx.debug_string(indices)}] = "
                    f"{ctx.debug_string(prefix_indices)} must match dimensions [0,{outer}) of updates[shape="
                    f"{ctx.debug_string(updates)}] = {ctx.debug_string(prefix_updates)}: {e.message}"
                ) from None
            suffix_output = ctx.subshape(output, ix)
            suffix_updates = ctx.subshape(updates, outer)
            try:
                ctx.merge(suffix_output, suffix_updates)
            except errors.InvalidArgumentError as e:
                rank = "?" if output.dims is None else len(output.dims)
                raise invalid(
                    f"Dimensions [{ix},{rank}) of input[shape={ctx.debug_string(output)}] = "
                    f"{ctx.debug_string(suffix_output)} must match dimensions [{outer},{len(updates.dims)}) of "
                    f"updates[shape={ctx.debug_string(updates)}] = {ctx.debug_string(suffix_updates)}: {e.message}"
                ) from None
    ctx.set_output(0, output)


def _scatter_nd_shape(ctx: InferenceContext) -> None:
    indices = ctx.with_rank_at_least(ctx.input(0), 1)
    updates = ctx.with_rank_at_least(ctx.input(1), 1)
    scatter_nd_shape_helper(ctx, indices, updates, ctx.make_shape_from_shape_tensor(2))


def _tensor_scatter_shape(ctx: InferenceContext) -> None:
    output = ctx.with_rank_at_least(ctx.input(0), 1)
    indices = ctx.with_rank_at_least(ctx.input(1), 1)
    updates = ctx.with_rank_at_least(ctx.input(2), 1)
    scatter_nd_shape_helper(ctx, indices, updates, output)


(
    register_op("ScatterNd")
    .input("indices: Tindices")
    .input("updates: T")
    .input("shape: Tindices")
    .output("output: T")
    .attr("T: type")
    .attr("Tindices: {int16, int32, int64}")
    .attr("bad_indices_policy: string = ''")
    .set_shape_fn(_scatter_nd_shape)
)
for _name, _indices in (
    ("TensorScatterUpdate", "{int16, int32, int64, uint16}"),
    ("TensorScatterAdd", "{int32, int64}"),
):
    (
        register_op(_name)
        .input("tensor: T")
        .input("indices: Tindices")
        .input("updates: T")
        .output("output: T")
        .attr("T: type")
        .attr(f"Tindices: {_indices}")
        .attr("bad_indices_policy: string = ''")
        .set_shape_fn(_tensor_scatter_shape)
    )


def _broadcast_to_shape(ctx: InferenceContext) -> None:
    """The ``shape`` input's value, with dims the input fixes (> 1) merged in."""
    ctx.with_rank(ctx.input(1), 1)
    out = ctx.make_shape_from_shape_tensor(1)
    shape_in = ctx.input(0)
    if out.dims is None or shape_in.dims is None:
        ctx.set_output(0, out)
        return
    out_rank = len(out.dims)
    shape_in = ctx.with_rank_at_most(shape_in, out_rank)
    in_rank = len(shape_in.dims)
    for i in range(in_rank):
        in_dim = ctx.dim(shape_in, in_rank - i - 1)
        if _value(in_dim) > 1:
            merged = ctx.merge_dim(in_dim, ctx.dim(out, out_rank - i - 1))
            out = ctx.replace_dim(out, out_rank - i - 1, merged)
    ctx.set_output(0, out)


(
    register_op("BroadcastTo")
    .input("input: T")
    .input("shape: Tidx")
    .output("output: T")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .set_shape_fn(_broadcast_to_shape)
)


def _reverse_v2_shape(ctx: InferenceContext) -> None:
    """The input's shape; constant axes are checked for range and duplicates."""
    shape = ctx.input(0)
    ctx.with_rank(ctx.input(1), 1)
    if shape.dims is not None and len(shape.dims) > 8:
        raise invalid("reverse does not work on tensors with more than 8 dimensions")
    axes = ctx.input_tensor(1)
    if axes is not None and shape.dims is not None:
        rank = len(shape.dims)
        seen = [False] * rank
        for i, axis in enumerate(axes.reshape(-1).tolist()):
            canonical = axis + rank if axis < 0 else axis
            if canonical < 0 or canonical >= rank:
                raise invalid(f"'axis'[{i}] = {axis} is out of valid range [0, {rank - 1}")
            if seen[canonical]:
                raise invalid(f"axis {canonical} specified more than once.")
            seen[canonical] = True
    ctx.set_output(0, shape)


(
    register_op("ReverseV2")
    .input("tensor: T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, double, "
        "complex64, complex128, string}"
    )
    .set_shape_fn(_reverse_v2_shape)
)


def _reverse_sequence_shape(ctx: InferenceContext) -> None:
    """The input's shape, its ``batch_dim`` merged with ``seq_lengths``' length."""
    data = ctx.input(0)
    lengths = ctx.with_rank(ctx.input(1), 1)
    seq_dim, batch_dim = int(ctx.get_attr("seq_dim")), int(ctx.get_attr("batch_dim"))
    if not ctx.rank_known(data):
        ctx.set_output(0, ctx.unknown_shape())
        return
    rank = ctx.rank(data)
    if batch_dim >= rank:
        raise invalid(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise invalid(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    batch = ctx.merge_dim(ctx.dim(data, batch_dim), ctx.dim(lengths, 0))
    ctx.set_output(0, ctx.replace_dim(data, batch_dim, batch))


(
    register_op("ReverseSequence")
    .input("input: T")
    .input("seq_lengths: Tlen")
    .output("output: T")
    .attr("seq_dim: int")
    .attr("batch_dim: int = 0")
    .attr("T: type")
    .attr("Tlen: {int32, int64} = DT_INT64")
    .set_shape_fn(_reverse_sequence_shape)
)
