"""GradientTape / tf.gradients / custom_gradient programs, run by TensorFlow (golden) and by modtensor (tests).

Each ``program_*`` takes the module to use as ``tf`` and returns JSON-able results: gradient
values, None-ness, structures, watched variables, error classes and messages.
``tools/make_golden_program_corpus.py gradient_tape`` records them with TensorFlow 2.21 into
``tests/golden/gradients/tape_programs.json``; ``tests/api/test_gradient_tape.py`` runs them
with ``import modtensor as tf`` and compares. This file imports neither.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

_spec = importlib.util.spec_from_file_location("function_programs", Path(__file__).with_name("function_programs.py"))
_helpers = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_helpers)  # type: ignore[union-attr]
encode = _helpers.encode


def error(e: BaseException) -> dict[str, str]:
    """An error's class and first message line."""
    return {"type": type(e).__name__, "line": str(e).splitlines()[0] if str(e) else ""}


def _attempt(fn: Any) -> Any:
    try:
        return {"value": encode(fn())}
    except Exception as e:  # noqa: BLE001 - the error is the recorded result
        return {"error": error(e)}


def _attempt_type(fn: Any) -> Any:
    """Only the error's class: TF's text there comes from its internals (modtensor says what went wrong)."""
    try:
        return {"value": encode(fn())}
    except Exception as e:  # noqa: BLE001 - the error is the recorded result
        return {"error": type(e).__name__}


def _dense(tf: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, tf.IndexedSlices):
        return {"indexed_slices": [encode(value.indices), encode(value.values), encode(value.dense_shape)]}
    return value


# ============================================================================ GradientTape


def program_basics(tf: Any) -> dict[str, Any]:
    """watch, gradients of a list and a dict of sources, None for unconnected, zeros on request."""
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant(4.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(y)
        z = tf.reduce_sum(x * x) * y
        unused = x * 2.0
    out = {
        "list": encode(tape.gradient(z, [x, y])),
        "dict": encode(tape.gradient(z, {"a": x, "b": y})),
        "nested": encode(tape.gradient(z, [(x,), {"y": y}])),
        "unconnected_none": encode(tape.gradient(unused, y)),
        "unconnected_zero": encode(tape.gradient(unused, y, unconnected_gradients=tf.UnconnectedGradients.ZERO)),
        "unconnected_zero_str": encode(tape.gradient(unused, y, unconnected_gradients="zero")),
        "target_list": encode(tape.gradient([z, unused], x)),
        "output_gradients": encode(tape.gradient(unused, x, output_gradients=tf.constant([1.0, 0.0, -1.0]))),
        "self": encode(tape.gradient(x, x)),
    }
    del tape
    return out


def program_not_watched(tf: Any) -> dict[str, Any]:
    """Constants are not watched; an int tensor is never differentiated."""
    x = tf.constant(3.0)
    i = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(i)
        y = x * x
        k = i * 2
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y2 = tf.cast(x, tf.int32) * 2
    return {
        "constant": encode(tape.gradient(y, x)),
        "int": encode(tf.GradientTape().__class__.__name__),
        "int_grad": _attempt(lambda: tape2.gradient(y2, x)),
        "k": encode(k),
    }


def program_non_persistent_twice(tf: Any) -> dict[str, Any]:
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    first = tape.gradient(y, x)
    return {"first": encode(first), "second": _attempt(lambda: tape.gradient(y, x))}


def program_persistent(tf: Any) -> dict[str, Any]:
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    return {"dz_dx": encode(tape.gradient(z, x)), "dy_dx": encode(tape.gradient(y, x))}


def program_nested_higher_order(tf: Any) -> dict[str, Any]:
    """Second and third derivatives of x^3 through nested tapes."""
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    return {"dy": encode(dy), "d2y": encode(d2y), "d3y": encode(d3y)}


def program_gradient_inside_context(tf: Any) -> dict[str, Any]:
    """A non-persistent tape stops recording when gradient() is called inside its block."""
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        after = _attempt_type(lambda: tape.watch(x))
    return {"g": encode(g), "after": after}


def program_stop_recording(tf: Any) -> dict[str, Any]:
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * 3.0
        w = y * 5.0
    out = {"z_dx": None, "w_dx": None}
    grads = tape.gradient([z, w], x)
    out["sum"] = encode(grads)
    tape2 = tf.GradientTape()
    out["not_recording"] = _attempt(lambda: tape2.stop_recording().__enter__())
    return out


def program_reset(tf: Any) -> dict[str, Any]:
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
        tape.reset()
        tape.watch(x)
        z = x * 7.0
    return {"z": encode(tape.gradient(z, x))}


def program_reenter(tf: Any) -> dict[str, Any]:
    tape = tf.GradientTape()

    def reenter() -> Any:
        with tape, tape:
            pass

    return {"error": _attempt(reenter)}


def program_variables(tf: Any) -> dict[str, Any]:
    """Trainable variables are watched when read; non-trainable ones and watch_accessed_variables=False are not."""
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(3.0, name="w", trainable=False)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v) * w
    out = {"grads": encode(tape.gradient(y, [v, w])), "watched": [x.name for x in tape.watched_variables()]}
    with tf.GradientTape(watch_accessed_variables=False) as tape2:
        y2 = tf.reduce_sum(v * 3.0)
    out["not_watched"] = encode(tape2.gradient(y2, v))
    with tf.GradientTape(watch_accessed_variables=False) as tape3:
        tape3.watch(v)
        y3 = tf.reduce_sum(v * 3.0)
    out["explicit"] = encode(tape3.gradient(y3, v))
    out["watched3"] = [x.name for x in tape3.watched_variables()]
    with tf.GradientTape() as tape4:
        y4 = v.assign_add([1.0, 1.0])
        z4 = tf.reduce_sum(y4 * 2.0)
    out["after_assign"] = encode(tape4.gradient(z4, v))
    return out


