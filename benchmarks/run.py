"""Run every benchmark in one process and print one markdown table (numbers in docs/benchmarks.md).

    /tmp/mtdev/bin/python benchmarks/run.py [--quick] [--only NAME ...] [--no-tensorflow]

Each module of ``BENCHMARKS`` exposes ``run(env) -> list[Row]`` (see ``timing.py``).
TensorFlow is compared against when it can be imported; otherwise its column reads
"not installed". A benchmark module that is missing is reported and skipped.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from timing import Environment, Row  # noqa: E402

BENCHMARKS = [
    "eager_dispatch",
    "c_kernel_overhead",
    "graph_overhead",
    "executor",
    "while_loop",
    "model_latency",
    "grappler_scaling",
    "data_pipeline",
    "image_codecs",
    "spectral",
    "lookup_tables",
    "checkpoint_io",
    "training",
]


def _tensorflow(disabled: bool) -> ModuleType | None:
    """TensorFlow when importable (and not disabled), with its logging quiet."""
    if disabled or importlib.util.find_spec("tensorflow") is None:
        return None
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    return tf


def run_standalone(run: Callable[[Environment], list[Row]], description: str, argv: list[str] | None = None) -> int:
    """A benchmark module's ``main``: ``--quick`` and ``--no-tensorflow``, then its rows as the common table."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--no-tensorflow", action="store_true", help="do not compare with TensorFlow")
    args = parser.parse_args(argv)
    tf = _tensorflow(args.no_tensorflow)
    print(format_table(run(Environment(tensorflow=tf, quick=args.quick)), tensorflow_installed=tf is not None))
    return 0


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _time(seconds: float | None, per: int) -> str:
    if seconds is None:
        return "—"
    value = seconds / per
    if value < 1e-3:
        return f"{value * 1e6:.2f} µs"
    return f"{value * 1e3:.2f} ms"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None or denominator <= 0:
        return "—"
    return f"{numerator / denominator:.2f}x"


def format_table(rows: list[Row], tensorflow_installed: bool) -> str:
    """The rows as a markdown table: times per call (or per op), and modtensor's time as a multiple of the others."""
    lines = [
        "| benchmark | case | modtensor | NumPy | TensorFlow | modtensor / NumPy | modtensor / TF | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        # A benchmark may time TensorFlow in its worker process (tf_worker.py) when this one cannot import it.
        installed = tensorflow_installed or row.tensorflow_s is not None
        tf_time = _time(row.tensorflow_s, row.per) if installed else "not installed"
        lines.append(
            f"| {row.benchmark} | {row.case} | {_time(row.modtensor_s, row.per)} | {_time(row.numpy_s, row.per)} | "
            f"{tf_time} | {_ratio(row.modtensor_s, row.numpy_s)} | {_ratio(row.modtensor_s, row.tensorflow_s)} | "
            f"{row.note} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the benchmarks, print the machine description and the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run, noisier numbers)")
    parser.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark (repeatable)")
    parser.add_argument("--no-tensorflow", action="store_true", help="do not import TensorFlow even if installed")
    args = parser.parse_args(argv)

    tf = _tensorflow(args.no_tensorflow)
    import numpy as np

    import modtensor

    env = Environment(tensorflow=tf, quick=args.quick)
    print(f"machine: {_cpu_name()}, {os.cpu_count()} cores; {platform.system()} {platform.release()}")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, modtensor {modtensor.__version__}, "
        f"tensorflow {tf.__version__ if tf is not None else 'not installed'}"
    )
    print("times: median over repeated samples after warm-up, per call (per op for the chain)\n")

    rows: list[Row] = []
    for name in args.only or BENCHMARKS:
        if importlib.util.find_spec(name) is None:
            print(f"(benchmark {name}: module benchmarks/{name}.py not found, skipped)", file=sys.stderr)
            continue
        start = time.perf_counter()
        rows.extend(importlib.import_module(name).run(env))
        print(f"({name}: {time.perf_counter() - start:.1f} s)", file=sys.stderr)
    print(format_table(rows, tensorflow_installed=tf is not None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
