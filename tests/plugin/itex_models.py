"""Run the golden models (examples/models/) through modtensor with ITEX discovered; print one JSON line.

Used by tests/plugin/test_itex.py (in a child process, so ITEX's discovery is its own) and by
benchmarks/itex_models.py. Per model: the op types of the partition graphs, the largest difference
from TensorFlow 2.21's outputs (the model's .io.npz), and the graph optimizer's rows (pass, status).
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import numpy as np

import modtensor as tf
from modtensor.framework.protos import config_pb2, graph_pb2
from modtensor.plugin import loaded_plugins
from modtensor.runtime.graph_execution import compile_graph

MODELS = Path(__file__).resolve().parent.parent.parent / "examples" / "models"


def run_model(name: str, info: dict) -> dict:
    graph_def = graph_pb2.GraphDef.FromString((MODELS / f"{name}.pb").read_bytes())
    io = np.load(MODELS / f"{name}.io.npz")
    batch = info["batches"][-1]
    feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in info["inputs"]}
    fetches = [o["name"] for o in info["outputs"]]
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    meta = config_pb2.RunMetadata()
    with tf.compat.v1.Session(graph=graph) as sess:
        out = sess.run(fetches, feeds, config_pb2.RunOptions(output_partition_graphs=True), meta)
    errors = [
        float(np.max(np.abs(np.asarray(o, np.float64) - io[f"b{batch}/out/{n}"].astype(np.float64))))
        if np.size(o)
        else 0.0
        for o, n in zip(out, fetches, strict=True)
    ]
    compiled = compile_graph(graph_def, list(feeds), fetches)
    rows = [(r.name, r.status) for r in compiled.optimization.stats]
    compiled.close()
    ops = collections.Counter(n.op for g in meta.partition_graphs for n in g.node)
    return {"max_abs_error_vs_tf221": max(errors), "ops": dict(sorted(ops.items())), "passes": rows}


def _cpu_kernel_sources() -> dict[str, str]:
    """Which registration serves a float32 node of each loop-plumbing op on CPU (ITEX registers CPU kernels
    for them, where TF has DEFAULT ones only)."""
    from modtensor.framework.op_registry import global_registry
    from modtensor.framework.protos import node_def_pb2
    from modtensor.runtime.kernel_registry import global_kernel_registry

    sources = {}
    for op in ("Enter", "Exit", "NextIteration", "NoOp"):
        node = node_def_pb2.NodeDef(name="n", op=op)
        if op != "NoOp":
            node.attr["T"].type = tf.float32.as_datatype_enum
        if op == "Enter":
            node.attr["frame_name"].s = b"loop"
        op_def = global_registry().lookup(op).op_def
        sources[op] = global_kernel_registry().find_kernel(node, op_def, "CPU").source
    return sources


def _variables_and_loop() -> dict[str, list]:
    """A tf.function with resource variables (read, assign_add) and a while loop, run twice with ITEX loaded."""
    rng = np.random.RandomState(0)
    w0, x = rng.randn(8, 4).astype(np.float32), rng.randn(2, 8).astype(np.float32)
    w, b = tf.Variable(w0), tf.Variable(np.full(4, 0.5, np.float32))

    @tf.function
    def step(x):
        y = tf.nn.relu(tf.matmul(x, w) + b)
        _, y = tf.while_loop(
            lambda i, y: i < 3, lambda i, y: (i + 1, tf.nn.relu(tf.matmul(y, tf.ones([4, 4])) * 0.1)), (0, y)
        )
        w.assign_add(tf.ones_like(w) * 0.01)
        return y

    outputs = [step(x).numpy().tolist() for _ in range(2)]
    return {"w0": w0.tolist(), "x": x.tolist(), "outputs": outputs, "w": w.numpy().tolist()}


def main() -> None:
    from modtensor.runtime import inter_op

    # One inter-op thread: nodes run in the user's order. ITEX's optimizer marks a Softmax whose
    # input comes through a Reshape `is_inplace`, and its kernel then writes into the Reshape's
    # buffer, which the Reshape shares with a tensor another Softmax still reads (small_cnn's
    # `probs` and `grouped/probs`): with parallel nodes that is a data race, in TensorFlow too.
    inter_op.set_inter_op_parallelism_threads(1)
    manifest = json.loads((MODELS / "manifest.json").read_text())["models"]
    names = sys.argv[1:] or sorted(manifest)
    result = {"models": {name: run_model(name, manifest[name]) for name in names}}
    result["plugins"] = [r.summary() for r in loaded_plugins()]
    result["cpu_kernel_sources"] = _cpu_kernel_sources()
    result["variables_and_loop"] = _variables_and_loop()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
