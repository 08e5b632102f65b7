"""Record what TensorFlow's eager tensors, operators and conversions do, for modtensor's front-end tests.

    /tmp/tfvenv/bin/python tools/make_golden_eager.py

Each case is a snippet of TF 2 code with ``tf``, ``np`` and ``raw`` (``tf.raw_ops``) in scope;
lines before a final expression are statements. It runs

* eagerly (mode "e"): the fixture keeps the result (a tensor: dtype, shape, flat values,
  ``repr`` and ``str``; a python value: its ``repr``; a list of those), or the error's class
  and message;
* in a fresh ``tf.Graph`` (mode "g"): the fixture keeps every node created (name, op type,
  inputs) and the results' names, dtypes and static shapes, or the error.

Writes ``tests/golden/eager/cases.json``, read by ``tests/api/test_eager_golden.py``, which
runs the same snippets with ``modtensor`` as ``tf``. TensorFlow is used only here.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "eager" / "cases.json"

I = "tf.constant([-7, -3, 0, 3, 7])"  # noqa: E741 - a short name keeps the case table readable
M = "tf.reshape(tf.range(12), [3, 4])"

# (case id, snippet, modes). Ids start with their area: const_, repr_, op_, cmp_, div_, idx_, conv_, scalar_,
# raw_, dev_, err_.
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ constants
    ("const_float", "tf.constant(1.5)", "e"),
    ("const_int", "tf.constant([1, 2, 3])", "e"),
    ("const_big_int", "tf.constant(2**40)", "e"),
    ("const_big_int_list", "tf.constant([1, 2**40])", "e"),
    ("const_too_big", "tf.constant(2**63)", "e"),
    ("const_uint64_max", "tf.constant(2**64 - 1, dtype=tf.uint64)", "e"),
    ("const_bool", "tf.constant([True, False])", "e"),
    ("const_string", "tf.constant('ab')", "e"),
    ("const_strings", "tf.constant(['a', b'bc'])", "e"),
    ("const_complex", "tf.constant(1 + 2j)", "e"),
    ("const_mixed_numbers", "tf.constant([1, 2.5, True])", "e"),
    ("const_mixed_str", "tf.constant(['a', 1])", "e"),
    ("const_empty", "tf.constant([])", "e"),
    ("const_empty_nested", "tf.constant([[], []])", "e"),
    ("const_ragged", "tf.constant([[1], [1, 2]])", "e"),
    ("const_none", "tf.constant(None)", "e"),
    ("const_dict", "tf.constant({1: 2})", "e"),
    ("const_tuple_range", "[tf.constant((1, 2)), tf.constant(range(3))]", "e"),
    ("const_dtype", "tf.constant([1, 2], dtype=tf.float32)", "e"),
    ("const_dtype_name", "tf.constant(1, dtype='float64')", "e"),
    ("const_dtype_bad_float", "tf.constant([1.5], dtype=tf.int32)", "e"),
    ("const_dtype_bad_str", "tf.constant('a', dtype=tf.int32)", "e"),
    ("const_dtype_bad_bool", "tf.constant([1], dtype=tf.bool)", "e"),
    ("const_dtype_bad_complex", "tf.constant(1j, dtype=tf.float32)", "e"),
    ("const_bool_to_int", "tf.constant(True, dtype=tf.int32)", "e"),
    (
        "const_int_wrap",
        "[tf.constant(300, dtype=tf.int8), tf.constant(-1, dtype=tf.uint8), tf.constant(2**31, dtype=tf.int32)]",
        "e",
    ),
    ("const_int64_overflow", "tf.constant(2**63, dtype=tf.int64)", "e"),
    ("const_nan_to_int", "tf.constant(float('nan'), dtype=tf.int32)", "e"),
    ("const_half_overflow", "tf.constant(1e10, dtype=tf.float16)", "e"),
    ("const_bfloat16", "tf.constant([1.5, -2.25], dtype=tf.bfloat16)", "e"),
    ("const_numpy", "[tf.constant(np.array([1.5])), tf.constant(np.float64(2.5)), tf.constant(np.int16(3))]", "e"),
    ("const_numpy_cast", "tf.constant(np.array([1.7, -1.7]), dtype=tf.int32)", "e"),
    ("const_numpy_strings", "tf.constant(np.array(['a', 'bc']))", "e"),
    ("const_numpy_object", "tf.constant(np.array([1, 'a'], dtype=object))", "e"),
    (
        "const_numpy_in_list",
        "[tf.constant([np.array([1, 2]), np.array([3, 4])]), "
        "tf.constant([np.float64(1), np.float64(2)]), tf.constant([np.int64(1), 2])]",
        "e",
    ),
    ("const_shape_fill", "tf.constant(1.0, shape=[2, 2])", "eg"),
    ("const_shape_reshape", "tf.constant([1, 2, 3, 4], shape=[2, 2])", "eg"),
    ("const_shape_bad", "tf.constant([1, 2, 3], shape=[2, 2])", "e"),
    ("const_tensor", "tf.constant(tf.constant(1))", "e"),
    ("const_tensor_dtype", "tf.constant(tf.constant(1), dtype=tf.float32)", "e"),
    ("const_named", "tf.constant([1.0], name='c')", "g"),
    ("convert_int", "tf.convert_to_tensor(1)", "eg"),
    ("convert_hint_fails", "tf.convert_to_tensor(1.5, dtype_hint=tf.int32)", "e"),
    ("convert_hint_fits", "tf.convert_to_tensor(1, dtype_hint=tf.float32)", "e"),
    ("convert_dtype_bad", "tf.convert_to_tensor(1.5, dtype=tf.int32)", "e"),
    ("convert_tensor_dtype", "tf.convert_to_tensor(tf.constant(1), dtype=tf.float32)", "e"),
    ("convert_tensor_same", "x = tf.constant([1.0])\ntf.convert_to_tensor(x) is x", "e"),
    ("convert_none", "tf.convert_to_tensor(None)", "e"),
    # ------------------------------------------------------------------ repr and str
    (
        "repr_scalars",
        "[tf.constant(1.5), tf.constant(7), tf.constant(True), tf.constant(b'x'), "
        "tf.constant(2.0, tf.float64), tf.constant(3, tf.int64), tf.constant(1.5, tf.float16)]",
        "e",
    ),
    ("repr_matrix", "tf.constant([[1, 2], [3, 4]])", "e"),
    ("repr_float_matrix", "tf.constant([[1.5, -2.0], [0.25, 1e-3]])", "e"),
    ("repr_bool_vector", "tf.constant([True, False, True])", "e"),
    ("repr_strings", "tf.constant([['a', 'b'], ['c', 'dd']])", "e"),
    ("repr_empty", "tf.zeros([0, 3])", "e"),
    ("repr_long", "tf.range(2000)", "e"),
    ("repr_big_matrix", "tf.reshape(tf.range(2000.0), [40, 50])", "e"),
    ("repr_3d", "tf.reshape(tf.range(8), [2, 2, 2])", "e"),
    ("repr_float64_vector", "tf.constant([0.1, 0.2], tf.float64)", "e"),
    ("repr_format", "f'{tf.constant(1.5):.2f} {tf.constant(7):03d}'", "e"),
    ("repr_shape", "[tf.constant([[1, 2]]).shape, str(tf.constant([[1, 2]]).shape), tf.constant(1).shape]", "e"),
    (
        "repr_numpy",
        "[tf.constant(1.5).numpy(), tf.constant('a').numpy(), tf.constant(['a']).numpy(), tf.constant([1, 2]).numpy()]",
        "e",
    ),
    ("repr_ref", "repr(tf.constant(1).ref())", "e"),
    # ------------------------------------------------------------------ scalars and python protocols
    ("scalar_conversions", "x = tf.constant(2.75)\n[bool(x), int(x), float(x), complex(x)]", "e"),
    ("scalar_int_index", "[1, 2, 3][tf.constant(1)]", "e"),
    ("scalar_float_index", "[1, 2, 3][tf.constant(1.0)]", "e"),
    ("scalar_bool_vector", "bool(tf.constant([1, 2]))", "e"),
    ("scalar_bool_one", "[bool(tf.constant([0])), bool(tf.constant([3])), bool(tf.constant([]))]", "e"),
    ("scalar_int_vector", "int(tf.constant([1, 2]))", "e"),
    ("scalar_len", "[len(tf.constant([1, 2, 3])), len(tf.zeros([4, 2]))]", "e"),
    ("scalar_len_scalar", "len(tf.constant(1))", "e"),
    ("scalar_iter", "list(tf.constant([[1, 2], [3, 4]]))", "e"),
    ("scalar_iter_scalar", "list(tf.constant(1))", "e"),
    ("scalar_hash", "hash(tf.constant(1))", "e"),
    ("scalar_set_of_refs", "x = tf.constant(1)\ny = tf.constant(1)\nlen({x.ref(), y.ref(), x.ref()})", "e"),
    ("scalar_deref", "x = tf.constant(5)\nx.ref().deref() is x", "e"),
    ("scalar_ndim_dtype_device", "x = tf.ones([2, 3])\n[x.ndim, x.dtype, x.device, x.get_shape()]", "e"),
    ("scalar_eager_name", "tf.constant(1).name", "e"),
    ("scalar_eager_op", "tf.constant(1).op", "e"),
    ("scalar_eager_graph", "tf.constant(1).graph", "e"),
    ("scalar_set_shape", "tf.constant([1, 2]).set_shape([3])", "e"),
    ("scalar_set_shape_ok", "tf.constant([1, 2]).set_shape([None])", "e"),
    ("scalar_np_asarray", "a = np.asarray(tf.constant([1.5, 2.0]))\n[a, a.dtype, a.flags.writeable]", "e"),
    ("scalar_np_dtype", "np.asarray(tf.constant([1.5]), dtype=np.float64)", "e"),
    ("scalar_is_tensor", "isinstance(tf.constant(1), tf.Tensor)", "e"),
    ("scalar_executing_eagerly", "tf.executing_eagerly()", "e"),
    # ------------------------------------------------------------------ arithmetic operators
    ("op_add", "tf.constant([1.5, 2.0]) + tf.constant([0.5, -1.0])", "eg"),
    ("op_add_python", "tf.constant([1.5, 2.0]) + 1", "eg"),
    ("op_radd_python", "1 + tf.constant([1.5, 2.0])", "eg"),
    ("op_add_int_float_python", "tf.constant([1, 2]) + 1.5", "e"),
    ("op_radd_float_int", "1.5 + tf.constant([1, 2])", "e"),
    ("op_add_strings", "tf.constant('a') + 'b'", "eg"),
    ("op_add_broadcast", "tf.constant([[1], [2]]) + tf.constant([10, 20, 30])", "e"),
    ("op_add_bad_shapes", "tf.ones([2, 3]) + tf.ones([4])", "e"),
    (
        "op_add_numpy",
        "[tf.constant(1.0) + np.array([1.0, 2.0]), np.array([1.0, 2.0]) + tf.constant(1.0), "
        "np.float32(1) + tf.constant(1.0)]",
        "e",
    ),
    ("op_add_list", "tf.constant([1.0, 2.0]) + [1, 2]", "e"),
    (
        "op_add_uint8_wrap",
        "[tf.constant([250], tf.uint8) + 10, tf.constant([250], tf.uint8) + 300, tf.constant([1], tf.int8) + (-300)]",
        "e",
    ),
    ("op_sub", "tf.constant([5, 7]) - 2", "eg"),
    ("op_rsub", "10 - tf.constant([5, 7])", "eg"),
    ("op_sub_float_into_int", "tf.constant(1) - 1.5", "e"),
    ("op_rsub_float_into_int", "1.5 - tf.constant(1)", "e"),
    ("op_mul", "tf.constant([1.5, 2.0]) * 3.0", "eg"),
    ("op_rmul", "3 * tf.constant([1, 2])", "eg"),
    ("op_mul_bool", "tf.constant([True, False, True]) * tf.constant([True, True, False])", "e"),
    ("op_mul_float_into_int", "tf.constant(1) * 1.5", "e"),
    ("op_neg", "-tf.constant([1.5, -2.0])", "eg"),
    ("op_neg_uint8", "-tf.constant([1], tf.uint8)", "e"),
    ("op_abs", "abs(tf.constant([-1.5, 2.0, -0.0]))", "eg"),
    ("op_abs_int", "abs(tf.constant([-3, 4]))", "e"),
    ("op_pow", "tf.constant([2, 3]) ** 2", "eg"),
    ("op_rpow", "2 ** tf.constant([2.0, 3.0])", "eg"),
    ("op_pow_negative_int", "tf.constant([2, 3]) ** -1", "e"),
    ("op_pow_float", "tf.constant([4.0, 2.0]) ** 0.5", "e"),
    ("op_matmul", "tf.constant([[1.0, 2.0]]) @ tf.constant([[3.0], [4.0]])", "eg"),
    ("op_matmul_batched", "tf.ones([2, 2, 3]) @ tf.ones([3, 2])", "eg"),
    ("op_matmul_bad", "tf.constant([[1.0, 2.0]]) @ tf.constant([[1.0, 2.0]])", "e"),
    ("op_matmul_mixed", "tf.constant([[1.0]]) @ tf.constant([[2]])", "e"),
    ("op_rmatmul_list", "[[1.0, 2.0]] @ tf.constant([[3.0], [4.0]])", "e"),
    ("op_mixed_dtypes", "tf.constant(1.0) + tf.constant(1)", "e"),
    ("op_mixed_dtypes_sub", "tf.constant([1.0]) - tf.constant([1], tf.int64)", "e"),
    ("op_add_none", "tf.constant(1.0) + None", "e"),
    # ------------------------------------------------------------------ division and modulo
    ("div_truediv_int32", f"{I} / 2", "eg"),
    ("div_rtruediv_int32", f"2 / {I}", "eg"),
    ("div_truediv_int64", "tf.constant([7, -7], tf.int64) / tf.constant([2, 2], tf.int64)", "e"),
    ("div_truediv_int16", "tf.constant([7, -7], tf.int16) / 2", "e"),
    ("div_truediv_uint8", "tf.constant([7, 200], tf.uint8) / 2", "e"),
    ("div_truediv_float16", "tf.constant([7.0, 1.0], tf.float16) / 3", "e"),
    ("div_truediv_float", "tf.constant([1.0, -1.0, 0.0]) / 0.0", "e"),
    ("div_truediv_bool", "tf.constant([True]) / True", "e"),
    ("div_truediv_mismatch", "tf.constant(1) / tf.constant(2.0)", "e"),
    ("div_int_by_zero_truediv", "tf.constant([1, -1, 0]) / 0", "e"),
    ("div_floordiv_int", f"{I} // 2", "eg"),
    ("div_floordiv_int_negative", f"{I} // -2", "e"),
    ("div_rfloordiv_int", f"7 // {I}", "e"),
    ("div_floordiv_float", "tf.constant([7.5, -7.5, 1.0]) // 2.0", "e"),
    ("div_floordiv_float_neg", "tf.constant([7.5, -7.5]) // -2.0", "e"),
    ("div_floordiv_zero", "tf.constant(1) // 0", "e"),
    ("div_mod_int", f"{I} % 3", "eg"),
    ("div_mod_int_negative", f"{I} % -3", "e"),
    ("div_rmod_int", "7 % tf.constant([3, -3, 5])", "e"),
    ("div_mod_float", "tf.constant([5.5, -5.5]) % 2.0", "e"),
    ("div_mod_float_neg", "tf.constant([-7.5, 7.5]) % -2.0", "e"),
    ("div_mod_zero", "tf.constant(1) % 0", "e"),
    ("div_mod_int64", "tf.constant([-7, 7], tf.int64) % tf.constant([2, -2], tf.int64)", "e"),
    # ------------------------------------------------------------------ comparisons, logic, equality
    ("cmp_lt", "tf.constant([1, 5]) < 3", "eg"),
    ("cmp_all", "x = tf.constant([1.0, 2.0, 3.0])\n[x <= 2.0, x > 2.0, x >= 2.0, 2.0 < x]", "e"),
    ("cmp_lt_float_into_int", "tf.constant([1, 2]) < 1.5", "e"),
    ("cmp_eq", "tf.constant([1, 2]) == tf.constant([1, 3])", "e"),
    ("cmp_eq_python", "tf.constant([1, 2]) == 1", "e"),
    ("cmp_ne", "tf.constant([1, 2]) != 1", "e"),
    ("cmp_eq_none", "[tf.constant(1) == None, tf.constant(1) != None]", "e"),
    (
        "cmp_eq_incompatible",
        "[tf.constant([1, 2]) == tf.constant([1, 2, 3]), tf.constant([1, 2]) != tf.constant([1, 2, 3])]",
        "e",
    ),
    ("cmp_eq_str_into_int", "tf.constant([1, 2]) == 'a'", "e"),
    ("cmp_eq_graph", "x = tf.constant(1)\n[x == x, x == tf.constant(1), x != x]", "g"),
    (
        "cmp_logic",
        "a = tf.constant([True, True, False, False])\nb = tf.constant([True, False, True, False])\n"
        "[a & b, a | b, a ^ b, ~a, a & True, True | a]",
        "e",
    ),
    ("cmp_logic_graph", "a = tf.constant([True, False])\n[a & a, a | a, a ^ a, ~a]", "g"),
    # ------------------------------------------------------------------ indexing
    ("idx_int", f"{M}[1]", "eg"),
    ("idx_negative", f"{M}[-1]", "e"),
    ("idx_two_ints", f"{M}[1, 2]", "e"),
    ("idx_slice", f"{M}[1:]", "eg"),
    ("idx_slices", f"{M}[:, 1:3]", "e"),
    ("idx_negative_slice", f"{M}[-2:, -3:-1]", "e"),
    ("idx_strides", f"{M}[::2, ::3]", "e"),
    ("idx_reverse", f"{M}[::-1]", "e"),
    ("idx_reverse_columns", f"{M}[:, ::-2]", "e"),
    ("idx_ellipsis", f"{M}[..., 1]", "eg"),
    ("idx_newaxis", f"{M}[None, :, tf.newaxis]", "eg"),
    ("idx_ellipsis_newaxis", f"{M}[1, ..., None]", "e"),
    ("idx_empty_tuple", f"{M}[()]", "e"),
    ("idx_list", "tf.constant([1, 2])[[0]]", "e"),
    ("idx_tensor", "tf.constant([10, 20, 30])[tf.constant(1)]", "eg"),
    ("idx_tensor_int64", "tf.constant([10, 20, 30])[tf.constant(2, tf.int64)]", "e"),
    ("idx_tensor_slice", "tf.constant([10, 20, 30])[tf.constant(1):]", "e"),
    ("idx_numpy_int", "tf.constant([10, 20, 30])[np.int64(1)]", "e"),
    ("idx_out_of_range", "tf.constant([1, 2])[5]", "e"),
    ("idx_out_of_range_slice", "tf.constant([1, 2])[1:10]", "e"),
    ("idx_scalar", "tf.constant(1)[0]", "e"),
    ("idx_two_ellipses", "tf.constant([1, 2])[..., ...]", "e"),
    ("idx_step_zero", "tf.constant([1, 2])[::0]", "e"),
    ("idx_too_many", "tf.constant([1, 2])[0, 0]", "e"),
    ("idx_float", "tf.constant([1, 2])[0.5]", "e"),
    ("idx_string", "tf.constant([1, 2])['a']", "e"),
    ("idx_float_tensor", "tf.constant([1, 2])[tf.constant(1.0)]", "e"),
    ("idx_vector_tensor", "tf.constant([1, 2])[tf.constant([1])]", "e"),
    ("idx_strings", "tf.constant(['a', 'b', 'c'])[1:]", "e"),
    # ------------------------------------------------------------------ raw ops (the eager fast path's conversions)
    ("raw_python_inputs", "raw.AddV2(x=1, y=2)", "e"),
    ("raw_float_then_int", "raw.AddV2(x=2.5, y=1)", "e"),
    ("raw_int_then_float", "raw.AddV2(x=1, y=2.5)", "e"),
    ("raw_tensor_dtype_wins", "raw.Sub(x=1.5, y=tf.constant(1))", "e"),
    (
        "raw_numpy_cast_to_tensor",
        "[raw.Sub(x=tf.constant(1), y=np.array([1.7])), raw.Sub(x=np.array([1.7]), y=tf.constant(1))]",
        "e",
    ),
    ("raw_numpy_first", "[raw.Sub(x=np.array([1.7]), y=1), raw.Sub(x=1, y=np.array([1.7]))]", "e"),
    ("raw_int64_first", "[raw.Sub(x=np.array([1]), y=1), raw.Sub(x=2**40, y=1), raw.Sub(x=1, y=2**40)]", "e"),
    ("raw_bool_into_float", "raw.Sub(x=tf.constant(1.0), y=True)", "e"),
    ("raw_int_into_bool", "raw.LogicalAnd(x=True, y=1)", "e"),
    ("raw_string_into_float", "raw.Sub(x=tf.constant(1.0), y='a')", "e"),
    ("raw_none_input", "raw.Sub(x=tf.constant(1.0), y=None)", "e"),
    ("raw_wrap_int8", "[raw.Sub(x=tf.constant(1, tf.int8), y=300), raw.Sub(x=tf.constant(1, tf.uint8), y=-1)]", "e"),
    ("raw_list_input", "raw.ConcatV2(values=[[1, 2], tf.constant([3])], axis=0)", "e"),
    ("raw_list_mixed", "raw.ConcatV2(values=[tf.constant([1]), tf.constant([1.0])], axis=0)", "e"),
    ("raw_list_not_list", "raw.ConcatV2(values=1, axis=0)", "e"),
    ("raw_pack_tensor_first", "raw.Pack(values=[tf.constant(1.5), 2], axis=0)", "e"),
    ("raw_default_type_attr", "raw.Reshape(tensor=tf.constant([1.0, 2.0]), shape=np.array([2, 1]))", "e"),
    ("raw_default_type_bad", "raw.Reshape(tensor=tf.constant([1.0, 2.0]), shape=tf.constant([2.0]))", "e"),
    ("raw_attr_disallowed", "raw.Relu(features=tf.constant(True))", "e"),
    ("raw_attr_disallowed_matmul", "raw.MatMul(a=tf.constant([[1]], tf.int8), b=tf.constant([[1]], tf.int8))", "e"),
    ("raw_no_kernel", "raw.MatMul(a=tf.constant([[1]], tf.uint8), b=tf.constant([[1]], tf.uint8))", "e"),
    ("raw_attr_kind", "raw.MatMul(a=[[1.0]], b=[[2.0]], transpose_a=1)", "e"),
    ("raw_attrs", "raw.MatMul(a=[[1.0, 2.0]], b=[[3.0, 4.0]], transpose_b=True)", "e"),
    ("raw_cast", "[raw.Cast(x=[1, 2], DstT=tf.float32), raw.Cast(x=1.7, DstT='int32')]", "e"),
    (
        "raw_strided_slice",
        "raw.StridedSlice(input=tf.constant([1, 2, 3]), begin=[1], end=[2], strides=[1], shrink_axis_mask=1)",
        "e",
    ),
    ("raw_kernel_error", "raw.AddV2(x=tf.constant([1, 2]), y=[1, 2, 3])", "e"),
    (
        "raw_random_stateful",
        "x = raw.RandomUniform(shape=[3], dtype=tf.float32, seed=4, seed2=5)\n"
        "y = raw.RandomUniform(shape=[3], dtype=tf.float32, seed=4, seed2=5)\n[x, y]",
        "e",
    ),
    # ------------------------------------------------------------------ devices and modes
    ("dev_cpu_scope", "with tf.device('/CPU:0'):\n    x = tf.constant(1.0) + 1.0\nx.device", "e"),
    ("dev_lowercase", "with tf.device('cpu:0'):\n    x = tf.constant([1.0]) * 2\nx.device", "e"),
    ("dev_gpu_soft", "with tf.device('/GPU:0'):\n    x = tf.constant(1.0)\n    y = x + 1.0\n[x.device, y.device]", "e"),
    ("dev_cpu1_soft", "with tf.device('/CPU:1'):\n    x = tf.constant(1.0) + 1.0\nx.device", "e"),
    (
        "dev_none_clears",
        "with tf.device('/CPU:0'):\n    with tf.device(None):\n        x = tf.constant(1) + 1\nx.device",
        "e",
    ),
    ("dev_unknown_type", "with tf.device('/XPU:0'):\n    x = tf.constant(1) + 1\nx.device", "e"),
    ("dev_unknown_job", "with tf.device('/job:foo/device:CPU:0'):\n    x = tf.constant(1.0) + 1.0\nx", "e"),
    ("dev_unknown_task", "with tf.device('/task:3'):\n    x = tf.constant(1.0) + 1.0\nx", "e"),
    ("dev_not_a_string", "with tf.device(3):\n    pass", "e"),
    ("dev_function", "tf.device(lambda op: '/CPU:0')", "e"),
    (
        "dev_graph_scope",
        "with tf.device('/GPU:0'):\n    c = tf.constant(1.0)\n    with tf.device('/cpu:1'):\n"
        "        d = c + 1\n[c.device, d.device]",
        "g",
    ),
    (
        "dev_devicespec",
        "with tf.device(tf.DeviceSpec(device_type='CPU', device_index=0)):\n    x = tf.constant(1) + 1\nx.device",
        "e",
    ),
    (
        "mode_graph_block",
        "g = tf.Graph()\nwith g.as_default():\n    inside = tf.executing_eagerly()\n[inside, tf.executing_eagerly()]",
        "e",
    ),
    (
        "mode_name_scope_eager",
        "with tf.name_scope('outer') as a:\n    with tf.name_scope('inner') as b:\n        pass\n[a, b]",
        "e",
    ),
    (
        "mode_name_scope_graph",
        "with tf.name_scope('s') as a:\n    c = tf.constant(1.0)\nwith tf.name_scope('s') as b:\n"
        "    d = c + 1\n[a, b, c, d]",
        "g",
    ),
    ("mode_name_scope_bad", "tf.name_scope(None)", "e"),
    ("mode_placeholder_eager", "tf.compat.v1.placeholder(tf.float32)", "e"),
    ("mode_placeholder_with_default", "tf.compat.v1.placeholder_with_default(tf.constant([1.0]), [None])", "eg"),
    ("mode_placeholder_graph", "tf.compat.v1.placeholder(tf.float32, [None, 3], name='x')", "g"),
    (
        "mode_eager_tensor_in_graph_op",
        "c = tf.constant([1.0, 2.0])\nwith tf.Graph().as_default():\n    y = c * 2\ny",
        "e",
    ),
    (
        "mode_eager_tensor_in_graph_convert",
        "c = tf.constant([1.0, 2.0])\nwith tf.Graph().as_default():\n    y = tf.convert_to_tensor(c)\ny",
        "e",
    ),
    (
        "mode_eager_tensor_in_graph_constant",
        "c = tf.constant([1.0, 2.0])\ng = tf.Graph()\nwith g.as_default():\n"
        "    z = tf.constant(c)\n[(op.name, op.type) for op in g.get_operations()] + [z.name, z.shape]",
        "e",
    ),
    (
        "mode_v1_name_scope",
        "with tf.compat.v1.name_scope(None, 'default') as s:\n    c = tf.constant(1.0)\n[s, c]",
        "g",
    ),
    (
        "mode_v1_get_default_graph",
        "g = tf.Graph()\nwith g.as_default():\n    same = tf.compat.v1.get_default_graph() is g\nsame",
        "e",
    ),
    (
        "mode_compat_v1_names",
        "[tf.compat.v1.add is tf.add, tf.compat.v1.ConfigProto().allow_soft_placement, "
        "tf.compat.v1.executing_eagerly()]",
        "e",
    ),
    # ------------------------------------------------------------------ tf.config
    (
        "config_physical",
        "[tf.config.list_physical_devices(), tf.config.list_physical_devices('CPU'), "
        "tf.config.list_physical_devices('GPU'), tf.config.list_physical_devices('XPU')]",
        "e",
    ),
    ("config_logical", "[tf.config.list_logical_devices(), tf.config.list_logical_devices('CPU')]", "e"),
    ("config_visible", "tf.config.get_visible_devices()", "e"),
    ("config_details", "tf.config.experimental.get_device_details(tf.config.list_physical_devices('CPU')[0])", "e"),
    ("config_set_visible_unknown", "tf.config.set_visible_devices([tf.config.PhysicalDevice('x', 'y')])", "e"),
    ("config_set_visible_same", "tf.config.set_visible_devices(tf.config.list_physical_devices())", "e"),
    ("config_set_visible_change", "tf.config.list_logical_devices()\ntf.config.set_visible_devices([], 'CPU')", "e"),
]


# ============================================================================= encoding results


def _encode_scalar(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, (complex, np.complexfloating)):
        return {"complex": [_encode_scalar(value.real), _encode_scalar(value.imag)]}
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


def _tensor(t: Any) -> dict[str, Any]:
    array = np.asarray(t.numpy())
    return {
        "kind": "tensor",
        "dtype": t.dtype.name,
        "shape": list(array.shape),
        "values": [_encode_scalar(v) for v in array.reshape(-1).tolist()],
        "repr": repr(t),
        "str": str(t),
        "device": t.device,
    }


def _encode(result: Any) -> Any:
    if isinstance(result, tf.Tensor):
        return _tensor(result)
    if isinstance(result, (list, tuple)):
        return {"kind": "list", "items": [_encode(r) for r in result]}
    if isinstance(result, np.ndarray):
        return {"kind": "ndarray", "dtype": str(result.dtype), "repr": repr(result)}
    if isinstance(result, tf.TensorShape):
        return {"kind": "python", "repr": repr(result)}
    if isinstance(result, tf.DType):
        return {"kind": "python", "repr": repr(result)}
    return {"kind": "python", "repr": repr(result)}


def _error(exc: BaseException) -> dict[str, Any]:
    return {"kind": "error", "class": type(exc).__name__, "message": str(exc)}


def _split(snippet: str) -> tuple[str, str]:
    """(statements, final expression) of a snippet; the last line is the expression unless it is indented."""
    lines = snippet.split("\n")
    last = lines[-1]
    if last.startswith(" ") or last.startswith("pass"):
        return snippet, "None"
    return "\n".join(lines[:-1]), last


def run_eager(snippet: str) -> Any:
    """The snippet's result run eagerly, encoded."""
    statements, expression = _split(snippet)
    scope: dict[str, Any] = {"tf": tf, "np": np, "raw": tf.raw_ops}
    try:
        exec(statements, scope)  # noqa: S102 - the snippets are this file's own
        return _encode(eval(expression, scope))  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - errors are part of the record
        return _error(exc)


