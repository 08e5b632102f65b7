"""Linear-algebra kernels with TensorFlow's semantics: Einsum, BatchMatMulV3, matrix decompositions and diagonals.

Einsum follows TF's strategy: repeated labels of one input become a diagonal (a label
repeated in the output puts the values on a diagonal of zeros), labels that only one input
has are summed first, and the contraction is one (batched) BLAS matrix product with
broadcast batch dims. Decompositions go to numpy's LAPACK; half types compute in float32
and round once, as TF's CPU kernels do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.precision import HALF_TYPES

_ELLIPSIS_LABELS = [chr(0x100 + i) for i in range(64)]  # stand-ins for the dims an ellipsis covers


def _str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _parse(equation: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Input and output label strings with each ellipsis replaced by labels of its (broadcast) dims."""
    parts = equation.split("->")
    if len(parts) != 2:
        raise invalid_argument(f"Expecting exactly one '->' in einsum equation: {equation}")
    inputs = parts[0].split(",")
    if len(inputs) != len(shapes):
        raise invalid_argument(f"Expected {len(inputs)} inputs but got: {len(shapes)}")
    expanded: list[str] = []
    ellipsis_rank = 0
    for labels, shape in zip(inputs, shapes, strict=True):
        if "..." in labels:
            named = len(labels) - 3
            if len(shape) < named:
                raise invalid_argument(
                    f"Input {len(expanded)} to einsum has rank {len(shape)} but the subscript '{labels}' "
                    f"needs at least {named} dimensions"
                )
            k = len(shape) - named
            ellipsis_rank = max(ellipsis_rank, k)
            labels = labels.replace("...", "".join(_ELLIPSIS_LABELS[-k:] if k else []))
        elif len(labels) != len(shape):
            raise invalid_argument(
                f"Input {len(expanded)} to einsum has rank {len(shape)} but the subscript '{labels}' has "
                f"{len(labels)} labels"
            )
        expanded.append(labels)
    out = parts[1].replace("...", "".join(_ELLIPSIS_LABELS[-ellipsis_rank:] if ellipsis_rank else []))
    return expanded, out


def _diagonal(x: np.ndarray, labels: str) -> tuple[np.ndarray, str]:
    """Repeated labels of one input reduced to their diagonal (TF's 'ii->i')."""
    if len(set(labels)) == len(labels):
        return x, labels
    unique = "".join(dict.fromkeys(labels))
    for label in unique:
        axes = [i for i, c in enumerate(labels) if c == label]
        sizes = {x.shape[a] for a in axes}
        if len(sizes) > 1:
            raise invalid_argument(
                f"Expected dimension {x.shape[axes[0]]} at axis {axes[1]} of the input shaped {shape_str(x.shape)} "
                f"but got dimension {x.shape[axes[1]]}"
            )
    letters = {c: chr(ord("a") + i) for i, c in enumerate(unique)}
    spec = "".join(letters[c] for c in labels) + "->" + "".join(letters[c] for c in unique)
    return np.einsum(spec, x), unique


def _sum_out(x: np.ndarray, labels: str, keep: set[str]) -> tuple[np.ndarray, str]:
    """Sum the dims whose labels no one else needs."""
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return np.sum(x, axis=axes), "".join(c for c in labels if c in keep)


def _check_sizes(arrays: list[np.ndarray], labels: list[str]) -> None:
    """A named label's dim must agree across inputs (ellipsis dims may broadcast from 1)."""
    seen: dict[str, tuple[int, int, int]] = {}
    for i, (x, labs) in enumerate(zip(arrays, labels, strict=True)):
        for axis, c in enumerate(labs):
            size = x.shape[axis]
            if c in seen and seen[c][0] != size:
                if c in _ELLIPSIS_LABELS and 1 in (size, seen[c][0]):
                    continue
                raise invalid_argument(
                    f"Expected dimension {seen[c][0]} at axis {axis} of the input shaped {shape_str(x.shape)} but "
                    f"got dimension {size}"
                )
            seen.setdefault(c, (size, i, axis))


