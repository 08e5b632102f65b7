"""tf.data pipeline throughput side by side with TensorFlow: one epoch of a map/batch/prefetch input pipeline.

1024 uint8 "images" (64x64x3) -> map(cast, scale, tanh, exp, per-channel mean)  -> batch(64) -> prefetch,
iterated eagerly as a training loop would. Cases: modtensor's sequential map without prefetch, its
parallel map (AUTOTUNE) with prefetch, and TF's parallel pipeline (in the ``tf_worker.py`` subprocess unless
TensorFlow imports in this process; the worker's epoch time includes a pipe round trip of ~0.1 ms); then the
parallel pipeline feeding a training step per batch (a linear layer on the flattened batch: forward, gradient,
SGD update in one ``tf.function``), where prefetch should overlap the input work with the step's kernels. The
note gives process CPU time over wall time of the epoch (2.0 = both cores busy on a 2-core machine).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

N, BATCH = 1024, 32


def _pipeline(tf: Any, parallel: bool) -> Any:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, size=(N, 64, 64, 3), dtype=np.uint8)
    def preprocess(image: Any) -> Any:
        x = tf.cast(image, tf.float32) / 255.0 - 0.5
        x = tf.tanh(x * 3.0) + tf.exp(-x * x)
        return x - tf.reduce_mean(x, axis=[0, 1], keepdims=True)

    ds = tf.data.Dataset.from_tensor_slices(images)
    if parallel:
        return ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE).batch(BATCH).prefetch(tf.data.AUTOTUNE)
    return ds.map(preprocess).batch(BATCH)


def _training_step(tf: Any) -> Any:
    """One SGD step of a linear layer on a batch: the consumer a pipeline feeds."""
    w = tf.Variable(np.random.default_rng(1).standard_normal((64 * 64 * 3, 64)).astype(np.float32) * 0.01)

    @tf.function
    def step(batch: Any) -> Any:
        x = tf.reshape(batch, [-1, 64 * 64 * 3])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss

    return step


def _training_epoch(tf: Any) -> Any:
    """An epoch of the parallel pipeline, each batch fed to a training step."""
    ds, step = _pipeline(tf, True), _training_step(tf)

    def run() -> int:
        count = 0
        for batch in ds:
            step(batch)
            count += int(batch.shape[0])
        assert count == N
        return count

    return run


def _epoch(ds: Any) -> Any:
    def run() -> int:
        count = 0
        for batch in ds:
            count += int(batch.shape[0])
        assert count == N
        return count

    return run


def _cpu_ratio(fn: Any) -> float:
    start_cpu = sum(os.times()[:2])
    start = time.perf_counter()
    fn()
    return (sum(os.times()[:2]) - start_cpu) / (time.perf_counter() - start)


def _worker_epochs(env: Environment) -> tuple[dict[str, Any], dict[str, float], Any]:
    """TF's parallel epoch and training epoch: in this process when TensorFlow imported here (then modtensor's
    native kernels could not load beside it: its column and modtensor's are not comparable), else in the
    ``tf_worker.py`` subprocess. Returns ({case: epoch call}, {case: CPU/wall ratio}, the worker to close or None);
    empty without TensorFlow."""
    if env.tensorflow is not None:
        calls = {"tf": _epoch(_pipeline(env.tensorflow, True)), "tf_train": _training_epoch(env.tensorflow)}
        return calls, {name: _cpu_ratio(call) for name, call in calls.items()}, None
    from model_latency import TensorFlowWorker, tf_python

    python = tf_python()
    if python is None:
        return {}, {}, None
    worker = TensorFlowWorker(python)
    calls, ratios = {}, {}
    for case, op in (("tf", "pipeline"), ("tf_train", "pipeline_train")):
        assert worker.ask(op=op, name=case)["elements"] == N

        def epoch(case: str = case) -> None:
            worker.ask(op="time_step", name=case, number=1)

        answer = worker.ask(op="time_step", name=case, number=1)
        calls[case], ratios[case] = epoch, answer["cpu_seconds"] / max(answer["seconds"], 1e-9)
    return calls, ratios, worker


def run(env: Environment) -> list[Row]:
    """Rows: per epoch of 1024 elements, sequential and parallel, with TF's parallel pipeline."""
    os.environ.setdefault("MODTENSOR_NO_TF_PLUGINS", "1")
    import modtensor

    calls = {
        "seq": _epoch(_pipeline(modtensor, False)),
        "par": _epoch(_pipeline(modtensor, True)),
        "train": _training_epoch(modtensor),
    }
    tf_calls, tf_ratios, worker = _worker_epochs(env)
    try:
        times = measure_interleaved({**calls, **tf_calls}, repeats=max(3, env.repeats // 4), warmup=1)
    finally:
        if worker is not None:
            worker.close()

    def note(case: str, tf_case: str) -> str:
        text = f"CPU/wall: modtensor {_cpu_ratio(calls[case]):.2f}"
        return text + (f", TF {tf_ratios[tf_case]:.2f}" if tf_case in tf_ratios else "")

    what = "tf.data map/batch/prefetch (1024 elements)"
    return [
        Row(what, "sequential map, no prefetch, per epoch", times["seq"], None, times.get("tf"), 1,
            "TF column: TF's parallel pipeline"),
        Row(what, "map AUTOTUNE + prefetch, per epoch", times["par"], None, times.get("tf"), 1, note("par", "tf")),
        Row(what, "map AUTOTUNE + prefetch feeding a training step per batch, per epoch", times["train"], None,
            times.get("tf_train"), 1, note("train", "tf_train")),
    ]
