"""Record what TensorFlow's sparse ops build and compute: ``tf.sparse.to_dense``, ``from_dense``, ``reorder``,
``reshape``, ``fill_empty_rows``, ``reduce_sum``, ``add``, ``concat``, ``slice``, ``sparse_dense_matmul``,
``retain``, ``transpose``, ``expand_dims``, ``tf.nn.embedding_lookup_sparse`` and the ``SparseSegment*`` ops.

    cd /tmp/scratch && /work/tfvenv/bin/python /work/main/tools/make_golden_sparse_ops.py

Writes ``tests/golden/sparse_ops/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``sparse_...``,
read by ``tests/api/test_sparse_ops_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py``
writes (OpDefs, CPU kernel constraints, shape and kernel cases): unsorted indices, duplicates, empty tensors, ranks 1
to 3, numeric and string values, and the errors TF reports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "sparse_ops"
OPS = ["SparseToDense", "SparseTensorDenseMatMul", "SparseReorder", "SparseReshape", "SparseFillEmptyRows",
       "SparseFillEmptyRowsGrad", "SparseReduceSum", "SparseReduceSumSparse", "SparseAdd", "SparseAddGrad",
       "SparseConcat", "SparseSlice", "SparseSliceGrad", "SparseSegmentSum", "SparseSegmentMean",
       "SparseSegmentSqrtN", "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
       "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumGrad", "SparseSegmentMeanGrad",
       "SparseSegmentSqrtNGrad", "SparseTensorDenseAdd"]  # fmt: skip

ST = "tf.sparse.SparseTensor(indices=[[1, 2], [0, 0], [1, 0], [0, 3]], values=[4.0, 1.0, 3.0, 2.0], dense_shape=[3, 4])"
ST3 = ("tf.sparse.SparseTensor(indices=[[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]], values=[1, 2, 3, 4], "
       "dense_shape=[2, 2, 2])")  # fmt: skip
OUTS = "\n[s.indices, s.values, s.dense_shape]"

CASES: list[tuple[str, str, str]] = [
    ("sparse_to_dense", f"tf.sparse.to_dense({ST})", "ge"),
    ("sparse_to_dense_default", f"tf.sparse.to_dense(tf.sparse.reorder({ST}), default_value=-1.0)", "e"),
    ("sparse_to_dense_unsorted", f"tf.sparse.to_dense({ST}, validate_indices=True)", "e"),
    ("sparse_to_dense_string", "tf.sparse.to_dense(tf.sparse.SparseTensor([[0], [2]], ['a', 'b'], [4]))", "e"),
    ("sparse_to_dense_duplicate", "tf.sparse.to_dense(tf.sparse.SparseTensor([[0], [0]], [1, 2], [4]))", "e"),
    ("sparse_to_dense_out_of_range", "tf.sparse.to_dense(tf.sparse.SparseTensor([[5]], [1], [4]))", "e"),
    ("sparse_to_dense_raw", "tf.raw_ops.SparseToDense(sparse_indices=[1, 3], output_shape=[5], "
     "sparse_values=7, default_value=0)", "e"),
    ("sparse_from_dense", "s = tf.sparse.from_dense([[0, 1, 0], [2, 0, 3]])" + OUTS, "ge"),
    ("sparse_from_dense_string", "s = tf.sparse.from_dense(['', 'a', 'b', ''])" + OUTS, "e"),
    ("sparse_reorder", f"s = tf.sparse.reorder({ST})" + OUTS, "ge"),
    ("sparse_reorder_rank3", f"s = tf.sparse.reorder({ST3})" + OUTS, "e"),
    ("sparse_reshape", f"s = tf.sparse.reshape({ST}, [2, -1])" + OUTS, "ge"),
    ("sparse_reshape_rank3", f"s = tf.sparse.reshape({ST3}, [8])" + OUTS, "e"),
    ("sparse_reshape_bad", f"s = tf.sparse.reshape({ST}, [5, -1])" + OUTS, "e"),
    ("sparse_fill_empty_rows", f"s, e = tf.sparse.fill_empty_rows({ST}, -1.0)\n[s.indices, s.values, e]", "ge"),
    ("sparse_fill_empty_rows_string", "s, e = tf.sparse.fill_empty_rows(tf.sparse.SparseTensor([[1, 0]], ['x'], "
     "[3, 2]), 'z')\n[s.indices, s.values, e]", "e"),
    ("sparse_reduce_sum", f"tf.sparse.reduce_sum({ST})", "e"),
    ("sparse_reduce_sum_axis", f"[tf.sparse.reduce_sum({ST}, 1), tf.sparse.reduce_sum({ST}, -2, keepdims=True)]",
     "ge"),
    ("sparse_reduce_sum_rank3", f"tf.sparse.reduce_sum({ST3}, [0, 2])", "e"),
    ("sparse_reduce_sum_sparse", f"s = tf.sparse.reduce_sum({ST}, 1, output_is_sparse=True)" + OUTS, "ge"),
    ("sparse_add", f"s = tf.sparse.add({ST}, tf.sparse.SparseTensor([[0, 0], [2, 1]], [-1.0, 5.0], [3, 4]))"
     + OUTS, "ge"),
    ("sparse_add_threshold", f"s = tf.sparse.add(tf.sparse.reorder({ST}), tf.sparse.SparseTensor([[0, 0], [1, 2]], "
     "[-0.5, -3.5], [3, 4]), threshold=0.6)" + OUTS, "e"),
    ("sparse_add_dense", f"tf.sparse.add({ST}, tf.ones([3, 4]))", "ge"),
    ("sparse_add_shape_mismatch", f"tf.sparse.add({ST}, tf.sparse.SparseTensor([[0, 0]], [1.0], [3, 5]))", "e"),
    ("sparse_concat", f"s = tf.sparse.concat(1, [{ST}, tf.sparse.SparseTensor([[2, 0]], [9.0], [3, 2])])" + OUTS,
     "ge"),
    ("sparse_concat_axis0", f"s = tf.sparse.concat(0, [{ST}, {ST}])" + OUTS, "e"),
    ("sparse_concat_expand", "a = tf.sparse.SparseTensor([[0, 1]], [1], [2, 2])\n"
     "b = tf.sparse.SparseTensor([[2, 3]], [2], [3, 4])\n"
     "s = tf.sparse.concat(1, [a, b], expand_nonconcat_dims=True)" + OUTS, "ge"),
    ("sparse_slice", f"s = tf.sparse.slice({ST}, [0, 1], [2, 3])" + OUTS, "ge"),
    ("sparse_slice_rank3", f"s = tf.sparse.slice({ST3}, [1, 0, 1], [5, 5, 5])" + OUTS, "e"),
    ("sparse_matmul", f"tf.sparse.sparse_dense_matmul({ST}, tf.reshape(tf.range(8.0), [4, 2]))", "ge"),
    ("sparse_matmul_adjoint", f"tf.sparse.sparse_dense_matmul({ST}, tf.reshape(tf.range(6.0), [2, 3]), "
     "adjoint_a=True, adjoint_b=True)", "e"),
    ("sparse_matmul_dense_sparse", f"tf.sparse.sparse_dense_matmul(tf.ones([2, 3]), {ST})", "ge"),
    ("sparse_matmul_bad_inner", f"tf.sparse.sparse_dense_matmul({ST}, tf.ones([3, 2]))", "e"),
    ("sparse_retain", f"s = tf.sparse.retain({ST}, [True, False, True, False])" + OUTS, "ge"),
    ("sparse_transpose", f"s = tf.sparse.transpose({ST})" + OUTS, "ge"),
    ("sparse_transpose_perm", f"s = tf.sparse.transpose({ST3}, [2, 0, 1])" + OUTS, "e"),
    ("sparse_expand_dims", f"s = tf.sparse.expand_dims({ST}, -1)" + OUTS, "ge"),
    ("sparse_expand_dims_front", f"s = tf.sparse.expand_dims({ST}, 0)" + OUTS, "e"),
    ("sparse_segment_sum", "tf.sparse.segment_sum(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [0, 2, 1], [0, 0, 1])",
     "ge"),
    ("sparse_segment_mean", "tf.sparse.segment_mean(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [0, 2, 1], "
     "[0, 0, 2])", "e"),
    ("sparse_segment_sqrt_n", "tf.sparse.segment_sqrt_n(tf.constant([[1., 2.], [3., 4.]]), [0, 1, 1], [0, 0, 0], "
     "num_segments=2)", "ge"),
    ("sparse_segment_sum_bad", "tf.sparse.segment_sum(tf.ones([3, 2]), [0, 5], [0, 1])", "e"),
    ("sparse_embedding_sum", "p = tf.reshape(tf.range(12.0), [4, 3])\n"
     "ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 0], tf.int64), [3, 2])\n"
     "tf.nn.embedding_lookup_sparse(p, ids, None, combiner='sum')", "e"),
    ("sparse_embedding_mean", "p = tf.reshape(tf.range(12.0), [4, 3])\n"
     "ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 1], tf.int64), [2, 2])\n"
     "tf.nn.embedding_lookup_sparse(p, ids, None)", "ge"),
    ("sparse_embedding_weights", "p = tf.reshape(tf.range(12.0), [4, 3])\n"
     "ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 1], tf.int64), [2, 2])\n"
     "w = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [2.0, 0.5, 3.0], [2, 2])\n"
     "[tf.nn.embedding_lookup_sparse(p, ids, w, combiner=c) for c in ('sum', 'mean', 'sqrtn')]", "ge"),
    ("sparse_embedding_sqrtn", "p = tf.reshape(tf.range(12.0), [4, 3])\n"
     "ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2]], tf.constant([1, 3, 1], tf.int64), [1, 3])\n"
     "tf.nn.embedding_lookup_sparse(p, ids, None, combiner='sqrtn')", "e"),
    ("sparse_grad_matmul", f"a = {ST}\nb = tf.reshape(tf.range(8.0), [4, 2])\n"
     "with tf.GradientTape() as t:\n  t.watch([a.values, b])\n  y = tf.sparse.sparse_dense_matmul(a, b)\n"
     "t.gradient(y, [a.values, b])", "e"),
    ("sparse_grad_to_dense", f"a = tf.sparse.reorder({ST})\n"
     "with tf.GradientTape() as t:\n  t.watch(a.values)\n  y = tf.sparse.to_dense(a) * tf.reshape(tf.range(12.0), "
     "[3, 4])\nt.gradient(y, a.values)", "e"),
    ("sparse_grad_segment", "d = tf.constant([[1., 2.], [3., 4.], [5., 6.]])\n"
     "with tf.GradientTape() as t:\n  t.watch(d)\n  y = tf.sparse.segment_mean(d, [0, 2, 2], [0, 0, 1])\n"
     "t.gradient(y, d)", "e"),
    ("sparse_to_indicator", "sp = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 1]], [3, 1, 0, 3], [3, 2])\n"
     "tf.sparse.to_indicator(sp, 5)", "ge"),
    ("sparse_to_indicator_rank3", "sp = tf.sparse.SparseTensor([[0, 1, 0], [1, 0, 0]], tf.constant([2, 0], tf.int64), "
     "[2, 2, 1])\ntf.sparse.to_indicator(sp, 3)", "e"),
    ("sparse_from_dense_rank1", "s = tf.sparse.from_dense(tf.constant([0.0, 1.5, 0.0, -2.0]))" + OUTS, "e"),
    ("sparse_from_dense_empty", "s = tf.sparse.from_dense(tf.zeros([2, 0, 3]))" + OUTS, "e"),
    ("sparse_add_int64", "a = tf.sparse.SparseTensor([[0], [2]], tf.constant([1, 2], tf.int64), [4])\n"
     "b = tf.sparse.SparseTensor([[2], [3]], tf.constant([-2, 5], tf.int64), [4])\ns = tf.sparse.add(a, b)" + OUTS,
     "e"),
    ("sparse_add_complex_threshold", "a = tf.sparse.SparseTensor([[0], [2]], tf.constant([1 + 1j, 2j], tf.complex64), "
     "[4])\nb = tf.sparse.SparseTensor([[0], [2]], tf.constant([-1 - 0.5j, 0.5], tf.complex64), [4])\n"
     "s = tf.sparse.add(a, b, threshold=1.0)" + OUTS, "e"),
    ("sparse_concat_string", "a = tf.sparse.SparseTensor([[0, 0]], ['x'], [1, 2])\n"
     "b = tf.sparse.SparseTensor([[0, 1], [1, 0]], ['y', 'z'], [2, 2])\ns = tf.sparse.concat(0, [a, b])" + OUTS, "e"),
    ("sparse_transpose_empty", "s = tf.sparse.transpose(tf.sparse.SparseTensor(tf.zeros([0, 2], tf.int64), "
     "tf.zeros([0]), [3, 5]))" + OUTS, "e"),
    ("sparse_expand_dims_rank1", "s = tf.sparse.expand_dims(tf.sparse.SparseTensor([[1], [4]], [1, 2], [6]), 1)"
     + OUTS, "e"),
    ("sparse_reduce_sum_keepdims_all", f"tf.sparse.reduce_sum({ST3}, keepdims=True)", "e"),
    ("sparse_reduce_sum_sparse_rank3", f"s = tf.sparse.reduce_sum({ST3}, 1, keepdims=True, output_is_sparse=True)"
     + OUTS, "e"),
    ("sparse_segment_sum_int", "tf.sparse.segment_sum(tf.constant([[1, 2], [3, 4]]), [1, 1, 0], [0, 1, 1])", "e"),
    ("sparse_segment_mean_num_segments", "tf.sparse.segment_mean(tf.ones([3, 2]), [0, 2], [1, 1], num_segments=3)",
     "e"),
    ("sparse_segment_not_increasing", "tf.sparse.segment_sum(tf.ones([3, 2]), [0, 1], [1, 0])", "e"),
    ("sparse_slice_string", "s = tf.sparse.slice(tf.sparse.SparseTensor([[0], [3], [5]], ['a', 'b', 'c'], [6]), [2], "
     "[3])" + OUTS, "e"),
    ("sparse_reshape_empty", "s = tf.sparse.reshape(tf.sparse.SparseTensor(tf.zeros([0, 2], tf.int64), "
     "tf.zeros([0]), [0, 4]), [-1, 2])" + OUTS, "e"),
    ("sparse_fill_empty_rows_no_rows", "s, e = tf.sparse.fill_empty_rows(tf.sparse.SparseTensor(tf.zeros([0, 2], "
     "tf.int64), tf.zeros([0]), [0, 3]), 1.0)\n[s.indices, s.values, e]", "e"),
    ("sparse_embedding_rank1_params", "ids = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], "
     "tf.constant([2, 0, 2], tf.int64), [3, 2])\n"
     "tf.nn.embedding_lookup_sparse(tf.constant([1.0, 2.0, 4.0]), ids, None, combiner='sum')", "e"),
    ("sparse_grad_matmul_adjoint", f"a = {ST}\nb = tf.reshape(tf.range(6.0), [2, 3])\n"
     "with tf.GradientTape() as t:\n  t.watch([a.values, b])\n"
     "  y = tf.sparse.sparse_dense_matmul(a, b, adjoint_a=True, adjoint_b=True) * tf.reshape(tf.range(12.0), "
     "[4, 3])\nt.gradient(y, [a.values, b])", "e"),
    ("sparse_grad_add", f"a = tf.sparse.reorder({ST})\nb = tf.sparse.SparseTensor([[0, 0], [2, 1]], [-1.0, 5.0], "
     "[3, 4])\nwith tf.GradientTape() as t:\n  t.watch([a.values, b.values])\n  s = tf.sparse.add(a, b)\n"
     "  y = tf.sparse.to_dense(s) * tf.reshape(tf.range(12.0), [3, 4])\nt.gradient(y, [a.values, b.values])", "e"),
    ("sparse_grad_add_dense", f"a = tf.sparse.reorder({ST})\nd = tf.ones([3, 4])\n"
     "with tf.GradientTape() as t:\n  t.watch([a.values, d])\n"
     "  y = tf.sparse.add(d, a) * tf.reshape(tf.range(12.0), [3, 4])\nt.gradient(y, [a.values, d])", "e"),
    ("sparse_grad_reorder", f"a = {ST}\nwith tf.GradientTape() as t:\n  t.watch(a.values)\n"
     "  y = tf.sparse.reorder(a).values * [1.0, 2.0, 3.0, 4.0]\nt.gradient(y, a.values)", "e"),
    ("sparse_grad_fill_empty_rows", f"a = tf.sparse.reorder({ST})\nd = tf.constant(0.5)\n"
     "with tf.GradientTape() as t:\n  t.watch([a.values, d])\n  s, _ = tf.sparse.fill_empty_rows(a, d)\n"
     "  y = s.values * tf.range(5.0)\nt.gradient(y, [a.values, d])", "e"),
    ("sparse_grad_slice", f"a = tf.sparse.reorder({ST})\nwith tf.GradientTape() as t:\n  t.watch(a.values)\n"
     "  s = tf.sparse.slice(a, [1, 0], [2, 4])\n  y = s.values * 3.0\nt.gradient(y, a.values)", "e"),
    ("sparse_grad_segment_num", "d = tf.constant([[1., 2.], [3., 4.], [5., 6.]])\n"
     "with tf.GradientTape() as t:\n  t.watch(d)\n  y = tf.sparse.segment_sqrt_n(d, [0, 2, 2], [0, 0, 3], "
     "num_segments=5) * tf.reshape(tf.range(10.0), [5, 2])\nt.gradient(y, d)", "e"),
    ("sparse_grad_embedding", "p = tf.reshape(tf.range(12.0), [4, 3])\n"
     "ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 1], tf.int64), [2, 2])\n"
     "with tf.GradientTape() as t:\n  t.watch(p)\n  y = tf.nn.embedding_lookup_sparse(p, ids, None, "
     "combiner='sqrtn')\ntf.convert_to_tensor(t.gradient(y, p))", "e"),
    ("sparse_grad_reduce_sum", f"a = {ST}\n"
     "with tf.GradientTape() as t:\n  t.watch(a.values)\n  y = tf.sparse.reduce_sum(a, 1) * [1.0, 2.0, 3.0]\n"
     "t.gradient(y, a.values)", "e"),
]  # fmt: skip


def S(*values: str | bytes) -> np.ndarray:  # noqa: N802
    return breadth.S(*values)


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the sparse ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    I32, I64, F = breadth.I32, breadth.I64, breadth.F  # noqa: N806
    breadth.begin(OUT / "ops", "tools/make_golden_sparse_ops.py", OPS)
    i64, i32, f32 = np.int64, np.int32, np.float32
    # an unsorted rank-2 tensor with an empty row, a rank-3 one, a rank-1 one with a duplicate
    ind2 = np.array([[1, 2], [0, 0], [1, 0], [0, 3], [3, 1]], i64)
    val2 = np.array([4, 1, 3, 2, 5], f32)
    shp2 = np.array([5, 4], i64)
    ind3 = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]], i64)
    val3 = np.array([1, 2, 3, 4], i32)
    shp3 = np.array([2, 2, 3], i64)
    ind1 = np.array([[3], [1], [3]], i64)
    empty_ind = np.zeros((0, 2), i64)
    # SparseToDense
    for tidx in (i32, i64):
        kernel_case("SparseToDense", ind2.astype(tidx), shp2.astype(tidx), val2, f32(-1), validate_indices=False)
        kernel_case("SparseToDense", ind3.astype(tidx), shp3.astype(tidx), val3, i32(0), validate_indices=False)
    kernel_case("SparseToDense", np.sort(ind2.view("i8,i8"), axis=0).view(i64).reshape(-1, 2), shp2, val2, f32(0))
    kernel_case("SparseToDense", ind2, shp2, val2, f32(0))
    kernel_case("SparseToDense", np.array([1, 3], i64), np.array([5], i64), np.float64(2), np.float64(0))
    kernel_case("SparseToDense", i64(2), np.array([4], i64), S("a"), np.array(b"-", object))
    kernel_case("SparseToDense", ind1, np.array([5], i64), S("a", "b", "c"), np.array(b"", object),
                validate_indices=False)  # fmt: skip
    kernel_case("SparseToDense", np.array([[1], [3], [3]], i64), np.array([5], i64), np.ones(3, f32), f32(0))
    kernel_case("SparseToDense", np.array([[1], [7]], i64), np.array([5], i64), np.ones(2, f32), f32(0))
    kernel_case("SparseToDense", np.array([[1], [7]], i64), np.array([5], i64), np.ones(2, f32), f32(0),
                validate_indices=False)  # fmt: skip
    kernel_case("SparseToDense", empty_ind, shp2, np.zeros(0, f32), f32(3))
    kernel_case("SparseToDense", ind2, shp2, np.ones(3, f32), f32(0))
    kernel_case("SparseToDense", ind2, shp2, val2, np.zeros(2, f32))
    kernel_case("SparseToDense", ind2, np.array([5, 4, 1], i64), val2, f32(0))
    kernel_case("SparseToDense", np.array([[-1, 0]], i64), shp2, f32(1), f32(0))
    shape_case("SparseToDense", P([U, 2], I64), C([3, 4], I64), P([U]), P([]))
    shape_case("SparseToDense", P([U, 2], I32), P([2], I32), P([U]), P([]), validate_indices=True)
    shape_case("SparseToDense", P([U, 2], I64), P(None, I64), P([U]), P([]))
    # SparseTensorDenseMatMul
    rng = np.random.default_rng(7)
    b = rng.integers(-3, 4, (4, 3)).astype(f32)
    mi, mv, ms = ind2[:4], val2[:4], np.array([2, 4], i64)
    for adj_a in (False, True):
        for adj_b in (False, True):
            left = ms[::-1] if adj_a else ms
            bb = b.T.copy() if adj_b else b
            if adj_a:
                bb = rng.integers(-3, 4, (2, 3)).astype(f32)
                bb = bb.T.copy() if adj_b else bb
            del left
            kernel_case("SparseTensorDenseMatMul", mi, mv, ms, bb, adjoint_a=adj_a, adjoint_b=adj_b)
    kernel_case("SparseTensorDenseMatMul", mi.astype(i32), mv.astype(np.float64), ms, b.astype(np.float64))
    kernel_case("SparseTensorDenseMatMul", mi, mv.astype(i32), ms, b.astype(i32))
    kernel_case("SparseTensorDenseMatMul", np.concatenate([mi, mi]), np.concatenate([mv, mv]), ms, b)
    kernel_case("SparseTensorDenseMatMul", empty_ind, np.zeros(0, f32), ms, b)
    kernel_case("SparseTensorDenseMatMul", mi, mv, ms, b[:3])
    kernel_case("SparseTensorDenseMatMul", np.array([[0, 5]], i64), np.ones(1, f32), ms, b)
    kernel_case("SparseTensorDenseMatMul", np.array([[2, 0]], i64), np.ones(1, f32), ms, b)
    kernel_case("SparseTensorDenseMatMul", mi, mv[:3], ms, b)
    kernel_case("SparseTensorDenseMatMul", mi, mv, np.array([2, 4, 1], i64), b)
    shape_case("SparseTensorDenseMatMul", P([U, 2], I64), P([U]), C([5, 4], I64), P([4, 7]))
    shape_case("SparseTensorDenseMatMul", P([U, 2], I64), P([U]), C([5, 4], I64), P([7, 4]), adjoint_a=True,
               adjoint_b=True)  # fmt: skip
    shape_case("SparseTensorDenseMatMul", P([U, 2], I64), P([U]), C([5, 4], I64), P([3, 7]))
    shape_case("SparseTensorDenseMatMul", P([U, 2], I64), P([U]), P([2], I64), P([U, 7]))
    shape_case("SparseTensorDenseMatMul", P([U, 2], I64), P([U]), C([5, 4, 1], I64), P([4, 7]))
    # SparseReorder
    kernel_case("SparseReorder", ind2, val2, shp2)
    kernel_case("SparseReorder", ind3, val3, shp3)
    kernel_case("SparseReorder", ind1, S("a", "b", "c"), np.array([5], i64))
    kernel_case("SparseReorder", empty_ind, np.zeros(0, f32), shp2)
    kernel_case("SparseReorder", ind2, val2[:3], shp2)
    kernel_case("SparseReorder", ind2, val2, shp3)
    shape_case("SparseReorder", P([U, 3], I64), P([U]), P([3], I64))
    shape_case("SparseReorder", P([U], I64), P([U]), P([3], I64))
    # SparseReshape
    for new in ([4, 5], [-1], [20], [2, -1, 2], [1, 20, 1], [5, 4], [10, 2]):
        kernel_case("SparseReshape", ind2, shp2, np.array(new, i64))
    kernel_case("SparseReshape", ind3, shp3, np.array([3, -1], i64))
    kernel_case("SparseReshape", empty_ind, np.array([0, 4], i64), np.array([-1, 2], i64))
    kernel_case("SparseReshape", empty_ind, np.array([0, 4], i64), np.array([2, 0], i64))
    for bad in ([3, 5], [-1, -1], [3, -1], [-2, 10], [0, -1]):
        kernel_case("SparseReshape", ind2, shp2, np.array(bad, i64))
    kernel_case("SparseReshape", ind2, shp3, np.array([20], i64))
    shape_case("SparseReshape", P([U, 2], I64), P([2], I64), P([3], I64))
    shape_case("SparseReshape", P([U, 2], I64), P([2], I64), P([U], I64))
    # SparseFillEmptyRows / SparseFillEmptyRowsGrad
    sorted2 = np.array([[0, 0], [0, 3], [1, 0], [1, 2], [3, 1]], i64)
    kernel_case("SparseFillEmptyRows", sorted2, val2, shp2, f32(-1))
    kernel_case("SparseFillEmptyRows", ind2, val2, shp2, f32(-1))
    kernel_case("SparseFillEmptyRows", ind3, val3, shp3, i32(9))
    kernel_case("SparseFillEmptyRows", ind1, S("a", "b", "c"), np.array([5], i64), np.array(b"z", object))
    kernel_case("SparseFillEmptyRows", empty_ind, np.zeros(0, f32), shp2, f32(7))
    kernel_case("SparseFillEmptyRows", empty_ind, np.zeros(0, f32), np.array([0, 3], i64), f32(7))
    kernel_case("SparseFillEmptyRows", sorted2, val2, shp2, np.zeros(1, f32))
    kernel_case("SparseFillEmptyRows", sorted2, val2[:3], shp2, f32(0))
    kernel_case("SparseFillEmptyRows", np.array([[6, 0]], i64), np.ones(1, f32), shp2, f32(0))
    kernel_case("SparseFillEmptyRows", np.array([[-1, 0]], i64), np.ones(1, f32), shp2, f32(0))
    kernel_case("SparseFillEmptyRowsGrad", np.array([0, 1, 4, 2], i64), np.arange(6, dtype=f32))
    kernel_case("SparseFillEmptyRowsGrad", np.zeros(0, i64), np.arange(3, dtype=np.float64))
    kernel_case("SparseFillEmptyRowsGrad", np.array([0, 7], i64), np.arange(3, dtype=f32))
    shape_case("SparseFillEmptyRows", P([U, 2], I64), P([U]), C([5, 4], I64), P([]))
    shape_case("SparseFillEmptyRows", P([6, 3], I64), P([6]), P([3], I64), P([]))
    shape_case("SparseFillEmptyRows", P([6, 3], I64), P([5]), P([3], I64), P([]))
    shape_case("SparseFillEmptyRows", P([6, 3], I64), P([6]), P([2], I64), P([]))
    shape_case("SparseFillEmptyRowsGrad", P([U], I64), P([7]))
    # SparseReduceSum / SparseReduceSumSparse
    for op in ("SparseReduceSum", "SparseReduceSumSparse"):
        for axes, keep in (([1], False), ([0], True), ([-1], False), ([0, 1], False), ([], False), ([1, -1], True)):
            kernel_case(op, ind2, val2, shp2, np.array(axes, i32), keep_dims=keep)
        kernel_case(op, ind3, val3, shp3, np.array([0, 2], i32))
        kernel_case(op, ind3, val3, shp3, i32(1), keep_dims=True)
        kernel_case(op, np.array([[1, 1], [1, 1]], i64), np.array([2, 3], np.float64), shp2, np.array([0], i32))
        kernel_case(op, empty_ind, np.zeros(0, f32), shp2, np.array([1], i32))
        kernel_case(op, ind2, val2, shp2, np.array([2], i32))
        kernel_case(op, ind2, val2, shp2, np.array([-3], i32))
        kernel_case(op, ind2, val2[:4], shp2, np.array([0], i32))
    shape_case("SparseReduceSum", P([U, 2], I64), P([U]), C([5, 4], I64), C([1], I32))
    shape_case("SparseReduceSum", P([U, 2], I64), P([U]), C([5, 4], I64), C([-2], I32), keep_dims=True)
    shape_case("SparseReduceSum", P([U, 2], I64), P([U]), P([2], I64), C([1], I32))
    shape_case("SparseReduceSumSparse", P([U, 2], I64), P([U]), C([5, 4], I64), C([1], I32))
    # SparseAdd / SparseAddGrad
    bi = np.array([[0, 0], [2, 1], [1, 2], [4, 3]], i64)
    bv = np.array([-1, 5, -4, 0.25], f32)
    s_ind = sorted2
    s_val = np.array([1, 2, 3, 4, 5], f32)
    for thresh in (0.0, 0.3, 1.5):
        kernel_case("SparseAdd", s_ind, s_val, shp2, bi, bv, shp2, f32(thresh))
    kernel_case("SparseAdd", ind2, val2, shp2, bi, bv, shp2, f32(0))
    kernel_case("SparseAdd", s_ind, s_val.astype(i64), shp2, bi, bv.astype(i64), shp2, i64(0))
    kernel_case("SparseAdd", s_ind, s_val.astype(np.complex64), shp2, bi, bv.astype(np.complex64), shp2, f32(0.5))
    kernel_case("SparseAdd", empty_ind, np.zeros(0, f32), shp2, bi, bv, shp2, f32(0))
    kernel_case("SparseAdd", s_ind, s_val, shp2, bi, bv, np.array([5, 5], i64), f32(0))
    kernel_case("SparseAdd", s_ind, s_val, shp2, bi, bv, shp2, np.zeros(1, f32))
    kernel_case("SparseAdd", s_ind, s_val[:2], shp2, bi, bv, shp2, f32(0))
    kernel_case("SparseAddGrad", np.arange(7, dtype=f32), s_ind, bi[[0, 2, 1, 3]],
                np.array([[0, 0], [0, 3], [1, 0], [1, 2], [2, 1], [3, 1], [4, 3]], i64))  # fmt: skip
    shape_case("SparseAdd", P([U, 2], I64), P([U]), P([2], I64), P([U, 2], I64), P([U]), P([2], I64), P([]))
    shape_case("SparseAddGrad", P([U]), P([3, 2], I64), P([4, 2], I64), P([U, 2], I64))
    # SparseConcat
    ci = [np.array([[0, 1], [1, 0]], i64), np.array([[1, 1], [0, 0], [2, 0]], i64)]
    cv = [np.array([1, 2], f32), np.array([3, 4, 5], f32)]
    cs = [np.array([3, 2], i64), np.array([3, 3], i64)]
    kernel_case("SparseConcat", ci, cv, cs, concat_dim=1)
    kernel_case("SparseConcat", ci, cv, cs, concat_dim=-1)
    kernel_case("SparseConcat", ci, cv, [cs[0], np.array([3, 2], i64)], concat_dim=0)
    kernel_case("SparseConcat", [ind1, np.array([[0]], i64)], [S("a", "b", "c"), S("d")],
                [np.array([4], i64), np.array([2], i64)], concat_dim=0)  # fmt: skip
    kernel_case("SparseConcat", [ind3, ind3], [val3, val3], [shp3, shp3], concat_dim=2)
    kernel_case("SparseConcat", [empty_ind, ci[0]], [np.zeros(0, f32), cv[0]], [cs[0], cs[0]], concat_dim=1)
    kernel_case("SparseConcat", ci, cv, cs, concat_dim=0)
    kernel_case("SparseConcat", ci, cv, cs, concat_dim=2)
    kernel_case("SparseConcat", ci, cv, [cs[0], shp3], concat_dim=1)
    shape_case("SparseConcat", [P([2, 2], I64), P([U, 2], I64)], [P([2]), P([3])], [P([2], I64), P([2], I64)],
               concat_dim=0)  # fmt: skip
    shape_case("SparseConcat", [P([2, 2], I64), P([3, 3], I64)], [P([2]), P([3])], [P([2], I64), P([2], I64)],
               concat_dim=0)  # fmt: skip
    # SparseSlice / SparseSliceGrad
    for start, size in (([0, 1], [2, 3]), ([1, 0], [10, 10]), ([4, 0], [1, 4]), ([0, 0], [0, 4]), ([5, 0], [1, 1]),
                        ([2, 2], [1, 1])):  # fmt: skip
        kernel_case("SparseSlice", s_ind, s_val, shp2, np.array(start, i64), np.array(size, i64))
    kernel_case("SparseSlice", ind2, val2, shp2, np.array([0, 1], i64), np.array([3, 3], i64))
    kernel_case("SparseSlice", ind3, val3, shp3, np.array([1, 0, 1], i64), np.array([1, 2, 2], i64))
    kernel_case("SparseSlice", ind1, S("a", "b", "c"), np.array([5], i64), np.array([2], i64), np.array([2], i64))
    kernel_case("SparseSlice", s_ind, s_val, shp2, np.array([0], i64), np.array([2, 3], i64))
    kernel_case("SparseSlice", s_ind, s_val, shp2, np.array([-1, 0], i64), np.array([2, 3], i64))
    kernel_case("SparseSlice", s_ind, s_val, shp2, np.array([0, 0], i64), np.array([-2, 3], i64))
    kernel_case("SparseSliceGrad", np.array([7, 8], f32), s_ind, np.array([0, 1], i64),
                np.array([[0, 2], [1, 1]], i64))  # fmt: skip
    kernel_case("SparseSliceGrad", np.array([7, 8], f32), s_ind, np.array([0, 1], i64),
                np.array([[0, 2], [1, 0]], i64))  # fmt: skip
    shape_case("SparseSlice", P([U, 2], I64), P([U]), P([2], I64), P([2], I64), P([2], I64))
    shape_case("SparseSliceGrad", P([U]), P([6, 2], I64), P([2], I64), P([U, 2], I64))
    # SparseSegment*
    data = rng.integers(-5, 6, (5, 3)).astype(f32)
    for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"):
        kernel_case(op, data, np.array([0, 2, 1, 4, 4], i32), np.array([0, 0, 1, 3, 3], i32))
        kernel_case(op, data.astype(np.float64), np.array([3, 3], i64), np.array([1, 1], i64))
        kernel_case(op, data[:, 0], np.array([0, 1, 2], i32), np.array([0, 1, 1], i64))
        kernel_case(op, data.reshape(5, 3, 1), np.array([1, 0], i32), np.array([0, 2], i32))
        kernel_case(op, data, np.zeros(0, i32), np.zeros(0, i32))
        kernel_case(op, data, np.array([0, 7], i32), np.array([0, 1], i32))
        kernel_case(op, data, np.array([0, 1], i32), np.array([1, 0], i32))
        kernel_case(op, data, np.array([0, 1], i32), np.array([1, 1], i32))
        kernel_case(op, data, np.array([0, 1, 2], i32), np.array([0, 1], i32))
        kernel_case(op, data, np.array([0, 1], i32), np.array([-1, 0], i32))
        kernel_case(op + "WithNumSegments", data, np.array([0, 2, 1], i32), np.array([0, 0, 2], i32), i32(4))
        kernel_case(op + "WithNumSegments", data, np.array([0, 2, 1], i64), np.array([2, 0, 0], i32), i64(3))
        kernel_case(op + "WithNumSegments", data, np.array([0, 2], i32), np.array([0, 3], i32), i32(3))
        kernel_case(op + "Grad", np.arange(6, dtype=f32).reshape(2, 3), np.array([0, 2, 2, 4], i32),
                    np.array([0, 0, 1, 1], i32), i32(5))  # fmt: skip
        kernel_case(op + "Grad", np.arange(6, dtype=f32).reshape(2, 3), np.array([0, 7], i32), np.array([0, 1], i32),
                    i32(5))  # fmt: skip
        shape_case(op, P([U, 3]), P([4], I32), P([U], I32))
        shape_case(op, P([U, 3]), P([4], I32), P([5], I32))
        shape_case(op + "WithNumSegments", P([U, 3]), P([4], I32), P([U], I32), C(7, I32))
        shape_case(op + "Grad", P([U, 3]), P([4], I32), P([U], I32), C(9, I32))
        shape_case(op + "Grad", P([U, 3]), P([4], I32), P([U], I32), C(-1, I32))
    # SparseTensorDenseAdd
    dense = rng.integers(-3, 4, (5, 4)).astype(f32)
    for tidx in (i32, i64):
        kernel_case("SparseTensorDenseAdd", ind2.astype(tidx), val2, shp2.astype(tidx), dense)
    kernel_case("SparseTensorDenseAdd", np.array([[1], [1], [0]], i64), np.array([1, 2, 3], i32), np.array([3], i64),
                np.array([10, 20, 30], i32))  # fmt: skip
    kernel_case("SparseTensorDenseAdd", ind3, val3.astype(np.float64), shp3, np.zeros((2, 2, 3), np.float64))
    kernel_case("SparseTensorDenseAdd", empty_ind, np.zeros(0, f32), shp2, dense)
    kernel_case("SparseTensorDenseAdd", ind2, val2, np.array([5, 3], i64), dense)
    kernel_case("SparseTensorDenseAdd", ind2, val2, shp2, dense[:, :3])
    kernel_case("SparseTensorDenseAdd", ind2, val2[:3], shp2, dense)
    kernel_case("SparseTensorDenseAdd", np.array([[7, 0]], i64), np.ones(1, f32), shp2, dense)
    kernel_case("SparseTensorDenseAdd", ind2, val2, shp3, np.zeros((2, 2, 3), f32))
    shape_case("SparseTensorDenseAdd", P([U, 2], I64), P([U]), P([2], I64), P([5, U]))
    kernel_case("SparseSegmentSum", data.astype(i32), np.array([0, 1, 1], i32), np.array([0, 0, 1], i32))
    del F
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_sparse_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
