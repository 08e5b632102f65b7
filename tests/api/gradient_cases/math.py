"""Gradient cases: math (format: tests/api/gradient_cases/__init__.py).

Elementwise unary and binary ops (broadcasting variants), select and clipping, reductions
(axes, keepdims), scans, segment reductions, matrix products and einsum, casts, and the ops
TF gives no gradient. Float64 unless a float32 variant is the point (float32 rounding as TF's).
"""

F64, F32 = "float64", "float32"
# TF's raw_ops.Select names its value args x and y (api_def renames); modtensor's raw_ops uses the OpDef's t and e.
_SELECT_V1 = (
    "lambda tf, c, x, y: tf.raw_ops.Select(condition=c, "
    "**({'x': x, 'y': y} if tf.__name__ == 'tensorflow' else {'t': x, 'e': y}))"
)

_UNARY = {
    # name: (fn body on x, positive input, unit input)
    "abs": ("tf.abs(x)", False, False),
    "neg": ("tf.negative(x)", False, False),
    "square": ("tf.square(x)", False, False),
    "sqrt": ("tf.sqrt(x)", True, False),
    "rsqrt": ("tf.math.rsqrt(x)", True, False),
    "exp": ("tf.exp(x)", False, False),
    "expm1": ("tf.math.expm1(x)", False, False),
    "log": ("tf.math.log(x)", True, False),
    "log1p": ("tf.math.log1p(x)", True, False),
    "erf": ("tf.math.erf(x)", False, False),
    "erfc": ("tf.math.erfc(x)", False, False),
    "sin": ("tf.sin(x)", False, False),
    "cos": ("tf.cos(x)", False, False),
    "tanh": ("tf.tanh(x)", False, False),
    "sigmoid": ("tf.sigmoid(x)", False, False),
    "reciprocal": ("tf.math.reciprocal(x)", True, False),
}

CASES: dict[str, dict] = {}
for _name, (_body, _positive, _unit) in _UNARY.items():
    for _dtype, _shape in ((F64, [2, 3]), (F32, [4, 5])):
        _case: dict = {"fn": f"lambda tf, x: {_body}", "inputs": [(_dtype, _shape)], "second_order": True}
        if _positive:
            _case["positive"] = [0]
        if _unit:
            _case["unit"] = [0]
        CASES[f"{_name}_{_dtype}"] = _case

