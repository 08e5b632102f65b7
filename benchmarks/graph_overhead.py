"""Graph-mode per-op overhead: a chain of 1000 small ops on 10 floats, run as one graph.

The same chain (AddV2, Mul, Relu in turn, each on a 10-float vector) is built with
the TensorFlow API, so the identical builder runs with ``modtensor`` and with
``tensorflow``; it runs through ``compat.v1.Session.run`` and through a traced
``function``, against NumPy applying the same 1000 ufuncs. Times are per op
(call time / 1000): the executor's cost per node over the kernel itself.

TensorFlow runs in this process when it is importable here; otherwise in the worker
subprocess (``tf_worker.py``, the interpreter of ``MODTENSOR_TF_PYTHON``, default
``/work/tfvenv/bin/python``), whose timed samples are interleaved with modtensor's.
"""

from __future__ import annotations

import statistics
import time
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


def _sample(fn: Any, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def _measure_with_worker(
    fns: dict[str, Any], worker: Any, steps: list[str], repeats: int, sample_s: float = 0.02
) -> dict[str, float]:
    """Median seconds per call of local ``fns`` and of the worker's ``steps``, their samples taken in turn."""
    numbers = {}
    for name, fn in fns.items():
        for _ in range(3):
            fn()
        numbers[name] = max(1, int(sample_s / max(_sample(fn, 1), 1e-9)))
    for name in steps:
        once = worker.ask(op="time_step", name=name, number=3)["seconds"]
        numbers[name] = max(1, int(sample_s / max(once, 1e-9)))
    samples: dict[str, list[float]] = {name: [] for name in numbers}
    for _ in range(repeats):
        for name, fn in fns.items():
            samples[name].append(_sample(fn, numbers[name]))
        for name in steps:
            samples[name].append(worker.ask(op="time_step", name=name, number=numbers[name])["seconds"])
    return {name: statistics.median(values) for name, values in samples.items()}


def _tensorflow_worker(value: np.ndarray, expected: np.ndarray) -> tuple[Any, str]:
    """The TensorFlow worker with the chain built (checked against NumPy), or (None, why not)."""
    from model_latency import TensorFlowWorker, tf_python

    python = tf_python()
    if python is None:
        return None, "TensorFlow not run (set MODTENSOR_TF_PYTHON to an interpreter with TensorFlow)"
    worker = TensorFlowWorker(python)
    try:
        answer = worker.ask(op="chain", value=value.tolist())
    except RuntimeError as exc:
        worker.close()
        return None, f"TensorFlow worker failed: {exc}"
    for name in ("chain_session", "chain_function"):
        np.testing.assert_allclose(np.asarray(answer[name], np.float32), expected, rtol=1e-5)
    return worker, f"TensorFlow {answer['version']} in a worker process"


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
    note = "per op = one call / 1000; NumPy: the same 1000 ufunc calls"
    local = {"numpy": lambda: numpy_chain(value), "session": mt_run, "function": mt_call}
    if tf is not None:
        tf_session, tf_run = _session_runner(tf, value)
        sessions.append(tf_session)
        tf_call = _function_runner(tf, value)
        times = measure_interleaved({**local, "tf_session": tf_run, "tf_function": tf_call}, repeats=env.repeats)
    else:
        worker, why = _tensorflow_worker(value, expected)
        note += f"; {why}"
        if worker is None:
            times = measure_interleaved({**local, "tf_session": None, "tf_function": None}, repeats=env.repeats)
        else:
            try:
                measured = _measure_with_worker(local, worker, ["chain_session", "chain_function"], env.repeats)
            finally:
                worker.close()
            times = {**measured, "tf_session": measured["chain_session"], "tf_function": measured["chain_function"]}
    for session in sessions:
        session.close()
    return [
        Row(BENCHMARK, "Session.run, per op", times["session"], times["numpy"], times["tf_session"], CHAIN, note),
        Row(BENCHMARK, "function call, per op", times["function"], times["numpy"], times["tf_function"], CHAIN, note),
    ]
