"""Shape optimization: ``Shape``, ``Size`` and ``Rank`` of a statically known tensor become constants.

``Shape``/``Size`` need the whole static shape, ``Rank`` only the rank (from
``GraphProperties``). The node keeps its name and device; its data input becomes a
control input (as TF's constant folding materializes shapes: the constant runs where the
shape op would have, in the same frame and branch), so a tensor computed only for its
shape still runs but is no longer read. Constant folding does the same first
(``constant_folding.materialize_shapes``); this pass catches what is left when constant
folding is off.
"""

from __future__ import annotations

from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import GraphView
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph
from modtensor.grappler.passes.constant_folding import materialize_shapes

__all__ = ["ShapeOptimizer"]


class ShapeOptimizer(GraphOptimizer):
    """TensorFlow's ``shape_optimization`` (the static-shape part of it)."""

    name = "shape_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        if not any(n.op in ("Shape", "Size", "Rank") for n in graph.node):
            return graph
        view = GraphView(graph)
        materialize_shapes(view, item, context)  # shapes inferred on the input graph (the same structure)
        return view.compact()
