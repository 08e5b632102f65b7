"""tf.data pipeline throughput side by side with TensorFlow: one epoch of a map/batch/prefetch input pipeline.

1024 uint8 "images" (64x64x3) -> map(cast, scale, tanh, exp, per-channel mean)  -> batch(64) -> prefetch,
iterated eagerly as a training loop would. Cases: modtensor's sequential map without prefetch, its
parallel map (AUTOTUNE) with prefetch, and TF's parallel pipeline (in the ``tf_worker.py`` subprocess unless
TensorFlow imports in this process; the worker's epoch time includes a pipe round trip of ~0.1 ms). The note
gives process CPU time over wall time of the parallel epoch (2.0 = both cores busy on a 2-core machine).
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


def _worker_epoch(env: Environment) -> tuple[Any, Any, Any]:
    """TF's parallel epoch: in this process when TensorFlow imported here (then modtensor's native kernels could
    not load beside it: its column and modtensor's are not comparable), else in the ``tf_worker.py`` subprocess.
    Returns (epoch call or None, its CPU/wall ratio or None, the worker to close or None)."""
    if env.tensorflow is not None:
        epoch = _epoch(_pipeline(env.tensorflow, True))
        return epoch, _cpu_ratio(epoch), None
    from model_latency import TensorFlowWorker, tf_python

    python = tf_python()
    if python is None:
        return None, None, None
    worker = TensorFlowWorker(python)
    assert worker.ask(op="pipeline", name="pipeline")["elements"] == N

    def epoch() -> None:
        worker.ask(op="time_step", name="pipeline", number=1)

    answer = worker.ask(op="time_step", name="pipeline", number=1)
    return epoch, answer["cpu_seconds"] / max(answer["seconds"], 1e-9), worker


def run(env: Environment) -> list[Row]:
    """Rows: per epoch of 1024 elements, sequential and parallel, with TF's parallel pipeline."""
    os.environ.setdefault("MODTENSOR_NO_TF_PLUGINS", "1")
    import modtensor

    sequential = _epoch(_pipeline(modtensor, False))
    parallel = _epoch(_pipeline(modtensor, True))
    tf_parallel, tf_ratio, worker = _worker_epoch(env)
    try:
        times = measure_interleaved(
            {"seq": sequential, "par": parallel, "tf": tf_parallel}, repeats=max(3, env.repeats // 4), warmup=1
        )
    finally:
        if worker is not None:
            worker.close()
    ratio = _cpu_ratio(parallel)
    note = f"CPU/wall: modtensor {ratio:.2f}" + (f", TF {tf_ratio:.2f}" if tf_ratio is not None else "")
    return [
        Row("tf.data map/batch/prefetch (1024 elements)", "sequential map, no prefetch, per epoch", times["seq"], None,
            times["tf"], 1, "TF column: TF's parallel pipeline"),
        Row("tf.data map/batch/prefetch (1024 elements)", "map AUTOTUNE + prefetch, per epoch", times["par"], None,
            times["tf"], 1, note),
    ]
