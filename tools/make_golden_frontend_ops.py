"""Record what TensorFlow's public op functions build and compute, for modtensor's front-end tests.

    /tmp/tfvenv/bin/python tools/make_golden_frontend_ops.py

Each case is a snippet of TF 2 code (``tf``, ``np`` and ``ph`` = ``tf.compat.v1.placeholder``
in scope; statements on lines before a final expression). It runs

* in a fresh ``tf.Graph`` (mode "g"): the fixture keeps the output tensors' names, dtypes and
  static shapes and the nodes they depend on (name, op, inputs, attrs; a ``Const``'s value
  decoded), or the error class and message;
* eagerly (mode "e"): the fixture keeps the values (dtype, shape, flat list), or the error.

Writes ``tests/golden/frontend_ops/graph_cases.json`` and ``eager_cases.json``, read by
``tests/api/test_*_ops.py`` (which run the same snippets with ``modtensor`` as ``tf``), and
``api_names.json``: the public names of ``tf.math``, ``tf.nn``, ``tf.random`` and those of
the top level, so the tests can check that modtensor exports each name where TF does.
TensorFlow is used only here, never by modtensor or its tests.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
from google.protobuf import text_format

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "frontend_ops"

# (case id, snippet, modes): "g" graph structure, "e" eager values. Ids start with the test module's
# area (math_, array_, nn_, random_) so each test file picks its own.
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ math: binary arithmetic
    ("math_add_tensors", "tf.add(ph(tf.float32, [2, 3]), ph(tf.float32, [3]))", "g"),
    ("math_add_python_y", "tf.add(ph(tf.float32, [2]), 1)", "g"),
    ("math_add_python_both", "tf.add(1, 2)", "ge"),
    ("math_add_float_int", "tf.add(1.5, 2)", "ge"),
    ("math_add_named", "tf.add(ph(tf.float32, [2]), 2.0, name='myadd')", "g"),
    ("math_add_values", "tf.add(tf.constant([1.5, -2.0]), tf.constant([[1.0], [2.0]]))", "e"),
    ("math_add_mixed_dtypes", "tf.add(tf.constant(1), tf.constant(1.5))", "ge"),
    ("math_add_strings", "tf.add(tf.constant(['a', 'b']), 'c')", "ge"),
    ("math_subtract", "tf.subtract(tf.constant([5, 7]), 2)", "ge"),
    ("math_multiply", "tf.multiply(tf.constant([1.5, 2.0]), 3.0)", "ge"),
    ("math_multiply_bad_broadcast", "tf.multiply(tf.ones([2, 3]), tf.ones([4]))", "ge"),
    ("math_divide_ints", "tf.divide(tf.constant([7, -7]), tf.constant([2, 2]))", "ge"),
    ("math_divide_int64", "tf.divide(tf.constant([7], tf.int64), 2)", "ge"),
    ("math_divide_int8", "tf.divide(tf.constant([7], tf.int8), tf.constant([2], tf.int8))", "ge"),
    ("math_divide_python_x", "tf.divide(3, tf.constant([2.0, 4.0]))", "ge"),
    ("math_divide_named", "tf.divide(tf.constant([1.0]), 4.0, name='d')", "ge"),
    ("math_divide_floats", "tf.divide(tf.constant([1.0, -1.0, 0.0]), 0.0)", "e"),
    ("math_truediv_mismatch", "tf.math.truediv(tf.constant(1), tf.constant(2.0))", "ge"),
    ("math_truediv_floats", "tf.math.truediv(tf.constant([3.0]), tf.constant([2.0]))", "ge"),
    ("math_floordiv", "tf.math.floordiv(tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2]))", "ge"),
    ("math_floordiv_float", "tf.math.floordiv(tf.constant([7.5, -7.5]), 2.0)", "e"),
    ("math_floormod", "tf.math.floormod(tf.constant([7, -7, 7, -7]), tf.constant([3, 3, -3, -3]))", "ge"),
    ("math_mod_float", "tf.math.mod(tf.constant([5.5, -5.5]), 2.0)", "ge"),
    ("math_realdiv", "tf.realdiv(tf.constant([1.0, 2.0]), 4.0)", "ge"),
    ("math_int_div_by_zero", "tf.math.floordiv(tf.constant([1]), tf.constant([0]))", "e"),
    ("math_pow", "tf.pow(tf.constant([2.0, 3.0]), 2)", "ge"),
    ("math_pow_ints", "tf.pow(2, tf.constant([0, 3, 10]))", "ge"),
    ("math_squared_difference", "tf.math.squared_difference(tf.constant([1.0, 5.0]), 3.0)", "ge"),
    ("math_maximum_nan", "tf.maximum(tf.constant([1.0, float('nan'), 3.0]), 2.0)", "ge"),
    ("math_minimum", "tf.minimum(tf.constant([1, 5]), tf.constant([[3], [0]]))", "ge"),
    ("math_add_n", "tf.add_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.constant([5.0, 6.0])])", "ge"),
    ("math_add_n_one", "tf.add_n([tf.constant([1, 2])])", "ge"),
    ("math_add_n_one_named", "tf.add_n([tf.constant([1, 2])], name='total')", "g"),
    ("math_add_n_empty", "tf.add_n([])", "ge"),
    ("math_add_n_bad_shapes", "tf.add_n([tf.ones([2]), tf.ones([3])])", "g"),
    # ------------------------------------------------------------------ math: matmul
    ("math_matmul", "tf.matmul(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), tf.ones([3, 2]))", "ge"),
    ("math_matmul_placeholders", "tf.matmul(ph(tf.float32, [None, 3]), ph(tf.float32, [3, 4]))", "g"),
    (
        "math_matmul_transpose_b",
        "tf.matmul(tf.reshape(tf.range(6.0), [2, 3]), tf.ones([2, 3]), transpose_b=True)",
        "ge",
    ),
    ("math_matmul_adjoint_a", "tf.matmul(tf.reshape(tf.range(6.0), [3, 2]), tf.ones([3, 2]), adjoint_a=True)", "ge"),
    (
        "math_matmul_batched",
        "tf.matmul(tf.reshape(tf.range(12.0), [2, 2, 3]), tf.reshape(tf.range(6.0), [3, 2]))",
        "ge",
    ),
    (
        "math_matmul_batched_transpose",
        "tf.matmul(tf.reshape(tf.range(12.0), [2, 3, 2]), tf.ones([1, 3, 4]), transpose_a=True)",
        "ge",
    ),
    ("math_matmul_unknown_rank", "tf.matmul(ph(tf.float32, None), ph(tf.float32, [3, 4]))", "g"),
    ("math_matmul_python_lists", "tf.matmul([[1, 2]], [[3], [4]])", "ge"),
    ("math_matmul_bad_shapes", "tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))", "ge"),
    ("math_matmul_bad_shapes_ph", "tf.matmul(ph(tf.float32, [2, 3]), ph(tf.float32, [4, 5]))", "g"),
    ("math_matmul_mixed_dtypes", "tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.int32))", "ge"),
    (
        "math_matmul_transpose_and_adjoint",
        "tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a=True, adjoint_a=True)",
        "ge",
    ),
    # ------------------------------------------------------------------ math: unary
    ("math_negative", "tf.negative(tf.constant([1, -2]))", "ge"),
    ("math_abs", "tf.abs(tf.constant([-1.5, 2.0]))", "ge"),
    ("math_abs_python", "tf.abs(-3)", "ge"),
    ("math_square", "tf.square(tf.constant([3, -4]))", "ge"),
    ("math_sqrt", "tf.sqrt(tf.constant([4.0, 2.0, -1.0]))", "ge"),
    ("math_sqrt_int", "tf.sqrt(tf.constant([4]))", "ge"),
    ("math_rsqrt", "tf.math.rsqrt(tf.constant([4.0, 0.25]))", "ge"),
    ("math_exp", "tf.exp(tf.constant([0.0, 1.0, -1.0]))", "ge"),
    ("math_log", "tf.math.log(tf.constant([1.0, 2.718281828, 0.0]))", "ge"),
    ("math_tanh", "tf.tanh(tf.constant([0.5, -2.0]))", "ge"),
    ("math_sigmoid", "tf.sigmoid(tf.constant([0.0, 2.0, -30.0]))", "ge"),
    ("math_sigmoid_python", "tf.sigmoid(1.0)", "ge"),
    ("math_erf", "tf.math.erf(tf.constant([0.0, 0.5, -1.5]))", "ge"),
    ("math_erfc", "tf.math.erfc(tf.constant([0.0, 0.5, 3.0]))", "ge"),
    ("math_sign", "tf.sign(tf.constant([-2.0, 0.0, 3.0]))", "ge"),
    ("math_floor_ceil", "[tf.floor(tf.constant([-1.5, 1.5])), tf.math.ceil(tf.constant([-1.5, 1.5]))]", "ge"),
    ("math_round", "tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.7]))", "ge"),
    ("math_round_int", "tf.round(tf.constant([1, 2]))", "ge"),
    ("math_reciprocal", "tf.math.reciprocal(tf.constant([2.0, -4.0]))", "ge"),
    ("math_sin_cos", "[tf.sin(tf.constant([0.5])), tf.cos(tf.constant([0.5]))]", "ge"),
    ("math_expm1_log1p", "[tf.math.expm1(tf.constant([1e-5])), tf.math.log1p(tf.constant([1e-5]))]", "ge"),
    # ------------------------------------------------------------------ math: comparisons and logic
    ("math_less", "tf.less(tf.constant([1, 5]), 3)", "ge"),
    (
        "math_compare_all",
        "x = tf.constant([1.0, 2.0, 3.0])\n"
        "[tf.less_equal(x, 2.0), tf.greater(x, 2.0), tf.greater_equal(x, 2.0), tf.equal(x, 2.0), "
        "tf.not_equal(x, 2.0)]",
        "ge",
    ),
    ("math_equal_bad_shapes", "tf.equal(tf.ones([2]), tf.ones([3]))", "ge"),
    (
        "math_logical",
        "a = tf.constant([True, True, False, False])\nb = tf.constant([True, False, True, False])\n"
        "[tf.logical_and(a, b), tf.logical_or(a, b), tf.logical_not(a), tf.math.logical_xor(a, b)]",
        "ge",
    ),
    ("math_logical_bad_dtype", "tf.logical_and(tf.constant([1]), tf.constant([0]))", "ge"),
    # ------------------------------------------------------------------ math: reductions
    ("math_reduce_sum_all", "tf.reduce_sum(tf.constant([[1, 2, 3], [4, 5, 6]]))", "ge"),
    ("math_reduce_sum_axis", "tf.reduce_sum(tf.constant([[1, 2, 3], [4, 5, 6]]), axis=1)", "ge"),
    (
        "math_reduce_sum_keepdims",
        "tf.reduce_sum(tf.constant([[1.0, 2.0], [3.0, 4.0]]), axis=[0, 1], keepdims=True)",
        "ge",
    ),
    ("math_reduce_sum_negative_axis", "tf.reduce_sum(tf.ones([2, 3, 4]), axis=-1)", "ge"),
    ("math_reduce_sum_scalar", "tf.reduce_sum(tf.constant(5.0))", "ge"),
    ("math_reduce_sum_python", "tf.reduce_sum([1, 2, 3])", "ge"),
    ("math_reduce_sum_unknown_rank", "tf.reduce_sum(ph(tf.float32, None))", "g"),
    ("math_reduce_sum_partial", "tf.reduce_sum(ph(tf.float32, [None, 3]))", "g"),
    ("math_reduce_sum_partial_axis", "tf.reduce_sum(ph(tf.float32, [None, 3]), axis=0)", "g"),
    ("math_reduce_sum_bad_axis", "tf.reduce_sum(tf.ones([2, 3]), axis=2)", "ge"),
    ("math_reduce_sum_bool", "tf.reduce_sum(tf.constant([True]))", "ge"),
    ("math_reduce_mean_int", "tf.reduce_mean(tf.constant([1, 2, 4]))", "ge"),
    ("math_reduce_mean", "tf.reduce_mean(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)", "ge"),
    (
        "math_reduce_max_min_prod",
        "x = tf.constant([[1.0, -2.0], [3.0, 4.0]])\n"
        "[tf.reduce_max(x), tf.reduce_min(x, axis=1), tf.reduce_prod(x, axis=0, keepdims=True)]",
        "ge",
    ),
    (
        "math_reduce_all_any",
        "x = tf.constant([[True, False], [True, True]])\n"
        "[tf.reduce_all(x), tf.reduce_any(x, axis=1), tf.reduce_all(x, axis=0, keepdims=True)]",
        "ge",
    ),
    ("math_reduce_max_empty", "tf.reduce_max(tf.zeros([0]))", "e"),
    # ------------------------------------------------------------------ math: argmax, cast, range, clip
    ("math_argmax", "tf.argmax(tf.constant([[1, 9, 3], [7, 2, 8]]))", "ge"),
    ("math_argmax_axis1_int32", "tf.argmax(tf.constant([[1, 9, 3], [7, 2, 8]]), axis=1, output_type=tf.int32)", "ge"),
    ("math_argmax_math_none", "tf.math.argmax(tf.constant([3.0, 1.0, 4.0]), axis=None)", "ge"),
    ("math_argmax_bad_axis_type", "tf.argmax(tf.constant([1, 2]), axis=np.int64(0))", "ge"),
    ("math_argmin", "tf.argmin(tf.constant([[1, 9, 3], [7, 2, 8]]), axis=1)", "ge"),
    ("math_argmax_ties", "tf.argmax(tf.constant([2.0, 5.0, 5.0, 1.0]))", "e"),
    ("math_cast_float_to_int", "tf.cast(tf.constant([1.7, -1.7, 2.5, -0.5]), tf.int32)", "ge"),
    ("math_cast_to_bool", "tf.cast(tf.constant([0.0, 0.5, -2.0]), tf.bool)", "ge"),
    ("math_cast_bool_to_float", "tf.cast(tf.constant([True, False]), tf.float32)", "ge"),
    ("math_cast_same_dtype", "tf.cast(ph(tf.float32, [2]), tf.float32)", "g"),
    ("math_cast_python_same", "tf.cast(1.0, tf.float32)", "ge"),
    ("math_cast_python_int", "tf.cast([1, 2], tf.float64, name='to64')", "ge"),
    ("math_cast_int_overflow", "tf.cast(tf.constant([300, -1]), tf.uint8)", "ge"),
    ("math_cast_half", "tf.cast(tf.constant([1.0009765625, 70000.0]), tf.float16)", "ge"),
    ("math_range", "tf.range(5)", "ge"),
    ("math_range_start_limit_delta", "tf.range(1, 10, 2)", "ge"),
    ("math_range_floats", "tf.range(0.0, 1.0, 0.25)", "ge"),
    ("math_range_dtype", "tf.range(5, dtype=tf.float32)", "ge"),
    ("math_range_mixed", "tf.range(1, 5.5)", "ge"),
    ("math_range_int64_tensor", "tf.range(tf.constant(3, tf.int64))", "ge"),
    ("math_range_negative_delta", "tf.range(5, 0, -2)", "ge"),
    ("math_range_zero_delta", "tf.range(0, 5, 0)", "ge"),
    ("math_range_named", "tf.range(3, name='r')", "g"),
    ("math_range_float_steps", "[tf.range(0.0, 2.4, 0.1), tf.range(0.0, 2.4, 0.1, dtype=tf.float64)]", "ge"),
    ("math_clip_by_value", "tf.clip_by_value(tf.constant([-2.0, 0.5, 9.0]), 0.0, 1.0)", "ge"),
    ("math_clip_by_value_widens", "tf.clip_by_value(tf.constant([1.0, 2.0]), [[0.0], [1.0]], 3.0)", "g"),
    ("math_scalar_mul", "tf.math.scalar_mul(2, tf.constant([1.5, 2.0]))", "ge"),
    # ------------------------------------------------------------------ array: shapes
    ("array_reshape", "tf.reshape(tf.range(6), [2, 3])", "ge"),
    ("array_reshape_infer", "tf.reshape(tf.range(6), (-1, 2))", "ge"),
    ("array_reshape_tensor_shape", "tf.reshape(ph(tf.float32, [None, 4]), tf.constant([2, -1]))", "g"),
    ("array_reshape_bad", "tf.reshape(tf.range(6), [4])", "ge"),
    ("array_shape", "tf.shape(tf.ones([2, 3]))", "ge"),
    ("array_shape_partial", "tf.shape(ph(tf.float32, [None, 3]))", "g"),
    ("array_shape_int64", "tf.shape(ph(tf.float32, [None, 3]), out_type=tf.int64)", "g"),
    ("array_shape_int64_values", "tf.shape(tf.ones([2, 3]), out_type=tf.int64)", "e"),
    ("array_size", "tf.size(tf.ones([2, 3]))", "ge"),
    ("array_size_partial", "tf.size(ph(tf.float32, [None, 3]))", "g"),
    ("array_size_zero_dim", "tf.size(ph(tf.float32, [None, 0]))", "g"),
    ("array_size_int64", "tf.size(tf.ones([2, 3]), out_type=tf.int64)", "ge"),
    ("array_rank", "tf.rank(tf.ones([2, 3]))", "ge"),
    ("array_rank_unknown", "tf.rank(ph(tf.float32, None))", "g"),
    ("array_transpose", "tf.transpose(tf.reshape(tf.range(6), [2, 3]))", "ge"),
    ("array_transpose_perm", "tf.transpose(tf.reshape(tf.range(24), [2, 3, 4]), perm=[1, 0, 2])", "ge"),
    ("array_transpose_unknown_rank", "tf.transpose(ph(tf.float32, None))", "g"),
    ("array_transpose_bad_perm", "tf.transpose(tf.ones([2, 3]), perm=[0, 0])", "ge"),
    ("array_expand_dims", "[tf.expand_dims(tf.constant([1, 2]), 0), tf.expand_dims(tf.constant([1, 2]), -1)]", "ge"),
    ("array_squeeze", "tf.squeeze(tf.ones([1, 2, 1, 3]))", "ge"),
    ("array_squeeze_axis", "[tf.squeeze(tf.ones([1, 2, 1]), axis=2), tf.squeeze(tf.ones([1, 2, 1]), [0, -1])]", "ge"),
    ("array_squeeze_bad", "tf.squeeze(tf.ones([1, 2]), axis=1)", "ge"),
    # ------------------------------------------------------------------ array: joining and splitting
    ("array_concat", "tf.concat([tf.constant([[1, 2]]), tf.constant([[3, 4]])], 0)", "ge"),
    ("array_concat_last_axis", "tf.concat([tf.ones([2, 1]), tf.zeros([2, 2])], axis=-1)", "ge"),
    ("array_concat_one", "tf.concat([ph(tf.float32, [2])], 0)", "g"),
    ("array_concat_python", "tf.concat([[1, 2], [3]], 0)", "ge"),
    ("array_concat_bad_shapes", "tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0)", "ge"),
    ("array_stack_python", "tf.stack([[1, 2], [3, 4]])", "ge"),
    ("array_stack_tensors", "tf.stack([tf.constant([1, 2]), tf.constant([3, 4])])", "ge"),
    ("array_stack_axis1", "tf.stack([tf.constant([1, 2]), tf.constant([3, 4])], axis=1)", "ge"),
    ("array_stack_mixed", "tf.stack([ph(tf.int32, []), 4])", "g"),
    ("array_stack_mixed_values", "tf.stack([tf.constant(3), 4])", "e"),
    ("array_stack_bad_axis", "tf.stack([tf.constant([1, 2]), tf.constant([3, 4])], axis=3)", "ge"),
    ("array_unstack", "tf.unstack(tf.reshape(tf.range(6), [2, 3]))", "ge"),
    ("array_unstack_axis1", "tf.unstack(tf.reshape(tf.range(6), [2, 3]), axis=1)", "ge"),
    ("array_unstack_unknown", "tf.unstack(ph(tf.float32, [None, 3]))", "g"),
    ("array_unstack_num", "tf.unstack(ph(tf.float32, [None, 3]), num=2)", "g"),
    ("array_tile", "tf.tile(tf.constant([[1, 2]]), [2, 3])", "ge"),
    ("array_pad", "tf.pad(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 2]])", "ge"),
    ("array_pad_named", "tf.pad(ph(tf.float32, [None, 2]), [[0, 0], [1, 1]], name='p')", "g"),
    ("array_pad_constant_values", "tf.pad(tf.constant([[1.0, 2.0]]), [[1, 0], [0, 1]], constant_values=-1.5)", "ge"),
    ("array_pad_tensor_value", "tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=tf.constant(0))", "ge"),
    ("array_pad_reflect", "tf.pad(tf.reshape(tf.range(6), [2, 3]), [[1, 1], [2, 2]], mode='reflect')", "ge"),
    (
        "array_pad_symmetric",
        "tf.pad(tf.reshape(tf.range(6), [2, 3]), [[1, 1], [2, 3]], mode='SYMMETRIC', name='s')",
        "ge",
    ),
    ("array_pad_reflect_too_much", "tf.pad(tf.reshape(tf.range(6), [2, 3]), [[2, 0], [0, 0]], mode='REFLECT')", "ge"),
    ("array_pad_bad_mode", "tf.pad(tf.ones([2]), [[1, 1]], mode='WRAP')", "ge"),
    # ------------------------------------------------------------------ array: slicing and gathering
    ("array_slice", "tf.slice(tf.reshape(tf.range(12), [3, 4]), [1, 0], [2, -1])", "ge"),
    ("array_slice_bad", "tf.slice(tf.range(4), [2], [5])", "ge"),
    ("array_strided_slice", "tf.strided_slice(tf.range(10), [1], [8], [3])", "ge"),
    (
        "array_strided_slice_masks",
        "tf.strided_slice(tf.reshape(tf.range(12), [3, 4]), [0, 1], [0, 3], begin_mask=1, end_mask=1, "
        "shrink_axis_mask=0)",
        "ge",
    ),
    ("array_gather", "tf.gather(tf.constant([[1, 2], [3, 4], [5, 6]]), [2, 0])", "ge"),
    ("array_gather_axis1", "tf.gather(tf.constant([[1, 2, 3], [4, 5, 6]]), [2, 0], axis=1)", "ge"),
    (
        "array_gather_batch_dims",
        "tf.gather(tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[0], [2]]), axis=1, batch_dims=1)",
        "ge",
    ),
    ("array_gather_out_of_range", "tf.gather(tf.constant([1, 2, 3]), [5])", "e"),
    ("array_one_hot", "tf.one_hot([0, 2, -1], 3)", "ge"),
    ("array_one_hot_values", "tf.one_hot(tf.constant([1, 0]), 2, on_value=5, off_value=-1, axis=0)", "ge"),
    ("array_one_hot_dtype", "tf.one_hot([1], 3, dtype=tf.int64)", "ge"),
    ("array_one_hot_mismatch", "tf.one_hot([1], 3, on_value=1.0, dtype=tf.int32)", "ge"),
    ("array_where_one_arg", "tf.where(tf.constant([[True, False], [False, True]]))", "ge"),
    ("array_where_numbers", "tf.where(tf.constant([0, 3, 0, -1]))", "ge"),
    ("array_where_three_args", "tf.where(tf.constant([True, False, True]), tf.constant([1, 2, 3]), 0)", "ge"),
    ("array_where_broadcast", "tf.where(tf.constant([[True], [False]]), tf.ones([2, 3]), tf.zeros([3]))", "ge"),
    ("array_where_one_of_two", "tf.where(tf.constant([True]), x=tf.constant([1]))", "ge"),
    ("array_where_unknown", "tf.where(ph(tf.bool, [None, 2]))", "g"),
    # ------------------------------------------------------------------ array: creation
    ("array_fill", "tf.fill([2, 3], 9)", "ge"),
    ("array_fill_tensor_dims", "tf.fill(ph(tf.int32, [2]), 1.5)", "g"),
    ("array_zeros", "tf.zeros([2, 3])", "ge"),
    ("array_zeros_tuple_int", "tf.zeros((2,), tf.int32)", "ge"),
    ("array_zeros_bool", "tf.zeros([2], dtype=tf.bool)", "ge"),
    ("array_zeros_large", "tf.zeros([40, 40])", "g"),
    ("array_zeros_tensor_shape", "tf.zeros(ph(tf.int32, [2]))", "g"),
    ("array_zeros_scalar_shape", "tf.zeros(ph(tf.int32, []))", "g"),
    ("array_zeros_list_with_tensor", "tf.zeros([ph(tf.int32, []), 3])", "g"),
    ("array_zeros_TensorShape", "tf.zeros(tf.TensorShape([1, 2]))", "ge"),
    ("array_ones", "tf.ones([2, 2], tf.int64)", "ge"),
    ("array_ones_bool", "tf.ones([2], tf.bool)", "ge"),
    ("array_ones_large", "tf.ones([2000], name='big')", "g"),
    ("array_zeros_like", "tf.zeros_like(tf.constant([[1, 2]]))", "ge"),
    ("array_zeros_like_partial", "tf.zeros_like(ph(tf.float32, [None, 2]))", "g"),
    ("array_zeros_like_dtype", "tf.zeros_like(tf.constant([1.5, 2.0]), dtype=tf.int32)", "ge"),
    ("array_zeros_like_partial_dtype", "tf.zeros_like(ph(tf.float32, [None]), dtype=tf.int32)", "g"),
    ("array_ones_like", "tf.ones_like(tf.constant([[True, False]]))", "ge"),
    ("array_ones_like_partial", "tf.ones_like(ph(tf.int32, [None]))", "g"),
    ("array_identity", "tf.identity(tf.constant([1, 2]), name='same')", "ge"),
    ("array_identity_python", "tf.identity(3.0)", "ge"),
    ("array_stop_gradient", "tf.stop_gradient(tf.constant([1.0]))", "ge"),
    # ------------------------------------------------------------------ nn
    ("nn_relu", "tf.nn.relu(tf.constant([-1.0, 0.0, 2.0]))", "ge"),
    ("nn_relu_int", "tf.nn.relu(tf.constant([-3, 4]))", "ge"),
    ("nn_relu6", "tf.nn.relu6(tf.constant([-1.0, 3.0, 9.0]))", "ge"),
    ("nn_elu", "tf.nn.elu(tf.constant([-1.0, 0.0, 2.0]))", "ge"),
    ("nn_leaky_relu", "tf.nn.leaky_relu(tf.constant([-1.0, 2.0]))", "ge"),
    ("nn_leaky_relu_alpha", "tf.nn.leaky_relu(tf.constant([-1.0, 2.0]), alpha=0.01)", "ge"),
    ("nn_leaky_relu_int", "tf.nn.leaky_relu(tf.constant([-2, 3]))", "ge"),
    ("nn_gelu", "tf.nn.gelu(tf.constant([-1.0, 0.0, 0.5, 3.0]))", "ge"),
    ("nn_gelu_approximate", "tf.nn.gelu(tf.constant([-1.0, 0.0, 0.5, 3.0], tf.float64), approximate=True)", "ge"),
    ("nn_gelu_int", "tf.nn.gelu(tf.constant([1]))", "ge"),
    ("nn_sigmoid_tanh", "[tf.nn.sigmoid(tf.constant([1.0])), tf.nn.tanh(tf.constant([1.0]))]", "ge"),
    ("nn_softmax", "tf.nn.softmax(tf.constant([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]))", "ge"),
    ("nn_softmax_axis0", "tf.nn.softmax(tf.constant([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), axis=0)", "ge"),
    ("nn_softmax_axis_neg2", "tf.nn.softmax(tf.reshape(tf.range(0.0, 2.4, 0.1), [2, 3, 4]), axis=-2)", "ge"),
    ("nn_softmax_axis_last_positive", "tf.nn.softmax(ph(tf.float32, [2, 3]), axis=1)", "g"),
    ("nn_softmax_named_axis", "tf.nn.softmax(ph(tf.float32, [2, 3, 4]), axis=1, name='sm')", "g"),
    ("nn_softmax_bad_axis", "tf.nn.softmax(tf.ones([2, 3]), axis=2)", "ge"),
    ("nn_softmax_python", "tf.nn.softmax([1.0, 2.0])", "ge"),
    ("nn_softmax_int", "tf.nn.softmax(tf.constant([1, 2]))", "ge"),
    ("nn_log_softmax", "tf.nn.log_softmax(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)", "ge"),
    ("nn_math_softmax", "tf.math.softmax(tf.constant([0.0, 1.0]))", "ge"),
    ("nn_bias_add", "tf.nn.bias_add(tf.ones([2, 3]), tf.constant([1.0, 2.0, 3.0]))", "ge"),
    ("nn_bias_add_nchw", "tf.nn.bias_add(tf.ones([1, 2, 2, 2]), tf.constant([1.0, -1.0]), data_format='NCHW')", "ge"),
    ("nn_bias_add_nc", "tf.nn.bias_add(tf.ones([1, 2, 3]), tf.constant([1.0, -1.0]), data_format='NCW')", "ge"),
    ("nn_bias_add_bad_format", "tf.nn.bias_add(tf.ones([1, 2]), tf.constant([1.0, -1.0]), data_format='CN')", "ge"),
    ("nn_bias_add_bad_size", "tf.nn.bias_add(tf.ones([2, 3]), tf.constant([1.0, 2.0]))", "ge"),
    (
        "nn_conv2d",
        "x = tf.reshape(tf.range(32.0), [1, 4, 4, 2])\n"
        "w = tf.reshape(tf.range(0.0, 3.6, 0.1), [3, 3, 2, 2])\ntf.nn.conv2d(x, w, strides=1, padding='SAME')",
        "ge",
    ),
    (
        "nn_conv2d_valid_stride2",
        "x = tf.reshape(tf.range(50.0), [1, 5, 5, 2])\nw = tf.ones([3, 3, 2, 1])\n"
        "tf.nn.conv2d(x, w, strides=[2, 2], padding='VALID')",
        "ge",
    ),
    (
        "nn_conv2d_strides4_dilations",
        "x = tf.reshape(tf.range(72.0), [2, 6, 6, 1])\nw = tf.ones([2, 2, 1, 3])\n"
        "tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding='SAME', dilations=2)",
        "ge",
    ),
    (
        "nn_conv2d_explicit",
        "x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])\nw = tf.ones([3, 3, 1, 1])\n"
        "tf.nn.conv2d(x, w, 1, [[0, 0], [1, 1], [2, 0], [0, 0]])",
        "ge",
    ),
    (
        "nn_conv2d_nchw",
        "tf.nn.conv2d(ph(tf.float32, [1, 2, 5, 5]), ph(tf.float32, [3, 3, 2, 4]), 2, 'SAME', data_format='NCHW')",
        "g",
    ),
    ("nn_conv2d_bad_strides", "tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), [1, 1, 1], 'SAME')", "ge"),
    ("nn_conv2d_depth_mismatch", "tf.nn.conv2d(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 1, 1]), 1, 'SAME')", "ge"),
    (
        "nn_depthwise_conv2d",
        "x = tf.reshape(tf.range(32.0), [1, 4, 4, 2])\nw = tf.reshape(tf.range(0.0, 4.0, 1 / 9), "
        "[3, 3, 2, 2])\ntf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], 'SAME')",
        "ge",
    ),
    (
        "nn_depthwise_conv2d_stride",
        "x = tf.reshape(tf.range(50.0), [1, 5, 5, 2])\nw = tf.ones([2, 2, 2, 1])\n"
        "tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], 'VALID', name='dw')",
        "ge",
    ),
    (
        "nn_depthwise_conv2d_dilated",
        "x = tf.reshape(tf.range(72.0), [1, 6, 6, 2])\nw = tf.ones([2, 2, 2, 1])\n"
        "tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], 'VALID', dilations=[2, 2])",
        "e",
    ),
    ("nn_max_pool2d", "tf.nn.max_pool2d(tf.reshape(tf.range(32.0), [1, 4, 4, 2]), 2, 2, 'VALID')", "ge"),
    ("nn_max_pool2d_same", "tf.nn.max_pool2d(tf.reshape(tf.range(25.0), [1, 5, 5, 1]), [3, 3], [2, 2], 'SAME')", "ge"),
    ("nn_avg_pool2d", "tf.nn.avg_pool2d(tf.reshape(tf.range(25.0), [1, 5, 5, 1]), 3, 2, 'SAME')", "ge"),
    ("nn_avg_pool2d_nchw", "tf.nn.avg_pool2d(ph(tf.float32, [1, 3, 8, 8]), 2, 2, 'VALID', data_format='NCHW')", "g"),
    (
        "nn_max_pool",
        "tf.nn.max_pool(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), ksize=2, strides=2, padding='SAME')",
        "ge",
    ),
    (
        "nn_avg_pool",
        "tf.nn.avg_pool(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), ksize=[2, 2], strides=1, padding='VALID')",
        "ge",
    ),
    ("nn_pool_bad_ksize", "tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), [2, 2, 2], 1, 'VALID')", "ge"),
    # ------------------------------------------------------------------ random
    ("random_normal_seeded", "tf.random.set_seed(1)\ntf.random.normal([3])", "ge"),
    ("random_normal_twice", "tf.random.set_seed(1)\n[tf.random.normal([3]), tf.random.normal([3])]", "ge"),
    ("random_uniform_seeded", "tf.random.set_seed(5)\ntf.random.uniform([2, 2])", "ge"),
    ("random_op_seed_only", "tf.random.normal([4], seed=3)", "ge"),
    ("random_op_seed_repeated", "[tf.random.uniform([2], seed=3), tf.random.uniform([2], seed=3)]", "ge"),
    ("random_global_and_op_seed", "tf.random.set_seed(2)\ntf.random.uniform([3], seed=7)", "ge"),
    (
        "random_reset_seed",
        "tf.random.set_seed(4)\na = tf.random.uniform([2])\ntf.random.set_seed(4)\n[a, tf.random.uniform([2])]",
        "e",
    ),
    ("random_normal_mean_stddev", "tf.random.set_seed(3)\ntf.random.normal([2, 2], mean=10.0, stddev=0.5)", "ge"),
    ("random_normal_float64", "tf.random.set_seed(3)\ntf.random.normal([3], dtype=tf.float64)", "ge"),
    ("random_uniform_range", "tf.random.set_seed(6)\ntf.random.uniform([4], minval=-2.0, maxval=2.0)", "ge"),
    ("random_uniform_maxval", "tf.random.set_seed(6)\ntf.random.uniform([2], maxval=10.0, dtype=tf.float64)", "ge"),
    ("random_zero_seeds", "tf.random.set_seed(0)\ntf.random.uniform([2], seed=0)", "ge"),
    ("random_big_seed", "tf.random.set_seed(2**40 + 3)\ntf.random.uniform([2])", "ge"),
    ("random_uniform_int", "tf.random.set_seed(1)\ntf.random.uniform([6], maxval=10, dtype=tf.int32)", "ge"),
    (
        "random_uniform_int64",
        "tf.random.set_seed(1)\ntf.random.uniform([3], minval=-5, maxval=2**40, dtype=tf.int64)",
        "ge",
    ),
    ("random_uniform_int_empty_range", "tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32, seed=1)", "e"),
    ("random_uniform_int_no_maxval", "tf.random.uniform([2], dtype=tf.int32)", "ge"),
    ("random_uniform_bad_dtype", "tf.random.uniform([2], dtype=tf.int8)", "ge"),
    ("random_shape_tensor", "tf.random.set_seed(9)\ntf.random.normal(tf.constant([2, 1]))", "ge"),
    ("random_unseeded", "tf.random.normal([2])", "g"),
    ("random_named", "tf.random.set_seed(1)\ntf.random.uniform([2], minval=1.0, maxval=3.0, name='u')", "g"),
]


def run_snippet(code: str):
    """Run the statements of ``code`` and return the value of its last line."""
    lines = code.split("\n")
    env = {"tf": tf, "np": np, "ph": tf.compat.v1.placeholder}
    exec("\n".join(lines[:-1]), env)
    return eval(lines[-1], env)


def _float(v: float):
    return v if math.isfinite(v) else repr(v)


def _values(array: np.ndarray) -> list:
    flat = array.reshape(-1)
    if array.dtype.kind == "f":
        return [_float(float(v)) for v in flat]
    if array.dtype.kind == "c":  # [real, imag] pairs
        return [[_float(float(v.real)), _float(float(v.imag))] for v in flat]
    if array.dtype.kind in "SO":
        return [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v) for v in flat]
    return [v.item() for v in flat]


def _array_json(array: np.ndarray) -> dict:
    return {"dtype": tf.as_dtype(array.dtype).name, "shape": list(array.shape), "values": _values(array)}


def _error(e: Exception) -> dict:
    message = e.message if isinstance(e, tf.errors.OpError) else str(e)
    return {"class": type(e).__name__, "message": message}


def _flat(result) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _node_json(node) -> dict:
    attrs = {}
    for key in sorted(node.attr):
        value = node.attr[key]
        if key == "value" and node.op == "Const":
            attrs[key] = _array_json(tf.make_ndarray(value.tensor))
        else:
            attrs[key] = text_format.MessageToString(value, as_one_line=True)
    return {"name": node.name, "op": node.op, "inputs": list(node.input), "attrs": attrs}


def _ancestors(graph_def, names: list[str]) -> list[dict]:
    """The nodes ``names`` depend on (data and control inputs), in graph order."""
    by_name = {n.name: n for n in graph_def.node}
    keep: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        for inp in by_name[name].input:
            stack.append(inp.lstrip("^").split(":")[0])
    return [_node_json(n) for n in graph_def.node if n.name in keep]


def graph_case(code: str) -> dict:
    g = tf.Graph()
    with g.as_default():
        try:
            outputs = _flat(run_snippet(code))
        except Exception as e:
            return {"error": _error(e)}
    graph_def = g.as_graph_def()
    return {
        "outputs": [
            {"name": t.name, "dtype": t.dtype.name, "shape": t.shape.as_list() if t.shape.rank is not None else None}
            for t in outputs
        ],
        "nodes": _ancestors(graph_def, [t.op.name for t in outputs]),
    }


def eager_case(code: str) -> dict:
    tf.random.set_seed(None)  # each case starts from TF's state at program start (no global seed)
    try:
        outputs = _flat(run_snippet(code))
    except Exception as e:
        return {"error": _error(e)}
    return {"outputs": [_array_json(t.numpy()) for t in outputs]}


def _one_case_per_line(doc: dict) -> str:
    """JSON with each case on its own line: compact, and a regenerated fixture diffs case by case."""
    compact = {"separators": (",", ":"), "sort_keys": True}
    cases = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, **compact)}" for k, v in doc["cases"].items())
    return f'{{"meta": {json.dumps(doc["meta"], **compact)},\n "cases": {{\n{cases}\n }}\n}}\n'


def record_snippets(cases: list[tuple[str, str, str]], out: Path, generated_by: str,
                    name_modules: tuple[str, ...] = ()) -> dict:  # fmt: skip
    """Run each ``(case id, code, modes)`` snippet in graph ("g") and eager ("e") mode and write ``out``'s
    ``graph_cases.json`` and ``eager_cases.json`` (and ``api_names.json`` of ``name_modules``, TF's public names);
    the sibling generators share it. Returns the files' ``meta``."""
    ids = [c[0] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    out.mkdir(parents=True, exist_ok=True)
    graph, eager = {}, {}
    for case_id, code, modes in cases:
        if "g" in modes:
            graph[case_id] = {"code": code, **graph_case(code)}
        if "e" in modes:
            with tf.device("/CPU:0"):
                eager[case_id] = {"code": code, **eager_case(code)}
    meta = {"tensorflow": tf.__version__, "generated_by": generated_by}
    if name_modules:
        names = {m: sorted(n for n in dir(eval(m)) if not n.startswith("_")) for m in name_modules}  # noqa: S307
        (out / "api_names.json").write_text(json.dumps({"meta": meta, "names": names}, indent=0) + "\n")
    for name, found in (("graph_cases.json", graph), ("eager_cases.json", eager)):
        (out / name).write_text(_one_case_per_line({"meta": meta, "cases": found}))
    print(f"wrote {len(graph)} graph cases and {len(eager)} eager cases to {out}")
    return meta


def main() -> int:
    record_snippets(CASES, OUT, "tools/make_golden_frontend_ops.py", ("tf", "tf.math", "tf.nn", "tf.random"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