@ignoring_fp_errors
def einsum(inputs: list[np.ndarray], equation: Any) -> np.ndarray:
    """Einsum of one or two inputs by TF's equation (labels, an optional ellipsis, '->' output)."""
    equation = _str(equation)
    arrays = [np.asarray(x) for x in inputs]
    dtype = arrays[0].dtype
    if dtype in HALF_TYPES:
        arrays = [x.astype(np.float32) for x in arrays]
    labels, out_labels = _parse(equation, [x.shape for x in arrays])
    _check_sizes(arrays, labels)
    for c in out_labels:
        if not any(c in labs for labs in labels):
            raise invalid_argument(
                f"Einsum output subscripts for equation '{equation}' has label '{c}' which is not present in the "
                "input subscripts"
            )
    pairs = [_diagonal(x, labs) for x, labs in zip(arrays, labels, strict=True)]
    unique_out = "".join(dict.fromkeys(out_labels))
    if len(pairs) == 1:
        x, labs = _sum_out(pairs[0][0], pairs[0][1], set(unique_out))
        result = _to_output(x, labs, unique_out)
    else:
        (a, la), (b, lb) = pairs
        a, la = _sum_out(a, la, set(unique_out) | set(lb))
        b, lb = _sum_out(b, lb, set(unique_out) | set(la))
        result = _contract(a, la, b, lb, unique_out)
    if unique_out != out_labels:
        result = _inflate(result, unique_out, out_labels)
    return result if result.dtype == dtype else result.astype(dtype)


def _inflate(x: np.ndarray, labels: str, out_labels: str) -> np.ndarray:
    """A label repeated in the output: x (unique labels) written on the diagonal of zeros (TF's 'i->ii',
    the gradient of a diagonal)."""
    out = np.zeros([x.shape[labels.index(c)] for c in out_labels], dtype=x.dtype)
    index = np.indices(x.shape, sparse=True)
    out[tuple(index[labels.index(c)] for c in out_labels)] = x
    return out


def _to_output(x: np.ndarray, labels: str, out_labels: str) -> np.ndarray:
    """x (unique labels, all in the output) transposed to the output's order, as a contiguous array."""
    return np.array(np.transpose(x, [labels.index(c) for c in out_labels]), order="C")


def _contract(a: np.ndarray, la: str, b: np.ndarray, lb: str, out_labels: str) -> np.ndarray:
    """The product of a and b: shared labels in the output are batch dims, the others contracted."""
    batch = [c for c in out_labels if c in la and c in lb]
    contract = [c for c in la if c in lb and c not in out_labels]
    free_a = [c for c in la if c not in lb]
    free_b = [c for c in lb if c not in la]
    a_t = np.transpose(a, [la.index(c) for c in batch + free_a + contract])
    b_t = np.transpose(b, [lb.index(c) for c in batch + contract + free_b])
    nb = len(batch)
    batch_a, batch_b = a_t.shape[:nb], b_t.shape[:nb]
    fa = int(np.prod(a_t.shape[nb : nb + len(free_a)], dtype=np.int64))
    k = int(np.prod(a_t.shape[nb + len(free_a) :], dtype=np.int64))
    fb = int(np.prod(b_t.shape[nb + len(contract) :], dtype=np.int64))
    lhs = a_t.reshape(*batch_a, fa, k)
    rhs = b_t.reshape(*batch_b, k, fb)
    product = np.matmul(lhs, rhs)
    out_shape = (
        *product.shape[:nb],
        *a_t.shape[nb : nb + len(free_a)],
        *b_t.shape[nb + len(contract) :],
    )
    product = product.reshape(out_shape)
    order = batch + free_a + free_b
    return _to_output(product, "".join(order), out_labels)


# --------------------------------------------------------------------------- BatchMatMulV3

_INT8 = (np.dtype(np.int8), np.dtype(np.uint8))


def _v3_combination_ok(ta: np.dtype, tb: np.dtype, tout: np.dtype) -> bool:
    """TF's CPU kernels: same types, 8-bit pairs into int32, 8-bit with bfloat16 into bfloat16."""
    if ta == tb == tout:
        return True
    if ta in _INT8 and tb in _INT8:
        return tout == np.dtype(np.int32)
    half = {ta, tb} - set(_INT8)
    return len(half) == 1 and half.pop().name == "bfloat16" and tout.name == "bfloat16"


