"""Dependency optimization: drop redundant control edges and bypass NoOps.

- A control edge is redundant when the same node is also a data input, or repeated.
- A NoOp that is neither fetched nor preserved, with only control inputs, is removed
  and each of its control readers depends on its inputs directly, when that does not
  add edges (TensorFlow's rule: inputs x readers <= inputs + readers) and every node
  involved is on the NoOp's device.
"""

from __future__ import annotations

from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import GraphView, dedupe_controls, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["DependencyOptimizer"]


class DependencyOptimizer(GraphOptimizer):
    """TensorFlow's ``dependency_optimization``."""

    name = "dependency_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        for node in graph.node:
            dedupe_controls(node)
        view = GraphView(graph)
        keep = item.keep_nodes()
        for node in list(view.graph_def.node):
            if node.op != "NoOp" or node.name in keep or node.name in view.removed:
                continue
            if any(not t.startswith("^") for t in node.input):
                continue
            inputs = [parse(t)[0] for t in node.input]
            readers = sorted(view.consumers.get(node.name, ()))
            if len(inputs) * len(readers) > len(inputs) + len(readers):
                continue
            if any(view.nodes[n].device != node.device for n in [*inputs, *readers] if n in view.nodes):
                continue
            for reader_name in readers:
                reader = view.nodes[reader_name]
                new_inputs = [t for t in reader.input if t != "^" + node.name]
                new_inputs += ["^" + i for i in inputs if i != reader_name]
                view.set_inputs(reader, new_inputs)
                dedupe_controls(reader)
            view.remove(node.name)
        return view.compact()
