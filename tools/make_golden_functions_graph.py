"""Golden fixture for function inlining: a TF 2.21 GraphDef whose nodes call library functions.

``outer`` (a tf.function) calls ``inner`` twice, which calls ``leaf``, so the exported
graph has a FunctionDefLibrary, ``StatefulPartitionedCall``/``PartitionedCall`` nodes
and a nested call. Writes ``tests/golden/functions_graph/graph.pb`` and ``values.npz``
(inputs ``x``, ``w`` and TF's outputs). Run with TensorFlow 2.21:
``/tmp/tfvenv/bin/python tools/make_golden_functions_graph.py``.
"""

from __future__ import annotations

import pathlib

import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "functions_graph"


@tf.function
def leaf(a: tf.Tensor) -> tf.Tensor:
    return a * 2.0


@tf.function
def inner(a: tf.Tensor, b: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.nn.relu(tf.matmul(a, b)), leaf(a)


@tf.function
def outer(x: tf.Tensor, w: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    y, twice = inner(x, w)
    z, _ = inner(y, tf.transpose(w))
    return z + 1.0, twice


def main() -> None:
    spec = tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([3, 3], tf.float32)
    concrete = outer.get_concrete_function(*spec)
    graph_def = concrete.graph.as_graph_def()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3)).astype(np.float32)
    outputs = [t.name for t in concrete.outputs]
    inputs = [t.name for t in concrete.inputs]
    values = concrete(tf.constant(x), tf.constant(w))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "graph.pb").write_bytes(graph_def.SerializeToString())
    np.savez(
        OUT / "values.npz",
        x=x,
        w=w,
        z=values[0].numpy(),
        twice=values[1].numpy(),
        inputs=np.array(inputs),
        outputs=np.array(outputs),
    )
    print("inputs", inputs, "outputs", outputs, "functions", [f.signature.name for f in graph_def.library.function])


if __name__ == "__main__":
    main()
