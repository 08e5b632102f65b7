"""TensorFlow's ragged-tensor ops: RaggedTensorToTensor, RaggedRange, RaggedGather and RaggedTensorToSparse.

OpDefs byte-equal to TF 2.21's and TF's shape functions (ragged_array_ops.cc, ragged_conversion_ops.cc,
ragged_math_ops.cc, ragged_to_dense_util.cc), error texts included. A ragged tensor travels between these ops as
its nested row splits (outermost first) and its flat values.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid


def _debug(dims: list[int] | None) -> str:
    """TF's TensorShape::DebugString of a shape proto: ``[2,?]``, ``<unknown>``."""
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d < 0 else str(d) for d in dims) + "]"


def _dims(s: ShapeHandle) -> list[int] | None:
    """A shape handle as a proto's dims (-1 unknown), None for unknown rank."""
    return None if s.dims is None else [-1 if d.value is None else d.value for d in s.dims]


def ragged_rank_of(types: list[str]) -> int:
    """How many ragged dimensions the row partition types describe (FIRST_DIM_SIZE is no dimension of its own)."""
    return len(types) - 1 if types and types[0] == "FIRST_DIM_SIZE" else len(types)


def validate_default_value_shape(default_shape: list[int] | None, value_shape: list[int] | None) -> None:
    """TF's ValidateDefaultValueShape (its dimensions compared leading-aligned, as TF compares them)."""
    if default_shape is None or value_shape is None:
        return
    default_ndims, values_ndims = len(default_shape), len(value_shape)
    prefix = f"default_value.shape={_debug(default_shape)} and rt_input.flat_values.shape={_debug(value_shape)}"
    if default_ndims >= values_ndims:
        raise invalid(f"{prefix} are incompatible: default_value.rank = {default_ndims}  must be less than "
                      f"rt_input.flat_values.rank = {values_ndims}")  # fmt: skip
    for i in range(min(default_ndims, values_ndims - 1)):
        default_dim, value_dim = default_shape[i], value_shape[i + 1]
        if default_dim >= 0 and value_dim >= 0 and default_dim != 1 and default_dim != value_dim:
            raise invalid(f"{prefix} are incompatible: default_value.shape[{i - default_ndims}] = {default_dim} "
                          f"but rt_input.flat_values.shape[{i - default_ndims}] = {value_dim}")  # fmt: skip


def combine_shapes(ragged_rank: int, shape: list[int] | None, value_shape: list[int] | None) -> list[int] | None:
    """TF's CombineRaggedTensorToTensorShapes: the output shape from ``shape`` and the flat values' shape."""
    if value_shape is None and shape is None:
        return None
    output = [-1] * (ragged_rank + len(value_shape)) if shape is None else list(shape)  # type: ignore[arg-type]
    if value_shape is None:
        return output
    if ragged_rank + len(value_shape) != len(output):
        raise invalid(f"rt_input.shape and shape={_debug(shape)} are incompatible: rt_input.rank = "
                      f"{ragged_rank + len(value_shape)} but shape.rank = {len(output)}")  # fmt: skip
    for i in range(1, len(value_shape)):
        value_dim = value_shape[i]
        j = len(output) - len(value_shape) + i
        if value_dim >= 0:
            if output[j] >= 0:
                if output[j] != value_dim:
                    axis = i + ragged_rank
                    raise invalid(
                        f"rt_input.shape and shape={_debug(shape)} are incompatible: rt_input.shape[{axis}] "
                        f"= {value_dim} but shape[{axis}] = {output[j]}"
                    )
            else:
                output[j] = value_dim
    return output


_PARTITION_TYPES = ("FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_LENGTHS", "ROW_SPLITS", "ROW_LIMITS", "ROW_STARTS")


def row_partition_types(ctx: InferenceContext) -> list[str]:
    """The ``row_partition_types`` attr as strings; an unknown name fails as TF's GetRowPartitionTypes fails."""
    types = [t.decode() if isinstance(t, bytes) else str(t) for t in ctx.get_attr("row_partition_types")]
    for name in types:
        if name not in _PARTITION_TYPES:
            raise invalid(f"Unknown string for partition info type: {name}")
    return types


def _to_tensor_shape(ctx: InferenceContext) -> None:
    """TF's RaggedTensorToTensorShapeFn: ``shape`` (a scalar -1: unknown) combined with the flat values' shape."""
    shape = _dims(ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(0))
    types = row_partition_types(ctx)
    for name in types:
        if name not in ("FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_SPLITS"):
            raise invalid(f"Unsupported partition type: {name}")
    ragged_rank = ragged_rank_of(types)
    value_shape = _dims(ctx.input(1))
    validate_default_value_shape(_dims(ctx.input(2)), value_shape)
    output = combine_shapes(ragged_rank, shape, value_shape)
    ctx.set_output(0, ctx.unknown_shape() if output is None else ctx.make_shape(output))


