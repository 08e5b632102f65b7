"""Gradients of linalg ops: inverse, determinant, solves, and the Cholesky, QR, SVD and symmetric-eigen decompositions.

TensorFlow's rules (``tensorflow/python/ops/linalg_grad.py``; the derivations are those of
Giles 2008, "An extended collection of matrix derivative results for forward and reverse mode
automatic differentiation", and for QR of arXiv:2009.10071). Like TF's, the decomposition
gradients are finite only for distinct eigenvalues / singular values, and Svd's and Qr's need
the inner matrix dims statically. (Real dtypes: modtensor has no ``Conj`` op yet, so the
complex corrections of TF's Svd and Qr gradients are not built.) Einsum's gradient lives with
the math gradients. MatrixBandPart, MatrixDiagV3, MatrixDiagPartV3 and MatrixSetDiagV3, array
ops in TF, have theirs in ``array_grad``.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, linalg_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import skipped, static_dims
from modtensor.framework.gradient_registry import RegisterGradient

matmul = math_ops.matmul


def _adjoint(x: Any) -> Any:
    """The (conjugate) transpose of each inner matrix."""
    if x.dtype.is_complex:
        raise NotImplementedError("gradients of complex linalg ops need 'Conj', which modtensor does not have yet")
    rank = x.shape.rank
    if rank is not None:
        perm: Any = [*range(rank - 2), rank - 1, rank - 2]
    else:
        r = array_ops.rank(x)
        perm = array_ops.concat([math_ops.range(r - 2), array_ops.stack([r - 1, r - 2])], 0)
    return array_ops.transpose(x, perm)


def _safe_reciprocal(x: Any, epsilon: float = 1e-20) -> Any:
    """``1 / x``, finite at 0 (TF's ``_SafeReciprocal``)."""
    return x * math_ops.reciprocal(x * x + epsilon)


def _gap_reciprocals(values: Any) -> Any:
    """``f[i, j] = 1 / (values[j] - values[i])`` off the diagonal, 0 on it."""
    gaps = math_ops.subtract(array_ops.expand_dims(values, -2), array_ops.expand_dims(values, -1))
    return linalg_ops.set_diag(_safe_reciprocal(gaps), array_ops.zeros_like(values))


def _eye_like(x: Any) -> Any:
    """Identity matrices of the shape of the square inner matrices of ``x``."""
    dims = static_dims(x)
    if dims is not None:
        return linalg_ops.eye(dims[-1], batch_shape=dims[:-2], dtype=x.dtype)
    shape = array_ops.shape(x)
    return linalg_ops.eye(shape[-1], batch_shape=shape[:-2], dtype=x.dtype)


def _unbroadcast_batch(grad_a: Any, grad_b: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """Both gradients summed over the batch dims their operand was broadcast along (to ``a``'s, ``b``'s shapes)."""
    a_dims, b_dims = static_dims(a), static_dims(b)
    if a_dims is not None and b_dims is not None and a_dims[:-2] == b_dims[:-2]:
        return grad_a, grad_b
    a_shape, b_shape = array_ops.shape(a), array_ops.shape(b)
    ra, rb = apply_op("BroadcastGradientArgs", s0=a_shape[:-2], s1=b_shape[:-2])
    grad_a = array_ops.reshape(math_ops.reduce_sum(grad_a, axis=ra), a_shape)
    grad_b = array_ops.reshape(math_ops.reduce_sum(grad_b, axis=rb), b_shape)
    return grad_a, grad_b


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op: Any, grad: Any) -> Any:
    """``-A^-H grad A^-H`` (for ``adjoint``: with the roles of A and A^H exchanged)."""
    ainv = op.outputs[0]
    adjoint = op.get_attr("adjoint")
    inner = matmul(grad, ainv, adjoint_a=adjoint, adjoint_b=not adjoint)
    return math_ops.negative(matmul(ainv, inner, adjoint_a=not adjoint))


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op: Any, grad: Any) -> Any:
    """``grad * det(A) * A^-H`` per inner matrix."""
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = linalg_ops.inv(a, adjoint=True)
    c_dims = static_dims(c)
    shape: Any = [*c_dims, 1, 1] if c_dims is not None else array_ops.concat([array_ops.shape(c), [1, 1]], 0)
    return math_ops.multiply(array_ops.reshape(math_ops.multiply(grad, c), shape), a_adj_inv)


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op: Any, grad: Any) -> list[Any]:
    """``grad_b = A^-H grad``, ``grad_a = -grad_b X^H`` (``adjoint``: ``-X grad_b^H``)."""
    a, c = op.inputs[0], op.outputs[0]
    adjoint = op.get_attr("adjoint")
    grad_b = linalg_ops.solve(a, grad, adjoint=not adjoint)
    if skipped(op, 0):
        return [None, grad_b]
    if adjoint:
        grad_a = math_ops.negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(matmul(grad_b, c, adjoint_b=True))
    return [grad_a, grad_b]


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op: Any, grad: Any) -> list[Any]:
    """MatrixSolve's gradient restricted to the triangle the op reads, summed over broadcast batch dims."""
    a, b = op.inputs
    c = op.outputs[0]
    adjoint, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = linalg_ops.triangular_solve(a, grad, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = math_ops.negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(matmul(grad_b, c, adjoint_b=True))
    grad_a = linalg_ops.band_part(grad_a, -1, 0) if lower else linalg_ops.band_part(grad_a, 0, -1)
    return list(_unbroadcast_batch(grad_a, grad_b, a, b))


@RegisterGradient("Cholesky")
def _cholesky_grad(op: Any, grad: Any) -> Any:
    """``L^-H Phi(L^H grad) L^-1`` made symmetric, Phi taking the lower triangle with half the diagonal."""
    l_factor = op.outputs[0]
    l_inverse = linalg_ops.triangular_solve(l_factor, _eye_like(l_factor))
    middle = matmul(l_factor, grad, adjoint_a=True)
    middle = linalg_ops.set_diag(middle, linalg_ops.diag_part(middle) * 0.5)
    middle = linalg_ops.band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    return (grad_a + _adjoint(grad_a)) * 0.5


@RegisterGradient("Qr")
def _qr_grad(op: Any, dq: Any, dr: Any) -> Any:
    """QR's gradient for square and tall inputs (reduced), wide inputs reduced to the square case."""
    q, r = op.outputs
    r_dims, q_dims = r.shape, q.shape
    if r_dims.rank is None or r_dims.as_list()[-2] is None or r_dims.as_list()[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    rows_r, cols_r = r_dims.as_list()[-2:]
    if rows_r > cols_r and q_dims.as_list()[-2] == q_dims.as_list()[-1]:
        raise NotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
            f"r.shape={r.shape} with nrows={rows_r}and ncols={cols_r}."
        )

    def triangular_solve_right(x: Any, upper: Any) -> Any:
        """``x @ inv(upper)^H`` for upper-triangular ``upper``."""
        return _adjoint(linalg_ops.triangular_solve(upper, _adjoint(x), lower=False, adjoint=False))

    def square_or_tall(q: Any, r: Any, dq: Any, dr: Any) -> Any:
        qdq = matmul(q, dq, adjoint_a=True)
        qdq_ = math_ops.subtract(qdq, _adjoint(qdq))
        rdr = matmul(r, dr, adjoint_b=True)
        rdr_ = math_ops.subtract(rdr, _adjoint(rdr))
        tril = linalg_ops.band_part(math_ops.add(qdq_, rdr_), -1, 0)
        grad_a = matmul(q, math_ops.add(dr, triangular_solve_right(tril, r)))
        grad_b = triangular_solve_right(math_ops.subtract(dq, matmul(q, qdq)), r)
        return math_ops.add(grad_a, grad_b)

    num_rows = q_dims.as_list()[-2]
    if num_rows >= cols_r:
        return square_or_tall(q, r, dq, dr)
    # A wide matrix A = [X, Y] with R = [U, V]: X = QU is square, Y = QV.
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = matmul(q, dv)
    dx = square_or_tall(q, u, math_ops.add(dq, matmul(y, dv, adjoint_b=True)), du)
    return array_ops.concat([dx, dy], axis=-1)


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op: Any, grad_e: Any, grad_v: Any) -> Any:
    """``V (diag(grad_e) + F * V^H grad_v) V^H``, symmetrized onto the lower triangle the op reads."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = _gap_reciprocals(e)
        middle = math_ops.add(linalg_ops.diag(grad_e), math_ops.multiply(f, matmul(v, grad_v, adjoint_a=True)))
        grad_a = matmul(v, matmul(middle, v, adjoint_b=True))
    else:
        _, v = linalg_ops.eigh(op.inputs[0])
        grad_a = matmul(v, matmul(linalg_ops.diag(grad_e), v, adjoint_b=True))
    grad_a = linalg_ops.band_part(math_ops.add(grad_a, _adjoint(grad_a)), -1, 0)
    return linalg_ops.set_diag(grad_a, linalg_ops.diag_part(grad_a) * 0.5)


@RegisterGradient("Svd")
def _svd_grad(op: Any, grad_s: Any, grad_u: Any, grad_v: Any) -> Any:
    """SVD's gradient (Giles 2008; for reduced wide/tall matrices J. Townsend's derivation), via A^H when m > n."""
    a = op.inputs[0]
    a_shape = a.shape.with_rank_at_least(2)
    grad_s = math_ops.cast(grad_s, a.dtype)
    grad_s_mat = linalg_ops.diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = matmul(u, matmul(grad_s_mat, v, adjoint_b=True))
        if hasattr(grad_a, "set_shape"):
            grad_a.set_shape(a_shape)
        return grad_a
    full_matrices = op.get_attr("full_matrices")
    u_shape = grad_u.shape.with_rank_at_least(2)
    v_shape = grad_v.shape.with_rank_at_least(2)
    m = a_shape.dims[-2].merge_with(u_shape[-2]).value
    n = a_shape.dims[-1].merge_with(v_shape[-2]).value
    batch = a_shape[:-2].merge_with(u_shape[:-2]).merge_with(v_shape[:-2])
    a_shape = batch.concatenate([m, n])
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    s, u, v = op.outputs
    s = math_ops.cast(s, a.dtype)
    use_adjoint = m > n
    if use_adjoint:  # the gradient of A^H = V S U^H, transposed at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: "
            f"m={m} and n={n} from op input={a} with shape={a_shape}."
        )
    s_mat = linalg_ops.diag(s)
    f = _gap_reciprocals(math_ops.square(s))
    s_inv_mat = linalg_ops.diag(_safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    f_u = math_ops.multiply(f, matmul(u, grad_u, adjoint_a=True))
    f_v = math_ops.multiply(f, matmul(v1, grad_v1, adjoint_a=True))
    term1_nouv = math_ops.add(
        math_ops.add(grad_s_mat, matmul(math_ops.add(f_u, _adjoint(f_u)), s_mat)),
        matmul(s_mat, math_ops.add(f_v, _adjoint(f_v))),
    )
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = _adjoint(grad_v1)
        term2_nous = math_ops.subtract(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full_matrices:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            term2_nous = math_ops.subtract(term2_nous, matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True))
        grad_a = math_ops.add(grad_a, matmul(matmul(u, s_inv_mat), term2_nous))
    if use_adjoint:
        grad_a = _adjoint(grad_a)
    if hasattr(grad_a, "set_shape"):
        grad_a.set_shape(a_shape)
    return grad_a


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op: Any, _: Any, grad_b: Any) -> Any:
    a = op.inputs[0]
    c = op.outputs[1]
    a_adj_inv = apply_op("MatrixInverse", input=a, adjoint=True)
    multipliers = array_ops.reshape(grad_b, array_ops.concat([array_ops.shape(c), [1, 1]], 0))
    return math_ops.multiply(multipliers, a_adj_inv)