def program_sparse_read(tf: Any) -> dict[str, Any]:
    """A gather of a variable gives IndexedSlices; repeated indices stay separate rows."""
    emb = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as tape:
        rows = tf.gather(emb, [0, 2, 2])
        loss = tf.reduce_sum(rows * 2.0)
    g = tape.gradient(loss, emb)
    return {"type": type(g).__name__, "dense": encode(tf.convert_to_tensor(g)), "parts": _dense(tf, g)}


def program_jacobian(tf: Any) -> dict[str, Any]:
    x = tf.constant([1.0, 2.0, 3.0])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tf.tanh(tf.reshape(x, [1, 3]) @ w)
        z = x * x
    return {
        "jac_x": encode(tape.jacobian(y, x)),
        "jac_w": encode(tape.jacobian(y, w)),
        "jac_z": encode(tape.jacobian(z, [x, w], unconnected_gradients="zero")),
        "jac_none": encode(tape.jacobian(z, w)),
    }


def program_batch_jacobian(tf: Any) -> dict[str, Any]:
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x[:, 0] * x[:, 1], x[:, 0] + x[:, 1], x[:, 1] * x[:, 1]], axis=1)
    return {"bj": encode(tape.batch_jacobian(y, x))}


def program_in_function(tf: Any) -> dict[str, Any]:
    """A tape inside tf.function, with a captured variable and a watched argument."""
    v = tf.Variable(2.0)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = v * x * x
        dx, dv = tape.gradient(y, [x, v])
        return dx, dv

    return {"grads": encode(step(tf.constant(3.0)))}


