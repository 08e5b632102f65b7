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


def runners(tf: Any) -> dict[str, Any]:
    """The three forms with ``tf`` (modtensor or TensorFlow): ``{"while_fn", "while_session", "while_kernel"}``.

    Each call runs the loop once and returns ``(i, acc)``; the Sessions stay open as long as the calls live.
    """
    fn = _function(tf)
    calls: dict[str, Any] = {"while_fn": lambda: tuple(fn())}
    for label, lower in (("while_session", True), ("while_kernel", False)):
        _session_object, calls[label] = _session(tf, lower)
    return calls


def _tensorflow_worker() -> tuple[Any, str, dict]:
    """The TensorFlow worker with the loops built, or (None, why not, {})."""
    from model_latency import TensorFlowWorker, tf_python

    python = tf_python()
    if python is None:
        return None, "TensorFlow not run (set MODTENSOR_TF_PYTHON to an interpreter with TensorFlow)", {}
    worker = TensorFlowWorker(python)
    try:
        answer = worker.ask(op="while_loop")
    except RuntimeError as exc:
        worker.close()
        return None, f"TensorFlow worker failed: {exc}", {}
    return worker, f"TensorFlow {answer.pop('version')} in a worker process", answer


def run(env: Environment) -> list[Row]:
    """Rows: per-iteration time of the loop in a function, in a Session, and through the While kernel."""
    from graph_overhead import _measure_with_worker

    import modtensor

    tf = env.tensorflow
    names = ("while_fn", "while_session", "while_kernel")
    local = {"mt_" + name: call for name, call in runners(modtensor).items()}
    expected = local["mt_while_fn"]()
    for name in names:
        i, acc = local["mt_" + name]()
        assert int(i) == ITERATIONS and np.isclose(acc, expected[1], rtol=1e-4), name
    note = "i < n; (i + 1, acc * 0.999 + 1.0); per iteration"
    repeats = max(3, env.repeats // 4)
    if tf is not None:
        theirs = {"tf_" + name: call for name, call in runners(tf).items()}
        times = measure_interleaved({**local, **theirs}, repeats=repeats)
        note += f"; TensorFlow {tf.__version__} in this process"
    else:
        worker, why, results = _tensorflow_worker()
        note += f"; {why}"
        if worker is None:
            times = measure_interleaved({**local, **{"tf_" + name: None for name in names}}, repeats=repeats)
        else:
            for name in names:  # TensorFlow computed the same loop
                i, acc = results[name]
                assert int(i) == ITERATIONS and np.isclose(acc, expected[1], rtol=1e-4), (name, results[name])
            try:
                measured = _measure_with_worker(local, worker, list(names), repeats)
            finally:
                worker.close()
            times = {**measured, **{"tf_" + name: measured[name] for name in names}}
    bench = "tf.while_loop (10,000 iterations)"
    cases = (
        ("while_fn", "in tf.function (lowered)", note),
        ("while_session", "v1 Session, control flow v2 (lowered)", note),
        ("while_kernel", "While kernel (lowering off)", note + "; disable_functional_ops_lowering"),
    )
    return [
        Row(bench, case, times["mt_" + name], None, times["tf_" + name], ITERATIONS, text) for name, case, text in cases
    ]
