"""AutoGraph programs run twice: by TensorFlow 2.21 (to record golden results) and by modtensor (to check them).

Each ``program_*`` takes the module to use as ``tf`` and returns JSON-able results: the
eager results of a ``tf.function`` whose Python control flow AutoGraph converts, its
tracing count, the kind of control flow its traced graph holds (``cond``/``while`` ops,
or none where a Python loop was unrolled or a Python branch chosen), printed text, and
error classes and messages. ``tools/make_golden_autograph.py`` runs them with TensorFlow
into ``tests/golden/autograph/programs.json``; ``tests/api/test_autograph_golden.py`` runs
them with ``import modtensor as tf`` and compares. Programs listed in ``TENSOR_PROGRAMS``
stage ``tf.cond``/``tf.while_loop``; the others keep all control flow in Python.

This file imports neither TensorFlow nor modtensor, and its line numbers are part of the
golden file (error frames are recorded relative to each program's first line): rerun
the generator after editing it.
"""

# ruff: noqa: SIM108 - the programs keep the statement forms AutoGraph converts

from __future__ import annotations

import contextlib
import inspect
import io
import os
from typing import Any

import numpy as np

_COND_OPS = {"If", "StatelessIf"}
_WHILE_OPS = {"While", "StatelessWhile"}


def encode(value: Any) -> Any:
    """A result as JSON: tensors as {dtype, shape, value}, containers tagged with their type."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in sorted(value.items())}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1)]
        return {"dtype": value.dtype.name, "shape": list(array.shape), "strings": flat}
    return {"dtype": value.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def control_flow(fn: Any, *args: Any) -> dict[str, int]:
    """How many cond and while ops the top level of ``fn``'s traced graph holds."""
    ops = fn.get_concrete_function(*args).graph.get_operations()
    return {
        "cond": sum(op.type in _COND_OPS for op in ops),
        "while": sum(op.type in _WHILE_OPS for op in ops),
    }


def op_count(fn: Any, op_type: str, *args: Any) -> int:
    """How many ``op_type`` ops the top level of ``fn``'s traced graph holds."""
    return sum(op.type == op_type for op in fn.get_concrete_function(*args).graph.get_operations())


def error(e: BaseException) -> dict[str, Any]:
    """An error's class and message. AutoGraph's "in user code:" listing is kept as frames relative to
    the program (file name, line offset from the program's first line, function, marker, code)."""
    text = str(e)
    if not text.startswith("in user code:"):
        return {"type": type(e).__name__, "message": text}
    lines = text.split("\n")
    frames = []
    i = 2
    while i < len(lines) and lines[i].startswith('    File "'):
        head = lines[i].strip()
        path = head.split('"')[1]
        rest = head.split('"', 2)[2]
        lineno = int(rest.split("line ")[1].split(",")[0])
        where = rest.split(", in ")[1]
        function, _, marker = where.partition("  ")
        frames.append([os.path.basename(path), lineno, function, marker, lines[i + 1].strip()])
        i += 2
    cause = "\n".join(line[4:] for line in lines[i + 1 :]).strip()
    return {"type": type(e).__name__, "frames": frames, "cause": cause}


def relative_frames(result: dict[str, Any], program: Any) -> dict[str, Any]:
    """``result`` (from ``error``) with frame line numbers made relative to ``program``'s first line."""
    first = inspect.getsourcelines(program)[1]
    for frame in result.get("frames", []):
        if frame[0] == os.path.basename(__file__):
            frame[1] -= first
    return result


