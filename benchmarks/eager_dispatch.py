"""Eager per-op dispatch overhead: ``x + y`` on scalars, ``relu`` of 10 floats, and a few neighbours.

Each case runs the same expression with modtensor and (when installed) TensorFlow,
against the bare NumPy call computing the same thing. The NumPy column is the
floor; the ratio says how much the front end, cache lookup, kernel call and tensor
wrapping add. ``kernel only`` rows time the CPU kernel function alone, so the
eager layer's own share is (modtensor - kernel only).

    /tmp/mtdev/bin/python benchmarks/eager_dispatch.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row, measure  # noqa: E402

BENCHMARK = "eager dispatch"


def _cases(tf: Any) -> dict[str, Callable[[], Any]]:
    """The timed expressions with ``tf`` (modtensor or TensorFlow)."""
    x = tf.constant(1.5)
    y = tf.constant(2.5)
    v = tf.constant(np.linspace(-1.0, 1.0, 10, dtype=np.float32))
    m = tf.constant(np.ones((4, 4), np.float32))
    relu = tf.nn.relu
    matmul = tf.matmul
    return {
        "x + y (scalars)": lambda: x + y,
        "relu (10 floats)": lambda: relu(v),
        "x * 2.0 (python operand)": lambda: x * 2.0,
        "v[1:3] (indexing)": lambda: v[1:3],
        "matmul 4x4": lambda: matmul(m, m),
    }


def _numpy_cases() -> dict[str, Callable[[], Any]]:
    a = np.array(1.5, np.float32)
    b = np.array(2.5, np.float32)
    v = np.linspace(-1.0, 1.0, 10, dtype=np.float32)
    m = np.ones((4, 4), np.float32)
    zero = np.float32(0)
    return {
        "x + y (scalars)": lambda: a + b,
        "relu (10 floats)": lambda: np.maximum(v, zero),
        "x * 2.0 (python operand)": lambda: a * np.float32(2.0),
        "v[1:3] (indexing)": lambda: v[1:3],
        "matmul 4x4": lambda: m @ m,
    }


def _kernel_cases() -> dict[str, Callable[[], Any]]:
    """The CPU kernel functions alone (what a cache hit calls), for the eager layer's own share."""
    from modtensor.kernels.cpu import OP_FUNCTIONS

    a = np.array(1.5, np.float32)
    b = np.array(2.5, np.float32)
    v = np.linspace(-1.0, 1.0, 10, dtype=np.float32)
    add, relu = OP_FUNCTIONS["AddV2"], OP_FUNCTIONS["Relu"]
    return {"x + y (scalars)": lambda: add(a, b), "relu (10 floats)": lambda: relu(v)}


def run(env: Environment) -> list[Row]:
    """One row per case: modtensor, NumPy and TensorFlow times per call."""
    import modtensor

    mt = _cases(modtensor)
    ref = _numpy_cases()
    kernels = _kernel_cases()
    tf_cases = _cases(env.tensorflow) if env.tensorflow is not None else {}
    rows = []
    for case, fn in mt.items():
        expected = np.asarray(ref[case]())
        np.testing.assert_allclose(np.asarray(fn()), expected, rtol=1e-6)
        mt_s = measure(fn, repeats=env.repeats)
        numpy_s = measure(ref[case], repeats=env.repeats)
        tf_s = measure(tf_cases[case], repeats=env.repeats) if case in tf_cases else None
        note = ""
        if case in kernels:
            kernel_s = measure(kernels[case], repeats=env.repeats)
            note = f"kernel function alone {kernel_s * 1e6:.2f} µs; eager layer {(mt_s - kernel_s) * 1e6:.2f} µs"
        rows.append(Row(BENCHMARK, case, mt_s, numpy_s, tf_s, note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows (``benchmarks/run.py`` prints them in the common table)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--no-tensorflow", action="store_true", help="do not compare with TensorFlow")
    args = parser.parse_args(argv)
    tf = None
    if not args.no_tensorflow:
        try:
            import os

            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as tf  # type: ignore[no-redef]
        except ImportError:
            tf = None
    rows = run(Environment(tensorflow=tf, quick=args.quick))
    for row in rows:
        tf_text = "—" if row.tensorflow_s is None else f"{row.tensorflow_s * 1e6:.2f} µs"
        ratio_np = row.modtensor_s / row.numpy_s if row.numpy_s else float("nan")
        ratio_tf = f"{row.modtensor_s / row.tensorflow_s:.2f}x" if row.tensorflow_s else "—"
        print(
            f"{row.case:28s} modtensor {row.modtensor_s * 1e6:7.2f} µs  numpy {row.numpy_s * 1e6:6.2f} µs  "
            f"TF {tf_text:>10s}  /numpy {ratio_np:5.2f}x  /TF {ratio_tf}  {row.note}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
