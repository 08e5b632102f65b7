"""``GrapplerItem``: the graph an optimizer rewrites, with what must survive the rewrite.

As in TensorFlow: ``feeds`` are tensors the caller provides (their producers may be
cut), ``fetches`` tensors the caller reads, ``nodes_to_preserve`` nodes an optimizer
must neither remove nor change the signature of (function inputs/outputs, targets,
client transfers). With no fetches at all (an optimizer run from the command line on a
bare GraphDef), every node nobody consumes counts as fetched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import graph_pb2

__all__ = ["GrapplerItem"]


@dataclass
class GrapplerItem:
    """A GraphDef plus feeds, fetches and nodes to preserve (tensor names ``node:i``, node names)."""

    graph_def: graph_pb2.GraphDef
    feeds: tuple[str, ...] = ()
    fetches: tuple[str, ...] = ()
    nodes_to_preserve: frozenset[str] = field(default_factory=frozenset)
    device_types: tuple[str, ...] = ("CPU",)  # device types the graph may be placed on

    def __post_init__(self) -> None:
        self.feeds = tuple(self.feeds)
        self.fetches = tuple(self.fetches)
        self.nodes_to_preserve = frozenset(self.nodes_to_preserve)
        self.device_types = tuple(self.device_types)

    def with_graph(self, graph_def: graph_pb2.GraphDef) -> GrapplerItem:
        """The same item over another graph (what each pass hands to the next)."""
        return GrapplerItem(graph_def, self.feeds, self.fetches, self.nodes_to_preserve, self.device_types)

    def fetch_nodes(self) -> set[str]:
        """Names of the fetched nodes; with no fetches, the nodes no other node consumes."""
        if self.fetches:
            return {node_def_lib.parse_tensor_name(name)[0] for name in self.fetches}
        consumed = set()
        for node in self.graph_def.node:
            consumed.update(_input_nodes(node.input))
        return {node.name for node in self.graph_def.node if node.name not in consumed}

    def keep_nodes(self) -> set[str]:
        """Nodes every pass must keep: the fetched, the fed (TF's NodesToPreserve) and those to preserve."""
        return self.fetch_nodes() | self.feed_nodes() | set(self.nodes_to_preserve)

    def feed_nodes(self) -> set[str]:
        """Names of the nodes whose outputs are fed."""
        return {node_def_lib.parse_tensor_name(name)[0] for name in self.feeds}


def _input_nodes(inputs: Iterable[str]) -> Iterable[str]:
    for text in inputs:
        yield node_def_lib.parse_tensor_name(text)[0]
