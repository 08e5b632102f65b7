"""Linear-algebra ops: Einsum, BatchMatMulV3, matrix inverse/determinant/decompositions/solves, diagonals, bands.

OpDefs equal TensorFlow 2.21's registered ones; shape functions follow TF's C++
ones (common_shape_fns.cc's EinsumShape, linalg_ops.cc, array_ops.cc's MatrixDiag*),
including their errors.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid, with_context

# --------------------------------------------------------------------------- Einsum


def parse_einsum_equation(equation: str) -> tuple[list[str], str]:
    """``"ab,bc->ac"`` -> (["ab", "bc"], "ac"), with TF's errors for a malformed equation."""
    parts = equation.split("->")
    if len(parts) != 2:
        raise invalid(f"Expecting exactly one '->' in einsum equation: {equation}")
    inputs = parts[0].split(",")
    if len(inputs) not in (1, 2):
        raise invalid(f"Expecting 1 or 2 input subscripts in equation '{equation}' but got: {len(inputs)}")
    return inputs, parts[1]


def validate_einsum_ellipsis(subscript: str) -> bool:
    """Whether ``subscript`` holds an ellipsis; periods elsewhere are TF's errors."""
    periods = subscript.count(".")
    if periods not in (0, 3):
        raise invalid(
            f"Expected at most one ellipsis (...), but found {periods} periods (.) in the input subscript: {subscript}"
        )
    if periods == 3 and "..." not in subscript:
        raise invalid(f"Periods found outside of ellipsis in subscript: {subscript}")
    return periods > 0


def _einsum_shape(ctx: InferenceContext) -> None:
    """Einsum: each output label's dim from the inputs; the ellipsis dims broadcast (TF's EinsumShape)."""
    equation = ctx.get_attr("equation")
    equation = equation.decode() if isinstance(equation, bytes) else equation
    input_labels, output_labels = parse_einsum_equation(equation)
    n = ctx.num_inputs()
    if n == 0 or n > 2:
        raise invalid(f"Expected either 1 or 2 inputs but got: {n}")
    if n != len(input_labels):
        raise invalid(f"Expected {len(input_labels)} inputs for equation {equation} but got: {n}")
    label_to_dim: dict[str, DimensionHandle] = {}
    bcast_shapes: list[ShapeHandle] = []
    for i in range(n):
        labels = input_labels[i]
        has_ellipsis = validate_einsum_ellipsis(labels)
        shape = ctx.input(i)
        if shape.dims is not None:
            context = f" for {i}th input and equation: {equation}"
            named = len(labels) - 3 if has_ellipsis else len(labels)
            check = ctx.with_rank_at_least if has_ellipsis else ctx.with_rank
            shape = with_context(lambda s=shape, k=named, f=check: f(s, k), context)
        bcast = ctx.scalar()
        seen_ellipsis = False
        idx = 0
        while idx < len(labels):
            label = labels[idx]
            after = idx + len(shape.dims) - len(labels) if shape.dims is not None else -1
            if label == ".":
                bcast = ctx.unknown_shape() if shape.dims is None else ctx.subshape(shape, idx, after + 3)
                idx += 3
                seen_ellipsis = True
                continue
            axis = after if seen_ellipsis else idx
            new_dim = ctx.dim(shape, axis) if shape.dims is not None else ctx.unknown_dim()
            label_to_dim[label] = ctx.merge_dim(label_to_dim[label], new_dim) if label in label_to_dim else new_dim
            idx += 1
        bcast_shapes.append(bcast)
    out_bcast = bcast_shapes[0] if n == 1 else common_shapes.broadcast_shapes(ctx, bcast_shapes[0], bcast_shapes[1])
    if validate_einsum_ellipsis(output_labels):
        if out_bcast.dims is None:
            ctx.set_output(0, ctx.unknown_shape())
            return
    else:
        with_context(
            lambda: ctx.with_rank_at_most(out_bcast, 0),
            f" for einsum equation '{equation}' without ellipsis (...) in the output subscripts where input(s) have "
            "non-empty broadcasting shape",
        )
        out_bcast = ctx.scalar()
    dims: list[DimensionHandle] = []
    idx = 0
    while idx < len(output_labels):
        label = output_labels[idx]
        if label == ".":
            dims.extend(out_bcast.dims)
            idx += 3
            continue
        if label not in label_to_dim:
            raise invalid(
                f"Einsum output subscripts for equation '{equation}' has label '{label}' which is not present in "
                "the input subscripts"
            )
        dims.append(label_to_dim[label])
        idx += 1
    ctx.set_output(0, ctx.make_shape(dims))


register_op("Einsum").input("inputs: N * T").output("output: T").attr("equation: string").attr("N: int >= 1").attr(
    "T: type"
).set_shape_fn(_einsum_shape)

