"""Sparse ops over COO tensors (``indices`` int64 [N, rank], ``values`` [N], ``dense_shape`` int64 [rank]):
SparseToDense, SparseTensorDenseMatMul, SparseTensorDenseAdd, SparseReorder, SparseReshape,
SparseFillEmptyRows(+Grad), SparseReduceSum, SparseReduceSumSparse, SparseAdd(+Grad), SparseConcat,
SparseSlice(+Grad) and the SparseSegment* reductions with their gradients.

OpDefs equal TensorFlow 2.21's; shape functions follow TF's sparse_ops.cc and math_ops.cc, including their errors.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid

_NUMBER = (
    "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
    "quint16, uint16, complex128, half, uint32, uint64}"
)
_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"
_FLOAT = "{bfloat16, half, float, double}"


def _sparse_to_dense_shape(ctx: InferenceContext) -> None:
    """The shape ``output_shape`` holds."""
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(1))


(
    register_op("SparseToDense")
    .input("sparse_indices: Tindices")
    .input("output_shape: Tindices")
    .input("sparse_values: T")
    .input("default_value: T")
    .output("dense: T")
    .attr("validate_indices: bool = true")
    .attr("T: type")
    .attr("Tindices: {int32, int64}")
    .set_shape_fn(_sparse_to_dense_shape)
)


def _sparse_dense_matmul_shape(ctx: InferenceContext) -> None:
    """``[rows of op(A), columns of op(B)]``, the inner dimensions merged."""
    ctx.with_rank(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 1)
    a_shape = ctx.with_rank(ctx.make_shape_from_shape_tensor(2), 2)
    b = ctx.with_rank(ctx.input(3), 2)
    adjoint_a, adjoint_b = ctx.get_attr("adjoint_a"), ctx.get_attr("adjoint_b")
    right = ctx.dim(b, 0 if adjoint_b else 1)
    left = ctx.dim(a_shape, 1 if adjoint_a else 0)
    ctx.merge_dim(ctx.dim(a_shape, 0 if adjoint_a else 1), ctx.dim(b, 1 if adjoint_b else 0))
    ctx.set_output(0, ctx.matrix(left, right))


(
    register_op("SparseTensorDenseMatMul")
    .input("a_indices: Tindices")
    .input("a_values: T")
    .input("a_shape: int64")
    .input("b: T")
    .output("product: T")
    .attr("T: type")
    .attr("Tindices: {int32, int64} = DT_INT64")
    .attr("adjoint_a: bool = false")
    .attr("adjoint_b: bool = false")
    .set_shape_fn(_sparse_dense_matmul_shape)
)


def _sparse_tensor_dense_add_shape(ctx: InferenceContext) -> None:
    """The dense operand's shape."""
    ctx.set_output(0, ctx.input(3))


(
    register_op("SparseTensorDenseAdd")
    .input("a_indices: Tindices")
    .input("a_values: T")
    .input("a_shape: Tindices")
    .input("b: T")
    .output("output: T")
    .attr(f"T: {_NUMBER}")
    .attr("Tindices: {int32, int64}")
    .set_shape_fn(_sparse_tensor_dense_add_shape)
)


def _sparse_reorder_shape(ctx: InferenceContext) -> None:
    """The indices' and values' shapes."""
    indices = ctx.with_rank(ctx.input(0), 2)
    values = ctx.with_rank(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 1)
    ctx.set_output(0, indices)
    ctx.set_output(1, values)


(
    register_op("SparseReorder")
    .input("input_indices: int64")
    .input("input_values: T")
    .input("input_shape: int64")
    .output("output_indices: int64")
    .output("output_values: T")
    .attr("T: type")
    .set_shape_fn(_sparse_reorder_shape)
)


def _sparse_reshape_shape(ctx: InferenceContext) -> None:
    """``[N, len(new_shape)]`` indices and the new shape's vector."""
    indices = ctx.with_rank(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 1)
    new_shape = ctx.with_rank(ctx.input(2), 1)
    ctx.set_output(0, ctx.matrix(ctx.dim(indices, 0), ctx.dim(new_shape, 0)))
    ctx.set_output(1, new_shape)


