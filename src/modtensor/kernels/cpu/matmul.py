"""Matrix products with TensorFlow's semantics: MatMul (transpose_a/b) and BatchMatMulV2 (adj_x/y, batch broadcast).

Products go to BLAS through ``np.matmul``; float16 and bfloat16 accumulate in
float32 and are rounded once, as TF's CPU kernels do.
"""

from __future__ import annotations

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on
from modtensor.kernels.cpu.precision import HALF_TYPES

_HALF = HALF_TYPES


def _product(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype in _HALF:
        a, b = a.astype(np.float32), b.astype(np.float32)
    token = quiet_on()
    try:
        out = np.matmul(a, b, out=...)
    finally:
        quiet_off(token)
    return out if out.dtype == dtype else out.astype(dtype)


def _adjoint(m: np.ndarray) -> np.ndarray:
    m = np.swapaxes(m, -1, -2)
    return np.conj(m) if np.iscomplexobj(m) else m


def mat_mul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    """MatMul of two matrices, optionally transposing either first."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if type(b) is not np.ndarray:
        b = np.asarray(b)
    if a.ndim != 2:
        raise invalid_argument("In[0] ndims must be >= 2")  # TF 2.21's wording, for any rank but 2
    if b.ndim != 2:
        raise invalid_argument("In[1] ndims must be >= 2")
    lhs = a.T if transpose_a else a
    rhs = b.T if transpose_b else b
    if lhs.shape[1] != rhs.shape[0]:
        raise invalid_argument(f"Matrix size-incompatible: In[0]: {shape_str(a.shape)}, In[1]: {shape_str(b.shape)}")
    return _product(lhs, rhs, a.dtype)


def batch_mat_mul_v2(x: np.ndarray, y: np.ndarray, adj_x: bool = False, adj_y: bool = False) -> np.ndarray:
    """BatchMatMulV2: matrix products over the last two dims, batch dims broadcast."""
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim < 2:
        raise invalid_argument(f"In[0] ndims must be >= 2: {x.ndim}")
    if y.ndim < 2:
        raise invalid_argument(f"In[1] ndims must be >= 2: {y.ndim}")
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise invalid_argument(
            f"In[0] and In[1] must have compatible batch dimensions: {shape_str(x.shape)} vs. {shape_str(y.shape)}"
        ) from None
    lhs = _adjoint(x) if adj_x else x
    rhs = _adjoint(y) if adj_y else y
    if lhs.shape[-1] != rhs.shape[-2]:
        raise invalid_argument(
            "Matrix size-incompatible: In[0]: "
            f"{shape_str(x.shape)}, In[1]: {shape_str(y.shape)} {int(adj_x)} {int(adj_y)}"
        )
    return _product(lhs, rhs, x.dtype)
