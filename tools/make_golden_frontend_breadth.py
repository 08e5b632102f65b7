"""Record what TensorFlow's op-breadth API (issue 13) builds and computes, for modtensor's front-end tests.

    /work/tfvenv/bin/python tools/make_golden_frontend_breadth.py

The sibling of ``tools/make_golden_frontend_ops.py`` (same snippet format and records, its
functions reused): ``tf.einsum``, ``tf.tensordot``, ``tf.gather_nd``, ``tf.scatter_nd``,
``tf.tensor_scatter_nd_*``, ``tf.sort``/``argsort``, ``tf.math.top_k``, ``tf.cumsum``,
``tf.unique``, ``tf.split``, ``tf.eye``, ``tf.norm``, ``tf.linalg.*``, ``tf.image.resize``,
``tf.clip_by_norm``, segment reductions, ``tf.nn.moments``/``batch_normalization``/``dropout``,
``tf.strings.*`` and TF's conversion errors. Writes ``tests/golden/frontend_breadth/``
(``graph_cases.json``, ``eager_cases.json``, ``api_names.json`` with ``tf.linalg``,
``tf.image`` and ``tf.strings``), read by ``tests/api/test_breadth_ops.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_ops as base  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "frontend_breadth"

_array_json = base._array_json


def _array_json_any(value):
    """base._array_json, also for a scalar string's ``numpy()`` (bytes, not an array)."""
    return _array_json(np.array(value, dtype=object) if isinstance(value, bytes) else value)


base._array_json = _array_json_any

M = "tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])"
R = "tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])"
IMG = "tf.reshape(tf.range(32.0), [1, 4, 4, 2])"

