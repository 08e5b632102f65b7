"""Checkpoints and SavedModels: writing and restoring 100 MB of variables, loading a Keras export.

- ``Checkpoint.write`` / ``Checkpoint.read`` of a ``tf.Module`` holding 50 float32 variables of
  2 MiB (100 MiB) into a temporary directory, modtensor against TensorFlow. The NumPy column is
  the disk's (page cache's) speed for the same bytes: ``ndarray.tofile`` of every variable into
  one file, and ``np.fromfile`` back.
- ``tf.saved_model.load`` of the Keras 3 export in tests/golden/saved_model/keras (TF wrote it),
  and load plus the first ``serve`` call (modtensor compiles a function on its first call).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

BENCHMARK = "checkpoints and SavedModel"
VARIABLES = 50
SHAPE = (512, 1024)  # 2 MiB of float32 each
KERAS_EXPORT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "saved_model" / "keras"


def _module(tf: Any, values: list[np.ndarray]) -> Any:
    module = tf.Module()
    module.weights = [tf.Variable(v, name=f"w{i}") for i, v in enumerate(values)]
    return module


def run(env: Environment) -> list[Row]:
    import modtensor as mt

    tf = env.tensorflow
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(VARIABLES)]
    megabytes = sum(v.nbytes for v in values) / 2**20
    scratch = Path(tempfile.mkdtemp(prefix="modtensor_bench_ckpt_"))
    repeats = 3 if env.quick else 7
    rows = []
    try:
        ours = _module(mt, values)
        our_checkpoint = mt.train.Checkpoint(model=ours)
        fns: dict[str, Any] = {"modtensor": lambda: our_checkpoint.write(str(scratch / "mt" / "ckpt"))}
        raw = scratch / "raw.bin"

        def numpy_write() -> None:
            with open(raw, "wb") as f:
                for v in values:
                    v.tofile(f)

        fns["numpy"] = numpy_write
        theirs = their_checkpoint = None
        if tf is not None:
            theirs = _module(tf, values)
            their_checkpoint = tf.train.Checkpoint(model=theirs)
            fns["tensorflow"] = lambda: their_checkpoint.write(str(scratch / "tf" / "ckpt"))
        times = measure_interleaved(fns, repeats=repeats, warmup=1, min_sample_s=0.0)
        rows.append(
            Row(BENCHMARK, f"Checkpoint.write, {VARIABLES} variables, {megabytes:.0f} MiB", times["modtensor"],
                times["numpy"], times.get("tensorflow"),
                note=f"modtensor {megabytes / times['modtensor']:.0f} MiB/s; NumPy column: tofile of the same bytes")
        )

        fns = {"modtensor": lambda: our_checkpoint.read(str(scratch / "mt" / "ckpt"))}
        fns["numpy"] = lambda: np.fromfile(raw, np.float32)
        if their_checkpoint is not None:
            fns["tensorflow"] = lambda: their_checkpoint.read(str(scratch / "tf" / "ckpt"))
        times = measure_interleaved(fns, repeats=repeats, warmup=1, min_sample_s=0.0)
        rows.append(
            Row(BENCHMARK, f"Checkpoint.read (restore), {megabytes:.0f} MiB", times["modtensor"], times["numpy"],
                times.get("tensorflow"),
                note=f"modtensor {megabytes / times['modtensor']:.0f} MiB/s; NumPy column: fromfile of the same bytes")
        )
        np.testing.assert_array_equal(ours.weights[7].numpy(), values[7])

        features = np.ones((4, 6, 6, 3), np.float32)
        fns = {"modtensor": lambda: mt.saved_model.load(str(KERAS_EXPORT))}
        if tf is not None:
            fns["tensorflow"] = lambda: tf.saved_model.load(str(KERAS_EXPORT))
        times = measure_interleaved(fns, repeats=repeats, warmup=1, min_sample_s=0.0)
        rows.append(Row(BENCHMARK, "tf.saved_model.load (Keras export)", times["modtensor"], None,
                        times.get("tensorflow"),
                        note="Conv2D, BatchNorm, MaxPool, Dropout, 2 Dense; functions compile on first call"))
        def first_call(framework: Any) -> Any:
            loaded = framework.saved_model.load(str(KERAS_EXPORT))
            return loaded.serve(features)  # TF needs the object alive while its function runs

        fns = {"modtensor": lambda: first_call(mt)}
        if tf is not None:
            fns["tensorflow"] = lambda: first_call(tf)
        times = measure_interleaved(fns, repeats=repeats, warmup=1, min_sample_s=0.0)
        rows.append(Row(BENCHMARK, "load + first serve() call (Keras export)", times["modtensor"], None,
                        times.get("tensorflow")))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return rows
