"""Graph-mode per-op overhead: a chain of 1000 small ops on 10 floats, run as one graph.

The same chain (AddV2, Mul, Relu in turn, each on a 10-float vector) is built with
the TensorFlow API, so the identical builder runs with ``modtensor`` and with
``tensorflow``; it runs through ``compat.v1.Session.run`` and through a traced
``function``, against NumPy applying the same 1000 ufuncs. Times are per op
(call time / 1000): the executor's cost per node over the kernel itself.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

CHAIN = 1000
WIDTH = 10
BENCHMARK = f"graph overhead ({CHAIN}-op chain, {WIDTH} floats)"


def build_chain(tf: ModuleType, x: Any) -> Any:
    """The chain with ``tf``'s ops (TensorFlow's or modtensor's API): add, multiply, relu, repeated."""
    c = tf.constant(np.full([WIDTH], 1.0001, np.float32))
    for i in range(CHAIN):
        step = i % 3
        if step == 0:
            x = tf.add(x, c)
        elif step == 1:
            x = tf.multiply(x, c)
        else:
            x = tf.nn.relu(x)
    return x


def numpy_chain(x: np.ndarray) -> np.ndarray:
    """The same chain as NumPy calls."""
    c = np.full([WIDTH], 1.0001, np.float32)
    for i in range(CHAIN):
        step = i % 3
        if step == 0:
            x = np.add(x, c)
        elif step == 1:
            x = np.multiply(x, c)
        else:
            x = np.maximum(x, 0)
    return x


def _session_runner(tf: ModuleType, value: np.ndarray) -> tuple[Any, Any]:
    """A Session over a v1 graph holding the chain, and the call that runs it once."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [WIDTH], name="x")
        y = build_chain(tf, x)
    session = tf.compat.v1.Session(graph=graph)
    return session, lambda: session.run(y, feed_dict={x: value})


def _function_runner(tf: ModuleType, value: np.ndarray) -> Any:
    chain = tf.function(lambda x: build_chain(tf, x))
    x = tf.constant(value)
    return lambda: chain(x)


def run(env: Environment) -> list[Row]:
    """Rows for Session.run and function calls, per op, against NumPy and (when installed) TensorFlow."""
    import modtensor

    value = np.linspace(-1.0, 1.0, WIDTH, dtype=np.float32)
    expected = numpy_chain(value)
    tf = env.tensorflow
    sessions = []
    mt_session, mt_run = _session_runner(modtensor, value)
    sessions.append(mt_session)
    mt_call = _function_runner(modtensor, value)
    np.testing.assert_allclose(mt_run(), expected, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(mt_call()), expected, rtol=1e-5)
    tf_run = tf_call = None
    if tf is not None:
        tf_session, tf_run = _session_runner(tf, value)
        sessions.append(tf_session)
        tf_call = _function_runner(tf, value)
    times = measure_interleaved(
        {
            "numpy": lambda: numpy_chain(value),
            "session": mt_run,
            "function": mt_call,
            "tf_session": tf_run,
            "tf_function": tf_call,
        },
        repeats=env.repeats,
    )
    for session in sessions:
        session.close()
    note = "per op = one call / 1000; NumPy: the same 1000 ufunc calls"
    return [
        Row(BENCHMARK, "Session.run, per op", times["session"], times["numpy"], times["tf_session"], CHAIN, note),
        Row(BENCHMARK, "function call, per op", times["function"], times["numpy"], times["tf_function"], CHAIN, note),
    ]
