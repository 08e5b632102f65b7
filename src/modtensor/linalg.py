"""``modtensor.linalg``: TensorFlow's ``tf.linalg`` names (decompositions, solves, diagonals, einsum, norms)."""

from modtensor.api.linalg_ops import (
    band_part,
    cholesky,
    det,
    diag,
    diag_part,
    eigh,
    eigvalsh,
    einsum,
    eye,
    inv,
    norm,
    qr,
    solve,
    svd,
    tensordot,
    trace,
)
from modtensor.api.math_ops import matmul

__all__ = [
    "band_part",
    "cholesky",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigvalsh",
    "einsum",
    "eye",
    "inv",
    "matmul",
    "norm",
    "qr",
    "solve",
    "svd",
    "tensordot",
    "trace",
]
