"""``tf.function`` programs run twice: by TensorFlow (to record golden results) and by modtensor (to check them).

Each ``program_*`` takes the module to use as ``tf`` and returns JSON-able results:
outputs (dtype, shape, values, nested structure), tracing counts, static shapes seen
while tracing, and error classes and messages. ``tools/make_golden_function.py``
runs them with TensorFlow 2.21 into ``tests/golden/function/programs.json``;
``tests/api/test_function.py`` runs them with ``import modtensor as tf`` and compares.
This file imports neither.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

Pair = collections.namedtuple("Pair", ["first", "second"])


def encode(value: Any) -> Any:
    """A result as JSON: tensors as {dtype, shape, value}, containers tagged with their type."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in sorted(value.items())}}
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return {"namedtuple": [type(value).__name__, [encode(v) for v in value]]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1)]
        return {"dtype": value.dtype.name, "shape": list(array.shape), "strings": flat}
    return {"dtype": value.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def static_shape(tensor: Any) -> list[int | None] | None:
    """A symbolic tensor's static shape as a list (None for unknown rank)."""
    shape = tensor.shape
    return None if shape.rank is None else list(shape.as_list())


def error(e: BaseException) -> dict[str, str]:
    return {"type": type(e).__name__, "message": str(e)}


def core_value_error(e: BaseException) -> dict[str, str]:
    """A trace-time error with TF's AutoGraph "in user code" frame text stripped: class and the op's message."""
    message = str(e).split("ValueError: ")[-1].strip()
    return {"type": type(e).__name__, "message": message}


def kernel_error_line(e: BaseException, marker: str) -> dict[str, str]:
    """A runtime kernel error: class and the message line that holds ``marker``."""
    line = next((line.strip() for line in str(e).splitlines() if marker in line), str(e))
    return {"type": type(e).__name__, "line": line}


# ============================================================================ programs


def program_retracing(tf: Any) -> dict[str, Any]:
    """One trace per (dtype, shape) of tensor arguments and per value of Python arguments."""
    traced: list[Any] = []

    @tf.function
    def f(x, n=1):
        traced.append(static_shape(x) if hasattr(x, "shape") and not isinstance(x, float) else repr(x))
        return x * n

    calls = [
        ((tf.constant([1.0, 2.0]),), {}),
        ((tf.constant([3.0, 4.0]),), {}),
        ((tf.constant([1.0, 2.0, 3.0]),), {}),
        ((tf.constant([1, 2]),), {}),
        ((tf.constant([1.0, 2.0]), 2), {}),
        ((tf.constant([1.0, 2.0]),), {"n": 2}),
        ((np.array([5.0, 6.0], np.float32),), {}),
        ((np.array([5.0, 6.0]),), {}),
        ((np.float32(3.0),), {}),
        ((np.array(4.0, np.float32),), {}),
        ((1.5,), {}),
        ((2.5,), {}),
        ((1.5,), {}),
        ((), {"x": tf.constant([7.0, 8.0]), "n": 1}),
    ]
    counts = []
    outputs = []
    for args, kwargs in calls:
        outputs.append(encode(f(*args, **kwargs)))
        counts.append(f.experimental_get_tracing_count())
    return {"counts": counts, "outputs": outputs, "traced": traced}


def program_input_signature(tf: Any) -> dict[str, Any]:
    """input_signature with a None dimension: one trace, static shapes inside show None."""
    seen: list[Any] = []

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def g(x):
        seen.append(static_shape(x))
        y = tf.matmul(x, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        seen.append(static_shape(y))
        return {"y": y, "rows": tf.shape(x)[0], "total": tf.reduce_sum(y)}

    outputs = [
        encode(g(tf.ones([3, 2]))),
        encode(g(tf.constant([[1.0, -1.0]]))),
        encode(g(np.full([2, 2], 0.5))),
        encode(g([[1.0, 2.0]])),
    ]
    cf = g.get_concrete_function()
    return {
        "count": g.experimental_get_tracing_count(),
        "seen": seen,
        "outputs": outputs,
        "concrete_inputs": [static_shape(t) for t in cf.inputs],
        "concrete_outputs": [static_shape(t) for t in cf.outputs],
        "concrete_call": encode(cf(tf.ones([4, 2]))),
    }


def program_nested(tf: Any) -> dict[str, Any]:
    """Nested arguments and results: lists, tuples, dicts, namedtuples, None, Python constants."""

    @tf.function
    def f(xs, d, pair):
        total = xs[0] + xs[1] * d["scale"]
        return {
            "sum": total,
            "parts": (xs[0], [d["scale"], None]),
            "pair": Pair(pair.first * 2.0, pair.second),
            "const": 3,
            "text": "s",
        }

    a = tf.constant([1.0, 2.0])
    b = tf.constant([10.0, 20.0])
    out1 = f([a, b], {"scale": tf.constant(2.0)}, Pair(tf.constant(1.5), tf.constant([1, 2, 3])))
    out2 = f([b, a], {"scale": tf.constant(0.5)}, Pair(tf.constant(-1.0), tf.constant([4, 5, 6])))
    count_same = f.experimental_get_tracing_count()
    f([a, b, a][:2], {"scale": tf.constant(1.0)}, Pair(tf.constant(1.0), tf.constant([1])))
    cf = f.get_concrete_function([a, b], {"scale": tf.constant(2.0)}, Pair(tf.constant(1.5), tf.constant([1, 2, 3])))
    return {
        "outputs": [encode(out1), encode(out2)],
        "count_same_structure": count_same,
        "count_after_new_shape": f.experimental_get_tracing_count(),
        "num_inputs": len(cf.inputs),
        "num_outputs": len(cf.outputs),
        "output_names": [t.name for t in cf.outputs],
        "input_names": [t.name for t in cf.inputs],
    }


def program_captures(tf: Any) -> dict[str, Any]:
    """Eager tensors from the enclosing scope are captured at trace time and fed on every call."""
    scale = tf.constant([10.0, 20.0])
    offset = tf.constant(1.0)

    @tf.function
    def f(x):
        return x * scale + offset

    first = f(tf.constant([1.0, 2.0]))
    second = f(tf.constant([3.0, 4.0]))
    cf = f.get_concrete_function(tf.constant([1.0, 2.0]))
    scale = tf.constant([100.0, 200.0])  # rebinding after the trace: the trace keeps the tensor it captured
    third = f(tf.constant([1.0, 2.0]))
    return {
        "outputs": [encode(first), encode(second), encode(third)],
        "count": f.experimental_get_tracing_count(),
        "num_inputs": len(cf.inputs),
        "captured": [encode(t) for t in cf.captured_inputs],
    }


def program_side_effects(tf: Any) -> dict[str, Any]:
    """Python code runs only while tracing; the graph runs on every call."""
    log: list[str] = []

    @tf.function
    def f(x, tag):
        log.append(f"trace {tag}")
        if tag == "double":  # Python control flow on a Python argument: decided at trace time
            return x * 2.0
        return x + 1.0

    values = []
    for tag in ["double", "double", "plus", "double", "plus"]:
        values.append(encode(f(tf.constant([1.0, 2.0]), tag)))
    return {"log": log, "values": values, "count": f.experimental_get_tracing_count()}


def program_reduce_retracing(tf: Any) -> dict[str, Any]:
    """reduce_retracing: after a second shape, one shape-generic trace serves the rest."""
    seen: list[Any] = []

    @tf.function(reduce_retracing=True)
    def f(x):
        seen.append(static_shape(x))
        return tf.reduce_sum(x)

    values = [encode(f(tf.ones(shape))) for shape in ([2], [3], [4], [2, 2], [3, 3], [5])]
    return {"seen": seen, "values": values, "count": f.experimental_get_tracing_count()}


def program_calls_and_methods(tf: Any) -> dict[str, Any]:
    """Functions calling functions (the inner one traces once per signature) and methods (per instance)."""

    @tf.function
    def inner(x):
        return x * 2.0

    @tf.function
    def outer(x):
        return inner(x) + inner(x + 1.0)

    class Model:
        def __init__(self, w):
            self.w = tf.constant(w)

        @tf.function
        def __call__(self, x):
            return tf.matmul(x, self.w)

    m1 = Model([[1.0], [2.0]])
    m2 = Model([[3.0], [4.0]])
    x = tf.constant([[1.0, 1.0]])
    values = [encode(outer(tf.constant(1.0))), encode(outer(tf.constant([1.0, 5.0]))), encode(m1(x)), encode(m2(x))]
    m1(tf.constant([[2.0, 2.0]]))
    return {
        "values": values,
        "inner_count": inner.experimental_get_tracing_count(),
        "outer_count": outer.experimental_get_tracing_count(),
        "m1_count": m1.__call__.experimental_get_tracing_count(),
        "m2_count": m2.__call__.experimental_get_tracing_count(),
        "class_count": Model.__call__.experimental_get_tracing_count(),
    }


def program_binding_errors(tf: Any) -> dict[str, Any]:
    """Arguments that do not fit: TF's "Binding inputs to tf.function failed" TypeErrors."""

    @tf.function
    def f(x, n=1):
        return x * n

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32, name="count")])
    def g(x, n):
        return x * tf.cast(n, tf.float32)

    @tf.function(input_signature=[[tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32)]])
    def h(xs):
        return xs[0] + xs[1]

    results = {}
    cases = {
        "missing": (f, (), {}),
        "too_many": (f, (1.0, 2, 3), {}),
        "unexpected_keyword": (f, (1.0,), {"z": 1}),
        "signature_missing": (g, ([[1.0, 2.0]],), {}),
        "signature_shape": (g, (tf.ones([3, 3]), 1), {}),
        "signature_dtype": (g, (tf.ones([3, 2], tf.int32), 1), {}),
        "signature_convert": (g, (np.ones([1, 2], np.float32), 2.5), {}),
        "signature_scalar_shape": (g, (1.0, 1), {}),
        "signature_list": (h, (tf.ones([2]),), {}),
    }
    for name, (fn, args, kwargs) in cases.items():
        try:
            fn(*args, **kwargs)
            results[name] = None
        except TypeError as e:
            results[name] = error(e)
    results["signature_numpy_converts"] = encode(g(np.ones([1, 2]), np.int64(3)))
    results["signature_nested_ok"] = encode(h([tf.ones([2]), np.ones([2], np.float32)]))
    return results