# --------------------------------------------------------------------------- BatchMatMulV3


def _batch_matmul_v2_shape(ctx: InferenceContext) -> None:
    """Matrices in the last two dims (adj_x/adj_y), batch dims broadcast (TF's BatchMatMulV2Shape)."""
    a = ctx.with_rank_at_least(ctx.input(0), 2)
    b = ctx.with_rank_at_least(ctx.input(1), 2)
    adj_x = bool(ctx.get_attr("adj_x"))
    adj_y = bool(ctx.get_attr("adj_y"))
    rows = ctx.dim(a, -1 if adj_x else -2)
    cols = ctx.dim(b, -2 if adj_y else -1)
    ctx.merge_dim(ctx.dim(a, -2 if adj_x else -1), ctx.dim(b, -1 if adj_y else -2))
    batch = common_shapes.broadcast_shapes(ctx, ctx.subshape(a, 0, -2), ctx.subshape(b, 0, -2))
    ctx.set_output(0, ctx.concatenate(batch, ctx.matrix(rows, cols)))


_V3_IN = "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}"
(
    register_op("BatchMatMulV3")
    .input("x: Ta")
    .input("y: Tb")
    .output("output: Tout")
    .attr(f"Ta: {_V3_IN}")
    .attr(f"Tb: {_V3_IN}")
    .attr("Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}")
    .attr("adj_x: bool = false")
    .attr("adj_y: bool = false")
    .attr("grad_x: bool = false")
    .attr("grad_y: bool = false")
    .set_shape_fn(_batch_matmul_v2_shape)
)

# --------------------------------------------------------------------------- square matrices

_LINALG_TYPES = "{double, float, half, complex64, complex128}"


def _batch_square(ctx: InferenceContext, shape: ShapeHandle) -> ShapeHandle:
    """``shape`` (rank >= 2) with its last two dims merged into one square matrix."""
    s = ctx.with_rank_at_least(shape, 2)
    d = ctx.merge_dim(ctx.dim(s, -2), ctx.dim(s, -1))
    return ctx.concatenate(ctx.subshape(s, 0, -2), ctx.matrix(d, d))


def _batch_unchanged_square_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, _batch_square(ctx, ctx.input(0)))


def _determinant_shape(ctx: InferenceContext) -> None:
    """MatrixDeterminant: ``[..., M, M] -> [...]``."""
    s = ctx.with_rank_at_least(ctx.input(0), 2)
    ctx.merge_dim(ctx.dim(s, -1), ctx.dim(s, -2))
    ctx.set_output(0, ctx.subshape(s, 0, -2))


def _matrix_solve_shape(ctx: InferenceContext) -> None:
    """MatrixSolve: ``[..., M, M]`` and ``[..., M, K]`` -> ``[..., M, K]``."""
    lhs = _batch_square(ctx, ctx.input(0))
    rhs = ctx.with_rank_at_least(ctx.input(1), 2)
    batch = ctx.merge(ctx.subshape(lhs, 0, -2), ctx.subshape(rhs, 0, -2))
    m = ctx.merge_dim(ctx.dim(lhs, -2), ctx.dim(rhs, -2))
    n = ctx.merge_dim(m, ctx.dim(lhs, -1))
    ctx.set_output(0, ctx.concatenate(ctx.concatenate(batch, ctx.vector(n)), ctx.vector(ctx.dim(rhs, -1))))


def _qr_shape(ctx: InferenceContext) -> None:
    """Qr: ``[..., M, N]`` -> q ``[..., M, P|M]``, r ``[..., P|M, N]`` with P = min(M, N)."""
    s = ctx.with_rank_at_least(ctx.input(0), 2)
    m, n = ctx.dim(s, -2), ctx.dim(s, -1)
    p = ctx.min(m, n)
    batch = ctx.subshape(s, 0, -2)
    if ctx.get_attr("full_matrices"):
        q, r = ctx.matrix(m, m), ctx.matrix(m, n)
    else:
        q, r = ctx.matrix(m, p), ctx.matrix(p, n)
    ctx.set_output(0, ctx.concatenate(batch, q))
    ctx.set_output(1, ctx.concatenate(batch, r))