@ignoring_fp_errors
def batch_mat_mul_v3(x: np.ndarray, y: np.ndarray, Tout: Any, adj_x: bool = False, adj_y: bool = False) -> np.ndarray:  # noqa: N803
    """BatchMatMulV3: BatchMatMulV2 whose inputs and output may have different types (Ta, Tb -> Tout)."""
    from modtensor.kernels.cpu.elementwise import as_numpy_dtype
    from modtensor.kernels.cpu.matmul import batch_mat_mul_v2

    x, y = np.asarray(x), np.asarray(y)
    tout = np.dtype(as_numpy_dtype(Tout))
    if not _v3_combination_ok(x.dtype, y.dtype, tout):
        raise invalid_argument(
            f"BatchMatMulV3 has no CPU kernel for Ta={x.dtype.name}, Tb={y.dtype.name}, Tout={tout.name}"
        )
    if x.dtype != tout or y.dtype != tout:
        wide = np.float32 if tout.name == "bfloat16" else np.int64
        out = batch_mat_mul_v2(x.astype(wide), y.astype(wide), adj_x=adj_x, adj_y=adj_y)
        return out.astype(tout)
    return batch_mat_mul_v2(x, y, adj_x=adj_x, adj_y=adj_y)


# --------------------------------------------------------------------------- square-matrix ops


def _check_matrices(x: np.ndarray, square: bool = True, index: int = 0) -> None:
    """TF's LinearAlgebraOp checks: rank >= 2 and (for most ops) square inner matrices."""
    if x.ndim < 2:
        raise invalid_argument(f"Input tensor {index} must have rank >= 2, got {x.ndim}")
    if square and x.shape[-1] != x.shape[-2]:
        raise invalid_argument("Input matrix must be square.")


def _compute_type(x: np.ndarray) -> tuple[np.ndarray, np.dtype]:
    """x in the type the decomposition runs in (float32 for half) and the output dtype."""
    return (x.astype(np.float32) if x.dtype in HALF_TYPES else x), x.dtype


def _adjoint(m: np.ndarray) -> np.ndarray:
    m = np.swapaxes(m, -1, -2)
    return np.conj(m) if np.iscomplexobj(m) else m


@ignoring_fp_errors
def matrix_inverse(input: np.ndarray, adjoint: bool = False) -> np.ndarray:
    """MatrixInverse: the inverse (of the adjoint) of every inner square matrix; singular ones are TF's error."""
    x = np.asarray(input)
    _check_matrices(x)
    work, dtype = _compute_type(x)
    if adjoint:
        work = _adjoint(work)
    if work.size == 0:
        return np.empty(x.shape, dtype)
    try:
        out = np.linalg.inv(work)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input is not invertible.") from None
    return out.astype(dtype, copy=False)


@ignoring_fp_errors
def matrix_determinant(input: np.ndarray) -> np.ndarray:
    """MatrixDeterminant: the determinant of every inner square matrix."""
    x = np.asarray(input)
    _check_matrices(x)
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-2], x.dtype)
    return np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)


@ignoring_fp_errors
def cholesky(input: np.ndarray) -> np.ndarray:
    """Cholesky: the lower factor L of every inner matrix A = L L^H (only A's lower triangle is read)."""
    x = np.asarray(input)
    _check_matrices(x)
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    hermitian = np.tril(x) + _adjoint(np.tril(x, -1))
    flat = hermitian.reshape(-1, *x.shape[-2:])
    out = np.zeros_like(flat)
    for i, matrix in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:  # TF 2.21 raises nothing: the factor's lower triangle is NaN
            out[i] = np.tril(np.full(matrix.shape, np.nan, dtype=matrix.dtype))
    return out.reshape(x.shape)