def program_trace_and_run_errors(tf: Any) -> dict[str, Any]:
    """Shape errors surface while tracing (ValueError); errors only the kernel can see are OpErrors at run time."""

    @tf.function
    def static(x, y):
        return tf.matmul(x, y)

    @tf.function(input_signature=[tf.TensorSpec([None, None]), tf.TensorSpec([None, None])])
    def dynamic(x, y):
        return tf.matmul(x, y)

    @tf.function
    def mixed(x, y):
        return x + y

    results: dict[str, Any] = {}
    try:
        static(tf.ones([2, 3]), tf.ones([4, 5]))
    except ValueError as e:
        results["trace_shape"] = core_value_error(e)
    results["trace_shape_count"] = static.experimental_get_tracing_count()
    try:
        dynamic(tf.ones([2, 3]), tf.ones([4, 5]))
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        results["run_shape"] = kernel_error_line(e, "Matrix size-incompatible")
    results["run_ok_after_error"] = encode(dynamic(tf.ones([2, 3]), tf.ones([3, 1])))
    try:
        mixed(tf.constant([1.0]), tf.constant([1]))
    except (TypeError, ValueError) as e:
        results["trace_dtype"] = {"type": type(e).__name__, "message": str(e).split("Error: ")[-1].strip()}
    return results




def program_random_seeds(tf: Any) -> dict[str, Any]:
    """Random ops in a function: TF's numbers for a global seed and an op seed, a new draw on every call."""
    tf.random.set_seed(1234)

    @tf.function
    def f():
        return tf.random.uniform([3], seed=7), tf.random.normal([2], seed=3)

    try:
        first = f()
        second = f()
    finally:
        tf.random.set_seed(None)  # leave no global seed behind for other programs
    return {"first": encode(first), "second": encode(second)}


PROGRAMS = {name[len("program_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("program_")}