(
    register_op("SparseReshape")
    .input("input_indices: int64")
    .input("input_shape: int64")
    .input("new_shape: int64")
    .output("output_indices: int64")
    .output("output_shape: int64")
    .set_shape_fn(_sparse_reshape_shape)
)


def _fill_empty_rows_shape(ctx: InferenceContext) -> None:
    """Unknown numbers of output entries; one indicator per dense row and one map entry per input entry."""
    indices = ctx.with_rank(ctx.input(0), 2)
    values = ctx.with_rank(ctx.input(1), 1)
    shape = ctx.with_rank(ctx.input(2), 1)
    ctx.with_rank(ctx.input(3), 0)
    n = ctx.dim(indices, 0)
    ctx.merge_dim(n, ctx.dim(values, 0))
    ctx.merge_dim(ctx.dim(indices, 1), ctx.dim(shape, 0))
    if ctx.value(ctx.num_elements(shape)) == 0:
        raise invalid("dense_shape must not be empty")
    dense = ctx.make_shape_from_shape_tensor(2)
    ctx.set_output(0, ctx.matrix(None, ctx.num_elements(shape)))
    ctx.set_output(1, ctx.vector(None))
    ctx.set_output(2, ctx.vector(ctx.dim(dense, 0)))
    ctx.set_output(3, ctx.vector(n))


(
    register_op("SparseFillEmptyRows")
    .input("indices: int64")
    .input("values: T")
    .input("dense_shape: int64")
    .input("default_value: T")
    .output("output_indices: int64")
    .output("output_values: T")
    .output("empty_row_indicator: bool")
    .output("reverse_index_map: int64")
    .attr("T: type")
    .set_shape_fn(_fill_empty_rows_shape)
)


def _fill_empty_rows_grad_shape(ctx: InferenceContext) -> None:
    """The input entries' gradient and a scalar for the default value."""
    reverse = ctx.with_rank(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, reverse)
    ctx.set_output(1, ctx.scalar())


(
    register_op("SparseFillEmptyRowsGrad")
    .input("reverse_index_map: int64")
    .input("grad_values: T")
    .output("d_values: T")
    .output("d_default_value: T")
    .attr("T: type")
    .set_shape_fn(_fill_empty_rows_grad_shape)
)


def _sparse_reduce_shape(ctx: InferenceContext) -> None:
    """TF's SparseReduceShapeFn: known only when the dense shape and the axes are constants."""
    keep_dims = ctx.get_attr("keep_dims")
    shape, axes = ctx.input_tensor(2), ctx.input_tensor(3)
    if shape is None or axes is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    dims = [int(d) for d in shape.reshape(-1)]
    if not dims:
        raise invalid("Number of dims in shape tensor must not be 0")
    reduced = {(int(a) + len(dims)) % len(dims) for a in axes.reshape(-1)}
    out = [1 if d in reduced else size for d, size in enumerate(dims) if keep_dims or d not in reduced]
    ctx.set_output(0, ctx.make_shape(out))


def _unknown_outputs(ctx: InferenceContext) -> None:
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.unknown_shape())


(
    register_op("SparseReduceSum")
    .input("input_indices: int64")
    .input("input_values: T")
    .input("input_shape: int64")
    .input("reduction_axes: int32")
    .output("output: T")
    .attr("keep_dims: bool = false")
    .attr(f"T: {_NUMBER}")
    .set_shape_fn(_sparse_reduce_shape)
)
(
    register_op("SparseReduceSumSparse")
    .input("input_indices: int64")
    .input("input_values: T")
    .input("input_shape: int64")
    .input("reduction_axes: int32")
    .output("output_indices: int64")
    .output("output_values: T")
    .output("output_shape: int64")
    .attr("keep_dims: bool = false")
    .attr(f"T: {_NUMBER}")
    .set_shape_fn(_unknown_outputs)
)


