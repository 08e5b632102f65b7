"""Graph optimizer scaling: the meta-optimizer (default config) on GraphDefs of 1k, 10k and 100k nodes.

The graphs are chains of an 18-node block that gives every default pass work: an
AddV2 and a Mul by 1 (arithmetic: the Mul becomes an Identity, pruned next
iteration), a duplicated Mul and Consts equal across blocks (common subgraph
elimination), an AddV2 of two Consts, one of them different per block (constant
folding, one fold per block), MatMul + BiasAdd + Relu (remapping to ``_FusedMatMul``),
an Identity (pruning) and a NoOp on a control edge (dependency optimization). The
GraphDef is built as protos, so the identical bytes go to both optimizers.

TensorFlow's side is ``tensorflow.python.grappler.tf_optimizer.OptimizeGraph`` (TF's
Grappler meta-optimizer through its Python binding; works in TF 2.21) on a MetaGraphDef
holding the same GraphDef with the fetch in the ``train_op`` collection, default
``ConfigProto`` (default ``RewriterConfig``) and one ``Cluster`` made up front: this
times Grappler alone, as the modtensor column times ``meta_optimizer.optimize``.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import numpy as np
from timing import Environment, Row

BENCHMARK = "graph optimizer (meta-optimizer, default config)"
WIDTH = 8
BLOCK_NODES = 18
SIZES = (1_000, 10_000, 100_000)
_TF_CLUSTER: dict[str, Any] = {}


def build_graph_def(nodes: int) -> Any:
    """A modtensor GraphDef of about ``nodes`` nodes (whole blocks) and its fetch node name."""
    from modtensor.framework import tensor_proto
    from modtensor.framework.protos import graph_pb2, types_pb2

    float_type = types_pb2.DT_FLOAT
    graph = graph_pb2.GraphDef()
    graph.versions.producer = 1087

    def add(name: str, op: str, inputs: list[str], **attrs: Any) -> None:
        node = graph.node.add(name=name, op=op)
        node.input.extend(inputs)
        if op not in ("NoOp", "Const", "Placeholder"):
            node.attr["T"].type = float_type
        for key, value in attrs.items():
            if key == "value":
                node.attr["dtype"].type = float_type
                node.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(np.asarray(value, np.float32)))
            elif key == "shape":
                node.attr["dtype"].type = float_type
                for size in value:
                    node.attr["shape"].shape.dim.add(size=size)

    add("x", "Placeholder", [], shape=[1, WIDTH])
    rng = np.random.default_rng(0)
    weight = (rng.standard_normal([WIDTH, WIDTH]) / np.sqrt(WIDTH)).astype(np.float32)
    bias = rng.standard_normal([WIDTH]).astype(np.float32) * 0.1
    last = "x"
    for b in range(max(1, (nodes - 1) // BLOCK_NODES)):
        p = f"block{b}/"
        add(p + "c", "Const", [], value=np.float32(0.01))
        add(p + "one", "Const", [], value=np.float32(1.0))
        add(p + "add", "AddV2", [last, p + "c"])
        add(p + "mul1", "Mul", [p + "add", p + "one"])
        add(p + "dup_a", "Mul", [p + "mul1", p + "c"])
        add(p + "dup_b", "Mul", [p + "mul1", p + "c"])
        add(p + "sum", "AddV2", [p + "dup_a", p + "dup_b"])
        add(p + "k1", "Const", [], value=np.float32(0.5 + b * 1e-3))  # one fold per block
        add(p + "k2", "Const", [], value=np.float32(0.25))
        add(p + "folded", "AddV2", [p + "k1", p + "k2"])
        add(p + "scaled", "Mul", [p + "sum", p + "folded"])
        add(p + "w", "Const", [], value=weight)
        add(p + "bias", "Const", [], value=bias)
        add(p + "matmul", "MatMul", [p + "scaled", p + "w"])
        graph.node[-1].attr["transpose_a"].b = False
        graph.node[-1].attr["transpose_b"].b = False
        add(p + "deps", "NoOp", [f"^{p}add"])
        # BiasAdd waits on the NoOp (the dependency optimizer bypasses it).
        add(p + "bias_add", "BiasAdd", [p + "matmul", p + "bias", f"^{p}deps"])
        add(p + "relu", "Relu", [p + "bias_add"])
        add(p + "out", "Identity", [p + "relu"])
        last = p + "out"
    return graph, last


def _modtensor_optimize(graph_def: Any, fetch: str) -> Any:
    from modtensor.grappler import meta_optimizer
    from modtensor.runtime import graph_execution

    return meta_optimizer.optimize_graph_def(
        graph_def, fetches=[fetch + ":0"], host_evaluator=graph_execution.host_evaluator()
    )


def _tensorflow_optimizer(tf: ModuleType, serialized: bytes, fetch: str) -> Any:
    """A call running TF's Grappler meta-optimizer (default config) on the same GraphDef."""
    from tensorflow.python.grappler import cluster as gcluster
    from tensorflow.python.grappler import tf_optimizer

    meta_graph = tf.compat.v1.MetaGraphDef()
    meta_graph.graph_def.ParseFromString(serialized)
    meta_graph.collection_def["train_op"].node_list.value.append(fetch)  # what Grappler must keep: the fetch
    config = tf.compat.v1.ConfigProto()
    if "cluster" not in _TF_CLUSTER:  # the local CPU, made once (TF allows one at a time; OptimizeGraph makes one)
        _TF_CLUSTER["cluster"] = gcluster.Cluster()
    cluster = _TF_CLUSTER["cluster"]

    def call() -> Any:
        return tf_optimizer.OptimizeGraph(config, meta_graph, verbose=False, cluster=cluster)

    return call


def _best(fn: Any, repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` timed calls, and the last call's result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def run(env: Environment) -> list[Row]:
    """One row per graph size: modtensor's meta-optimizer against TensorFlow's Grappler (when installed)."""
    rows = []
    tf = env.tensorflow
    warm = False
    for size in SIZES:
        graph_def, fetch = build_graph_def(size)
        repeats = 1 if size >= 100_000 or env.quick else 3
        if not warm:  # the first call pays imports and the host evaluator's kernel set-up
            _modtensor_optimize(graph_def, fetch)
            warm = True
        mt, result = _best(lambda g=graph_def, f=fetch: _modtensor_optimize(g, f), repeats)
        tf_s, tf_nodes = None, ""
        if tf is not None:
            call = _tensorflow_optimizer(tf, graph_def.SerializeToString(), fetch)
            tf_s, optimized = _best(call, repeats)
            tf_nodes = f", TF {len(optimized.node)}"
        iterations = max(s.iteration for s in result.stats)
        note = (
            f"{len(graph_def.node)} -> {len(result.graph_def.node)} nodes (modtensor{tf_nodes}); "
            f"{iterations} iterations; best of {repeats}"
        )
        rows.append(Row(BENCHMARK, f"{len(graph_def.node)} nodes", mt, None, tf_s, 1, note))
    return rows
