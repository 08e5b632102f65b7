"""One scenario run against TensorFlow (tools/make_golden_kernel_semantics.py) and modtensor (the test).

The plugins are tests/plugin/csrc/kernel_semantics.c (kernels for an op not registered yet, second
kernels for built-in ops at priorities 1, -1 and 0, two identical kernels of its own op) and
late_op.cc (a C++ op library registering that op from a static initializer). The scenario records,
per step, the values a program gets or the error class and the first line of the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

X = [-1.0, 2.0]


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        value = fn()
    except Exception as e:  # the error class and the message's first line are what the golden compares
        first = str(getattr(e, "message", e)).splitlines()[0]
        return {"error": type(e).__name__, "message": first}
    return np.asarray(value).tolist()


def _three_ways(tf: Any, op: Callable[[Any], Any]) -> dict[str, Any]:
    """The op on X eagerly, in a tf.function, and through a v1 Session."""

    def session() -> Any:
        graph = tf.Graph()
        with graph.as_default():
            out = op(tf.constant(X))
        with tf.compat.v1.Session(graph=graph) as sess:
            return sess.run(out)

    return {
        "eager": _outcome(lambda: op(tf.constant(X)).numpy()),
        "function": _outcome(lambda: tf.function(op)(tf.constant(X)).numpy()),
        "session": _outcome(session),
    }


def run_scenario(tf: Any, load_kernels: Callable[[str], None], kernels_path: str, late_op_path: str) -> dict:
    """Load the kernel plugin, run the ops, load the op library, run its op; the outcomes by step."""
    import ctypes

    out: dict[str, Any] = {}
    out["before/elu"] = _three_ways(tf, tf.nn.elu)
    load_kernels(kernels_path)
    out["registration_failures"] = ctypes.CDLL(kernels_path).kernel_semantics_failures()
    out["elu_priority_1"] = _three_ways(tf, tf.nn.elu)
    out["relu6_priority_-1"] = _three_ways(tf, tf.nn.relu6)
    out["relu_same_priority"] = _three_ways(tf, tf.nn.relu)
    library = tf.load_op_library(late_op_path)
    out["late_op/wrappers"] = sorted(n for n in dir(library) if n.startswith("mt_") and "fallback" not in n)
    out["late_op/float"] = _three_ways(tf, library.mt_sem_late)
    out["late_op/double"] = _outcome(lambda: library.mt_sem_late(tf.constant(X, tf.float64)).numpy())
    out["late_op/duplicate_kernels"] = _three_ways(tf, library.mt_sem_dup)
    return out
