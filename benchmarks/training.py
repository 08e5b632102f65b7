"""Training step time of a small MLP: the eager ``GradientTape`` loop and the ``tf.function`` step, modtensor vs TF.

The step is ``examples/train_mlp.py``'s (``make_train_step``: the loss under a tape, its
gradients, one Keras Adam step), loaded twice: as written (``import modtensor as tf``) and
with ``import tensorflow as tf``, so both libraries run the same code on the same batch and
initial weights (the first losses are checked to agree). Two sizes: the example's MLP
(8 -> 32 -> 3, batch 64, dominated by per-op overhead) and a wider one (256 -> 512 -> 10,
batch 128, where the MatMuls take a visible share). For the ``tf.function`` step the note
adds modtensor's time with ``inter_op_parallelism_threads=1`` (every node on the calling
thread): on a small, busy machine the hand-offs to the inter-op pool cost more than they save.

TensorFlow runs in the worker subprocess (``tf_worker.py``, the interpreter of
``MODTENSOR_TF_PYTHON``, default ``/work/tfvenv/bin/python``) as for ``model_latency.py``:
in one process the two libraries' C API symbols clash, and modtensor would run without its
native CPU kernels. Samples alternate (modtensor, TensorFlow, ...) and the medians are
reported; the note adds both processes' CPU time per step.

    .venv/bin/python benchmarks/training.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from timing import Environment, Row  # noqa: E402

BENCHMARK = "training step"
EXAMPLE = HERE.parent / "examples" / "train_mlp.py"
SIZES = {"MLP 8-32-3, batch 64": ((8, 32, 3), 64), "MLP 256-512-10, batch 128": ((256, 512, 10), 128)}


def load_example(library: str) -> types.ModuleType:
    """``examples/train_mlp.py`` with ``tf`` bound to ``library`` (``modtensor`` or ``tensorflow``)."""
    source = EXAMPLE.read_text().replace("\nimport modtensor as tf\n", f"\nimport {library} as tf\n")
    module = types.ModuleType(f"train_mlp_{library}")
    module.__file__ = str(EXAMPLE)
    exec(compile(source, str(EXAMPLE), "exec"), module.__dict__)
    return module


def make_step(example: types.ModuleType, sizes: tuple[int, int, int], batch: int, mode: str) -> Callable[[], Any]:
    """One training step of ``example``'s MLP of ``sizes`` on a fixed batch (Adam, learning rate 1e-3)."""
    tf = example.tf
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(batch, sizes[0])).astype(np.float32))
    y = tf.constant(np.eye(sizes[2], dtype=np.float32)[rng.integers(0, sizes[2], size=batch)])
    model = example.MLP(example.initial_weights(sizes=sizes))
    step = example.make_train_step(model, example.make_optimizer("adam", 1e-3), mode)
    return lambda: step(x, y)


def _sample(fn: Callable[[], Any], number: int) -> tuple[float, float]:
    start, cpu = time.perf_counter(), _cpu_seconds()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number, (_cpu_seconds() - cpu) / number


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _inline_ms(example: types.ModuleType, step: Callable[[], Any], number: int, repeats: int) -> str:
    """The step's median time with every node on the calling thread (no inter-op pool), as text."""
    threading = example.tf.config.threading
    before = threading.get_inter_op_parallelism_threads()
    threading.set_inter_op_parallelism_threads(1)
    try:
        step()
        seconds = statistics.median(_sample(step, number)[0] for _ in range(repeats))
    finally:
        threading.set_inter_op_parallelism_threads(before)
    return f"{seconds * 1e3:.3g} ms"


def run(env: Environment) -> list[Row]:
    """One row per (size, mode): seconds per training step for modtensor and TensorFlow (in its worker)."""
    os.environ.setdefault("MODTENSOR_NO_TF_PLUGINS", "1")
    from model_latency import TensorFlowWorker, tf_python

    example = load_example("modtensor")
    python = tf_python()
    worker = TensorFlowWorker(python) if python is not None else None
    target = 0.05 if env.quick else 0.2
    repeats = 5 if env.quick else 11
    rows = []
    try:
        for size_name, (sizes, batch) in SIZES.items():
            for mode, label in (("eager", "eager tape loop"), ("function", "tf.function step")):
                name = f"{size_name}/{mode}"
                step = make_step(example, sizes, batch, mode)
                loss = float(step())
                for _ in range(2):
                    step()
                number = max(1, int(target / max(_sample(step, 1)[0], 1e-6)))
                if worker is not None:
                    answer = worker.ask(op="train", name=name, sizes=list(sizes), batch=batch, mode=mode)
                    assert abs(answer["loss"] - loss) <= 1e-4 * max(1.0, abs(loss)), (answer["loss"], loss)
                    worker.ask(op="time_step", name=name, number=2)
                    once = worker.ask(op="time_step", name=name, number=1)["seconds"]
                    number_tf = max(1, int(target / max(once, 1e-6)))
                mt, tf = [], []
                for _ in range(repeats):
                    mt.append(_sample(step, number))
                    if worker is not None:
                        answer = worker.ask(op="time_step", name=name, number=number_tf)
                        tf.append((answer["seconds"], answer["cpu_seconds"]))
                mt_s = statistics.median(s for s, _ in mt)
                mt_cpu = statistics.median(c for _, c in mt)
                note = "time per step"
                tf_s = None
                if tf:
                    tf_s = statistics.median(s for s, _ in tf)
                    tf_cpu = statistics.median(c for _, c in tf)
                    note += (f"; CPU time per step {mt_cpu * 1e3:.3g} / {tf_cpu * 1e3:.3g} ms = "
                             f"{mt_cpu / max(tf_cpu, 1e-9):.2f}x")  # fmt: skip
                else:
                    note += "; TensorFlow not run (set MODTENSOR_TF_PYTHON to an interpreter with TensorFlow)"
                if mode == "function":
                    inline = _inline_ms(example, step, number, repeats)
                    note += f"; modtensor with inter_op_parallelism_threads=1: {inline}"
                rows.append(Row(BENCHMARK, f"{size_name}, {label} (Adam)", mt_s, tensorflow_s=tf_s, note=note))
    finally:
        if worker is not None:
            worker.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows (``benchmarks/run.py`` prints them in the common table)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args(argv)
    for row in run(Environment(tensorflow=None, quick=args.quick)):
        tf_text = "—" if row.tensorflow_s is None else f"{row.tensorflow_s * 1e3:.3f} ms"
        ratio = f"{row.modtensor_s / row.tensorflow_s:.2f}x" if row.tensorflow_s else "—"
        print(f"{row.case:55s} modtensor {row.modtensor_s * 1e3:8.3f} ms  TF {tf_text:>11s}  modtensor/TF {ratio}  "
              f"({row.note})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
