"""Gradients of the sparse ops, as TF registers them (python/ops/sparse_grad.py and the SparseSegment* ones of
math_grad.py): the values' gradients of SparseReorder, SparseAdd, SparseReduceSum, SparseSlice,
SparseTensorDenseMatMul, SparseFillEmptyRows and SparseToDense, and the data's of SparseSegment{Sum,Mean,SqrtN}
(the dense form; ``sparse_gradient=True`` is not built). SparseAddGrad and SparseConcat have none, as in TF.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, indexing_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import reduced_shape
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

no_gradient("SparseAddGrad")
no_gradient("SparseConcat")


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op: Any, unused_indices_grad: Any, values_grad: Any) -> list[Any]:
    """The values' gradient put back in the input order (the reorder of the entries' positions inverted)."""
    indices, shape = op.inputs[0], op.inputs[2]
    positions = math_ops.range(array_ops.shape(indices)[0])
    _, ordered = apply_op("SparseReorder", input_indices=indices, input_values=positions, input_shape=shape)
    inverse = apply_op("InvertPermutation", x=ordered)
    return [None, array_ops.gather(values_grad, inverse), None]


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op: Any, *grads: Any) -> list[Any]:
    """Each operand's values get the gradient of the sum entry at their coordinates (SparseAddGrad)."""
    a_grad, b_grad = apply_op("SparseAddGrad", backprop_val_grad=grads[1], a_indices=op.inputs[0],
                              b_indices=op.inputs[3], sum_indices=op.outputs[0])  # fmt: skip
    return [None, a_grad, None, None, b_grad, None, None]


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op: Any, grad: Any) -> list[Any]:
    """The values get the gradient at their coordinates, the dense operand all of it."""
    return [None, indexing_ops.gather_nd(grad, op.inputs[0]), None, grad]


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op: Any, grad: Any) -> list[Any]:
    """Each entry gets the gradient of the sum it went into."""
    indices, shape = op.inputs[0], op.inputs[2]
    kept = reduced_shape(shape, op.inputs[3])
    reshaped = array_ops.reshape(grad, kept)
    scale = apply_op("FloorDiv", x=shape, y=math_ops.cast(kept, dtypes.int64))
    return [None, indexing_ops.gather_nd(reshaped, apply_op("FloorDiv", x=indices, y=scale)), None, None]


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op: Any, *grads: Any) -> list[Any]:
    """The sliced entries' gradients at their input positions, zero elsewhere (SparseSliceGrad)."""
    val_grad = apply_op("SparseSliceGrad", backprop_val_grad=grads[1], input_indices=op.inputs[0],
                        input_start=op.inputs[3], output_indices=op.outputs[0])  # fmt: skip
    return [None, val_grad, None, None, None]


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_matmul_grad(op: Any, grad: Any) -> list[Any]:
    """``dA`` at A's entries only (row of dC times column of op(B)) and ``dB = op(A)^H dC``."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    b_grad = apply_op("SparseTensorDenseMatMul", a_indices=a_indices, a_values=a_values, a_shape=a_shape, b=grad,
                      adjoint_a=not adj_a)  # fmt: skip
    if adj_b:
        b_grad = array_ops.transpose(b_grad, conjugate=True)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = array_ops.gather(grad, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    if a_values.dtype.is_complex:  # TF's adjoints: op(A)'s conjugations carried to the entries' gradient
        if adj_a:
            parts_a = apply_op("Conj", input=parts_a)
        if adj_a == adj_b:
            parts_b = apply_op("Conj", input=parts_b)
    a_values_grad = math_ops.reduce_sum(parts_a * parts_b, axis=1)
    return [None, a_values_grad, None, b_grad]


@RegisterGradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op: Any, *grads: Any) -> list[Any]:
    """The input entries' gradients and the filled ones' sum for the default value."""
    d_values, d_default = apply_op("SparseFillEmptyRowsGrad", reverse_index_map=op.outputs[3], grad_values=grads[1])
    return [None, d_values, None, d_default]


@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op: Any, grad: Any) -> list[Any]:
    """The values get the gradient at their coordinates, the default value the rest's sum."""
    values_grad = indexing_ops.gather_nd(grad, op.inputs[0])
    default_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(values_grad)
    return [None, None, values_grad, default_grad]


def _segment_grad(kind: str, with_num: bool) -> None:
    op_type = f"SparseSegment{kind}" + ("WithNumSegments" if with_num else "")

    @RegisterGradient(op_type)
    def grad_fn(op: Any, grad: Any) -> list[Any]:
        dim0 = array_ops.shape(op.inputs[0])[0]
        data_grad = apply_op(f"SparseSegment{kind}Grad", grad=grad, indices=op.inputs[1], segment_ids=op.inputs[2],
                             output_dim0=dim0)  # fmt: skip
        return [data_grad, None, None] + ([None] if with_num else [])

    grad_fn.__doc__ = f"The gradient of {op_type} (the data's, through SparseSegment{kind}Grad)."


for _kind in ("Sum", "Mean", "SqrtN"):
    _segment_grad(_kind, False)
    _segment_grad(_kind, True)
