"""Gradient cases through tf.function calls (format: tests/api/gradient_cases/__init__.py).

Eagerly the call is one recorded op whose backward function is the function's backward
function; inside tf.function and in v1 graphs it is a (Stateful)PartitionedCall whose gradient
rewrites the call to return the intermediates the backward function reads.
"""

CASES: dict[str, dict] = {
    "call": {
        "fn": "lambda tf, x: tf.function(lambda a: tf.tanh(a) * a)(x)",
        "inputs": [("float64", [3, 2])],
        "second_order": True,
    },
    "call_two_outputs": {
        "fn": "lambda tf, x, y: tf.function(lambda a, b: [a * b, tf.exp(a) + b])(x, y)",
        "inputs": [("float64", [4]), ("float64", [4])],
    },
    "call_one_output_used": {
        "fn": "lambda tf, x: tf.function(lambda a: (a * a, a * 3.0))(x)[1]",
        "inputs": [("float64", [2, 2])],
    },
    "nested_calls": {
        "fn": ("lambda tf, x: tf.function(lambda a: tf.function(lambda b: tf.sin(b) * b)(a * 2.0) + a)(x)"),
        "inputs": [("float64", [5])],
        "second_order": True,
    },
    "call_returning_its_input": {
        "fn": "lambda tf, x, y: tf.function(lambda a, b: [a, a * b])(x, y)",
        "inputs": [("float64", [3]), ("float64", [3])],
    },
    "call_with_matmul_and_reduction": {
        "fn": "lambda tf, x, w: tf.function(lambda a, b: tf.reduce_sum(tf.nn.relu(a @ b), axis=1))(x, w)",
        "inputs": [("float64", [4, 3]), ("float64", [3, 2])],
    },
    "call_with_integer_argument": {
        "fn": "lambda tf, x, n: tf.function(lambda a, k: a * tf.cast(k, a.dtype))(x, n)",
        "inputs": [("float32", [3]), ("int32", [3])],
    },
}
