"""Linalg ops that gradient functions use: ``MatrixTriangularSolve`` (Cholesky's and Qr's gradients) and
``MatrixSetDiagV3`` (the gradients of Cholesky, Svd and SelfAdjointEigV2).

Both are forward ops of TensorFlow too (``tf.linalg.triangular_solve``, ``tf.linalg.set_diag``).
OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid
from modtensor.ops.linalg_ops import _ALIGN, _batch_square, _read_diag_index, _value


def _matrix_triangular_solve_shape(ctx: InferenceContext) -> None:
    """MatrixTriangularSolve: ``[..., M, M]`` and ``[..., M, K]`` -> ``[..., M, K]``, batch dims broadcast."""
    lhs = _batch_square(ctx, ctx.input(0))
    rhs = ctx.with_rank_at_least(ctx.input(1), 2)
    batch = common_shapes.broadcast_shapes(ctx, ctx.subshape(lhs, 0, -2), ctx.subshape(rhs, 0, -2))
    m = ctx.merge_dim(ctx.dim(lhs, -1), ctx.dim(rhs, -2))
    ctx.set_output(0, ctx.concatenate(batch, ctx.matrix(m, ctx.dim(rhs, -1))))


(
    register_op("MatrixTriangularSolve")
    .input("matrix: T")
    .input("rhs: T")
    .output("output: T")
    .attr("lower: bool = True")
    .attr("adjoint: bool = False")
    .attr("T: {bfloat16, double, float, half, complex64, complex128}")
    .set_shape_fn(_matrix_triangular_solve_shape)
)


def _set_diag_output(ctx: InferenceContext, k: object) -> object:
    """MatrixSetDiagV2Shape with the ``k`` value given (None: not known yet)."""
    shape = ctx.with_rank_at_least(ctx.input(0), 2)
    diag = ctx.with_rank_at_least(ctx.input(1), 1)
    k_shape = ctx.with_rank_at_most(ctx.input(2), 1)
    lower = upper = 0
    known = k is not None and ctx.fully_defined(k_shape)
    if known:
        lower, upper = _read_diag_index(k)
        if lower > upper:
            raise invalid("lower_diag_index is greater than upper_diag_index")
    if shape.dims is not None:
        rank = len(shape.dims)
        if known:  # the diagonals' exact rank
            diag = ctx.with_rank(ctx.input(1), rank - 1 if lower == upper else rank)
        else:
            diag = ctx.with_rank_at_most(ctx.with_rank_at_least(ctx.input(1), rank - 1), rank)
        num_rows, num_cols = _value(ctx.dim(shape, rank - 2)), _value(ctx.dim(shape, rank - 1))
        if num_rows != -1 and num_cols != -1:
            if lower != 0 and (-num_rows >= lower or lower >= num_cols):
                raise invalid("lower_diag_index is out of bound.")
            if upper != 0 and (-num_rows >= upper or upper >= num_cols):
                raise invalid("upper_diag_index is out of bound.")
    if diag.dims is None or ctx.fully_defined(shape):
        return shape
    prefix = ctx.subshape(diag, 0, -1 if lower == upper else -2)
    return ctx.merge(shape, ctx.concatenate(prefix, ctx.unknown_shape_of_rank(2)))


def _matrix_set_diag_v3_shape(ctx: InferenceContext) -> None:
    """MatrixSetDiagV3: the input's shape, its unknown dims taken from the diagonals' batch dims.

    TF's shape refiner runs the function once without ``k``'s value and, when that succeeds and
    ``k`` is a constant, again with it: an error of the first run (e.g. the diagonals' batch dims
    taken as those of a single diagonal) is the result, so both runs are made here.
    """
    k = ctx.input_tensor(2)
    out = _set_diag_output(ctx, None)
    if k is not None:
        out = _set_diag_output(ctx, k)
    ctx.set_output(0, out)


(
    register_op("MatrixSetDiagV3")
    .input("input: T")
    .input("diagonal: T")
    .input("k: int32")
    .output("output: T")
    .attr("T: type")
    .attr(_ALIGN)
    .set_shape_fn(_matrix_set_diag_v3_shape)
)