@ignoring_fp_errors
def matrix_solve(matrix: np.ndarray, rhs: np.ndarray, adjoint: bool = False) -> np.ndarray:
    """MatrixSolve: X with A X = B (A^H X = B with ``adjoint``) for every inner matrix pair."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    _check_matrices(a)
    _check_matrices(b, square=False, index=1)
    if a.shape[:-2] != b.shape[:-2]:
        raise invalid_argument(
            f"All input tensors must have the same outer dimensions., received shapes {shape_str(a.shape)}, "
            f"{shape_str(b.shape)}"
        )
    if a.shape[-1] != b.shape[-2]:
        raise invalid_argument("Input matrix and rhs are incompatible.")
    if b.size == 0 or a.size == 0:
        return np.zeros(b.shape, a.dtype)
    work = _adjoint(a) if adjoint else a
    try:
        out = np.linalg.solve(work, b)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input matrix is not invertible.") from None
    return out.astype(a.dtype, copy=False)


@ignoring_fp_errors
def qr(input: np.ndarray, full_matrices: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Qr: Householder QR of every inner matrix (q orthonormal columns, r upper triangular)."""
    x = np.asarray(input)
    _check_matrices(x, square=False)
    work, dtype = _compute_type(x)
    m, n = x.shape[-2:]
    p = min(m, n)
    if work.size == 0:
        q_cols = m if full_matrices else p
        r_rows = m if full_matrices else p
        q = np.zeros((*x.shape[:-2], m, q_cols), dtype)
        q[..., np.arange(min(m, q_cols)), np.arange(min(m, q_cols))] = 1
        return q, np.zeros((*x.shape[:-2], r_rows, n), dtype)
    q, r = np.linalg.qr(work, mode="complete" if full_matrices else "reduced")
    return q.astype(dtype, copy=False), r.astype(dtype, copy=False)


