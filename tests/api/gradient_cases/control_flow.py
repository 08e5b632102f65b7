"""Gradient cases: control_flow (format: tests/api/gradient_cases/__init__.py).

tf.cond / tf.case / tf.switch_case, tf.while_loop, TensorArrays and TensorLists, map_fn / scan /
foldl. Eagerly they run op by op; inside tf.function and in v1 graphs they build If/Case/While ops
whose gradients are api/gradients/control_flow_grad.py. Predicates and branch indices are fixed
inputs ("const"), so the central differences never cross a branch. Cases that call a tf.function
inside ``fn`` also check the gradients of function calls holding control flow (eagerly: the
backward function of the call).
"""

_P = ("const", True, "bool")
_NOT_P = ("const", False, "bool")
_V3 = ("float64", [3])
# TF gives None eagerly (the other branch, or the body, never ran) and zeros from the If/While gradient in
# functions and graphs: those modes are checked against TF in tests/api/test_control_flow_gradients.py.
_EAGER_ONLY = ("eager",)

# A loop whose body reads a TensorArray made from ``x`` (rows) and writes another one.
_TA_LOOP = (
    "lambda tf, x, w: tf.while_loop("
    "lambda i, acc, out: i < 4, "
    "lambda i, acc, out: (i + 1, acc + tf.tanh(acc * w + tf.TensorArray(tf.float64, size=4).unstack(x).read(i)), "
    "out.write(i, acc * w)), "
    "[0, tf.zeros([3], tf.float64), tf.TensorArray(tf.float64, size=4)])"
)

