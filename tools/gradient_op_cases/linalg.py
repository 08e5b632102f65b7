"""Backward ops of linalg gradients: MatrixTriangularSolve (Cholesky's, Qr's) and MatrixSetDiagV3 (Cholesky's,
Svd's, SelfAdjointEigV2's)."""

from __future__ import annotations

import numpy as np

OPS = ["MatrixTriangularSolve", "MatrixSetDiagV3"]


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    U = None  # noqa: N806

    def tri(shape, dt):  # well-conditioned: a dominant diagonal, the other triangle junk the kernel must ignore
        a = rnd(shape, dt)
        n = shape[-1]
        return (a + (n + 1) * np.eye(n)).astype(dt)

    for dt in (np.float32, np.float64):
        for lower in (True, False):
            for adjoint in (False, True):
                kernel_case("MatrixTriangularSolve", tri((4, 4), dt), rnd((4, 3), dt), lower=lower, adjoint=adjoint)
                kernel_case("MatrixTriangularSolve", tri((2, 3, 3), dt), rnd((2, 3, 2), dt), lower=lower,
                            adjoint=adjoint)  # fmt: skip
        kernel_case("MatrixTriangularSolve", tri((3, 3), dt), rnd((2, 1, 3, 2), dt))  # broadcast batch dims
        kernel_case("MatrixTriangularSolve", tri((2, 1, 3, 3), dt), rnd((4, 3, 1), dt), lower=False)
    kernel_case("MatrixTriangularSolve", tri((3, 3), np.complex128), rnd((3, 2), np.complex128), adjoint=True)
    kernel_case("MatrixTriangularSolve", np.asarray([[0.0, 0.0], [1.0, 2.0]], np.float32), np.ones((2, 1), np.float32))
    kernel_case("MatrixTriangularSolve", rnd((0, 3, 3)), rnd((0, 3, 2)))
    kernel_case("MatrixTriangularSolve", rnd((3, 3)), rnd((3, 0)))
    kernel_case("MatrixTriangularSolve", rnd((2, 3)), rnd((2, 1)))
    kernel_case("MatrixTriangularSolve", rnd((2, 2)), rnd((3, 1)))
    kernel_case("MatrixTriangularSolve", rnd((3, 2, 2)), rnd((2, 2, 1)))
    kernel_case("MatrixTriangularSolve", rnd((2,)), rnd((2, 1)))
    kernel_case("MatrixTriangularSolve", rnd((2, 2)), rnd((2,)))
    for a, b in (
        ([3, 3], [3, 2]),
        ([U, 3, 3], [2, 3, 4]),
        ([2, 1, 3, 3], [4, 3, 1]),
        (None, [3, 2]),
        ([3, 3], [2]),
        ([2, 3], [2, 2]),
        ([3, 3], [4, 2]),
        ([2, 3, 3], [3, 3, 1]),
        ([U, U], [U, 5]),
    ):
        shape_case("MatrixTriangularSolve", P(a), P(b))

    x = rnd((2, 3, 4))
    for k, diag_shape in ((0, (2, 3)), (1, (2, 3)), (-1, (2, 2)), ([-1, 1], (2, 3, 3)), ([0, 2], (2, 3, 3)),
                          ([-2, 0], (2, 3, 3)), ([1, 3], (2, 3, 3))):  # fmt: skip
        for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
            kernel_case("MatrixSetDiagV3", x, rnd(diag_shape), np.array(k, np.int32), align=align)
    for dt in (np.float64, np.int32, np.bool_, np.complex64, np.float16):
        kernel_case("MatrixSetDiagV3", rnd((3, 3), dt) if dt != np.bool_ else np.zeros((3, 3), bool),
                    rnd((3,), dt) if dt != np.bool_ else np.ones(3, bool), np.array(0, np.int32))  # fmt: skip
    kernel_case("MatrixSetDiagV3", x, rnd((2, 3)), np.array(4, np.int32))  # out of bound
    kernel_case("MatrixSetDiagV3", x, rnd((2, 3)), np.array([1, 0], np.int32))  # lower > upper
    kernel_case("MatrixSetDiagV3", x, rnd((2, 4)), np.array(0, np.int32))  # wrong diagonal length
    kernel_case("MatrixSetDiagV3", x, rnd((2, 2, 3)), np.array([0, 2], np.int32))  # wrong number of diagonals
    kernel_case("MatrixSetDiagV3", x, rnd((2, 3)), np.array([[0]], np.int32))
    kernel_case("MatrixSetDiagV3", x, rnd((2, 3)), np.array([0, 1, 2], np.int32))
    kernel_case("MatrixSetDiagV3", rnd((3,)), rnd((3,)), np.array(0, np.int32))
    kernel_case("MatrixSetDiagV3", rnd((2, 0, 3)), rnd((2, 0)), np.array(0, np.int32))
    for s, d, k in (([2, 3, 4], [2, 3], C(0)), ([U, 3, 4], [2, 3], C(0)), ([U, U, U], [2, 3, 3], C([-1, 1])),
                    (None, [2, 3], C(0)), ([U, 3, 4], None, C(0)), ([2, 3, 4], [2, 3], P([2], "int32")),
                    ([U, 3, 4], [2, 3, 3], P([2], "int32")), ([3, 4], [3], C(5)), ([3, 4], [3], C([1, 0])),
                    ([3], [3], C(0)), ([3, 4], [], C(0)), ([3, 4], [3], C([[0]]))):  # fmt: skip
        shape_case("MatrixSetDiagV3", P(s), P(d), k)