# (case id, snippet, modes) as in make_golden_frontend_ops.py; ids start with "breadth_".
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ einsum, tensordot, matmul
    ("breadth_einsum_matmul", "tf.einsum('ij,jk->ik', tf.ones([2, 3]), tf.ones([3, 4]))", "ge"),
    ("breadth_einsum_ph", "tf.einsum('abc,cde->abde', ph(tf.float32, [None, 5, 4]), ph(tf.float32, [4, 2, 3]))", "g"),
    ("breadth_einsum_implicit", "tf.einsum('ij,jk', tf.reshape(tf.range(6.0), [2, 3]), tf.ones([3, 2]))", "ge"),
    ("breadth_einsum_ellipsis", "tf.einsum('...ij,...jk->...ik', tf.ones([2, 1, 2, 3]), tf.ones([4, 3, 2]))", "ge"),
    ("breadth_einsum_trace", "tf.einsum('ii', tf.reshape(tf.range(9.0), [3, 3]))", "ge"),
    ("breadth_einsum_spaces", "tf.einsum('i j , j k -> i k', tf.ones([2, 3]), tf.ones([3, 1]))", "e"),
    ("breadth_einsum_three", "tf.einsum('ij,jk,kl->il', tf.ones([2, 3]), tf.ones([3, 4]), tf.ones([4, 2]))", "e"),
    ("breadth_einsum_bad_labels", "tf.einsum('ij,jk->il', tf.ones([2, 3]), tf.ones([3, 4]))", "ge"),
    ("breadth_einsum_bad_count", "tf.einsum('ij,jk->ik', tf.ones([2, 3]))", "ge"),
    ("breadth_einsum_bad_dims", "tf.einsum('ij,jk->ik', tf.ones([2, 3]), tf.ones([4, 4]))", "ge"),
    ("breadth_tensordot_int", "tf.tensordot(tf.reshape(tf.range(6.0), [2, 3]), tf.ones([3, 2]), 1)", "ge"),
    ("breadth_tensordot_lists", "tf.tensordot(tf.ones([2, 3, 4]), tf.ones([4, 3, 5]), [[1, 2], [1, 0]])", "ge"),
    ("breadth_tensordot_zero", "tf.tensordot(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]), 0)", "e"),
    ("breadth_tensordot_unknown", "tf.tensordot(ph(tf.float32, [None, 3]), tf.ones([3, 2]), 1)", "g"),
    ("breadth_matmul_output_type",
     "tf.matmul(tf.constant([[1, 2]], tf.int8), tf.constant([[3], [4]], tf.int8), output_type=tf.int32)", "ge"),
    ("breadth_matmul_output_type_batched",
     "tf.matmul(tf.ones([2, 1, 2], tf.int8), tf.ones([2, 3], tf.int8), output_type=tf.int32)", "ge"),
    # ------------------------------------------------------------------ gather / scatter / broadcast / reverse
    ("breadth_gather_nd", f"tf.gather_nd({R}, [[0, 1], [2, 0]])", "ge"),
    ("breadth_gather_nd_rows", f"tf.gather_nd({R}, [[2], [0]])", "ge"),
    ("breadth_gather_nd_bad", f"tf.gather_nd({R}, [[3, 0]])", "e"),
    ("breadth_scatter_nd", "tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5])", "ge"),
    ("breadth_scatter_nd_rows", "tf.scatter_nd([[0], [2]], tf.ones([2, 3]), [4, 3])", "ge"),
    ("breadth_tensor_scatter_update", f"tf.tensor_scatter_nd_update({R}, [[0], [2]], [[9.0, 9.0], [8.0, 8.0]])",
     "ge"),
    ("breadth_tensor_scatter_add", f"tf.tensor_scatter_nd_add({R}, [[1, 1]], [10.0])", "ge"),
    ("breadth_broadcast_to", "tf.broadcast_to(tf.constant([1, 2, 3]), [2, 3])", "ge"),
    ("breadth_broadcast_to_bad", "tf.broadcast_to(tf.constant([1, 2, 3]), [2, 2])", "ge"),
    ("breadth_reverse", f"tf.reverse({R}, [0])", "ge"),
    ("breadth_reverse_both", f"tf.reverse({R}, [-1, 0])", "e"),
    ("breadth_split", "tf.split(tf.reshape(tf.range(12), [2, 6]), 3, axis=1)", "ge"),
    ("breadth_split_sizes", "tf.split(tf.reshape(tf.range(12), [6, 2]), [1, 2, -1])", "ge"),
    ("breadth_split_bad", "tf.split(tf.range(5), 2)", "ge"),
    ("breadth_unique", "tf.unique(tf.constant([4, 1, 4, 2, 1]))", "ge"),
    ("breadth_unique_int64", "tf.unique(tf.constant([2.5, 1.0, 2.5]), out_idx=tf.int64)", "ge"),
    ("breadth_unique_nan", "tf.unique(tf.constant([1.0, float('nan'), 2.0, float('nan'), 1.0, -0.0, 0.0]))", "ge"),
    ("breadth_unique_bool", "tf.unique(tf.constant([True, False, True, True]))", "e"),
    # ------------------------------------------------------------------ sort, top_k, scans, segments
    ("breadth_top_k", "tf.math.top_k(tf.constant([[1.0, 5.0, 3.0, 5.0]]), k=2)", "ge"),
    ("breadth_nn_top_k", "tf.nn.top_k(tf.constant([3, 1, 2]), 3, sorted=True)", "ge"),
    ("breadth_sort", "tf.sort(tf.constant([3.0, -1.0, 2.0, 2.0]))", "ge"),
    ("breadth_sort_desc", "tf.sort(tf.constant([[3, 1], [0, 7]]), axis=0, direction='DESCENDING')", "ge"),
    ("breadth_sort_uint8", "tf.sort(tf.constant([3, 200, 0], tf.uint8))", "e"),
    ("breadth_argsort", "tf.argsort(tf.constant([3.0, -1.0, 2.0, 2.0]))", "ge"),
    ("breadth_argsort_desc", "tf.argsort(tf.constant([1, 3, 3, 2]), direction='DESCENDING')", "e"),
    ("breadth_sort_bad_direction", "tf.sort(tf.constant([1.0]), direction='UP')", "ge"),
    ("breadth_cumsum", "tf.cumsum(tf.constant([[1, 2], [3, 4]]), axis=1)", "ge"),
    ("breadth_cumsum_flags", "tf.cumsum(tf.constant([1.0, 2.0, 3.0]), exclusive=True, reverse=True)", "ge"),
    ("breadth_cumprod", "tf.math.cumprod(tf.constant([1.0, 2.0, 3.0]), exclusive=True)", "ge"),
    ("breadth_segment_sum", "tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0, 4.0]), [0, 0, 1, 3])", "ge"),
    ("breadth_segment_mean", "tf.math.segment_mean(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [0, 0])", "e"),
    ("breadth_segment_max", "tf.math.segment_max(tf.constant([1, 5, 3]), [0, 1, 1])", "e"),
    ("breadth_segment_min_prod", "[tf.math.segment_min(tf.constant([4, 5, 3]), [0, 0, 2]), "
     "tf.math.segment_prod(tf.constant([4, 5, 3]), [0, 0, 2])]", "e"),
    ("breadth_unsorted_segment_sum", "tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0]), [2, 0, 2], 3)", "ge"),
    ("breadth_unsorted_segment_max", "tf.math.unsorted_segment_max(tf.constant([1, 5, 3]), [1, 1, 0], 3)", "e"),
    ("breadth_unsorted_segment_min_prod", "[tf.math.unsorted_segment_min(tf.constant([1.0, 5.0]), [1, 1], 2), "
     "tf.math.unsorted_segment_prod(tf.constant([2.0, 5.0]), [1, 1], 2)]", "e"),
    ("breadth_unsorted_segment_mean", "tf.math.unsorted_segment_mean(tf.constant([[1.0, 2.0], [3.0, 4.0], "
     "[5.0, 6.0]]), [0, 0, 2], 3)", "e"),
    ("breadth_unsorted_segment_sqrt_n", "tf.math.unsorted_segment_sqrt_n(tf.constant([1.0, 2.0, 3.0]), [0, 0, 1], 2)",
     "e"),
    # ------------------------------------------------------------------ eye, norm, clip_by_norm
    ("breadth_eye", "tf.eye(3)", "ge"),
    ("breadth_eye_rect", "tf.eye(2, 3, dtype=tf.int32)", "e"),
    ("breadth_eye_batch", "tf.eye(2, batch_shape=[2])", "e"),
    ("breadth_norm", "tf.norm(tf.constant([3.0, 4.0]))", "ge"),
    ("breadth_norm_axis", f"tf.norm({R}, ord=1, axis=1)", "e"),
    ("breadth_norm_inf", f"tf.norm({R}, ord=np.inf, axis=0, keepdims=True)", "e"),
    ("breadth_norm_p", "tf.norm(tf.constant([1.0, -2.0, 2.0]), ord=3)", "e"),
    ("breadth_norm_fro", f"tf.norm({R}, ord='fro', axis=[0, 1])", "e"),
    ("breadth_norm_matrix", f"[tf.norm({R}, ord=1, axis=[0, 1]), tf.norm({R}, ord=np.inf, axis=[0, 1]), "
     f"tf.norm({R}, ord=2, axis=[-2, -1])]", "e"),
    ("breadth_norm_bad_ord", "tf.norm(tf.constant([1.0]), ord=-1)", "e"),
    ("breadth_clip_by_norm", "tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0)", "ge"),
    ("breadth_clip_by_norm_axes", f"tf.clip_by_norm({R}, 2.0, axes=[1])", "e"),
    ("breadth_clip_by_norm_zero", "tf.clip_by_norm(tf.zeros([3]), 1.0)", "e"),
    # ------------------------------------------------------------------ tf.linalg
    ("breadth_linalg_inv", f"tf.linalg.inv({M})", "ge"),
    ("breadth_linalg_det", f"tf.linalg.det({M})", "ge"),
    ("breadth_linalg_cholesky", f"tf.linalg.cholesky({M})", "ge"),
    ("breadth_linalg_solve", f"tf.linalg.solve({M}, tf.constant([[1.0], [2.0], [3.0]]))", "ge"),
    ("breadth_linalg_qr_r", f"tf.abs(tf.linalg.qr({R}).r)", "e"),
    ("breadth_linalg_qr_graph", f"tf.linalg.qr({R}, full_matrices=True)", "g"),
    ("breadth_linalg_svd_s", f"tf.linalg.svd({R}, compute_uv=False)", "ge"),
    ("breadth_linalg_svd", f"tf.linalg.svd({R})", "g"),
    ("breadth_linalg_eigh_values", f"tf.linalg.eigh({M})[0]", "e"),
    ("breadth_linalg_eigvalsh", f"tf.linalg.eigvalsh({M})", "e"),
    ("breadth_linalg_diag", "tf.linalg.diag(tf.constant([1, 2, 3]))", "ge"),
    ("breadth_linalg_diag_k", "tf.linalg.diag(tf.constant([[1, 2], [3, 4]]), k=(0, 1))", "e"),
    ("breadth_linalg_diag_part", f"tf.linalg.diag_part({R})", "ge"),
    ("breadth_linalg_band_part", f"tf.linalg.band_part({M}, 0, -1)", "ge"),
    ("breadth_linalg_trace", f"tf.linalg.trace({M})", "ge"),
    ("breadth_linalg_matmul", f"tf.linalg.matmul({R}, {R}, transpose_a=True)", "e"),
    ("breadth_linalg_inv_not_square", f"tf.linalg.inv({R})", "ge"),
    # ------------------------------------------------------------------ tf.image
    ("breadth_image_resize", f"tf.image.resize({IMG}, [6, 3])", "ge"),
    ("breadth_image_resize_nearest", f"tf.image.resize({IMG}, [2, 8], method='nearest')", "ge"),
    ("breadth_image_resize_bicubic", f"tf.image.resize({IMG}, [5, 5], method=tf.image.ResizeMethod.BICUBIC)", "e"),
    ("breadth_image_resize_area", f"tf.image.resize({IMG}, [2, 2], method='area')", "e"),
    ("breadth_image_resize_3d", "tf.image.resize(tf.reshape(tf.range(8.0), [2, 2, 2]), [3, 3])", "ge"),
    ("breadth_image_resize_int", "tf.image.resize(tf.ones([1, 2, 2, 1], tf.int32), [3, 3])", "e"),
    ("breadth_image_resize_aspect", f"tf.image.resize({IMG}, [8, 6], preserve_aspect_ratio=True)", "e"),
    ("breadth_image_resize_bad_rank", "tf.image.resize(tf.ones([2, 2]), [3, 3])", "ge"),
    # TF 1's spellings (tf.compat.v1.image): align_corners, no half-pixel centers by default
    ("breadth_v1_resize_bilinear", f"tf.compat.v1.image.resize_bilinear({IMG}, [6, 3])", "ge"),
    ("breadth_v1_resize_bilinear_ac", f"tf.compat.v1.image.resize_bilinear({IMG}, [7, 5], align_corners=True)", "ge"),
    ("breadth_v1_resize_bilinear_hpc",
     f"tf.compat.v1.image.resize_bilinear({IMG}, [6, 3], half_pixel_centers=True)", "e"),
    ("breadth_v1_resize_nearest", f"tf.compat.v1.image.resize_nearest_neighbor({IMG}, [3, 7])", "ge"),
    ("breadth_v1_resize_bicubic", f"tf.compat.v1.image.resize_bicubic({IMG}, [5, 5], align_corners=True)", "e"),
    ("breadth_v1_resize_area", f"tf.compat.v1.image.resize_area({IMG}, [3, 3])", "e"),
    ("breadth_v1_resize_images", "tf.compat.v1.image.resize_images(tf.reshape(tf.range(8.0), [2, 2, 2]), [3, 3])",
     "ge"),
    ("breadth_v1_resize_images_method",
     f"tf.compat.v1.image.resize_images({IMG}, [3, 2], method=tf.compat.v1.image.ResizeMethod.NEAREST_NEIGHBOR,"
     " align_corners=True)", "e"),
    ("breadth_v1_resize_int", "tf.compat.v1.image.resize(tf.ones([1, 2, 2, 1], tf.int32), [3, 3], method=2)", "e"),
    ("breadth_v1_resize_bad_method", f"tf.compat.v1.image.resize_images({IMG}, [3, 3], method=7)", "e"),
    # ------------------------------------------------------------------ tf.nn
    ("breadth_nn_moments", f"tf.nn.moments({R}, axes=[0])", "ge"),
    ("breadth_nn_moments_keepdims", f"tf.nn.moments({R}, axes=[0, 1], keepdims=True)", "e"),
    ("breadth_nn_batch_normalization",
     f"tf.nn.batch_normalization({R}, tf.constant([1.0, 2.0]), tf.constant([4.0, 1.0]), 0.5, 2.0, 1e-3)", "ge"),
    ("breadth_nn_dropout_seeded", "tf.random.set_seed(5)\ntf.nn.dropout(tf.ones([8]), 0.5, seed=3)", "ge"),
    ("breadth_nn_dropout_noise_shape", "tf.random.set_seed(5)\ntf.nn.dropout(tf.ones([2, 4]), 0.25, "
     "noise_shape=[1, 4], seed=7)", "e"),
    ("breadth_nn_dropout_zero", "tf.nn.dropout(tf.ones([3]), 0.0)", "e"),
    ("breadth_nn_dropout_bad_rate", "tf.nn.dropout(tf.ones([3]), 1.0)", "ge"),
    ("breadth_nn_dropout_int", "tf.nn.dropout(tf.ones([3], tf.int32), 0.5)", "ge"),
    # ------------------------------------------------------------------ tf.strings
    ("breadth_strings_join", "tf.strings.join([tf.constant(['a', 'b']), 'x'], separator='-')", "ge"),
    ("breadth_strings_join_scalars", "tf.strings.join(['a', 'b', 'c'])", "ge"),
    ("breadth_strings_join_bad", "tf.strings.join([tf.constant(['a', 'b']), tf.constant(['c', 'd', 'e'])])", "e"),
    ("breadth_strings_length", "tf.strings.length(tf.constant(['héllo', '']))", "ge"),
    ("breadth_strings_length_utf8", "tf.strings.length(tf.constant(['héllo', '€']), unit='UTF8_CHAR')", "ge"),
    ("breadth_strings_split_scalar", "tf.strings.split('a  b c')", "e"),  # TF's graph goes through RaggedTensor ops
    ("breadth_strings_split_sep", "tf.strings.split('a,,b', sep=',')", "e"),
    ("breadth_strings_split_maxsplit", "tf.strings.split('a b c d', maxsplit=2)", "e"),
    ("breadth_strings_split_ragged", "r = tf.strings.split(tf.constant(['a b', '', 'c d e']))\n"
     "[r.values, r.row_splits, r.to_tensor(), r.row_lengths(), r.nrows()]", "e"),
    ("breadth_strings_split_ragged_default", "tf.strings.split(tf.constant(['a b', 'c'])).to_tensor('?')", "e"),
    ("breadth_strings_regex_replace", "tf.strings.regex_replace(tf.constant(['Hello World', 'aaa']), 'l+|a', '_')",
     "ge"),
    ("breadth_strings_regex_groups", "tf.strings.regex_replace('John Smith', r'(\\w+) (\\w+)', r'\\2, \\1')", "e"),
    ("breadth_strings_regex_first", "tf.strings.regex_replace('aaa', 'a', 'b', replace_global=False)", "e"),
    ("breadth_strings_regex_dynamic", "tf.strings.regex_replace(tf.constant(['abc']), tf.constant('b'), 'X')", "ge"),
    ("breadth_strings_to_number", "tf.strings.to_number(tf.constant(['1.5', '-2', '3e2']))", "ge"),
    ("breadth_strings_to_number_int", "tf.strings.to_number(tf.constant(['12', '-7']), out_type=tf.int64)", "ge"),
    ("breadth_strings_to_number_bad", "tf.strings.to_number(tf.constant(['12a']))", "e"),
    ("breadth_strings_hash", "tf.strings.to_hash_bucket_fast(tf.constant(['hello', 'world', '', 'héllo']), 1000)",
     "ge"),
    ("breadth_strings_substr", "tf.strings.substr(tf.constant(['hello', 'world']), 1, 3)", "ge"),
    ("breadth_strings_substr_utf8", "tf.strings.substr(tf.constant(['héllo']), 0, 2, unit='UTF8_CHAR')", "e"),
    ("breadth_strings_lower_upper", "[tf.strings.lower(tf.constant(['AbC'])), tf.strings.upper(tf.constant(['AbC']))]",
     "ge"),
    # ------------------------------------------------------------------ conversions (TF 2.21 wraps integers)
    ("breadth_conv_int32_overflow", "tf.constant(2**40, dtype=tf.int32)", "ge"),
    ("breadth_conv_uint8_negative", "tf.constant(-1, dtype=tf.uint8)", "ge"),
    ("breadth_conv_uint8_256", "tf.constant(256, dtype=tf.uint8)", "ge"),
    ("breadth_conv_add_big_python_int", "tf.constant([1]) + 2**40", "ge"),
    ("breadth_conv_mul_big_python_int", "tf.constant([1]) * 2**40", "e"),
    ("breadth_conv_list_overflow", "tf.constant([1, 2**40], dtype=tf.int32)", "ge"),
    ("breadth_conv_numpy_int64_to_int32", "tf.constant(np.array([2**40, 5]), dtype=tf.int32)", "ge"),
    ("breadth_conv_int64_out_of_range", "tf.constant(2**63)", "e"),
    ("breadth_conv_int64_dtype_out_of_range", "tf.constant(2**63, dtype=tf.int64)", "e"),
    ("breadth_conv_uint64_max", "tf.constant(2**64 - 1, dtype=tf.uint64)", "e"),
    ("breadth_conv_float_to_int", "tf.constant(3.5, dtype=tf.int32)", "ge"),
    ("breadth_conv_float32_overflow", "tf.constant(1e40, dtype=tf.float32)", "e"),
    ("breadth_conv_uint8_plus_300", "tf.constant([1], tf.uint8) + 300", "e"),
    ("breadth_conv_signature_float64_numpy",
     "f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.float32)])\n"
     "f(np.array([1.5, 1e40]))", "e"),
    ("breadth_conv_signature_int64_numpy",
     "f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.int32)])\n"
     "f(np.array([2**40, 3]))", "e"),
    ("breadth_conv_signature_float_numpy_to_int",
     "f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.int32)])\n"
     "f(np.array([1.5, -2.7]))", "e"),
    ("breadth_conv_signature_float_list_to_int",
     "f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.int32)])\n"
     "f([1.5, 2.0])", "e"),
    ("breadth_conv_signature_int_list_to_float",
     "f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.float32)])\n"
     "f([1, 2**40])", "e"),
]  # fmt: skip


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_frontend_breadth.py", ("tf.linalg", "tf.image", "tf.strings"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
