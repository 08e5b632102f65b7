"""Gradient cases: array ops (format: tests/api/gradient_cases/__init__.py).

``tf.compat.v1.placeholder_with_default(x, shape)`` hides static dims from graphs and functions
(eagerly it is ``x``), so those cases run the gradients' dynamic-shape paths (Shape ops,
``ConcatOffset``, ``InvertPermutation``, ``BroadcastGradientArgs``) where eager runs the static ones.
"""

F64_23 = ("float64", [2, 3])
F64_234 = ("float64", [2, 3, 4])
F64_34 = ("float64", [3, 4])
F64_45 = ("float64", [4, 5])


def _dyn(expr: str, shape: str) -> str:
    return f"tf.compat.v1.placeholder_with_default({expr}, {shape})"


CASES: dict[str, dict] = {
    # ------------------------------------------------------------------ reshapes and identities
    "reshape_one_unknown_dim": {
        "fn": f"lambda tf, x: tf.reshape({_dyn('x', '[None, 6]')}, [3, 4]) * 2.0",
        "inputs": [("float64", [2, 6])],
    },
    "reshape_unknown_rank": {
        "fn": f"lambda tf, x: tf.reshape({_dyn('x', 'None')}, [-1]) * tf.range(12, dtype=tf.float64)",
        "inputs": [F64_34],
    },
    "reshape_f32_second_order": {
        "fn": "lambda tf, x: tf.square(tf.reshape(x, [6]))",
        "inputs": [("float32", [2, 3])],
        "second_order": True,
    },
    "expand_dims": {"fn": "lambda tf, x: tf.expand_dims(x, 1) * 3.0", "inputs": [F64_23]},
    "expand_dims_dynamic": {"fn": f"lambda tf, x: tf.expand_dims({_dyn('x', 'None')}, -1)", "inputs": [F64_23]},
    "squeeze": {"fn": "lambda tf, x: tf.squeeze(x, [1]) * 2.0", "inputs": [("float64", [3, 1, 2])]},
    "squeeze_all": {"fn": "lambda tf, x: tf.square(tf.squeeze(x))", "inputs": [("float64", [1, 3, 1])]},
    "identity_n": {
        "fn": "lambda tf, x, y: [a * 2.0 for a in tf.identity_n([x, y])]",
        "inputs": [F64_23, ("float64", [3])],
    },
    "check_numerics": {
        "fn": "lambda tf, x: tf.raw_ops.CheckNumerics(tensor=x * x, message='x squared') * 2.0",
        "inputs": [F64_23],
    },
    "placeholder_with_default": {"fn": f"lambda tf, x: {_dyn('x', '[2, 3]')} * x", "inputs": [F64_23]},
    # ------------------------------------------------------------------ transpose
    "transpose": {"fn": "lambda tf, x: tf.transpose(x, [2, 0, 1])", "inputs": [F64_234]},
    "transpose_default": {
        "fn": "lambda tf, x: tf.transpose(x) * tf.constant([1.0, 2.0], tf.float64)",
        "inputs": [F64_234],
    },
    "transpose_dynamic_perm": {"fn": f"lambda tf, x: tf.transpose({_dyn('x', 'None')})", "inputs": [F64_234]},
    "transpose_int64_perm": {
        "fn": "lambda tf, x: tf.transpose(x, tf.constant([1, 0], tf.int64))",
        "inputs": [("float32", [3, 2])],
    },
    "transpose_second_order": {
        "fn": "lambda tf, x: tf.square(tf.transpose(x, [1, 2, 0]))",
        "inputs": [F64_234],
        "second_order": True,
    },
    # ------------------------------------------------------------------ stack, unstack, concat, split
    "stack": {
        "fn": "lambda tf, x, y: tf.stack([x, y, x], axis=1)",
        "inputs": [F64_23, F64_23],
    },
    "stack_negative_axis": {"fn": "lambda tf, x, y: tf.stack([x, y], axis=-1)", "inputs": [F64_23, F64_23]},
    "unstack": {"fn": "lambda tf, x: tf.unstack(x, axis=1)", "inputs": [F64_234]},
    "unstack_unused_outputs": {"fn": "lambda tf, x: tf.unstack(x)[1] * 2.0", "inputs": [F64_34]},
    "concat": {"fn": "lambda tf, x, y: tf.concat([x, y], 1)", "inputs": [F64_23, ("float64", [2, 5])]},
    "concat_three_negative_axis": {
        "fn": "lambda tf, x, y, z: tf.concat([x, y, z], -2)",
        "inputs": [F64_234, ("float64", [2, 1, 4]), ("float64", [2, 2, 4])],
    },
    "concat_dynamic_shapes": {
        "fn": f"lambda tf, x, y: tf.concat([{_dyn('x', '[None, 3]')}, {_dyn('y', '[None, 3]')}], 0)",
        "inputs": [F64_23, ("float64", [4, 3])],
    },
    "concat_dynamic_axis_size": {
        "fn": f"lambda tf, x, y: tf.concat([{_dyn('x', '[2, None]')}, y], 1) * 2.0",
        "inputs": [F64_23, ("float64", [2, 2])],
    },
    "concat_f32_second_order": {
        "fn": "lambda tf, x, y: tf.square(tf.concat([x, y], 0))",
        "inputs": [("float32", [2, 3]), ("float32", [1, 3])],
        "second_order": True,
    },
    "concat_gather_rows": {  # an IndexedSlices reaches ConcatV2's gradient (axis 0)
        "fn": "lambda tf, x, y: tf.gather(tf.concat([x, y], 0), [0, 3, 3, 4])",
        "inputs": [F64_23, ("float64", [3, 3])],
    },
    "concat_gather_columns": {  # an IndexedSlices reaches ConcatV2's gradient (axis 1)
        "fn": "lambda tf, x, y: tf.gather(tf.concat([x, y], 1), [1, 0, 1])",
        "inputs": [F64_23, ("float64", [2, 2])],
    },
    "concat_gather_columns_dynamic": {
        "fn": f"lambda tf, x, y: tf.gather(tf.concat([{_dyn('x', '[2, None]')}, y], 1), [1, 0, 1])",
        "inputs": [F64_23, ("float64", [2, 2])],
    },
    "concat_gather_rows_dynamic": {
        "fn": f"lambda tf, x, y: tf.gather(tf.concat([{_dyn('x', '[None, 3]')}, y], 0), [4, 0, 1])",
        "inputs": [F64_23, ("float64", [3, 3])],
    },
    "split": {"fn": "lambda tf, x: tf.split(x, 3, axis=1)", "inputs": [("float64", [2, 6])]},
    "split_unused_output": {"fn": "lambda tf, x: tf.split(x, 2, axis=0)[1] * 3.0", "inputs": [F64_45]},
    "split_v": {"fn": "lambda tf, x: tf.split(x, [1, 3, 1], axis=1)", "inputs": [F64_45]},
    "split_v_negative_axis": {
        "fn": "lambda tf, x: tf.split(x, [2, -1], axis=-1)[1] * 2.0",
        "inputs": [F64_234],
    },
    # ------------------------------------------------------------------ slice and strided slice
    "slice": {"fn": "lambda tf, x: tf.slice(x, [1, 0], [2, -1])", "inputs": [F64_45]},
    "slice_3d": {"fn": "lambda tf, x: tf.slice(x, [0, 1, 2], [2, 1, 2])", "inputs": [F64_234]},
    "slice_dynamic": {
        "fn": f"lambda tf, x: tf.slice({_dyn('x', '[None, None]')}, [1, 1], [2, 3])",
        "inputs": [F64_45],
    },  # fmt: skip
    "slice_int64_begin": {
        "fn": "lambda tf, x: tf.slice(x, tf.constant([0, 2], tf.int64), tf.constant([3, 2], tf.int64))",
        "inputs": [("float32", [4, 5])],
    },
    "strided_slice_basic": {"fn": "lambda tf, x: x[1:, ::2]", "inputs": [F64_45]},
    "strided_slice_negative_stride": {"fn": "lambda tf, x: x[::-1, 3:0:-2]", "inputs": [F64_45]},
    "strided_slice_shrink": {"fn": "lambda tf, x: x[1] * 2.0", "inputs": [F64_234]},
    "strided_slice_ellipsis_shrink": {"fn": "lambda tf, x: x[..., 2]", "inputs": [F64_234]},
    "strided_slice_new_axis": {"fn": "lambda tf, x: x[:, tf.newaxis, 1:3]", "inputs": [F64_234]},
    "strided_slice_masks": {
        "fn": "lambda tf, x: tf.strided_slice(x, [0, 1, 0], [0, 3, 3], [1, 1, 2], begin_mask=1, end_mask=5)",
        "inputs": [F64_234],
    },
    "strided_slice_ellipsis_new_axis_shrink": {
        "fn": "lambda tf, x: tf.strided_slice(x, [0, 0, 1], [0, 0, 2], [1, 1, 1], ellipsis_mask=1, "
        "new_axis_mask=2, shrink_axis_mask=4)",
        "inputs": [F64_234],
    },
    "strided_slice_out_of_range_clamped": {"fn": "lambda tf, x: x[-10:10, 2:]", "inputs": [F64_34]},
    "strided_slice_dynamic": {"fn": f"lambda tf, x: {_dyn('x', '[None, 5]')}[1:3, ::2]", "inputs": [F64_45]},
    "strided_slice_second_order": {
        "fn": "lambda tf, x: tf.square(x[1:, ::2]) * x[:-1, ::2]",
        "inputs": [F64_45],
        "second_order": True,
    },
    # ------------------------------------------------------------------ tile and pads
    "tile": {"fn": "lambda tf, x: tf.tile(x, [2, 3])", "inputs": [F64_23]},
    "tile_3d": {"fn": "lambda tf, x: tf.tile(x, [1, 2, 2])", "inputs": [F64_234]},
    "tile_dynamic": {"fn": f"lambda tf, x: tf.tile({_dyn('x', '[None, 3]')}, [3, 1])", "inputs": [F64_23]},
    "tile_int64_multiples_f32": {
        "fn": "lambda tf, x: tf.tile(x, tf.constant([2, 1], tf.int64))",
        "inputs": [("float32", [2, 3])],
    },
    "tile_gather_rows": {  # an IndexedSlices reaches Tile's gradient
        "fn": "lambda tf, x: tf.gather(tf.tile(x, [3, 2]), [0, 4, 5, 4])",
        "inputs": [F64_23],
    },
    "tile_second_order": {
        "fn": "lambda tf, x: tf.square(tf.tile(x, [2, 1]))",
        "inputs": [F64_23],
        "second_order": True,
    },  # fmt: skip
    "pad": {"fn": "lambda tf, x: tf.pad(x, [[1, 2], [0, 1]])", "inputs": [F64_23]},
    "pad_3d_dynamic": {
        "fn": f"lambda tf, x: tf.pad({_dyn('x', 'None')}, [[0, 1], [2, 0], [1, 1]]) * 2.0",
        "inputs": [F64_234],
    },
    "pad_v2_constant_values": {
        "fn": "lambda tf, x: tf.pad(x, [[1, 1], [2, 0]], constant_values=3.0)",
        "inputs": [F64_23],
    },
    "pad_v2_value_input": {  # no gradient for constant_values, as TF
        "fn": "lambda tf, x, c: tf.pad(x, [[1, 1], [2, 0]], constant_values=c)",
        "inputs": [F64_23, ("float64", [])],
        "numeric": False,  # TF gives constant_values no gradient
    },
    "pad_second_order": {
        "fn": "lambda tf, x: tf.square(tf.pad(x, [[1, 0], [0, 2]]))",
        "inputs": [F64_23],
        "second_order": True,
    },  # fmt: skip
    "mirror_pad_reflect": {"fn": "lambda tf, x: tf.pad(x, [[1, 2], [2, 1]], mode='REFLECT')", "inputs": [F64_45]},
    "mirror_pad_symmetric": {
        "fn": "lambda tf, x: tf.pad(x, [[2, 0], [1, 3]], mode='SYMMETRIC')",
        "inputs": [("float64", [3, 4])],
    },
    "mirror_pad_3d_int64_paddings": {
        "fn": "lambda tf, x: tf.pad(x, tf.constant([[1, 0], [0, 2], [1, 1]], tf.int64), mode='REFLECT')",
        "inputs": [F64_234],
    },
    "mirror_pad_second_order": {
        "fn": "lambda tf, x: tf.square(tf.pad(x, [[1, 1], [1, 2]], mode='SYMMETRIC'))",
        "inputs": [F64_34],
        "second_order": True,
    },
    "mirror_pad_f32": {"fn": "lambda tf, x: tf.pad(x, [[1, 1]], mode='REFLECT')", "inputs": [("float32", [5])]},
    # ------------------------------------------------------------------ broadcast, reverse, fill
    "broadcast_to": {"fn": "lambda tf, x: tf.broadcast_to(x, [2, 3, 4])", "inputs": [("float64", [3, 1])]},
    "broadcast_to_same_shape": {"fn": "lambda tf, x: tf.broadcast_to(x, [2, 3]) * 2.0", "inputs": [F64_23]},
    "broadcast_to_dynamic": {
        "fn": f"lambda tf, x: tf.broadcast_to({_dyn('x', '[None, 1]')}, [2, 3, 4])",
        "inputs": [("float64", [3, 1])],
    },
    "broadcast_to_scalar": {"fn": "lambda tf, x: tf.broadcast_to(x, [3, 2])", "inputs": [("float32", [])]},
    "reverse": {
        "fn": "lambda tf, x: tf.reverse(x, [0, 2]) * tf.range(4.0, dtype=tf.float64)",
        "inputs": [F64_234],
    },  # fmt: skip
    "reverse_negative_axis": {"fn": "lambda tf, x: tf.reverse(x, [-1])", "inputs": [F64_23]},
    "fill": {"fn": "lambda tf, x: tf.fill([2, 3], x)", "inputs": [("float64", [])]},
    "fill_second_order": {
        "fn": "lambda tf, x: tf.fill([2, 2], x) * x",
        "inputs": [("float64", [])],
        "second_order": True,
    },  # fmt: skip
    # ------------------------------------------------------------------ gathers (IndexedSlices) and scatters
    "gather_axis0": {"fn": "lambda tf, x: tf.gather(x, [2, 0, 2])", "inputs": [F64_34]},
    "gather_axis0_2d_indices": {"fn": "lambda tf, x: tf.gather(x, [[1, 1], [0, 2]])", "inputs": [F64_34]},
    "gather_axis0_scalar_index": {"fn": "lambda tf, x: tf.gather(x, 1) * 2.0", "inputs": [F64_34]},
    "gather_axis0_int64_indices": {
        "fn": "lambda tf, x: tf.gather(x, tf.constant([1, 1, 0], tf.int64))",
        "inputs": [("float32", [3, 2])],
    },
    "gather_axis1": {"fn": "lambda tf, x: tf.gather(x, [2, 0, 2], axis=1)", "inputs": [F64_234]},
    "gather_axis_negative": {"fn": "lambda tf, x: tf.gather(x, [[1], [2]], axis=-1)", "inputs": [F64_234]},
    "gather_batch_dims1_axis1": {
        "fn": "lambda tf, x, i: tf.gather(x, i, axis=1, batch_dims=1)",
        "inputs": [F64_234, ("const", [[2, 0, 2], [1, 1, 0]], "int32")],
    },
    "gather_batch_dims1_axis2": {
        "fn": "lambda tf, x, i: tf.gather(x, i, axis=2, batch_dims=1)",
        "inputs": [F64_234, ("const", [[3, 0], [1, 1]], "int64")],
    },
    "gather_batch_dims2": {
        "fn": "lambda tf, x, i: tf.gather(x, i, axis=2, batch_dims=2)",
        "inputs": [F64_234, ("const", [[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 1], [2, 2]]], "int32")],
    },
    "gather_batch_dims_negative": {
        "fn": "lambda tf, x, i: tf.gather(x, i, batch_dims=-1)",
        "inputs": [F64_34, ("const", [[0, 3], [1, 1], [2, 0]], "int32")],
    },
    "gather_axis1_dynamic": {
        "fn": f"lambda tf, x: tf.gather({_dyn('x', '[None, None, 4]')}, [1, 2, 1], axis=1)",
        "inputs": [F64_234],
    },
    "gather_batch_dims1_dynamic": {
        "fn": f"lambda tf, x, i: tf.gather({_dyn('x', '[2, None, None]')}, i, axis=2, batch_dims=1)",
        "inputs": [F64_234, ("const", [[3, 0], [1, 1]], "int32")],
    },
    "gather_axis0_dynamic": {
        "fn": f"lambda tf, x: tf.gather({_dyn('x', '[None, 4]')}, [2, 0, 2])",
        "inputs": [F64_34],
    },
    "gather_f32_second_order": {
        "fn": "lambda tf, x: tf.square(tf.gather(x, [1, 0, 1], axis=1))",
        "inputs": [("float32", [2, 3])],
        "second_order": True,
    },
    "gather_nd_rows": {  # [N, 1] indices: an IndexedSlices
        "fn": "lambda tf, x: tf.gather_nd(x, [[2], [0], [2]])",
        "inputs": [F64_34],
    },
    "gather_nd_elements": {"fn": "lambda tf, x: tf.gather_nd(x, [[2, 1], [0, 3], [2, 1]])", "inputs": [F64_34]},
    "gather_nd_3d_indices": {
        "fn": "lambda tf, x: tf.gather_nd(x, [[[1, 0]], [[0, 2]]])",
        "inputs": [F64_234],
    },
    "gather_nd_rank3_single_index": {"fn": "lambda tf, x: tf.gather_nd(x, [[[1]], [[0]]])", "inputs": [F64_234]},
    "scatter_nd": {
        "fn": "lambda tf, u: tf.scatter_nd([[0], [2], [0]], u, [4, 3])",
        "inputs": [("float64", [3, 3])],
    },
    "scatter_nd_elements": {
        "fn": "lambda tf, u: tf.scatter_nd([[0, 1], [2, 2]], u, [3, 3]) * 2.0",
        "inputs": [("float64", [2])],
    },
    "tensor_scatter_update": {
        "fn": "lambda tf, x, u: tf.tensor_scatter_nd_update(x, [[1], [3]], u)",
        "inputs": [F64_45, ("float64", [2, 5])],
    },
    "tensor_scatter_update_elements": {
        "fn": "lambda tf, x, u: tf.tensor_scatter_nd_update(x, [[1, 2], [3, 0]], u) * x",
        "inputs": [F64_45, ("float64", [2])],
    },
    "tensor_scatter_update_tensor_only": {
        "fn": "lambda tf, x, u: tf.tensor_scatter_nd_update(x, [[0]], u)",
        "inputs": [F64_23, ("float64", [1, 3])],
        "wrt": [0],
    },
    "tensor_scatter_add": {
        "fn": "lambda tf, x, u: tf.tensor_scatter_nd_add(x, [[1], [3], [1]], u)",
        "inputs": [F64_45, ("float64", [3, 5])],
    },
    "top_k": {"fn": "lambda tf, x: tf.math.top_k(x, 2).values", "inputs": [F64_45]},
    "top_k_3d": {"fn": "lambda tf, x: tf.math.top_k(x, 3).values * 2.0", "inputs": [F64_234]},
    "top_k_vector_indices_unused": {"fn": "lambda tf, x: tf.math.top_k(x, 1)[0]", "inputs": [("float32", [6])]},
    "top_k_dynamic": {
        "fn": f"lambda tf, x: tf.math.top_k({_dyn('x', '[None, 5]')}, 2).values",
        "inputs": [F64_45],
    },
    # ------------------------------------------------------------------ ops without gradients
    "one_hot_not_differentiable": {
        "fn": "lambda tf, x: tf.one_hot(tf.argmax(x, 1), 4, dtype=tf.float64) * x",
        "inputs": [F64_34],
    },
    "where_indices_not_differentiable": {
        "fn": "lambda tf, x: tf.cast(tf.where(x > 0.0), tf.float64) * tf.reduce_sum(x)",
        "inputs": [("float64", [5])],
        "numeric": False,
    },
    "unique_has_no_gradient": {"fn": "lambda tf, x: tf.unique(x).y * 2.0", "inputs": [("float64", [4])]},
    "stop_gradient": {"fn": "lambda tf, x: tf.stop_gradient(x) * x", "inputs": [F64_23], "numeric": False},
}
