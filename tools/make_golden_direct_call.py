"""Write a TF GraphDef whose nodes call a library function directly (``op`` = the function's name) and TF's output.

    /tmp/tfvenv/bin/python tools/make_golden_direct_call.py

Outputs in tests/golden/direct_call/: ``graph.pbtxt`` (a ``function.Defun`` with two outputs, called twice, the
second call fed by the first) and ``expected.json`` (the feed and what TF's Session returns for ``out``).
tests/framework/test_importer_functions.py imports the graph and runs it. TensorFlow is used only here.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.python.framework import function

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "direct_call")
FEED = [1.0, 2.0]


def build() -> tuple[tf.Graph, tf.Tensor, tf.Tensor]:
    """The graph: placeholder x, const y, two direct calls of MulAdd, out = sum of the second call's outputs."""
    g = tf.Graph()
    with g.as_default():

        @function.Defun(tf.float32, tf.float32)
        def MulAdd(x, y):  # noqa: N802 - the function's name in the library
            return x * y + 1.0, x - y

        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        y = tf.constant([3.0, 4.0], name="y")
        first = MulAdd(x, y, name="first")
        second = MulAdd(first[0], first[1], name="second")
        out = tf.identity(second[0] + second[1], name="out")
    return g, x, out


def main() -> None:
    """Record the GraphDef and TF's result."""
    g, x, out = build()
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "graph.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(g.as_graph_def()))
    with tf.compat.v1.Session(graph=g) as sess:
        value = sess.run(out, {x: np.asarray(FEED, np.float32)})
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"feed": {"x:0": FEED}, "fetch": "out:0", "value": value.tolist()}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
