"""``GraphProperties``: static shapes, dtypes and constant values of every tensor of a GraphDef.

Inference imports the GraphDef into a scratch ``framework.Graph``, which runs each op's
registered shape function through the shape refiner (with constant propagation for
shape-like inputs, as TensorFlow's ``InferStatically``). With ``assume_valid_feeds``
a fed Placeholder's ``shape`` attr is trusted; without it fed tensors are unknown.
A graph that cannot be imported (an op not registered, a shape error) gets no
properties: every query answers "unknown".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from modtensor.framework import shape_refiner, tensor_shape
from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import source_name
from modtensor.grappler.item import GrapplerItem

__all__ = ["GraphProperties"]


class GraphProperties:
    """Shapes and dtypes per output tensor of an item's graph, after ``infer_statically``."""

    def __init__(self, item: GrapplerItem):
        self.item = item
        self._graph: Graph | None = None
        self.error: str | None = None
        self.nodes: frozenset[str] | None = None  # the nodes inference was asked for (None: all)

    def infer_statically(
        self,
        assume_valid_feeds: bool = False,
        nodes: Iterable[str] | None = None,
        cache: dict[bytes, tuple[Graph | None, str | None]] | None = None,
    ) -> bool:
        """Run inference; True when the graph could be analysed (else ``error`` says why).

        With ``nodes``, only those nodes and what they read (their data fan-in) are analysed:
        the properties of other nodes stay unknown. A pass that needs the shapes of a few
        tensors asks for those, which on large graphs costs a fraction of the whole.
        With ``cache`` (serialized analysed graph -> its import), an analysed graph equal to
        one seen before (the same fan-in in the next pass's graph) is not imported again.
        """
        graph_def = self.item.graph_def
        if nodes is not None:
            self.nodes = frozenset(nodes)
            graph_def = _fan_in(graph_def, self.nodes)
        fed = self.item.feed_nodes()
        if fed and not assume_valid_feeds:
            if graph_def is self.item.graph_def:
                graph_def = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
            for node in graph_def.node:
                if node.name in fed and node.op == "Placeholder" and "shape" in node.attr:
                    node.attr["shape"].shape.unknown_rank = True
                    del node.attr["shape"].shape.dim[:]
        key = None
        if cache is not None:
            key = graph_def.SerializeToString(deterministic=True)
            if key in cache:
                self._graph, self.error = cache[key]
                return self._graph is not None
        graph: Graph | None = Graph()
        graph._allow_internal_names = True  # runtime graphs have "_recv_x_0"-style names (TF: allow_internal_ops)
        try:
            import_graph_def(graph_def, name="", graph=graph)
        except Exception as exc:  # noqa: BLE001 - properties stay unknown, passes that need them do less
            self.error = str(exc)
            graph = None
        if cache is not None:
            if len(cache) >= 4:  # the last few analysed graphs only
                cache.pop(next(iter(cache)))
            cache[key] = (graph, self.error)
        self._graph = graph
        return graph is not None

    def covers(self, nodes: Iterable[str] | None) -> bool:
        """True when this inference was asked for (at least) ``nodes`` (None: every node)."""
        if self.nodes is None:
            return True
        return nodes is not None and self.nodes.issuperset(nodes)

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


def _fan_in(graph_def: graph_pb2.GraphDef, roots: frozenset[str]) -> graph_pb2.GraphDef:
    """The nodes of ``roots`` and everything they read through data edges (control inputs dropped), graph order kept."""
    nodes = {node.name: node for node in graph_def.node}
    needed: set[str] = set()
    stack = [name for name in roots if name in nodes]
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        stack.extend(source_name(t) for t in nodes[name].input if not t.startswith("^") and source_name(t) in nodes)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    if graph_def.HasField("library"):
        out.library.CopyFrom(graph_def.library)
    for node in graph_def.node:
        if node.name in needed:
            copy = out.node.add()
            copy.CopyFrom(node)
            if any(t.startswith("^") for t in copy.input):
                data = [t for t in copy.input if not t.startswith("^")]
                del copy.input[:]
                copy.input.extend(data)
    return out
