"""Constant folding: replace nodes whose inputs are all constants by a ``Const`` holding their value.

Values are computed by the host evaluator the runtime hands in (the pass never runs
kernels itself). Never folded: stateful or random ops, Placeholders, transfers, nodes
to preserve, ops with more than one output, and results larger than
``max_constant_bytes``; control-flow ops (Enter, Exit, NextIteration, LoopCond, Switch,
Merge) are never folded. A folded node keeps its name and device, so readers are
unchanged; the new Const gets its control inputs and those of the constants it was
computed from (as TF's folder: a constant inside a while loop is in the loop's frame
through its control edge, and the folded value must stay there). Nodes that only fed
folded nodes are left for the pruner.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes, tensor_proto
from modtensor.framework.protos import graph_pb2, node_def_pb2
from modtensor.grappler.graph_view import GraphView, parse, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["ConstantFolding"]

_NEVER = {
    "Placeholder", "PlaceholderWithDefault", "Const", "NoOp", "Identity", "IdentityN", "Snapshot",
    "Enter", "Exit", "NextIteration", "LoopCond", "Switch", "Merge", "_SwitchN", "ControlTrigger",
}  # fmt: skip
_PASS_THROUGH = {"Identity", "Snapshot"}


class ConstantFolding(GraphOptimizer):
    """TensorFlow's ``constant_folding``."""

    name = "constant_folding"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        evaluator = context.host_evaluator
        graph = copy_graph(item.graph_def)
        if evaluator is None:
            return graph
        index = context.index(item.graph_def)
        view = GraphView(graph, index)
        order = topological_order(graph, index)
        if order is None:
            return graph
        fed = item.feed_nodes()
        constant = {n.name for n in order if n.op == "Const" and n.name not in fed}
        candidates: list[node_def_pb2.NodeDef] = []
        for node in order:
            if (
                node.op in _PASS_THROUGH
                and node.name not in fed
                and node.name not in item.nodes_to_preserve
                and len(view.data_inputs(node)) == 1
                and all(parse(t)[0] in constant for t in node.input)
            ):
                # An Identity of a constant (a frozen variable's read) is constant: what reads it can fold. The
                # node itself stays (folding it would only copy the value).
                constant.add(node.name)
                continue
            if not self._foldable(node, view, item, fed):
                continue
            data = view.data_inputs(node)
            if (
                data
                and all(parse(t)[0] in constant for t in data)
                and all(parse(t)[0] in constant or parse(t)[0] not in fed for t in node.input)
            ):
                constant.add(node.name)
                candidates.append(node)
        if not candidates:
            return graph
        chosen = {n.name for n in candidates}
        # Evaluate only the candidates somebody outside the folded set reads (the frontier).
        keep = item.keep_nodes()
        frontier = [
            n for n in candidates if n.name in keep or any(r not in chosen for r in view.consumers.get(n.name, ()))
        ]
        values = self._evaluate(view, frontier, constant, evaluator)
        limit = context.options.max_constant_bytes
        sources = [parse(t)[0] for n in candidates for t in n.input]
        for node, value in zip(frontier, values, strict=True):
            if value is None or value.nbytes > limit:
                continue
            types = view.output_types(node)
            if not types:
                continue
            _make_const(node, np.asarray(value), types[0], view, _inherited_controls(node, view, constant))
        _drop_unread(view, sources, keep, chosen)
        return view.compact()

    @staticmethod
    def _foldable(node: node_def_pb2.NodeDef, view: GraphView, item: GrapplerItem, fed: set[str]) -> bool:
        if node.op in _NEVER or node.name in item.nodes_to_preserve or node.name in fed or view.is_stateful(node):
            return False
        types = view.output_types(node)
        return types is not None and len(types) == 1 and dtypes.as_dtype(types[0]).is_numpy_compatible

    @staticmethod
    def _evaluate(view, frontier, constant, evaluator) -> list[np.ndarray | None]:  # noqa: ANN001
        def subgraph(targets: list[node_def_pb2.NodeDef]) -> graph_pb2.GraphDef:
            needed: set[str] = set()
            stack = [n.name for n in targets]
            while stack:
                name = stack.pop()
                if name in needed:
                    continue
                needed.add(name)
                stack.extend(parse(t)[0] for t in view.nodes[name].input if not t.startswith("^"))
            out = graph_pb2.GraphDef()
            out.versions.CopyFrom(view.graph_def.versions)
            for node in view.graph_def.node:
                if node.name in needed:
                    copy = out.node.add()
                    copy.CopyFrom(node)
                    copy.device = ""
                    del copy.input[:]
                    copy.input.extend(t for t in node.input if not t.startswith("^"))
            return out

        fetches = [n.name + ":0" for n in frontier]
        try:
            return list(evaluator(subgraph(frontier), fetches))
        except Exception:  # noqa: BLE001 - some node fails on the host: fold the others one by one
            pass
        values: list[np.ndarray | None] = []
        for node in frontier:
            try:
                values.append(evaluator(subgraph([node]), [node.name + ":0"])[0])
            except Exception:  # noqa: BLE001 - left to fail (or work) at run time, as TF does
                values.append(None)
        return values


def _drop_unread(view: GraphView, names: list[str], keep: set[str], folded: set[str]) -> None:
    """Remove Consts and folded nodes nobody reads any more (what folding left behind)."""
    stack = list(names)
    while stack:
        name = stack.pop()
        node = view.nodes.get(name)
        if node is None or name in view.removed or name in keep or view.consumers.get(name):
            continue
        if node.op != "Const" and name not in folded:
            continue
        stack.extend(parse(t)[0] for t in node.input)
        view.remove(name)


def _inherited_controls(node: node_def_pb2.NodeDef, view: GraphView, constant: set[str]) -> list[str]:
    """The control inputs of ``node`` and of every constant it is computed from (each once, in order)."""
    controls: list[str] = []
    seen: set[str] = set()
    stack = [node.name]
    while stack:
        current = view.nodes[stack.pop()]
        for text in current.input:
            source = parse(text)[0]
            if text.startswith("^"):
                if source not in controls:
                    controls.append(source)
            elif source in constant and source not in seen:
                seen.add(source)
                stack.append(source)
    return controls


def _make_const(
    node: node_def_pb2.NodeDef, value: np.ndarray, dtype_enum: int, view: GraphView, controls: list[str]
) -> None:
    """Turn ``node`` into a Const of ``value`` with ``controls`` as its control inputs, keeping name and device."""
    dtype = dtypes.as_dtype(dtype_enum)
    controls = ["^" + name for name in controls]
    device = node.device
    proto = tensor_proto.make_tensor_proto(value, dtype=dtype, shape=list(value.shape))
    view.set_inputs(node, controls)
    node.op = "Const"
    node.attr.clear()
    node.attr["dtype"].type = dtype_enum
    node.attr["value"].tensor.CopyFrom(proto)
    node.device = device