def _svd_shape(ctx: InferenceContext) -> None:
    """Svd: s ``[..., P]``; u, v ``[..., M, P|M]``, ``[..., N, P|N]`` (``[0]`` without compute_uv)."""
    s = ctx.with_rank_at_least(ctx.input(0), 2)
    m, n = ctx.dim(s, -2), ctx.dim(s, -1)
    p = ctx.min(m, n)
    batch = ctx.subshape(s, 0, -2)
    ctx.set_output(0, ctx.concatenate(batch, ctx.vector(p)))
    if ctx.get_attr("compute_uv"):
        if ctx.get_attr("full_matrices"):
            u, v = ctx.matrix(m, m), ctx.matrix(n, n)
        else:
            u, v = ctx.matrix(m, p), ctx.matrix(n, p)
        ctx.set_output(1, ctx.concatenate(batch, u))
        ctx.set_output(2, ctx.concatenate(batch, v))
    else:
        ctx.set_output(1, ctx.vector(0))
        ctx.set_output(2, ctx.vector(0))


def _eig_shape(ctx: InferenceContext) -> None:
    """SelfAdjointEigV2: e ``[..., N]``, v ``[..., N, N]`` (``[0]`` without compute_v)."""
    s = _batch_square(ctx, ctx.input(0))
    n = ctx.merge_dim(ctx.dim(s, -2), ctx.dim(s, -1))
    batch = ctx.subshape(s, 0, -2)
    ctx.set_output(0, ctx.concatenate(batch, ctx.vector(n)))
    ctx.set_output(1, ctx.concatenate(batch, ctx.matrix(n, n)) if ctx.get_attr("compute_v") else ctx.vector(0))


(
    register_op("MatrixInverse")
    .input("input: T")
    .output("output: T")
    .attr("adjoint: bool = False")
    .attr(f"T: {_LINALG_TYPES}")
    .set_shape_fn(_batch_unchanged_square_shape)
)
(
    register_op("MatrixDeterminant")
    .input("input: T")
    .output("output: T")
    .attr("T: {half, float, double, complex64, complex128}")
    .set_shape_fn(_determinant_shape)
)
register_op("Cholesky").input("input: T").output("output: T").attr(f"T: {_LINALG_TYPES}").set_shape_fn(
    _batch_unchanged_square_shape
)
(
    register_op("MatrixSolve")
    .input("matrix: T")
    .input("rhs: T")
    .output("output: T")
    .attr("adjoint: bool = False")
    .attr(f"T: {_LINALG_TYPES}")
    .set_shape_fn(_matrix_solve_shape)
)
(
    register_op("Qr")
    .input("input: T")
    .output("q: T")
    .output("r: T")
    .attr("full_matrices: bool = False")
    .attr(f"T: {_LINALG_TYPES}")
    .set_shape_fn(_qr_shape)
)
(
    register_op("Svd")
    .input("input: T")
    .output("s: T")
    .output("u: T")
    .output("v: T")
    .attr("compute_uv: bool = True")
    .attr("full_matrices: bool = False")
    .attr(f"T: {_LINALG_TYPES}")
    .set_shape_fn(_svd_shape)
)
(
    register_op("SelfAdjointEigV2")
    .input("input: T")
    .output("e: T")
    .output("v: T")
    .attr("compute_v: bool = True")
    .attr(f"T: {_LINALG_TYPES}")
    .set_shape_fn(_eig_shape)
)

# --------------------------------------------------------------------------- diagonals and bands

_ALIGN = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'"


def _read_diag_index(value) -> tuple[int, int]:
    """(lower, upper) from the ``k`` input: a scalar or a vector of one or two diagonal indices."""
    flat = value.reshape(-1).tolist()
    if value.ndim == 0 or len(flat) == 1:
        return int(flat[0]), int(flat[0])
    if len(flat) == 2:
        return int(flat[0]), int(flat[1])
    raise invalid(f"diag_index must be a vector with one or two elements. It has {len(flat)} elements.")


def _value(d: DimensionHandle) -> int:
    """TF's ``c->Value``: the dim's size, -1 when unknown."""
    return -1 if d.value is None else d.value