@ignoring_fp_errors
def svd(
    input: np.ndarray, compute_uv: bool = True, full_matrices: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Svd: singular values (descending) and, with ``compute_uv``, u and v (not v^H) of every inner matrix."""
    x = np.asarray(input)
    _check_matrices(x, square=False)
    dtype = x.dtype
    m, n = x.shape[-2:]
    p = min(m, n)
    batch = x.shape[:-2]
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False) if x.size else np.zeros((*batch, p), dtype)
        return s.astype(dtype, copy=False), np.zeros((), dtype), np.zeros((), dtype)  # TF's: uninitialized scalars
    if x.size == 0:
        u_cols, v_cols = (m, n) if full_matrices else (p, p)
        u = np.zeros((*batch, m, u_cols), dtype)
        v = np.zeros((*batch, n, v_cols), dtype)
        for mat, k in ((u, min(m, u_cols)), (v, min(n, v_cols))):
            mat[..., np.arange(k), np.arange(k)] = 1
        return np.zeros((*batch, p), dtype), u, v
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    real = np.real(s) if np.iscomplexobj(s) else s
    return real.astype(dtype), u.astype(dtype, copy=False), _adjoint(vh).astype(dtype, copy=False)


@ignoring_fp_errors
def self_adjoint_eig_v2(input: np.ndarray, compute_v: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """SelfAdjointEigV2: ascending eigenvalues and (with ``compute_v``) eigenvectors, from the lower triangle."""
    x = np.asarray(input)
    _check_matrices(x)
    dtype = x.dtype
    if x.size == 0:
        return np.zeros(x.shape[:-1], dtype), (np.zeros(x.shape, dtype) if compute_v else np.zeros((), dtype))
    if not compute_v:  # TF's v is then an uninitialized scalar
        return np.linalg.eigvalsh(x, UPLO="L").astype(dtype), np.zeros((), dtype)
    e, v = np.linalg.eigh(x, UPLO="L")
    return e.astype(dtype), v.astype(dtype, copy=False)


# --------------------------------------------------------------------------- diagonals and bands


def _diag_indices(k: np.ndarray) -> tuple[int, int]:
    k = np.asarray(k)
    flat = k.reshape(-1).tolist()
    if k.ndim > 1:
        raise invalid_argument(f"diag_index must be a scalar or vector, received shape: {shape_str(k.shape)}")
    if not flat:
        raise invalid_argument("diag_index must have at least one element")
    lower = int(flat[0])
    upper = int(flat[1]) if len(flat) > 1 else lower
    if len(flat) > 2:
        raise invalid_argument(f"diag_index must have only one or two elements, received {len(flat)} elements.")
    if lower > upper:
        raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}")
    return lower, upper


def _offset(d: int, diag_len: int, max_diag_len: int, align: str) -> int:
    """Where diagonal ``d`` starts inside its packed row of ``max_diag_len`` (TF's alignment rules)."""
    left_super = align in ("LEFT_LEFT", "LEFT_RIGHT")
    left_sub = align in ("LEFT_LEFT", "RIGHT_LEFT")
    left = left_super if d >= 0 else left_sub
    return 0 if left else max_diag_len - diag_len


def _scalar(x: Any, what: str) -> Any:
    a = np.asarray(x)
    if a.size != 1 or a.ndim > 1:
        raise invalid_argument(f"{what} must be a scalar. Received shape {shape_str(a.shape)}")
    return a.reshape(-1)[0]


def matrix_diag_v3(
    diagonal: np.ndarray,
    k: np.ndarray,
    num_rows: np.ndarray,
    num_cols: np.ndarray,
    padding_value: np.ndarray,
    align: Any = "RIGHT_LEFT",
) -> np.ndarray:
    """MatrixDiagV3: matrices holding the given diagonals ``k[0]..k[1]`` and ``padding_value`` elsewhere."""
    align = _str(align)
    diag = np.asarray(diagonal)
    lower, upper = _diag_indices(k)
    rows, cols = int(_scalar(num_rows, "num_rows")), int(_scalar(num_cols, "num_cols"))
    pad = _scalar(padding_value, "padding_value")
    num_diags = upper - lower + 1
    if diag.ndim < (1 if lower == upper else 2):
        raise invalid_argument(f"diagonal must be at least 1-dim, received shape: {shape_str(diag.shape)}")
    if lower != upper and diag.shape[-2] != num_diags:
        raise invalid_argument(
            "The number of diagonals provided in the input does not match the lower_diag_index and "
            "upper_diag_index range."
        )
    max_diag_len = diag.shape[-1]
    min_rows = max_diag_len - min(upper, 0)
    min_cols = max_diag_len + max(lower, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    if rows == -1:
        rows = min_rows
    if cols == -1:
        cols = min_cols
    if rows < min_rows:
        raise invalid_argument("The number of rows is too small.")
    if cols < min_cols:
        raise invalid_argument("The number of columns is too small.")
    if rows != min_rows and cols != min_cols:
        raise invalid_argument(
            "The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal."
        )
    batch = (diag[..., None, :] if lower == upper else diag).shape[:-2]
    out = np.full((*batch, rows, cols), pad, dtype=diag.dtype)
    set_diagonals(out, diag, lower, upper, max_diag_len, align)
    return out


def set_diagonals(out: np.ndarray, diag: np.ndarray, lower: int, upper: int, max_diag_len: int, align: str) -> None:
    """Write the packed diagonals ``diag`` (``lower..upper``; one diagonal without its own axis) into the matrices
    of ``out`` in place (MatrixDiagV3 and MatrixSetDiagV3)."""
    rows, cols = out.shape[-2:]
    packed = diag[..., None, :] if lower == upper else diag
    for m in range(upper - lower + 1):
        d = upper - m
        diag_len = min(rows + min(0, d), cols - max(0, d))
        if diag_len <= 0:
            continue
        off = _offset(d, diag_len, max_diag_len, align)
        n = np.arange(diag_len)
        out[..., n + max(-d, 0), n + max(d, 0)] = packed[..., m, off : off + diag_len]


def matrix_diag_part_v3(
    input: np.ndarray, k: np.ndarray, padding_value: np.ndarray, align: Any = "RIGHT_LEFT"
) -> np.ndarray:
    """MatrixDiagPartV3: diagonals ``k[0]..k[1]`` of every inner matrix, packed and padded by ``align``."""
    align = _str(align)
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {shape_str(x.shape)}")
    lower, upper = _diag_indices(k)
    pad = _scalar(padding_value, "padding_value")
    rows, cols = x.shape[-2:]
    for name, d in (("lower_diag_index", lower), ("upper_diag_index", upper)):
        if d != 0 and not (-rows < d < cols):
            raise invalid_argument(f"{name} is out of bound: {d}. It must be between {-rows} and {cols}")
    max_diag_len = min(rows + min(upper, 0), cols - max(lower, 0))
    num_diags = upper - lower + 1
    out = np.full((*x.shape[:-2], num_diags, max(max_diag_len, 0)), pad, dtype=x.dtype)
    for m in range(num_diags):
        d = upper - m
        diag_len = min(rows + min(0, d), cols - max(0, d))
        if diag_len <= 0:
            continue
        off = _offset(d, diag_len, max_diag_len, align)
        n = np.arange(diag_len)
        out[..., m, off : off + diag_len] = x[..., n + max(-d, 0), n + max(d, 0)]
    return out[..., 0, :] if lower == upper else out


def matrix_band_part(input: np.ndarray, num_lower: np.ndarray, num_upper: np.ndarray) -> np.ndarray:
    """MatrixBandPart: every inner matrix with the elements outside the band (``num_lower``/``num_upper``; <0 keeps
    all) set to zero."""
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {shape_str(x.shape)}")
    lo_arr, up_arr = np.asarray(num_lower), np.asarray(num_upper)
    if lo_arr.ndim != 0:
        raise invalid_argument(f"num_lower must be scalar, got shape {shape_str(lo_arr.shape)}")
    if up_arr.ndim != 0:
        raise invalid_argument(f"num_upper must be scalar, got shape {shape_str(up_arr.shape)}")
    rows, cols = x.shape[-2:]
    lo, up = int(lo_arr), int(up_arr)
    if lo > rows:
        raise invalid_argument(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lo}")
    if up > cols:
        raise invalid_argument(f"num_upper must be negative or less or equal to number of columns ({cols}) got: {up}")
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = np.ones((rows, cols), dtype=bool)
    if lo >= 0:
        keep &= (i - j) <= lo
    if up >= 0:
        keep &= (j - i) <= up
    return np.where(keep, x, np.zeros((), x.dtype))


@ignoring_fp_errors
def log_matrix_determinant(input: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    """LogMatrixDeterminant: the sign (a unit complex number for complex input) and log|det| of each matrix."""
    x = np.asarray(input)
    _check_matrices(x)
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-2], x.dtype), np.zeros(x.shape[:-2], x.dtype)
    sign, log_abs = np.linalg.slogdet(x)
    return np.asarray(sign).astype(x.dtype, copy=False), np.asarray(log_abs).astype(x.dtype, copy=False)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross: the cross product of the innermost 3-vectors of two same-shaped tensors."""
    if a.shape != b.shape:
        raise invalid_argument(f"Both inputs must be of same shape: {shape_str(a.shape)} vs. {shape_str(b.shape)}")
    if a.ndim < 1:
        raise invalid_argument(f"Input must be at least 1D{shape_str(a.shape)}")
    if a.shape[-1] != 3:
        raise errors.FailedPreconditionError(None, None, "Cross-products are only defined for 3-element vectors.")
    a1, a2, a3 = a[..., 0], a[..., 1], a[..., 2]
    b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2]
    out = np.stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], axis=-1)
    return out.astype(a.dtype, copy=False)


OP_FUNCTIONS = {
    "LogMatrixDeterminant": log_matrix_determinant,
    "Cross": cross,
    "Einsum": einsum,
    "BatchMatMulV3": batch_mat_mul_v3,
    "MatrixInverse": matrix_inverse,
    "MatrixDeterminant": matrix_determinant,
    "Cholesky": cholesky,
    "MatrixSolve": matrix_solve,
    "Qr": qr,
    "Svd": svd,
    "SelfAdjointEigV2": self_adjoint_eig_v2,
    "MatrixDiagV3": matrix_diag_v3,
    "MatrixDiagPartV3": matrix_diag_part_v3,
    "MatrixBandPart": matrix_band_part,
}

_POD = "FLOATS INTS UINTS bool COMPLEX"
CPU_TYPE_CONSTRAINTS = {
    "LogMatrixDeterminant": {"T": "float32 float64 COMPLEX"},
    "Cross": {"T": "FLOATS INTS UINTS"},
    "Einsum": {"T": "FLOATS int32 int64 COMPLEX"},
    "BatchMatMulV3": {
        "Ta": "bfloat16 float32 float64 int8 uint8 int16 int32 int64 COMPLEX",
        "Tb": "bfloat16 float32 float64 int8 uint8 int16 int32 int64 COMPLEX",
        "Tout": "bfloat16 float32 float64 int16 int32 int64 COMPLEX",
    },
    "MatrixInverse": {"T": "float16 float32 float64 COMPLEX"},
    "MatrixDeterminant": {"T": "float32 float64 COMPLEX"},
    "Cholesky": {"T": "float32 float64 COMPLEX"},
    "MatrixSolve": {"T": "float32 float64 COMPLEX"},
    "Qr": {"T": "float16 float32 float64 COMPLEX"},
    "Svd": {"T": "float32 float64 COMPLEX"},
    "SelfAdjointEigV2": {"T": "float32 float64 COMPLEX"},
    "MatrixDiagV3": {"T": _POD},
    "MatrixDiagPartV3": {"T": _POD},
    "MatrixBandPart": {"T": _POD},
}