def _sparse_add_shape(ctx: InferenceContext) -> None:
    """An unknown number of entries of ``a``'s rank, and ``a``'s shape."""
    a_shape = ctx.with_rank(ctx.input(2), 1)
    ctx.set_output(0, ctx.matrix(None, ctx.dim(a_shape, 0)))
    ctx.set_output(1, ctx.vector(None))
    ctx.set_output(2, a_shape)


(
    register_op("SparseAdd")
    .input("a_indices: int64")
    .input("a_values: T")
    .input("a_shape: int64")
    .input("b_indices: int64")
    .input("b_values: T")
    .input("b_shape: int64")
    .input("thresh: Treal")
    .output("sum_indices: int64")
    .output("sum_values: T")
    .output("sum_shape: int64")
    .attr(f"T: {_NUMBER}")
    .attr(f"Treal: {_REAL}")
    .set_shape_fn(_sparse_add_shape)
)


def _sparse_add_grad_shape(ctx: InferenceContext) -> None:
    """One gradient per entry of ``a`` and of ``b``."""
    a = ctx.with_rank(ctx.input(1), 2)
    b = ctx.with_rank(ctx.input(2), 2)
    ctx.set_output(0, ctx.vector(ctx.dim(a, 0)))
    ctx.set_output(1, ctx.vector(ctx.dim(b, 0)))


(
    register_op("SparseAddGrad")
    .input("backprop_val_grad: T")
    .input("a_indices: int64")
    .input("b_indices: int64")
    .input("sum_indices: int64")
    .output("a_val_grad: T")
    .output("b_val_grad: T")
    .attr(f"T: {_NUMBER}")
    .set_shape_fn(_sparse_add_grad_shape)
)


def _sparse_concat_shape(ctx: InferenceContext) -> None:
    """The entries of all inputs (their counts summed), the shapes merged."""
    n = ctx.num_inputs() // 3
    rows = ctx.make_dim(0)
    cols = ctx.unknown_dim()
    out_shape = ctx.unknown_shape()
    for i in range(n):
        ind = ctx.with_rank(ctx.input(i), 2)
        val = ctx.with_rank(ctx.input(i + n), 1)
        shape = ctx.with_rank(ctx.input(i + 2 * n), 1)
        rows = ctx.add(rows, ctx.merge_dim(ctx.dim(ind, 0), ctx.dim(val, 0)))
        cols = ctx.merge_dim(cols, ctx.dim(ind, 1))
        out_shape = ctx.merge(out_shape, shape)
    ctx.set_output(0, ctx.matrix(rows, cols))
    ctx.set_output(1, ctx.vector(rows))
    ctx.set_output(2, out_shape)


(
    register_op("SparseConcat")
    .input("indices: N * int64")
    .input("values: N * T")
    .input("shapes: N * int64")
    .output("output_indices: int64")
    .output("output_values: T")
    .output("output_shape: int64")
    .attr("concat_dim: int")
    .attr("N: int >= 2")
    .attr("T: type")
    .set_shape_fn(_sparse_concat_shape)
)


def _sparse_slice_shape(ctx: InferenceContext) -> None:
    """An unknown number of entries of the input's rank; the shape vector as the input's."""
    shape = ctx.input(2)
    ctx.set_output(0, ctx.matrix(None, ctx.num_elements(shape)))
    ctx.set_output(1, ctx.vector(None))
    ctx.set_output(2, shape)


(
    register_op("SparseSlice")
    .input("indices: int64")
    .input("values: T")
    .input("shape: int64")
    .input("start: int64")
    .input("size: int64")
    .output("output_indices: int64")
    .output("output_values: T")
    .output("output_shape: int64")
    .attr("T: type")
    .set_shape_fn(_sparse_slice_shape)
)


def _sparse_slice_grad_shape(ctx: InferenceContext) -> None:
    """One gradient per input entry."""
    indices = ctx.with_rank(ctx.input(1), 2)
    ctx.set_output(0, ctx.vector(ctx.dim(indices, 0)))


