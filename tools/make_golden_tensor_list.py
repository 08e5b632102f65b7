"""Record what TensorFlow 2.21 computes for TensorList, TensorArray, map_fn/scan/fold, print and assert programs.

    /work/tfvenv/bin/python tools/make_golden_tensor_list.py

Each program is a snippet (statements, then a final expression) run twice by TensorFlow:
eagerly ("eager") and as the body of a ``tf.function`` called once ("function"). In scope:
``tf``, ``np``, and ``lo`` (TF's ``tensorflow.python.ops.list_ops``; modtensor's tests bind
``modtensor.api.list_ops``). The fixture keeps, per mode, the outputs (dtype, shape, flat
values; ``variant`` outputs only by dtype), or the error class and message, and what the
program printed to stdout and stderr (fd-level, as TF's C++ print kernel writes there).
Writes ``tests/golden/tensor_list/<area>.json``, read by ``tests/api/test_tensor_list_golden.py``
(and the other areas' test modules), which replay the same snippets with modtensor.
TensorFlow is used only here.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import list_ops  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "tensor_list"


def P(case_id: str, *lines: str) -> tuple[str, str]:  # noqa: N802
    """A program: its id and its lines (statements, then the expression whose value is recorded)."""
    return case_id, "\n".join(lines)


# (case id, snippet). Ids are unique per area.
LIST_OPS: list[tuple[str, str]] = [
    P(
        "reserve_set_stack",
        "l = lo.tensor_list_reserve([2], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 1, tf.constant([1., 2.]))",
        "lo.tensor_list_stack(l, tf.float32), lo.tensor_list_length(l)",
    ),
    P(
        "reserve_stack_uninitialized",
        "l = lo.tensor_list_reserve([2], 2, tf.int32)",
        "lo.tensor_list_stack(l, tf.int32)",
    ),
    P(
        "reserve_unknown_shape_stack",
        "l = lo.tensor_list_reserve(None, 2, tf.float32)",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P(
        "reserve_partial_shape_stack_inferred",
        "l = lo.tensor_list_reserve([None], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 2, tf.constant([5., 6., 7.]))",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P("reserve_negative", "l = lo.tensor_list_reserve([2], -1, tf.float32)", "lo.tensor_list_length(l)"),
    P(
        "reserve_int64_shape",
        "l = lo.tensor_list_reserve(tf.constant([2, 1], tf.int64), 1, tf.float32)",
        "lo.tensor_list_stack(l, tf.float32), lo.tensor_list_element_shape(l, tf.int64)",
    ),
    P("empty_stack_unknown", "l = lo.empty_tensor_list(None, tf.float32)", "lo.tensor_list_stack(l, tf.float32)"),
    P("empty_stack_known", "l = lo.empty_tensor_list([2, 3], tf.float32)", "lo.tensor_list_stack(l, tf.float32)"),
    P(
        "empty_stack_element_shape_arg",
        "l = lo.empty_tensor_list(None, tf.float32)",
        "lo.tensor_list_stack(l, tf.float32, element_shape=[3])",
    ),
    P("empty_bad_scalar_shape", "l = lo.empty_tensor_list(tf.constant(5), tf.float32)", "lo.tensor_list_length(l)"),
    P("empty_bad_shape_dim", "l = lo.empty_tensor_list([2, -5], tf.float32)", "lo.tensor_list_length(l)"),
    P(
        "push_back_stack",
        "l = lo.empty_tensor_list([2], tf.float32)",
        "for i in range(3):",
        "  l = lo.tensor_list_push_back(l, tf.fill([2], float(i)))",
        "lo.tensor_list_stack(l, tf.float32), lo.tensor_list_length(l)",
    ),
    P(
        "push_back_incompatible_shape",
        "l = lo.empty_tensor_list([2], tf.float32)",
        "l = lo.tensor_list_push_back(l, tf.constant([1., 2., 3.]))",
        "lo.tensor_list_length(l)",
    ),
    P(
        "push_back_wrong_dtype",
        "l = lo.empty_tensor_list(None, tf.float32)",
        "l = lo.tensor_list_push_back(l, tf.constant([1, 2]))",
        "lo.tensor_list_length(l)",
    ),
    P(
        "push_back_full",
        "l = lo.empty_tensor_list([], tf.float32, max_num_elements=1)",
        "l = lo.tensor_list_push_back(l, 1.0)",
        "l = lo.tensor_list_push_back(l, 2.0)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "push_back_keeps_input",
        "l0 = lo.empty_tensor_list([], tf.float32)",
        "l1 = lo.tensor_list_push_back(l0, 1.0)",
        "l2 = lo.tensor_list_push_back(l1, 2.0)",
        "l3 = lo.tensor_list_push_back(l1, 3.0)",
        "lo.tensor_list_length(l0), lo.tensor_list_stack(l1, tf.float32), lo.tensor_list_stack(l2, tf.float32), "
        "lo.tensor_list_stack(l3, tf.float32)",
    ),
    P(
        "pop_back",
        "l = lo.tensor_list_from_tensor(tf.constant([[1, 2], [3, 4], [5, 6]]), [2])",
        "l, t = lo.tensor_list_pop_back(l, tf.int32)",
        "t, lo.tensor_list_length(l), lo.tensor_list_stack(l, tf.int32)",
    ),
    P(
        "pop_back_empty",
        "l = lo.empty_tensor_list(None, tf.float32)",
        "l, t = lo.tensor_list_pop_back(l, tf.float32)",
        "t",
    ),
    P(
        "pop_back_uninitialized",
        "l = lo.tensor_list_reserve([2], 1, tf.float32)",
        "l, t = lo.tensor_list_pop_back(l, tf.float32)",
        "t, lo.tensor_list_length(l)",
    ),
    P(
        "pop_back_uninitialized_unknown",
        "l = lo.tensor_list_reserve(None, 1, tf.float32)",
        "l, t = lo.tensor_list_pop_back(l, tf.float32)",
        "t",
    ),
    P(
        "pop_back_wrong_dtype",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "l, t = lo.tensor_list_pop_back(l, tf.int32)",
        "t",
    ),
    P(
        "get_item",
        "l = lo.tensor_list_from_tensor(tf.constant([[1., 2.], [3., 4.]]), [2])",
        "lo.tensor_list_get_item(l, 1, tf.float32), lo.tensor_list_get_item(l, 0, tf.float32, element_shape=[2])",
    ),
    P(
        "get_item_out_of_range",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_get_item(l, 2, tf.float32)",
    ),
    P(
        "get_item_negative",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_get_item(l, -1, tf.float32)",
    ),
    P(
        "get_item_wrong_dtype",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_get_item(l, 0, tf.int32)",
    ),
    P(
        "get_item_uninitialized_known",
        "l = lo.tensor_list_reserve([3], 2, tf.float32)",
        "lo.tensor_list_get_item(l, 1, tf.float32)",
    ),
    P(
        "get_item_uninitialized_inferred",
        "l = lo.tensor_list_reserve(None, 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 0, tf.constant([[1., 2.]]))",
        "lo.tensor_list_get_item(l, 2, tf.float32)",
    ),
    P(
        "get_item_uninitialized_unknown",
        "l = lo.tensor_list_reserve(None, 3, tf.float32)",
        "lo.tensor_list_get_item(l, 2, tf.float32)",
    ),
    P(
        "get_item_uninitialized_element_shape_arg",
        "l = lo.tensor_list_reserve(None, 3, tf.float32)",
        "lo.tensor_list_get_item(l, 2, tf.float32, element_shape=[2, 1])",
    ),
    P(
        "get_item_incompatible_element_shape",
        "l = lo.tensor_list_reserve([2], 3, tf.float32)",
        "lo.tensor_list_get_item(l, 2, tf.float32, element_shape=[3])",
    ),
    P(
        "set_item_out_of_range",
        "l = lo.tensor_list_reserve([], 2, tf.float32)",
        "l = lo.tensor_list_set_item(l, 2, 1.0)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "set_item_negative",
        "l = lo.tensor_list_reserve([], 2, tf.float32)",
        "l = lo.tensor_list_set_item(l, -1, 1.0)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "set_item_resize",
        "l = lo.tensor_list_reserve([], 2, tf.float32)",
        "l = lo.tensor_list_set_item(l, 4, 1.0, resize_if_index_out_of_bounds=True)",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P(
        "set_item_incompatible_shape",
        "l = lo.tensor_list_reserve([2], 2, tf.float32)",
        "l = lo.tensor_list_set_item(l, 0, tf.constant([1., 2., 3.]))",
        "lo.tensor_list_length(l)",
    ),
    P(
        "set_item_wrong_dtype",
        "l = lo.tensor_list_reserve([], 2, tf.float32)",
        "l = lo.tensor_list_set_item(l, 0, tf.constant(1))",
        "lo.tensor_list_length(l)",
    ),
    P(
        "set_item_keeps_input",
        "l0 = lo.tensor_list_reserve([], 2, tf.float32)",
        "l1 = lo.tensor_list_set_item(l0, 0, 1.0)",
        "l2 = lo.tensor_list_set_item(l1, 1, 2.0)",
        "lo.tensor_list_stack(l0, tf.float32), lo.tensor_list_stack(l1, tf.float32), lo.tensor_list_stack(l2, "
        "tf.float32)",
    ),
    P(
        "element_shape",
        "l = lo.tensor_list_reserve([None, 3], 1, tf.float32)",
        "l2 = lo.empty_tensor_list(None, tf.int32)",
        "lo.tensor_list_element_shape(l, tf.int32), lo.tensor_list_element_shape(l2, tf.int32), "
        "lo.tensor_list_element_shape(lo.empty_tensor_list([], tf.int32), tf.int64)",
    ),
    P(
        "from_tensor_stack",
        "t = tf.reshape(tf.range(12, dtype=tf.float32), [3, 2, 2])",
        "l = lo.tensor_list_from_tensor(t, [2, 2])",
        "lo.tensor_list_stack(l, tf.float32), lo.tensor_list_length(l)",
    ),
    P("from_tensor_scalar", "l = lo.tensor_list_from_tensor(tf.constant(1.), [])", "lo.tensor_list_length(l)"),
    P(
        "from_tensor_incompatible",
        "l = lo.tensor_list_from_tensor(tf.constant([[1., 2.]]), [3])",
        "lo.tensor_list_length(l)",
    ),
    P(
        "from_tensor_strings",
        "l = lo.tensor_list_from_tensor(tf.constant(['a', 'bc', 'def']), [])",
        "lo.tensor_list_get_item(l, 1, tf.string), lo.tensor_list_stack(l, tf.string)",
    ),
    P(
        "from_tensor_bool_empty",
        "l = lo.tensor_list_from_tensor(tf.zeros([0, 2], tf.bool), [2])",
        "lo.tensor_list_stack(l, tf.bool), lo.tensor_list_length(l)",
    ),
    P(
        "stack_num_elements_mismatch",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_stack(l, tf.float32, num_elements=3)",
    ),
    P(
        "stack_wrong_dtype",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_stack(l, tf.int32)",
    ),
    P(
        "stack_incompatible_elements",
        "l = lo.empty_tensor_list(None, tf.float32)",
        "l = lo.tensor_list_push_back(l, tf.constant([1.]))",
        "l = lo.tensor_list_push_back(l, tf.constant([1., 2.]))",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P(
        "gather",
        "l = lo.tensor_list_from_tensor(tf.reshape(tf.range(10), [5, 2]), [2])",
        "lo.tensor_list_gather(l, [3, 0, 3], tf.int32)",
    ),
    P(
        "gather_out_of_range",
        "l = lo.tensor_list_from_tensor(tf.reshape(tf.range(10), [5, 2]), [2])",
        "lo.tensor_list_gather(l, [5], tf.int32)",
    ),
    P(
        "gather_empty_unknown",
        "l = lo.tensor_list_reserve(None, 2, tf.float32)",
        "lo.tensor_list_gather(l, tf.zeros([0], tf.int32), tf.float32)",
    ),
    P(
        "gather_empty_known",
        "l = lo.tensor_list_reserve([3], 2, tf.float32)",
        "lo.tensor_list_gather(l, tf.zeros([0], tf.int32), tf.float32)",
    ),
    P(
        "gather_uninitialized",
        "l = lo.tensor_list_reserve([2], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 1, tf.constant([1., 2.]))",
        "lo.tensor_list_gather(l, [0, 1], tf.float32)",
    ),
    P(
        "scatter",
        "l = lo.tensor_list_scatter(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [2, 0, 4], [2])",
        "lo.tensor_list_stack(l, tf.float32), lo.tensor_list_length(l)",
    ),
    P("scatter_negative", "l = lo.tensor_list_scatter(tf.constant([[1., 2.]]), [-1], [2])", "lo.tensor_list_length(l)"),
    P(
        "scatter_rows_mismatch",
        "l = lo.tensor_list_scatter(tf.constant([[1., 2.]]), [0, 1], [2])",
        "lo.tensor_list_length(l)",
    ),
    P(
        "scatter_v2_num_elements",
        "l = lo.tensor_list_scatter_v2(tf.constant([1., 2.]), [0, 1], element_shape=tf.zeros([0], tf.int32), "
        "num_elements=4)",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P(
        "scatter_v2_index_too_big",
        "l = lo.tensor_list_scatter_v2(tf.constant([1., 2.]), [0, 4], element_shape=tf.zeros([0], tf.int32), "
        "num_elements=4)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "scatter_into_existing",
        "l = lo.tensor_list_reserve([2], 4, tf.float32)",
        "l = lo.tensor_list_scatter(tf.constant([[1., 2.], [3., 4.]]), [3, 0], input_handle=l)",
        "lo.tensor_list_stack(l, tf.float32)",
    ),
    P(
        "scatter_into_existing_wrong_dtype",
        "l = lo.tensor_list_reserve([2], 2, tf.float32)",
        "l = lo.tensor_list_scatter(tf.constant([[1, 2]]), [0], input_handle=l)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "scatter_into_existing_mismatch",
        "l = lo.tensor_list_reserve([2], 2, tf.float32)",
        "l = lo.tensor_list_scatter(tf.constant([[1., 2.]]), [0, 1], input_handle=l)",
        "lo.tensor_list_length(l)",
    ),
    P(
        "split_concat",
        "l = lo.tensor_list_split(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [None, 2], [1, 2])",
        "lo.tensor_list_get_item(l, 1, tf.float32), lo.tensor_list_concat(l, tf.float32)",
    ),
    P(
        "split_unused",
        "l = lo.tensor_list_split(tf.constant([1., 2., 3.]), [None], [1, 1])",
        "lo.tensor_list_length(l)",
    ),
    P(
        "split_too_long",
        "l = lo.tensor_list_split(tf.constant([1., 2., 3.]), [None], [2, 2])",
        "lo.tensor_list_length(l)",
    ),
    P(
        "split_negative",
        "l = lo.tensor_list_split(tf.constant([1., 2., 3.]), [None], [-1, 4])",
        "lo.tensor_list_length(l)",
    ),
    P("split_scalar_shape", "l = lo.tensor_list_split(tf.constant([1., 2., 3.]), [], [3])", "lo.tensor_list_length(l)"),
    P(
        "split_incompatible",
        "l = lo.tensor_list_split(tf.constant([[1., 2.]]), [None, 3], [1])",
        "lo.tensor_list_length(l)",
    ),
    P(
        "concat_scalars",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "lo.tensor_list_concat(l, tf.float32)",
    ),
    P("concat_empty_unknown", "l = lo.empty_tensor_list(None, tf.float32)", "lo.tensor_list_concat(l, tf.float32)"),
    P("concat_empty_known", "l = lo.empty_tensor_list([None, 2], tf.float32)", "lo.tensor_list_concat(l, tf.float32)"),
    P(
        "concat_v2_leading_dims",
        "l = lo.tensor_list_reserve([None, 2], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 1, tf.ones([1, 2]))",
        "lo.tensor_list_concat_v2(l, element_shape=[-1, 2], leading_dims=tf.constant([2, 1, 1], tf.int64), "
        "element_dtype=tf.float32)",
    ),
    P(
        "concat_v2_missing_leading_dims",
        "l = lo.tensor_list_reserve([None, 2], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 1, tf.ones([1, 2]))",
        "l = lo.tensor_list_set_item(l, 2, tf.ones([2, 2]))",
        "lo.tensor_list_concat_v2(l, element_shape=[-1, 2], leading_dims=tf.constant([], tf.int64), "
        "element_dtype=tf.float32)",
    ),
    P(
        "concat_inferred_first_dim",
        "l = lo.tensor_list_reserve([None, 2], 3, tf.float32)",
        "l = lo.tensor_list_set_item(l, 1, tf.ones([2, 2]))",
        "lo.tensor_list_concat(l, tf.float32)",
    ),
    P(
        "resize",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2., 3.]), [])",
        "a = lo.tensor_list_resize(l, 5)",
        "b = lo.tensor_list_resize(l, 1)",
        "lo.tensor_list_stack(a, tf.float32), lo.tensor_list_stack(b, tf.float32), lo.tensor_list_length(l)",
    ),
    P(
        "resize_negative",
        "l = lo.tensor_list_from_tensor(tf.constant([1., 2., 3.]), [])",
        "lo.tensor_list_length(lo.tensor_list_resize(l, -1))",
    ),
    P(
        "concat_lists",
        "a = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "b = lo.tensor_list_from_tensor(tf.constant([3.]), [])",
        "lo.tensor_list_stack(lo.tensor_list_concat_lists(a, b, tf.float32), tf.float32)",
    ),
    P(
        "concat_lists_shapes_differ",
        "a = lo.tensor_list_from_tensor(tf.constant([1., 2.]), [])",
        "b = lo.tensor_list_from_tensor(tf.constant([[3.]]), [None])",
        "lo.tensor_list_length(lo.tensor_list_concat_lists(a, b, tf.float32))",
    ),
    P(
        "nested_list",
        "inner = lo.tensor_list_from_tensor(tf.constant([1, 2]), [])",
        "outer = lo.empty_tensor_list([], tf.variant)",
        "outer = lo.tensor_list_push_back(outer, inner)",
        "got = lo.tensor_list_get_item(outer, 0, tf.variant)",
        "lo.tensor_list_stack(got, tf.int32)",
    ),
    P("variant_output", "lo.tensor_list_reserve([2], 3, tf.float32)"),
]

TENSOR_ARRAY: list[tuple[str, str]] = [
    P("write_read_stack", "ta = tf.TensorArray(tf.float32, size=3)", "ta = ta.write(0, 1.0).write(2, 3.0)",
      "ta.read(2), ta.stack(), ta.size()"),
    P("write_vectors", "ta = tf.TensorArray(tf.int32, size=2)", "ta = ta.write(0, [1, 2])", "ta = ta.write(1, [3, 4])",
      "ta.stack(), ta.concat(), ta.gather([1, 0]), ta.size()"),
    P("element_shape_inferred", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, tf.ones([2, 3]))",
      "tf.constant(ta.element_shape.as_list())"),
    P("element_shape_given", "ta = tf.TensorArray(tf.float32, size=2, element_shape=[None, 3])",
      "tf.constant([-1 if d is None else d for d in ta.element_shape.as_list()])"),
    P("write_out_of_range", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(2, 1.0)", "ta.stack()"),
    P("write_negative", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(-1, 1.0)", "ta.stack()"),
    P("read_out_of_range", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, 1.0)", "ta.read(3)"),
    P("read_negative", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, 1.0)", "ta.read(-1)"),
    P("dynamic_size", "ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)",
      "for i in range(4):\n  ta = ta.write(i, float(i * i))", "ta.stack(), ta.size()"),
    P("dynamic_size_gap", "ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True)", "ta = ta.write(3, [1., 2.])",
      "ta.stack(), ta.size()"),
    P("read_twice_cleared", "ta = tf.TensorArray(tf.float32, size=1)", "ta = ta.write(0, 5.0)",
      "a = ta.read(0)", "a, ta.read(0)"),
    P("read_twice_kept", "ta = tf.TensorArray(tf.float32, size=1, clear_after_read=False)", "ta = ta.write(0, 5.0)",
      "ta.read(0), ta.read(0)"),
    P("read_unwritten_known_shape", "ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])", "ta.read(1)"),
    P("read_unwritten_after_write", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, [1., 2.])",
      "ta.read(1)"),
    P("write_wrong_dtype", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, tf.constant(1))",
      "ta.stack()"),
    P("write_python_int_to_float", "ta = tf.TensorArray(tf.float32, size=1)", "ta = ta.write(0, 3)", "ta.stack()"),
    P("write_incompatible_shape", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, [1., 2.])",
      "ta = ta.write(1, [1., 2., 3.])", "ta.stack()"),
    P("write_incompatible_element_shape", "ta = tf.TensorArray(tf.float32, size=2, element_shape=[3])",
      "ta = ta.write(0, [1., 2.])", "ta.stack()"),
    P("no_infer_shape", "ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)", "ta = ta.write(0, [1., 2.])",
      "ta = ta.write(1, [1., 2., 3.])", "ta.read(1), ta.concat()"),
    P("no_infer_shape_stack", "ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)",
      "ta = ta.write(0, [1., 2.])", "ta = ta.write(1, [1., 2., 3.])", "ta.stack()"),
    P("unstack", "ta = tf.TensorArray(tf.float32, size=3)", "ta = ta.unstack([[1., 2.], [3., 4.], [5., 6.]])",
      "ta.read(1), ta.stack(), ta.size()"),
    P("unstack_too_many", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.unstack([1., 2., 3.])",
      "ta.stack(), ta.size()"),
    P("unstack_dynamic", "ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)",
      "ta = ta.unstack([1., 2., 3.])", "ta.stack(), ta.size()"),
    P("scatter_gather", "ta = tf.TensorArray(tf.float32, size=4)", "ta = ta.scatter([3, 1], [[1., 2.], [3., 4.]])",
      "ta.gather([1, 3]), ta.stack()"),
    P("scatter_out_of_range", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.scatter([3], [[1., 2.]])",
      "ta.stack()"),
    P("split_concat", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.split([1., 2., 3., 4., 5.], [2, 3])",
      "ta.read(1), ta.concat(), ta.size()"),
    P("split_equal_lengths", "ta = tf.TensorArray(tf.float32, size=2)",
      "ta = ta.split([[1.], [2.], [3.], [4.]], [2, 2])", "ta.stack(), tf.constant(ta.element_shape.as_list())"),
    P("split_bad_sum", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.split([1., 2., 3.], [1, 1])",
      "ta.concat()"),
    P("split_wrong_count", "ta = tf.TensorArray(tf.float32, size=3)", "ta = ta.split([1., 2., 3.], [1, 2])",
      "ta.concat()"),
    P("concat_scalars", "ta = tf.TensorArray(tf.float32, size=2)", "ta = ta.write(0, 1.0).write(1, 2.0)",
      "ta.concat()"),
    P("stack_empty_known", "ta = tf.TensorArray(tf.float32, size=0, element_shape=[2])", "ta.stack()"),
    P("stack_empty_unknown", "ta = tf.TensorArray(tf.float32, size=0)", "ta.stack()"),
    P("stack_unwritten_unknown", "ta = tf.TensorArray(tf.float32, size=2)", "ta.stack()"),
    P("strings", "ta = tf.TensorArray(tf.string, size=2)", "ta = ta.write(0, 'a').write(1, 'bc')", "ta.stack()"),
    P("size_tensor", "ta = tf.TensorArray(tf.int64, size=tf.constant(2))",
      "ta = ta.write(1, tf.constant(7, tf.int64))", "ta.stack(), ta.size()"),
    P("identity", "ta = tf.TensorArray(tf.float32, size=1)", "ta = ta.write(0, 2.0).identity()", "ta.read(0)"),
    P("dtype_and_dynamic_size", "ta = tf.TensorArray(tf.int32, size=1, dynamic_size=True)",
      "tf.constant(ta.dtype.name), tf.constant(ta.dynamic_size)"),
    P("no_size", "ta = tf.TensorArray(tf.float32)", "ta.size()"),
]  # fmt: skip

PRINT: list[tuple[str, str]] = [
    P("string", "tf.print('hello world')", "tf.constant(0)"),
    P("scalars", "tf.print(tf.constant(5), tf.constant(1.5), tf.constant(True), tf.constant(-2, tf.int64))",
      "tf.constant(0)"),
    P("floats", "tf.print(tf.constant([0.1, 1e-7, 123456789.0, 1/3, -0.0, 2.5e10]))", "tf.constant(0)"),
    P("float_specials", "tf.print(tf.constant([np.inf, -np.inf, np.nan]))", "tf.constant(0)"),
    P("doubles", "tf.print(tf.constant([0.1, 1/3, 1e100], tf.float64))", "tf.constant(0)"),
    P("small_types", "tf.print(tf.constant([1.5, 2.25], tf.float16), tf.constant([1.5], tf.bfloat16), "
      "tf.constant([-1, 2], tf.int8), tf.constant([200], tf.uint8), tf.constant([7], tf.uint64))", "tf.constant(0)"),
    P("bools", "tf.print(tf.constant([True, False, True]))", "tf.constant(0)"),
    P("complex", "tf.print(tf.constant([1+2j, 3j]), tf.constant(1j))", "tf.constant(0)"),
    P("vector_summarized", "tf.print(tf.range(10))", "tf.constant(0)"),
    P("vector_summarize_all", "tf.print(tf.range(10), summarize=-1)", "tf.constant(0)"),
    P("vector_summarize_2", "tf.print(tf.range(10), summarize=2)", "tf.constant(0)"),
    P("vector_summarize_0", "tf.print(tf.range(10), tf.constant(3), summarize=0)", "tf.constant(0)"),
    P("vector_exactly_6", "tf.print(tf.range(6))", "tf.constant(0)"),
    P("matrix", "tf.print(tf.reshape(tf.range(6), [2, 3]))", "tf.constant(0)"),
    P("matrix_summarized", "tf.print(tf.reshape(tf.range(64), [8, 8]), summarize=2)", "tf.constant(0)"),
    P("rank3", "tf.print(tf.reshape(tf.range(24), [2, 3, 4]))", "tf.constant(0)"),
    P("rank3_summarized", "tf.print(tf.reshape(tf.range(210), [5, 6, 7]), summarize=1)", "tf.constant(0)"),
    P("empty", "tf.print(tf.zeros([0]), tf.zeros([2, 0]), tf.zeros([0, 3]))", "tf.constant(0)"),
    P("strings", "tf.print(tf.constant(['a', 'b c', 'q\"uote', 'new\\nline']))", "tf.constant(0)"),
    P("scalar_string_alone", "tf.print(tf.constant('alone'))", "tf.constant(0)"),
    P("scalar_string_with_other", "tf.print('x', tf.constant('quoted'))", "tf.constant(0)"),
    P("structures", "tf.print({'b': tf.constant([1, 2]), 'a': 1, 'c': [tf.constant(3.5), 'text']})",
      "tf.constant(0)"),
    P("tuple_and_list", "tf.print((tf.constant(1), 2), [tf.constant([1., 2.])])", "tf.constant(0)"),
    P("placeholder_collision", "tf.print('{} literal', tf.constant(7))", "tf.constant(0)"),
    P("sep_end", "tf.print(tf.constant(1), tf.constant(2), 'three', sep=', ', end='!\\n')", "tf.constant(0)"),
    P("stdout", "import sys", "tf.print('to stdout', tf.constant([1, 2]), output_stream=sys.stdout)",
      "tf.constant(0)"),
    P("unsupported_stream", "tf.print('x', output_stream='nowhere')", "tf.constant(0)"),
    P("bad_kwarg", "tf.print('x', foo=1)", "tf.constant(0)"),
    P("variant", "tf.print(lo.tensor_list_reserve([2], 1, tf.float32))", "tf.constant(0)"),
    P("prints_in_program_order", "x = tf.constant(1)", "for i in range(6):\n  tf.print('line', i, x + i)",
      "tf.constant(0)"),
    P("print_order_with_streams", "import sys", "tf.print('a', output_stream=sys.stdout)", "tf.print('b')",
      "tf.print('c', output_stream=sys.stdout)", "tf.print('d')", "tf.constant(0)"),
    P("failed_assert_stops_later_prints", "tf.print('before')",
      "tf.debugging.Assert(tf.reduce_all(tf.random.uniform([2]) < 0.0), ['never'])", "tf.print('after')",
      "tf.constant(0)"),
    P("format", "tf.strings.format('x={} y={}', (tf.constant([1, 2]), tf.constant(2.5)))"),
    P("format_summarize", "tf.strings.format('{}', tf.range(20), summarize=4)"),
    P("format_placeholder", "tf.strings.format('a%sb', [tf.constant('s')], placeholder='%s')"),
    P("format_mismatch", "tf.strings.format('{} {}', [tf.constant(1)])"),
    P("format_no_inputs", "tf.strings.format('nothing', [])"),
]  # fmt: skip

ASSERTS: list[tuple[str, str]] = [
    P("assert_equal_ok", "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2]))", "tf.constant(0)"),
    P("assert_equal_fails", "x = tf.constant([1, 2, 3])", "tf.debugging.assert_equal(x, tf.constant([1, 2, 4]))",
      "tf.constant(0)"),
    P("assert_equal_fails_message", "tf.debugging.assert_equal(tf.constant([1., 2.]), tf.constant([2., 2.]), "
      "message='custom', summarize=1)", "tf.constant(0)"),
    P("assert_equal_broadcast", "tf.debugging.assert_equal(tf.constant([[1, 2], [1, 3]]), tf.constant([1, 2]))",
      "tf.constant(0)"),
    P("assert_equal_scalars", "tf.debugging.assert_equal(tf.constant(1), tf.constant(2))", "tf.constant(0)"),
    P("assert_none_equal", "tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([3, 2]))",
      "tf.constant(0)"),
    P("assert_less", "tf.debugging.assert_less(tf.constant([1, 5]), tf.constant([2, 3]))", "tf.constant(0)"),
    P("assert_less_ok", "tf.debugging.assert_less(tf.constant([1, 2]), tf.constant([2, 3]))", "tf.constant(0)"),
    P("assert_less_equal", "tf.debugging.assert_less_equal(tf.constant(3.0), tf.constant(2.0))", "tf.constant(0)"),
    P("assert_greater", "tf.debugging.assert_greater(tf.constant([1, 5]), 2)", "tf.constant(0)"),
    P("assert_greater_equal", "tf.debugging.assert_greater_equal(tf.constant([1, 5]), 1)", "tf.constant(0)"),
    P("assert_positive", "tf.debugging.assert_positive(tf.constant([1, -2, 3, -4]))", "tf.constant(0)"),
    P("assert_negative", "tf.debugging.assert_negative(tf.constant([-1., 2.]), message='neg')", "tf.constant(0)"),
    P("assert_non_negative", "tf.debugging.assert_non_negative(tf.constant([0, -1]))", "tf.constant(0)"),
    P("assert_non_positive", "tf.debugging.assert_non_positive(tf.constant([0, 1]))", "tf.constant(0)"),
    P("assert_non_positive_ok", "tf.debugging.assert_non_positive(tf.constant([0, -1]))", "tf.constant(1)"),
    P("assert_near", "tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1]))", "tf.constant(0)"),
    P("assert_near_ok", "tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.05]), atol=0.1)",
      "tf.constant(0)"),
    P("assert_rank", "tf.debugging.assert_rank(tf.constant([1, 2]), 2)", "tf.constant(0)"),
    P("assert_rank_ok", "tf.debugging.assert_rank(tf.constant([1, 2]), 1)", "tf.constant(0)"),
    P("assert_rank_message", "tf.debugging.assert_rank(tf.constant(1), 1, message='need a vector')",
      "tf.constant(0)"),
    P("assert_rank_at_least", "tf.debugging.assert_rank_at_least(tf.constant([1, 2]), 2)", "tf.constant(0)"),
    P("assert_rank_in", "tf.debugging.assert_rank_in(tf.constant([1, 2]), [0, 2])", "tf.constant(0)"),
    P("assert_rank_not_scalar", "tf.debugging.assert_rank(tf.constant([1, 2]), [1])", "tf.constant(0)"),
    P("assert_integer", "tf.debugging.assert_integer(tf.constant([1.0]))", "tf.constant(0)"),
    P("assert_type", "tf.debugging.assert_type(tf.constant([1, 2]), tf.float32)", "tf.constant(0)"),
    P("assert_type_message", "tf.debugging.assert_type(tf.constant(1.), tf.int64, message='wrong')",
      "tf.constant(0)"),
    P("assert_scalar", "tf.debugging.assert_scalar(tf.constant([1]))", "tf.constant(0)"),
    P("assert_shapes_ok", "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N', 'Q')), (tf.ones([2]), ('N',))])",
      "tf.constant(0)"),
    P("assert_shapes_mismatch", "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N', 'Q')), (tf.ones([4]), ('N',))])",
      "tf.constant(0)"),
    P("assert_shapes_explicit", "tf.debugging.assert_shapes([(tf.ones([2, 3]), (2, 4))])", "tf.constant(0)"),
    P("assert_shapes_rank", "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N',))])", "tf.constant(0)"),
    P("assert_shapes_ellipsis", "tf.debugging.assert_shapes([(tf.ones([5, 2, 3]), (..., 3)), (tf.ones([3]), ('.'))])",
      "tf.constant(0)"),
    P("assert_shapes_bad_ellipsis", "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N', ...))])", "tf.constant(0)"),
    P("Assert_fails", "tf.debugging.Assert(tf.constant(False), ['data', tf.constant([1, 2, 3, 4, 5])])",
      "tf.constant(0)"),
    P("Assert_summarize", "tf.debugging.Assert(tf.reduce_all(tf.constant([True, False])), "
      "[tf.constant([[1.5, 2.5], [3.5, 4.5]]), tf.constant('s')], summarize=2)", "tf.constant(0)"),
    P("Assert_ok", "tf.debugging.Assert(tf.constant(True), [tf.constant(1)])", "tf.constant(7)"),
    P("dynamic_assert_equal", "x = tf.random.uniform([3], maxval=1.0) * 0.0 + tf.constant([1., 2., 3.])",
      "tf.debugging.assert_equal(x, tf.constant([1., 2., 4.]))", "x"),
    P("dynamic_assert_equal_int", "x = tf.cast(tf.random.uniform([3], maxval=1.0), tf.int32) + tf.constant([1, 2, 3])",
      "tf.debugging.assert_equal(x, tf.constant([1, 2, 4]), message='ints')", "x"),
    P("dynamic_assert_positive", "x = tf.random.uniform([4], maxval=1.0) * 0.0 - tf.constant([1.5, 2., 3., 4.])",
      "tf.debugging.assert_positive(x, summarize=2)", "tf.constant(0)"),
    P("dynamic_assert_near_ok", "x = tf.random.uniform([2], maxval=1.0)", "tf.debugging.assert_near(x, x + 1e-9)",
      "tf.constant(1)"),
    P("dynamic_Assert", "x = tf.random.uniform([], maxval=1.0) * 0.0 + 0.25",
      "tf.debugging.Assert(x > 2.0, ['x is', x, tf.constant([1, 2, 3, 4])])", "tf.constant(0)"),
    P("dynamic_Assert_int_data", "x = tf.cast(tf.random.uniform([], maxval=1.0), tf.int32)",
      "tf.debugging.Assert(x > 2, ['x is', x])", "tf.constant(0)"),
    P("top_level_names", "tf.assert_equal(tf.constant(1), 1)", "tf.assert_less(1, tf.constant(2))",
      "tf.assert_greater(tf.constant(2), 1)", "tf.assert_rank(tf.constant([1]), 1)", "tf.constant(0)"),
]  # fmt: skip

MAP_FN: list[tuple[str, str]] = [
    P("map_double", "tf.map_fn(lambda x: x * 2, tf.constant([[1., 2.], [3., 4.], [5., 6.]]))"),
    P("map_signature_dtype", "tf.map_fn(lambda x: tf.reduce_sum(x), tf.constant([[1, 2], [3, 4]]), "
      "fn_output_signature=tf.int32)"),
    P("map_signature_spec", "tf.map_fn(lambda x: tf.cast(x, tf.float32) / 2, tf.constant([1, 2, 3]), "
      "fn_output_signature=tf.TensorSpec([], tf.float32))"),
    P("map_dtype_alias", "tf.map_fn(lambda x: tf.cast(x, tf.int64), tf.constant([1., 2.]), dtype=tf.int64)"),
    P("map_wrong_dtype", "tf.map_fn(lambda x: tf.cast(x, tf.int32), tf.constant([1., 2.]))"),
    P("map_tuple_in", "tf.map_fn(lambda t: t[0] * t[1], (tf.constant([1, 2, 3]), tf.constant([4, 5, 6])), "
      "fn_output_signature=tf.int32)"),
    P("map_tuple_out", "a, b = tf.map_fn(lambda t: (t[0], t[0] * t[1]), (tf.constant([1, 2]), tf.constant([3, 4])))",
      "a, b"),
    P("map_list_for_tuple", "tf.map_fn(lambda t: [t[0], t[1]], (tf.constant([1, 2]), tf.constant([3, 4])))"),
    P("map_dict", "out = tf.map_fn(lambda d: {'s': d['a'] + d['b'], 'p': d['a'] * d['b']}, "
      "{'a': tf.constant([1., 2.]), 'b': tf.constant([3., 4.])})", "out['p'], out['s']"),
    P("map_structure_mismatch", "tf.map_fn(lambda x: (x, x), tf.constant([1, 2]))"),
    P("map_scalar_elems", "tf.map_fn(lambda x: x, tf.constant(1.0))"),
    P("map_no_tensors", "tf.map_fn(lambda x: x, [])"),
    P("map_mismatched_lengths", "tf.map_fn(lambda t: t[0], (tf.constant([1, 2]), tf.constant([1, 2, 3])))"),
    P("map_not_callable", "tf.map_fn(5, tf.constant([1]))"),
    P("map_strings", "tf.map_fn(lambda s: tf.strings.format('<{}>', s), tf.constant(['a', 'b']))"),
    P("map_empty", "tf.map_fn(lambda x: x + 1, tf.zeros([0, 2]))"),
    P("map_parallel_iterations", "tf.map_fn(lambda x: x + 1, tf.constant([1, 2, 3]), parallel_iterations=4)"),
    P("map_varying_shapes", "tf.map_fn(lambda x: tf.fill([2], x), tf.constant([1, 2, 3]))"),
    P("map_infer_shape_false", "tf.map_fn(lambda x: x, tf.constant([[1, 2], [3, 4]]), infer_shape=False)"),
    P("scan_sum", "tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5]))"),
    P("scan_initializer", "tf.scan(lambda a, x: a * x, tf.constant([1., 2., 3.]), initializer=tf.constant(2.))"),
    P("scan_reverse", "tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4]), reverse=True)"),
    P("scan_tuple_state", "a, b = tf.scan(lambda s, x: (s[1], s[0] + s[1]), tf.zeros([6]), "
      "initializer=(tf.constant(0.), tf.constant(1.)))", "a, b"),
    P("scan_nested_elems", "tf.scan(lambda a, x: a + x[0] * x[1], (tf.constant([1, 2, 3]), tf.constant([4, 5, 6])), "
      "initializer=tf.constant(0))"),
    P("scan_structure_mismatch", "tf.scan(lambda a, x: (a, x), tf.constant([1, 2]), initializer=tf.constant(0))"),
    P("scan_matrices", "tf.scan(lambda a, x: tf.matmul(a, x), tf.reshape(tf.range(1., 13.), [3, 2, 2]))"),
    P("foldl_sum", "tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3, 4]))"),
    P("foldl_initializer", "tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=tf.constant(7))"),
    P("foldr_digits", "tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))"),
    P("foldr_initializer", "tf.foldr(lambda a, x: a - x, tf.constant([1., 2., 3.]), initializer=tf.constant(10.))"),
    P("foldl_nested", "tf.foldl(lambda a, x: a + x[0] - x[1], (tf.constant([5, 6]), tf.constant([1, 2])), "
      "initializer=tf.constant(0))"),
    P("foldl_tuple_acc", "m, s = tf.foldl(lambda a, x: (tf.maximum(a[0], x), a[1] + x), tf.constant([3., 7., 1.]), "
      "initializer=(tf.constant(-1e9), tf.constant(0.)))", "m, s"),
    P("foldl_not_callable", "tf.foldl(None, tf.constant([1]))"),
]  # fmt: skip

LOOPS: list[tuple[str, str]] = [
    P("ta_in_while_loop", "def body(i, ta):", "    return i + 1, ta.write(i, tf.cast(i * i, tf.float32))",
      "_, ta = tf.while_loop(lambda i, ta: i < 5, body, (0, tf.TensorArray(tf.float32, size=5)))",
      "ta.stack(), ta.size()"),
    P("ta_dynamic_in_while_loop", "n = tf.cast(tf.reduce_sum(tf.ones([4])), tf.int32)",
      "def body(i, ta):", "    return i + 1, ta.write(i, tf.fill([2], i))",
      "_, ta = tf.while_loop(lambda i, ta: i < n, body, (0, tf.TensorArray(tf.int32, size=0, dynamic_size=True)))",
      "ta.stack(), ta.concat(), ta.size()"),
    P("ta_read_and_write_in_loop", "ta = tf.TensorArray(tf.float32, size=6, clear_after_read=False)",
      "ta = ta.write(0, 0.).write(1, 1.)", "def body(i, ta):",
      "    return i + 1, ta.write(i, ta.read(i - 1) + ta.read(i - 2))",
      "_, ta = tf.while_loop(lambda i, ta: i < 6, body, (2, ta))", "ta.stack()"),
    P("list_accumulator_in_loop", "def body(i, l):",
      "    return i + 1, lo.tensor_list_push_back(l, tf.cast(i, tf.float32))",
      "_, l = tf.while_loop(lambda i, l: i < 4, body, (0, lo.empty_tensor_list([], tf.float32)))",
      "lo.tensor_list_stack(l, tf.float32)"),
    P("print_in_loop", "def body(i):", "    tf.print('iteration', i)", "    return (i + 1,)",
      "tf.while_loop(lambda i: i < 3, body, (0,))"),
    P("assert_in_loop", "def body(i):", "    tf.debugging.assert_less(i, 3, message='too far')", "    return (i + 1,)",
      "tf.while_loop(lambda i: i < 5, body, (0,))"),
    P("map_fn_dynamic_length", "x = tf.range(tf.cast(tf.reduce_sum(tf.ones([4])), tf.int32))",
      "tf.map_fn(lambda v: v * 10, x)"),
    P("scan_dynamic_length", "x = tf.range(tf.cast(tf.reduce_sum(tf.ones([4])), tf.int32))",
      "tf.scan(lambda a, v: a + v, x)"),
    P("nested_map_fn", "x = tf.reshape(tf.range(6), [2, 3])", "tf.map_fn(lambda r: tf.map_fn(lambda v: v + 1, r), x)"),
    P("map_fn_with_print", "def f(v):", "    tf.print('v =', v)", "    return v * 2",
      "tf.map_fn(f, tf.constant([1, 2]))"),
    P("foldl_in_loop_body", "def body(i, acc):",
      "    return i + 1, acc + tf.foldl(lambda a, v: a + v, tf.range(i + 1))",
      "tf.while_loop(lambda i, acc: i < 4, body, (0, 0))"),
]  # fmt: skip

AREAS: dict[str, list[tuple[str, str]]] = {
    "list_ops": LIST_OPS,
    "tensor_array": TENSOR_ARRAY,
    "print": PRINT,
    "asserts": ASSERTS,
    "map_fn": MAP_FN,
    "loops": LOOPS,
}


def _float(v: float):
    return v if math.isfinite(v) else repr(v)


def _record(t) -> dict:
    if t.dtype == tf.variant:
        return {"dtype": "variant"}
    array = np.asarray(t.numpy())
    flat = array.reshape(-1)
    if array.dtype.kind == "f":
        values = [_float(float(v)) for v in flat]
    elif array.dtype.kind in "SO":
        values = [v.decode() if isinstance(v, bytes) else str(v) for v in flat]
    else:
        values = [v.item() for v in flat]
    return {"dtype": t.dtype.name, "shape": list(array.shape), "values": values}


def _flat(result) -> list:
    if isinstance(result, (list, tuple)):
        out = []
        for r in result:
            out.extend(_flat(r))
        return out
    return [] if result is None else [result]


def _env() -> dict:
    return {"tf": tf, "np": np, "lo": list_ops}


def run_eager(code: str):
    lines = code.split("\n")
    env = _env()
    exec("\n".join(lines[:-1]), env)
    return eval(lines[-1], env)


def run_function(code: str):
    lines = code.split("\n")
    body = "".join(f"    {line}\n" for line in lines[:-1]) + f"    return {lines[-1]}\n"
    env = _env()
    exec("def program():\n" + body, env)
    return tf.function(env["program"])()


@contextlib.contextmanager
def _captured_fds():
    """Capture what is written to fds 1 and 2 (Python's and C++'s writes alike)."""
    out = {}
    files = {fd: tempfile.TemporaryFile() for fd in (1, 2)}  # noqa: SIM115 - closed below, after restoring fds
    saved = {fd: os.dup(fd) for fd in files}
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        for fd, f in files.items():
            os.dup2(f.fileno(), fd)
        yield out
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, f in files.items():
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
            f.seek(0)
            out["stdout" if fd == 1 else "stderr"] = f.read().decode("utf-8", "replace")
            f.close()


def run_case(code: str, mode: str) -> dict:
    with _captured_fds() as printed:
        try:
            result = (run_eager if mode == "eager" else run_function)(code)
            record = {"outputs": [_record(t) for t in _flat(result)]}
        except Exception as e:  # noqa: BLE001 - the error is the record
            record = {"error": {"class": type(e).__name__, "message": str(e)}}
    for stream in ("stdout", "stderr"):
        text = "\n".join(
            line for line in printed[stream].split("\n") if not line.startswith(("W0000", "I0000", "E0000"))
        )
        if text.strip():
            record[stream] = text
    return record


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    wanted = sys.argv[1:] or list(AREAS)  # areas to (re)write, default all
    # TF prints its deprecation notice for map_fn's `dtype` once per process: spend it before capturing.
    tf.function(lambda: tf.map_fn(lambda x: x, tf.constant([1]), dtype=tf.int32))()
    for area, cases in AREAS.items():
        if area not in wanted:
            continue
        records = {}
        for case_id, code in cases:
            assert case_id not in records, case_id
            records[case_id] = {"code": code, "eager": run_case(code, "eager"), "function": run_case(code, "function")}
        lines = ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in records.items())
        (OUT / f"{area}.json").write_text(f'{{"tensorflow":{json.dumps(tf.__version__)},"cases":{{\n{lines}\n}}}}\n')
        print(f"wrote {len(records)} {area} programs to {OUT / (area + '.json')}")


if __name__ == "__main__":
    main()
