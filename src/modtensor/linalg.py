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
    set_diag,
    solve,
    svd,
    tensordot,
    trace,
    triangular_solve,
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
    "set_diag",
    "solve",
    "svd",
    "tensordot",
    "trace",
    "triangular_solve",
]

# tf.linalg's everyday compositions (namespace-math work: api/array_ops.py, api/clip_ops.py, api/linalg_ops.py)
from modtensor.api.array_ops import matrix_transpose  # noqa: E402
from modtensor.api.clip_ops import global_norm  # noqa: E402
from modtensor.api.linalg_ops import logdet, pinv  # noqa: E402
from modtensor.api.nn_impl import l2_normalize  # noqa: E402

__all__ += ["global_norm", "l2_normalize", "logdet", "matrix_transpose", "pinv"]

# tf.linalg.cross and slogdet (their own ops: Cross, LogMatrixDeterminant)
from modtensor.api.linalg_ops import slogdet  # noqa: E402
from modtensor.api.math_ops import cross  # noqa: E402

__all__ += ["cross", "slogdet"]