CASES.update(
    {
        # ---------------------------------------------------------------- unary, special
        "unary_chain": {
            "fn": "lambda tf, x: tf.sigmoid(tf.tanh(tf.sqrt(x)) * tf.math.rsqrt(x)) + tf.math.reciprocal(tf.exp(x))",
            "inputs": [(F64, [3, 4])],
            "positive": [0],
            "second_order": True,
        },
        "square_scalar": {"fn": "lambda tf, x: tf.square(x) * 3.0", "inputs": [(F64, [])], "second_order": True},
        "sqrt_half": {"fn": "lambda tf, x: tf.sqrt(x)", "inputs": [("float16", [5])], "positive": [0]},
        "sign": {"fn": "lambda tf, x: tf.sign(x)", "inputs": [(F64, [2, 3])]},
        "sign_times_x": {"fn": "lambda tf, x: tf.sign(x) * x", "inputs": [(F64, [2, 3])], "second_order": True},
        "floor_ceil_round": {
            "fn": "lambda tf, x: [tf.floor(x), tf.math.ceil(x), tf.round(x)]",
            "inputs": [(F64, [2, 3])],
        },
        "floor_times_x": {"fn": "lambda tf, x: tf.floor(x * 3.0) * x", "inputs": [(F64, [2, 3])]},
        "cast_through_int": {
            "fn": "lambda tf, x: tf.cast(tf.cast(x * 3.0, tf.int32), tf.float64) * x",
            "inputs": [(F64, [4])],
        },
        "cast_f64_f32_f64": {
            "fn": "lambda tf, x: tf.cast(tf.cast(x, tf.float32) * 2.0, tf.float64)",
            "inputs": [(F64, [3])],
            "numeric": False,
        },
        "cast_f32_f16": {"fn": "lambda tf, x: tf.cast(x, tf.float16)", "inputs": [(F32, [3])]},
        # ---------------------------------------------------------------- binary, broadcasting
        "add_same_shape": {"fn": "lambda tf, x, y: x + y", "inputs": [(F64, [2, 3]), (F64, [2, 3])]},
        "add_rows_cols": {"fn": "lambda tf, x, y: tf.add(x, y)", "inputs": [(F32, [2, 1]), (F32, [1, 3])]},
        "add_scalar_unwatched": {
            "fn": "lambda tf, x, y: x + y",
            "inputs": [(F64, [2, 3]), (F64, [])],
            "wrt": [0],
        },
        "add_raw_add": {
            "fn": "lambda tf, x, y: tf.raw_ops.Add(x=x, y=y)",
            "inputs": [(F64, [3, 1]), (F64, [2])],
        },
        "sub_broadcast": {"fn": "lambda tf, x, y: x - y", "inputs": [(F64, [3, 1, 2]), (F64, [2])]},
        "sub_scalar_unwatched": {
            "fn": "lambda tf, x, y: x - y",
            "inputs": [(F64, [2, 3]), (F64, [])],
            "wrt": [0],
        },
        "sub_first_unwatched": {
            "fn": "lambda tf, x, y: x - y",
            "inputs": [(F64, [2, 3]), (F64, [3])],
            "wrt": [1],
        },
        "mul_same_shape": {
            "fn": "lambda tf, x, y: x * y",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "second_order": True,
        },
        "mul_broadcast_f32": {"fn": "lambda tf, x, y: x * y", "inputs": [(F32, [2, 3]), (F32, [2, 1])]},
        "mul_scalar_unwatched": {
            "fn": "lambda tf, x, y: x * y",
            "inputs": [(F32, [2, 3]), (F32, [])],
            "wrt": [0],
        },
        "div_raw": {
            "fn": "lambda tf, x, y: tf.raw_ops.Div(x=x, y=y)",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "positive": [1],
            "second_order": True,
        },
        "div_raw_broadcast": {
            "fn": "lambda tf, x, y: tf.raw_ops.Div(x=x, y=y)",
            "inputs": [(F64, [2, 3]), (F64, [3])],
            "positive": [1],
        },
        "realdiv_same_shape": {
            "fn": "lambda tf, x, y: tf.math.truediv(x, y)",
            "inputs": [(F64, [3, 2]), (F64, [3, 2])],
            "positive": [1],
            "second_order": True,
        },
        "realdiv_broadcast_f32": {
            "fn": "lambda tf, x, y: x / y",
            "inputs": [(F32, [4, 1]), (F32, [1, 3])],
            "positive": [1],
        },
        "realdiv_only_denominator": {
            "fn": "lambda tf, x, y: x / y",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "positive": [1],
            "wrt": [1],
        },
        "floormod": {
            "fn": "lambda tf, x, y: tf.math.floormod(x * 4.0, y)",
            "inputs": [(F64, [2, 3]), (F64, [3])],
            "positive": [1],
        },
        "floormod_f32": {
            "fn": "lambda tf, x, y: tf.math.floormod(x * 4.0, y)",
            "inputs": [(F32, [2, 3]), (F32, [2, 3])],
            "positive": [1],
        },
        "floordiv": {"fn": "lambda tf, x, y: tf.math.floordiv(x, y)", "inputs": [(F64, [2, 3]), (F64, [3])]},
        "floordiv_times_x": {
            "fn": "lambda tf, x, y: tf.math.floordiv(x * 4.0, y) * x",
            "inputs": [(F64, [2, 3]), (F64, [3])],
            "positive": [1],
        },
        "pow": {
            "fn": "lambda tf, x, y: tf.pow(x, y)",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "positive": [0],
            "second_order": True,
        },
        "pow_broadcast_f32": {
            "fn": "lambda tf, x, y: tf.pow(x, y)",
            "inputs": [(F32, [2, 3]), (F32, [3])],
            "positive": [0],
        },
        "pow_negative_base": {
            # log(x) counts as 0 where x <= 0: the exponent's gradient is 0 there
            "fn": "lambda tf, x, y: tf.pow(x, y)",
            "inputs": [("const", [[-2.0, 0.0, 1.5], [-0.5, 2.0, 0.0]], F64), ("const", [3.0, 2.0, 2.0], F64)],
            "numeric": False,
        },
        "pow_scalar_exponent_unwatched": {
            "fn": "lambda tf, x, y: tf.pow(x, y)",
            "inputs": [(F64, [2, 3]), ("const", 3.0, F64)],
            "wrt": [0],
            "second_order": True,
        },
        "maximum_broadcast": {"fn": "lambda tf, x, y: tf.maximum(x, y)", "inputs": [(F64, [2, 3]), (F64, [3])]},
        "minimum_broadcast_f32": {
            "fn": "lambda tf, x, y: tf.minimum(x, y)",
            "inputs": [(F32, [3, 1]), (F32, [1, 4])],
        },
        "maximum_ties": {
            # ties go to x (x >= y), as TF
            "fn": "lambda tf, x, y: [tf.maximum(x, y), tf.minimum(x, y)]",
            "inputs": [("const", [1.0, 2.0, -3.0, 0.5], F64), ("const", [1.0, 0.0, -3.0, 4.0], F64)],
            "numeric": False,
        },
        "maximum_scalar_unwatched": {
            "fn": "lambda tf, x, y: tf.maximum(x, y)",
            "inputs": [(F64, [2, 3]), ("const", 0.1, F64)],
            "wrt": [0],
        },
        "maximum_second_order": {
            "fn": "lambda tf, x, y: tf.maximum(x, y) * x",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "second_order": True,
        },
        "squared_difference": {
            "fn": "lambda tf, x, y: tf.math.squared_difference(x, y)",
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
            "second_order": True,
        },
        "squared_difference_broadcast_f32": {
            "fn": "lambda tf, x, y: tf.math.squared_difference(x, y)",
            "inputs": [(F32, [2, 3]), (F32, [2, 1])],
        },
        "comparisons_and_logic": {
            "fn": "lambda tf, x, y: tf.where(tf.logical_and(x > y, tf.logical_not(x < 0.0)), x, y * 2.0)",
            "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        },
        "comparison_as_mask": {
            "fn": "lambda tf, x, y: tf.cast(tf.greater_equal(x, y), tf.float64) * x + tf.cast(tf.equal(x, x), tf.float64) * y",  # noqa: E501
            "inputs": [(F64, [2, 3]), (F64, [2, 3])],
        },
        "argmax_argmin_in_path": {
            "fn": "lambda tf, x: x * tf.cast(tf.reshape(tf.argmax(x, axis=1) + tf.argmin(x, axis=1), [-1, 1]), tf.float64)",  # noqa: E501
            "inputs": [(F64, [3, 4])],
        },
        "add_n_three_f32": {
            "fn": "lambda tf, x, y, z: tf.add_n([x, y, z, x])",
            "inputs": [(F32, [2, 3]), (F32, [2, 3]), (F32, [2, 3])],
        },
        # ---------------------------------------------------------------- select, clip
        "select_v1": {
            "fn": _SELECT_V1,
            "inputs": [("bool", [2, 3]), (F64, [2, 3]), (F64, [2, 3])],
            "second_order": True,
        },
        "select_v1_vector_condition": {
            "fn": _SELECT_V1,
            "inputs": [("const", [True, False, True], "bool"), (F64, [3, 2]), (F64, [3, 2])],
        },
        "select_v2_broadcast": {
            "fn": "lambda tf, c, x, y: tf.raw_ops.SelectV2(condition=c, t=x, e=y)",
            "inputs": [("bool", [2, 1]), (F64, [3]), (F64, [2, 3])],
        },
        "where_f32": {
            "fn": "lambda tf, c, x, y: tf.where(c, x, y)",
            "inputs": [("bool", [4]), (F32, [4]), (F32, [])],
        },
        "clip_by_value_op": {
            "fn": "lambda tf, x, lo, hi: tf.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=hi)",
            "inputs": [(F64, [3, 4]), ("const", -0.5, F64), ("const", 0.6, F64)],
        },
        "clip_by_value_op_tensors": {
            "fn": "lambda tf, x, lo, hi: tf.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=hi)",
            "inputs": [(F32, [2, 3]), (F32, [2, 3]), (F32, [2, 3])],
        },
        "clip_by_value": {
            "fn": "lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi)",
            "inputs": [(F64, [3, 4]), ("const", -0.5, F64), ("const", 0.6, F64)],
        },
        # ---------------------------------------------------------------- reductions
        "sum_negative_axis_f32": {"fn": "lambda tf, x: tf.reduce_sum(x, axis=-1)", "inputs": [(F32, [2, 3, 4])]},
        "sum_all": {"fn": "lambda tf, x: tf.reduce_sum(x)", "inputs": [(F64, [2, 3, 4])]},
        "sum_scalar_input": {"fn": "lambda tf, x: tf.reduce_sum(x) * 2.0", "inputs": [(F64, [])]},
        "mean_axis": {"fn": "lambda tf, x: tf.reduce_mean(x, axis=[0, 2])", "inputs": [(F64, [2, 3, 4])]},
        "mean_keepdims_f32": {
            "fn": "lambda tf, x: tf.reduce_mean(x, axis=1, keepdims=True)",
            "inputs": [(F32, [3, 5])],
        },
        "mean_negative_axis": {"fn": "lambda tf, x: tf.math.reduce_mean(x, -2)", "inputs": [(F64, [4, 3, 2])]},
        "prod_axis": {"fn": "lambda tf, x: tf.reduce_prod(x, axis=1)", "inputs": [(F64, [3, 4])]},
        "prod_all_f32": {"fn": "lambda tf, x: tf.reduce_prod(x)", "inputs": [(F32, [2, 3])]},
        "prod_axes_keepdims": {
            "fn": "lambda tf, x: tf.reduce_prod(x, axis=[0, 2], keepdims=True)",
            "inputs": [(F64, [2, 3, 2])],
        },
        "prod_axes_unsorted": {"fn": "lambda tf, x: tf.reduce_prod(x, axis=[2, 0])", "inputs": [(F64, [2, 3, 2])]},
        "prod_with_zeros": {
            # one zero in a row: only the zero gets a gradient; two zeros: none
            "fn": "lambda tf, x: tf.reduce_prod(x, axis=1)",
            "inputs": [("const", [[1.5, 0.0, 2.0], [0.0, 3.0, 0.0], [1.0, 2.0, -1.0]], F64)],
        },
        "max_axis": {"fn": "lambda tf, x: tf.reduce_max(x, axis=1)", "inputs": [(F64, [3, 4])]},
        "max_all_f32": {"fn": "lambda tf, x: tf.reduce_max(x)", "inputs": [(F32, [3, 4])]},
        "max_keepdims": {
            "fn": "lambda tf, x: tf.reduce_max(x, axis=[0, 2], keepdims=True)",
            "inputs": [(F64, [2, 3, 2])],
        },
        "min_axis": {"fn": "lambda tf, x: tf.reduce_min(x, axis=0)", "inputs": [(F64, [3, 4])]},
        "max_min_ties": {
            # the gradient is split evenly between equal extremes
            "fn": "lambda tf, x: [tf.reduce_max(x, axis=1), tf.reduce_min(x, axis=1)]",
            "inputs": [("const", [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [-1.0, 0.0, -1.0]], F64)],
            "numeric": False,
        },
        # ---------------------------------------------------------------- scans
        "cumsum": {"fn": "lambda tf, x: tf.cumsum(x, axis=1)", "inputs": [(F64, [3, 4])]},
        "cumsum_exclusive_reverse_f32": {
            "fn": "lambda tf, x: tf.cumsum(x, axis=0, exclusive=True, reverse=True)",
            "inputs": [(F32, [4, 3])],
        },
        "cumsum_reverse": {"fn": "lambda tf, x: tf.cumsum(x, axis=-1, reverse=True)", "inputs": [(F64, [2, 5])]},
        "cumprod": {"fn": "lambda tf, x: tf.math.cumprod(x, axis=1)", "inputs": [(F64, [3, 4])]},
        "cumprod_exclusive": {
            "fn": "lambda tf, x: tf.math.cumprod(x, axis=0, exclusive=True)",
            "inputs": [(F64, [4, 3])],
        },
        "cumprod_reverse_f32": {
            "fn": "lambda tf, x: tf.math.cumprod(x, axis=1, reverse=True)",
            "inputs": [(F32, [2, 4])],
        },
        "cumprod_exclusive_reverse": {
            "fn": "lambda tf, x: tf.math.cumprod(x, axis=1, exclusive=True, reverse=True)",
            "inputs": [(F64, [2, 4])],
        },
        "cumprod_with_zero": {
            # TF divides by x (0 where x is 0): the gradient at a zero is 0, unlike the true derivative
            "fn": "lambda tf, x: tf.math.cumprod(x)",
            "inputs": [("const", [1.5, 0.0, 2.0, -1.0], F64)],
            "numeric": False,
        },
        # ---------------------------------------------------------------- segment reductions
        "segment_sum": {
            "fn": "lambda tf, x, ids: tf.math.segment_sum(x, ids)",
            "inputs": [(F64, [5, 2]), ("const", [0, 0, 1, 3, 3], "int32")],
        },
        "segment_mean": {
            "fn": "lambda tf, x, ids: tf.math.segment_mean(x, ids)",
            "inputs": [(F64, [5, 2]), ("const", [0, 0, 1, 3, 3], "int32")],
        },
        "segment_mean_f32": {
            "fn": "lambda tf, x, ids: tf.math.segment_mean(x, ids)",
            "inputs": [(F32, [4]), ("const", [0, 1, 1, 1], "int64")],
        },
        "segment_prod": {
            "fn": "lambda tf, x, ids: tf.math.segment_prod(x, ids)",
            "inputs": [(F64, [5, 2]), ("const", [0, 0, 1, 2, 2], "int32")],
        },
        "segment_prod_zeros": {
            "fn": "lambda tf, x, ids: tf.math.segment_prod(x, ids)",
            "inputs": [("const", [1.5, 0.0, 2.0, 0.0, 0.0, 3.0, 2.0], F64), ("const", [0, 0, 0, 1, 1, 2, 2], "int32")],
        },
        "segment_max": {
            "fn": "lambda tf, x, ids: tf.math.segment_max(x, ids)",
            "inputs": [(F64, [5, 2]), ("const", [0, 0, 1, 2, 2], "int32")],
        },
        "segment_min_ties": {
            "fn": "lambda tf, x, ids: tf.math.segment_min(x, ids)",
            "inputs": [("const", [1.0, 1.0, 2.0, 3.0, 0.5], F64), ("const", [0, 0, 0, 2, 2], "int32")],
            "numeric": False,
        },
        "unsorted_segment_sum": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_sum(x, ids, 4)",
            "inputs": [(F64, [5, 2]), ("const", [3, 0, -1, 3, 1], "int32")],
        },
        "unsorted_segment_sum_2d_ids": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_sum(x, ids, 3)",
            "inputs": [(F32, [2, 3, 2]), ("const", [[0, 2, 0], [-1, 1, 2]], "int64")],
        },
        "unsorted_segment_prod": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_prod(x, ids, 3)",
            "inputs": [(F64, [6]), ("const", [2, 0, 2, -1, 0, 2], "int32")],
        },
        "unsorted_segment_prod_zeros": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_prod(x, ids, 3)",
            "inputs": [("const", [0.0, 2.0, 0.0, 0.0, 3.0, 4.0], F64), ("const", [0, 0, 1, 1, 2, -1], "int32")],
        },
        "unsorted_segment_max": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_max(x, ids, 3)",
            "inputs": [(F64, [6, 2]), ("const", [1, 1, 0, -1, 2, 0], "int32")],
        },
        "unsorted_segment_min_ties": {
            "fn": "lambda tf, x, ids: tf.math.unsorted_segment_min(x, ids, 3)",
            "inputs": [("const", [1.0, 1.0, 2.0, -3.0, 0.5], F64), ("const", [0, 0, 2, -1, 2], "int32")],
            "numeric": False,
        },
        # ---------------------------------------------------------------- matrix products
        "matmul_transpose_a": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, transpose_a=True)",
            "inputs": [(F64, [4, 3]), (F64, [4, 2])],
            "second_order": True,
        },
        "matmul_transpose_b_f32": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, transpose_b=True)",
            "inputs": [(F32, [3, 4]), (F32, [2, 4])],
        },
        "matmul_both_transposed": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True)",
            "inputs": [(F64, [4, 3]), (F64, [2, 4])],
            "second_order": True,
        },
        "matmul_second_order": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F64, [3, 4]), (F64, [4, 2])],
            "second_order": True,
        },
        "matmul_only_a": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F64, [3, 4]), (F64, [4, 2])],
            "wrt": [0],
        },
        "matmul_only_b_transposed": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True)",
            "inputs": [(F64, [4, 3]), (F64, [2, 4])],
            "wrt": [1],
        },
        "batch_matmul": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F64, [2, 3, 4]), (F64, [2, 4, 5])],
            "second_order": True,
        },
        "batch_matmul_broadcast_rank": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F64, [2, 3, 4]), (F64, [4, 5])],
        },
        "batch_matmul_broadcast_batch_f32": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F32, [3, 1, 2, 4]), (F32, [5, 4, 2])],
        },
        "batch_matmul_adjoint": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, adjoint_a=True)",
            "inputs": [(F64, [2, 4, 3]), (F64, [1, 4, 5])],
        },
        "batch_matmul_v2_adj": {
            "fn": "lambda tf, a, b: tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_x=True, adj_y=True)",
            "inputs": [(F64, [2, 4, 3]), (F64, [2, 5, 4])],
            "second_order": True,
        },
        "batch_matmul_v2_adj_y": {
            "fn": "lambda tf, a, b: tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_y=True)",
            "inputs": [(F64, [3, 4]), (F64, [2, 5, 4])],
        },
        "batch_matmul_v2_matrices": {
            "fn": "lambda tf, a, b: tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_x=True)",
            "inputs": [(F64, [4, 3]), (F64, [4, 2])],
        },
        "batch_matmul_v3": {
            "fn": "lambda tf, a, b: tf.raw_ops.BatchMatMulV3(x=a, y=b, Tout=tf.float64, adj_x=True)",
            "inputs": [(F64, [2, 4, 3]), (F64, [1, 4, 5])],
        },
        "batch_matmul_v3_f32": {
            "fn": "lambda tf, a, b: tf.raw_ops.BatchMatMulV3(x=a, y=b, Tout=tf.float32)",
            "inputs": [(F32, [2, 3, 4]), (F32, [4, 2])],
        },
        "batch_matmul_only_y": {
            "fn": "lambda tf, a, b: tf.matmul(a, b)",
            "inputs": [(F64, [2, 3, 4]), (F64, [4, 5])],
            "wrt": [1],
        },
        # ---------------------------------------------------------------- einsum
        "einsum_matmul": {
            "fn": "lambda tf, a, b: tf.einsum('ij,jk->ik', a, b)",
            "inputs": [(F64, [3, 4]), (F64, [4, 2])],
            "second_order": True,
        },
        "einsum_batch_f32": {
            "fn": "lambda tf, a, b: tf.einsum('bij,bjk->bik', a, b)",
            "inputs": [(F32, [2, 3, 4]), (F32, [2, 4, 5])],
        },
        "einsum_broadcast_ellipsis": {
            "fn": "lambda tf, a, b: tf.einsum('...ij,...jk->...ik', a, b)",
            "inputs": [(F64, [3, 1, 2, 4]), (F64, [5, 4, 2])],
        },
        "einsum_ellipsis_one_side": {
            "fn": "lambda tf, a, b: tf.einsum('...b,bc->...c', a, b)",
            "inputs": [(F64, [2, 3, 4]), (F64, [4, 5])],
        },
        "einsum_reduced_label": {
            # 'b' only in the first operand: summed out, then broadcast back in the gradient
            "fn": "lambda tf, a, b: tf.einsum('abc,cd->ad', a, b)",
            "inputs": [(F64, [2, 3, 4]), (F64, [4, 5])],
        },
        "einsum_mha_projection": {
            "fn": "lambda tf, a, b: tf.einsum('abcd,cde->abe', a, b)",
            "inputs": [(F64, [2, 3, 4, 2]), (F64, [4, 2, 3])],
        },
        "einsum_attention_scores": {
            "fn": "lambda tf, q, k: tf.einsum('BTNH,BSNH->BNTS', q, k)",
            "inputs": [(F64, [2, 3, 2, 4]), (F64, [2, 5, 2, 4])],
        },
        "einsum_outer": {"fn": "lambda tf, a, b: tf.einsum('i,j->ij', a, b)", "inputs": [(F64, [3]), (F64, [4])]},
        "einsum_dot": {
            "fn": "lambda tf, a, b: tf.einsum('ij,ij->', a, b)",
            "inputs": [(F64, [3, 4]), (F64, [3, 4])],
            "second_order": True,
        },
        "einsum_transpose": {"fn": "lambda tf, a: tf.einsum('ij->ji', a)", "inputs": [(F64, [3, 4])]},
        "einsum_sum_rows": {"fn": "lambda tf, a: tf.einsum('ij->i', a)", "inputs": [(F64, [3, 4])]},
        "einsum_sum_transposed": {"fn": "lambda tf, a: tf.einsum('abc->ca', a)", "inputs": [(F64, [2, 3, 4])]},
        "einsum_diagonal": {"fn": "lambda tf, a: tf.einsum('ii->i', a)", "inputs": [(F64, [4, 4])]},
        "einsum_trace": {"fn": "lambda tf, a: tf.einsum('ii->', a)", "inputs": [(F64, [3, 3])]},
        "einsum_batch_diagonal": {"fn": "lambda tf, a: tf.einsum('bii->bi', a)", "inputs": [(F64, [2, 3, 3])]},
        "einsum_ellipsis_reduce": {
            "fn": "lambda tf, a, b: tf.einsum('a...,a...->...', a, b)",
            "inputs": [(F64, [3, 2, 4]), (F64, [3, 1, 4])],
        },
        # ---------------------------------------------------------------- complex (the gradients without Conj)
        "add_sub_complex": {
            "fn": "lambda tf, x, y: (x + y) - tf.reduce_sum(y)",
            "inputs": [
                ("const", [[1 + 2j, -0.5j], [3.0, 2 - 1j]], "complex64"),
                ("const", [0.5 + 0.5j, -1.0 + 2j], "complex64"),
            ],
        },
        "mean_cumsum_complex": {
            "fn": "lambda tf, x: [tf.reduce_mean(x, axis=0), tf.cumsum(-x, axis=1, reverse=True)]",
            "inputs": [("const", [[1 + 2j, -0.5j, 2.0], [3.0, 2 - 1j, 1j]], "complex128")],
        },
        "sqrt_rsqrt_reciprocal_complex": {
            "fn": "lambda tf, x: [tf.sqrt(x), tf.math.rsqrt(x), tf.math.reciprocal(x)]",
            "inputs": [("const", [1 + 2j, -0.5j, 3.0, 2 - 1j], "complex128")],
        },
        # ---------------------------------------------------------------- complex (conjugated gradients: Conj)
        "mul_div_complex": {
            "fn": "lambda tf, x, y: [x * y, x / y, tf.square(x)]",
            "inputs": [
                ("const", [1 + 2j, -0.5j, 3.0, 2 - 1j], "complex64"),
                ("const", [0.5 + 0.5j, -1.0 + 2j, 1j, 2.0], "complex64"),
            ],
        },
        "exp_log_tanh_complex": {
            "fn": "lambda tf, x: [tf.exp(x), tf.math.log(x), tf.tanh(x), tf.sin(x)]",
            "inputs": [("const", [0.5 + 0.2j, -0.3j, 0.7, 0.1 - 0.4j], "complex128")],
        },
        "matmul_einsum_complex": {
            "fn": "lambda tf, a, b: [tf.matmul(a, b), tf.einsum('ij,jk->ik', a, b)]",
            "inputs": [
                ("const", [[1 + 2j, -0.5j], [3.0, 2 - 1j]], "complex128"),
                ("const", [[0.5 + 1j, 2.0], [1j, -1 - 1j]], "complex128"),
            ],
        },
        "batch_matmul_adjoint_complex": {
            "fn": "lambda tf, a, b: tf.matmul(a, b, adjoint_b=True)",
            "inputs": [
                ("const", [[[1 + 2j, -0.5j], [3.0, 2 - 1j]]], "complex64"),
                ("const", [[[0.5 + 1j, 2.0], [1j, -1 - 1j], [2.0, 0.5j]]], "complex64"),
            ],
        },
    }
)

