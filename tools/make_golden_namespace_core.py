"""Record what TensorFlow's core namespace names build and compute, for modtensor's front-end tests.

    /work/tfvenv/bin/python tools/make_golden_namespace_core.py

The sibling of ``tools/make_golden_image_ops.py`` (same snippet format and records, the functions of
``tools/make_golden_frontend_ops.py`` reused): ``tf.control_dependencies``, ``tf.group``, ``tf.tuple``,
``tf.no_op``, ``tf.is_tensor``, ``tf.get_static_value``, ``tf.make_ndarray``/``make_tensor_proto``,
``tf.debugging.check_numerics``, ``tf.nest`` and the stateless ``tf.random`` functions, in graphs (TF's
nodes, control inputs and static shapes), eagerly and in ``tf.function`` (values and TF's errors). Python
results (``tf.nest``'s) are compared through ``tf.constant(str(...))``. Writes ``tests/golden/namespace_core/``
(``graph_cases.json``, ``eager_cases.json``), read by ``tests/api/test_namespace_core_golden.py``, and under
``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU kernel constraints, shape and kernel
cases) for the ops added with these names (the stateless random ops, TruncatedNormal, RandomShuffle, EnsureShape).
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "namespace_core"

NT = "import collections\nP = collections.namedtuple('P', 'x y')\n"
FN = "@tf.function\ndef f(x):\n"

# (case id, snippet, modes) as in make_golden_frontend_ops.py; ids start with "core_".
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ control dependencies, group, tuple, no_op
    ("core_control_dependencies",
     "a = tf.constant(1.0)\nb = tf.constant(2.0)\nwith tf.control_dependencies([a, b.op]):\n  c = tf.identity(3.0)\nc",
     "ge"),
    ("core_control_dependencies_nested",
     "a = tf.constant(1.0)\nb = tf.constant(2.0)\nwith tf.control_dependencies([a]):\n"
     "  with tf.control_dependencies([b]):\n    c = tf.add(a, b)\nc", "ge"),
    ("core_control_dependencies_none",
     "a = tf.constant(1.0)\nwith tf.control_dependencies([a]):\n  with tf.control_dependencies(None):\n"
     "    c = tf.constant(2.0) * 2.0\nc", "ge"),
    ("core_control_dependencies_bad_input", "with tf.control_dependencies([3.0]):\n  c = tf.constant(1)\nc", "g"),
    ("core_control_dependencies_callable",
     "out = []\nwith tf.control_dependencies([lambda: out.append(tf.constant(7))]):\n  pass\nout[0]", "e"),
    ("core_group", "a = tf.constant(1.0)\nb = tf.constant(2.0)\ng = tf.group(a, b, name='grp')\n"
     "with tf.control_dependencies([g]):\n  c = tf.identity(a)\nc", "ge"),
    ("core_group_nested", "a = tf.constant(1.0)\nb = tf.constant(2.0)\ng = tf.group([a, {'k': b}])\n"
     "with tf.control_dependencies([g]):\n  c = tf.identity(a)\nc", "g"),
    ("core_group_empty", "g = tf.group()\nwith tf.control_dependencies([g]):\n  c = tf.identity(1)\nc", "g"),
    ("core_group_devices",
     "with tf.device('/cpu:0'):\n  a = tf.constant(1.0)\nwith tf.device('/cpu:1'):\n  b = tf.constant(2.0)\n"
     "g = tf.group(a, b)\nwith tf.control_dependencies([g]):\n  c = tf.identity(a)\nc", "g"),
    ("core_group_bad_kwarg", "tf.group(tf.constant(1), foo=1)", "g"),
    ("core_group_bad_input", "tf.group(tf.constant(1), 3)", "g"),
    ("core_group_eager_none", "tf.constant(tf.group(tf.constant(1)) is None)", "e"),
    ("core_tuple", "a = tf.constant(1.0)\nb = tf.constant([2, 3])\ntf.tuple([a, b])", "ge"),
    ("core_tuple_control_inputs",
     "a = tf.constant(1.0)\nb = tf.constant(2.0)\nc = tf.constant(3.0)\ntf.tuple([a, None, b], control_inputs=[c],"
     " name='tp')[0::2]", "g"),
    ("core_tuple_empty", "tf.tuple([None])", "g"),
    ("core_tuple_bad_control", "tf.tuple([tf.constant(1)], control_inputs=[3])", "g"),
    ("core_no_op", "n = tf.no_op(name='nothing')\nwith tf.control_dependencies([n]):\n  c = tf.identity(1.5)\nc",
     "g"),
    ("core_no_op_eager", "tf.constant(tf.no_op() is None)", "e"),
    ("core_control_dependencies_function",
     FN + "  with tf.control_dependencies([tf.debugging.assert_positive(x, message='neg')]):\n"
     "    return tf.identity(x) * 2.0\nf(tf.constant([1.0, 2.0]))", "e"),
    ("core_control_dependencies_function_fails",
     FN + "  with tf.control_dependencies([tf.debugging.assert_positive(x, message='neg')]):\n"
     "    return tf.identity(x) * 2.0\nf(tf.constant([1.0, -2.0]))", "e"),
    ("core_group_tuple_function",
     FN + "  g = tf.group(x + 1.0, x * 2.0)\n  t = tf.tuple([x, x + 3.0], control_inputs=[g])\n  return t[1]\n"
     "f(tf.constant(2.0))", "e"),
    # ------------------------------------------------------------------ tensor utilities
    ("core_is_tensor", "tf.constant([tf.is_tensor(tf.constant(1)), tf.is_tensor(1), tf.is_tensor(np.ones(2))])",
     "ge"),
    ("core_get_static_value_folded", "tf.constant(tf.get_static_value(tf.shape(tf.ones([2, 3])) * 2))", "ge"),
    ("core_get_static_value_unknown",
     "x = ph(tf.float32, [None])\ntf.constant(tf.get_static_value(x) is None)", "g"),
    ("core_get_static_value_eager", "tf.constant(tf.get_static_value(tf.constant([1.5, 2.5])))", "e"),
    ("core_get_static_value_python", "tf.constant(tf.get_static_value([1, 2]))", "ge"),
    ("core_make_tensor_proto", "tf.constant(str(tf.make_tensor_proto([[1, 2], [3, 4]])))", "e"),
    ("core_make_tensor_proto_dtype_shape",
     "tf.constant(str(tf.make_tensor_proto(1.5, dtype=tf.float64, shape=[2, 2])))", "e"),
    ("core_make_tensor_proto_string", "tf.constant(str(tf.make_tensor_proto([b'ab', b'c'])))", "e"),
    ("core_make_tensor_proto_eager_tensor", "tf.constant(str(tf.make_tensor_proto(tf.constant([1.0, 2.0]))))", "e"),
    ("core_make_ndarray", "tf.constant(tf.make_ndarray(tf.make_tensor_proto(np.arange(6, dtype=np.int16)"
     ".reshape(2, 3))))", "e"),
    ("core_make_ndarray_string", "tf.constant(tf.make_ndarray(tf.make_tensor_proto([[b'x'], [b'yz']])))", "e"),
    # ------------------------------------------------------------------ check_numerics
    ("core_check_numerics", "tf.debugging.check_numerics(tf.constant([1.0, 2.0]), 'fine')", "ge"),
    ("core_check_numerics_named", "tf.debugging.check_numerics(ph(tf.float64, [None, 2]), 'm', name='chk')", "g"),
    ("core_check_numerics_nan", "tf.debugging.check_numerics(tf.constant([1.0, np.nan]), 'bad x')", "e"),
    ("core_check_numerics_inf", "tf.debugging.check_numerics(tf.constant([np.inf], tf.float16), 'inf')", "e"),
    ("core_check_numerics_both", "tf.debugging.check_numerics(tf.constant([np.inf, np.nan]), 'both')", "e"),
    ("core_check_numerics_int", "tf.debugging.check_numerics(tf.constant([1]), 'int')", "ge"),
    ("core_check_numerics_function",
     FN + "  return tf.debugging.check_numerics(tf.math.log(x), 'log')\nf(tf.constant([1.0, 0.0]))", "e"),
    # ------------------------------------------------------------------ tf.nest
    ("core_nest_flatten_dict", "tf.constant(str(tf.nest.flatten({'b': [1, 2], 'a': (3, {'z': 4, 'y': 5})})))", "e"),
    ("core_nest_flatten_namedtuple", NT + "tf.constant(str(tf.nest.flatten([P(1, [2, 3]), None, 'str'])))", "e"),
    ("core_nest_flatten_atom", "tf.constant(str(tf.nest.flatten(np.ones(2))))", "e"),
    ("core_nest_flatten_tensors", "tf.nest.flatten({'x': tf.constant(1), 'w': [tf.constant(2.0)]})", "ge"),
    ("core_nest_flatten_unsortable", "tf.constant(str(tf.nest.flatten({1: 1, 'a': 2})))", "e"),
    ("core_nest_is_nested",
     "tf.constant([tf.nest.is_nested(v) for v in ([1], (), {}, 'ab', b'x', 1, None, np.ones(2), range(2),"
     " {1}.__iter__(), {'a': 1}.values())])", "e"),
    ("core_nest_pack", "tf.constant(str(tf.nest.pack_sequence_as({'b': [0, 0], 'a': (0,)}, [1, 2, 3])))", "e"),
    ("core_nest_pack_namedtuple", NT + "tf.constant(str(tf.nest.pack_sequence_as([P(0, 0), (0,)], ['a', 'b', 'c'])))",
     "e"),
    ("core_nest_pack_scalar", "tf.constant(str(tf.nest.pack_sequence_as(0, [5])))", "e"),
    ("core_nest_pack_scalar_too_many", "tf.nest.pack_sequence_as(0, [5, 6])", "e"),
    ("core_nest_pack_not_sequence", "tf.nest.pack_sequence_as([0], 5)", "e"),
    ("core_nest_pack_count_mismatch", "tf.nest.pack_sequence_as([0, [0]], [1, 2, 3])", "e"),
    ("core_nest_pack_too_few", "tf.nest.pack_sequence_as([0, [0, 0]], [1, 2])", "e"),
    ("core_nest_pack_ordered_dict",
     "import collections\nd = collections.OrderedDict([('b', 0), ('a', 0)])\n"
     "tf.constant(str(tf.nest.pack_sequence_as(d, [1, 2])))", "e"),
    ("core_nest_map_structure", "tf.constant(str(tf.nest.map_structure(lambda a, b: a + b, {'x': [1, 2], 'y': 3},"
     " {'x': [10, 20], 'y': 30})))", "e"),
    ("core_nest_map_structure_tensors",
     "tf.nest.flatten(tf.nest.map_structure(lambda t: t * 2, [tf.constant(1), (tf.constant(2.5),)]))",
     "ge"),
    ("core_nest_map_structure_check_types",
     "tf.constant(str(tf.nest.map_structure(lambda a, b: a * b, [1, 2], (3, 4), check_types=False)))", "e"),
    ("core_nest_map_structure_types_differ", "tf.nest.map_structure(lambda a, b: a, [1, 2], (3, 4))", "e"),
    ("core_nest_map_structure_bad_kwarg", "tf.nest.map_structure(lambda a: a, [1], foo=2)", "e"),
    ("core_nest_map_structure_not_callable", "tf.nest.map_structure(3, [1])", "e"),
    ("core_nest_map_structure_no_structure", "tf.nest.map_structure(lambda: 1)", "e"),
    ("core_nest_assert_same_ok", NT + "tf.nest.assert_same_structure(P(1, [2]), P('a', ['b']))\ntf.constant(0)",
     "e"),
    ("core_nest_assert_length", "tf.nest.assert_same_structure([1, 2], [1, 2, 3])", "e"),
    ("core_nest_assert_nested_vs_atom", "tf.nest.assert_same_structure([1, [2]], [1, 2])", "e"),
    ("core_nest_assert_atom_vs_nested", "tf.nest.assert_same_structure(1, [1])", "e"),
    ("core_nest_assert_types", "tf.nest.assert_same_structure([1, 2], (1, 2))", "e"),
    ("core_nest_assert_namedtuples",
     NT + "Q = collections.namedtuple('Q', 'x y')\ntf.nest.assert_same_structure(P(1, 2), Q(1, 2))", "e"),
    ("core_nest_assert_same_namedtuple_name",
     NT + "P2 = collections.namedtuple('P', 'x y')\ntf.nest.assert_same_structure(P(1, 2), P2(1, 2))\ntf.constant(1)",
     "e"),
    ("core_nest_assert_keys", "tf.nest.assert_same_structure({'a': 1}, {'b': 1})", "e"),
    ("core_nest_assert_dict_vs_list", "tf.nest.assert_same_structure({'a': 1}, [1])", "e"),
    ("core_nest_assert_deep", "tf.nest.assert_same_structure({'a': [1, (2, 3)]}, {'a': [1, (2,)]})", "e"),
    ("core_nest_assert_no_check_types", "tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)\n"
     "tf.constant(2)", "e"),
    # ------------------------------------------------------------------ stateless random (TF's Philox bits)
    ("core_stateless_uniform", "tf.random.stateless_uniform([2, 3], seed=[1, 2])", "ge"),
    ("core_stateless_uniform_range_f64",
     "tf.random.stateless_uniform([7], seed=[-5, 2**40], minval=-2.0, maxval=3.0, dtype=tf.float64)", "ge"),
    ("core_stateless_uniform_f16", "tf.random.stateless_uniform([9], seed=(3, 4), dtype=tf.float16)", "e"),
    ("core_stateless_uniform_bf16", "tf.random.stateless_uniform([5], seed=(3, 4), dtype=tf.bfloat16)", "e"),
    ("core_stateless_uniform_large", "tf.reduce_sum(tf.random.stateless_uniform([50, 41], seed=[7, 8]))", "e"),
    ("core_stateless_uniform_seed_int32",
     "tf.random.stateless_uniform([4], seed=tf.constant([11, 12], tf.int32), name='su')", "ge"),
    ("core_stateless_uniform_int32",
     "tf.random.stateless_uniform([3, 4], seed=[1, 2], minval=-5, maxval=17, dtype=tf.int32)", "ge"),
    ("core_stateless_uniform_int64",
     "tf.random.stateless_uniform([5], seed=[9, 9], minval=0, maxval=2**40, dtype=tf.int64)", "e"),
    ("core_stateless_uniform_int_bad_range",
     "tf.random.stateless_uniform([2], seed=[1, 2], minval=3, maxval=3, dtype=tf.int32)", "e"),
    ("core_stateless_uniform_int_one_bound",
     "tf.random.stateless_uniform([2], seed=[1, 2], maxval=3, minval=None, dtype=tf.int32)", "ge"),
    ("core_stateless_uniform_full_int64",
     "tf.random.stateless_uniform([3, 2], seed=[1, 2], minval=None, maxval=None, dtype=tf.int64)", "ge"),
    ("core_stateless_uniform_full_uint32",
     "tf.random.stateless_uniform([5], seed=[7, -1], minval=None, maxval=None, dtype=tf.uint32, name='fu')", "ge"),
    ("core_stateless_uniform_full_ph",
     "tf.random.stateless_uniform(ph(tf.int32, [2]), seed=[3, 4], minval=None, maxval=None, dtype=tf.int32)", "g"),
    ("core_stateless_uniform_unsigned",
     "tf.random.stateless_uniform([2], seed=[1, 2], minval=0, maxval=3, dtype=tf.uint32)", "ge"),
    ("core_stateless_uniform_bad_dtype", "tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int8)", "ge"),
    ("core_stateless_uniform_bad_seed", "tf.random.stateless_uniform([2], seed=[1, 2, 3])", "ge"),
    ("core_stateless_uniform_ph_shape",
     "tf.random.stateless_uniform(tf.shape(ph(tf.float32, [None, 3])), seed=ph(tf.int64, [2]))", "g"),
    ("core_stateless_uniform_function",
     "@tf.function\ndef f(s):\n  return tf.random.stateless_uniform([3], seed=s, maxval=10.0)\n"
     "f(tf.constant([4, 5], tf.int64))", "e"),
    ("core_stateless_normal", "tf.random.stateless_normal([2, 3], seed=[1, 2])", "ge"),
    ("core_stateless_normal_f64",
     "tf.random.stateless_normal([5], seed=[0, 0], mean=1.5, stddev=0.5, dtype=tf.float64, name='sn')", "ge"),
    ("core_stateless_normal_large", "tf.reduce_sum(tf.random.stateless_normal([33, 17], seed=[123, 456]))", "e"),
    ("core_stateless_normal_tensor_args",
     "tf.random.stateless_normal(tf.constant([4]), seed=tf.constant([2, 3]), mean=tf.constant(2.0),"
     " stddev=tf.constant(3.0))", "ge"),
    ("core_stateless_normal_ph", "tf.random.stateless_normal(ph(tf.int32, [3]), seed=[1, 1])", "g"),
    # ------------------------------------------------ tf.random.stateless_truncated_normal (StatelessTruncatedNormalV2)
    ("core_stateless_truncated_normal", "tf.random.stateless_truncated_normal([3, 5], seed=[1, 2])", "ge"),
    ("core_stateless_truncated_normal_args",
     "tf.random.stateless_truncated_normal([4, 9], seed=[7, -3], mean=3.0, stddev=0.5, dtype=tf.float64,"
     " name='stn')", "ge"),
    ("core_stateless_truncated_normal_half", "tf.random.stateless_truncated_normal([6], seed=[0, 0], dtype=tf.float16)",
     "ge"),
    ("core_stateless_truncated_normal_large",
     "x = tf.random.stateless_truncated_normal([257, 3], seed=[123, 456])\n"
     "tf.stack([tf.reduce_sum(x), tf.reduce_max(tf.abs(x))])", "e"),
    ("core_stateless_truncated_normal_tensor_args",
     "tf.random.stateless_truncated_normal(tf.constant([4], tf.int64), seed=tf.constant([2, 3], tf.int32),"
     " mean=tf.constant(2.0), stddev=tf.constant(3.0))", "ge"),
    ("core_stateless_truncated_normal_ph", "tf.random.stateless_truncated_normal(ph(tf.int32, [3]), seed=[1, 1])",
     "g"),
    ("core_stateless_truncated_normal_bad_dtype",
     "tf.random.stateless_truncated_normal([2], seed=[1, 2], dtype=tf.int32)", "ge"),
    ("core_stateless_truncated_normal_function",
     "@tf.function\ndef f(s):\n  return tf.random.stateless_truncated_normal([5], seed=s)\n"
     "f(tf.constant([4, 5], tf.int64))", "e"),
    # ------------------------------------------------ alg: TF's key and counter per algorithm (Philox on CPU)
    ("core_stateless_alg_philox", "tf.random.stateless_uniform([2, 3], seed=[1, 2], alg='philox')", "ge"),
    ("core_stateless_alg_philox_enum",
     "tf.random.stateless_normal([4], seed=[5, 6], alg=tf.random.Algorithm.PHILOX)", "e"),
    ("core_stateless_alg_philox_int",
     "tf.random.stateless_uniform([3], seed=[1, 2], minval=0, maxval=10, dtype=tf.int32, alg=1)", "e"),
    ("core_stateless_alg_philox_truncated",
     "tf.random.stateless_truncated_normal([5], seed=[7, -8], alg=' Phi-lox ')", "e"),
    ("core_stateless_alg_philox_full_int",
     "tf.random.stateless_uniform([3], seed=[2**40, 3], minval=None, maxval=None, dtype=tf.uint64, alg='philox')",
     "e"),
    ("core_stateless_alg_auto_enum",
     "tf.random.stateless_uniform([2], seed=[1, 2], alg=tf.random.Algorithm.AUTO_SELECT)", "e"),
    ("core_stateless_alg_philox_function",
     "@tf.function\ndef f(s):\n  return tf.random.stateless_uniform([3], seed=s, alg='philox')\n"
     "f(tf.constant([4, 5], tf.int64))", "e"),
    ("core_stateless_alg_threefry", "tf.random.stateless_uniform([3], seed=[1, 2], alg='threefry')", "e"),
    ("core_stateless_alg_bad_name", "tf.random.stateless_uniform([3], seed=[1, 2], alg='bogus')", "e"),
    ("core_stateless_alg_bad_int", "tf.random.stateless_normal([3], seed=[1, 2], alg=7)", "e"),
    ("core_stateless_alg_bad_type", "tf.random.stateless_uniform([3], seed=[1, 2], alg=2.5)", "e"),
    ("core_stateless_v2_threefry_id",
     "tf.raw_ops.StatelessRandomUniformV2(shape=[2], key=tf.constant([5], tf.uint64),"
     " counter=tf.constant([1, 2], tf.uint64), alg=2)", "e"),
    ("core_stateless_v2_unknown_id",
     "tf.raw_ops.StatelessRandomNormalV2(shape=[2], key=tf.constant([5], tf.uint64),"
     " counter=tf.constant([1, 2], tf.uint64), alg=5)", "e"),
    ("core_stateless_v2_key_rank",
     "tf.raw_ops.StatelessRandomUniformV2(shape=[2], key=tf.constant([[5]], tf.uint64),"
     " counter=tf.constant([1, 2], tf.uint64), alg=1)", "e"),
    ("core_stateless_v2_counter_rank",
     "tf.raw_ops.StatelessRandomUniformV2(shape=[2], key=tf.constant([5], tf.uint64),"
     " counter=tf.constant([[1, 2]], tf.uint64), alg=3)", "e"),
    # ------------------------------------------------------------------ tf.random.truncated_normal (TruncatedNormal)
    ("core_truncated_normal", "tf.random.truncated_normal([3, 5], seed=7)", "ge"),
    ("core_truncated_normal_args",
     "tf.random.truncated_normal([4, 9], mean=3.0, stddev=0.5, dtype=tf.float64, seed=11, name='tn')", "ge"),
    ("core_truncated_normal_global_seed",
     "tf.random.set_seed(5)\na = tf.random.truncated_normal([7])\nb = tf.random.truncated_normal([7])\n"
     "tf.concat([a, b], 0)", "ge"),
    ("core_truncated_normal_half", "tf.random.truncated_normal([6], dtype=tf.float16, seed=3)", "ge"),
    ("core_truncated_normal_tensor_shape", "tf.random.truncated_normal(tf.constant([2, 3], tf.int64), seed=9)", "ge"),
    ("core_truncated_normal_ph", "tf.random.truncated_normal(ph(tf.int32, [2]), seed=1)", "g"),
    ("core_truncated_normal_function",
     "tf.random.set_seed(2)\n@tf.function\ndef f(x):\n  return tf.random.truncated_normal([5], seed=4) + x\n"
     "a = f(tf.constant(1.0))\nb = f(tf.constant(1.0))\ntf.concat([a, b], 0)", "e"),
    ("core_truncated_normal_bad_dtype", "tf.random.truncated_normal([2], dtype=tf.int32, seed=1)", "ge"),
    ("core_truncated_normal_negative_dim", "tf.random.truncated_normal([2, -3], seed=1)", "e"),
    ("core_truncated_normal_raw",
     "tf.raw_ops.TruncatedNormal(shape=tf.constant([3, 3]), dtype=tf.float32, seed=1, seed2=2)", "ge"),
    # ------------------------------------------------------------------ tf.random.shuffle (RandomShuffle)
    ("core_shuffle", "tf.random.shuffle(tf.range(10), seed=7)", "ge"),
    ("core_shuffle_rows", "tf.random.shuffle(tf.reshape(tf.range(24.0), [8, 3]), seed=3, name='sh')", "ge"),
    ("core_shuffle_global_seed",
     "tf.random.set_seed(5)\na = tf.random.shuffle(tf.range(37))\nb = tf.random.shuffle(tf.range(37))\n"
     "tf.stack([a, b])", "ge"),
    ("core_shuffle_strings", "tf.random.shuffle(tf.constant(['a', 'b', 'c', 'd', 'e']), seed=2)", "ge"),
    ("core_shuffle_scalar_and_one_row",
     "tf.random.shuffle(tf.constant(3), seed=1), tf.random.shuffle(tf.ones([1, 4]), seed=1)", "ge"),
    ("core_shuffle_ph", "tf.random.shuffle(ph(tf.float32, [None, 2]), seed=1)", "g"),
    ("core_shuffle_function",
     "tf.random.set_seed(2)\n@tf.function\ndef f(x):\n  return tf.random.shuffle(x, seed=4)\n"
     "a = f(tf.range(9))\nb = f(tf.range(9))\ntf.stack([a, b])", "e"),
    # ------------------------------------------------------------------ tf.ensure_shape (EnsureShape)
    ("core_ensure_shape", "tf.ensure_shape(tf.constant([[1.0, 2.0, 3.0]]), [None, 3])", "ge"),
    ("core_ensure_shape_ph", "tf.ensure_shape(ph(tf.float32, [None, 3]), [4, None], name='es')", "g"),
    ("core_ensure_shape_unknown_rank", "tf.ensure_shape(ph(tf.float32, None), [4, None])", "g"),
    ("core_ensure_shape_tensor_shape", "tf.ensure_shape(ph(tf.int32, [2, None]), tf.TensorShape([None, 5]))", "g"),
    ("core_ensure_shape_none_known_rank", "tf.ensure_shape(ph(tf.float32, [None, 3]), None)", "g"),
    ("core_ensure_shape_static_mismatch", "tf.ensure_shape(ph(tf.float32, [None, 3]), [2, 2])", "g"),
    ("core_ensure_shape_rank_mismatch", "tf.ensure_shape(ph(tf.float32, [None, 3]), [3])", "g"),
    ("core_ensure_shape_eager_mismatch", "tf.ensure_shape(tf.constant([1, 2, 3]), [3, 3])", "e"),
    ("core_ensure_shape_eager_dim", "tf.ensure_shape(tf.constant([[1, 2, 3]]), [None, 2])", "e"),
    ("core_ensure_shape_strings", "tf.ensure_shape(tf.constant(['a', 'b']), [2])", "ge"),
    ("core_ensure_shape_function",
     "@tf.function(input_signature=[tf.TensorSpec([None, None])])\ndef f(x):\n  return tf.ensure_shape(x, [None, 3])\n"
     "f(tf.ones([2, 3]))", "e"),
    ("core_ensure_shape_function_fails",
     "@tf.function(input_signature=[tf.TensorSpec([None, None])])\ndef f(x):\n  return tf.ensure_shape(x, [None, 3])\n"
     "f(tf.ones([2, 2]))", "e"),
    ("core_ensure_shape_gradient",
     "x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n  t.watch(x)\n  y = tf.ensure_shape(x * x, [2])\n"
     "t.gradient(y, x)", "e"),
    ("core_stateless_get_key_counter", "tf.raw_ops.StatelessRandomGetKeyCounter(seed=tf.constant([1, 2], tf.int64))",
     "ge"),
]  # fmt: skip


OPS = [
    "StatelessRandomGetKeyCounter",
    "StatelessRandomUniformV2",
    "StatelessRandomNormalV2",
    "StatelessTruncatedNormalV2",
    "StatelessRandomUniformIntV2",
    "StatelessRandomUniformFullIntV2",
    "TruncatedNormal",
    "RandomShuffle",
    "EnsureShape",
]


def write_op_goldens() -> int:
    """The op-breadth goldens of the new ops, with make_golden_op_breadth.py's writers."""
    P, C, shape_case, kernel_case = breadth.P, breadth.C, breadth.shape_case, breadth.kernel_case
    breadth.OUT = OUT / "ops"
    breadth.OUT.mkdir(parents=True, exist_ok=True)
    breadth.GENERATOR = "tools/make_golden_namespace_core.py"
    breadth.OPS, breadth.KERNEL_ONLY = list(OPS), []
    breadth.SHAPE_CASES.clear()
    breadth.KERNEL_CASES.clear()
    u64 = np.uint64
    shape_case("StatelessRandomGetKeyCounter", P([2], "int64"))
    shape_case("StatelessRandomGetKeyCounter", P([None], "int32"))
    shape_case("StatelessRandomGetKeyCounter", P([3], "int64"))
    shape_case("StatelessRandomGetKeyCounter", P([2, 1], "int64"))
    for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"):
        shape_case(op, C([2, 3], "int32"), P([1], "uint64"), P([2], "uint64"), P([], "int32"), dtype="float64")
        shape_case(op, P([3], "int64"), P([None], "uint64"), P([None], "uint64"), P([], "int32"))
        shape_case(op, P([None], "int32"), P([2], "uint64"), P([2], "uint64"), P([], "int32"))
        shape_case(op, C([4], "int32"), P([1], "uint64"), P([2], "uint64"), P([1], "int32"))
        for dtype in (np.float16, np.float32, np.float64):
            kernel_case(
                op, np.array([3, 5], np.int32), np.array([7], u64), np.array([0, 99], u64), np.int32(3), dtype=dtype
            )
        kernel_case(op, np.array([9], np.int64), np.array([2**63 + 5], u64), np.array([17, 2**40], u64), np.int32(1))
        kernel_case(op, np.array([2], np.int32), np.array([1], u64), np.array([0, 0], u64), np.int32(2))
    shape_case(
        "StatelessRandomUniformIntV2",
        C([2, 3], "int32"),
        P([1], "uint64"),
        P([2], "uint64"),
        P([], "int32"),
        P([], "int32"),
        P([], "int32"),
    )
    shape_case(
        "StatelessRandomUniformIntV2",
        C([2], "int32"),
        P([1], "uint64"),
        P([2], "uint64"),
        P([], "int32"),
        P([2], "int64"),
        P([], "int64"),
    )
    for lo, hi, dtype in ((-5, 17, np.int32), (0, 2**40, np.int64), (3, 3, np.int32)):
        kernel_case(
            "StatelessRandomUniformIntV2",
            np.array([2, 4], np.int32),
            np.array([7], u64),
            np.array([0, 99], u64),
            np.int32(3),
            dtype(lo),
            dtype(hi),
        )
    for dtype in (np.int32, np.int64, np.uint32, np.uint64):
        kernel_case("StatelessRandomUniformFullIntV2", np.array([3, 5], np.int32), np.array([7], u64),
                    np.array([0, 99], u64), np.int32(3), dtype=dtype)  # fmt: skip
    kernel_case("StatelessRandomUniformFullIntV2", np.array([9], np.int64), np.array([2**63 + 5], u64),
                np.array([17, 2**40], u64), np.int32(1), dtype=np.int64)  # fmt: skip
    shape_case("StatelessRandomUniformFullIntV2", C([2, 3], "int32"), P([1], "uint64"), P([2], "uint64"),
               P([], "int32"), dtype="int64")  # fmt: skip
    shape_case("StatelessRandomUniformFullIntV2", P([None], "int32"), P([2], "uint64"), P([2], "uint64"),
               P([], "int32"))  # fmt: skip
    for seed in ([1, 2], [-5, 2**40], [0, 0]):
        kernel_case("StatelessRandomGetKeyCounter", np.array(seed, np.int64))
    kernel_case("StatelessRandomGetKeyCounter", np.array([11, 12], np.int32))
    shape_case("TruncatedNormal", C([2, 3], "int32"), dtype="float64")
    shape_case("TruncatedNormal", P([3], "int64"), dtype="float32")
    shape_case("TruncatedNormal", P([None], "int32"), dtype="float16")
    shape_case("TruncatedNormal", P([2, 1], "int32"), dtype="float32")
    for dtype in (np.float16, np.float32, np.float64):
        kernel_case("TruncatedNormal", np.array([3, 5], np.int32), dtype=dtype, seed=1, seed2=2)
    kernel_case("TruncatedNormal", np.array([257], np.int64), dtype=np.float32, seed=87654321, seed2=5)
    kernel_case("TruncatedNormal", np.array([33, 7], np.int32), dtype=np.float64, seed=2**40 + 3, seed2=9)
    kernel_case("TruncatedNormal", np.array([2, 0], np.int32), dtype=np.float32, seed=1, seed2=1)
    kernel_case("TruncatedNormal", np.array([-1], np.int32), dtype=np.float32, seed=1, seed2=1)
    shape_case("RandomShuffle", P([None, 3], "float32"))
    shape_case("RandomShuffle", P(None, "int32"))
    shape_case("RandomShuffle", P([], "string"))
    for value in (np.arange(10, dtype=np.int32), np.arange(30.0).reshape(10, 3), np.array([b"x", b"y", b"z"], object),
                  np.array([True, False, True, True]), np.zeros((0, 2), np.float32), np.float32(4.0),
                  np.arange(513, dtype=np.int64), np.ones((1, 5), np.float16)):  # fmt: skip
        kernel_case("RandomShuffle", value, seed=3, seed2=4)
    for shape, attr in (([None, 3], [4, None]), (None, [4, None]), ([None, 3], None), ([None, 3], [2, 2]),
                        ([2, 3], [2]), ([], []), (None, None), ([2, None], [None, 5])):  # fmt: skip
        shape_case("EnsureShape", P(shape, "float32"), shape=attr)
    kernel_case("EnsureShape", np.ones((2, 3), np.float32), shape=[None, 3])
    kernel_case("EnsureShape", np.array([b"a", b"b"], object), shape=[2])
    kernel_case("EnsureShape", np.arange(6, dtype=np.int64).reshape(2, 3), shape=None)
    kernel_case("EnsureShape", np.ones((2, 2), np.float32), shape=[None, 3])
    kernel_case("EnsureShape", np.ones((3,), np.int32), shape=[3, 3])
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_namespace_core.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