def _graph_tensor(t: Any) -> Any:
    if isinstance(t, tf.Tensor):
        return {"kind": "tensor", "name": t.name, "dtype": t.dtype.name, "shape": repr(t.shape), "device": t.device}
    if isinstance(t, (list, tuple)):
        return {"kind": "list", "items": [_graph_tensor(x) for x in t]}
    return {"kind": "python", "repr": repr(t)}


def run_graph(snippet: str) -> Any:
    """The nodes a snippet adds to a fresh graph and its results' names/dtypes/shapes, or its error."""
    statements, expression = _split(snippet)
    graph = tf.Graph()
    scope: dict[str, Any] = {"tf": tf, "np": np, "raw": tf.raw_ops}
    try:
        with graph.as_default():
            exec(statements, scope)  # noqa: S102
            result = eval(expression, scope)  # noqa: S307
    except Exception as exc:  # noqa: BLE001
        return _error(exc)
    nodes = [{"name": op.name, "op": op.type, "inputs": [t.name for t in op.inputs]} for op in graph.get_operations()]
    return {"kind": "graph", "nodes": nodes, "result": _graph_tensor(result)}


def main() -> None:
    cases: dict[str, Any] = {}
    for case_id, snippet, modes in CASES:
        if case_id in cases:
            raise SystemExit(f"duplicate case id {case_id}")
        entry: dict[str, Any] = {"code": snippet}
        if "e" in modes:
            entry["eager"] = run_eager(snippet)
        if "g" in modes:
            entry["graph"] = run_graph(snippet)
        cases[case_id] = entry
    OUT.parent.mkdir(parents=True, exist_ok=True)
    document = {"tensorflow": tf.__version__, "numpy": np.__version__, "cases": cases}
    OUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
