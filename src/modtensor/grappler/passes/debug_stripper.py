"""Debug stripper: remove ``Assert`` and turn ``CheckNumerics``/``Print``/``PrintV2`` into pass-throughs.

modtensor's op set has none of these ops today, so on its own graphs the pass changes
nothing; on imported graphs that carry them (with the ops registered by a plugin) it
strips them as TensorFlow does: an Assert becomes a NoOp that keeps only control
inputs, a CheckNumerics or Print becomes an Identity of its first input.
"""

from __future__ import annotations

from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["DebugStripper"]

_PASS_THROUGH = {"CheckNumerics", "CheckNumericsV2", "Print"}


class DebugStripper(GraphOptimizer):
    """TensorFlow's ``debug_stripper`` (off by default)."""

    name = "debug_stripper"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        for node in graph.node:
            if node.op == "Assert" or node.op == "PrintV2":
                controls = ["^" + parse(t)[0] for t in node.input]
                del node.input[:]
                node.input.extend(dict.fromkeys(controls))
                node.op = "NoOp"
                node.attr.clear()
            elif node.op in _PASS_THROUGH:
                data = [t for t in node.input if not t.startswith("^")]
                rest = ["^" + parse(t)[0] for t in data[1:]] + [t for t in node.input if t.startswith("^")]
                dtype = node.attr["T"].type
                del node.input[:]
                node.input.extend([data[0], *dict.fromkeys(rest)])
                node.op = "Identity"
                node.attr.clear()
                node.attr["T"].type = dtype
        return graph
