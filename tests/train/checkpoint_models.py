"""The objects of the golden checkpoints, built with either TensorFlow or modtensor (the same API).

Used by tools/make_golden_checkpoints.py and tools/check_modtensor_checkpoints_in_tf.py (with
TensorFlow) and by the tests (with modtensor), so both sides build the same object graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def build_model(tf: Any, scale: float) -> tuple[Any, Any]:
    """Nested modules, a list of layers, a dict needing key escaping, variables of many dtypes."""
    model = tf.Module(name="model")
    model.dense = tf.Module()
    model.dense.kernel = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) * scale, name="kernel")
    model.dense.bias = tf.Variable(np.array([0.5, -0.5, 1.5, 2.5], np.float32) * scale, name="bias")
    model.layers = [tf.Module(), tf.Module()]
    model.layers[0].w = tf.Variable(np.array([1.25, -2.0], np.float64) * scale, name="w")
    model.layers[1].w = tf.Variable(np.array([[1, 2], [3, 4]], np.int32) * int(scale), name="w")
    model.step = tf.Variable(int(7 * scale), dtype=tf.int64, name="step")
    model.flags = tf.Variable([True, False, scale > 1], name="flags")
    model.words = tf.Variable([b"hello", "wörld".encode(), b"x" * int(3 * scale)], name="words")
    model.half = tf.Variable(np.array([1.5, -0.25], np.float16) * scale, dtype=tf.float16, name="half")
    model.brain = tf.Variable(tf.cast(tf.constant([3.0, -1.0]), tf.bfloat16) * scale, name="brain")
    model.small = tf.Variable(np.array([-3, 4], np.int8) * int(scale), name="small")
    model.bytes_ = tf.Variable(np.array([200, 7], np.uint8), name="bytes")
    model.cplx = tf.Variable(np.array([1 + 2j], np.complex64) * scale, name="cplx")
    extra = tf.Module()
    extra.table = {"a/b": tf.Variable(scale, name="ab"), "c.d": tf.Variable([scale, 2 * scale], name="cd")}
    return model, extra


def build_counter(tf: Any) -> Any:
    """A module with one float variable (the CheckpointManager fixture)."""
    counter = tf.Module()
    counter.v = tf.Variable(0.0)
    return counter
