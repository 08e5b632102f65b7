"""tf.data pipeline throughput side by side with TensorFlow: one epoch of a map/batch/prefetch input pipeline.

1024 uint8 "images" (64x64x3) -> map(cast, scale, tanh, exp, per-channel mean)  -> batch(64) -> prefetch,
iterated eagerly as a training loop would. Cases: modtensor's sequential map without prefetch, its
parallel map (AUTOTUNE) with prefetch, and TF's parallel pipeline. The note gives process CPU time
over wall time of the parallel epoch (2.0 = both cores busy on a 2-core machine).
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


def run(env: Environment) -> list[Row]:
    """Rows: per epoch of 1024 elements, sequential and parallel, with TF's parallel pipeline."""
    import modtensor

    tf = env.tensorflow
    sequential = _epoch(_pipeline(modtensor, False))
    parallel = _epoch(_pipeline(modtensor, True))
    tf_parallel = _epoch(_pipeline(tf, True)) if tf is not None else None
    times = measure_interleaved(
        {"seq": sequential, "par": parallel, "tf": tf_parallel}, repeats=max(3, env.repeats // 4), warmup=1
    )
    ratio = _cpu_ratio(parallel)
    tf_ratio = _cpu_ratio(tf_parallel) if tf_parallel is not None else None
    note = f"CPU/wall: modtensor {ratio:.2f}" + (f", TF {tf_ratio:.2f}" if tf_ratio is not None else "")
    return [
        Row("tf.data map/batch/prefetch (1024 elements)", "sequential map, no prefetch, per epoch", times["seq"], None,
            times["tf"], 1, "TF column: TF's parallel pipeline"),
        Row("tf.data map/batch/prefetch (1024 elements)", "map AUTOTUNE + prefetch, per epoch", times["par"], None,
            times["tf"], 1, note),
    ]
