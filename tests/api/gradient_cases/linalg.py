"""Gradient cases: linalg (format: tests/api/gradient_cases/__init__.py).

Inputs are made well conditioned inside ``fn`` (``+ c * eye``, ``x x^T`` for positive definite),
so TF's Eigen and modtensor's LAPACK agree to float64 precision. Decomposition outputs enter
the loss in sign-invariant forms (squares of q, r, u, v): LAPACK and Eigen may sign singular
and eigen vectors differently, which changes neither those losses nor their gradients.
"""

_EYE3 = "tf.eye(3, dtype=tf.float64)"
_SPD = f"tf.matmul(x, x, transpose_b=True) + 3.0 * {_EYE3}"  # x: [..., 3, k]


def _dyn(expr: str, shape: str) -> str:
    return f"tf.compat.v1.placeholder_with_default({expr}, {shape})"


CASES: dict[str, dict] = {
    # ------------------------------------------------------------------ inverse, determinant, solves
    "inv": {"fn": f"lambda tf, x: tf.linalg.inv(x + 4.0 * {_EYE3})", "inputs": [("float64", [3, 3])]},
    "inv_adjoint_batch": {
        "fn": f"lambda tf, x: tf.linalg.inv(x + 4.0 * {_EYE3}, adjoint=True)",
        "inputs": [("float64", [2, 3, 3])],
    },
    "inv_second_order": {
        "fn": f"lambda tf, x: tf.linalg.inv(x + 4.0 * {_EYE3})",
        "inputs": [("float64", [3, 3])],
        "second_order": True,
    },
    "inv_f32": {
        "fn": "lambda tf, x: tf.linalg.inv(x + 4.0 * tf.eye(2))",
        "inputs": [("float32", [2, 2])],
        "rtol": 1e-4,
        "atol": 1e-5,
    },
    "det": {"fn": "lambda tf, x: tf.linalg.det(x)", "inputs": [("float64", [3, 3])]},
    "det_batch": {"fn": "lambda tf, x: tf.linalg.det(x) * 2.0", "inputs": [("float64", [2, 2, 2])]},
    "det_second_order": {
        "fn": f"lambda tf, x: tf.linalg.det(x + 2.0 * {_EYE3})",
        "inputs": [("float64", [3, 3])],
        "second_order": True,
    },
    "solve": {
        "fn": f"lambda tf, a, b: tf.linalg.solve(a + 4.0 * {_EYE3}, b)",
        "inputs": [("float64", [3, 3]), ("float64", [3, 2])],
    },
    "solve_adjoint_batch": {
        "fn": f"lambda tf, a, b: tf.linalg.solve(a + 4.0 * {_EYE3}, b, adjoint=True)",
        "inputs": [("float64", [2, 3, 3]), ("float64", [2, 3, 1])],
    },
    "solve_rhs_only": {
        "fn": "lambda tf, a, b: tf.linalg.solve(a, b)",
        "inputs": [("const", [[4.0, 1.0], [-1.0, 3.0]], "float64"), ("float64", [2, 3])],
        "wrt": [1],
    },
    "triangular_solve_lower": {
        "fn": f"lambda tf, a, b: tf.linalg.triangular_solve(a + 4.0 * {_EYE3}, b)",
        "inputs": [("float64", [3, 3]), ("float64", [3, 2])],
    },
    "triangular_solve_upper_adjoint": {
        "fn": f"lambda tf, a, b: tf.linalg.triangular_solve(a + 4.0 * {_EYE3}, b, lower=False, adjoint=True)",
        "inputs": [("float64", [2, 3, 3]), ("float64", [2, 3, 2])],
    },
    "triangular_solve_broadcast_batch": {
        "fn": f"lambda tf, a, b: tf.linalg.triangular_solve(a + 4.0 * {_EYE3}, b, lower=False)",
        "inputs": [("float64", [3, 3]), ("float64", [2, 3, 2])],
    },
    "triangular_solve_broadcast_dynamic": {
        "fn": f"lambda tf, a, b: tf.linalg.triangular_solve({_dyn('a', '[None, 3, 3]')} + 4.0 * {_EYE3}, b)",
        "inputs": [("float64", [1, 3, 3]), ("float64", [2, 3, 1])],
    },
    # ------------------------------------------------------------------ decompositions
    "cholesky": {"fn": f"lambda tf, x: tf.linalg.cholesky({_SPD})", "inputs": [("float64", [3, 3])]},
    "cholesky_batch": {"fn": f"lambda tf, x: tf.linalg.cholesky({_SPD})", "inputs": [("float64", [2, 3, 2])]},
    "cholesky_second_order": {
        "fn": f"lambda tf, x: tf.linalg.cholesky({_SPD})",
        "inputs": [("float64", [3, 3])],
        "second_order": True,
    },
    "cholesky_dynamic": {
        "fn": f"lambda tf, x: tf.linalg.cholesky({_dyn(_SPD, '[None, None]')})",
        "inputs": [("float64", [3, 3])],
    },
    "qr_square": {
        "fn": "lambda tf, x: [tf.square(m) for m in tf.linalg.qr(x)]",
        "inputs": [("float64", [3, 3])],
    },
    "qr_tall": {"fn": "lambda tf, x: [tf.square(m) for m in tf.linalg.qr(x)]", "inputs": [("float64", [4, 3])]},
    "qr_wide": {"fn": "lambda tf, x: [tf.square(m) for m in tf.linalg.qr(x)]", "inputs": [("float64", [3, 5])]},
    "qr_batch_r_only": {"fn": "lambda tf, x: tf.square(tf.linalg.qr(x).r)", "inputs": [("float64", [2, 3, 3])]},
    "qr_full_matrices_square": {
        "fn": "lambda tf, x: [tf.square(m) for m in tf.linalg.qr(x, full_matrices=True)]",
        "inputs": [("float64", [3, 3])],
    },
    "qr_full_matrices_tall_unsupported": {
        "fn": "lambda tf, x: tf.square(tf.linalg.qr(x, full_matrices=True).q)",
        "inputs": [("float64", [4, 3])],
    },
    "svd_values": {"fn": "lambda tf, x: tf.linalg.svd(x, compute_uv=False)", "inputs": [("float64", [3, 4])]},
    "svd_values_batch_tall": {
        "fn": "lambda tf, x: tf.linalg.svd(x, compute_uv=False)",
        "inputs": [("float64", [2, 4, 3])],
    },
    "svd_square": {
        "fn": "lambda tf, x: [m if i == 0 else tf.square(m) for i, m in enumerate(tf.linalg.svd(x))]",
        "inputs": [("float64", [3, 3])],
    },
    "svd_tall": {
        "fn": "lambda tf, x: [m if i == 0 else tf.square(m) for i, m in enumerate(tf.linalg.svd(x))]",
        "inputs": [("float64", [5, 3])],
    },
    "svd_wide_batch": {
        "fn": "lambda tf, x: [m if i == 0 else tf.square(m) for i, m in enumerate(tf.linalg.svd(x))]",
        "inputs": [("float64", [2, 3, 4])],
    },
    "svd_full_matrices": {
        "fn": "lambda tf, x: [m if i == 0 else tf.square(m) for i, m in enumerate(tf.linalg.svd(x, "
        "full_matrices=True))]",
        "inputs": [("float64", [3, 4])],
    },
    "svd_full_matrices_unsupported": {
        "fn": "lambda tf, x: tf.square(tf.linalg.svd(x, full_matrices=True)[1])",
        "inputs": [("float64", [5, 3])],
    },
    "svd_f32_values": {
        "fn": "lambda tf, x: tf.linalg.svd(x, compute_uv=False)",
        "inputs": [("float32", [3, 3])],
        "rtol": 1e-4,
        "atol": 1e-5,
    },  # fmt: skip
    "eigh": {
        "fn": "lambda tf, x: (lambda e, v: [e, tf.square(v)])(*tf.linalg.eigh(x + tf.transpose(x)))",
        "inputs": [("float64", [3, 3])],
    },
    "eigh_lower_triangle_only": {  # the op reads the lower triangle: the upper one gets no gradient
        "fn": "lambda tf, x: (lambda e, v: [e, tf.square(v)])(*tf.linalg.eigh(x))",
        "inputs": [("float64", [3, 3])],
    },
    "eigh_batch_vectors": {
        "fn": "lambda tf, x: tf.square(tf.linalg.eigh(x + tf.transpose(x, [0, 2, 1]))[1])",
        "inputs": [("float64", [2, 4, 4])],
    },
    "eigvalsh": {"fn": "lambda tf, x: tf.linalg.eigvalsh(x + tf.transpose(x))", "inputs": [("float64", [4, 4])]},
    # ------------------------------------------------------------------ bands and diagonals
    "band_part_lower": {"fn": "lambda tf, x: tf.linalg.band_part(x, -1, 0)", "inputs": [("float64", [3, 4])]},
    "band_part_tridiagonal_batch": {
        "fn": "lambda tf, x: tf.linalg.band_part(x, 1, 1) * 2.0",
        "inputs": [("float64", [2, 4, 4])],
    },
    "diag": {"fn": "lambda tf, d: tf.linalg.diag(d)", "inputs": [("float64", [2, 3])]},
    "diag_superdiagonal_padded": {
        "fn": "lambda tf, d: tf.linalg.diag(d, k=1, num_rows=3, num_cols=5, padding_value=7.0)",
        "inputs": [("float64", [3])],
    },
    "diag_band_left_right": {
        "fn": "lambda tf, d: tf.linalg.diag(d, k=(-1, 1), align='LEFT_RIGHT')",
        "inputs": [("float64", [3, 3])],
    },
    "diag_part": {"fn": "lambda tf, x: tf.linalg.diag_part(x)", "inputs": [("float64", [2, 3, 4])]},
    "diag_part_band": {
        "fn": "lambda tf, x: tf.linalg.diag_part(x, k=(-1, 2), align='RIGHT_RIGHT')",
        "inputs": [("float64", [4, 4])],
    },
    "diag_part_dynamic": {
        "fn": f"lambda tf, x: tf.linalg.diag_part({_dyn('x', '[None, None]')}, k=1)",
        "inputs": [("float64", [3, 4])],
    },
    "trace": {"fn": "lambda tf, x: tf.linalg.trace(x)", "inputs": [("float64", [2, 3, 3])]},
    "set_diag": {
        "fn": "lambda tf, x, d: tf.linalg.set_diag(x, d)",
        "inputs": [("float64", [2, 3, 4]), ("float64", [2, 3])],
    },
    "set_diag_band": {
        "fn": "lambda tf, x, d: tf.linalg.set_diag(x, d, k=(-1, 1), align='LEFT_LEFT')",
        "inputs": [("float64", [3, 3]), ("float64", [3, 3])],
    },
    "set_diag_dynamic": {
        "fn": f"lambda tf, x, d: tf.linalg.set_diag(x, {_dyn('d', '[None, None]')}, k=(0, 1))",
        "inputs": [("float64", [3, 4]), ("float64", [2, 3])],
    },
    "set_diag_second_order": {
        "fn": "lambda tf, x, d: tf.square(tf.linalg.set_diag(x, d * d))",
        "inputs": [("float64", [3, 3]), ("float64", [3])],
        "second_order": True,
    },
}