def _matrix_diag_v3_shape(ctx: InferenceContext) -> None:
    """MatrixDiagV3: diagonals ``[..., (num_diags,) max_len]`` -> ``[..., num_rows, num_cols]`` (MatrixDiagV2Shape)."""
    shape = ctx.with_rank_at_least(ctx.input(0), 1)
    k_shape = ctx.with_rank_at_most(ctx.input(1), 1)
    for i in (2, 3, 4):
        ctx.with_rank(ctx.input(i), 0)
    k = ctx.input_tensor(1)
    if shape.dims is None or not ctx.fully_defined(k_shape) or k is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    lower, upper = _read_diag_index(k)
    if lower > upper:
        raise invalid("lower_diag_index is greater than upper_diag_index")
    rank = len(shape.dims)
    if lower < upper:
        num_diags = _value(ctx.dim(shape, rank - 2))
        other_dim = _value(ctx.dim(shape, rank - 1))
        if num_diags != upper - lower + 1:
            raise invalid(
                "The number of rows of `diagonal` doesn't match the number of diagonals implied from `d_lower` and "
                f"`d_upper`.\nnum_diags = {num_diags}, d_lower = {lower}, d_upper = {upper} {rank} {other_dim}"
            )
    rows_t, cols_t = ctx.input_tensor(2), ctx.input_tensor(3)
    num_rows = int(rows_t) if rows_t is not None else -1
    num_cols = int(cols_t) if cols_t is not None else -1
    max_diag_len = _value(ctx.dim(shape, rank - 1))
    min_rows = max_diag_len - min(upper, 0)
    min_cols = max_diag_len + max(lower, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    if num_rows == -1:
        num_rows = min_rows
    elif num_rows < min_rows:
        raise invalid("num_rows is too small")
    if num_cols == -1:
        num_cols = min_cols
    elif num_cols < min_cols:
        raise invalid("num_cols is too small.")
    if num_rows != min_rows and num_cols != min_cols:
        raise invalid(
            "num_rows and num_cols are not consistent with lower_diag_index, upper_diag_index, and the length of the "
            f"given diagonals.\nnum_rows = {num_rows} != min_num_rows = {min_rows}, num_cols = {num_cols} != "
            f"min_num_cols = {min_cols}"
        )
    rows_dim = ctx.make_dim(num_rows if num_rows >= 0 else None)
    cols_dim = ctx.make_dim(num_cols if num_cols >= 0 else None)
    if lower == upper:
        out = ctx.concatenate(ctx.replace_dim(shape, rank - 1, rows_dim), ctx.vector(cols_dim))
    else:
        out = ctx.replace_dim(ctx.replace_dim(shape, rank - 2, rows_dim), rank - 1, cols_dim)
    ctx.set_output(0, out)


(
    register_op("MatrixDiagV3")
    .input("diagonal: T")
    .input("k: int32")
    .input("num_rows: int32")
    .input("num_cols: int32")
    .input("padding_value: T")
    .output("output: T")
    .attr("T: type")
    .attr(_ALIGN)
    .set_shape_fn(_matrix_diag_v3_shape)
)


def _matrix_diag_part_v3_shape(ctx: InferenceContext) -> None:
    """MatrixDiagPartV3: ``[..., M, N]`` -> ``[..., (num_diags,) max_diag_len]`` (MatrixDiagPartV2Shape)."""
    shape = ctx.with_rank_at_least(ctx.input(0), 2)
    k_shape = ctx.with_rank_at_most(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 0)
    k = ctx.input_tensor(1)
    if shape.dims is None or not ctx.fully_defined(k_shape) or k is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    lower, upper = _read_diag_index(k)
    if lower > upper:
        raise invalid("lower_diag_index is greater than upper_diag_index")
    rank = len(shape.dims)
    num_rows, num_cols = _value(ctx.dim(shape, rank - 2)), _value(ctx.dim(shape, rank - 1))
    max_diag_len = -1
    if num_rows != -1 and num_cols != -1:
        if lower != 0 and (-num_rows >= lower or lower >= num_cols):
            raise invalid("lower_diag_index is out of bound.")
        if upper != 0 and (-num_rows >= upper or upper >= num_cols):
            raise invalid("upper_diag_index is out of bound.")
        max_diag_len = min(num_rows + min(upper, 0), num_cols - max(lower, 0))
    dims = list(shape.dims[: rank - 2])
    if lower < upper:
        dims.append(ctx.make_dim(upper - lower + 1))
    dims.append(ctx.make_dim(max_diag_len if max_diag_len >= 0 else None))
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("MatrixDiagPartV3")
    .input("input: T")
    .input("k: int32")
    .input("padding_value: T")
    .output("diagonal: T")
    .attr("T: type")
    .attr(_ALIGN)
    .set_shape_fn(_matrix_diag_part_v3_shape)
)


(
    register_op("MatrixBandPart")
    .input("input: T")
    .input("num_lower: Tindex")
    .input("num_upper: Tindex")
    .output("band: T")
    .attr("T: type")
    .attr("Tindex: {int32, int64} = DT_INT64")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _log_determinant_shape(ctx: InferenceContext) -> None:
    """LogMatrixDeterminant: ``[..., M, M] -> [...]`` for both the sign and the log of |det|."""
    s = ctx.with_rank_at_least(ctx.input(0), 2)
    ctx.merge_dim(ctx.dim(s, -1), ctx.dim(s, -2))
    ctx.set_output(0, ctx.subshape(s, 0, -2))
    ctx.set_output(1, ctx.subshape(s, 0, -2))


(
    register_op("LogMatrixDeterminant")
    .input("input: T")
    .output("sign: T")
    .output("log_abs_determinant: T")
    .attr("T: {half, float, double, complex64, complex128}")
    .set_shape_fn(_log_determinant_shape)
)