def run(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` encoded, or its error."""
    try:
        return encode(fn(*args))
    except Exception as e:  # noqa: BLE001 - the error is the result
        return error(e)


# ============================================================================ Python values: nothing staged


def program_python_conditions(tf: Any) -> dict[str, Any]:
    """Python-valued conditions stay Python: the branch not taken is never traced; one trace per value."""
    traced: list[str] = []

    @tf.function
    def f(x, mode):
        if mode == "double":
            traced.append("double")
            y = x * 2
        elif mode == "square":
            traced.append("square")
            y = x * x
        else:
            traced.append("negate")
            y = -x
        return y

    x = tf.constant([1.0, 2.0])
    outputs = [encode(f(x, "double")), encode(f(x, "square")), encode(f(x, "other")), encode(f(x, "double"))]
    return {
        "outputs": outputs,
        "traced": traced,
        "count": f.experimental_get_tracing_count(),
        "control_flow": control_flow(f, x, "double"),
    }


def program_python_loops_unroll(tf: Any) -> dict[str, Any]:
    """Loops over Python values are unrolled at trace time: ``range(3)``, lists, dicts, ``while`` on ints."""

    @tf.function
    def f(x):
        for i in range(3):
            x = x * 2.0 + i
        for scale in [1.0, 10.0]:
            x = x + scale
        for key in {"a": 1, "b": 2}:
            x = x - len(key)
        k = 0
        while k < 2:
            x = x / 2.0
            k += 1
        return x

    x = tf.constant(1.0)
    return {
        "output": encode(f(x)),
        "control_flow": control_flow(f, x),
        "muls": op_count(f, "Mul", x),
        "count": f.experimental_get_tracing_count(),
    }


def program_python_break_continue_return(tf: Any) -> dict[str, Any]:
    """break, continue and return inside Python loops keep Python's meaning in a tf.function."""

    @tf.function
    def f(x, n):
        total = x
        for i in range(n):
            if i % 2 == 0:
                continue
            if i > 6:
                break
            total = total + i
        j = 0
        while True:
            j += 1
            if j == 3:
                return total * j
        return total

    return {"outputs": [encode(f(tf.constant(1), 10)), encode(f(tf.constant(5), 2))]}


def program_trace_time_print(tf: Any) -> dict[str, Any]:
    """``print`` is not converted (without Feature.BUILTIN_FUNCTIONS): it prints the symbolic tensor once, at trace."""

    @tf.function
    def f(x):
        print("value:", x)
        return x + 1

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        outputs = [encode(f(tf.constant(1))), encode(f(tf.constant(2)))]
    return {"outputs": outputs, "printed": buffer.getvalue()}


def program_nested_python_helpers(tf: Any) -> dict[str, Any]:
    """Functions, lambdas and methods called from a converted function keep Python branches on Python values."""

    def helper(v, times):
        for _ in range(times):
            v = v + 1.0
        return v

    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        def apply(self, v):
            if self.factor > 1:
                return v * self.factor
            return v

    scaler = Scaler(3.0)

    @tf.function
    def f(x):
        square = lambda v: v * v  # noqa: E731 - a lambda on purpose
        return scaler.apply(helper(square(x), 2))

    x = tf.constant(2.0)
    return {"output": encode(f(x)), "control_flow": control_flow(f, x)}


def program_len_of_tensor(tf: Any) -> dict[str, Any]:
    """``len(x)`` of a tensor with a known first dimension is a Python int: ``range(len(x))`` unrolls."""

    @tf.function
    def f(x):
        total = tf.constant(0.0)
        for i in range(len(x)):
            total = total + x[i] * i
        return total, len(x)

    x = tf.constant([1.0, 2.0, 3.0])
    return {"output": encode(f(x)), "control_flow": control_flow(f, x)}


def program_bool_of_tensor_unconverted(tf: Any) -> dict[str, Any]:
    """Without AutoGraph (autograph=False, do_not_convert), ``if`` on a tensor is an error."""

    def body(x):
        if x > 0:
            return x
        return -x

    plain = tf.function(body, autograph=False)
    marked = tf.function(tf.autograph.experimental.do_not_convert(body))
    x = tf.constant(1)
    return {"autograph_false": run(plain, x), "do_not_convert": run(marked, x)}


def program_generator_runs_unconverted(tf: Any) -> dict[str, Any]:
    """A function AutoGraph cannot convert (it defines a generator) runs as Python, with a warning only."""

    @tf.function
    def f(x):
        def gen():
            yield 1
            yield 2

        for v in gen():
            x = x + v
        return x

    return {"output": encode(f(tf.constant(1)))}


def program_user_error_frames(tf: Any) -> dict[str, Any]:
    """An error raised in converted code names the user's lines ("in user code:"), through called helpers."""

    def inner(a):
        return tf.matmul(a, a)

    def outer(a):
        return inner(a) + 1.0

    @tf.function
    def f(x):
        y = outer(x)
        return y

    @tf.function
    def g(x):
        raise KeyError("missing")

    x = tf.constant([1.0, 2.0])
    return {
        "matmul": relative_frames(run(f, x), program_user_error_frames),
        "key_error": relative_frames(run(g, x), program_user_error_frames),
    }


def program_optional_features(tf: Any) -> dict[str, Any]:
    """``Feature.ASSERT_STATEMENTS`` (assert -> tf.debugging.Assert) and ``BUILTIN_FUNCTIONS`` (print of tensors
    runs with the graph); without them both stay Python."""
    features = tf.autograph.experimental.Feature

    def f(x):
        assert x > 0, "x must be positive"
        print("x is", x, "twice", x * 2, tf.range(tf.abs(x)), tf.constant("text"), end="|\n")  # only the assert fails
        return x + 1

    converted = tf.function(f, experimental_autograph_options=(features.ASSERT_STATEMENTS, features.BUILTIN_FUNCTIONS))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        outputs = [encode(converted(tf.constant(3))), encode(converted(tf.constant(4)))]
        try:
            converted(tf.constant(-3))
            failure: Any = "no error"
        except Exception as e:  # noqa: BLE001 - the error is the result
            failure = {"type": type(e).__name__, "says": "assertion failed: [x must be positive]" in str(e)}
    plain = tf.function(f)
    plain_buffer = io.StringIO()
    with contextlib.redirect_stdout(plain_buffer):
        plain_error = run(plain, tf.constant(3))
    return {
        "outputs": outputs,
        "printed": buffer.getvalue(),
        "failure": failure,
        "plain_printed": plain_buffer.getvalue(),
        "plain_error_type": plain_error["type"] if isinstance(plain_error, dict) else plain_error,
    }


# ============================================================================ tensors: staged control flow


def program_if_on_tensor(tf: Any) -> dict[str, Any]:
    """``if``/``elif``/``else`` on a tensor is one ``tf.cond`` per condition: one trace serves every value."""

    @tf.function
    def f(x):
        if x > 10:
            y = x * 2
        elif x > 0:
            y = x + 100
        else:
            y = -x
        return y

    outputs = [encode(f(tf.constant(v))) for v in (20, 5, -3)]
    return {
        "outputs": outputs,
        "count": f.experimental_get_tracing_count(),
        "control_flow": control_flow(f, tf.constant(1)),
    }


def program_if_without_else(tf: Any) -> dict[str, Any]:
    """An ``if`` without ``else`` keeps the variable's old value when the tensor condition is false."""

    @tf.function
    def f(x):
        y = x
        if x < 0:
            y = -x
        z = y * 10
        return z

    return {"outputs": [encode(f(tf.constant(v))) for v in (-4, 4)]}


def program_while_on_tensor(tf: Any) -> dict[str, Any]:
    """``while`` on a tensor is one ``tf.while_loop`` with the changed variables as loop variables."""

    @tf.function
    def f(n):
        i = 0
        total = tf.constant(0)
        while i < n:
            i += 1
            total += i * i
        return i, total

    return {
        "outputs": [encode(f(tf.constant(v))) for v in (0, 4)],
        "count": f.experimental_get_tracing_count(),
        "control_flow": control_flow(f, tf.constant(1)),
    }


def program_for_range_tensor(tf: Any) -> dict[str, Any]:
    """``for i in tf.range(n)`` and ``for i in range(n)`` with a tensor ``n`` are staged loops."""

    @tf.function
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total += i
        product = tf.constant(1)
        for i in range(1, n):
            product *= i
        for i in tf.range(10, 0, -3):
            total += i
        return total, product

    return {
        "outputs": [encode(f(tf.constant(v))) for v in (0, 5)],
        "control_flow": control_flow(f, tf.constant(1)),
    }


def program_for_over_tensor(tf: Any) -> dict[str, Any]:
    """``for row in x`` iterates a tensor's first dimension as a staged loop."""

    @tf.function
    def f(x):
        total = tf.zeros([2])
        count = 0
        for row in x:
            total += row
            count += 1
        return total, count

    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return {"output": encode(f(x)), "control_flow": control_flow(f, x)}


def program_break_continue_on_tensor(tf: Any) -> dict[str, Any]:
    """``break`` and ``continue`` on tensor conditions inside staged loops."""

    @tf.function
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            if i > 6:
                break
            total += i
        j = tf.constant(0)
        while j < n:
            j += 1
            if j * j > 20:
                break
        return total, j

    return {"outputs": [encode(f(tf.constant(v))) for v in (3, 20)]}


def program_return_on_tensor(tf: Any) -> dict[str, Any]:
    """Early ``return`` under a tensor condition; inside a staged loop it is TF's NotImplementedError."""

    @tf.function
    def sign(x):
        if x > 0:
            return tf.constant(1)
        elif x < 0:
            return tf.constant(-1)
        else:
            return tf.constant(0)

    @tf.function
    def first_square_above(n, limit):
        for i in tf.range(n):
            if i * i > limit:
                return i
        return tf.constant(-1)

    return {
        "sign": [encode(sign(tf.constant(v))) for v in (5, -5, 0)],
        "loop": relative_frames(run(first_square_above, tf.constant(10), tf.constant(10)), program_return_on_tensor),
    }


def program_conditional_and_logical_expressions(tf: Any) -> dict[str, Any]:
    """``a if t else b``, ``and``, ``or``, ``not`` on tensors."""

    @tf.function
    def f(x):
        magnitude = x if x > 0 else -x
        inside = (x > -5) and (x < 5)
        outside = (x < -5) or (x > 5)
        return magnitude, inside, outside, not (x > 0)

    return {"outputs": [encode(f(tf.constant(v))) for v in (3, -7)]}


def program_loop_defines_variable(tf: Any) -> dict[str, Any]:
    """A variable first assigned inside a staged loop, used after it (AutoGraph gives it a placeholder value);
    with zero iterations the graph's assertion fails."""

    @tf.function
    def f(n):
        for i in tf.range(n):
            last = i * 10
        return last

    try:
        f(tf.constant(0))
        zero: Any = "no error"
    except Exception as e:  # noqa: BLE001 - the error is the result
        says = "assertion failed: [loop must iterate at least once to initialize last]" in str(e)
        zero = {"type": type(e).__name__, "says": says}
    return {"outputs": [encode(f(tf.constant(4)))], "zero_iterations": zero}


def program_nested_staged_loops(tf: Any) -> dict[str, Any]:
    """A tensor ``if`` inside a ``while`` inside a ``for`` over ``tf.range``."""

    @tf.function
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            j = tf.constant(0)
            while j < i:
                if (i + j) % 2 == 0:
                    total += i * j
                j += 1
        return total

    return {"outputs": [encode(f(tf.constant(v))) for v in (1, 5)]}


def program_loop_shape_invariants(tf: Any) -> dict[str, Any]:
    """A loop variable whose shape grows needs ``set_loop_options(shape_invariants=...)``."""

    @tf.function
    def grows(x):
        while tf.shape(x)[0] < 8:
            x = tf.concat([x, x], 0)
        return x

    @tf.function
    def declared(x):
        while tf.shape(x)[0] < 8:
            tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x], 0)
        return x

    x = tf.constant([1, 2])
    return {"without": relative_frames(run(grows, x), program_loop_shape_invariants), "with": run(declared, x)}


def program_staging_errors(tf: Any) -> dict[str, Any]:
    """AutoGraph's errors for what a staged ``if`` or loop cannot express, with TF's texts."""

    def only_in_main(x):
        if x > 0:
            y = x
        return y

    def dtype_differs(x):
        if x > 0:
            y = 1
        else:
            y = 1.0
        return y

    def return_in_one_branch(x):
        if x > 0:
            return x

    def loop_dtype_changes(x):
        while x > 0:
            x = 1.0
        return x

    def non_bool_condition(x):
        if x:
            x = x + 1
        return x

    def ifexp_dtypes(x):
        return x if x > 0 else 1.0

    def none_before_loop(n):
        y = None
        for i in tf.range(n):
            y = i
        return y

    def tensor_break_in_python_loop(x):
        for i in range(3):
            if x > i:
                break
        return x

    x = tf.constant(1)
    results = {}
    for fn in (
        only_in_main,
        dtype_differs,
        return_in_one_branch,
        loop_dtype_changes,
        non_bool_condition,
        ifexp_dtypes,
        none_before_loop,
        tensor_break_in_python_loop,
    ):
        results[fn.__name__] = relative_frames(run(tf.function(fn), x), program_staging_errors)
    return results


def program_method_and_attribute_state(tf: Any) -> dict[str, Any]:
    """Methods are converted too; a tensor loop may update an object attribute."""

    class Counter:
        def __init__(self):
            self.total = tf.constant(0)

        @tf.function
        def count(self, n):
            self.total = tf.constant(0)
            for i in tf.range(n):
                self.total += i
            return self.total

    counter = Counter()
    return {"output": encode(counter.count(tf.constant(5))), "attribute": encode(counter.total.dtype.name)}


def program_dataset_for(tf: Any) -> dict[str, Any]:
    """``for x in dataset`` is staged with the dataset's own ops (scan and reduce), the loop variables as state."""

    @tf.function
    def total(ds):
        s = tf.constant(0, tf.int64)
        count = 0
        for x in ds:
            s += x * x
            count += 1
        return s, count

    ds = tf.data.Dataset.range(6)
    return {"output": encode(total(ds)), "empty": encode(total(ds.take(0)))}


def program_dataset_break_iterator_builtins(tf: Any) -> dict[str, Any]:
    """``break`` in a loop over a dataset, a loop over an iterator, ``len``/``any``/``all``/``enumerate`` of
    datasets."""

    @tf.function
    def with_break(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            if x > 5:
                break
            s += x
        return s

    @tf.function
    def over_iterator(ds):
        s = tf.constant(0, tf.int64)
        for x in iter(ds):
            s += x * 2
        return s

    @tf.function
    def builtins(ds):
        weighted = tf.constant(0, tf.int64)
        for i, x in enumerate(ds):
            weighted += i * x
        return len(ds), any(ds.map(lambda v: v > 8)), all(ds.map(lambda v: v >= 0)), weighted

    ds = tf.data.Dataset.range(10)
    return {
        "with_break": encode(with_break(ds)),
        "over_iterator": encode(over_iterator(ds)),
        "builtins": encode(builtins(ds)),
    }


PROGRAMS = {name[len("program_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("program_")}

# The programs that stage tf.cond / tf.while_loop (the others need no staged control flow).
TENSOR_PROGRAMS = {
    "if_on_tensor",
    "if_without_else",
    "while_on_tensor",
    "for_range_tensor",
    "for_over_tensor",
    "break_continue_on_tensor",
    "return_on_tensor",
    "conditional_and_logical_expressions",
    "loop_defines_variable",
    "nested_staged_loops",
    "loop_shape_invariants",
    "staging_errors",
    "method_and_attribute_state",
    "dataset_break_iterator_builtins",
}
