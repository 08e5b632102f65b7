"""Model pruning: drop nodes no fetched or preserved node depends on, and trivial Identity chains.

An Identity is trivial when it is neither fetched nor preserved, has no control inputs,
and sits on the same device as its input (so it is not a copy between devices): its
readers read its input directly. As in TensorFlow, an Identity of a Switch output (a
cond's pivot), one read as a control input, or one feeding a Merge is never trivial:
those carry which branch of a conditional runs.
"""

from __future__ import annotations

from modtensor.framework import graph_walk
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import GraphView, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["ModelPruner"]


class ModelPruner(GraphOptimizer):
    """TensorFlow's ``pruning`` optimizer (``disable_model_pruning`` turns it off)."""

    name = "model_pruner"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        view = GraphView(copy_graph(item.graph_def), context.index(item.graph_def))
        keep = item.keep_nodes()
        for node in list(view.graph_def.node):
            if node.op != "Identity" or node.name in keep or len(node.input) != 1 or node.input[0].startswith("^"):
                continue
            source, index = parse(node.input[0])
            producer = view.nodes.get(source)
            if producer is None or producer.device != node.device or producer.op in _SWITCH_OPS:
                continue  # an Identity of a Switch output is a cond's pivot: control edges on it carry the branch
            if _drives_control_or_merge(view, node.name):
                continue
            view.redirect(node.name, source, index)
            view.remove(node.name)
        reachable = _reachable(view, keep)
        for name in list(view.nodes):
            if name not in reachable:
                view.remove(name)
        return view.compact()


_SWITCH_OPS = frozenset({"Switch", "RefSwitch", "_SwitchN"})


def _drives_control_or_merge(view: GraphView, name: str) -> bool:
    """True when a reader of ``name`` is a Merge or reads it as a control input (TF's IsTrivialIdentity)."""
    control = "^" + name
    for reader in view.consumers.get(name, ()):
        node = view.nodes.get(reader)
        if node is None:
            continue
        if node.op in graph_walk.MERGE_OPS or control in node.input:
            return True
    return False


def _reachable(view: GraphView, roots: set[str]) -> set[str]:
    seen: set[str] = set()
    stack = [r for r in roots if r in view.nodes and r not in view.removed]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in view.nodes[name].input:
            stack.append(parse(text)[0])
    return seen
