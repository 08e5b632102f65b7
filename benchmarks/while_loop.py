"""``tf.while_loop`` of 10,000 small iterations side by side with TensorFlow: time per iteration.

The loop ``i < n; (i + 1, acc * 0.999 + 1.0)`` over a float32 scalar accumulator, built by the
same Python code with ``import modtensor as tf`` and with TensorFlow, and run:

* in ``tf.function`` (TF 2: a ``StatelessWhile`` that both lower to v1 control flow before running);
* in a v1 ``Session`` (TF 2.21's default there is control flow v2 too: the same While node, lowered);
* modtensor's functional path: the same Session graph with lowering off
  (``ConfigProto.experimental.disable_functional_ops_lowering``), so the While kernel runs the cond
  and body functions through the function library runtime (TF's column: TF with the same option).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

ITERATIONS = 10_000


def _loop(tf: Any, n: Any) -> Any:
    return tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 0.999 + 1.0), [0, tf.constant(0.0)])


def _function(tf: Any) -> Any:
    fn = tf.function(lambda n: _loop(tf, n))
    n = tf.constant(ITERATIONS)
    return lambda: fn(n)


def _session(tf: Any, lower: bool) -> tuple[Any, Any]:
    graph = tf.Graph()
    with graph.as_default():
        n = tf.compat.v1.placeholder(tf.int32, [], name="n")
        i, acc = _loop(tf, n)
    config = tf.compat.v1.ConfigProto()
    config.experimental.disable_functional_ops_lowering = not lower
    session = tf.compat.v1.Session(graph=graph, config=config)
    return session, lambda: session.run([i, acc], {n: np.int32(ITERATIONS)})


def run(env: Environment) -> list[Row]:
    """Rows: per-iteration time of the loop in a function, in a Session, and through the While kernel."""
    import modtensor

    tf = env.tensorflow
    fns: dict[str, Any] = {"fn": _function(modtensor)}
    sessions = []
    for label, lower in (("session", True), ("kernel", False)):
        session, fns[label] = _session(modtensor, lower)
        sessions.append(session)
    expected = fns["fn"]()
    for label in ("session", "kernel"):
        i, acc = fns[label]()
        assert int(i) == ITERATIONS and np.isclose(acc, expected[1].numpy(), rtol=1e-4), label
    if tf is not None:
        fns["tf_fn"] = _function(tf)
        for label, lower in (("tf_session", True), ("tf_kernel", False)):
            session, fns[label] = _session(tf, lower)
            sessions.append(session)
    else:
        fns.update(tf_fn=None, tf_session=None, tf_kernel=None)
    times = measure_interleaved(fns, repeats=max(3, env.repeats // 4))
    for session in sessions:
        session.close()
    note = "i < n; (i + 1, acc * 0.999 + 1.0); per iteration"
    return [
        Row("tf.while_loop (10,000 iterations)", "in tf.function (lowered)", times["fn"], None, times["tf_fn"],
            ITERATIONS, note),
        Row("tf.while_loop (10,000 iterations)", "v1 Session, control flow v2 (lowered)", times["session"], None,
            times["tf_session"], ITERATIONS, note),
        Row("tf.while_loop (10,000 iterations)", "While kernel (lowering off)", times["kernel"], None,
            times["tf_kernel"], ITERATIONS, note + "; disable_functional_ops_lowering"),
    ]  # fmt: skip