(
    register_op("SparseSliceGrad")
    .input("backprop_val_grad: T")
    .input("input_indices: int64")
    .input("input_start: int64")
    .input("output_indices: int64")
    .output("val_grad: T")
    .attr(f"T: {_NUMBER}")
    .set_shape_fn(_sparse_slice_grad_shape)
)


# --------------------------------------------------------------------------- SparseSegment*


def _segment_inputs(ctx: InferenceContext) -> ShapeHandle:
    data = ctx.with_rank_at_least(ctx.input(0), 1)
    indices = ctx.with_rank(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 1)
    ctx.merge(indices, ctx.input(2))
    return ctx.subshape(data, 1)


def _sparse_segment_shape(ctx: InferenceContext) -> None:
    """TF's SparseSegmentReductionShapeFn: ``[unknown] + data.shape[1:]``."""
    ctx.set_output(0, ctx.concatenate(ctx.vector(None), _segment_inputs(ctx)))


def _sparse_segment_num_shape(ctx: InferenceContext) -> None:
    """``[num_segments] + data.shape[1:]``."""
    rest = ctx.with_rank_at_least(ctx.input(0), 1)
    indices = ctx.with_rank(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 1)
    ctx.with_rank(ctx.input(3), 0)
    ctx.merge(indices, ctx.input(2))
    rest = ctx.subshape(rest, 1)
    dim0 = ctx.unknown_dim() if ctx.input_tensor(3) is None else ctx.make_dim_for_scalar_input(3)
    ctx.set_output(0, ctx.concatenate(ctx.vector(dim0), rest))


def _sparse_segment_grad_shape(ctx: InferenceContext) -> None:
    """``[output_dim0] + grad.shape[1:]``."""
    rest = _segment_inputs(ctx)
    ctx.with_rank(ctx.input(3), 0)
    dim0 = ctx.input_tensor(3)
    if dim0 is None:
        first = ctx.vector(None)
    else:
        if int(dim0) < 0:
            raise invalid("Cannot specify a negative value for output_dim0")
        first = ctx.vector(int(dim0))
    ctx.set_output(0, ctx.concatenate(first, rest))


for _kind, _types in (("Sum", _REAL), ("Mean", _FLOAT), ("SqrtN", _FLOAT)):
    (
        register_op(f"SparseSegment{_kind}")
        .input("data: T")
        .input("indices: Tidx")
        .input("segment_ids: Tsegmentids")
        .output("output: T")
        .attr(f"T: {_types}")
        .attr("Tidx: {int32, int64} = DT_INT32")
        .attr("Tsegmentids: {int32, int64} = DT_INT32")
        .attr("sparse_gradient: bool = false")
        .set_shape_fn(_sparse_segment_shape)
    )
    (
        register_op(f"SparseSegment{_kind}WithNumSegments")
        .input("data: T")
        .input("indices: Tidx")
        .input("segment_ids: Tsegmentids")
        .input("num_segments: Tnumsegments")
        .output("output: T")
        .attr(f"T: {_types}")
        .attr("Tidx: {int32, int64} = DT_INT32")
        .attr("Tnumsegments: {int32, int64} = DT_INT32")
        .attr("Tsegmentids: {int32, int64} = DT_INT32")
        .attr("sparse_gradient: bool = false")
        .set_shape_fn(_sparse_segment_num_shape)
    )
    (
        register_op(f"SparseSegment{_kind}Grad")
        .input("grad: T")
        .input("indices: Tidx")
        .input("segment_ids: Tsegmentids")
        .input("output_dim0: int32")
        .output("output: T")
        .attr(f"T: {_FLOAT}")
        .attr("Tidx: {int32, int64} = DT_INT32")
        .attr("Tsegmentids: {int32, int64} = DT_INT32")
        .set_shape_fn(_sparse_segment_grad_shape)
    )
