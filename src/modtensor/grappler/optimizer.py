"""The contract of one graph optimizer pass: ``optimize(item, context) -> GraphDef``.

A pass returns a new GraphDef (it may edit a copy of ``item.graph_def``, never the
original) and may raise; the meta-optimizer validates what it returns. The context
carries what passes share: the effective options, the host evaluator for constant
folding and lazily computed graph properties of the current graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modtensor.framework.protos import graph_pb2
from modtensor.grappler.config import OptimizerOptions
from modtensor.grappler.graph_properties import GraphProperties
from modtensor.grappler.graph_view import GraphIndex
from modtensor.grappler.item import GrapplerItem

__all__ = ["GraphOptimizer", "HostEvaluator", "OptimizerContext", "copy_graph"]

# Runs a small graph on the host: (graph_def, fetch tensor names) -> values in fetch order.
HostEvaluator = Callable[[graph_pb2.GraphDef, Sequence[str]], list[np.ndarray]]


@dataclass
class OptimizerContext:
    """What a pass may use besides the item: options, the host evaluator, graph properties."""

    options: OptimizerOptions = field(default_factory=OptimizerOptions)
    host_evaluator: HostEvaluator | None = None
    _properties: dict[int, GraphProperties] = field(default_factory=dict)
    _indexes: dict[int, GraphIndex] = field(default_factory=dict)
    _imported: dict[bytes, Any] = field(default_factory=dict)

    def properties(self, item: GrapplerItem, nodes: Iterable[str] | None = None) -> GraphProperties:
        """Static properties of ``item``'s graph, feeds assumed valid; inferred once per graph object.

        ``nodes`` limits inference to those nodes and their fan-in (see ``GraphProperties``);
        an inference already made for a superset is reused, and so is one made for an equal
        fan-in of an earlier graph (passes that change nothing upstream of the nodes asked
        about, or the same pass in the next iteration).
        """
        key = id(item.graph_def)
        found = self._properties.get(key)
        if found is None or found.item.graph_def is not item.graph_def or not found.covers(nodes):
            found = GraphProperties(item)
            found.infer_statically(assume_valid_feeds=True, nodes=nodes, cache=self._imported)
            self._properties = {key: found}
        return found

    def index(self, graph_def: graph_pb2.GraphDef) -> GraphIndex:
        """The structure of ``graph_def`` (a pass's input, which nobody edits), read once and shared by passes."""
        found = self._indexes.get(id(graph_def))
        if found is None or found.graph_def is not graph_def:
            found = GraphIndex.of(graph_def)
            if len(self._indexes) >= 4:  # the last few graphs only
                self._indexes.pop(next(iter(self._indexes)))
            self._indexes[id(graph_def)] = found
        return found


class GraphOptimizer:
    """Base of the built-in passes: ``name`` (TensorFlow's optimizer name) and ``optimize``."""

    name = "optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        """The rewritten graph of ``item`` (a new GraphDef)."""
        raise NotImplementedError


def copy_graph(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """A deep copy a pass may edit."""
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    return out


def attr_summary(value: Any) -> bytes:
    """Deterministic bytes of a protobuf message (for equality keys)."""
    return value.SerializeToString(deterministic=True)
