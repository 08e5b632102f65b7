"""Common subgraph elimination: merge nodes that compute the same thing from the same inputs.

Two nodes are the same when op, device, attrs and inputs are equal (data inputs of
commutative ops in any order, control inputs as a set). Stateful ops are never merged.
Nodes are visited in topological order, so whole duplicated subgraphs collapse; a
fetched or preserved duplicate stays (its readers are not redirected).

First, as TF's ``CanonicalizeGraph``, every node is canonicalized: the data inputs of a
commutative op (its OpDef's ``is_commutative``: AddV2, Mul, AddN, Equal, LogicalAnd, ...;
and ``Add`` of non-strings) are sorted by name, control inputs sorted and de-duplicated.
Later passes and plugin optimizers therefore see TF's operand order.
"""

from __future__ import annotations

from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.grappler.graph_view import GraphView, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["CommonSubgraphElimination"]

COMMUTATIVE = {
    "Add",
    "AddV2",
    "Mul",
    "Maximum",
    "Minimum",
    "LogicalAnd",
    "LogicalOr",
    "Equal",
    "NotEqual",
    "SquaredDifference",
    "AddN",
}
# As in TF (CanDedup): Enter and Exit are never merged, they tie values to one loop frame each.
_SKIP = {"NoOp", "Placeholder", "PlaceholderWithDefault", "Enter", "Exit", "RefEnter", "RefExit"}


class CommonSubgraphElimination(GraphOptimizer):
    """TensorFlow's ``common_subgraph_elimination``."""

    name = "common_subgraph_elimination"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        index = context.index(item.graph_def)
        view = GraphView(graph, index)
        for node in graph.node:
            canonicalize(node, view)
        order = topological_order(graph, index)
        if order is None:
            return graph
        keep = item.keep_nodes()
        # Nodes agreeing on op, device and inputs, then by attrs: attrs are serialized only when
        # two nodes agree on the rest (mostly Consts), not for every node.
        groups: dict[tuple, list] = {}  # key without attrs -> [node whose attrs are not read yet, {attrs: name}]
        for node in order:
            if node.op in _SKIP or view.is_stateful(node):
                continue
            key = _key(node)
            group = groups.get(key)
            if group is None:
                groups[key] = [node, {}]
                continue
            if group[0] is not None:
                group[1][_attrs(group[0])] = group[0].name
                group[0] = None
            attrs = _attrs(node)
            first = group[1].get(attrs)
            if first is None:
                group[1][attrs] = node.name
                continue
            if node.name in keep:
                continue
            types = view.output_types(node) or []
            readers = list(view.consumers.get(node.name, ()))
            for index in range(max(len(types), 1)):
                view.redirect(node.name, first, index, index=index)
            view.remove(node.name)
            for reader in readers:
                canonicalize(view.nodes[reader], view)
        return view.compact()


def canonicalize(node: node_def_pb2.NodeDef, view: GraphView) -> None:
    """TF's CanonicalizeNode: sort the data inputs of a commutative op; sort and de-duplicate control inputs."""
    if len(node.input) < 2:
        return
    inputs = list(node.input)
    split = next((i for i, t in enumerate(inputs) if t.startswith("^")), len(inputs))
    data, controls = inputs[:split], inputs[split:]
    if split > 1 and _commutative(node, view):
        data = sorted(data)
    if controls:
        controls = sorted(set(controls))
    if data + controls != inputs:
        del node.input[:]
        node.input.extend(data + controls)


def _commutative(node: node_def_pb2.NodeDef, view: GraphView) -> bool:
    """TF's IsCommutative: the OpDef says so; ``Add`` (not marked) counts unless it adds strings."""
    if node.op == "Add":
        return "T" in node.attr and node.attr["T"].type not in (0, types_pb2.DT_STRING)
    op_def = view.op_def(node)
    return op_def is not None and op_def.is_commutative


def _key(node: node_def_pb2.NodeDef) -> tuple:
    """What two nodes must share to be merged, attrs aside: op, device, data inputs, control inputs."""
    inputs = list(node.input)
    data = [t if ":" in t else t + ":0" for t in inputs if not t.startswith("^")]
    if node.op in COMMUTATIVE:
        data.sort()
    controls = frozenset(t[1:] for t in inputs if t.startswith("^"))
    return (node.op, node.device, tuple(data), controls)


def _attrs(node: node_def_pb2.NodeDef) -> tuple:
    """The node's attrs as comparable bytes (deterministic serialization per attr, sorted by name)."""
    return tuple(sorted((k, v.SerializeToString(deterministic=True)) for k, v in node.attr.items()))
