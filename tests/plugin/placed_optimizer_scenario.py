"""What a CPU plugin optimizer (tests/plugin/csrc/placed_optimizer.c) is handed, in TensorFlow and modtensor.

Run against TensorFlow 2.21 by tools/make_golden_placed_optimizer.py and against modtensor by
tests/plugin/test_optimizer_placement.py: a Session run with a feed and a fetch, the plugin's record
parsed into fetch/preserve lists, node devices and TF_InferStatically's status code.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np


def parse(record: str) -> dict[str, Any]:
    """The plugin's record as lists and a {node: (op, device)} map."""
    out: dict[str, Any] = {"fetch": [], "preserve": [], "nodes": {}, "infer": None}
    for part in filter(None, record.split(";")):
        if "|" in part:
            name, op, device = part.split("|")
            out["nodes"][name] = [op, device]
        else:
            key, _, value = part.partition("=")
            if key == "infer":
                out["infer"] = int(value)
            else:
                out[key].append(value)
    out["fetch"].sort()
    out["preserve"].sort()
    return out


def run_scenario(tf: Any, plugin_path: str) -> dict[str, Any]:
    """One Session run of a small graph whose nodes are placed on the CPU; what the optimizer saw."""
    probe = ctypes.CDLL(plugin_path).placed_probe
    probe.restype = ctypes.c_char_p
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        w = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
        h = tf.nn.relu(tf.matmul(x, w, name="mm"), name="h")
        z = tf.nn.softmax(h * 2.0 + 1.0, name="z")
        tf.identity(z, name="unused")
    with tf.compat.v1.Session(graph=graph) as sess:
        value = sess.run(z, {x: np.ones((2, 3), np.float32)})
    seen = parse(probe().decode())
    seen["value"] = np.asarray(value).round(5).tolist()
    return seen