def program_function_called_under_tape(tf: Any) -> dict[str, Any]:
    """An eager tape differentiates through a tf.function call (and a nested one), to arguments and captures."""
    v = tf.Variable([1.0, -1.0])

    @tf.function
    def inner(x):
        return tf.tanh(x * v)

    @tf.function
    def outer(x):
        return tf.reduce_sum(inner(x) * x)

    x = tf.constant([0.5, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = outer(x)
        z = inner(x)
    return {"y": encode(tape.gradient(y, [x, v])), "z": encode(tape.gradient(z, [x, v]))}


def program_second_order_through_function(tf: Any) -> dict[str, Any]:
    @tf.function
    def f(x):
        return x * x * x

    x = tf.constant(1.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    return {"dy": encode(dy), "d2y": encode(outer.gradient(dy, x))}


def program_errors(tf: Any) -> dict[str, Any]:
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    return {
        "none_target": _attempt(lambda: tape.gradient(None, x)),
        "bad_source": _attempt_type(lambda: tape.gradient(y, "x")),
        "bad_unconnected": _attempt(lambda: tape.gradient(y, x, unconnected_gradients="maybe")),
        "watch_string": _attempt(lambda: tape.watch("x")),
    }


def program_stop_gradient(tf: Any) -> dict[str, Any]:
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stop_gradient(x * x) * x
    return {"g": encode(tape.gradient(y, x))}


def program_no_gradient_op(tf: Any) -> dict[str, Any]:
    """An op without a gradient is TF's LookupError when a gradient must flow through it."""

    @tf.function
    def f(x):
        return tf.gradients(tf.raw_ops.Unique(x=x).y, x)

    return {"error": _attempt(lambda: f(tf.constant([1.0, 2.0])))}


# ============================================================================ tf.gradients


def program_tf_gradients_graph(tf: Any) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        w = tf.constant([[1.0], [2.0]])
        y = tf.reduce_sum(tf.matmul(x, w) ** 2)
        gx, gw = tf.compat.v1.gradients(y, [x, w])
        stopped = tf.compat.v1.gradients(y, [x], stop_gradients=[x])
        unconnected = tf.compat.v1.gradients(w * 2.0, [x])
        zero = tf.compat.v1.gradients(w * 2.0, [x], unconnected_gradients="zero")
        with tf.compat.v1.Session(graph=graph) as sess:
            feed = {x: [[1.0, 2.0], [3.0, 4.0]]}
            values = sess.run([gx, gw, stopped[0], zero[0]], feed)
    return {
        "gx": encode(values[0]),
        "gw": encode(values[1]),
        "stopped": encode(values[2]),
        "unconnected": [u is None for u in unconnected],
        "zero": encode(values[3]),
        "eager": _attempt(lambda: tf.gradients(tf.constant(1.0), tf.constant(2.0))),
    }


def program_tf_gradients_in_function(tf: Any) -> dict[str, Any]:
    @tf.function
    def f(x):
        y = tf.reduce_sum(tf.exp(x) * x)
        (g,) = tf.gradients(y, [x])
        (h,) = tf.gradients(g, [x])
        return g, h

    return {"gh": encode(f(tf.constant([0.0, 1.0])))}


def program_hessians(tf: Any) -> dict[str, Any]:
    @tf.function
    def f(x):
        return tf.hessians(tf.reduce_sum(x * x * x), x)

    return {"h": encode(f(tf.constant([1.0, 2.0])))}


# ============================================================================ custom_gradient, RegisterGradient


def program_custom_gradient(tf: Any) -> dict[str, Any]:
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)

        return x * 1.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clip_grad(x) * 5.0)
    eager = tape.gradient(y, x)

    @tf.function
    def in_graph(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(clip_grad(x) * 5.0)
        g1 = tape.gradient(y, x)
        g2 = tf.gradients(tf.reduce_sum(clip_grad(x) * 5.0), x)[0]
        return g1, g2

    return {"eager": encode(eager), "graph": encode(in_graph(x))}


def program_custom_gradient_variables(tf: Any) -> dict[str, Any]:
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * v, [tf.reduce_sum(dy * x) * 10.0]

        return x * v, grad

    @tf.custom_gradient
    def missing_variables(x):
        def grad(dy):
            return dy

        return x * v, grad

    x = tf.constant([1.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(scaled(x))
    out = {"eager": encode(tape.gradient(y, [x, v]))}

    def bad() -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            missing_variables(x)

    out["missing"] = _attempt(bad)
    return out


def program_register_gradient(tf: Any) -> dict[str, Any]:
    """A gradient override: RegisterGradient + gradient_override_map in a v1 graph."""
    name = "TimesTenGrad_tape_programs"
    try:

        @tf.RegisterGradient(name)
        def _times_ten(op, grad):
            return grad * 10.0

    except KeyError:
        pass
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant([1.0, 2.0])
        with graph.gradient_override_map({"Identity": name}):
            y = tf.identity(x)
        (g,) = tf.compat.v1.gradients(tf.reduce_sum(y * y), x)
        with tf.compat.v1.Session(graph=graph) as sess:
            value = sess.run(g)
    try:
        tf.RegisterGradient(name)(lambda op, grad: grad)
        again = None
    except KeyError as e:  # TF's text then names the file of the first registration
        again = str(e).split("!")[0]
    return {"g": encode(value), "again": again}


PROGRAMS = {name[len("program_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("program_")}
