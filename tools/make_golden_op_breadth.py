"""Record TensorFlow's OpDefs, CPU kernel constraints, shape inference and kernel results for the op-breadth ops.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_op_breadth.py

The ops that real models and the public API need beyond the starter set (issue 13:
Einsum, BatchMatMulV3, the linalg, image, scatter/gather, segment, scan, sort and
string ops, ...). Writes under ``tests/golden/op_breadth/``:

- ``op_defs.pbtxt``: TF's OpDefs (docs dropped), read by ``tests/ops/test_op_defs.py``;
- ``cpu_kernel_constraints.json``: TF's CPU KernelDefs per op (the format of
  ``tests/golden/tf_cpu_kernel_constraints.json``), read by ``tests/runtime/test_cpu_kernels_registered.py``;
- ``shape_cases.json``: TF's static shapes (or shape errors) over partial shapes and constant inputs,
  made with ``tools/make_golden_shape_cases.py``'s machinery, read by ``tests/ops/test_golden_shapes.py``;
- ``kernels/``: kernel cases run eagerly on TF's CPU, made with ``tools/make_golden_kernel_cases.py``'s
  writer, read by ``tests/kernels/test_golden_kernels.py``.

It is deterministic (seeded inputs): running it again gives the same files.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_kernel_cases as kernel_gen  # noqa: E402
import make_golden_shape_cases as shape_gen  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2, types_pb2  # noqa: E402
from tensorflow.python.framework import kernels, op_def_registry  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "op_breadth"
GENERATOR = "tools/make_golden_op_breadth.py"  # make_golden_gradient_ops.py reuses this module with its own
RNG = np.random.default_rng(20260513)

OPS = [
    # transformers and keras.applications
    "Einsum", "BatchMatMulV3",
    # linalg
    "MatrixInverse", "MatrixDeterminant", "Cholesky", "MatrixSolve", "Qr", "Svd", "SelfAdjointEigV2",
    "MatrixDiagV3", "MatrixDiagPartV3", "MatrixBandPart",
    # image models
    "ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea", "FusedBatchNorm", "FusedBatchNormV3",
    # gather, scatter, broadcast, reverse
    "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "BroadcastTo", "ReverseV2",
    # ordering, clipping, segments, scans
    "TopKV2", "Unique", "ClipByValue", "SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin",
    "UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin", "Cumsum", "Cumprod",
    # strings
    "StringSplitV2", "StringJoin", "StringLength", "RegexReplace", "StaticRegexReplace", "StringToHashBucketFast",
    "Substr", "StringToNumber", "StringLower", "StringUpper",
    # tf.image's pixel functions (tools/make_golden_image_ops.py)
    "AdjustContrastv2",
    # tf.math / tf.nn special functions and safe divisions (tools/make_golden_namespace_math.py)
    "DivNoNan", "Xdivy", "Xlogy", "Xlog1py", "IsNan", "IsInf", "Lgamma", "Digamma", "Erfinv", "Ndtri",
    "Selu", "SeluGrad", "Softsign", "SoftsignGrad",
    # tf.linspace, roll, searchsorted, histogram_fixed_width, unravel_index, math.in_top_k, math.bincount
    "LinSpace", "Roll", "LowerBound", "UpperBound", "HistogramFixedWidth", "UnravelIndex", "InTopKV2", "DenseBincount",
    "Bincount",
    # tf.linspace's broadcast_dynamic_shape
    "BroadcastArgs",
    # tf.nn.space_to_depth/depth_to_space, tf.linalg.cross, slogdet, tf.math.cumulative_logsumexp
    "SpaceToDepth", "DepthToSpace", "Cross", "LogMatrixDeterminant", "CumulativeLogsumexp",
    # tf.space_to_batch_nd, tf.batch_to_space
    "SpaceToBatchND", "BatchToSpaceND",
    # tf.nn.local_response_normalization
    "LRN", "LRNGrad",
    # tf.math.reduce_euclidean_norm
    "EuclideanNorm",
]  # fmt: skip
# Ops whose OpDef is in the starter fixture (tests/golden/tf_op_defs.pbtxt) but whose kernels came later.
KERNEL_ONLY = ["Split", "SplitV", "ShapeN"]

U = None
P, C = shape_gen.P, shape_gen.C
F, F64, I32, I64 = "float32", "float64", "int32", "int64"
SHAPE_CASES: list[dict] = []
KERNEL_CASES: list[dict] = []


def begin(out: Path, generator: str, ops: list[str]) -> None:
    """Point this module's writers at another golden folder (``out``/ops) for ``ops``: the generators of other
    golden sets reuse its OpDef, constraint, shape and kernel writers this way."""
    global OUT, GENERATOR, OPS, KERNEL_ONLY
    OUT = out
    OUT.mkdir(parents=True, exist_ok=True)
    GENERATOR, OPS, KERNEL_ONLY = generator, list(ops), []
    SHAPE_CASES.clear()
    KERNEL_CASES.clear()


def bytes_scalar(data: bytes) -> np.ndarray:
    """A string-tensor scalar for a kernel case; npz keeps strings as fixed-width bytes, which drop trailing NULs."""
    assert data[-1:] != b"\x00", "npz would drop the trailing NUL"
    return np.array(data, dtype=object)


def shape_case(op: str, *inputs, **attrs) -> None:
    """A shape case: inputs as P(shape, dtype) placeholders or C(value, dtype) constants, attrs by OpDef name."""
    SHAPE_CASES.append({"op": op, "inputs": list(inputs), "attrs": attrs})


def kernel_case(op: str, *inputs, check: str | None = None, output_shapes: dict | None = None, **attrs) -> None:
    """A kernel case: numpy inputs (a list for a list arg), attrs by OpDef name.

    ``check`` tells the test how to compare where exact comparison cannot work: "up_to_sign" (decomposition
    vectors, signed differently by LAPACK and Eigen), "values_of_outputs:0,2" (TF leaves the other outputs
    uninitialized or fills them with implementation data: only their dtype and shape count),
    "message_up_to:<text>" (an error message compared up to and including ``<text>``).
    """
    case = {"op": op, "inputs": list(inputs), "attrs": attrs, "deviation": None, "check": check}
    if output_shapes:
        case["output_shapes"] = output_shapes
    KERNEL_CASES.append(case)


def rnd(shape, dtype=np.float32, scale=1.0) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.integer):
        return RNG.integers(-9, 10, size=shape).astype(dtype)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype) * scale
    return (RNG.standard_normal(shape) * scale).astype(dtype)


# =========================================================================== Einsum, BatchMatMulV3

# Every equation form Keras 3 emits (EinsumDense and MultiHeadAttention), plus TF's other forms.
EINSUM_FORMS = [
    ("abc,cde->abde", [(2, 3, 4), (4, 5, 6)]),  # MHA query/key/value projections
    ("abcd,cde->abe", [(2, 3, 5, 6), (5, 6, 4)]),  # MHA output projection
    ("BTNH,BSNH->BNTS", [(2, 3, 4, 5), (2, 6, 4, 5)]),  # attention scores
    ("BNTS,BSNH->BTNH", [(2, 4, 3, 6), (2, 6, 4, 5)]),  # attention-weighted values
    ("aecd,abcd->acbe", [(2, 3, 4, 5), (2, 6, 4, 5)]),  # Keras 2 MHA scores
    ("acbe,aecd->abcd", [(2, 4, 6, 3), (2, 3, 4, 5)]),  # Keras 2 MHA values
    ("ab,bc->ac", [(3, 4), (4, 5)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("...b,bc->...c", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(3, 1, 2, 4), (5, 4, 2)]),  # broadcast batch dims
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii->", [(4, 4)]),
    ("bii->bi", [(2, 3, 3)]),
    ("ab,cd->", [(2, 3), (4, 5)]),
    ("abc,bd->adc", [(2, 3, 4), (3, 5)]),
    ("a...,a...->...", [(3, 2, 4), (3, 1, 4)]),
]


def einsum_cases() -> None:
    for equation, shapes in EINSUM_FORMS:
        kernel_case("Einsum", [rnd(s) for s in shapes], equation=equation)
        shape_case("Einsum", [P(list(s)) for s in shapes], equation=equation)
    for dt in (np.float64, np.int32, np.int64, np.float16, np.complex64):
        kernel_case("Einsum", [rnd((2, 3, 4), dt), rnd((4, 5), dt)], equation="abc,cd->abd")
    kernel_case("Einsum", [rnd((2, 3)), rnd((4, 5))], equation="ab,bc->ac")  # mismatched contraction
    kernel_case("Einsum", [rnd((0, 3)), rnd((3, 5))], equation="ab,bc->ac")
    kernel_case("Einsum", [rnd((2, 3, 4, 8)), rnd((2, 5, 4, 8))], equation="BTNH,BSNH->BNTS")
    # shapes: partial and unknown
    shape_case("Einsum", [P([U, U, 4]), P([4, 5, 6])], equation="abc,cde->abde")
    shape_case("Einsum", [P(None), P([4, 5])], equation="abc,cd->abd")
    shape_case("Einsum", [P([U, 3, 4]), P([2, 4, 5])], equation="...ij,...jk->...ik")
    shape_case("Einsum", [P(None), P([4, 5])], equation="...j,jk->...k")
    shape_case("Einsum", [P([2, 3]), P([4, 5])], equation="ab,bc->ac")  # incompatible
    shape_case("Einsum", [P([2, 3, 4])], equation="ab->a")  # rank mismatch
    shape_case("Einsum", [P([2, 3]), P([3, 5])], equation="ab,bc->ad")  # unknown output label
    shape_case("Einsum", [P([2, 3]), P([3, 5])], equation="ab,bc")  # no arrow
    shape_case("Einsum", [P([2, 3, 4]), P([3, 4])], equation="...b,bc->c")  # bcast dims dropped
    shape_case("Einsum", [P([2, 3]), P([3, 5]), P([5])], equation="ab,bc,c->a")
    shape_case("Einsum", [P([2, 3])], equation="a..b->a")


def batch_matmul_v3_cases() -> None:
    for ta, tb, tout in ((np.float32,) * 3, (np.float64,) * 3, (np.int32,) * 3, (np.int8, np.int8, np.int32),
                         (np.uint8, np.int8, np.int32), (np.int64,) * 3):  # fmt: skip
        kernel_case("BatchMatMulV3", rnd((2, 3, 4), ta), rnd((4, 5), tb), Tout=tout)
    kernel_case("BatchMatMulV3", rnd((2, 4, 3)), rnd((1, 5, 4)), Tout=np.float32, adj_x=True, adj_y=True)
    kernel_case("BatchMatMulV3", rnd((2, 3, 4)), rnd((3, 5, 4)), Tout=np.float32)
    shape_case("BatchMatMulV3", P([U, 3, 4], "int8"), P([4, 5], "int8"), Tout=tf.int32)
    shape_case("BatchMatMulV3", P([2, 4, 3]), P([3, 5, 4]), Tout=tf.float32, adj_x=True, adj_y=True)
    shape_case("BatchMatMulV3", P([2, 3, 4]), P([3, 5, 4]), Tout=tf.float32)
    shape_case("BatchMatMulV3", P(None), P([4, 5]), Tout=tf.float32)


# =========================================================================== linalg


def _spd(n: int, batch=()) -> np.ndarray:
    a = rnd((*batch, n, n), np.float64)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def linalg_cases() -> None:
    for dt in (np.float32, np.float64):
        m = (_spd(3, (2,)) + rnd((2, 3, 3), np.float64)).astype(dt)
        kernel_case("MatrixInverse", m)
        kernel_case("MatrixInverse", m, adjoint=True)
        kernel_case("MatrixDeterminant", m)
        kernel_case("Cholesky", _spd(4, (2,)).astype(dt))
        kernel_case("MatrixSolve", m, rnd((2, 3, 2), dt))
        kernel_case("MatrixSolve", m, rnd((2, 3, 2), dt), adjoint=True)
        for shape in ((4, 3), (3, 4), (2, 3, 3)):
            x = rnd(shape, dt)
            kernel_case("Qr", x, check="up_to_sign")
            kernel_case("Qr", x, full_matrices=True, check="up_to_sign")
            kernel_case("Svd", x, check="up_to_sign")
            kernel_case("Svd", x, full_matrices=True, check="up_to_sign")
            kernel_case("Svd", x, compute_uv=False, check="values_of_outputs:0")  # TF's u, v: uninitialized scalars
        kernel_case("SelfAdjointEigV2", _spd(4, (2,)).astype(dt), check="up_to_sign")
        kernel_case("SelfAdjointEigV2", _spd(3).astype(dt), compute_v=False, check="values_of_outputs:0")
    kernel_case("MatrixInverse", rnd((3, 3), np.float16))
    kernel_case("MatrixInverse", np.zeros((2, 2), np.float32))  # singular
    kernel_case("MatrixInverse", rnd((2, 3)))
    kernel_case("MatrixInverse", rnd((3,)))
    kernel_case("MatrixInverse", rnd((0, 3, 3)))
    kernel_case("MatrixDeterminant", np.zeros((2, 2), np.float32))
    kernel_case("MatrixDeterminant", rnd((2, 0, 0)))
    kernel_case("MatrixDeterminant", rnd((2, 2), np.complex64))
    kernel_case("Cholesky", np.array([[4.0, 99.0], [2.0, 5.0]], np.float32))  # upper triangle ignored
    kernel_case("MatrixSolve", np.zeros((2, 2), np.float32), rnd((2, 1)))  # singular
    kernel_case("MatrixSolve", rnd((3, 3)), rnd((2, 1)))
    # diagonals and bands
    x = rnd((2, 3, 4))
    for k in (0, 1, -1, [-1, 1], [0, 2], [-2, 0], [1, 3]):
        for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
            kernel_case("MatrixDiagPartV3", x, np.array(k, np.int32), np.float32(-1), align=align)
    kernel_case("MatrixDiagPartV3", x, np.array(4, np.int32), np.float32(0))  # out of bound
    kernel_case("MatrixDiagPartV3", x, np.array([1, 0], np.int32), np.float32(0))  # lower > upper
    kernel_case("MatrixDiagPartV3", rnd((3, 3), np.int32), np.array(0, np.int32), np.int32(0))
    for diag, k, rows, cols in ((rnd((2, 3)), 0, -1, -1), (rnd((3,)), 1, -1, -1), (rnd((3,)), -1, 5, -1),
                                (rnd((3,)), 0, 3, 5), (rnd((2, 3, 3)), [-1, 1], -1, -1),
                                (rnd((2, 2)), [0, 1], 3, 3), (rnd((3,)), 0, 2, 2)):  # fmt: skip
        for align in ("RIGHT_LEFT", "LEFT_RIGHT"):
            kernel_case("MatrixDiagV3", diag, np.array(k, np.int32), np.int32(rows), np.int32(cols),
                        np.float32(9), align=align)  # fmt: skip
    kernel_case("MatrixDiagV3", np.array([True, False]), np.int32(0), np.int32(-1), np.int32(-1), np.bool_(False))
    for lo, up in ((0, -1), (-1, 0), (1, 1), (0, 0), (-1, -1), (2, 0), (5, 0)):
        kernel_case("MatrixBandPart", rnd((2, 4, 4)), np.int64(lo), np.int64(up))
    kernel_case("MatrixBandPart", rnd((3, 5), np.int32), np.int32(1), np.int32(2))
    kernel_case("MatrixBandPart", rnd((3,)), np.int64(1), np.int64(2))

    # shapes
    for op in ("MatrixInverse", "Cholesky", "MatrixDeterminant"):
        for s in ([3, 3], [2, U, 3], [U, U], None, [2, 3], [3]):
            shape_case(op, P(s))
    for a, b in (([3, 3], [3, 2]), ([U, 3, 3], [2, 3, 4]), ([2, 3, 3], [2, 4, 1]), (None, [3, 2]), ([3, 3], [2])):
        shape_case("MatrixSolve", P(a), P(b))
    for s in ([4, 3], [3, 4], [2, U, 5], None, [3]):
        for full in (False, True):
            shape_case("Qr", P(s), full_matrices=full)
            shape_case("Svd", P(s), full_matrices=full)
        shape_case("Svd", P(s), compute_uv=False)
    for s in ([3, 3], [2, U, 4], None, [2, 3]):
        shape_case("SelfAdjointEigV2", P(s))
        shape_case("SelfAdjointEigV2", P(s), compute_v=False)
    for s, k in (([2, 3, 4], 0), ([2, 3, 4], [-1, 1]), ([U, 3, 4], 1), ([2, U, 4], [0, 2]), (None, 0),
                 ([3, 4], 5), ([3, 4], [1, 0]), ([3], 0)):  # fmt: skip
        shape_case("MatrixDiagPartV3", P(s), C(k), C(0.0, F))
    shape_case("MatrixDiagPartV3", P([3, 4]), P([2], I32), C(0.0, F))
    for s, k, rows, cols in (([2, 3], 0, -1, -1), ([3], 1, -1, -1), ([3], -1, 5, -1), ([3], 0, 3, 5),
                             ([2, 3, 3], [-1, 1], -1, -1), ([2, 2], [0, 1], 3, 3), ([U, 3], 0, -1, -1),
                             ([3], 0, 2, 2), ([3], 0, 4, 5), ([2, 3], [-1, 1], -1, -1), (None, 0, -1, -1)):  # fmt: skip
        shape_case("MatrixDiagV3", P(s), C(k), C(rows), C(cols), C(0.0, F))
    shape_case("MatrixDiagV3", P([3]), C(0), P([], I32), P([], I32), C(0.0, F))
    for s in ([3, 4], [2, U, U], None, [3]):
        shape_case("MatrixBandPart", P(s), C(1, I64), C(-1, I64))


# =========================================================================== image models


def image_cases() -> None:
    img = rnd((2, 5, 7, 3))
    sizes = ([10, 14], [3, 4], [5, 7], [8, 3], [1, 1])
    for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"):
        for size in sizes:
            for align, half in ((False, False), (True, False), (False, True)):
                kernel_case(op, img, np.array(size, np.int32), align_corners=align, half_pixel_centers=half)
        for dt in (np.float64, np.int32, np.uint8, np.float16):
            x = rnd((1, 4, 4, 2), dt) if dt != np.uint8 else RNG.integers(0, 255, (1, 4, 4, 2)).astype(np.uint8)
            kernel_case(op, x, np.array([7, 3], np.int32), half_pixel_centers=True)
        kernel_case(op, img, np.array([4, 4], np.int32), align_corners=True, half_pixel_centers=True)
        kernel_case(op, img, np.array([0, 4], np.int32))
        kernel_case(op, rnd((5, 7, 3)), np.array([4, 4], np.int32))
        kernel_case(op, img, np.array([4, 4, 4], np.int32))
    for size in sizes:
        for align in (False, True):
            kernel_case("ResizeArea", img, np.array(size, np.int32), align_corners=align)
    kernel_case("ResizeArea", RNG.integers(0, 255, (1, 6, 6, 1)).astype(np.uint8), np.array([4, 4], np.int32))
    # align_corners on a 1-pixel axis: TF's scale falls back to in/out there (no zero scale)
    one_pixel = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3)
    for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"):
        kernel_case(op, one_pixel, np.array([3, 2], np.int32), align_corners=True)
    for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"):
        shape_case(op, P([2, 5, 7, 3]), C([10, 14]))
        shape_case(op, P([U, U, U, 3]), C([4, 4]))
        shape_case(op, P([2, 5, 7, 3]), P([2], I32))
        shape_case(op, P(None), C([4, 4]))
        shape_case(op, P([5, 7, 3]), C([4, 4]))
        shape_case(op, P([2, 5, 7, 3]), C([4, 4, 4]))


def batch_norm_cases() -> None:
    x = rnd((2, 3, 4, 5)) * 2 + 1
    stats = [rnd((5,)) * 0.1 + 1, rnd((5,)) * 0.1, rnd((5,)) * 0.1, np.abs(rnd((5,))) + 0.5]
    for op in ("FusedBatchNorm", "FusedBatchNormV3"):
        # FusedBatchNormV3's reserve_space_3 (never read) is a scalar from the Eigen kernel this generator runs
        # (oneDNN off, for exact numerics) but shape [0] from TF's default CPU build (oneDNN on): recorded as [0].
        reserve = {5: (0,)} if op == "FusedBatchNormV3" else None
        values = "values_of_outputs:0,1,2"
        kernel_case(op, x, *stats, is_training=False, epsilon=0.001, check=values, output_shapes=reserve)
        kernel_case(op, x, *stats, is_training=True, check=values, output_shapes=reserve)
        kernel_case(op, x, *stats, is_training=True, exponential_avg_factor=0.3, check=values, output_shapes=reserve)
        xc = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        kernel_case(op, xc, *stats, is_training=False, data_format="NCHW", check=values, output_shapes=reserve)
        kernel_case(op, x, *[v[:4] for v in stats], is_training=False)
        shape_case(op, P([2, 3, 4, 5]), P([5]), P([5]), P([5]), P([5]), is_training=False)
        shape_case(op, P([U, U, U, U]), P([5]), P([U]), P([0]), P([0]), is_training=True)
        shape_case(op, P([2, 5, 3, 4]), P([5]), P([5]), P([5]), P([5]), data_format="NCHW")
        shape_case(op, P([2, 3, 4, 5]), P([4]), P([5]), P([5]), P([5]), is_training=False)
        shape_case(op, P([2, 3, 5]), P([5]), P([5]), P([5]), P([5]))
        shape_case(op, P(None), P([5]), P([5]), P([5]), P([5]), is_training=False)
    kernel_case("FusedBatchNormV3", x.astype(np.float16), *stats, is_training=False, check="values_of_outputs:0,1,2",
                output_shapes={5: (0,)})
    shape_case("FusedBatchNormV3", P([2, 3, 4, 5, 6]), P([6]), P([6]), P([6]), P([6]), data_format="NDHWC")


# =========================================================================== gather, scatter, broadcast, reverse


def indexing_cases() -> None:
    params = rnd((4, 3, 2))
    for idx in ([[1], [3]], [[1, 2], [0, 0]], [[1, 2, 1]], [[[0, 1]], [[3, 2]]], np.zeros((0, 1)), [[4, 0]],
                [[-1, 0]]):  # fmt: skip
        for it in (np.int32, np.int64):
            kernel_case("GatherNd", params, np.array(idx, it))
    kernel_case("GatherNd", np.array([b"a", b"bc", b"d"], object), np.array([[2], [0]], np.int32))
    kernel_case("GatherNd", params, np.zeros((2, 0), np.int32))
    for shape in ([4, 3, 2], [U, 3, 2], None):
        for ishape in ([5, 2], [U, 1], [2, 3, 3], [2, 4], [U, U]):
            shape_case("GatherNd", P(shape), P(ishape, I32))
    # ScatterNd and TensorScatter*
    kernel_case("ScatterNd", np.array([[1], [3], [1]], np.int32), rnd((3, 2)), np.array([5, 2], np.int32))
    kernel_case("ScatterNd", np.array([[0, 1], [2, 0]], np.int64), rnd((2,)), np.array([3, 2], np.int64))
    kernel_case("ScatterNd", np.array([[5]], np.int32), rnd((1, 2)), np.array([5, 2], np.int32))
    kernel_case("ScatterNd", np.array([[1]], np.int32), rnd((2, 2)), np.array([5, 2], np.int32))
    kernel_case("ScatterNd", np.array([[1], [1]], np.int32), rnd((2,), np.int32), np.array([3], np.int32))
    t = rnd((4, 3))
    for op in ("TensorScatterUpdate", "TensorScatterAdd"):
        kernel_case(op, t, np.array([[1], [3]], np.int32), rnd((2, 3)))
        kernel_case(op, t, np.array([[1, 2], [0, 0], [1, 2]], np.int64), rnd((3,)))
        kernel_case(op, t, np.array([[4]], np.int32), rnd((1, 3)))
        kernel_case(op, rnd((4, 3), np.int32), np.array([[2]], np.int32), rnd((1, 3), np.int32))
        shape_case(op, P([4, 3]), P([2, 1], I32), P([2, 3]))
        shape_case(op, P([4, 3]), P([2, 1], I32), P([2, 4]))
        shape_case(op, P([4, 3]), P([2, 1], I32), P([3, 3]))
        shape_case(op, P([U, 3]), P([U, 2], I32), P([U]))
        shape_case(op, P(None), P([2, 1], I32), P([2, 3]))
    for shape in ([5, 2], [U, 2]):
        shape_case("ScatterNd", P([3, 1], I32), P([3, 2]), C(shape if None not in shape else [5, 2]))
    shape_case("ScatterNd", P([3, 1], I32), P([3, 2]), P([2], I32))
    shape_case("ScatterNd", P([3, 1], I32), P([2, 2]), C([5, 2]))
    shape_case("ScatterNd", P([3, 1], I32), P([3, 2]), C([0, 2]))
    # BroadcastTo
    for x, shape in ((rnd((3,)), [2, 3]), (rnd((2, 1)), [2, 4]), (rnd(()), [2, 2]), (rnd((1, 3)), [4, 1, 3]),
                     (rnd((2, 3)), [3, 3]), (rnd((2, 3)), [3]), (np.array([True]), [3])):  # fmt: skip
        kernel_case("BroadcastTo", x, np.array(shape, np.int32))
    kernel_case("BroadcastTo", rnd((3,), np.int64), np.array([2, 3], np.int64))
    for s, shape in (([3], [2, 3]), ([2, 1], [2, 4]), (None, [2, 3]), ([U, 3], [2, 3]), ([2, 3], [3, 3]),
                     ([2, 3], [3])):  # fmt: skip
        shape_case("BroadcastTo", P(s), C(shape))
    shape_case("BroadcastTo", P([3]), P([2], I32))
    # ReverseV2
    x = rnd((2, 3, 4))
    for axes in ([0], [1, 2], [-1], [], [0, 1, 2], [3], [1, -2]):
        kernel_case("ReverseV2", x, np.array(axes, np.int32))
    kernel_case("ReverseV2", np.array([b"a", b"b"], object), np.array([0], np.int64))
    for axes in ([0], [1, 2], [3], [1, -2]):
        shape_case("ReverseV2", P([2, 3, 4]), C(axes))
    shape_case("ReverseV2", P(None), C([0]))
    shape_case("ReverseV2", P([2, 3]), P([1], I32))
    # Split, SplitV (OpDefs and shapes already in the starter fixtures)
    for dim, num in ((0, 2), (1, 3), (-1, 4), (2, 3), (5, 2)):
        kernel_case("Split", np.int32(dim), x, num_split=num)
    for sizes, dim in (([1, 1], 0), ([1, -1], 1), ([2, 2], 2), ([3, 3], 2), ([-1, -1], 0), ([1, 2, 1], -1)):
        kernel_case("SplitV", x, np.array(sizes, np.int64), np.int32(dim), num_split=len(sizes))
    kernel_case("SplitV", x, np.array([1, 2], np.int32), np.int32(1), num_split=2)


# =========================================================================== ordering, clipping, segments, scans


def sort_cases() -> None:
    x = rnd((3, 6))
    ties = np.array([[1, 3, 3, 2, 3, 0]], np.float32)
    for k in (0, 1, 3, 6):
        kernel_case("TopKV2", x, np.int32(k))
    kernel_case("TopKV2", ties, np.int32(4))
    kernel_case("TopKV2", x, np.int32(7))
    kernel_case("TopKV2", x, np.int32(-1))
    kernel_case("TopKV2", rnd((2, 3, 5), np.int32), np.int64(2), index_type=np.int64)
    kernel_case("TopKV2", RNG.integers(0, 9, (8,)).astype(np.uint8), np.int32(3))
    kernel_case("TopKV2", rnd((4,), np.float64), np.int16(2), index_type=np.int16)
    kernel_case("TopKV2", np.array([1.0, 3.0, -np.inf, np.inf], np.float32), np.int32(4))  # (NaN order: TF's sort's)
    for s in ([3, 6], [U, U], None, [3, 2]):
        shape_case("TopKV2", P(s), C(3))
    shape_case("TopKV2", P([3, 6]), P([], I32))
    shape_case("TopKV2", P([]), C(1))
    for v in ([4, 1, 4, 2, 1, 7], [], [5]):
        kernel_case("Unique", np.array(v, np.int32))
    kernel_case("Unique", np.array([2.5, -1.0, 2.5, 0.0], np.float32), out_idx=np.int64)
    kernel_case("Unique", np.array([b"b", b"a", b"b", b""], object))
    kernel_case("Unique", np.array([True, True, False]))
    kernel_case("Unique", rnd((2, 2), np.int32))
    for s in ([6], [U], None, [2, 3]):
        shape_case("Unique", P(s, I32))
    t = rnd((3, 4))
    for lo, hi in ((np.float32(-0.5), np.float32(0.5)), (rnd((3, 4)) - 1, rnd((3, 4)) + 1), (np.float32(1), rnd((3,)))):
        kernel_case("ClipByValue", t, lo, hi)
    kernel_case("ClipByValue", rnd((5,), np.int32), np.int32(-2), np.int32(3))
    shape_case("ClipByValue", P([3, U]), P([]), P([]))


def segment_cases() -> None:
    data = rnd((6, 3))
    ids = np.array([0, 0, 1, 3, 3, 3], np.int32)
    for op in ("SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin"):
        kernel_case(op, data, ids)
        kernel_case(op, rnd((6,), np.int32), ids.astype(np.int64))
        kernel_case(op, data, np.array([0, 1, 1, 0, 2, 2], np.int32))  # not sorted
        kernel_case(op, data, np.array([0, 1], np.int32))  # wrong length
        kernel_case(op, rnd((0, 3)), np.zeros((0,), np.int32))
        shape_case(op, P([6, 3]), P([6], I32))
        shape_case(op, P([U, 3, 2]), P([U], I32))
        shape_case(op, P(None), P([6], I32))
        shape_case(op, P([6, 3]), P([6, 1], I32))
    kernel_case("SegmentMean", rnd((4,), np.float16), np.array([0, 0, 2, 2], np.int32))
    uids = np.array([2, 0, -1, 2, 4, 0], np.int32)
    for op in ("UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"):
        kernel_case(op, data, uids, np.int32(5))
        kernel_case(op, rnd((6,), np.int32), uids, np.int64(6))
        kernel_case(op, rnd((2, 3, 2)), np.array([[0, 1, 1], [2, 0, 1]], np.int64), np.int32(3))
        kernel_case(op, data, uids, np.int32(3))  # id out of range
        kernel_case(op, data, uids[:4], np.int32(5))  # shape mismatch
        shape_case(op, P([6, 3]), P([6], I32), C(5))
        shape_case(op, P([2, 3, 4]), P([2, 3], I32), C(7, I64))
        shape_case(op, P([6, 3]), P([6], I32), P([], I32))
        shape_case(op, P([6, 3]), P(None, I32), C(5))
        shape_case(op, P([6, 3]), P([5], I32), C(5))
    x = rnd((3, 4))
    for op in ("Cumsum", "Cumprod"):
        for axis in (0, 1, -1):
            for exclusive, reverse in ((False, False), (True, False), (False, True), (True, True)):
                kernel_case(op, x, np.int32(axis), exclusive=exclusive, reverse=reverse)
        kernel_case(op, rnd((5,), np.int32), np.int64(0), exclusive=True)
        kernel_case(op, rnd((5,), np.float64), np.int32(0))
        kernel_case(op, x, np.int32(2))
        kernel_case(op, x, np.array([0], np.int32))
        kernel_case(op, rnd((0, 2)), np.int32(0))
        shape_case(op, P([3, U]), C(1))


# =========================================================================== strings


def S(*values) -> np.ndarray:  # noqa: N802
    """A string tensor (object array of bytes) of the given values (str encoded as UTF-8)."""
    flat = [v.encode() if isinstance(v, str) else v for v in values]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out


def string_cases() -> None:
    text = S("hello world", "  a  b ", "", "one,two,,three", "x", "tab\tsep\nline", "naïve café")
    for sep in ("", " ", ",", "ab"):
        for maxsplit in (-1, 0, 1, 2):
            kernel_case("StringSplitV2", text, np.array(sep.encode(), object), maxsplit=maxsplit)
    kernel_case("StringSplitV2", S("a b").reshape(1, 1), np.array(b" ", object))
    kernel_case("StringSplitV2", text, S(" ", ","))
    shape_case("StringSplitV2", P([U], "string"), P([], "string"))
    shape_case("StringSplitV2", P([2, 3], "string"), P([], "string"))
    shape_case("StringSplitV2", P(None, "string"), P([2], "string"))
    words = S("ab", "c", "")
    kernel_case("StringJoin", [words, S("1", "2", "3")], separator="-")
    kernel_case("StringJoin", [words, np.array(b"!", object)])
    kernel_case("StringJoin", [np.array(b"a", object), np.array(b"b", object)], separator=", ")
    kernel_case("StringJoin", [S("a", "b").reshape(2, 1), S("c", "d").reshape(2, 1)])
    kernel_case("StringJoin", [words, S("1", "2")])
    for shapes in (([], []), ([3], []), ([U], [3]), (None, [3]), ([2], [3]), (None, None)):
        shape_case("StringJoin", [P(s, "string") for s in shapes])
    for unit in ("BYTE", "UTF8_CHAR"):
        kernel_case("StringLength", text, unit=unit)
        kernel_case("StringLength", S("€", "a€b", "\x80x").reshape(3, 1), unit=unit)
    shape_case("StringLength", P([2, U], "string"))
    for pattern, rewrite, glob in (("o", "0", True), ("o", "0", False), ("[aeiou]+", "<\\0>", True),
                                   ("(\\w+) (\\w+)", "\\2 \\1", True), ("x*", "-", True), ("^\\s+|\\s+$", "", True),
                                   ("é", "e", True), (".", "_", True)):  # fmt: skip
        kernel_case("RegexReplace", text, np.array(pattern.encode(), object), np.array(rewrite.encode(), object),
                    replace_global=glob)  # fmt: skip
        kernel_case("StaticRegexReplace", text, pattern=pattern, rewrite=rewrite, replace_global=glob)
    # RE2's parse errors are worded differently from Python's re: the message is compared up to "error: "
    kernel_case("RegexReplace", text, np.array(b"(", object), np.array(b"x", object), check="message_up_to:error: ")
    kernel_case("StaticRegexReplace", text, pattern="(a)", rewrite="\\2")
    shape_case("RegexReplace", P([2, U], "string"), P([], "string"), P([], "string"))
    shape_case("RegexReplace", P([2], "string"), P([1], "string"), P([], "string"))
    shape_case("StaticRegexReplace", P([2, U], "string"), pattern="a", rewrite="b")
    long_strings = S(*[bytes((i * 7 + j * 13) % 256 for j in range(n)) for i, n in enumerate(
        [0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 300])])  # fmt: skip
    for buckets in (1, 10, 1000003, 2**62):
        kernel_case("StringToHashBucketFast", long_strings, num_buckets=buckets)
    kernel_case("StringToHashBucketFast", text.reshape(7, 1), num_buckets=97)
    shape_case("StringToHashBucketFast", P([U, 2], "string"), num_buckets=5)
    for unit in ("BYTE", "UTF8_CHAR"):
        kernel_case("Substr", S("hello", "naïve", "ab"), np.array([1, 1, 0], np.int32), np.array([3, 3, 5], np.int32),
                    unit=unit)  # fmt: skip
        kernel_case("Substr", S("hello", "naïve"), np.int64(-3), np.int64(2), unit=unit)
        kernel_case("Substr", S("hello", "ab"), np.int32(3), np.int32(1), unit=unit)
    kernel_case("Substr", S("hello", "ab").reshape(2, 1), np.array([0, 1, 2], np.int32), np.array([1, 2, 3], np.int32))
    kernel_case("Substr", S("hello"), np.array([0, 1], np.int32), np.array([1], np.int32))
    shape_case("Substr", P([2, U], "string"), P([], I32), P([], I32))
    shape_case("Substr", P([2, 3], "string"), P([3], I32), P([3], I32))
    shape_case("Substr", P([2], "string"), P([2], I32), P([3], I32))
    numbers = S("1.5", "-2", "3e2", " 7 ", "inf", "-0.0", "0x10")
    for dtype in (np.float32, np.float64):
        kernel_case("StringToNumber", numbers[:-1], out_type=dtype)
    kernel_case("StringToNumber", S("12", "-7", " 3", "+4"), out_type=np.int32)
    kernel_case("StringToNumber", S("12", "99999999999"), out_type=np.int64)
    kernel_case("StringToNumber", S("abc"), out_type=np.float32)
    kernel_case("StringToNumber", S("1.5"), out_type=np.int32)
    kernel_case("StringToNumber", S("99999999999"), out_type=np.int32)
    kernel_case("StringToNumber", S("1e40"), out_type=np.float32)
    shape_case("StringToNumber", P([U], "string"), out_type=tf.int64)
    for op in ("StringLower", "StringUpper"):
        kernel_case(op, S("Hello World", "ÀÉÎ àéî", "123"))
        kernel_case(op, S("Hello World", "ÀÉÎ àéî", "123"), encoding="utf-8")
        shape_case(op, P([U, 3], "string"))


def image_adjust_cases() -> None:
    """AdjustContrastv2 and ShapeN (tf.image.adjust_contrast, psnr); their own generator keeps the cases above
    (and their seeded inputs) as they were."""
    rng = np.random.default_rng(20260614)

    def img(shape) -> np.ndarray:
        return rng.random(shape).astype(np.float32)

    for shape, factor in (((2, 5, 7, 3), 1.7), ((4, 4, 1), 0.3), ((1, 1, 1, 2), 2.0), ((2, 2, 3, 4, 2), 0.0),
                          ((1, 9, 13, 3), -1.5), ((3, 1, 5, 1), 1.0)):  # fmt: skip
        kernel_case("AdjustContrastv2", img(shape), np.float32(factor))
    kernel_case("AdjustContrastv2", img((1, 17, 31, 4)) * 255, np.float32(0.6))
    kernel_case("AdjustContrastv2", img((2, 2)), np.float32(1.5))
    kernel_case("AdjustContrastv2", img((2, 2, 2)), np.array([1.5], np.float32))
    shape_case("AdjustContrastv2", P([2, 5, 7, 3]), C(1.5, F))
    shape_case("AdjustContrastv2", P([U, U, 3]), P([], F))
    shape_case("AdjustContrastv2", P(None), C(1.5, F))
    shape_case("AdjustContrastv2", P([2, 2]), C(1.5, F))
    for out_type in (np.int32, np.int64):
        kernel_case("ShapeN", [img((2, 3, 4)), img((5,)), np.float32(1.0)], out_type=out_type)
    kernel_case("ShapeN", [rng.integers(0, 9, (1, 0, 2)).astype(np.uint8)])


def special_math_cases() -> None:
    """DivNoNan, Xdivy, Xlogy, Xlog1py, IsNan, IsInf, Lgamma, Digamma, Erfinv, Ndtri, Selu, Softsign and their
    backward ops (tf.math.divide_no_nan, xlogy, lgamma, ..., tf.nn.selu, softsign); seeded on their own."""
    rng = np.random.default_rng(20260701)

    def r(shape, dtype=np.float32, scale=1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(dtype)

    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -3.5, 1e-30], np.float32)
    for op in ("DivNoNan", "Xdivy", "Xlogy", "Xlog1py"):
        for dtype in (np.float32, np.float64, np.float16):
            kernel_case(op, r((3, 4), dtype), np.abs(r((3, 4), dtype)))
        kernel_case(op, r((2, 1, 3)), r((4, 1)))  # broadcasting
        kernel_case(op, special[:, None], special[None, :])  # zeros, infinities, NaN on both sides
        kernel_case(op, special.astype(np.float64), np.float64(0.0))
        kernel_case(op, (r((3,)) + 1j * r((3,))).astype(np.complex64), np.array([0, 1 + 1j, -2j], np.complex64))
        kernel_case(op, r((2, 3)), r((4,)))  # incompatible shapes
        shape_case(op, P([2, U, 3]), P([U, 1]))
        shape_case(op, P(None), P([3]))
        shape_case(op, P([2, 3]), P([4]))
    for op in ("IsNan", "IsInf"):
        kernel_case(op, special)
        kernel_case(op, special.astype(np.float64).reshape(2, 5))
        kernel_case(op, special.astype(np.float16))
        kernel_case(op, r((0, 3)))
        shape_case(op, P([2, U]))
    grid = np.array([-4.5, -2.5, -1.5, -0.5, -1e-3, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 57.3, 1e3, 1e8,
                     0.0, -1.0, -2.0, np.inf, -np.inf, np.nan], np.float32)  # fmt: skip
    for op in ("Lgamma", "Digamma"):
        for dtype in (np.float32, np.float64, np.float16):
            kernel_case(op, grid.astype(dtype))
        kernel_case(op, np.abs(r((3, 4), np.float64, 5.0)))
        shape_case(op, P([U, 3]))
    unit = np.array([-1.0, -0.999999, -0.9, -0.5, -0.1, -1e-6, 0.0, 1e-6, 0.1, 0.5, 0.9, 0.999999, 1.0,
                     1.5, -2.0, np.nan], np.float64)  # fmt: skip
    prob = np.array([0.0, 1e-300, 1e-20, 1e-5, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-5, 1.0, -0.5, 1.5,
                     np.nan], np.float64)  # fmt: skip
    for op, values in (("Erfinv", unit), ("Ndtri", prob)):
        kernel_case(op, values)
        kernel_case(op, values.astype(np.float32))
        kernel_case(op, rng.uniform(0.0, 1.0, (3, 5)).astype(np.float32))
        shape_case(op, P([U, 3]))
    for op in ("Selu", "Softsign"):
        for dtype in (np.float32, np.float64, np.float16):
            kernel_case(op, r((3, 5), dtype, 3.0))
        kernel_case(op, special)
        shape_case(op, P([2, U]))
    kernel_case("SeluGrad", r((3, 4)), r((3, 4)))
    kernel_case("SeluGrad", r((5,), np.float64), r((5,), np.float64))
    kernel_case("SeluGrad", r((2, 3)), r((3, 2)))
    kernel_case("SoftsignGrad", r((3, 4)), r((3, 4), scale=3.0))
    kernel_case("SoftsignGrad", r((5,), np.float64), r((5,), np.float64))
    kernel_case("SoftsignGrad", r((2, 3)), r((6,)))
    for op in ("SeluGrad", "SoftsignGrad"):
        shape_case(op, P([2, U]), P([U, 3]))
        shape_case(op, P([2, 3]), P([3, 2]))


def sequence_cases() -> None:
    """LinSpace, Roll, LowerBound/UpperBound, HistogramFixedWidth, UnravelIndex, InTopKV2, DenseBincount and
    Bincount (tf.linspace, roll, searchsorted, histogram_fixed_width, unravel_index, in_top_k, bincount);
    seeded on their own."""
    rng = np.random.default_rng(20260702)

    def r(shape, dtype=np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    for start, stop, num in ((0.0, 1.0, 5), (-2.0, 3.0, 1), (1.0, -1.0, 7), (0.1, 0.7, 3)):
        kernel_case("LinSpace", np.float32(start), np.float32(stop), np.int32(num))
    kernel_case("LinSpace", np.float64(1.0), np.float64(10.0), np.int64(10))
    kernel_case("LinSpace", np.float32(0.0), np.float32(1.0), np.int32(0))
    kernel_case("LinSpace", np.float32(0.0), np.float32(1.0), np.int32(-3))
    kernel_case("LinSpace", np.array([0.0], np.float32), np.float32(1.0), np.int32(3))
    kernel_case("LinSpace", np.float32(0.0), np.array([1.0], np.float32), np.int32(3))
    kernel_case("LinSpace", np.float32(0.0), np.float32(1.0), np.array([3], np.int32))
    shape_case("LinSpace", P([]), P([]), C(4))
    shape_case("LinSpace", P([]), P([]), P([], I32))
    shape_case("LinSpace", P([]), P([]), C(0))
    shape_case("LinSpace", P([2]), P([]), C(3))
    shape_case("LinSpace", P([]), P([]), C(6, I64))
    shape_case("LinSpace", P([], F64), P([], F64), P([1], I32))
    x = r((3, 4))
    for shift, axis in ((1, 0), (-1, 1), (5, 1), ([1, -2], [0, 1]), ([2, 1], [1, 1]), (0, 0), (7, -1)):
        kernel_case("Roll", x, np.array(shift, np.int32), np.array(axis, np.int32))
    kernel_case("Roll", rng.integers(0, 9, (2, 3, 2)).astype(np.int64), np.int64(1), np.int64(2))
    kernel_case("Roll", np.array([b"a", b"b", b"c"], object), np.int32(1), np.int32(0))
    kernel_case("Roll", np.array([True, False, False]), np.int32(-1), np.int32(0))
    kernel_case("Roll", np.zeros((0, 3), np.float32), np.int32(1), np.int32(0))
    kernel_case("Roll", x, np.array([1, 2], np.int32), np.array([0], np.int32))
    kernel_case("Roll", x, np.int32(1), np.int32(2))
    kernel_case("Roll", np.float32(1.0), np.int32(1), np.int32(0))
    kernel_case("Roll", x, np.array([[1]], np.int32), np.array([[0]], np.int32))
    shape_case("Roll", P([3, U]), P([], I32), P([], I32))
    shape_case("Roll", P([3, 4]), P([2], I32), P([2], I64))
    shape_case("Roll", P([3, 4]), P([2], I32), P([3], I32))
    shape_case("Roll", P([]), P([], I32), P([], I32))
    shape_case("Roll", P(None), P([2, 1], I32), P([U], I32))
    sorted_inputs = np.sort(r((2, 6)), axis=1)
    sorted_inputs[0, 2] = sorted_inputs[0, 3]  # a tie
    values = np.concatenate([sorted_inputs[:, ::2], r((2, 3))], axis=1)
    for op in ("LowerBound", "UpperBound"):
        kernel_case(op, sorted_inputs, values)
        kernel_case(op, sorted_inputs, values, out_type=np.int64)
        kernel_case(op, np.array([[1, 3, 3, 5]], np.int32), np.array([[0, 3, 4, 6, 5]], np.int32))
        kernel_case(op, np.array([[1.0, 2.0]], np.float64), np.array([[1.5]], np.float64))
        kernel_case(op, np.zeros((2, 0), np.float32), r((2, 3)))
        kernel_case(op, sorted_inputs, r((3, 2)))
        kernel_case(op, np.array([1.0, 2.0], np.float32), np.array([1.5], np.float32))
        kernel_case(op, np.array([[1.0, 2.0]], np.float32), np.array([1.5], np.float32))
        shape_case(op, P([U, 5]), P([3, U]))
        shape_case(op, P([]), P([3, 2]))
        shape_case(op, P([2, 5]), P([]))
        shape_case(op, P(None), P(None), out_type=tf.int64)
    values = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 12.0, 15.0, np.inf, 4.9], np.float32)
    for dtype, nbins in ((np.float32, 5), (np.float64, 3), (np.float32, 1)):
        kernel_case("HistogramFixedWidth", values.astype(dtype), np.array([0.0, 15.0], dtype), np.int32(nbins))
    kernel_case("HistogramFixedWidth", np.array([[1, 5], [9, 3]], np.int32), np.array([0, 10], np.int32),
                np.int32(4), dtype=np.int64)  # fmt: skip
    kernel_case("HistogramFixedWidth", r((3, 4), np.float64), np.array([-1.0, 1.0]), np.int32(6))
    kernel_case("HistogramFixedWidth", values, np.array([0.0, 15.0], np.float32), np.int32(0))
    kernel_case("HistogramFixedWidth", values, np.array([5.0, 5.0], np.float32), np.int32(3))
    kernel_case("HistogramFixedWidth", values, np.array([0.0, 1.0, 2.0], np.float32), np.int32(3))
    kernel_case("HistogramFixedWidth", values, np.array([0.0, 15.0], np.float32), np.array([3], np.int32))
    shape_case("HistogramFixedWidth", P([U, 3]), P([2]), C(7))
    shape_case("HistogramFixedWidth", P([4]), P([2]), P([], I32), dtype=tf.int64)
    shape_case("HistogramFixedWidth", P([4]), P([3]), C(7))
    shape_case("HistogramFixedWidth", P([4]), P([]), C(7))
    shape_case("HistogramFixedWidth", P([4]), P([2]), C(0))
    shape_case("HistogramFixedWidth", P([4]), P([2]), C([3]))
    for dtype in (np.int32, np.int64):
        kernel_case("UnravelIndex", np.array([1, 5, 11, 0], dtype), np.array([3, 4], dtype))
        kernel_case("UnravelIndex", dtype(17), np.array([2, 3, 4], dtype))
    kernel_case("UnravelIndex", np.array([12], np.int32), np.array([3, 4], np.int32))
    kernel_case("UnravelIndex", np.array([-1], np.int32), np.array([3, 4], np.int32))
    kernel_case("UnravelIndex", np.array([[1]], np.int32), np.array([3, 4], np.int32))
    kernel_case("UnravelIndex", np.array([1], np.int32), np.array([[3, 4]], np.int32))
    kernel_case("UnravelIndex", np.array([1], np.int32), np.array([3, 0], np.int32))
    kernel_case("UnravelIndex", np.array([], np.int32), np.array([3, 4], np.int32))
    shape_case("UnravelIndex", P([], I32), P([3], I32))
    shape_case("UnravelIndex", P([5], I32), P([U], I32))
    shape_case("UnravelIndex", P([2, 3], I32), P([2], I32))
    shape_case("UnravelIndex", P(None, I32), P([2], I32))
    shape_case("UnravelIndex", P([U], I64), P([2, 2], I64))
    predictions = r((4, 5))
    predictions[1, :] = 1.0  # all tied
    predictions[2, 3] = np.nan
    predictions[3, 0] = np.inf
    targets = np.array([2, 4, 3, 0], np.int32)
    for k in (0, 1, 2, 5, 6, -1):
        kernel_case("InTopKV2", predictions, targets, np.int32(k))
    kernel_case("InTopKV2", predictions, np.array([1, 5, -1, 0], np.int64), np.int64(3))
    kernel_case("InTopKV2", predictions, targets[:3], np.int32(1))
    kernel_case("InTopKV2", predictions[0], targets, np.int32(1))
    kernel_case("InTopKV2", predictions, targets, np.array([1], np.int32))
    shape_case("InTopKV2", P([U, 5], F), P([3], I32), C(2))
    shape_case("InTopKV2", P([4, 5], F), P([3], I32), C(2))
    shape_case("InTopKV2", P([4], F), P([4], I32), C(2))
    shape_case("InTopKV2", P([4, 5], F), P([4], I32), P([2], I32))
    shape_case("InTopKV2", P(None, F), P(None, I64), P(None, I64))
    arr = rng.integers(0, 6, (8,)).astype(np.int32)
    weights = r((8,))
    kernel_case("DenseBincount", arr, np.int32(6), np.zeros((0,), np.int32))
    kernel_case("DenseBincount", arr, np.int32(4), np.zeros((0,), np.float32))
    kernel_case("DenseBincount", arr, np.int32(8), weights)
    kernel_case("DenseBincount", arr.astype(np.int64), np.int64(6), weights.astype(np.float64))
    kernel_case("DenseBincount", arr, np.int32(6), np.zeros((0,), np.int64), binary_output=True)
    kernel_case("DenseBincount", arr.reshape(2, 4), np.int32(6), np.zeros((0,), np.int32))
    kernel_case("DenseBincount", arr.reshape(2, 4), np.int32(6), weights.reshape(2, 4), binary_output=False)
    kernel_case("DenseBincount", arr.reshape(2, 4), np.int32(6), np.zeros((0,), np.float32), binary_output=True)
    kernel_case("DenseBincount", np.array([1, -1, 2], np.int32), np.int32(3), np.zeros((0,), np.int32))
    kernel_case("DenseBincount", arr, np.int32(-1), np.zeros((0,), np.int32))
    kernel_case("DenseBincount", arr, np.int32(6), r((3,)))
    kernel_case("DenseBincount", arr, np.array([6], np.int32), np.zeros((0,), np.int32))
    kernel_case("DenseBincount", np.zeros((2, 2, 2), np.int32), np.int32(3), np.zeros((0,), np.int32))
    shape_case("DenseBincount", P([U], I32), C(5), P([0], F))
    shape_case("DenseBincount", P([3, U], I32), C(5), P([0], F))
    shape_case("DenseBincount", P([U], I32), P([], I32), P([0], F))
    shape_case("DenseBincount", P(None, I64), C(4, I64), P(None, F64))
    shape_case("DenseBincount", P([2, 2, 2], I32), C(5), P([0], F))
    shape_case("DenseBincount", P([4], I32), C(-1), P([0], F))
    shape_case("DenseBincount", P([4], I32), P([1], I32), P([0], F))
    kernel_case("Bincount", arr, np.int32(6), np.zeros((0,), np.int32))
    kernel_case("Bincount", arr, np.int32(4), weights)
    kernel_case("Bincount", arr, np.int32(-1), np.zeros((0,), np.float32))
    kernel_case("Bincount", np.array([1, 7], np.int32), np.int32(3), np.zeros((0,), np.float32))
    shape_case("Bincount", P([U], I32), C(5), P([0], F))
    shape_case("Bincount", P([U], I32), P([], I32), P([0], F))
    shape_case("Bincount", P([U], I32), P([2], I32), P([0], F))


def broadcast_args_cases() -> None:
    """BroadcastArgs (tf.broadcast_dynamic_shape, which tf.linspace uses)."""
    for s0, s1, dtype in (([2, 1, 3], [4, 1], np.int32), ([], [3], np.int32), ([5], [1], np.int64),
                          ([0, 1], [1, 3], np.int32), ([2, 3], [4], np.int32), ([2], [[2]], np.int32)):  # fmt: skip
        kernel_case("BroadcastArgs", np.array(s0, dtype), np.array(s1, dtype))
    shape_case("BroadcastArgs", P([3], I32), P([2], I32))
    shape_case("BroadcastArgs", P([U], I32), P([2], I32))
    shape_case("BroadcastArgs", P([3, 1], I32), P([2], I32))
    shape_case("BroadcastArgs", P(None, I64), P(None, I64))
    kernel_case("BroadcastTo", np.float32(2.5), np.array([], np.int32))  # a scalar to a scalar (tf.linspace's)


def layout_cross_cases() -> None:
    """SpaceToDepth, DepthToSpace, Cross, LogMatrixDeterminant and CumulativeLogsumexp; seeded on their own."""
    rng = np.random.default_rng(20260703)

    def r(shape, dtype=np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    x = r((2, 4, 6, 3))
    kernel_case("SpaceToDepth", x, block_size=2)
    kernel_case("SpaceToDepth", rng.integers(0, 9, (1, 6, 3, 2)).astype(np.uint8), block_size=3)
    kernel_case("SpaceToDepth", x, block_size=4)
    kernel_case("SpaceToDepth", x[0], block_size=2)
    kernel_case("SpaceToDepth", x, block_size=2, data_format="NCHW")
    kernel_case("DepthToSpace", r((2, 2, 3, 8)), block_size=2)
    kernel_case("DepthToSpace", r((1, 1, 2, 9), np.float64), block_size=3)
    kernel_case("DepthToSpace", r((1, 2, 2, 6)), block_size=2)
    kernel_case("DepthToSpace", r((2, 2, 8)), block_size=2)
    for op, shape in (("SpaceToDepth", [U, 4, 6, 3]), ("DepthToSpace", [2, U, 3, 8])):
        shape_case(op, P(shape), block_size=2)
        shape_case(op, P([2, 5, 6, 8]), block_size=2)
        shape_case(op, P([2, 4, 6]), block_size=2)
        shape_case(op, P([2, 3, 4, 8]), block_size=2, data_format="NCHW")
        shape_case(op, P(None), block_size=3)
    kernel_case("Cross", r((4, 3)), r((4, 3)))
    kernel_case("Cross", r((2, 2, 3), np.float64), r((2, 2, 3), np.float64))
    kernel_case("Cross", rng.integers(-5, 5, (3,)).astype(np.int32), rng.integers(-5, 5, (3,)).astype(np.int32))
    kernel_case("Cross", r((2, 3)), r((3, 3)))
    kernel_case("Cross", r((2, 4)), r((2, 4)))
    kernel_case("Cross", np.float32(1.0), np.float32(2.0))
    shape_case("Cross", P([U, 3]), P([4, U]))
    shape_case("Cross", P([2, 4]), P([2, 4]))
    shape_case("Cross", P([2, 3]), P([3, 3]))
    shape_case("Cross", P(None), P(None))
    shape_case("Cross", P([]), P([3]))
    spd = r((3, 3)) @ r((3, 3)).T + np.eye(3, dtype=np.float32)
    kernel_case("LogMatrixDeterminant", spd)
    kernel_case("LogMatrixDeterminant", r((2, 4, 4), np.float64))
    kernel_case("LogMatrixDeterminant", np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))
    kernel_case("LogMatrixDeterminant", np.zeros((2, 0, 0), np.float32))
    kernel_case("LogMatrixDeterminant", (r((2, 2)) + 1j * r((2, 2))).astype(np.complex64))
    kernel_case("LogMatrixDeterminant", r((2, 3)))
    kernel_case("LogMatrixDeterminant", r((3,)))
    shape_case("LogMatrixDeterminant", P([U, 3, 3]))
    shape_case("LogMatrixDeterminant", P([2, 3, U]))
    shape_case("LogMatrixDeterminant", P([2, 3, 4]))
    shape_case("LogMatrixDeterminant", P([3]))
    shape_case("LogMatrixDeterminant", P(None))
    y = r((3, 4), np.float64) * 3
    for axis, exclusive, reverse in ((0, False, False), (1, True, False), (-1, False, True), (0, True, True)):
        kernel_case("CumulativeLogsumexp", y, np.int32(axis), exclusive=exclusive, reverse=reverse)
    kernel_case("CumulativeLogsumexp", r((5,)) * 50, np.int64(0))
    kernel_case("CumulativeLogsumexp", np.array([-np.inf, 0.0, np.inf, 1.0], np.float32), np.int32(0))
    kernel_case("CumulativeLogsumexp", r((2, 3)).astype(np.float16), np.int32(1), exclusive=True)
    kernel_case("CumulativeLogsumexp", r((2, 3)), np.int32(2))
    kernel_case("CumulativeLogsumexp", r((2, 3)), np.array([0], np.int32))
    shape_case("CumulativeLogsumexp", P([U, 3]), C(1))
    shape_case("CumulativeLogsumexp", P([2, 3]), P([2], I32))


def space_batch_cases() -> None:
    """SpaceToBatchND and BatchToSpaceND; seeded on their own."""
    rng = np.random.default_rng(20260704)

    def r(shape, dtype=np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    kernel_case("SpaceToBatchND", r((1, 4, 4, 1)), i32([2, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("SpaceToBatchND", r((2, 2, 4, 3)), i32([2, 2]), i32([[1, 1], [2, 0]]))
    kernel_case("SpaceToBatchND", r((2, 6, 2)), i32([3]), np.array([[0, 0]], np.int64))
    kernel_case("SpaceToBatchND", rng.integers(0, 9, (1, 2, 3, 2)).astype(np.int64), i32([1, 3]), i32([[0, 0], [0, 0]]))
    kernel_case("SpaceToBatchND", r((1, 3, 4, 1)), i32([2, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("SpaceToBatchND", r((1, 4, 4, 1)), i32([2, 2]), i32([[0, 0], [-1, 1]]))
    kernel_case("SpaceToBatchND", r((1, 4, 4, 1)), i32([0, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("SpaceToBatchND", r((1, 4, 4, 1)), i32([[2, 2]]), i32([[0, 0], [0, 0]]))
    kernel_case("SpaceToBatchND", r((1, 4, 4, 1)), i32([2, 2]), i32([0, 0, 0, 0]))
    kernel_case("SpaceToBatchND", r((4,)), i32([2, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("BatchToSpaceND", r((4, 2, 2, 1)), i32([2, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("BatchToSpaceND", r((8, 2, 3, 3)), i32([2, 2]), i32([[1, 1], [2, 0]]))
    kernel_case("BatchToSpaceND", r((6, 2, 2)), np.array([3], np.int64), i32([[0, 1]]))
    kernel_case("BatchToSpaceND", r((3, 2, 2, 1)), i32([2, 2]), i32([[0, 0], [0, 0]]))
    kernel_case("BatchToSpaceND", r((4, 2, 2, 1)), i32([2, 2]), i32([[0, 0], [3, 2]]))
    kernel_case("BatchToSpaceND", r((4, 2, 2, 1)), i32([2, 2]), i32([[-1, 0], [0, 0]]))
    kernel_case("BatchToSpaceND", r((4, 2, 2, 1)), i32([2, 0]), i32([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P([U, 4, 6, 3]), C([2, 3]), C([[0, 0], [1, 2]]))
    shape_case("SpaceToBatchND", P([2, 4, 6, 3]), C([2, 3]), C([[0, 0], [1, 2]]))
    shape_case("SpaceToBatchND", P([2, 4, 6, 3]), P([2], I32), C([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P([2, 4, 6, 3]), C([2, 2]), P([2, 2], I32))
    shape_case("SpaceToBatchND", P([2, 5, 6, 3]), C([2, 2]), C([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P([2, 4, 6, 3]), C([2, 2]), C([[0, 0], [-1, 1]]))
    shape_case("SpaceToBatchND", P([2, 4, 6, 3]), C([0, 2]), C([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P([4]), C([2, 2]), C([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P(None), C([2, 2]), C([[0, 0], [0, 0]]))
    shape_case("SpaceToBatchND", P([2, 4, 6]), P([U], I32), P([U, 2], I32))
    shape_case("SpaceToBatchND", P([2, 4, 6]), C([2]), C([[0, 0], [0, 0]]))
    shape_case("BatchToSpaceND", P([8, 2, 3, 3]), C([2, 2]), C([[1, 1], [2, 0]]))
    shape_case("BatchToSpaceND", P([U, 2, U, 3]), C([2, 2]), C([[1, 1], [2, 0]]))
    shape_case("BatchToSpaceND", P([6, 2, 3, 3]), C([2, 2]), C([[0, 0], [0, 0]]))
    shape_case("BatchToSpaceND", P([8, 2, 3, 3]), C([2, 2]), C([[3, 2], [0, 0]]))
    shape_case("BatchToSpaceND", P([8, 2, 3, 3]), P([2], I32), P([2, 2], I32))
    shape_case("BatchToSpaceND", P([8, 2, 3, 3]), C([2, 2]), C([[-1, 0], [0, 0]]))
    shape_case("BatchToSpaceND", P(None), C([2]), C([[0, 0]]))


def lrn_cases() -> None:
    """LRN and LRNGrad (tf.nn.local_response_normalization and its gradient); seeded on their own."""
    rng = np.random.default_rng(20260705)

    def r(shape, dtype=np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    x = r((2, 3, 3, 8))
    kernel_case("LRN", x)
    kernel_case("LRN", x, depth_radius=2, bias=2.0, alpha=0.1, beta=0.75)
    kernel_case("LRN", x, depth_radius=0, bias=1.0, alpha=1.0, beta=1.0)
    kernel_case("LRN", r((1, 2, 2, 3)).astype(np.float16), depth_radius=1)
    kernel_case("LRN", r((2, 3, 8)))
    dy = r((2, 3, 3, 8))
    for attrs in ({}, {"depth_radius": 2, "bias": 2.0, "alpha": 0.1, "beta": 0.75}):
        y = tf.nn.local_response_normalization(x, **attrs).numpy()
        kernel_case("LRNGrad", dy, x, y, **attrs)
    kernel_case("LRNGrad", dy[:, :2], x, x)
    kernel_case("LRNGrad", dy[0], x[0], x[0])
    shape_case("LRN", P([U, 3, 3, 8]))
    shape_case("LRN", P([3, 3, 8]))
    shape_case("LRN", P(None), depth_radius=3)
    shape_case("LRNGrad", P([U, 3, 3, 8]), P([2, U, 3, 8]), P([2, 3, U, 8]))
    shape_case("LRNGrad", P([2, 3, 3, 8]), P([2, 3, 3, 4]), P(None))
    shape_case("LRNGrad", P([2, 3, 8]), P(None), P(None))


def euclidean_norm_cases() -> None:
    """EuclideanNorm (tf.math.reduce_euclidean_norm); seeded on its own."""
    rng = np.random.default_rng(20260706)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    for axis, keep_dims in (([0], False), ([1, 2], True), ([-1], False), ([0, 1, 2], False), ([], False)):
        kernel_case("EuclideanNorm", x, np.array(axis, np.int32), keep_dims=keep_dims)
    kernel_case("EuclideanNorm", x.astype(np.float64), np.int64(1))
    kernel_case("EuclideanNorm", x.astype(np.float16), np.int32(2))
    kernel_case("EuclideanNorm", np.array([[3, 4], [5, 12]], np.int32), np.int32(1))
    kernel_case("EuclideanNorm", np.array([[1, 2], [2, 3]], np.int64), np.int32(0))
    kernel_case("EuclideanNorm", np.array([3 + 4j, 1j], np.complex64), np.int32(0))
    kernel_case("EuclideanNorm", np.zeros((2, 0), np.float32), np.int32(1))
    kernel_case("EuclideanNorm", x, np.int32(3))
    shape_case("EuclideanNorm", P([U, 4, 5]), C([1]))
    shape_case("EuclideanNorm", P([3, 4, 5]), C([0, 2]), keep_dims=True)
    shape_case("EuclideanNorm", P([3, 4, 5]), P([U], I32))
    shape_case("EuclideanNorm", P([3, 4]), C([2]))


# =========================================================================== writing


def _cpu_kernel_defs(op: str) -> list[dict]:
    entries = []
    for kdef in kernels.get_registered_kernels_for_op(op).kernel:
        if kdef.device_type != "CPU":
            continue
        entries.append(
            {
                "constraints": {
                    c.name: [types_pb2.DataType.Name(t) for t in c.allowed_values.list.type]
                    for c in kdef.constraint
                    if c.allowed_values.list.type
                },
                "host_memory": list(kdef.host_memory_arg),
                "label": kdef.label,
                "priority": kdef.priority,
            }
        )
    return entries


def write_op_defs() -> None:
    op_list = op_def_pb2.OpList()
    for name in sorted(OPS):
        op_def = op_list.op.add()
        op_def.CopyFrom(op_def_registry.get(name))
        op_def.ClearField("summary")
        op_def.ClearField("description")
        for item in (*op_def.input_arg, *op_def.output_arg, *op_def.attr):
            item.ClearField("description")
    header = f"# Generated by {GENERATOR} from TensorFlow {tf.__version__}; do not edit.\n"
    (OUT / "op_defs.pbtxt").write_text(header + text_format.MessageToString(op_list))
    constraints = {op: _cpu_kernel_defs(op) for op in sorted(OPS + KERNEL_ONLY)}
    meta = {"generated_by": GENERATOR, "tensorflow": tf.__version__}
    (OUT / "cpu_kernel_constraints.json").write_text(
        json.dumps({"meta": meta, "kernels": constraints}, indent=1, sort_keys=True) + "\n"
    )


def write_shape_cases() -> None:
    records = [r for r in (shape_gen.run_case(c) for c in SHAPE_CASES) if r is not None]
    lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in records)  # one case per line, as shape_cases.json
    (OUT / "shape_cases.json").write_text(f'{{"tensorflow":{json.dumps(tf.__version__)},"cases":[\n{lines}\n]}}\n')
    print(f"wrote {len(records)} shape cases ({sum('error' in r for r in records)} errors)")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for make in (einsum_cases, batch_matmul_v3_cases, linalg_cases, image_cases, batch_norm_cases, indexing_cases,
                 sort_cases, segment_cases, string_cases, image_adjust_cases, special_math_cases,
                 sequence_cases, broadcast_args_cases, layout_cross_cases,
                 space_batch_cases, lrn_cases, euclidean_norm_cases):  # fmt: skip
        make()
    write_op_defs()
    write_shape_cases()
    return kernel_gen.write_cases(KERNEL_CASES, OUT / "kernels")


if __name__ == "__main__":
    sys.exit(main())
