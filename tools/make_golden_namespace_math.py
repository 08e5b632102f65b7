"""Record what TensorFlow's everyday ``tf.math``/``tf.nn``/``tf.linalg`` compositions build and compute.

    /work/tfvenv/bin/python tools/make_golden_namespace_math.py

The sibling of ``tools/make_golden_image_ops.py`` (same snippet format and records, the functions of
``tools/make_golden_frontend_ops.py`` reused): ``tf.math.count_nonzero``/``polyval``/``l2_normalize``,
``tf.meshgrid``, ``tf.sequence_mask``, ``tf.clip_by_global_norm``, ``tf.linalg.matrix_transpose``/``logdet``/
``pinv``/``global_norm``, ``tf.nn.conv1d``/``conv2d_transpose``/``max_pool1d``/``silu``/``log_poisson_loss``/
``weighted_cross_entropy_with_logits``/``separable_conv2d``: values, dtypes, placeholders with unknown dims
(graph mode: TF's nodes and static shapes), ``tf.GradientTape`` gradients (eager) and TF's errors for bad input.
Writes ``tests/golden/namespace_math/`` (``graph_cases.json``, ``eager_cases.json``), read by
``tests/api/test_namespace_math_golden.py``.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "namespace_math"

X = "tf.constant([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]])"
SEQ = "tf.reshape(tf.range(24.0) / 10.0, [2, 4, 3])"
IMG = "tf.reshape(tf.range(32.0) / 16.0, [1, 4, 4, 2])"
IMG2 = "tf.reshape(tf.range(224.0) / 50.0, [2, 7, 8, 2])"
SPD = "tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])"


def tape(setup: str, expr: str, wrt: str = "x") -> str:
    """A snippet returning the gradient of ``reduce_sum(expr)`` with respect to ``wrt`` (eager)."""
    body = f"with tf.GradientTape() as t:\n    t.watch({wrt})\n    y = tf.reduce_sum({expr})"
    return f"{setup}\n{body}\nt.gradient(y, {wrt})"


# (case id, snippet, modes) as in make_golden_frontend_ops.py; ids start with "nsmath_".
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ count_nonzero, polyval
    ("nsmath_count_nonzero", f"tf.math.count_nonzero({X})", "ge"),
    ("nsmath_count_nonzero_axis", f"tf.math.count_nonzero({X}, axis=1, keepdims=True, dtype=tf.int32)", "ge"),
    ("nsmath_count_nonzero_bool", "tf.math.count_nonzero(tf.constant([[True, False], [True, True]]), 0)", "ge"),
    ("nsmath_count_nonzero_int", "tf.math.count_nonzero([0, 5, 0, 7])", "e"),
    ("nsmath_count_nonzero_ph", "tf.math.count_nonzero(ph(tf.float32, [None, 3]), axis=-1)", "g"),
    ("nsmath_count_nonzero_ph_rank", "tf.math.count_nonzero(ph(tf.int32))", "g"),
    ("nsmath_polyval", "tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.0, 1.0, 2.0]))", "ge"),
    ("nsmath_polyval_tensors", "tf.math.polyval([tf.constant(2), 3], tf.constant([[1, 2], [3, 4]]))", "ge"),
    ("nsmath_polyval_empty", "tf.math.polyval([], tf.constant([1.0, 2.0]))", "ge"),
    ("nsmath_polyval_not_list", "tf.math.polyval((1.0, 2.0), 1.0)", "ge"),
    # ------------------------------------------------------------------ l2_normalize
    ("nsmath_l2_normalize", f"tf.math.l2_normalize({X})", "ge"),
    ("nsmath_l2_normalize_axis", f"tf.nn.l2_normalize({X}, axis=1)", "ge"),
    ("nsmath_l2_normalize_axes_eps", f"tf.linalg.l2_normalize({X}, [0, 1], epsilon=100.0, name='n')", "ge"),
    ("nsmath_l2_normalize_zero", "tf.math.l2_normalize(tf.zeros([2, 2]), 0)", "e"),
    ("nsmath_l2_normalize_double", "tf.nn.l2_normalize(tf.constant([3.0, 4.0], tf.float64), dim=0)", "e"),
    ("nsmath_l2_normalize_ph", "tf.math.l2_normalize(ph(tf.float32, [None, 4]), -1)", "g"),
    ("nsmath_l2_normalize_grad", tape(f"x = {X}", "tf.math.l2_normalize(x, 1) * [[1.0, 2.0, 3.0]]"), "e"),
    # ------------------------------------------------------------------ meshgrid, sequence_mask, matrix_transpose
    ("nsmath_meshgrid_xy", "tf.meshgrid([1, 2, 3], [4, 5])", "ge"),
    ("nsmath_meshgrid_ij", "tf.meshgrid(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]), indexing='ij')",
     "ge"),
    ("nsmath_meshgrid_3d", "tf.meshgrid([1, 2], [3, 4, 5], [6])", "e"),
    ("nsmath_meshgrid_one", "tf.meshgrid(tf.constant([1.0, 2.0]))", "ge"),
    ("nsmath_meshgrid_ph", "tf.meshgrid(ph(tf.float32, [None]), ph(tf.float32, [3]))", "g"),
    ("nsmath_meshgrid_bad_indexing", "tf.meshgrid([1], [2], indexing='xx')", "ge"),
    ("nsmath_meshgrid_bad_kwarg", "tf.meshgrid([1], [2], sparse=True)", "e"),
    ("nsmath_sequence_mask", "tf.sequence_mask([1, 3, 2], 5)", "ge"),
    ("nsmath_sequence_mask_default_maxlen", "tf.sequence_mask(tf.constant([[1, 3], [2, 0]]))", "ge"),
    ("nsmath_sequence_mask_dtype", "tf.sequence_mask([2, 0, 4], 4, dtype=tf.float32)", "ge"),
    ("nsmath_sequence_mask_ph", "tf.sequence_mask(ph(tf.int32, [None]), dtype=tf.int32)", "g"),
    ("nsmath_sequence_mask_ph_maxlen", "tf.sequence_mask(ph(tf.int64, [3]), ph(tf.int64, []))", "g"),
    ("nsmath_sequence_mask_bad_maxlen", "tf.sequence_mask([1, 2], [3, 4])", "ge"),
    ("nsmath_matrix_transpose", "tf.linalg.matrix_transpose(tf.reshape(tf.range(6), [2, 3]))", "ge"),
    ("nsmath_matrix_transpose_batch", "tf.linalg.matrix_transpose(tf.ones([2, 3, 4]), name='mt')", "ge"),
    ("nsmath_matrix_transpose_unknown_rank", "tf.linalg.matrix_transpose(ph(tf.float32))", "g"),
    ("nsmath_matrix_transpose_rank1", "tf.linalg.matrix_transpose(tf.ones([3]))", "ge"),
    # ------------------------------------------------------------------ clip_by_global_norm, global_norm
    ("nsmath_clip_by_global_norm",
     "c, n = tf.clip_by_global_norm([tf.constant([3.0, 4.0]), tf.constant([[12.0]])], 5.0)\n[*c, n]", "ge"),
    ("nsmath_clip_by_global_norm_none",
     "tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None], 10.0)[0][0]", "ge"),
    ("nsmath_clip_by_global_norm_use_norm",
     "c, n = tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0, use_norm=tf.constant(2.0))\n[*c, n]", "ge"),
    ("nsmath_clip_by_global_norm_ph",
     "c, n = tf.clip_by_global_norm([ph(tf.float32, [None, 2]), ph(tf.float32, [3])], 1.0, name='clip')\n[*c, n]",
     "g"),
    ("nsmath_clip_by_global_norm_not_list", "tf.clip_by_global_norm('abc', 1.0)", "ge"),
    ("nsmath_global_norm", "tf.linalg.global_norm([tf.constant([3.0]), tf.constant([4.0])])", "ge"),
    # ------------------------------------------------------------------ logdet, pinv
    ("nsmath_logdet", f"tf.linalg.logdet({SPD})", "ge"),
    ("nsmath_logdet_batch", f"tf.linalg.logdet(tf.stack([{SPD}, 2.0 * {SPD}]))", "e"),
    ("nsmath_logdet_ph", "tf.linalg.logdet(ph(tf.float64, [None, 3, 3]))", "g"),
    ("nsmath_pinv", "tf.linalg.pinv(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))", "ge"),
    ("nsmath_pinv_rcond", "tf.linalg.pinv(tf.constant([[1.0, 0.0], [0.0, 1e-9]], tf.float64), rcond=1e-6)", "ge"),
    ("nsmath_pinv_ph", "tf.linalg.pinv(ph(tf.float32, [None, 4, 2]))", "g"),
    ("nsmath_pinv_int", "tf.linalg.pinv(tf.constant([[1, 2], [3, 4]]))", "ge"),
    ("nsmath_pinv_rank1", "tf.linalg.pinv(tf.constant([1.0, 2.0]))", "ge"),
    # ------------------------------------------------------------------ conv1d, conv2d_transpose, max_pool1d
    ("nsmath_conv1d", f"tf.nn.conv1d({SEQ}, tf.reshape(tf.range(18.0) / 9.0, [2, 3, 3]), 1, 'SAME')", "ge"),
    ("nsmath_conv1d_valid_stride", f"tf.nn.conv1d({SEQ}, tf.ones([2, 3, 2]), stride=2, padding='VALID')", "ge"),
    ("nsmath_conv1d_dilated", f"tf.nn.conv1d({SEQ}, tf.ones([2, 3, 1]), 1, 'VALID', dilations=2, name='c1')", "e"),
    ("nsmath_conv1d_ph", "tf.nn.conv1d(ph(tf.float32, [None, None, 3]), tf.ones([3, 3, 4]), 1, 'SAME')", "g"),
    # several batch dims: TF folds them into one around the Conv2D (squeeze_batch_dims)
    ("nsmath_conv1d_batch_dims",
     "tf.nn.conv1d(tf.reshape(tf.range(60.0) / 20.0, [2, 2, 5, 3]), tf.reshape(tf.range(18.0) / 9.0, [2, 3, 3]), 1, "
     "'SAME')", "ge"),
    ("nsmath_conv1d_batch_dims_ph",
     "tf.nn.conv1d(ph(tf.float32, [None, 2, None, 3]), tf.ones([3, 3, 4]), 2, 'VALID', name='c1b')", "g"),
    ("nsmath_conv1d_batch_dims_ph_known",
     "tf.nn.conv1d(ph(tf.float32, [4, 2, 7, 3]), tf.ones([3, 3, 4]), 1, 'SAME')", "g"),
    ("nsmath_conv2d_batch_dims",
     "tf.nn.conv2d(tf.reshape(tf.range(120.0) / 40.0, [2, 3, 4, 5, 1]), tf.ones([2, 2, 1, 2]), 1, 'SAME')", "ge"),
    ("nsmath_conv2d_batch_dims_ph",
     "tf.nn.conv2d(ph(tf.float32, [None, 3, None, 5, 2]), tf.ones([3, 3, 2, 4]), [1, 2], 'VALID', name='c2b')",
     "g"),
    ("nsmath_conv1d_bad_format", f"tf.nn.conv1d({SEQ}, tf.ones([2, 3, 1]), 1, 'SAME', data_format='NHCW')", "ge"),
    ("nsmath_conv1d_grad", tape(f"x = {SEQ}", "tf.nn.conv1d(x, tf.ones([2, 3, 2]), 1, 'SAME')"), "e"),
    ("nsmath_conv2d_transpose",
     "tf.nn.conv2d_transpose(tf.reshape(tf.range(12.0), [1, 2, 2, 3]), tf.ones([3, 3, 2, 3]), [1, 4, 4, 2], 2)",
     "ge"),
    ("nsmath_conv2d_transpose_valid",
     "tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.reshape(tf.range(4.0), [2, 2, 1, 1]), [1, 3, 3, 1], 1, "
     "padding='VALID')", "ge"),
    ("nsmath_conv2d_transpose_tensor_shape",
     "tf.nn.conv2d_transpose(tf.ones([2, 2, 2, 3]), tf.ones([2, 2, 4, 3]), tf.constant([2, 4, 4, 4]), [2, 2], "
     "name='deconv')", "ge"),
    ("nsmath_conv2d_transpose_ph",
     "tf.nn.conv2d_transpose(ph(tf.float32, [None, 2, 2, 3]), tf.ones([3, 3, 2, 3]), [5, 4, 4, 2], 2)", "g"),
    ("nsmath_conv2d_transpose_bad_channels",
     "tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 3]), tf.ones([3, 3, 2, 4]), [1, 4, 4, 2], 2)", "ge"),
    ("nsmath_conv2d_transpose_grad",
     tape("x = tf.reshape(tf.range(12.0), [1, 2, 2, 3])",
          "tf.nn.conv2d_transpose(x, tf.ones([3, 3, 2, 3]), [1, 4, 4, 2], 2) * tf.range(2.0)"), "e"),
    ("nsmath_max_pool1d", f"tf.nn.max_pool1d({SEQ}, 2, 2, 'VALID')", "ge"),
    ("nsmath_max_pool1d_same", f"tf.nn.max_pool1d({SEQ}, [3], 1, 'SAME', name='mp')", "ge"),
    ("nsmath_max_pool1d_ncw", "tf.nn.max_pool1d(ph(tf.float32, [None, 3, 8]), 2, 2, 'VALID', data_format='NCW')",
     "g"),
    ("nsmath_max_pool1d_ph", "tf.nn.max_pool1d(ph(tf.float32, [None, None, 3]), 2, 1, 'SAME')", "g"),
    # ------------------------------------------------------------------ silu/swish, losses, separable_conv2d
    ("nsmath_silu", "tf.nn.silu(tf.constant([-2.0, 0.0, 1.5]))", "e"),
    ("nsmath_swish_beta", "tf.nn.swish(tf.constant([-2.0, 0.0, 1.5]), beta=0.5)", "e"),
    ("nsmath_silu_grad", tape("x = tf.constant([-2.0, 0.0, 1.5])", "tf.nn.silu(x)"), "e"),
    ("nsmath_log_poisson_loss", "tf.nn.log_poisson_loss(tf.constant([0.0, 0.5, 2.0, 5.0]), "
     "tf.constant([0.1, -0.2, 0.3, 1.0]))", "ge"),
    ("nsmath_log_poisson_loss_full", "tf.nn.log_poisson_loss(tf.constant([0.0, 0.5, 2.0, 5.0]), "
     "tf.constant([0.1, -0.2, 0.3, 1.0]), compute_full_loss=True)", "ge"),
    ("nsmath_log_poisson_loss_shapes", "tf.nn.log_poisson_loss(tf.ones([2]), tf.ones([3]))", "ge"),
    ("nsmath_weighted_cross_entropy",
     "tf.nn.weighted_cross_entropy_with_logits(tf.constant([1.0, 0.0, 1.0]), tf.constant([0.3, -2.0, 4.0]), 2.0)",
     "ge"),
    ("nsmath_weighted_cross_entropy_ph",
     "tf.nn.weighted_cross_entropy_with_logits(ph(tf.float32, [None, 2]), ph(tf.float32, [4, None]), 0.5, "
     "name='wce')", "g"),
    ("nsmath_weighted_cross_entropy_shapes",
     "tf.nn.weighted_cross_entropy_with_logits(tf.ones([2]), tf.ones([3]), 2.0)", "ge"),
    ("nsmath_weighted_cross_entropy_grad",
     tape("x = tf.constant([0.3, -2.0, 4.0])", "tf.nn.weighted_cross_entropy_with_logits([1.0, 0.0, 1.0], x, 3.0)"),
     "e"),
    ("nsmath_separable_conv2d",
     f"tf.nn.separable_conv2d({IMG}, tf.ones([2, 2, 2, 2]) / 4.0, tf.reshape(tf.range(12.0), [1, 1, 4, 3]), "
     "[1, 1, 1, 1], 'VALID')", "ge"),
    ("nsmath_separable_conv2d_same",
     f"tf.nn.separable_conv2d({IMG}, tf.ones([3, 3, 2, 1]), tf.ones([1, 1, 2, 2]), [1, 2, 2, 1], 'SAME', "
     "name='sep')", "ge"),
    ("nsmath_separable_conv2d_ph",
     "tf.nn.separable_conv2d(ph(tf.float32, [None, None, None, 2]), tf.ones([3, 3, 2, 1]), tf.ones([1, 1, 2, 5]), "
     "[1, 1, 1, 1], 'SAME')", "g"),
    ("nsmath_separable_conv2d_bad_pointwise",
     f"tf.nn.separable_conv2d({IMG}, tf.ones([2, 2, 2, 1]), tf.ones([2, 1, 2, 3]), [1, 1, 1, 1], 'VALID')", "ge"),
    # dilated: TF's with_space_to_batch (SpaceToBatchND, the op with VALID padding, BatchToSpaceND)
    ("nsmath_separable_conv2d_dilated",
     f"tf.nn.separable_conv2d({IMG2}, tf.reshape(tf.range(36.0) / 20.0, [3, 3, 2, 2]), tf.ones([1, 1, 4, 3]), "
     "[1, 1, 1, 1], 'SAME', dilations=[2, 3])", "ge"),
    ("nsmath_separable_conv2d_dilated_valid",
     f"tf.nn.separable_conv2d({IMG2}, tf.ones([2, 3, 2, 1]) / 6.0, tf.ones([1, 1, 2, 2]), [1, 1, 1, 1], 'VALID', "
     "dilations=2, name='sepd')", "ge"),
    ("nsmath_separable_conv2d_dilated_ph",
     "tf.nn.separable_conv2d(ph(tf.float32, [None, None, None, 2]), tf.ones([3, 3, 2, 1]), tf.ones([1, 1, 2, 5]), "
     "[1, 1, 1, 1], 'SAME', dilations=[2, 2])", "g"),
    ("nsmath_depthwise_conv2d_dilated",
     f"tf.nn.depthwise_conv2d({IMG2}, tf.reshape(tf.range(36.0) / 20.0, [3, 3, 2, 2]), [1, 1, 1, 1], 'SAME', "
     "dilations=[2, 2])", "ge"),
    ("nsmath_depthwise_conv2d_dilated_strided",
     f"tf.nn.depthwise_conv2d({IMG2}, tf.ones([3, 3, 2, 1]), [1, 2, 2, 1], 'SAME', dilations=[2, 2])", "ge"),
    ("nsmath_depthwise_conv2d_dilated_ph",
     "tf.nn.depthwise_conv2d(ph(tf.float32, [2, None, 8, 2]), tf.ones([3, 2, 2, 1]), [1, 1, 1, 1], 'VALID', "
     "dilations=[3, 2])", "g"),
    ("nsmath_required_space_to_batch_paddings",
     "tf.required_space_to_batch_paddings([7, 10], [2, 3], base_paddings=[[1, 1], [2, 0]])", "ge"),
    ("nsmath_required_space_to_batch_paddings_ph",
     "tf.required_space_to_batch_paddings(ph(tf.int32, [2]), [2, 3])", "g"),
    ("nsmath_with_space_to_batch_pool",
     f"tf.nn.with_space_to_batch({IMG2}, [2, 2], 'SAME', lambda inp, n, pad: tf.nn.max_pool2d(inp, 3, 1, pad), "
     "filter_shape=[3, 3])", "ge"),
    ("nsmath_with_space_to_batch_bad_rate",
     f"tf.nn.with_space_to_batch({IMG2}, [0, 2], 'VALID', lambda inp, n, pad: inp)", "ge"),
    # ------------------------------------------------------------------ safe divisions, NaN/inf tests
    ("nsmath_divide_no_nan", "tf.math.divide_no_nan(tf.constant([3.0, -1.0, 0.0, 2.0]), [0.0, 2.0, 0.0, 4.0])", "ge"),
    ("nsmath_divide_no_nan_int", "tf.math.divide_no_nan(tf.constant([3, 4]), tf.constant([0, 8]))", "ge"),
    ("nsmath_divide_no_nan_python_x", "tf.math.divide_no_nan(3.0, tf.constant([0.0, 2.0], tf.float64))", "ge"),
    ("nsmath_divide_no_nan_nan", "tf.math.divide_no_nan(tf.constant([float('nan'), float('inf')]), 0.0)", "e"),
    ("nsmath_divide_no_nan_ph", "tf.math.divide_no_nan(ph(tf.float32, [None, 3]), ph(tf.float32, [3]), name='dnn')",
     "g"),
    ("nsmath_divide_no_nan_dtypes", "tf.math.divide_no_nan(tf.constant([1.0]), tf.constant([1.0], tf.float64))",
     "ge"),
    ("nsmath_divide_no_nan_bool", "tf.math.divide_no_nan(tf.constant([True]), tf.constant([True]))", "ge"),
    ("nsmath_divide_no_nan_shapes", "tf.math.divide_no_nan(tf.ones([2]), tf.ones([3]))", "e"),
    ("nsmath_divide_no_nan_grad",
     tape("x = tf.constant([[1.0, 2.0], [3.0, 4.0]])\ny = tf.constant([0.0, 2.0])",
          "tf.math.divide_no_nan(x, y) * [[1.0, 2.0]]", "[x, y]"), "e"),
    ("nsmath_xlogy", "tf.math.xlogy(tf.constant([0.0, 0.0, 2.0, 3.0]), [0.0, float('nan'), 3.0, 0.5])", "ge"),
    ("nsmath_xlogy_ph", "tf.math.xlogy(ph(tf.float64, [None]), ph(tf.float64, [2, 1]))", "g"),
    ("nsmath_xlogy_grad",
     tape("x = tf.constant([[0.0, 2.0, 3.0]])\ny = tf.constant([[1.5], [0.5]])", "tf.math.xlogy(x, y)", "[x, y]"),
     "e"),
    ("nsmath_xdivy", "tf.math.xdivy(tf.constant([0.0, 1.0, 6.0]), [0.0, 0.0, 4.0])", "ge"),
    ("nsmath_xdivy_ph", "tf.math.xdivy(ph(tf.float32, [None, 2]), 2.0, name='xd')", "g"),
    ("nsmath_xdivy_grad",
     tape("x = tf.constant([0.0, 2.0, 3.0])\ny = tf.constant([1.5, 0.5, -2.0])", "tf.math.xdivy(x, y)", "[x, y]"),
     "e"),
    ("nsmath_xlog1py", "tf.math.xlog1py(tf.constant([0.0, 1.0, 2.0], tf.float64), [-1.0, 1e-9, 3.0])", "ge"),
    ("nsmath_xlog1py_grad",
     tape("x = tf.constant([0.0, 2.0, 3.0])\ny = tf.constant([1.5, 0.5, 2.0])", "tf.math.xlog1py(x, y)", "[x, y]"),
     "e"),
    ("nsmath_xlogy_int", "tf.math.xlogy(tf.constant([1, 2]), tf.constant([1, 2]))", "ge"),
    ("nsmath_is_nan", "tf.math.is_nan(tf.constant([1.0, float('nan'), float('inf')]))", "ge"),
    ("nsmath_is_inf", "tf.math.is_inf(tf.constant([1.0, float('nan'), -float('inf')], tf.float16))", "ge"),
    ("nsmath_is_nan_ph", "tf.math.is_nan(ph(tf.float64, [None, 2]), name='nan')", "g"),
    ("nsmath_is_nan_int", "tf.math.is_nan(tf.constant([1, 2]))", "ge"),
    ("nsmath_is_inf_grad", tape("x = tf.constant([1.0, 2.0])", "tf.cast(tf.math.is_inf(x), tf.float32) * x"), "e"),
    # ------------------------------------------------------------------ special functions
    ("nsmath_lgamma", "tf.math.lgamma(tf.constant([0.5, 1.0, 2.5, -1.5, 0.0, 100.0]))", "ge"),
    ("nsmath_lgamma_ph", "tf.math.lgamma(ph(tf.float64, [None]))", "g"),
    ("nsmath_lgamma_grad", tape("x = tf.constant([0.5, 1.0, 2.5, 7.0])", "tf.math.lgamma(x)"), "e"),
    ("nsmath_lgamma_int", "tf.math.lgamma(tf.constant([1, 2]))", "e"),
    ("nsmath_digamma", "tf.math.digamma(tf.constant([0.5, 1.0, 2.5, -1.5, 0.0, 30.0], tf.float64))", "ge"),
    ("nsmath_digamma_ph", "tf.math.digamma(ph(tf.float32, [2, None]), name='dg')", "g"),
    ("nsmath_erfinv", "tf.math.erfinv(tf.constant([-1.0, -0.5, 0.0, 0.25, 0.9, 1.0, 2.0]))", "ge"),
    ("nsmath_erfinv_grad", tape("x = tf.constant([-0.5, 0.0, 0.25, 0.9])", "tf.math.erfinv(x)"), "e"),
    ("nsmath_erfinv_ph", "tf.math.erfinv(ph(tf.float32, [None]), name='ei')", "g"),
    ("nsmath_ndtri", "tf.math.ndtri(tf.constant([0.0, 0.025, 0.5, 0.975, 1.0], tf.float64))", "ge"),
    ("nsmath_ndtri_grad", tape("x = tf.constant([0.1, 0.5, 0.8])", "tf.math.ndtri(x)"), "e"),
    ("nsmath_ndtri_ph", "tf.math.ndtri(ph(tf.float64, [None, None]))", "g"),
    ("nsmath_erfcinv", "tf.math.erfcinv(tf.constant([0.0, 0.5, 1.0, 1.5, 2.0]))", "ge"),
    # ------------------------------------------------------------------ selu, softsign
    ("nsmath_selu", "tf.nn.selu(tf.constant([-3.0, -1.0, 0.0, 0.5, 2.0]))", "ge"),
    ("nsmath_selu_double", "tf.nn.selu(tf.constant([[-0.5, 1.5]], tf.float64), name='s')", "ge"),
    ("nsmath_selu_ph", "tf.nn.selu(ph(tf.float32, [None, 4]))", "g"),
    ("nsmath_selu_int", "tf.nn.selu(tf.constant([1, 2]))", "ge"),
    ("nsmath_selu_grad", tape("x = tf.constant([-3.0, -1.0, 0.5, 2.0])", "tf.nn.selu(x) * [1.0, 2.0, 3.0, 4.0]"), "e"),
    ("nsmath_softsign", "tf.math.softsign(tf.constant([-3.0, -1.0, 0.0, 0.5, 2.0]))", "ge"),
    ("nsmath_softsign_nn", "tf.nn.softsign(tf.constant([[-0.5, 1.5]], tf.float16))", "ge"),
    ("nsmath_softsign_ph", "tf.nn.softsign(ph(tf.float64, [None]), name='ss')", "g"),
    ("nsmath_softsign_grad", tape("x = tf.constant([-3.0, -1.0, 0.5, 2.0])", "tf.nn.softsign(x) * x"), "e"),
    # ------------------------------------------------------------------ roll, searchsorted, histograms, bincount
    ("nsmath_roll", "tf.roll(tf.reshape(tf.range(12), [3, 4]), shift=[1, -1], axis=[0, 1])", "ge"),
    ("nsmath_roll_repeated_axis", "tf.roll(tf.constant([1.0, 2.0, 3.0, 4.0]), [1, 2], [0, 0])", "ge"),
    ("nsmath_roll_strings", "tf.roll(tf.constant(['a', 'b', 'c']), -1, 0, name='r')", "ge"),
    ("nsmath_roll_ph", "tf.roll(ph(tf.float32, [None, 3]), ph(tf.int32, []), 1)", "g"),
    ("nsmath_roll_bad_axis", "tf.roll(tf.ones([2, 3]), 1, 2)", "e"),
    ("nsmath_roll_scalar", "tf.roll(tf.constant(1.0), 1, 0)", "ge"),
    ("nsmath_roll_grad", tape("x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
                              "tf.roll(x, [1, 2], [0, 1]) * [[1.0, 2.0, 3.0]]"), "e"),
    ("nsmath_searchsorted", "tf.searchsorted(tf.constant([[0.0, 3.0, 9.0, 9.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0]]), "
     "tf.constant([[2.0, 9.0, 10.0], [0.0, 2.0, 6.0]]))", "ge"),
    ("nsmath_searchsorted_right", "tf.searchsorted([0, 3, 9, 9, 10], [9, 2, 11], side='right', out_type=tf.int64)",
     "ge"),
    ("nsmath_searchsorted_3d", "tf.searchsorted(tf.reshape(tf.range(12), [2, 2, 3]), tf.ones([2, 2, 1], tf.int32))",
     "e"),
    ("nsmath_searchsorted_ph", "tf.searchsorted(ph(tf.float32, [None, 5]), ph(tf.float32, [None, 2]), name='ss')",
     "g"),
    ("nsmath_searchsorted_bad_side", "tf.searchsorted([1, 2], [1], side='middle')", "ge"),
    ("nsmath_searchsorted_batch_mismatch", "tf.searchsorted(tf.ones([2, 3]), tf.ones([3, 1]))", "e"),
    ("nsmath_histogram_fixed_width",
     "tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), [0.0, 5.0], nbins=5)", "ge"),
    ("nsmath_histogram_fixed_width_int",
     "tf.histogram_fixed_width(tf.constant([[1, 5], [9, 3]]), [0, 10], 4, dtype=tf.int64, name='h')", "ge"),
    ("nsmath_histogram_fixed_width_ph", "tf.histogram_fixed_width(ph(tf.float32, [None]), [0.0, 1.0], nbins=7)", "g"),
    ("nsmath_histogram_fixed_width_bad_range", "tf.histogram_fixed_width([1.0], [1.0, 0.0], 3)", "e"),
    ("nsmath_unravel_index", "tf.unravel_index([1, 5, 11], [3, 4])", "ge"),
    ("nsmath_unravel_index_scalar", "tf.unravel_index(tf.constant(17, tf.int64), tf.constant([2, 3, 4], tf.int64))",
     "ge"),
    ("nsmath_unravel_index_ph", "tf.unravel_index(ph(tf.int32, [None]), ph(tf.int32, [3]))", "g"),
    ("nsmath_unravel_index_out_of_bound", "tf.unravel_index([12], [3, 4])", "e"),
    ("nsmath_in_top_k", "tf.math.in_top_k([2, 0, 1], [[0.1, 0.5, 0.4], [0.3, 0.3, 0.2], [0.6, 0.1, 0.3]], 2)", "ge"),
    ("nsmath_in_top_k_nn", "tf.nn.in_top_k(tf.constant([1, 3], tf.int64), tf.ones([2, 3]), tf.constant(1, tf.int64))",
     "ge"),
    ("nsmath_in_top_k_ph", "tf.math.in_top_k(ph(tf.int32, [None]), ph(tf.float32, [None, 10]), 5, name='itk')", "g"),
    ("nsmath_in_top_k_mismatch", "tf.math.in_top_k([1, 2], tf.ones([3, 4]), 1)", "ge"),
    ("nsmath_bincount", "tf.math.bincount([1, 1, 2, 5, 0, 1])", "ge"),
    ("nsmath_bincount_weights", "tf.math.bincount(tf.constant([[1, 2], [2, 0]]), weights=tf.constant([[0.5, 1.0], "
     "[2.0, 3.0]]), minlength=5)", "ge"),
    ("nsmath_bincount_maxlength", "tf.math.bincount([1, 7, 3, 3], maxlength=4, dtype=tf.float32)", "ge"),
    ("nsmath_bincount_axis", "tf.math.bincount(tf.constant([[1, 2, 2], [0, 0, 3]]), axis=-1, binary_output=True)",
     "ge"),
    ("nsmath_bincount_empty", "tf.math.bincount(tf.constant([], tf.int32))", "e"),
    ("nsmath_bincount_ph", "tf.math.bincount(ph(tf.int32, [None]), minlength=3)", "g"),
    ("nsmath_bincount_negative", "tf.math.bincount([1, -1])", "e"),
    ("nsmath_bincount_bad_axis", "tf.math.bincount([1, 2], axis=1)", "ge"),
    ("nsmath_bincount_weights_binary", "tf.math.bincount([1, 2], weights=[1.0, 2.0], binary_output=True)", "ge"),
    # ------------------------------------------------------------------ linspace
    ("nsmath_linspace", "tf.linspace(0.0, 1.0, 5)", "ge"),
    ("nsmath_linspace_one", "tf.linspace(tf.constant(2.0, tf.float64), 3.0, 1)", "ge"),
    ("nsmath_linspace_nd", "tf.linspace([0.0, 1.0], [[1.0, 3.0], [2.0, 5.0]], 3, axis=-1, name='ls')", "ge"),
    ("nsmath_linspace_axis0", "tf.linspace([0.0, 10.0], [1.0, 20.0], tf.constant(4, tf.int64))", "ge"),
    ("nsmath_linspace_ph", "tf.linspace(ph(tf.float32, [None]), ph(tf.float32, []), ph(tf.int32, []))", "g"),
    ("nsmath_linspace_float_num", "tf.linspace(0.0, 1.0, 2.5)", "ge"),
    ("nsmath_linspace_zero", "tf.linspace(0.0, 1.0, 0)", "e"),
    ("nsmath_linspace_shapes", "tf.linspace([0.0, 1.0], [1.0, 2.0, 3.0], 3)", "e"),
    # ------------------------------------------------------------------ space_to_depth, cross, slogdet, cumlogsumexp
    ("nsmath_space_to_depth", "tf.nn.space_to_depth(tf.reshape(tf.range(32.0), [1, 4, 4, 2]), 2)", "ge"),
    ("nsmath_space_to_depth_ph", "tf.nn.space_to_depth(ph(tf.float32, [None, 6, 4, 3]), 2, name='s2d')", "g"),
    ("nsmath_space_to_depth_indivisible", "tf.nn.space_to_depth(tf.ones([1, 3, 4, 1]), 2)", "ge"),
    ("nsmath_space_to_depth_grad", tape("x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])",
                                        "tf.nn.space_to_depth(x, 2) * [1.0, 2.0, 3.0, 4.0]"), "e"),
    ("nsmath_depth_to_space", "tf.nn.depth_to_space(tf.reshape(tf.range(16), [1, 2, 2, 4]), 2)", "ge"),
    ("nsmath_depth_to_space_ph", "tf.nn.depth_to_space(ph(tf.float32, [2, None, 3, 9]), 3)", "g"),
    ("nsmath_depth_to_space_grad", tape("x = tf.reshape(tf.range(16.0), [1, 2, 2, 4])",
                                        "tf.nn.depth_to_space(x, 2) * [[1.0], [2.0], [3.0], [4.0]]"), "e"),
    ("nsmath_cross", "tf.linalg.cross([[1.0, 0.0, 0.0], [1.0, 2.0, 3.0]], [[0.0, 1.0, 0.0], [4.0, 5.0, 6.0]])", "ge"),
    ("nsmath_cross_int", "tf.linalg.cross(tf.constant([1, 2, 3]), tf.constant([3, 2, 1]), name='c')", "ge"),
    ("nsmath_cross_ph", "tf.linalg.cross(ph(tf.float64, [None, 3]), ph(tf.float64, [4, None]))", "g"),
    ("nsmath_cross_bad", "tf.linalg.cross(tf.ones([2, 4]), tf.ones([2, 4]))", "ge"),
    ("nsmath_cross_grad", tape("x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])",
                               "tf.linalg.cross(x, [[0.0, 1.0, 2.0]] * tf.ones([2, 1])) * [1.0, 2.0, 3.0]"), "e"),
    ("nsmath_slogdet", f"tf.linalg.slogdet({SPD})", "ge"),
    ("nsmath_slogdet_batch", "tf.linalg.slogdet(tf.constant([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 4.0], [1.0, 2.0]]], "
     "tf.float64))", "ge"),
    ("nsmath_slogdet_ph", "tf.linalg.slogdet(ph(tf.float32, [None, 3, None]), name='sld')", "g"),
    ("nsmath_slogdet_grad", tape(f"x = {SPD}", "tf.linalg.slogdet(x).log_abs_determinant"), "e"),
    ("nsmath_slogdet_not_square", "tf.linalg.slogdet(tf.ones([2, 3]))", "ge"),
    ("nsmath_cumulative_logsumexp", "tf.math.cumulative_logsumexp(tf.constant([[1.0, 2.0, 3.0], [0.0, -1.0, 50.0]]), "
     "axis=1)", "ge"),
    ("nsmath_cumulative_logsumexp_flags", "tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0, 3.0], tf.float64), "
     "exclusive=True, reverse=True)", "ge"),
    ("nsmath_cumulative_logsumexp_ph", "tf.math.cumulative_logsumexp(ph(tf.float32, [None, 4]), 1, name='cl')", "g"),
    ("nsmath_cumulative_logsumexp_grad", tape("x = tf.constant([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])",
                                              "tf.math.cumulative_logsumexp(x, 1) * [[1.0, -2.0, 0.5]]"), "e"),
    ("nsmath_cumulative_logsumexp_axis", "tf.math.cumulative_logsumexp(tf.ones([2, 3]), axis=2)", "e"),
    # ------------------------------------------------------------------ embedding_lookup
    ("nsmath_embedding_lookup", "tf.nn.embedding_lookup(tf.reshape(tf.range(12.0), [4, 3]), [[0, 3], [2, 2]])", "ge"),
    ("nsmath_embedding_lookup_int64", "tf.nn.embedding_lookup(tf.constant([[1.0, 2.0], [3.0, 4.0]]), "
     "tf.constant([1, 0], tf.int64), name='emb')", "ge"),
    ("nsmath_embedding_lookup_ph", "tf.nn.embedding_lookup(ph(tf.float32, [None, 8]), ph(tf.int32, [None, 5]))", "g"),
    ("nsmath_embedding_lookup_bad_id", "tf.nn.embedding_lookup(tf.ones([3, 2]), [3])", "e"),
    ("nsmath_embedding_lookup_grad",  # the gradient is IndexedSlices: its dense form
     "x = tf.reshape(tf.range(8.0), [4, 2])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    y = tf.reduce_sum(tf.nn.embedding_lookup(x, [1, 3, 1]) * [1.0, 2.0])\n"
     "tf.convert_to_tensor(t.gradient(y, x))", "e"),
    # ------------------------------------------------------------------ confusion_matrix
    ("nsmath_confusion_matrix", "tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])", "ge"),
    ("nsmath_confusion_matrix_num_classes",
     "tf.math.confusion_matrix(tf.constant([[0], [1], [2]]), [0, 2, 2], num_classes=4, dtype=tf.float32)", "ge"),
    ("nsmath_confusion_matrix_weights",
     "tf.math.confusion_matrix([0, 1, 1], [1, 1, 0], weights=[0.5, 2.0, 1.0], dtype=tf.float64, name='cm')", "ge"),
    ("nsmath_confusion_matrix_ph", "tf.math.confusion_matrix(ph(tf.int32, [None]), ph(tf.int64, [None]), 5)", "g"),
    ("nsmath_confusion_matrix_ph_rank", "tf.math.confusion_matrix(ph(tf.int32), ph(tf.int32, [None, 1]))", "g"),
    ("nsmath_confusion_matrix_negative", "tf.math.confusion_matrix([0, -1], [0, 1])", "e"),
    ("nsmath_confusion_matrix_out_of_bound", "tf.math.confusion_matrix([0, 3], [0, 1], num_classes=3)", "e"),
    # ------------------------------------------------------------------ space_to_batch_nd, batch_to_space
    ("nsmath_space_to_batch_nd", "tf.space_to_batch_nd(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), [2, 2], "
     "[[0, 0], [0, 0]])", "ge"),
    ("nsmath_space_to_batch_pad", "tf.space_to_batch(tf.reshape(tf.range(12), [1, 2, 6]), [2], [[1, 1]], name='stb')",
     "ge"),
    ("nsmath_space_to_batch_nn", "tf.nn.space_to_batch(tf.ones([2, 3, 3, 2]), [3, 3], tf.zeros([2, 2], tf.int64))",
     "ge"),
    ("nsmath_space_to_batch_ph", "tf.space_to_batch_nd(ph(tf.float32, [None, 4, 6, 3]), [2, 3], [[0, 0], [1, 2]])",
     "g"),
    ("nsmath_space_to_batch_ph_block", "tf.space_to_batch_nd(ph(tf.float32, [2, 4, 6, 3]), ph(tf.int32, [2]), "
     "[[0, 0], [0, 0]])", "g"),
    ("nsmath_space_to_batch_indivisible", "tf.space_to_batch_nd(tf.ones([1, 3, 4, 1]), [2, 2], [[0, 0], [0, 0]])",
     "ge"),
    ("nsmath_space_to_batch_grad", tape("x = tf.reshape(tf.range(8.0), [1, 2, 4, 1])",
                                        "tf.space_to_batch_nd(x, [1, 2], [[0, 0], [1, 1]]) * [[[[1.0]]], [[[2.0]]]]"),
     "e"),
    ("nsmath_batch_to_space", "tf.batch_to_space(tf.reshape(tf.range(16.0), [4, 2, 2, 1]), [2, 2], [[0, 0], [1, 1]])",
     "ge"),
    ("nsmath_batch_to_space_int_block", "tf.batch_to_space(tf.ones([4, 1, 1, 3]), 2, [[0, 0], [0, 0]])", "ge"),
    ("nsmath_batch_to_space_ph", "tf.batch_to_space(ph(tf.float32, [None, 2, None, 3]), [2, 2], [[1, 1], [2, 0]], "
     "name='bts')", "g"),
    ("nsmath_batch_to_space_bad_batch", "tf.batch_to_space(tf.ones([3, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])", "ge"),
    ("nsmath_batch_to_space_grad",
     tape("x = tf.reshape(tf.range(8.0), [4, 1, 2, 1])",
          "tf.batch_to_space(x, [2, 2], [[0, 1], [0, 0]]) * [[[1.0], [2.0], [3.0], [4.0]]]"), "e"),
    # ------------------------------------------------------------------ local_response_normalization
    ("nsmath_lrn", "tf.nn.local_response_normalization(tf.reshape(tf.range(24.0) / 10.0, [1, 2, 2, 6]), 2)", "ge"),
    ("nsmath_lrn_attrs", "tf.nn.lrn(tf.reshape(tf.range(16.0), [1, 2, 2, 4]), depth_radius=1, bias=2.0, alpha=0.5, "
     "beta=0.75, name='n')", "ge"),
    ("nsmath_lrn_ph", "tf.nn.lrn(ph(tf.float32, [None, None, None, 16]))", "g"),
    ("nsmath_lrn_rank", "tf.nn.lrn(tf.ones([2, 3, 4]))", "ge"),
    ("nsmath_lrn_double", "tf.nn.lrn(tf.ones([1, 1, 1, 2], tf.float64))", "ge"),
    ("nsmath_lrn_grad", tape("x = tf.reshape(tf.range(24.0) / 10.0 - 1.0, [1, 2, 2, 6])",
                             "tf.nn.lrn(x, 2, 1.5, 0.3, 0.6) * [1.0, -2.0, 3.0, 0.5, 1.0, 2.0]"), "e"),
    # ------------------------------------------------------------------ reduce_euclidean_norm
    ("nsmath_reduce_euclidean_norm", f"tf.math.reduce_euclidean_norm({X})", "ge"),
    ("nsmath_reduce_euclidean_norm_axis", f"tf.math.reduce_euclidean_norm({X}, axis=1, keepdims=True, name='en')",
     "ge"),
    ("nsmath_reduce_euclidean_norm_int", "tf.math.reduce_euclidean_norm(tf.constant([[1, 2], [2, 3]]), 0)", "ge"),
    ("nsmath_reduce_euclidean_norm_ph", "tf.math.reduce_euclidean_norm(ph(tf.float32, [None, 3]))", "g"),
    ("nsmath_reduce_euclidean_norm_ph_axis", "tf.math.reduce_euclidean_norm(ph(tf.float64, [None, 3]), -1)", "g"),
    ("nsmath_reduce_euclidean_norm_grad",
     tape(f"x = {X} + 1.0", "tf.math.reduce_euclidean_norm(x, 0) * [1.0, 2.0, 3.0]"), "e"),
    ("nsmath_reduce_euclidean_norm_bad_axis", f"tf.math.reduce_euclidean_norm({X}, 2)", "ge"),
]  # fmt: skip


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_namespace_math.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