(
    register_op("RaggedTensorToTensor")
    .input("shape: Tshape")
    .input("values: T")
    .input("default_value: T")
    .input("row_partition_tensors: num_row_partition_tensors * Tindex")
    .output("result: T")
    .attr("T: type")
    .attr("Tindex: {int64, int32}")
    .attr("Tshape: {int64, int32}")
    .attr("num_row_partition_tensors: int >= 1")
    .attr("row_partition_types: list(string)")
    .set_shape_fn(_to_tensor_shape)
)


def _range_shape(ctx: InferenceContext) -> None:
    """TF's RaggedRangeShapeFn: scalars or vectors (of one length) in; splits one longer than the rows."""
    for i in range(3):
        ctx.with_rank_at_most(ctx.input(i), 1)
    dim: DimensionHandle = ctx.unknown_dim()
    for i in range(3):
        shape = ctx.input(i)
        if ctx.rank(shape) == 1:
            dim = ctx.merge_dim(ctx.dim(shape, 0), dim)
    if all(ctx.rank(ctx.input(i)) == 0 for i in range(3)):
        dim = ctx.make_dim(1)  # scalars: one row
    ctx.set_output(0, ctx.vector(ctx.add(dim, 1)))
    ctx.set_output(1, ctx.unknown_shape_of_rank(1))


(
    register_op("RaggedRange")
    .input("starts: T")
    .input("limits: T")
    .input("deltas: T")
    .output("rt_nested_splits: Tsplits")
    .output("rt_dense_values: T")
    .attr("T: {bfloat16, float, double, int32, int64} = DT_INT32")
    .attr("Tsplits: {int32, int64} = DT_INT64")
    .set_shape_fn(_range_shape)
)


def _gather_shape(ctx: InferenceContext) -> None:
    """TF's RaggedGatherShapeFn: indices of rank OUTPUT_RAGGED_RANK - PARAMS_RAGGED_RANK + 1, vector splits."""
    params_ragged_rank = ctx.get_attr("PARAMS_RAGGED_RANK")
    num_splits = ctx.get_attr("OUTPUT_RAGGED_RANK")
    ctx.with_rank(ctx.input(params_ragged_rank + 1), num_splits - params_ragged_rank + 1)
    for i in range(params_ragged_rank):
        ctx.with_rank(ctx.input(i), 1)
    values = ctx.with_rank_at_least(ctx.input(params_ragged_rank), 1)
    for i in range(num_splits):
        ctx.set_output(i, ctx.unknown_shape_of_rank(1))
    ctx.set_output(num_splits, ctx.concatenate(ctx.unknown_shape_of_rank(1), ctx.subshape(values, 1)))


(
    register_op("RaggedGather")
    .input("params_nested_splits: PARAMS_RAGGED_RANK * Tsplits")
    .input("params_dense_values: Tvalues")
    .input("indices: Tindices")
    .output("output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits")
    .output("output_dense_values: Tvalues")
    .attr("Tvalues: type")
    .attr("Tindices: {int32, int64}")
    .attr("Tsplits: {int32, int64} = DT_INT64")
    .attr("PARAMS_RAGGED_RANK: int >= 1")
    .attr("OUTPUT_RAGGED_RANK: int >= 0")
    .set_shape_fn(_gather_shape)
)


def _to_sparse_shape(ctx: InferenceContext) -> None:
    """TF's RaggedTensorToSparseShapeFn: one index row of rank + RAGGED_RANK entries for every value element."""
    num_splits = ctx.get_attr("RAGGED_RANK")
    if num_splits < 1:
        raise invalid("Requires RAGGED_RANK>0")
    values = ctx.with_rank_at_least(ctx.input(num_splits), 1)
    for i in range(num_splits):
        ctx.with_rank(ctx.input(i), 1)
    rank = ctx.rank(values)
    dense_dims = ctx.unknown_dim() if rank is None else ctx.make_dim(rank + num_splits)
    num_values = ctx.num_elements(values)
    ctx.set_output(0, ctx.matrix(num_values, dense_dims))
    ctx.set_output(1, ctx.vector(num_values))
    ctx.set_output(2, ctx.vector(dense_dims))


(
    register_op("RaggedTensorToSparse")
    .input("rt_nested_splits: RAGGED_RANK * Tsplits")
    .input("rt_dense_values: T")
    .output("sparse_indices: int64")
    .output("sparse_values: T")
    .output("sparse_dense_shape: int64")
    .attr("RAGGED_RANK: int >= 1")
    .attr("T: type")
    .attr("Tsplits: {int32, int64} = DT_INT64")
    .set_shape_fn(_to_sparse_shape)
)
