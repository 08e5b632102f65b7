"""Write TensorFlow's GraphDef for a small colocate_with program to tests/golden/construction/colocation.pbtxt.

    /tmp/tfvenv/bin/python tools/make_golden_colocation.py

The program nests ``colocate_with`` scopes (merged groups, ``ignore_existing``, an outer device scope that does not
apply inside, a colocated op's own device) and uses only ``tf.raw_ops`` so that tests/framework/test_colocation.py
can build the same graph with modtensor and compare the nodes. TensorFlow is used only here.
"""

from __future__ import annotations

import os

import tensorflow as tf
from google.protobuf import text_format

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "construction", "colocation.pbtxt")
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def build() -> tf.compat.v1.GraphDef:
    """The program the test replays; keep the two in step."""
    raw = tf.raw_ops
    g = tf.Graph()
    with g.as_default():
        with g.device(CPU):
            a = raw.Const(value=tf.make_tensor_proto(1.0), dtype=tf.float32, name="a")
        b = raw.Const(value=tf.make_tensor_proto(2.0), dtype=tf.float32, name="b")
        with tf.compat.v1.colocate_with(a):
            c = raw.AddV2(x=a, y=b, name="c")
            with tf.compat.v1.colocate_with(b):
                raw.AddV2(x=c, y=b, name="d")
            with tf.compat.v1.colocate_with(b, ignore_existing=True):
                raw.AddV2(x=c, y=b, name="e")
        with g.device("/device:CPU:0"):
            with g.colocate_with(b):
                raw.Identity(input=b, name="f")
            raw.Identity(input=b, name="g")
        with g.colocate_with(c.op):
            raw.Identity(input=c, name="h")
    return g.as_graph_def()


def main() -> None:
    """Record the GraphDef (text format)."""
    with open(OUT, "w") as f:
        f.write(text_format.MessageToString(build()))


if __name__ == "__main__":
    main()
