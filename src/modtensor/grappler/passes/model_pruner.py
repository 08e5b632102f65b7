"""Model pruning: drop nodes no fetched or preserved node depends on, and trivial ops.

An Identity is trivial when it is neither fetched nor preserved, has no control inputs,
and sits on the same device as its input (so it is not a copy between devices): its
readers read its input directly. As in TensorFlow, an Identity of a Switch output (a
cond's pivot), one read as a control input, or one feeding a Merge is never trivial:
those carry which branch of a conditional runs.

As TF's ``IsTrivialOp``, ``StopGradient``/``PreventGradient`` (no purpose once the graph is
built) and an ``AddN`` of one input are bypassed too: readers read the input, control
readers depend on it, and the node's control inputs move to its readers; unless that
adds edges (inputs x outputs > inputs + outputs), an input is on another device or
yields a reference, or the node is fetched or preserved.
"""

from __future__ import annotations

from modtensor.framework import graph_walk
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import GraphView, dedupe_controls, parse
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
        for node in list(view.graph_def.node):
            if (
                node.op in _TRIVIAL_OPS
                and node.name not in view.removed
                and node.name not in keep
                and _trivial(view, node)
            ):
                _bypass(view, node)
        reachable = _reachable(view, keep)
        for name in list(view.nodes):
            if name not in reachable:
                view.remove(name)
        return view.compact()


_SWITCH_OPS = frozenset({"Switch", "RefSwitch", "_SwitchN"})
_TRIVIAL_OPS = frozenset({"StopGradient", "PreventGradient", "AddN"})


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


def _trivial(view: GraphView, node) -> bool:  # noqa: ANN001
    """TF's IsTrivialOp (beyond Identity) and CanRemoveNode for StopGradient/PreventGradient and AddN of one input."""
    data = view.data_inputs(node)
    if node.op in ("StopGradient", "PreventGradient"):
        if len(data) != 1:
            return False
    elif node.op != "AddN" or len(data) != 1:
        return False
    fanouts = sum(parse(t)[0] == node.name for r in view.consumers.get(node.name, ()) for t in view.nodes[r].input)
    fanins = len(node.input)
    if fanins * fanouts > fanins + fanouts:
        return False
    for text in node.input:
        producer = view.nodes.get(parse(text)[0])
        if producer is None or producer.device != node.device:
            return False
        if not text.startswith("^") and _is_ref(view, producer, parse(text)[1]):
            return False
    return True


def _is_ref(view: GraphView, node, index: int) -> bool:  # noqa: ANN001
    types = view.output_types(node)
    return types is None or index >= len(types) or types[index] > 100  # DT_*_REF are the types + 100


def _bypass(view: GraphView, node) -> None:  # noqa: ANN001
    """Readers of ``node`` read its (only) data input instead; its control inputs move to them."""
    (data,) = view.data_inputs(node)
    controls = [t for t in node.input if t.startswith("^")]
    source = parse(data)[0]
    for reader_name in sorted(view.consumers.get(node.name, ())):
        reader = view.nodes[reader_name]
        inputs, extra = [], []
        for text in reader.input:
            name, port = parse(text)
            if name != node.name:
                inputs.append(text)
            elif port < 0:
                extra.append("^" + source)
            else:
                inputs.append(data)
        inputs = [t for t in inputs if not t.startswith("^")] + [t for t in inputs if t.startswith("^")]
        view.set_inputs(reader, inputs + extra + controls)
        dedupe_controls(reader)
    view.remove(node.name)
