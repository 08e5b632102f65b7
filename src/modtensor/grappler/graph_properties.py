"""``GraphProperties``: static shapes, dtypes and constant values of every tensor of a GraphDef.

Inference imports the GraphDef into a scratch ``framework.Graph``, which runs each op's
registered shape function through the shape refiner (with constant propagation for
shape-like inputs, as TensorFlow's ``InferStatically``). With ``assume_valid_feeds``
a fed Placeholder's ``shape`` attr is trusted; without it fed tensors are unknown.
A graph that cannot be imported (an op not registered, a shape error) gets no
properties: every query answers "unknown".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import shape_refiner, tensor_shape
from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.item import GrapplerItem

__all__ = ["GraphProperties"]


class GraphProperties:
    """Shapes and dtypes per output tensor of an item's graph, after ``infer_statically``."""

    def __init__(self, item: GrapplerItem):
        self.item = item
        self._graph: Graph | None = None
        self.error: str | None = None

    def infer_statically(self, assume_valid_feeds: bool = False) -> bool:
        """Run inference; True when the whole graph could be analysed (else ``error`` says why)."""
        graph_def = self.item.graph_def
        fed = self.item.feed_nodes()
        if fed and not assume_valid_feeds:
            graph_def = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
            for node in graph_def.node:
                if node.name in fed and node.op == "Placeholder" and "shape" in node.attr:
                    node.attr["shape"].shape.unknown_rank = True
                    del node.attr["shape"].shape.dim[:]
        graph = Graph()
        try:
            import_graph_def(graph_def, name="", graph=graph)
        except Exception as exc:  # noqa: BLE001 - properties stay unknown, passes that need them do less
            self.error = str(exc)
            return False
        self._graph = graph
        return True

    def _output(self, node: str, index: int) -> Any:
        if self._graph is None:
            return None
        try:
            return self._graph.get_operation_by_name(node).outputs[index]
        except (KeyError, IndexError, ValueError):
            return None

    def output_shape(self, node: str, index: int = 0) -> tensor_shape.TensorShape:
        """The static shape of output ``index`` of ``node`` (unknown when not inferred)."""
        tensor = self._output(node, index)
        return tensor.shape if tensor is not None else tensor_shape.TensorShape(None)

    def output_dtype(self, node: str, index: int = 0) -> Any:
        """The dtype of output ``index`` of ``node``, or None when not inferred."""
        tensor = self._output(node, index)
        return tensor.dtype if tensor is not None else None

    def has_properties(self, node: str) -> bool:
        """True when inference covered ``node``."""
        return self._output(node, 0) is not None or (
            self._graph is not None and node in {op.name for op in self._graph.get_operations()}
        )

    def constant_value(self, node: str, index: int = 0) -> np.ndarray | None:
        """The value of the tensor when constant propagation knows it (Const, shapes of static tensors, ...)."""
        tensor = self._output(node, index)
        if tensor is None:
            return None
        try:
            return shape_refiner.constant_value(tensor)
        except Exception:  # noqa: BLE001 - not a constant
            return None
