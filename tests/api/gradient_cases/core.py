"""Gradient cases of the core machinery: arithmetic with broadcasting, matmul, reductions, variables."""

CASES = {
    "add_broadcast": {"fn": "lambda tf, x, y: x + y", "inputs": [("float32", [2, 3]), ("float32", [3])]},
    "sub_broadcast_rows": {"fn": "lambda tf, x, y: x - y", "inputs": [("float32", [2, 1]), ("float32", [1, 3])]},
    "mul_scalar": {"fn": "lambda tf, x, y: x * y", "inputs": [("float32", [3, 2]), ("float32", [])]},
    "mul_chain_f64": {"fn": "lambda tf, x, y: x * y * x", "inputs": [("float64", [4]), ("float64", [4])]},
    "realdiv": {
        "fn": "lambda tf, x, y: x / y",
        "inputs": [("float64", [2, 3]), ("float64", [3])],
        "positive": [1],
    },
    "neg_square": {"fn": "lambda tf, x: -tf.square(x)", "inputs": [("float64", [5])], "second_order": True},
    "exp_log": {"fn": "lambda tf, x: tf.math.log(tf.exp(x) + 1.0)", "inputs": [("float64", [3, 2])]},
    "matmul": {"fn": "lambda tf, a, b: tf.matmul(a, b)", "inputs": [("float64", [3, 4]), ("float64", [4, 2])]},
    "matmul_transposed": {
        "fn": "lambda tf, a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True)",
        "inputs": [("float32", [4, 3]), ("float32", [2, 4])],
    },
    "reduce_sum_axis": {"fn": "lambda tf, x: tf.reduce_sum(x, axis=1)", "inputs": [("float64", [2, 3, 4])]},
    "reduce_sum_keepdims": {
        "fn": "lambda tf, x: tf.reduce_sum(x, axis=[0, 2], keepdims=True)",
        "inputs": [("float64", [2, 3, 4])],
    },
    "reduce_mean_all": {"fn": "lambda tf, x: tf.reduce_mean(x)", "inputs": [("float64", [3, 5])]},
    "reshape": {"fn": "lambda tf, x: tf.reshape(x, [3, 4]) * 2.0", "inputs": [("float64", [2, 6])]},
    "cast_f32_f64": {
        "fn": "lambda tf, x: tf.cast(x, tf.float64) * 3.0",
        "inputs": [("float32", [4])],
        "numeric": False,
    },
    "add_n": {"fn": "lambda tf, x, y: tf.add_n([x, y, x])", "inputs": [("float64", [2, 2]), ("float64", [2, 2])]},
    "identity_two_outputs": {
        "fn": "lambda tf, x: [tf.identity(x) * 2.0, x * x]",
        "inputs": [("float64", [3])],
    },
    "unconnected": {"fn": "lambda tf, x, y: x * 2.0", "inputs": [("float32", [2]), ("float32", [2])]},
    "mlp_layer": {
        "fn": "lambda tf, x, w, b: tf.tanh(tf.matmul(x, w) + b)",
        "inputs": [("float64", [4, 3]), ("float64", [3, 2]), ("float64", [2])],
    },
}
