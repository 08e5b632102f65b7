"""Inputs of the graph-optimizer tests: a dense layer (MatMul + BiasAdd + Relu) and running a GraphDef as is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from modtensor.framework import op_def_library
from modtensor.framework.graph import Graph
from modtensor.framework.protos import graph_pb2
from modtensor.runtime import graph_execution

W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
BIAS = np.array([0.1, -0.2, 0.3, -5.0], np.float32)


def dense_graph() -> graph_pb2.GraphDef:
    """x[2,3] -> MatMul "mm" (W) -> BiasAdd "ba" -> Relu "y"."""
    graph = Graph()
    with graph.as_default():
        x = op_def_library.apply_op_outputs("Placeholder", name="x", dtype="float32", shape=[2, 3])
        w = op_def_library.constant(W, name="w")
        mm = op_def_library.apply_op_outputs("MatMul", name="mm", a=x, b=w)
        ba = op_def_library.apply_op_outputs(
            "BiasAdd", name="ba", value=mm, bias=op_def_library.constant(BIAS, name="b")
        )
        op_def_library.apply_op_outputs("Relu", name="y", features=ba)
    return graph.as_graph_def()


def expected(x: np.ndarray) -> np.ndarray:
    """The dense layer in numpy."""
    return np.maximum(x @ W + BIAS, 0)


def run(graph_def: graph_pb2.GraphDef, fetches: Sequence[str], feeds: Mapping[str, Any]) -> list[Any]:
    """Run ``graph_def`` without the graph optimizer and return the fetched values."""
    options = graph_execution.ExecutionOptions(optimize_graph=False)
    compiled = graph_execution.compile_graph(graph_def, list(feeds), fetches, options=options)
    try:
        return compiled.run(list(feeds.values()))
    finally:
        compiled.close()
