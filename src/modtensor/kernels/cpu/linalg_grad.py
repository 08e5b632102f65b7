"""CPU kernels of the linalg ops gradient functions use, with TensorFlow's numerics and error texts.

``MatrixTriangularSolve`` (substitution on the lower or upper triangle, batch dims broadcast, a zero
pivot giving inf/NaN as TF's Eigen kernel does) and ``MatrixSetDiagV3`` (diagonals written into a copy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.linalg import _adjoint, _str, set_diagonals


def _batch_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """The broadcast of two batch shapes (TF's MatMulBCast), None when they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


@ignoring_fp_errors
def matrix_triangular_solve(matrix: np.ndarray, rhs: np.ndarray, lower: bool = True, adjoint: bool = False) -> Any:
    """MatrixTriangularSolve: X with T X = B (T^H X = B with ``adjoint``), T the lower (or upper) triangle of each
    inner matrix; the other triangle is never read."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    if a.ndim < 2:
        raise invalid_argument(f"In[0] ndims must be >= 2: {a.ndim}")
    if b.ndim < 2:
        raise invalid_argument(f"In[1] ndims must be >= 2: {b.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument(
            f"In[0] matrices in the last dimensions must be square ({a.shape[-1]} =/= {a.shape[-2]})"
        )
    batch = _batch_shape(a.shape[:-2], b.shape[:-2])
    if batch is None:
        raise invalid_argument(
            f"In[0] and In[1] must have compatible batch dimensions: {shape_str(a.shape)} vs. {shape_str(b.shape)}"
        )
    n = a.shape[-1]
    if n != b.shape[-2]:
        raise invalid_argument(
            f"In[0] mismatch In[1] shape: {n} vs. {b.shape[-2]}: {shape_str(a.shape)} {shape_str(b.shape)} "
            f"{int(lower)} {int(adjoint)}"
        )
    out = np.zeros((*batch, n, b.shape[-1]), dtype=a.dtype)
    if out.size == 0:
        return out
    t = np.tril(a) if lower else np.triu(a)
    if adjoint:
        t = _adjoint(t)
        lower = not lower
    t = np.broadcast_to(t, (*batch, n, n))
    rhs_b = np.broadcast_to(b, out.shape)
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        done = slice(0, i) if lower else slice(i + 1, n)
        acc = rhs_b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, done], out[..., done, :])
        out[..., i, :] = acc / t[..., i, i][..., None]
    return out


def matrix_set_diag_v3(input: np.ndarray, diagonal: np.ndarray, k: np.ndarray, align: Any = "RIGHT_LEFT") -> Any:  # noqa: A002
    """MatrixSetDiagV3: a copy of each inner matrix with diagonals ``k[0]..k[1]`` replaced (packed by ``align``)."""
    align = _str(align)
    x, diag, k = np.asarray(input), np.asarray(diagonal), np.asarray(k)
    if k.ndim > 1:
        raise invalid_argument(f"diag_index must be a scalar or vector, received shape: {shape_str(k.shape)}")
    if k.size == 0:
        raise invalid_argument("diag_index must have at least one element")
    flat = k.reshape(-1).tolist()
    if k.ndim == 1 and len(flat) > 2:
        raise invalid_argument(f"diag_index must have only one or two elements, received {len(flat)} elements.")
    lower, upper = int(flat[0]), int(flat[-1]) if k.ndim == 1 else int(flat[0])
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: {shape_str(x.shape)}")
    rows, cols = x.shape[-2:]
    for name, d in (("lower_diag_index", lower), ("upper_diag_index", upper)):
        if not (-rows < d < cols or d == 0):
            raise invalid_argument(f"{name} is out of bound: {d} It must be between {-rows} and {cols}")
    if lower > upper:
        raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}")
    num_diags = upper - lower + 1
    if lower != upper and (diag.ndim < x.ndim or diag.shape[x.ndim - 2] != num_diags):
        raise invalid_argument(
            "The number of diagonals provided in `diag` is not consistent with `lower_diag_index` and "
            "`upper_diag_index`"
        )
    max_diag_len = min(rows + min(upper, 0), cols - max(lower, 0))
    expected = (*x.shape[:-2], *((num_diags,) if num_diags > 1 else ()), max_diag_len)
    if tuple(diag.shape) != expected:
        raise invalid_argument(
            "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not equal "
            "to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: "
            f"{shape_str(x.shape)}\nDiagonal shape: {shape_str(diag.shape)}\nExpected diagonal shape: "
            f"{shape_str(expected)}"
        )
    out = x.copy()
    set_diagonals(out, diag, lower, upper, max_diag_len, align)
    return out


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "MatrixTriangularSolve": matrix_triangular_solve,
    "MatrixSetDiagV3": matrix_set_diag_v3,
}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "MatrixTriangularSolve": {"T": "float32 float64 COMPLEX"},
    "MatrixSetDiagV3": {"T": "FLOATS INTS UINTS bool COMPLEX"},
}