CASES: dict[str, dict] = {
    # ------------------------------------------------------------------ cond / case / switch_case
    "cond_true_branch": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: tf.tanh(x) * y, lambda: tf.exp(y) - x)",
        "inputs": [_P, _V3, _V3],
        "second_order": True,
    },
    "cond_false_branch": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: tf.tanh(x) * y, lambda: tf.exp(y) - x)",
        "inputs": [_NOT_P, _V3, _V3],
    },
    "cond_float32_matmul": {
        "fn": "lambda tf, p, a, b: tf.cond(p, lambda: tf.matmul(a, b), lambda: tf.matmul(a * a, b))",
        "inputs": [_NOT_P, ("float32", [2, 3]), ("float32", [3, 4])],
    },
    "cond_two_outputs_one_used": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: (x * y, tf.exp(x)), lambda: (x + y, tf.square(x)))[0]",
        "inputs": [_P, _V3, _V3],
    },
    "cond_two_outputs_both_used": {
        "fn": "lambda tf, p, x, y: list(tf.cond(p, lambda: (x * y, tf.exp(x)), lambda: (x + y, tf.square(x))))",
        "inputs": [_NOT_P, _V3, _V3],
    },
    "cond_input_used_in_one_branch": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: tf.sigmoid(x * y), lambda: tf.square(x))",
        "inputs": [_NOT_P, _V3, _V3],
        "modes": _EAGER_ONLY,
    },
    "cond_passthrough": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: x, lambda: y) * 3.0",
        "inputs": [_P, _V3, _V3],
        "modes": _EAGER_ONLY,
    },
    "cond_unconnected_input": {
        "fn": "lambda tf, p, x, y: tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)",
        "inputs": [_P, _V3, _V3],
    },
    "cond_nested": {
        "fn": (
            "lambda tf, p, q, x, y: tf.cond(p, lambda: tf.cond(q, lambda: tf.tanh(x * y), lambda: x - y) * x, "
            "lambda: tf.sigmoid(x) * y)"
        ),
        "inputs": [_P, _NOT_P, _V3, _V3],
        "second_order": True,
    },
    "cond_predicate_from_data": {
        "fn": "lambda tf, x, y: tf.cond(tf.reduce_sum(x) > -100.0, lambda: tf.exp(x) * y, lambda: x)",
        "inputs": [_V3, _V3],
    },
    "cond_with_int_output": {
        "fn": ("lambda tf, p, x: tf.cond(p, lambda: (tf.constant(1), tf.tanh(x)), lambda: (tf.constant(2), x * x))[1]"),
        "inputs": [_NOT_P, _V3],
    },
    "cond_reduce_mean_broadcast": {
        "fn": "lambda tf, p, x, b: tf.cond(p, lambda: tf.reduce_mean(tf.tanh(x + b), axis=0), lambda: b)",
        "inputs": [_P, ("float64", [4, 3]), _V3],
    },
    "case_first_true": {
        "fn": (
            "lambda tf, p, q, x, y: tf.case([(p, lambda: x * y), (q, lambda: tf.exp(x))], "
            "default=lambda: y - x, exclusive=False)"
        ),
        "inputs": [_P, _P, _V3, _V3],
    },
    "case_default": {
        "fn": "lambda tf, p, q, x, y: tf.case([(p, lambda: x * y), (q, lambda: tf.exp(x))], default=lambda: y - x)",
        "inputs": [_NOT_P, _NOT_P, _V3, _V3],
    },
    "switch_case_middle": {
        "fn": ("lambda tf, i, x, y: tf.switch_case(i, [lambda: x * x, lambda: tf.tanh(x) * y, lambda: y - x])"),
        "inputs": [("const", 1, "int32"), _V3, _V3],
        "second_order": True,
    },
    "switch_case_default_branch": {
        "fn": (
            "lambda tf, i, x, y: tf.switch_case(i, [lambda: x * x, lambda: tf.tanh(x) * y], default=lambda: tf.exp(y))"
        ),
        "inputs": [("const", 7, "int32"), _V3, _V3],
        "modes": _EAGER_ONLY,
    },
    "cond_in_function": {
        "fn": (
            "lambda tf, p, x, y: tf.function(lambda p, a, b: tf.cond(p, lambda: tf.tanh(a) * b, "
            "lambda: a * a * b))(p, x, y)"
        ),
        "inputs": [_P, _V3, _V3],
        "second_order": True,
    },
    "cond_branch_calls_function": {
        "fn": (
            "lambda tf, p, x, y: (lambda g: tf.cond(p, lambda: g(x, y) + x, lambda: g(y, x)))"
            "(tf.function(lambda a, b: tf.sigmoid(a * b)))"
        ),
        "inputs": [_P, _V3, _V3],
    },
    # ------------------------------------------------------------------ while_loop
    "while_power": {
        "fn": "lambda tf, x: tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * x), [0, x])[1]",
        "inputs": [_V3],
        "second_order": True,
    },
    "while_rnn_tanh": {
        "fn": (
            "lambda tf, h, w, b: tf.while_loop(lambda i, h: i < 3, "
            "lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + b)), [0, h])[1]"
        ),
        "inputs": [("float64", [2, 3]), ("float64", [3, 3]), _V3],
    },
    "while_rnn_float32": {
        "fn": (
            "lambda tf, h, w, b: tf.while_loop(lambda i, h: i < 5, "
            "lambda i, h: (i + 1, tf.sigmoid(tf.matmul(h, w) + b)), [0, h])[1]"
        ),
        "inputs": [("float32", [2, 4]), ("float32", [4, 4]), ("float32", [4])],
    },
    "while_maximum_iterations": {
        "fn": (
            "lambda tf, x, y: tf.while_loop(lambda v: tf.reduce_sum(v) < 1e9, lambda v: [tf.tanh(v) * y + x], [x], "
            "maximum_iterations=3)[0]"
        ),
        "inputs": [_V3, _V3],
    },
    "while_zero_iterations": {
        "fn": "lambda tf, x, y: tf.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v * y), [0, x])[1] * 2.0",
        "inputs": [_V3, _V3],
        "modes": _EAGER_ONLY,
    },
    "while_two_loop_vars_both_used": {
        "fn": (
            "lambda tf, x, y: list(tf.while_loop(lambda i, a, b: i < 3, "
            "lambda i, a, b: (i + 1, a * b, tf.tanh(a + b)), [0, x, y])[1:])"
        ),
        "inputs": [_V3, _V3],
    },
    "while_loop_var_unused_after": {
        "fn": (
            "lambda tf, x, y: tf.while_loop(lambda i, a, b: i < 3, "
            "lambda i, a, b: (i + 1, a * b, tf.tanh(a + b)), [0, x, y])[2]"
        ),
        "inputs": [_V3, _V3],
    },
    "while_captured_invariant": {
        "fn": (
            "lambda tf, x, w, b: tf.while_loop(lambda i, v: i < 4, "
            "lambda i, v: (i + 1, tf.tanh(v * w) + b * b), [0, x])[1]"
        ),
        "inputs": [_V3, _V3, _V3],
    },
    "while_data_dependent_count": {
        "fn": "lambda tf, x: tf.while_loop(lambda v: tf.reduce_sum(v) < 50.0, lambda v: [v * 1.5 + 1.0], [x])[0]",
        "inputs": [("float64", [3])],
        "positive": [0],
    },
    "while_nested": {
        "fn": (
            "lambda tf, x, y: tf.while_loop(lambda i, v: i < 3, "
            "lambda i, v: (i + 1, tf.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, tf.tanh(u * x) + y), "
            "[0, v])[1]), [0, x])[1]"
        ),
        "inputs": [_V3, _V3],
    },
    "while_nested_inner_count_from_outer": {
        "fn": (
            "lambda tf, x: tf.while_loop(lambda i, v: i < 3, "
            "lambda i, v: (i + 1, tf.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u * x), "
            "[0, v])[1] + x), [0, x])[1]"
        ),
        "inputs": [_V3],
    },
    "while_cond_inside": {
        "fn": (
            "lambda tf, x, y: tf.while_loop(lambda i, v: i < 4, "
            "lambda i, v: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: tf.tanh(v * x), lambda: v + y)), "
            "[0, x])[1]"
        ),
        "inputs": [_V3, _V3],
    },
    "while_body_calls_function": {
        "fn": (
            "lambda tf, x, y: (lambda g: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, g(v, y)), "
            "[0, x])[1])(tf.function(lambda v, a: tf.tanh(v * a) + a))"
        ),
        "inputs": [_V3, _V3],
    },
    "while_in_function": {
        "fn": (
            "lambda tf, x, y: tf.function(lambda a, b: tf.while_loop(lambda i, v: i < 3, "
            "lambda i, v: (i + 1, tf.tanh(v * b) + a), [0, a])[1])(x, y)"
        ),
        "inputs": [_V3, _V3],
        "second_order": True,
    },
    "while_shape_invariant_growing": {
        "fn": (
            "lambda tf, x: tf.while_loop(lambda i, v: i < 3, "
            "lambda i, v: (i + 1, tf.concat([v, v[-3:] * x], 0)), [0, x], "
            "shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])[1]"
        ),
        "inputs": [_V3],
    },
    "while_integer_loop_var_gradient_none": {
        "fn": (
            "lambda tf, x, y: tf.while_loop(lambda i, v, k: i < 3, lambda i, v, k: (i + 1, v * y, k + 2), [0, x, 1])[1]"
        ),
        "inputs": [_V3, _V3],
    },
    # ------------------------------------------------------------------ TensorArray / TensorList
    "while_tensor_array_write_stack": {
        "fn": (
            "lambda tf, x, w: tf.while_loop(lambda i, v, ta: i < 4, "
            "lambda i, v, ta: (i + 1, tf.tanh(v * w), ta.write(i, v * v)), "
            "[0, x, tf.TensorArray(tf.float64, size=4)])[2].stack()"
        ),
        "inputs": [_V3, _V3],
    },
    "while_tensor_array_read_and_write": {
        "fn": f"lambda tf, x, w: (lambda r: [r[1], r[2].stack()])(({_TA_LOOP})(tf, x, w))",
        "inputs": [("float64", [4, 3]), _V3],
    },
    "while_tensor_array_dynamic_size": {
        "fn": (
            "lambda tf, x: tf.while_loop(lambda i, ta: i < 3, "
            "lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i + 1, tf.float64))), "
            "[0, tf.TensorArray(tf.float64, size=0, dynamic_size=True)])[1].stack()"
        ),
        "inputs": [_V3],
    },
    "tensor_array_write_stack": {
        "fn": (
            "lambda tf, x, y: tf.TensorArray(tf.float64, size=3).write(0, x * y).write(1, tf.tanh(x))"
            ".write(2, y).stack()"
        ),
        "inputs": [_V3, _V3],
    },
    "tensor_array_unstack_read": {
        "fn": (
            "lambda tf, x: (lambda ta: ta.read(2) * ta.read(0) + ta.read(2))"
            "(tf.TensorArray(tf.float64, size=4, clear_after_read=False).unstack(x))"
        ),
        "inputs": [("float64", [4, 3])],
    },
    "tensor_array_unstack_gather": {
        "fn": "lambda tf, x: tf.TensorArray(tf.float64, size=4).unstack(x).gather([3, 1]) * 2.0",
        "inputs": [("float64", [4, 3])],
    },
    "tensor_array_scatter_stack": {
        "fn": "lambda tf, x: tf.TensorArray(tf.float64, size=3).scatter([2, 0, 1], tf.tanh(x)).stack()",
        "inputs": [("float64", [3, 2])],
    },
    "tensor_array_split_concat": {
        "fn": "lambda tf, x: tf.square(tf.TensorArray(tf.float64, size=2).split(x, [1, 3]).concat())",
        "inputs": [("float64", [4, 2])],
    },
    "tensor_list_push_pop": {
        "fn": (
            "lambda tf, x, y: tf.raw_ops.TensorListPopBack(input_handle=tf.raw_ops.TensorListPushBack("
            "input_handle=tf.raw_ops.TensorListPushBack(input_handle=tf.raw_ops.EmptyTensorList("
            "element_shape=tf.constant([3]), max_num_elements=-1, element_dtype=tf.float64), tensor=x * y), "
            "tensor=tf.tanh(x)), element_shape=tf.constant([3]), element_dtype=tf.float64)[1] * y"
        ),
        "inputs": [_V3, _V3],
    },
    "tensor_list_from_tensor_get_item": {
        "fn": (
            "lambda tf, x: tf.raw_ops.TensorListGetItem(input_handle=tf.raw_ops.TensorListFromTensor("
            "tensor=x, element_shape=tf.constant([2])), index=1, element_shape=tf.constant([2]), "
            "element_dtype=tf.float64) * 3.0"
        ),
        "inputs": [("float64", [3, 2])],
    },
    "tensor_list_set_item_stack": {
        "fn": (
            "lambda tf, x, y: tf.raw_ops.TensorListStack(input_handle=tf.raw_ops.TensorListSetItem("
            "input_handle=tf.raw_ops.TensorListFromTensor(tensor=x, element_shape=tf.constant([2])), index=0, "
            "item=y * y), element_shape=tf.constant([2]), element_dtype=tf.float64)"
        ),
        "inputs": [("float64", [3, 2]), ("float64", [2])],
    },
    # ------------------------------------------------------------------ map_fn / scan / foldl
    "map_fn_tanh": {
        "fn": "lambda tf, x, y: tf.map_fn(lambda r: tf.tanh(r * y), x)",
        "inputs": [("float64", [4, 3]), _V3],
    },
    "map_fn_two_elems": {
        "fn": "lambda tf, x, y: tf.map_fn(lambda e: e[0] * e[1], (x, y), fn_output_signature=tf.float64)",
        "inputs": [("float64", [4, 3]), ("float64", [4, 3])],
    },
    "scan_running_product": {
        "fn": "lambda tf, x, y: tf.scan(lambda a, r: a * r + y, x, initializer=y)",
        "inputs": [("float64", [4, 3]), _V3],
    },
    "foldl_sum_of_squares": {
        "fn": "lambda tf, x: tf.foldl(lambda a, r: a + r * r, x)",
        "inputs": [("float64", [4, 3])],
    },
    "foldr_product": {
        "fn": "lambda tf, x, y: tf.foldr(lambda a, r: a * r, x, initializer=y)",
        "inputs": [("float64", [3, 2]), ("float64", [2])],
    },
}