# Second order through the reductions, broadcasting, scans, segments and einsum (these also take the
# gradients of BroadcastTo, Tile, Reshape, Transpose and GatherV2).
for _name in (
    "add_rows_cols", "sub_broadcast", "mul_broadcast_f32", "realdiv_broadcast_f32", "div_raw_broadcast",
    "pow_broadcast_f32", "maximum_broadcast", "squared_difference_broadcast_f32", "floormod", "select_v2_broadcast",
    "clip_by_value_op", "clip_by_value", "sum_all", "sum_negative_axis_f32", "mean_axis", "mean_keepdims_f32",
    "prod_axis", "prod_all_f32", "prod_axes_keepdims", "prod_with_zeros", "max_axis", "min_axis", "cumsum",
    "cumsum_exclusive_reverse_f32", "cumprod", "cumprod_exclusive_reverse", "cumprod_with_zero", "segment_sum",
    "segment_mean", "segment_prod", "segment_max", "unsorted_segment_sum", "unsorted_segment_prod",
    "unsorted_segment_max", "batch_matmul_broadcast_batch_f32", "batch_matmul_v3", "einsum_broadcast_ellipsis",
    "einsum_reduced_label", "einsum_attention_scores", "einsum_sum_transposed", "einsum_diagonal", "einsum_trace",
    "einsum_ellipsis_reduce",
):  # fmt: skip
    CASES[_name]["second_order"] = True
